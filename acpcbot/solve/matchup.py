"""Heads-up hold'em matchups in microseconds: two known hands' showdown shares, the board rolled out, by key sums.

AIVAT and all-in expectation value every hand by the equity of the two
actual hands at each street.  Ranking whole 7-card arrays for that, or
building every hole pair's ranks on a preflop board sample first (seconds
per process), cost more than playing the match.  Here each completion of
the board is a sum of the evaluator's per-card keys (``KEY_A``, ``KEY_B``):
the board's sum once, each hand's two keys added, one table lookup per
hand and completion.

- From the flop on, every completion is enumerated (at most 1,081): exact,
  the same shares as ``rollout.matchup_equity``.
- Preflop, the completions are a fixed seeded sample of whole boards, the
  same boards as ``rollout.BoardSample(seed, size)`` (those avoiding the
  four hole cards: uniform boards given them), so the shares are exactly
  ``BoardSample.matchup``'s without ranking 1,326 pairs on every board.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..evaluator.pairs import combinations
from ..evaluator.ranking import ranks_from_keys
from ..evaluator.tables import KEY_A, KEY_B, SUIT_BASE

#: preflop boards drawn by default (the AIVAT evaluator's sample)
PREFLOP_BOARDS = 10_000


@lru_cache(maxsize=4)
def _preflop_sample(seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Key-A and key-B sums of ``size`` seeded five-card boards (drawn as ``rollout.BoardSample`` draws them)."""
    rng = np.random.default_rng([seed, 52])
    boards = np.argpartition(rng.random((size, 52)), 4, axis=1)[:, :5].astype(np.int64)
    a = KEY_A[boards].sum(axis=1)
    b = KEY_B[boards].sum(axis=1)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


@lru_cache(maxsize=4)
def _pairs(m: int, r: int) -> np.ndarray:
    return combinations(m, r).astype(np.int64)


def _shares(a0: np.ndarray, b0: np.ndarray, a1: np.ndarray, b1: np.ndarray) -> float:
    """The first hand's share over completions given each hand's 7-card key sums (ties split)."""
    r0 = ranks_from_keys(a0 + SUIT_BASE, b0, 7)
    r1 = ranks_from_keys(a1 + SUIT_BASE, b1, 7)
    if len(r0) == 0:
        return 0.5
    # treys ranks: lower is better
    return float(((r0 < r1).sum() + 0.5 * (r0 == r1).sum()) / len(r0))


def holdem_matchup(first: Sequence[int], second: Sequence[int], board: Sequence[int] = (), *,
                   seed: int = 1, boards: int = PREFLOP_BOARDS) -> float:
    """``first``'s share of the pot at showdown against ``second`` (two hole cards each), ``board`` rolled out.

    Exact from the flop on; preflop over the ``boards`` seeded boards of
    ``seed`` that avoid the four hole cards.
    """
    h0 = [int(c) for c in first]
    h1 = [int(c) for c in second]
    known = [int(c) for c in board]
    if len(known) not in (0, 3, 4, 5) or len(h0) != 2 or len(h1) != 2:
        raise ValueError(f"holdem_matchup: two hands of two cards and a board of 0, 3, 4 or 5 cards, got "
                         f"{len(h0)}, {len(h1)} and {len(known)}")
    dead = h0 + h1 + known
    if len(set(dead)) != len(dead) or min(dead) < 0 or max(dead) > 51:
        raise ValueError(f"holdem_matchup: cards must be distinct and in 0..51, got {dead}")
    key0_a, key0_b = int(KEY_A[h0].sum()), int(KEY_B[h0].sum())
    key1_a, key1_b = int(KEY_A[h1].sum()), int(KEY_B[h1].sum())
    if not known:
        a, b = _preflop_sample(seed, boards)
        mask = int(KEY_B[h0 + h1].sum())  # key B holds one bit per card
        free = (b & mask) == 0
        a, b = a[free], b[free]
        return _shares(a + key0_a, b + key0_b, a + key1_a, b + key1_b)
    base_a, base_b = int(KEY_A[known].sum()), int(KEY_B[known].sum())
    need = 5 - len(known)
    if need == 0:
        a = np.array([base_a])
        b = np.array([base_b])
    else:
        dead_set = set(dead)
        rest = np.array([c for c in range(52) if c not in dead_set], dtype=np.int64)
        runs = rest[_pairs(len(rest), need)]
        a = KEY_A[runs].sum(axis=1) + base_a
        b = KEY_B[runs].sum(axis=1) + base_b
    return _shares(a + key0_a, b + key0_b, a + key1_a, b + key1_b)
