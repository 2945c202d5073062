"""Compute the exact heads-up all-in equity of the 169 preflop classes against a random hand.

Exact enumeration, no sampling: every five-card board (2,598,960, folded to
134,459 up to a renaming of suits, each weighted by how many boards it
stands for), every hole pair on it ranked with the batch evaluator, and for
each pair the opponent pairs it beats or ties counted with card removal
(the opponent's pair shares no card with the hero's).  A few minutes on two
cores.  Writes acpcbot/data/preflop_equity.csv: per class its combos and the
integer counts of (board, opponent pair) deals won, tied and dealt, so the
equity (win + tie / 2) / deals is an exact fraction.

Run from the repository root:

    .venv/bin/python tools/make_preflop_equity.py            # writes the data file
    .venv/bin/python tools/make_preflop_equity.py --check    # compares with the shipped file
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acpcbot.evaluator import KEY_B, NUM_PAIRS, PAIRS, pair_ranks  # noqa: E402
from acpcbot.preflop import CLASSES, PAIR_CLASS  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "acpcbot" / "data" / "preflop_equity.csv"


def canonical_boards() -> tuple[np.ndarray, np.ndarray]:
    """Boards up to suit renaming: (cards (M, 5), weight (M,)), weights summing to C(52, 5)."""
    boards = np.array(list(itertools.combinations(range(52), 5)), dtype=np.int8)
    mask = KEY_B[boards].sum(axis=1)  # 13 bits per suit
    blocks = [(mask >> (13 * s)) & 0x1FFF for s in range(4)]
    canon = None
    for perm in itertools.permutations(range(4)):
        m = blocks[0] << (13 * perm[0])
        for s in range(1, 4):
            m = m | (blocks[s] << (13 * perm[s]))
        canon = m if canon is None else np.minimum(canon, m)
    uniq, weight = np.unique(canon, return_counts=True)
    bits = (uniq[:, None] >> np.arange(52)[None, :]) & 1  # bit 13*suit + rank
    pos = np.nonzero(bits)[1].reshape(-1, 5)
    cards = (pos % 13) * 4 + pos // 13
    return cards.astype(np.int8), weight.astype(np.int64)


def _count_above(sorted_rows: np.ndarray, queries: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the number of entries of its group's sorted row above it and equal to it."""
    width = sorted_rows.shape[1]
    flat = (sorted_rows.astype(np.int64) + (np.arange(len(sorted_rows)) * 8192)[:, None]).ravel()
    q = queries.astype(np.int64) + group * 8192
    right = np.searchsorted(flat, q, side="right") - group * width
    left = np.searchsorted(flat, q, side="left") - group * width
    return width - right, right - left


def class_counts(chunk: int = 400, progress: bool = True) -> np.ndarray:
    """(169, 3) int64 counts of deals won, tied and dealt per class."""
    cards, weights = canonical_boards()
    # The 51 pairs holding each card: a hero pair's "shares a card" set.
    holding = np.array([[i for i in range(NUM_PAIRS) if c in PAIRS[i]] for c in range(52)])
    c1, c2 = PAIRS[:, 0], PAIRS[:, 1]
    wins = np.zeros(NUM_PAIRS, dtype=np.int64)
    ties = np.zeros(NUM_PAIRS, dtype=np.int64)
    dealt = np.zeros(NUM_PAIRS, dtype=np.int64)
    start = time.time()
    for s in range(0, len(cards), chunk):
        ranks = pair_ranks(cards[s:s + chunk])  # 0 = pair collides with board: never above or equal
        w = weights[s:s + chunk]
        nb = len(ranks)
        rows = np.repeat(np.arange(nb), NUM_PAIRS)
        g_gt, g_eq = _count_above(np.sort(ranks, axis=1), ranks.ravel(), rows)
        by_card = np.sort(ranks[:, holding], axis=2).reshape(nb * 52, 51)
        s1_gt, s1_eq = _count_above(by_card, ranks.ravel(), rows * 52 + np.tile(c1, nb))
        s2_gt, s2_eq = _count_above(by_card, ranks.ravel(), rows * 52 + np.tile(c2, nb))
        valid = (ranks > 0).ravel()
        # Opponent pairs sharing a card with the hero's are dropped; only the
        # hero's own pair holds both of its cards and it is never above itself.
        win = np.where(valid, g_gt - s1_gt - s2_gt, 0).reshape(nb, NUM_PAIRS)
        tie = np.where(valid, g_eq - s1_eq - s2_eq + 1, 0).reshape(nb, NUM_PAIRS)
        wins += (win * w[:, None]).sum(axis=0)
        ties += (tie * w[:, None]).sum(axis=0)
        dealt += (valid.reshape(nb, NUM_PAIRS) * w[:, None]).sum(axis=0) * 990
        if progress and (s // chunk) % 25 == 0:
            print(f"{s + nb}/{len(cards)} boards, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    out = np.zeros((len(CLASSES), 3), dtype=np.int64)
    for col, arr in enumerate((wins, ties, dealt)):
        np.add.at(out[:, col], PAIR_CLASS, arr)
    return out


def write(counts: np.ndarray, path: Path = OUT) -> None:
    """Write the class table as CSV."""
    combos = np.bincount(PAIR_CLASS, minlength=len(CLASSES))
    lines = ["class,combos,wins,ties,deals,equity"]
    for i, cls in enumerate(CLASSES):
        win, tie, deals = (int(x) for x in counts[i])
        lines.append(f"{cls},{combos[i]},{win},{tie},{deals},{(win + tie / 2) / deals:.6f}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    """Compute the table; write it, or with --check compare it with the shipped file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    args = ap.parse_args()
    counts = class_counts()
    if args.check:
        from acpcbot.preflop import _load_counts
        same = np.array_equal(_load_counts(), counts)
        print("matches the shipped file" if same else "DIFFERS from the shipped file")
        sys.exit(0 if same else 1)
    write(counts)
    eq = (counts[:, 0] + counts[:, 1] / 2) / counts[:, 2]
    print(f"wrote {OUT}; AA {eq[CLASSES.index('AA')]:.6f}, 72o {eq[CLASSES.index('72o')]:.6f}")


if __name__ == "__main__":
    main()
