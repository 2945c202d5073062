"""The 1326 hole pairs of hold'em and ranges over them: indices, cards, ranks against boards, weights.

A range is a float array of 1326 weights indexed by :func:`pair_index`
(pairs ``(a, b)``, ``a < b``, in lexicographic order: row i of ``PAIRS``).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterable

import numpy as np

from .ranking import CardsLike, as_cards, popcount, ranks_from_keys
from .tables import KEY_A, KEY_A_LIST, KEY_B, KEY_B_LIST, LOW, RANK_WEIGHTS, SUIT_BASE, dense_table, lookups

NUM_PAIRS = 1326
#: The 1326 hole pairs (a, b), a < b, in lexicographic order; row i is pair i.
PAIRS = np.array(list(itertools.combinations(range(52), 2)), dtype=np.int64)
PAIRS.setflags(write=False)
PAIR_A = KEY_A[PAIRS[:, 0]] + KEY_A[PAIRS[:, 1]]
PAIR_B = KEY_B[PAIRS[:, 0]] + KEY_B[PAIRS[:, 1]]
#: PAIR_INDEX[c1, c2]: index of the pair {c1, c2}; -1 on the diagonal.
PAIR_INDEX = np.full((52, 52), -1, dtype=np.int64)
PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] = np.arange(NUM_PAIRS)
PAIR_INDEX[PAIRS[:, 1], PAIRS[:, 0]] = np.arange(NUM_PAIRS)
PAIR_INDEX.setflags(write=False)


def pair_index(c1: int, c2: int) -> int:
    """Index 0..1325 of the hole pair {c1, c2} (either order)."""
    a, b = as_cards((c1, c2), "pair")
    if a > b:
        a, b = b, a
    return 51 * a - a * (a - 1) // 2 + b - a - 1


def pair_cards(index: int) -> tuple[int, int]:
    """The two cards (lower first) of hole pair ``index`` (0..1325)."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
            or not 0 <= index < NUM_PAIRS:
        raise ValueError(f"pair_cards: index must be an int 0..{NUM_PAIRS - 1}, got {index!r}")
    a, b = PAIRS[index]
    return int(a), int(b)


def pair_ranks(boards: np.ndarray | CardsLike) -> np.ndarray:
    """treys rank of every hole pair with each board; 0 where the pair shares a card with it.

    ``boards``: one board (3..5 cards, text or ints) giving a (1326,) array,
    or an (N, k) integer array of boards giving (N, 1326).
    """
    if isinstance(boards, np.ndarray) and boards.ndim == 2:
        arr = boards
        if arr.dtype.kind not in "iu" or not 3 <= arr.shape[1] <= 5:
            raise ValueError(f"pair_ranks: expected an (N, 3..5) integer array of boards, got {arr.dtype} {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() > 51):
            raise ValueError("pair_ranks: a board card is outside 0..51")
        a, b = key_sums(arr)
        if (popcount(b) != arr.shape[1]).any():
            raise ValueError("pair_ranks: a board repeats a card")
        single = False
    else:
        bd = as_cards(boards, "board")
        if not 3 <= len(bd) <= 5:
            raise ValueError(f"board: pair_ranks needs 3..5 board cards, got {len(bd)}")
        a = np.array([sum(KEY_A_LIST[c] for c in bd)], dtype=np.int64)
        b = np.array([cards_mask(bd)], dtype=np.int64)
        arr = np.array([bd], dtype=np.int64)
        single = True
    n = (len(bd) if single else arr.shape[1]) + 2
    if len(a) <= _BLOCK:
        return _block_ranks(a, b, arr)[0] if single else _block_ranks(a, b, arr)
    # a block of boards at a time: the (boards x 1326) temporaries of a whole large batch fall out of the
    # processor's caches, which made 1,000 boards take twice as long as 1,000 / 64 blocks of 64
    out = np.empty((len(a), NUM_PAIRS), dtype=dense_table(n).dtype)
    for i in range(0, len(a), _BLOCK):
        out[i:i + _BLOCK] = _block_ranks(a[i:i + _BLOCK], b[i:i + _BLOCK], arr[i:i + _BLOCK])
    return out


#: boards ranked at once by pair_ranks
_BLOCK = 64

#: the 91 unordered pairs of ranks (r1 <= r2, row by row): the rank-weight sum each adds to a board's, and each
#: hole pair's place among them (a card's rank is its index // 4, its suit its index % 4)
_LOW_RANK, _HIGH_RANK = np.triu_indices(13)
RANK_PAIR_WEIGHT = np.array(RANK_WEIGHTS, dtype=np.int64)[_LOW_RANK] + np.array(RANK_WEIGHTS, dtype=np.int64)[_HIGH_RANK]
_RANK_PAIR_AT = np.zeros((13, 13), dtype=np.int64)
_RANK_PAIR_AT[_LOW_RANK, _HIGH_RANK] = np.arange(len(_LOW_RANK))
PAIR_RANK_PAIR = _RANK_PAIR_AT[PAIRS[:, 0] >> 2, PAIRS[:, 1] >> 2]  # a pair's lower card has the lower rank
#: per card, the 51 pairs holding it
CARD_PAIRS = PAIR_INDEX[~np.eye(52, dtype=bool)].reshape(52, 51)
#: per suit, the 78 pairs with both cards of it (the same order in every suit), and their two ranks' bits
_R1, _R2 = np.triu_indices(13, 1)
_SUITS = np.arange(4)[:, None]
SUITED_PAIRS = PAIR_INDEX[4 * _R1[None, :] + _SUITS, 4 * _R2[None, :] + _SUITS]
SUITED_BITS = (1 << _R1) | (1 << _R2)


def _block_ranks(a: np.ndarray, b: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """pair_ranks of ``boards`` (k cards each) whose key sums are ``a`` (without the suit base) and ``b``.

    Without a flush a hand's rank is the table's at its rank-weight sum, to which a pair adds through its two
    ranks only: the 91 sums of two ranks are looked up per board and spread over the 1326 pairs.  A board
    with three cards of a suit leaves a flush to the 78 pairs of that suit only (the flush table's rank, as
    :func:`ranks_from_keys` gives it); a board nearer a flush is ranked pair by pair (:func:`_keyed_ranks`).
    """
    n = boards.shape[1] + 2
    table = dense_table(n)
    out = np.take(table, (a & LOW)[:, None] + RANK_PAIR_WEIGHT[None, :], mode="clip")[:, PAIR_RANK_PAIR]
    suited = np.stack([popcount((b >> (13 * s)) & 0x1FFF) for s in range(4)], axis=1)  # (boards, suits)
    # the hole cards of a suit a flush needs beside the board's: 2 (a board with three), fewer (one nearer)
    need = 5 - suited
    near = np.any(need < 2, axis=1)
    rows, suit = np.nonzero(need == 2)
    keep = ~near[rows]
    rows, suit = rows[keep], suit[keep]
    if len(rows):
        bits = ((b[rows] >> (13 * suit)) & 0x1FFF)[:, None] | SUITED_BITS[None, :]
        out[rows[:, None], SUITED_PAIRS[suit]] = lookups().flush_table[bits]
    if near.any():
        out[near] = _keyed_ranks(a[near], b[near], n)
    # the pairs sharing a card with the board: the 51 of each of its cards
    out[np.arange(len(boards))[:, None], CARD_PAIRS[boards].reshape(len(boards), -1)] = 0
    return out


def _keyed_ranks(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """pair_ranks of these boards from every pair's full keys (before the cards they share are zeroed)."""
    ka = (a + SUIT_BASE)[:, None] + PAIR_A[None, :]
    kb = b[:, None] + PAIR_B[None, :]
    return ranks_from_keys(ka.ravel(), kb.ravel(), n).reshape(ka.shape)


def uniform_range() -> np.ndarray:
    """A range giving every hole pair weight 1."""
    return np.ones(NUM_PAIRS)


def range_of_pairs(pairs: Iterable[tuple[int, int]], weight: float = 1.0) -> np.ndarray:
    """A range holding the given pairs with ``weight`` and every other pair with 0."""
    r = np.zeros(NUM_PAIRS)
    for c1, c2 in pairs:
        r[pair_index(c1, c2)] = weight
    return r


def cards_mask(cards: Iterable[int]) -> int:
    """The key-B set of some cards."""
    m = 0
    for c in cards:
        m |= KEY_B_LIST[c]
    return m


def check_range(r: object, what: str) -> np.ndarray:
    """``r`` as a checked range (None: uniform); errors name ``what``."""
    arr = np.asarray(r, dtype=np.float64) if r is not None else uniform_range()
    if arr.shape != (NUM_PAIRS,):
        raise ValueError(f"{what}: a range is {NUM_PAIRS} weights (one per hole pair), got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{what}: range weights must be finite and >= 0")
    return arr


def ranges_list(ranges: object, opponents: int, what: str) -> list[np.ndarray | None]:
    """One range (or None for a random hand) per opponent."""
    if isinstance(opponents, (bool, np.bool_)) or not isinstance(opponents, (int, np.integer)) \
            or not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be an int 1..22, got {opponents!r}")
    if ranges is None:
        return [None] * opponents
    if isinstance(ranges, np.ndarray) and ranges.ndim == 1 or \
            isinstance(ranges, (list, tuple)) and ranges and np.isscalar(ranges[0]):
        one = check_range(ranges, what)
        return [one] * opponents
    items = list(ranges)  # type: ignore[call-overload]
    if len(items) != opponents:
        raise ValueError(f"{what}: got {len(items)} ranges for {opponents} opponents")
    return [None if r is None else check_range(r, f"{what}[{i}]") for i, r in enumerate(items)]


def live_pairs(r: np.ndarray | None, dead_mask: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Indices and weights of the pairs a range can hold given the dead cards."""
    ok = (PAIR_B & dead_mask) == 0
    if r is not None:
        ok &= r > 0
    idx = np.flatnonzero(ok)
    w = np.ones(len(idx)) if r is None else r[idx]
    if not len(idx):
        raise ValueError(f"{what}: no hole pair with positive weight is left beside the known cards")
    return idx, w


# ---------------------------------------------------------------------------
# Enumeration helpers
# ---------------------------------------------------------------------------

#: Cells handled at once by the enumerations (bounds their memory).
CHUNK = 1 << 20


@lru_cache(maxsize=16)
def combinations(m: int, r: int) -> np.ndarray:
    """All r-subsets of range(m) as an (C(m, r), r) int8 array in lexicographic order."""
    if r == 0:
        return np.zeros((1, 0), dtype=np.int8)
    combos = np.arange(m, dtype=np.int8)[:, None]
    for _ in range(r - 1):
        last = combos[:, -1].astype(np.int64)
        counts = m - 1 - last
        rows = np.repeat(np.arange(len(combos)), counts)
        # next element runs from last+1 to m-1 within each row's block
        starts = np.cumsum(counts) - counts
        nxt = np.arange(len(rows)) - np.repeat(starts, counts) + np.repeat(last + 1, counts)
        combos = np.hstack([combos[rows], nxt[:, None].astype(np.int8)])
    combos.setflags(write=False)
    return combos


def remaining(known_mask: int) -> np.ndarray:
    """The cards not in ``known_mask`` (a key-B set), in index order."""
    return np.array([c for c in range(52) if not known_mask & KEY_B_LIST[c]], dtype=np.int64)


def key_sums(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Key A (without the suit base) and key B sums of each row of an (N, k) card array."""
    a = np.zeros(len(cards), dtype=np.int64)
    b = np.zeros(len(cards), dtype=np.int64)
    for i in range(cards.shape[1]):
        a += KEY_A[cards[:, i]]
        b += KEY_B[cards[:, i]]
    return a, b


