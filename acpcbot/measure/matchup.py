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
from math import comb
from pathlib import Path
from typing import Sequence

import numpy as np

from ..atomic import atomic_write
from ..equity_vectors import PREFLOP_BOARDS  # preflop boards drawn by default (the AIVAT evaluator's sample)
from ..evaluator.pairs import combinations
from ..evaluator.ranking import ranks_from_keys
from ..evaluator.tables import (
    KEY_A,
    KEY_B,
    LOW,
    SUIT_BASE,
    cache_dir,
    dense_table,
    table_stamp,
)

#: the seed of the preflop board sample drawn by default (the arena's AIVAT values hands on it; prepare builds it)
PREFLOP_SEED = 1


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


#: a holding's rank on a sample board it shares a card with: above every rank (int16 differences never overflow)
_CLASH = 16000
#: hands per numpy block preflop (a block's rows stay in the processor's cache)
_BLOCK = 32
#: set bits of each byte
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _bit_count(rows: np.ndarray) -> np.ndarray:
    """Set bits of each row of a 2-D uint8 array."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(rows).sum(axis=1, dtype=np.int64)
    return _POPCOUNT[rows].sum(axis=1, dtype=np.int64)  # pragma: no cover - numpy < 2.0


def holding_index(c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """The index 0..1325 of each two-card holding (cards in either order), lexicographic as ``combinations(52, 2)``."""
    lo = np.minimum(c0, c1).astype(np.int64)
    hi = np.maximum(c0, c1).astype(np.int64)
    return lo * 51 - lo * (lo - 1) // 2 + (hi - lo - 1)


class PreflopRanks:
    """treys ranks of holdings on the preflop board sample of (``seed``, ``size``), one row per holding.

    The whole table is built the first time any row is needed (about 0.3 s
    for 10,000 boards here, once the rank tables are built: little more
    than the few hundred rows a run reads) and kept in acpcbot's cache
    folder (26 MB for 10,000 boards); later processes load it, checking a
    few rows against a fresh build.  ``first`` holds
    ``_CLASH`` on the boards sharing a card with the holding, and ``clash``
    those boards as bits.
    """

    def __init__(self, seed: int, size: int, directory: Path | None = None) -> None:
        self.seed, self.size = seed, size
        self.a, self.b = _preflop_sample(seed, size)
        self.path = (cache_dir() if directory is None else Path(directory)) / \
            f"preflop_ranks_{seed}_{size}_{table_stamp()}.npy"
        self.first = np.zeros((1326, size), dtype=np.int16)
        self.built = np.zeros(1326, dtype=bool)
        self._load()
        #: per holding, the boards it shares a card with, one bit each (``np.packbits``)
        self.clash = np.packbits(self.first == _CLASH, axis=1)
        #: per holding, how many boards it shares a card with
        self.clashes = _bit_count(self.clash)

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
        """Have the rows of ``holdings`` (indices): the whole table is built, and kept, when one is missing."""
        if self.built[holdings].all():
            return
        # every row, not the ones asked: a table is kept only when whole, and runs that each built the few hundred
        # rows they read never kept one (on a machine without it every AIVAT analysis built its rows again)
        missing = np.flatnonzero(~self.built)
        rows = self._rows(missing)
        self.first[missing] = rows
        self.clash[missing] = np.packbits(rows == _CLASH, axis=1)
        self.clashes[missing] = _bit_count(self.clash[missing])
        self.built[missing] = True
        if self.built.all():
            self._save()


@lru_cache(maxsize=2)
def preflop_ranks(seed: int, size: int) -> PreflopRanks:
    """The process's :class:`PreflopRanks` of one sample (rows accumulate over its calls)."""
    return PreflopRanks(seed, size)


def holdem_matchups(first: np.ndarray, second: np.ndarray, boards: np.ndarray, *, seed: int = PREFLOP_SEED,
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
        # the boards clashing with the second hand, with both, and those sharing no card with either
        clash1 = table.clashes[i1]
        both = _bit_count(table.clash[i0] & table.clash[i1])
        free = table.size - (table.clashes[i0] + clash1 - both)
        d = np.empty((_BLOCK, table.size), dtype=np.int16)
        # hands of one first holding side by side: its row is read from memory once, not once a hand
        order = np.argsort(i0, kind="stable")
        s0, s1 = i0[order], i1[order]
        sums = np.empty(n, dtype=np.int64)
        for s in range(0, n, _BLOCK):
            rows = d[:len(s0[s:s + _BLOCK])]
            # second - first: > 0 a win, 0 a tie, < 0 a loss; a board clashing with the first hand only counts
            # -1 (CLASH is above every rank), with the second only +1, with both 0
            np.subtract(table.first[s1[s:s + _BLOCK]], table.first[s0[s:s + _BLOCK]], out=rows)
            np.sign(rows, out=rows)
            sums[s:s + _BLOCK] = rows.sum(axis=1, dtype=np.int32)  # |sum| <= size: int32 never overflows
        # counting every clash -1: the sum of the signs is wins - losses - clashes = 2 wins + ties - size
        out[order] = sums
        out -= 2 * clash1 - both
        out += table.size
        with np.errstate(invalid="ignore", divide="ignore"):
            # (2 wins + ties) / 2 is wins + 0.5 ties exactly: the same float as counting them apart
            share = out * 0.5 / free
        share[free == 0] = 0.5
        return share
    return _completion_shares(h0, h1, board)


def _sign_sums(h0: np.ndarray, h1: np.ndarray, board: np.ndarray, rest: np.ndarray,
               combos: np.ndarray) -> np.ndarray:
    """Per row, the sum over the completions ``rest[row, combos]`` of sign(second's rank - first's rank)."""
    n = len(board)
    base_a = KEY_A[board].sum(axis=1) + SUIT_BASE
    base_b = KEY_B[board].sum(axis=1)
    run_a = np.zeros((n, len(combos)), dtype=np.int64)
    run_b = np.zeros((n, len(combos)), dtype=np.int64)
    for j in range(combos.shape[1]):
        cards = np.take(rest, combos[:, j], axis=1)
        run_a += KEY_A[cards]
        run_b += KEY_B[cards]
    run_a += base_a[:, None]
    run_b += base_b[:, None]
    r = [ranks_from_keys((run_a + KEY_A[h].sum(axis=1)[:, None]).ravel(),
                         (run_b + KEY_B[h].sum(axis=1)[:, None]).ravel(), 7) for h in (h0, h1)]
    diff = np.subtract(r[1], r[0], out=r[0])  # treys ranks: lower is better
    return np.sign(diff, out=diff).reshape(n, -1).sum(axis=1, dtype=np.int64)


@lru_cache(maxsize=2)
def _rank_classes(need: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rank multisets of ``need`` (1 or 2) completion cards: their rank-weight sums; for two cards the
    flat index of each (low, high) pair in a 13 x 13 grid, and which classes are pairs of one rank."""
    ranks = np.arange(13)
    if need == 1:
        return ranks, ranks, np.zeros(13, dtype=bool), KEY_A[4 * ranks] & LOW
    lo, hi = (x.ravel() for x in np.meshgrid(ranks, ranks, indexing="ij"))
    keep = lo <= hi
    lo, hi = lo[keep], hi[keep]
    return lo, lo * 13 + hi, lo == hi, (KEY_A[4 * lo] & LOW) + (KEY_A[4 * hi] & LOW)


def _class_counts(counts: np.ndarray, need: int) -> np.ndarray:
    """Per row, the completions of each rank class (:func:`_rank_classes`) given the cards left of each rank."""
    if need == 1:
        return counts
    lo, grid, same, _ = _rank_classes(need)
    n = len(counts)
    out = np.take((counts[:, :, None] * counts[:, None, :]).reshape(n, 169), grid, axis=1)
    out[:, same] -= counts
    out[:, same] //= 2
    return out


def _completion_shares(h0: np.ndarray, h1: np.ndarray, board: np.ndarray) -> np.ndarray:
    """The first hands' shares over every completion of flops, turns or rivers (the rows of ``board``).

    A completion that makes nobody a flush ranks both hands by their rank
    multisets alone, so such completions are counted by the ranks of their
    cards (91 classes of two cards, 13 of one) and each class is ranked
    once.  The completions that may make a flush are enumerated and ranked
    one by one: of the suits in which a player holds ``5 - need`` cards or
    more, those bringing the flush's missing cards (all of a suit when one
    suit needs all the completion's cards, at least one of them otherwise),
    and every completion where a player has a flush already.  The counts are
    the integers an enumeration of every completion gives, so the shares are
    the same floats.
    """
    n, k = board.shape
    need = 5 - k
    dead = np.concatenate([h0, h1, board], axis=1)
    left = 52 - dead.shape[1]
    width = comb(left, need)
    if need == 0:
        rest = np.empty((n, 0), dtype=np.int64)
        return (_sign_sums(h0, h1, board, rest, _pairs(0, 0)) + width) * 0.5 / width
    suits = np.arange(4)
    board_suits = ((board[:, :, None] & 3) == suits).sum(axis=1)
    held = [board_suits + ((h[:, :, None] & 3) == suits).sum(axis=1) for h in (h0, h1)]
    # per suit, the cards of it a completion must bring to make someone a flush
    needed = 5 - np.maximum(held[0], held[1])
    relevant = needed <= need
    # 0: no flush possible; 1: one suit, whose flush needs every completion card; 2: flushes need a card of the
    # relevant suits; 3: a player has a flush already, every completion is enumerated
    kind = np.where(~relevant.any(axis=1), 0,
                    np.where((needed <= 0).any(axis=1), 3,
                             np.where((relevant.sum(axis=1) == 1) & (needed.min(axis=1) == need), 1, 2)))
    alive = np.ones((n, 52), dtype=bool)
    np.put_along_axis(alive, dead, False, axis=1)
    first = alive & relevant[:, np.arange(52) & 3]  # the relevant suits' cards, enumerated first
    order = np.where(alive, np.where(first, 0, 1), 2).astype(np.int8)
    rest = np.argsort(order, axis=1, kind="stable")[:, :left]
    k_first = first.sum(axis=1)
    all_counts = alive.reshape(n, 13, 4).sum(axis=2, dtype=np.int16)
    first_counts = first.reshape(n, 13, 4).sum(axis=2, dtype=np.int16)
    counts = _class_counts(np.where((kind == 2)[:, None], all_counts - first_counts, all_counts), need)
    counts -= np.where((kind == 1)[:, None], _class_counts(first_counts, need), 0).astype(np.int16)
    counts[kind == 3] = 0
    weight = _rank_classes(need)[3]
    rank_table = dense_table(7)
    base = (KEY_A[board] & LOW).sum(axis=1)
    r0 = np.take(rank_table, (base + (KEY_A[h0] & LOW).sum(axis=1))[:, None] + weight, mode="clip")
    r1 = np.take(rank_table, (base + (KEY_A[h1] & LOW).sum(axis=1))[:, None] + weight, mode="clip")
    signs = np.sign(np.subtract(r1, r0, out=r1), out=r1)  # treys ranks: lower is better
    total = np.multiply(counts, signs, out=signs).sum(axis=1, dtype=np.int64)
    # the completions that may flush, enumerated: hands grouped by kind and number of cards enumerated first
    every = _pairs(left, need)
    group = kind * 64 + np.where(kind == 3, 0, k_first)
    # sorted(set()) for np.unique, the same keys in the same order: np.unique imports numpy.ma on its first call
    for key in sorted(set(group[kind > 0].tolist())):
        which = np.flatnonzero(group == key)
        g_kind, g_k = divmod(int(key), 64)
        if g_kind == 1:
            combos = _pairs(g_k, need)
        elif g_kind == 2:
            combos = every[:width - comb(left - g_k, need)]  # lexicographic: those with a first card among them
        else:
            combos = every
        if len(combos):
            total[which] += _sign_sums(h0[which], h1[which], board[which], rest[which], combos)
    # the signs sum to wins - losses = 2 wins + ties - width; (2 wins + ties) / 2 is wins + 0.5 ties exactly
    return (total + width) * 0.5 / width


def holdem_matchup(first: Sequence[int], second: Sequence[int], board: Sequence[int] = (), *,
                   seed: int = PREFLOP_SEED, boards: int = PREFLOP_BOARDS) -> float:
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
