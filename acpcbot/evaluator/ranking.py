"""Ranking hands: treys-exact ranks of one hand or numpy batches, rank classes, and the showdown value the engine uses.

Ranks are treys 0.1.8 ranks: 1 (royal flush) .. 7462 (7-5-4-3-2 offsuit),
lower is better, for the best five of five to seven cards; they agree with
``treys.Evaluator`` on every hand (see ``tables.py`` for how).  The
showdown value is the other way round (higher is better) and is defined
for any number of cards: ``generic_value`` ranks hands of fewer than five
cards (Kuhn, Leduc) without any table.  :func:`default_ranking` picks the
one a game needs from its deck and hand size.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Callable, Iterable, Sequence, Union

import numpy as np
from treys.lookup import LookupTable as _TreysLookup

from ..cards import CardError, card_to_text, cards_to_text, parse_card, parse_cards
from .tables import (
    FLUSH_FLAGS,
    KEY_A,
    KEY_A_GUARDED,
    KEY_A_LIST,
    KEY_B,
    LOW,
    SUIT_BASE,
    SUIT_OF_FLAGS,
    SUIT_SHIFT,
    WORST_RANK,
    dense_table,
    lookups,
)

#: A showdown ranking: cards (hole then board) -> value, higher is better.
Ranking = Callable[[Sequence[int]], int]

class RankClass(IntEnum):
    """treys' rank classes (made-hand categories), best first."""

    ROYAL_FLUSH = 0
    STRAIGHT_FLUSH = 1
    FOUR_OF_A_KIND = 2
    FULL_HOUSE = 3
    FLUSH = 4
    STRAIGHT = 5
    THREE_OF_A_KIND = 6
    TWO_PAIR = 7
    PAIR = 8
    HIGH_CARD = 9


# Worst rank of each class, best class first; treys' own constants, so a
# future treys renumbering shows up as a stale cache and a failing test.
CLASS_WORST_RANKS = (
    _TreysLookup.MAX_ROYAL_FLUSH, _TreysLookup.MAX_STRAIGHT_FLUSH, _TreysLookup.MAX_FOUR_OF_A_KIND,
    _TreysLookup.MAX_FULL_HOUSE, _TreysLookup.MAX_FLUSH, _TreysLookup.MAX_STRAIGHT,
    _TreysLookup.MAX_THREE_OF_A_KIND, _TreysLookup.MAX_TWO_PAIR, _TreysLookup.MAX_PAIR,
    _TreysLookup.MAX_HIGH_CARD)
CLASS_NAMES: tuple[str, ...] = tuple(_TreysLookup.RANK_CLASS_TO_STRING[i] for i in range(10))
_CLASS_WORST = np.array(CLASS_WORST_RANKS, dtype=np.int32)


CardsLike = Union[str, Iterable[Union[int, str]]]


def as_cards(cards: CardsLike, what: str) -> tuple[int, ...]:
    """Cards from text or ints, checked for type, range and duplicates; errors name ``what``."""
    if isinstance(cards, str):
        try:
            return parse_cards(cards)
        except CardError as e:
            raise CardError(f"{what}: {e}") from None
    if isinstance(cards, np.ndarray) and cards.ndim != 1:
        raise ValueError(f"{what}: expected a flat sequence of cards, got an array of shape {cards.shape}")
    try:
        items = list(cards)
    except TypeError:
        raise ValueError(f"{what}: expected card text or a sequence of card ints, got {cards!r}") from None
    out = []
    for i, c in enumerate(items):
        if isinstance(c, str):
            try:
                c = parse_card(c)
            except CardError as e:
                raise CardError(f"{what}[{i}]: {e}") from None
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise ValueError(f"{what}[{i}]: a card is an int 0..51, got {c!r}")
        if not 0 <= c < 52:
            raise ValueError(f"{what}[{i}]: card index {int(c)} out of range 0..51")
        out.append(int(c))
    if len(set(out)) != len(out):
        seen: set[int] = set()
        for i, c in enumerate(out):
            if c in seen:
                raise ValueError(f"{what}[{i}]: card {card_to_text(c)} appears twice in {cards_to_text(out)}")
            seen.add(c)
    return tuple(out)


def check_distinct(groups: Sequence[tuple[str, tuple[int, ...]]]) -> None:
    """ValueError naming both groups when a card is in two of the named groups."""
    seen: dict[int, str] = {}
    for what, cards in groups:
        for c in cards:
            if c in seen:
                raise ValueError(f"card {card_to_text(c)} is in both {seen[c]} and {what}")
            seen[c] = what


# ---------------------------------------------------------------------------
# One hand
# ---------------------------------------------------------------------------

def flush_rank(cards: Sequence[int], key: int) -> int:
    """treys rank of a hand whose key A says it holds a flush (the rank bits of that suit index the table)."""
    suit = SUIT_OF_FLAGS[(key & FLUSH_FLAGS) >> SUIT_SHIFT]
    bits = 0
    for c in cards:
        if c & 3 == suit:
            bits |= 1 << (c >> 2)
    return lookups().flush_rank[bits]


def rank_unchecked(cards: Sequence[int]) -> int:
    """treys rank of 5..7 valid distinct cards, no checks (internal fast path)."""
    K = KEY_A_LIST
    key = SUIT_BASE
    for c in cards:
        key += K[c]
    if key & FLUSH_FLAGS:
        return flush_rank(cards, key)
    return lookups().rank_by_key[len(cards)][key & LOW]


def rank(cards: CardsLike) -> int:
    """treys rank (1 best .. 7462 worst) of the best five of 5 to 7 cards, validated."""
    cs = as_cards(cards, "cards")
    if not 5 <= len(cs) <= 7:
        raise ValueError(f"cards: rank needs 5 to 7 cards, got {len(cs)} ({cards_to_text(cs)})")
    return rank_unchecked(cs)


def rank_class(hand_rank: int) -> RankClass:
    """treys rank class of a rank: RankClass.ROYAL_FLUSH (0) .. RankClass.HIGH_CARD (9)."""
    if isinstance(hand_rank, (bool, np.bool_)) or not isinstance(hand_rank, (int, np.integer)) \
            or not 1 <= hand_rank <= WORST_RANK:
        raise ValueError(f"rank_class: hand rank must be an int 1..{WORST_RANK}, got {hand_rank!r}")
    for cls, worst in enumerate(CLASS_WORST_RANKS):
        if hand_rank <= worst:
            return RankClass(cls)
    raise AssertionError("unreachable")  # pragma: no cover


def rank_class_batch(ranks: np.ndarray) -> np.ndarray:
    """rank_class of every rank in an array (int8 array of the same shape)."""
    r = np.asarray(ranks)
    if r.size and (r.min() < 1 or r.max() > WORST_RANK):
        raise ValueError(f"rank_class_batch: ranks must lie in 1..{WORST_RANK}")
    return np.searchsorted(_CLASS_WORST, r, side="left").astype(np.int8)


def rank_class_name(cls: int) -> str:
    """treys' name of a rank class ('Royal Flush' .. 'High Card')."""
    if isinstance(cls, (bool, np.bool_)) or not isinstance(cls, (int, np.integer)) or not 0 <= cls <= 9:
        raise ValueError(f"rank_class_name: rank class must be an int 0..9, got {cls!r}")
    return CLASS_NAMES[cls]


def hand_description(cards: CardsLike) -> str:
    """Name of the class of the best five of 5..7 cards ('Full House')."""
    return CLASS_NAMES[rank_class(rank(cards))]


# Categories of the generic ranking, weakest first (poker order).
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def _straight_top(rank_set: set[int]) -> int:
    """Highest rank topping a five-card straight in the set, -1 if none (wheel tops at 3 = '5')."""
    for top in range(12, 3, -1):
        if all(r in rank_set for r in range(top - 4, top + 1)):
            return top
    if {12, 0, 1, 2, 3} <= rank_set:
        return 3
    return -1


def _pack(category: int, kickers: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = value * 13 + (kickers[i] if i < len(kickers) else 0)
    return value


#: values of hands of one or two cards (Kuhn, Leduc showdowns), kept as computed: a dealer asks for the same few
#: thousands of times; bounded so that odd inputs cannot grow it without end
_SMALL: dict[tuple[int, ...], int] = {}
_SMALL_MAX = 4096


def generic_value(cards: Sequence[int]) -> int:
    """Poker value (higher is better) of the best five of any number of cards.

    Works for any count, as the reference dealer's ranking does: with fewer
    than five cards only pairs, trips, two pair and quads can be made (Kuhn,
    Leduc).  Values compare only between hands of the same number of cards.
    """
    if len(cards) <= 2:
        key = tuple(cards)
        value = _SMALL.get(key)
        if value is None:
            value = _generic_value(key)
            if len(_SMALL) < _SMALL_MAX:
                _SMALL[key] = value
        return value
    return _generic_value(cards)


def _generic_value(cards: Sequence[int]) -> int:
    if not cards:
        raise ValueError("generic_value: no cards")
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    flush: list[int] = []
    if len(cards) >= 5:
        by_suit: dict[int, list[int]] = {}
        for c in cards:
            by_suit.setdefault(c & 3, []).append(c >> 2)
        # With ten or more cards two suits can hold five: keep the better.
        straight_flush_top = -1
        for suited in by_suit.values():
            if len(suited) >= 5:
                straight_flush_top = max(straight_flush_top, _straight_top(set(suited)))
                flush = max(flush, sorted(suited, reverse=True)[:5])
        if straight_flush_top >= 0:
            return _pack(STRAIGHT_FLUSH, [straight_flush_top])
    # groups by (count, rank), biggest first
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    if groups[0][0] >= 4:
        quad = groups[0][1]
        return _pack(QUADS, [quad] + [r for r in ranks if r != quad][:1])
    if groups[0][0] == 3 and len(groups) > 1 and groups[1][0] >= 2:
        # the pair is the highest other rank held twice or more (a lower trips
        # only when no higher pair: eight cards can hold two trips and a pair)
        trip = groups[0][1]
        return _pack(FULL_HOUSE, [trip, max(r for n, r in groups[1:] if n >= 2)])
    if flush:
        return _pack(FLUSH, flush)
    if len(cards) >= 5:
        top = _straight_top(set(ranks))
        if top >= 0:
            return _pack(STRAIGHT, [top])
    if groups[0][0] == 3:
        trip = groups[0][1]
        return _pack(TRIPS, [trip] + [r for r in ranks if r != trip][:2])
    if groups[0][0] == 2 and len(groups) > 1 and groups[1][0] == 2:
        hi, lo = groups[0][1], groups[1][1]
        return _pack(TWO_PAIR, [hi, lo] + [r for r in ranks if r not in (hi, lo)][:1])
    if groups[0][0] == 2:
        pair = groups[0][1]
        return _pack(PAIR, [pair] + [r for r in ranks if r != pair][:3])
    return _pack(HIGH_CARD, ranks[:5])


_VALUE7: dict[int, int] | None = None


def _load_value7() -> dict[int, int]:
    global _VALUE7
    _VALUE7 = lookups().value7
    return _VALUE7


def prepare(num_cards: int) -> None:
    """Load now the tables that ranking hands of ``num_cards`` cards needs (else the first showdown loads them).

    A dealer calls it before its clock starts, as the reference has its tables built in.
    """
    if 5 <= num_cards <= 7:
        showdown_value(tuple(range(num_cards)))


def showdown_value(cards: Sequence[int]) -> int:
    """Showdown value (higher is better) of a player's hole and board cards.

    Five to seven cards: 7463 - treys rank; other counts: ``generic_value``.
    Compare values only between hands of the same size.  This is the
    engine's hot path (about half a microsecond for seven cards); cards must
    be distinct ints 0..51, anything else raises ValueError.
    """
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        K = KEY_A_GUARDED
        try:
            key = SUIT_BASE + K[a] + K[b] + K[c] + K[d] + K[e] + K[f] + K[g]
        except (IndexError, TypeError):
            as_cards(cards, "cards")  # raises the precise ValueError
            raise
        if key & FLUSH_FLAGS:
            as_cards(cards, "cards")  # rare path: check everything
            return WORST_RANK + 1 - flush_rank(cards, key)
        value = (_VALUE7 or _load_value7()).get(key & LOW)
        # A repeated card can still give a valid key (two of a rank read as a
        # pair), and a card below -52 indexes a real card's key, so the set
        # and sign checks stay; they are cheap next to the call.
        if value is None or len({a, b, c, d, e, f, g}) < 7 or (a | b | c | d | e | f | g) < 0:
            as_cards(cards, "cards")
        return value  # type: ignore[return-value]  # None only for cards as_cards has just refused (hot path: no assert)
    n = len(cards)
    if 5 <= n <= 6:
        return WORST_RANK + 1 - rank(cards)
    if n == 0:
        raise ValueError("showdown_value: no cards")
    as_cards(cards, "cards")
    return generic_value(cards)



def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each int64 of an array."""
    if hasattr(np, "bitwise_count"):
        counts: np.ndarray = np.bitwise_count(x)
        return counts
    b = np.ascontiguousarray(x, dtype=np.int64).view(np.uint8).reshape(len(x), 8)
    summed: np.ndarray = np.unpackbits(b, axis=1).sum(axis=1)  # pragma: no cover - numpy < 2.0
    return summed


def ranks_from_keys(a: np.ndarray, b: np.ndarray | None, n: int,
                     cards: np.ndarray | None = None) -> np.ndarray:
    """treys ranks of hands given their key sums (A including SUIT_BASE; B, or the cards)."""
    # Clipping keeps keys of impossible hands (cells of an enumeration grid
    # that repeat a card, masked out by the caller) inside the table.
    out = np.take(dense_table(n), a & LOW, mode="clip")
    f = np.flatnonzero(a & FLUSH_FLAGS)
    if f.size:
        flags = (a[f] >> SUIT_SHIFT) & 0x8888
        suit = (flags & 0x8080 != 0).astype(np.int64) + 2 * (flags & 0x8800 != 0)
        if b is not None:
            bits = (b[f] >> (13 * suit)) & 0x1FFF
        else:
            assert cards is not None  # the caller gives B or the cards
            sub = cards[f]
            bits = np.where((sub & 3) == suit[:, None], 1 << (sub >> 2).astype(np.int64), 0).sum(axis=1)
        out[f] = lookups().flush_table[bits]
    return out


#: hands ranked per block by :func:`rank_batch`: a block's temporaries stay in the processor's cache
_BATCH_BLOCK = 16_384


def rank_batch(cards: np.ndarray, check: bool = True) -> np.ndarray:
    """treys ranks (int16 array of N) of an (N, 5), (N, 6) or (N, 7) integer array of cards.

    With ``check`` (the default) bad rows raise ValueError naming the first
    bad row; ``check=False`` skips the range and duplicate checks for arrays
    the caller built itself.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in (5, 6, 7):
        raise ValueError(f"rank_batch: expected an (N, 5), (N, 6) or (N, 7) array of cards, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"rank_batch: cards must be an integer array, got dtype {arr.dtype}")
    n = arr.shape[1]
    if arr.shape[0] == 0:
        return np.zeros(0, dtype=np.int16)
    table = dense_table(n)
    out = np.empty(arr.shape[0], dtype=table.dtype)
    for start in range(0, arr.shape[0], _BATCH_BLOCK):
        block = arr[start:start + _BATCH_BLOCK]
        if check and (block.min() < 0 or block.max() > 51):
            outside = int(np.flatnonzero(((block < 0) | (block > 51)).any(axis=1))[0])
            raise ValueError(f"rank_batch: row {start + outside} has a card outside 0..51: {block[outside].tolist()}")
        cols = block.T.astype(np.intp, order="C")  # one card column after another, each contiguous
        a = np.take(KEY_A, cols[0])
        for col in cols[1:]:
            a += np.take(KEY_A, col)
        a += SUIT_BASE
        if check:
            b = np.take(KEY_B, cols[0])
            for col in cols[1:]:
                b += np.take(KEY_B, col)
            # Distinct cards set n distinct bits; a repeated card carries into fewer.
            bad = np.flatnonzero(popcount(b) != n)
            if bad.size:
                row = int(bad[0])
                raise ValueError(f"rank_batch: row {start + row} repeats a card: {block[row].tolist()}")
            out[start:start + len(block)] = ranks_from_keys(a, b, n)
        else:
            out[start:start + len(block)] = ranks_from_keys(a, None, n, block)
    return out




def default_ranking(num_cards: int) -> Ranking:
    """The poker ranking for hands of ``num_cards`` cards: ``generic_value`` below five (no tables), else ``showdown_value``."""
    return generic_value if num_cards < 5 else showdown_value
