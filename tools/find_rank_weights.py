"""Find the rank weights of acpcbot.evaluator.RANK_WEIGHTS (greedy, about a minute).

The evaluator identifies a hand's multiset of ranks by the sum of one weight
per card.  That needs weights w_0 < ... < w_12 such that two different
multisets of the same size k <= 7 (at most four cards of a rank) never have
the same sum.  Greedy: for each new rank take the smallest weight that keeps
all sums distinct.  With ranks 0..r-1 placed and S_k their distinct size-k
sums, a weight w for rank r collides exactly when s1 + c1*w = s2 + c2*w for
s1 in S_(k-c1), s2 in S_(k-c2), c1 != c2, so the forbidden w are the
differences (s1 - s2) / (c2 - c1) that are whole numbers.

Run from the repository root:

    .venv/bin/python tools/find_rank_weights.py
"""

from __future__ import annotations

import numpy as np

MAX_CARDS = 7
MAX_COPIES = 4


def _forbidden(sets: list[np.ndarray], lo: int, hi: int) -> np.ndarray:
    """Weights in [lo, hi] that would make two sums of the same size collide."""
    found = []
    for k in range(MAX_CARDS + 1):
        for c1 in range(min(MAX_COPIES, k) + 1):
            for c2 in range(c1 + 1, min(MAX_COPIES, k) + 1):
                a, b, d = sets[k - c1], sets[k - c2], c2 - c1
                for i in range(0, len(a), 2048):
                    diff = a[i:i + 2048, None] - b[None, :]
                    diff = diff[(diff >= lo * d) & (diff <= hi * d) & (diff % d == 0)] // d
                    if diff.size:
                        found.append(np.unique(diff))
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def find_weights(num_ranks: int = 13) -> list[int]:
    """The greedy weights for ``num_ranks`` ranks."""
    sets = [np.array([0], dtype=np.int64)] + [np.zeros(0, dtype=np.int64)] * MAX_CARDS
    weights: list[int] = []
    for _ in range(num_ranks):
        lo = weights[-1] + 1 if weights else 0
        hi = lo + 1024
        while True:
            free = np.setdiff1d(np.arange(lo, hi + 1), _forbidden(sets, lo, hi))
            if free.size:
                w = int(free[0])
                break
            lo, hi = hi + 1, 2 * hi
        weights.append(w)
        new = []
        for k in range(MAX_CARDS + 1):
            sums = np.concatenate([sets[k - c] + c * w for c in range(min(MAX_COPIES, k) + 1)])
            assert len(np.unique(sums)) == len(sums)
            new.append(np.unique(sums))
        sets = new
    return weights


if __name__ == "__main__":
    print(tuple(find_weights()))
