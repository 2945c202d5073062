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
  same boards as ``equity_vectors.BoardSample(seed, size)`` (those avoiding the
  four hole cards: uniform boards given them), so the shares are exactly
  ``BoardSample.matchup``'s without ranking 1,326 pairs on every board.

:func:`holdem_matchups` gives the same shares for a whole batch of hands
(one street's board length for all): a numpy pass over every hand's
completions at once.  Preflop it ranks each holding once on the sample
(a row of :class:`PreflopRanks`, built when first needed) and compares two
rows per hand, so a match's preflop equities cost a comparison per board
instead of two rank lookups.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from ..atomic import atomic_write
from ..equity_vectors import PREFLOP_BOARDS  # preflop boards drawn by default (the AIVAT evaluator's sample)
from ..evaluator.pairs import combinations
from ..evaluator.ranking import ranks_from_keys
from ..evaluator.tables import (
    FLUSH_FLAGS,
    KEY_A,
    KEY_B,
    LOW,
    SUIT_BASE,
    SUIT_SHIFT,
    cache_dir,
    dense_table,
    table_stamp,
)


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


#: a holding's rank on a sample board it shares a card with: +CLASH as the first hand, -CLASH as the second, so
#: that ``second - first`` is below ``-WORST_RANK`` (the evaluator's worst rank) exactly when either clashes (int16 never overflows)
_CLASH = 16000
#: hands per numpy block preflop (a block's rows stay in the processor's cache)
_BLOCK = 32
#: set bits of each byte
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
#: completions per numpy block from the flop on
_COMPLETIONS = 400_000


def holding_index(c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """The index 0..1325 of each two-card holding (cards in either order), lexicographic as ``combinations(52, 2)``."""
    lo = np.minimum(c0, c1).astype(np.int64)
    hi = np.maximum(c0, c1).astype(np.int64)
    return lo * 51 - lo * (lo - 1) // 2 + (hi - lo - 1)


class PreflopRanks:
    """treys ranks of holdings on the preflop board sample of (``seed``, ``size``), one row per holding.

    Rows are built when first needed; once all 1,326 are, the table is kept
    in acpcbot's cache folder (26 MB for 10,000 boards) and later processes
    load it, checking a few rows against a fresh build.  ``first`` holds
    ``+_CLASH`` and ``second`` ``-_CLASH`` on the boards sharing a card with
    the holding.
    """

    def __init__(self, seed: int, size: int, directory: Path | None = None) -> None:
        self.seed, self.size = seed, size
        self.a, self.b = _preflop_sample(seed, size)
        self.path = (cache_dir() if directory is None else Path(directory)) / \
            f"preflop_ranks_{seed}_{size}_{table_stamp()}.npy"
        self.first = np.zeros((1326, size), dtype=np.int16)
        self.built = np.zeros(1326, dtype=bool)
        self._load()
        self.second = np.where(self.first == _CLASH, np.int16(-_CLASH), self.first) if self.built.all() else \
            np.zeros((1326, size), dtype=np.int16)
        #: per holding, the boards it shares a card with, one bit each (``np.packbits``)
        self.clash = np.packbits(self.first == _CLASH, axis=1)

    def _rows(self, holdings: np.ndarray) -> np.ndarray:
        """The ``first`` rows of ``holdings``, computed."""
        pairs = _pairs(52, 2)[holdings]
        ka = KEY_A[pairs].sum(axis=1)
        kb = KEY_B[pairs].sum(axis=1)
        out = np.empty((len(holdings), self.size), dtype=np.int16)
        step = max(1, 2_000_000 // max(1, self.size))
        for i in range(0, len(holdings), step):
            sl = slice(i, i + step)
            a = self.a[None, :] + (ka[sl, None] + SUIT_BASE)
            b = self.b[None, :] + kb[sl, None]
            ranks = ranks_from_keys(a.ravel(), b.ravel(), 7).reshape(a.shape)
            ranks[(self.b[None, :] & kb[sl, None]) != 0] = _CLASH
            out[sl] = ranks
        return out

    def _load(self) -> None:
        try:
            table = np.load(self.path, allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return
        if table.shape != self.first.shape or table.dtype != np.int16:
            return
        check = np.random.default_rng().choice(1326, 6, replace=False)
        if np.array_equal(table[check], self._rows(check)):
            self.first = table  # loaded whole: no copy into the zeros
            self.built[:] = True

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(self.path, "wb") as f:
                np.save(f, self.first)
        except OSError:
            pass  # unwritable cache: the table stays in this process only

    def ensure(self, holdings: np.ndarray) -> None:
        """Build the rows of ``holdings`` (indices) not built yet."""
        missing = np.unique(holdings[~self.built[holdings]])
        if not missing.size:
            return
        rows = self._rows(missing)
        self.first[missing] = rows
        self.second[missing] = np.where(rows == _CLASH, np.int16(-_CLASH), rows)
        self.clash[missing] = np.packbits(rows == _CLASH, axis=1)
        self.built[missing] = True
        if self.built.all():
            self._save()


@lru_cache(maxsize=2)
def preflop_ranks(seed: int, size: int) -> PreflopRanks:
    """The process's :class:`PreflopRanks` of one sample (rows accumulate over its calls)."""
    return PreflopRanks(seed, size)


def _count(mask: np.ndarray) -> np.ndarray:
    """True entries per row of a 2-D boolean array (summed as bytes: several times faster than ``sum``)."""
    return mask.view(np.uint8).sum(axis=1, dtype=np.int64)


def _shares_batch(r0: np.ndarray, r1: np.ndarray) -> np.ndarray:
    """Per row, the first hand's share over the completions (ties split), as ``_shares`` computes it."""
    wins = _count(r0 < r1)
    ties = _count(r0 == r1)
    return (wins + 0.5 * ties) / r0.shape[1]


def _rest(dead: np.ndarray, count: int) -> np.ndarray:
    """Per row, the ``count`` cards of the deck not in that row of ``dead`` (ascending)."""
    mask = np.zeros((len(dead), 52), dtype=bool)
    np.put_along_axis(mask, dead, True, axis=1)
    return np.argsort(mask, axis=1, kind="stable")[:, :count]


def holdem_matchups(first: np.ndarray, second: np.ndarray, boards: np.ndarray, *, seed: int = 1,
                    boards_sampled: int = PREFLOP_BOARDS) -> np.ndarray:
    """:func:`holdem_matchup` of every row at once: ``first``, ``second`` (N, 2), ``boards`` (N, 0|3|4|5) cards.

    The same floats as one call per row (the same counts, the same
    arithmetic); the caller gives valid distinct cards (not checked here).
    """
    h0 = np.asarray(first, dtype=np.int64).reshape(-1, 2)
    h1 = np.asarray(second, dtype=np.int64).reshape(-1, 2)
    board = np.asarray(boards, dtype=np.int64).reshape(len(h0), -1)
    n, k = board.shape
    out = np.empty(n, dtype=np.float64)
    if n == 0:
        return out
    if k not in (0, 3, 4, 5):
        raise ValueError(f"holdem_matchups: boards of 0, 3, 4 or 5 cards, got {k}")
    if k == 0:
        table = preflop_ranks(seed, boards_sampled)
        i0 = holding_index(h0[:, 0], h0[:, 1])
        i1 = holding_index(h1[:, 0], h1[:, 1])
        table.ensure(np.concatenate([i0, i1]))
        # the boards sharing no card with either hand: the sample less the union of the two clash sets
        free = table.size - _POPCOUNT[table.clash[i0] | table.clash[i1]].sum(axis=1, dtype=np.int64)
        d = np.empty((_BLOCK, table.size), dtype=np.int16)
        for s in range(0, n, _BLOCK):
            rows = d[:len(i0[s:s + _BLOCK])]
            # second - first: > 0 a win, 0 a tie, < 0 a loss or (below -WORST_RANK) a board clashing with either
            # hand; the sum of the signs is wins - losses - clashes = 2 wins + ties - size
            np.subtract(table.second[i1[s:s + _BLOCK]], table.first[i0[s:s + _BLOCK]], out=rows)
            np.sign(rows, out=rows)
            out[s:s + _BLOCK] = rows.sum(axis=1, dtype=np.int64) + table.size
        with np.errstate(invalid="ignore", divide="ignore"):
            # (2 wins + ties) / 2 is wins + 0.5 ties exactly: the same float as counting them apart
            share = out * 0.5 / free
        share[free == 0] = 0.5
        return share
    return _completion_shares(h0, h1, board)


#: a card's rank weight (key A's low part) and its suit counter (key A's high part), apart: the rank sums fit
#: 32 bits and the suit counters 16, half and a quarter of the int64 keys' memory traffic
_RANK_KEY = (KEY_A & LOW).astype(np.int32)
_SUIT_KEY = (KEY_A >> SUIT_SHIFT).astype(np.uint16)
_SUIT_START = SUIT_BASE >> SUIT_SHIFT
_SUIT_FLAGS = FLUSH_FLAGS >> SUIT_SHIFT


def _completion_shares(h0: np.ndarray, h1: np.ndarray, board: np.ndarray) -> np.ndarray:
    """The first hands' shares over every completion of flops, turns or rivers (the rows of ``board``)."""
    n, k = board.shape
    out = np.empty(n, dtype=np.float64)
    need = 5 - k
    dead = np.concatenate([h0, h1, board], axis=1)
    left = 52 - dead.shape[1]
    combos = _pairs(left, need)
    width = len(combos)
    rank_table = dense_table(7)
    board_rank = _RANK_KEY[board].sum(axis=1, dtype=np.int32)
    board_suit = (_SUIT_KEY[board].sum(axis=1) + _SUIT_START).astype(np.uint16)
    board_b = KEY_B[board].sum(axis=1)
    hands = [(_RANK_KEY[h].sum(axis=1, dtype=np.int32), _SUIT_KEY[h].sum(axis=1).astype(np.uint16),
              KEY_B[h].sum(axis=1)) for h in (h0, h1)]
    block = max(1, _COMPLETIONS // width)
    for s in range(0, n, block):
        sl = slice(s, s + block)
        if need:
            rest = _rest(dead[sl], left)
            rest_rank, rest_suit, rest_b = _RANK_KEY[rest], _SUIT_KEY[rest], KEY_B[rest]
            # np.take keeps rows contiguous (fancy indexing of columns may lay the result out by columns, and
            # every later ravel would copy it)
            run_rank = np.take(rest_rank, combos[:, 0], axis=1)
            run_suit = np.take(rest_suit, combos[:, 0], axis=1)
            for j in range(1, need):
                run_rank += np.take(rest_rank, combos[:, j], axis=1)
                run_suit += np.take(rest_suit, combos[:, j], axis=1)
            run_rank += board_rank[sl, None]
            run_suit += board_suit[sl, None]
        else:
            run_rank, run_suit = board_rank[sl, None], board_suit[sl, None]

        def ranks(rank: np.ndarray, suit: np.ndarray, key_b: np.ndarray) -> np.ndarray:
            # the rank sum's table entry; key B (the suits' rank bits) only for the few hands with a flush
            total = run_rank + rank[sl, None]
            got = np.take(rank_table, total, mode="clip")
            f = np.flatnonzero((run_suit + suit[sl, None]) & _SUIT_FLAGS)
            if f.size:
                row, col = np.divmod(f, width)
                a = total.ravel()[f].astype(np.int64) + \
                    ((run_suit.ravel()[f] + suit[sl][row]).astype(np.int64) << SUIT_SHIFT)
                b = board_b[sl][row] + key_b[sl][row]
                for j in range(need):
                    b = b + rest_b[row, combos[col, j]]
                got.ravel()[f] = ranks_from_keys(a, b, 7)
            return got

        first = ranks(*hands[0])
        diff = np.subtract(ranks(*hands[1]), first, out=first)  # treys ranks: lower is better
        # the signs sum to wins - losses = 2 wins + ties - width; (2 wins + ties) / 2 is wins + 0.5 ties exactly
        wins2_ties = np.sign(diff, out=diff).sum(axis=1, dtype=np.int64) + width
        out[sl] = wins2_ties * 0.5 / width
    return out


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
