"""Hand ranking and poker mathematics: treys-exact ranks, batch ranks, equity, strength.

Ranks are treys 0.1.8 ranks: 1 (royal flush) .. 7462 (7-5-4-3-2 offsuit),
lower is better, for the best five of five to seven cards.  Everything here
agrees with ``treys.Evaluator`` on every hand; the tables that make it fast
are built from treys itself and cached on disk.

Public API (cards are ints ``rank*4 + suit``, see ``cards.py``; wherever a
function takes cards, ACPC text such as ``"AsKd"`` works too):

- ``rank(cards)``, ``rank_class(rank)``, ``rank_class_name(rank_class)``:
  one hand, validated.
- ``rank_batch(cards)``: an (N, 5|6|7) integer array to N ranks (numpy).
- ``showdown_value(cards)``: the engine's showdown value (higher is better)
  of any number of cards; ``generic_value`` for games other than hold'em.
- ``pair_index``, ``pair_cards``, ``PAIRS``, ``uniform_range``: the 1326
  hole pairs; a range is a float array of 1326 weights.
- ``equity(hole, board, opponents, ranges, samples)`` -> ``Equity``.
- ``showdown_shares``, ``hand_strength``, ``hand_potential``,
  ``effective_hand_strength``: the hand-strength measures of Billings et al.

Implementation.  A card carries two integer keys.  Key A adds a rank weight
(``RANK_WEIGHTS``: every multiset of up to seven ranks with the same number
of cards has its own sum) and a 4-bit counter per suit; key B is a 52-bit set
of the cards (13 bits per suit).  A hand's keys are the sums of its cards'
keys, so the keys of a board and of a hole pair just add.  Without a flush,
treys' rank depends only on the multiset of ranks: a table indexed by the
rank-weight sum.  With five or more cards of a suit (at most seven cards
leave no room for quads or a full house then) it depends only on the ranks
in that suit: a table indexed by that suit's 13 bits of key B.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Iterable, Sequence, Union

import numpy as np
from treys import Evaluator as _TreysEvaluator
from treys.lookup import LookupTable as _TreysLookup

from .cards import CardError, TREYS_INT, card_to_text, cards_to_text, parse_card, parse_cards

# ---------------------------------------------------------------------------
# Rank classes (treys numbering)
# ---------------------------------------------------------------------------

WORST_RANK = _TreysLookup.MAX_HIGH_CARD  # 7462


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
CLASS_NAMES = tuple(_TreysLookup.RANK_CLASS_TO_STRING[i] for i in range(10))
_CLASS_WORST = np.array(CLASS_WORST_RANKS, dtype=np.int32)

# ---------------------------------------------------------------------------
# Card keys
# ---------------------------------------------------------------------------

# Smallest increasing weights (greedy) such that two multisets of k ranks,
# k <= 7 and at most four of a rank, never share a sum; found by
# tools/find_rank_weights.py and re-checked whenever the tables are built.
RANK_WEIGHTS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
_SUIT_SHIFT = 32
_LOW = (1 << _SUIT_SHIFT) - 1
# Each suit counter starts at 3, so five or more cards of a suit set its top bit.
_SUIT_BASE = 0x3333 << _SUIT_SHIFT
_FLUSH_FLAGS = 0x8888 << _SUIT_SHIFT

_KEY_A_LIST = [RANK_WEIGHTS[c >> 2] + (1 << (_SUIT_SHIFT + 4 * (c & 3))) for c in range(52)]
# The hot path's key list: indices 52..103, which cards -52..-1 wrap to,
# add a weight above every real key so the lookup misses and the checks run
# (cards below -52 wrap to real keys: showdown_value checks their sign).
_KEY_A_GUARDED = _KEY_A_LIST + [1 << 28] * 52
_KEY_B_LIST = [1 << (13 * (c & 3) + (c >> 2)) for c in range(52)]
KEY_A = np.array(_KEY_A_LIST, dtype=np.int64)
KEY_B = np.array(_KEY_B_LIST, dtype=np.int64)
_SUIT_OF_FLAGS = {0x8: 0, 0x80: 1, 0x800: 2, 0x8000: 3}

# ---------------------------------------------------------------------------
# Tables: built from treys, cached on disk
# ---------------------------------------------------------------------------

_TABLE_FORMAT = 1
_TREYS = _TreysEvaluator()


def _treys_version() -> str:
    try:
        return metadata.version("treys")
    except metadata.PackageNotFoundError:  # pragma: no cover - vendored treys
        return "unknown"


def table_stamp() -> str:
    """The version stamp a cached table must carry to be used."""
    text = f"format {_TABLE_FORMAT}; treys {_treys_version()}; weights {RANK_WEIGHTS}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_dir() -> Path:
    """Directory of acpcbot's caches: $XDG_CACHE_HOME/acpcbot or ~/.cache/acpcbot."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "acpcbot"


def _treys_rank(cards: Sequence[int]) -> int:
    t = [TREYS_INT[c] for c in cards]
    return _TREYS.evaluate(t[:2], t[2:])


def build_tables() -> dict[str, np.ndarray]:
    """Build the rank tables from treys (about half a second); no cache involved."""
    tables: dict[str, np.ndarray] = {}
    weights = np.array(RANK_WEIGHTS, dtype=np.int64)
    for n in (5, 6, 7):
        multisets = [m for m in itertools.combinations_with_replacement(range(13), n)
                     if max(m.count(r) for r in set(m)) <= 4]
        # Suits dealt round-robin over the sorted ranks: copies of a rank get
        # distinct suits and no suit gets five cards, so treys sees no flush.
        ranks = [_treys_rank([r * 4 + i % 4 for i, r in enumerate(m)]) for m in multisets]
        keys = weights[np.array(multisets)].sum(axis=1)
        if len(np.unique(keys)) != len(keys):
            raise RuntimeError(f"RANK_WEIGHTS do not separate {n}-card rank multisets")
        tables[f"keys{n}"] = keys.astype(np.int32)
        tables[f"ranks{n}"] = np.array(ranks, dtype=np.int16)
    flush = np.zeros(1 << 13, dtype=np.int16)
    for bits in range(1 << 13):
        if 5 <= bin(bits).count("1") <= 7:
            flush[bits] = _treys_rank([r * 4 for r in range(13) if bits >> r & 1])
    tables["flush"] = flush
    return tables


def _tables_ok(tables: dict[str, np.ndarray]) -> bool:
    expected = {5: 6175, 6: 18395, 7: 49205}
    try:
        return all(len(tables[f"keys{n}"]) == size and len(tables[f"ranks{n}"]) == size
                   for n, size in expected.items()) and tables["flush"].shape == (1 << 13,)
    except KeyError:
        return False


def load_tables(directory: Path | None = None) -> dict[str, np.ndarray]:
    """The rank tables: from the cache in ``directory`` if fresh, else built (and cached if possible)."""
    directory = cache_dir() if directory is None else Path(directory)
    stamp = table_stamp()
    path = directory / f"rank_tables_{stamp}.npz"
    try:
        with np.load(path, allow_pickle=False) as data:
            tables = {name: data[name] for name in data.files}
        if str(tables.pop("stamp", "")) == stamp and _tables_ok(tables):
            return tables
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
        pass  # missing, unreadable, cut short or corrupt: rebuild below
    tables = build_tables()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # Write beside the target and rename, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, stamp=np.array(stamp), **tables)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        for old in directory.glob("rank_tables_*.npz"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass  # unwritable cache: keep the tables in memory only
    return tables


_TABLES = load_tables()
# Scalar lookups: dicts keyed by the rank-weight sum, per card count.
_RANK_BY_KEY = {n: dict(zip(_TABLES[f"keys{n}"].tolist(), _TABLES[f"ranks{n}"].tolist())) for n in (5, 6, 7)}
_RANK7 = _RANK_BY_KEY[7]
_VALUE7 = {k: WORST_RANK + 1 - r for k, r in _RANK7.items()}
_FLUSH_RANK = _TABLES["flush"].tolist()
_FLUSH_TABLE = _TABLES["flush"]


@lru_cache(maxsize=None)
def _dense_table(n: int) -> np.ndarray:
    """Rank by rank-weight sum for n cards, as a dense array (a few MB), built on first use."""
    keys = _TABLES[f"keys{n}"]
    table = np.zeros(int(keys.max()) + 1, dtype=np.int16)
    table[keys] = _TABLES[f"ranks{n}"]
    return table


# ---------------------------------------------------------------------------
# Input checking
# ---------------------------------------------------------------------------

CardsLike = Union[str, Iterable[Union[int, str]]]


def _as_cards(cards: CardsLike, what: str) -> tuple[int, ...]:
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


def _check_distinct(groups: Sequence[tuple[str, tuple[int, ...]]]) -> None:
    seen: dict[int, str] = {}
    for what, cards in groups:
        for c in cards:
            if c in seen:
                raise ValueError(f"card {card_to_text(c)} is in both {seen[c]} and {what}")
            seen[c] = what


# ---------------------------------------------------------------------------
# One hand
# ---------------------------------------------------------------------------

def _flush_rank(cards: Sequence[int], key: int) -> int:
    suit = _SUIT_OF_FLAGS[(key & _FLUSH_FLAGS) >> _SUIT_SHIFT]
    bits = 0
    for c in cards:
        if c & 3 == suit:
            bits |= 1 << (c >> 2)
    return _FLUSH_RANK[bits]


def _rank_unchecked(cards: Sequence[int]) -> int:
    """treys rank of 5..7 valid distinct cards, no checks (internal fast path)."""
    K = _KEY_A_LIST
    key = _SUIT_BASE
    for c in cards:
        key += K[c]
    if key & _FLUSH_FLAGS:
        return _flush_rank(cards, key)
    return _RANK_BY_KEY[len(cards)][key & _LOW]


def rank(cards: CardsLike) -> int:
    """treys rank (1 best .. 7462 worst) of the best five of 5 to 7 cards, validated."""
    cs = _as_cards(cards, "cards")
    if not 5 <= len(cs) <= 7:
        raise ValueError(f"cards: rank needs 5 to 7 cards, got {len(cs)} ({cards_to_text(cs)})")
    return _rank_unchecked(cs)


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


def generic_value(cards: Sequence[int]) -> int:
    """Poker value (higher is better) of the best five of any number of cards.

    Works for any count, as the reference dealer's ranking does: with fewer
    than five cards only pairs, trips, two pair and quads can be made (Kuhn,
    Leduc).  Values compare only between hands of the same number of cards.
    """
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


def showdown_value(cards: Sequence[int]) -> int:
    """Showdown value (higher is better) of a player's hole and board cards.

    Five to seven cards: 7463 - treys rank; other counts: ``generic_value``.
    Compare values only between hands of the same size.  This is the
    engine's hot path (about half a microsecond for seven cards); cards must
    be distinct ints 0..51, anything else raises ValueError.
    """
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        K = _KEY_A_GUARDED
        try:
            key = _SUIT_BASE + K[a] + K[b] + K[c] + K[d] + K[e] + K[f] + K[g]
        except (IndexError, TypeError):
            _as_cards(cards, "cards")  # raises the precise ValueError
            raise
        if key & _FLUSH_FLAGS:
            _as_cards(cards, "cards")  # rare path: check everything
            return WORST_RANK + 1 - _flush_rank(cards, key)
        value = _VALUE7.get(key & _LOW)
        # A repeated card can still give a valid key (two of a rank read as a
        # pair), and a card below -52 indexes a real card's key, so the set
        # and sign checks stay; they are cheap next to the call.
        if value is None or len({a, b, c, d, e, f, g}) < 7 or (a | b | c | d | e | f | g) < 0:
            _as_cards(cards, "cards")
        return value
    n = len(cards)
    if 5 <= n <= 6:
        return WORST_RANK + 1 - rank(cards)
    if n == 0:
        raise ValueError("showdown_value: no cards")
    _as_cards(cards, "cards")
    return generic_value(cards)


# ---------------------------------------------------------------------------
# Batches
# ---------------------------------------------------------------------------

def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    b = np.ascontiguousarray(x, dtype=np.int64).view(np.uint8).reshape(len(x), 8)
    return np.unpackbits(b, axis=1).sum(axis=1)  # pragma: no cover - numpy < 2.0


def _ranks_from_keys(a: np.ndarray, b: np.ndarray | None, n: int,
                     cards: np.ndarray | None = None) -> np.ndarray:
    """treys ranks of hands given their key sums (A including _SUIT_BASE; B, or the cards)."""
    # Clipping keeps keys of impossible hands (cells of an enumeration grid
    # that repeat a card, masked out by the caller) inside the table.
    out = np.take(_dense_table(n), a & _LOW, mode="clip")
    f = np.flatnonzero(a & _FLUSH_FLAGS)
    if f.size:
        flags = (a[f] >> _SUIT_SHIFT) & 0x8888
        suit = (flags & 0x8080 != 0).astype(np.int64) + 2 * (flags & 0x8800 != 0)
        if b is not None:
            bits = (b[f] >> (13 * suit)) & 0x1FFF
        else:
            sub = cards[f]
            bits = np.where((sub & 3) == suit[:, None], 1 << (sub >> 2).astype(np.int64), 0).sum(axis=1)
        out[f] = _FLUSH_TABLE[bits]
    return out


def rank_batch(cards: np.ndarray, check: bool = True) -> np.ndarray:
    """treys ranks (int16 array of N) of an (N, 5), (N, 6) or (N, 7) integer array of cards.

    With ``check`` (the default) bad rows raise ValueError naming the first
    bad row; ``check=False`` skips the range and duplicate checks (about 1.5x
    faster) for arrays the caller built itself.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in (5, 6, 7):
        raise ValueError(f"rank_batch: expected an (N, 5), (N, 6) or (N, 7) array of cards, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"rank_batch: cards must be an integer array, got dtype {arr.dtype}")
    n = arr.shape[1]
    if arr.shape[0] == 0:
        return np.zeros(0, dtype=np.int16)
    if check:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi > 51:
            row = int(np.flatnonzero(((arr < 0) | (arr > 51)).any(axis=1))[0])
            raise ValueError(f"rank_batch: row {row} has a card outside 0..51: {arr[row].tolist()}")
    cols = [arr[:, i] for i in range(n)]
    a = KEY_A[cols[0]] + _SUIT_BASE
    for col in cols[1:]:
        a += KEY_A[col]
    if not check:
        return _ranks_from_keys(a, None, n, arr)
    b = KEY_B[cols[0]]
    for col in cols[1:]:
        b += KEY_B[col]
    # Distinct cards set n distinct bits; a repeated card carries into fewer.
    bad = np.flatnonzero(_popcount(b) != n)
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"rank_batch: row {row} repeats a card: {arr[row].tolist()}")
    return _ranks_from_keys(a, b, n)


# ---------------------------------------------------------------------------
# Hole pairs and ranges
# ---------------------------------------------------------------------------

NUM_PAIRS = 1326
#: The 1326 hole pairs (a, b), a < b, in lexicographic order; row i is pair i.
PAIRS = np.array(list(itertools.combinations(range(52), 2)), dtype=np.int64)
PAIRS.setflags(write=False)
_PAIR_A = KEY_A[PAIRS[:, 0]] + KEY_A[PAIRS[:, 1]]
_PAIR_B = KEY_B[PAIRS[:, 0]] + KEY_B[PAIRS[:, 1]]
#: PAIR_INDEX[c1, c2]: index of the pair {c1, c2}; -1 on the diagonal.
PAIR_INDEX = np.full((52, 52), -1, dtype=np.int64)
PAIR_INDEX[PAIRS[:, 0], PAIRS[:, 1]] = np.arange(NUM_PAIRS)
PAIR_INDEX[PAIRS[:, 1], PAIRS[:, 0]] = np.arange(NUM_PAIRS)
PAIR_INDEX.setflags(write=False)


def pair_index(c1: int, c2: int) -> int:
    """Index 0..1325 of the hole pair {c1, c2} (either order)."""
    a, b = _as_cards((c1, c2), "pair")
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
        a, b = _key_sums(arr)
        if (_popcount(b) != arr.shape[1]).any():
            raise ValueError("pair_ranks: a board repeats a card")
        single = False
    else:
        bd = _as_cards(boards, "board")
        if not 3 <= len(bd) <= 5:
            raise ValueError(f"board: pair_ranks needs 3..5 board cards, got {len(bd)}")
        a = np.array([sum(_KEY_A_LIST[c] for c in bd)], dtype=np.int64)
        b = np.array([_cards_mask(bd)], dtype=np.int64)
        single = True
    n = (len(bd) if single else arr.shape[1]) + 2
    ka = (a + _SUIT_BASE)[:, None] + _PAIR_A[None, :]
    kb = b[:, None] + _PAIR_B[None, :]
    out = _ranks_from_keys(ka.ravel(), kb.ravel(), n).reshape(ka.shape)
    out[(b[:, None] & _PAIR_B[None, :]) != 0] = 0
    return out[0] if single else out


def uniform_range() -> np.ndarray:
    """A range giving every hole pair weight 1."""
    return np.ones(NUM_PAIRS)


def range_of_pairs(pairs: Iterable[tuple[int, int]], weight: float = 1.0) -> np.ndarray:
    """A range holding the given pairs with ``weight`` and every other pair with 0."""
    r = np.zeros(NUM_PAIRS)
    for c1, c2 in pairs:
        r[pair_index(c1, c2)] = weight
    return r


def _cards_mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= _KEY_B_LIST[c]
    return m


def _check_range(r: object, what: str) -> np.ndarray:
    arr = np.asarray(r, dtype=np.float64) if r is not None else uniform_range()
    if arr.shape != (NUM_PAIRS,):
        raise ValueError(f"{what}: a range is {NUM_PAIRS} weights (one per hole pair), got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{what}: range weights must be finite and >= 0")
    return arr


def _ranges_list(ranges: object, opponents: int, what: str) -> list[np.ndarray | None]:
    """One range (or None for a random hand) per opponent."""
    if isinstance(opponents, (bool, np.bool_)) or not isinstance(opponents, (int, np.integer)) \
            or not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be an int 1..22, got {opponents!r}")
    if ranges is None:
        return [None] * opponents
    if isinstance(ranges, np.ndarray) and ranges.ndim == 1 or \
            isinstance(ranges, (list, tuple)) and ranges and np.isscalar(ranges[0]):
        one = _check_range(ranges, what)
        return [one] * opponents
    items = list(ranges)  # type: ignore[call-overload]
    if len(items) != opponents:
        raise ValueError(f"{what}: got {len(items)} ranges for {opponents} opponents")
    return [None if r is None else _check_range(r, f"{what}[{i}]") for i, r in enumerate(items)]


def _live_pairs(r: np.ndarray | None, dead_mask: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Indices and weights of the pairs a range can hold given the dead cards."""
    ok = (_PAIR_B & dead_mask) == 0
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

@lru_cache(maxsize=16)
def _combinations(m: int, r: int) -> np.ndarray:
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


def _remaining(known_mask: int) -> np.ndarray:
    return np.array([c for c in range(52) if not known_mask & _KEY_B_LIST[c]], dtype=np.int64)


def _key_sums(cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.zeros(len(cards), dtype=np.int64)
    b = np.zeros(len(cards), dtype=np.int64)
    for i in range(cards.shape[1]):
        a += KEY_A[cards[:, i]]
        b += KEY_B[cards[:, i]]
    return a, b


# ---------------------------------------------------------------------------
# Equity
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Equity:
    """Showdown result shares of a hand: win, tie and loss add to 1; ties are shared in ``equity``."""

    win: float
    tie: float
    loss: float
    equity: float
    stderr: float  # standard error of ``equity`` (0 when exact)
    exact: bool
    samples: int  # Monte Carlo deals, or (runout, opponent holding) combinations enumerated


DEFAULT_SAMPLES = 20_000
#: Auto mode enumerates exactly when (runouts x opponent holdings) is at most this.
EXACT_LIMIT = 2_000_000
_CHUNK = 1 << 20


def equity(hole: CardsLike, board: CardsLike = (), opponents: int = 1, ranges: object = None,
           samples: int | None = None, exact: bool | None = None,
           rng: np.random.Generator | int | None = None) -> Equity:
    """Win, tie and loss shares and equity of a hold'em hand at showdown.

    ``ranges``: None (random hands), one range for every opponent, or a
    sequence of one range (or None) per opponent; a range is 1326 weights
    indexed by ``pair_index``.  ``exact=None`` enumerates every runout and
    holding when that is cheap (heads-up: runouts x holdings <= EXACT_LIMIT,
    e.g. river, turn, flop against any range, preflop against one hand; two
    opponents on the river) and otherwise runs ``samples`` (default
    DEFAULT_SAMPLES) vectorised Monte Carlo deals; ``exact=True`` insists
    on enumeration, ``exact=False`` on Monte Carlo.  ``rng`` seeds the
    sampling.  Opponent holdings are drawn from their ranges conditioned on
    all cards being distinct.
    """
    h = _as_cards(hole, "hole")
    if len(h) != 2:
        raise ValueError(f"hole: a hold'em hand has 2 cards, got {len(h)}")
    bd = _as_cards(board, "board")
    if len(bd) > 5:
        raise ValueError(f"board: at most 5 cards, got {len(bd)}")
    _check_distinct([("hole", h), ("board", bd)])
    rl = _ranges_list(ranges, opponents, "ranges")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, (int, np.integer))
                                or samples < 2):
        raise ValueError(f"samples must be an int >= 2, got {samples!r}")
    dead = _cards_mask(h + bd)
    live = [_live_pairs(r, dead, f"ranges[{i}]" if ranges is not None else "opponent") for i, r in enumerate(rl)]
    # The board runs out from the cards left beside the opponent's pair.
    n_runouts = math.comb(48 - len(bd), 5 - len(bd))
    can_exact = (opponents == 1) or (opponents == 2 and len(bd) == 5)
    cost = n_runouts * len(live[0][0]) if opponents == 1 else len(live[0][0]) * len(live[1][0])
    if exact is None:
        exact = can_exact and cost <= EXACT_LIMIT
    elif exact and not can_exact:
        raise ValueError("exact equity is available heads-up, or with two opponents on the river")
    if exact:
        if opponents == 1:
            return _exact_headsup(h, bd, *live[0])
        return _exact_river_two(h, bd, live[0], live[1])
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return _monte_carlo(h, bd, rl, live, samples or DEFAULT_SAMPLES, gen)


def _exact_headsup(hole: tuple[int, ...], board: tuple[int, ...],
                   pair_idx: np.ndarray, weights: np.ndarray) -> Equity:
    """Every runout against every holding of one opponent, weighted by the range."""
    known = hole + board
    deck = _remaining(_cards_mask(known))
    runs = deck[_combinations(len(deck), 5 - len(board))]
    ra, rb = _key_sums(runs)
    board_a = _SUIT_BASE + sum(_KEY_A_LIST[c] for c in board)
    board_b = _cards_mask(board)
    hero = _ranks_from_keys(board_a + ra + sum(_KEY_A_LIST[c] for c in hole),
                            board_b + rb + _cards_mask(hole), 7)
    pa, pb = _PAIR_A[pair_idx], _PAIR_B[pair_idx]
    win = tie = total = 0.0
    combos = 0
    step = max(1, _CHUNK // len(pair_idx))
    for s in range(0, len(runs), step):
        a = (board_a + ra[s:s + step])[:, None] + pa[None, :]
        b = (board_b + rb[s:s + step])[:, None] + pb[None, :]
        opp = _ranks_from_keys(a.ravel(), b.ravel(), 7).reshape(a.shape)
        ok = (rb[s:s + step, None] & pb[None, :]) == 0
        w = np.where(ok, weights[None, :], 0.0)
        hr = hero[s:s + step, None]
        combos += int(ok.sum())
        total += w.sum()
        win += w[opp > hr].sum()
        tie += w[opp == hr].sum()
    win, tie, total = float(win), float(tie), float(total)
    loss = total - win - tie
    return Equity(win / total, tie / total, loss / total, (win + tie / 2) / total, 0.0, True, combos)


def _exact_river_two(hole: tuple[int, ...], board: tuple[int, ...],
                     live1: tuple[np.ndarray, np.ndarray], live2: tuple[np.ndarray, np.ndarray]) -> Equity:
    """River against two opponents: every pair of disjoint holdings."""
    board_a = _SUIT_BASE + sum(_KEY_A_LIST[c] for c in board)
    board_b = _cards_mask(board)
    hero = _rank_unchecked(hole + board)
    ranks = []
    for idx, _ in (live1, live2):
        ranks.append(_ranks_from_keys(board_a + _PAIR_A[idx], board_b + _PAIR_B[idx], 7))
    (i1, w1), (i2, w2) = live1, live2
    ok = (_PAIR_B[i1][:, None] & _PAIR_B[i2][None, :]) == 0
    w = np.where(ok, w1[:, None] * w2[None, :], 0.0)
    r1, r2 = ranks[0][:, None], ranks[1][None, :]
    total = float(w.sum())
    if total <= 0:
        raise ValueError("ranges: the two opponents' ranges have no disjoint holdings")
    win = float(w[(r1 > hero) & (r2 > hero)].sum())
    tied = (np.minimum(r1, r2) == hero)
    n_tied = (r1 == hero).astype(np.int64) + (r2 == hero)
    tie = float(w[tied].sum())
    eq_tie = float((w * np.where(tied, 1.0 / (1 + n_tied), 0.0)).sum())
    loss = total - win - tie
    return Equity(win / total, tie / total, loss / total, (win + eq_tie) / total, 0.0, True, int(ok.sum()))


def _deal_fill(rng: np.random.Generator, deck: np.ndarray, count: int, size: int,
               used: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` candidate rows of ``count`` cards from ``deck`` in uniformly random order.

    Returns (cards, ok): rows with ok False repeat a card or hit their row's
    ``used`` mask and must be discarded (rejection keeps the rest uniform).
    """
    m = len(deck)
    if count == 0:
        return np.zeros((size, 0), dtype=np.int64), np.ones(size, dtype=bool)
    if math.perm(m, count) / m ** count >= 0.25:
        cards = deck[rng.integers(0, m, size=(size, count))]
        bits = KEY_B[cards[:, 0]]
        for i in range(1, count):
            bits = bits | KEY_B[cards[:, i]]
        ok = _popcount(bits) == count
        if used is not None:
            ok &= (bits & used) == 0
        return cards, ok
    # Many cards to deal: the `count` smallest of random keys, used cards last.
    keys = rng.random((size, m), dtype=np.float32)
    if used is not None:
        keys[(used[:, None] & KEY_B[deck][None, :]) != 0] = 2.0
    idx = np.argpartition(keys, count - 1, axis=1)[:, :count]
    # argpartition leaves the chosen cards in no random order; sorting them by key does.
    order = np.argsort(np.take_along_axis(keys, idx, axis=1), axis=1)
    return deck[np.take_along_axis(idx, order, axis=1)], np.ones(size, dtype=bool)


def _monte_carlo(hole: tuple[int, ...], board: tuple[int, ...], rl: list[np.ndarray | None],
                 live: list[tuple[np.ndarray, np.ndarray]], samples: int, rng: np.random.Generator) -> Equity:
    """Vectorised Monte Carlo: ranged opponents from their ranges, the rest of the deal uniform."""
    deck = _remaining(_cards_mask(hole + board))
    ranged = [i for i, r in enumerate(rl) if r is not None]
    n_random = len(rl) - len(ranged)
    fill = 2 * n_random + 5 - len(board)
    cdfs = [np.cumsum(live[i][1]) for i in ranged]
    board_a = _SUIT_BASE + sum(_KEY_A_LIST[c] for c in board)
    board_b = _cards_mask(board)
    hole_a, hole_b = sum(_KEY_A_LIST[c] for c in hole), _cards_mask(hole)
    share_sum = share_sq = 0.0
    wins = ties = done = drawn = 0
    # First guess of the share of candidate deals kept: the fill's chance of
    # no repeated card (ranged opponents' overlaps are learnt from the first batch).
    rate = math.perm(len(deck), fill) / len(deck) ** fill if fill else 1.0
    rate = rate if rate >= 0.25 else 1.0
    while done < samples:
        want = samples - done
        size = min(int(want / max(rate, 0.01) * 1.1) + 64, 4 * _CHUNK)
        drawn += size
        if drawn > 200 * samples + 100_000:
            raise ValueError("ranges: the opponents' ranges leave almost no consistent deal")
        used = np.zeros(size, dtype=np.int64) if ranged else None
        ok = np.ones(size, dtype=bool)
        opp_a, opp_b = [], []
        for i, cdf in zip(ranged, cdfs):
            pick = live[i][0][np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"),
                                         len(cdf) - 1)]
            pb = _PAIR_B[pick]
            ok &= (used & pb) == 0
            used |= pb
            opp_a.append(_PAIR_A[pick])
            opp_b.append(pb)
        cards, ok_fill = _deal_fill(rng, deck, fill, size, used)
        ok &= ok_fill
        keep = np.flatnonzero(ok)[:want]
        rate = max(ok.mean(), 1e-3)
        if not keep.size:
            continue
        cards = cards[keep]
        a = np.full(len(keep), board_a, dtype=np.int64)
        b = np.full(len(keep), board_b, dtype=np.int64)
        for j in range(2 * n_random, fill):
            a += KEY_A[cards[:, j]]
            b += KEY_B[cards[:, j]]
        hero = _ranks_from_keys(a + hole_a, b + hole_b, 7)
        opp = [_ranks_from_keys(a + oa[keep], b + ob[keep], 7) for oa, ob in zip(opp_a, opp_b)]
        for j in range(n_random):
            c1, c2 = cards[:, 2 * j], cards[:, 2 * j + 1]
            opp.append(_ranks_from_keys(a + KEY_A[c1] + KEY_A[c2], b + KEY_B[c1] + KEY_B[c2], 7))
        opp_ranks = np.vstack(opp)
        best = opp_ranks.min(axis=0)
        win = hero < best
        tie = hero == best
        share = win.astype(np.float64)
        if tie.any():
            n_tied = (opp_ranks[:, tie] == hero[tie]).sum(axis=0)
            share[tie] = 1.0 / (1 + n_tied)
        wins += int(win.sum())
        ties += int(tie.sum())
        share_sum += float(share.sum())
        share_sq += float((share * share).sum())
        done += len(keep)
    mean = share_sum / done
    var = max(share_sq / done - mean * mean, 0.0) * done / (done - 1)
    return Equity(wins / done, ties / done, (done - wins - ties) / done, mean,
                  math.sqrt(var / done), False, done)


# ---------------------------------------------------------------------------
# Hand strength and potential (Billings, Papp, Schaeffer, Szafron)
# ---------------------------------------------------------------------------

AHEAD, TIED, BEHIND = 0, 1, 2


@dataclass(frozen=True)
class Shares:
    """Range-weighted shares of opponent holdings that the hand beats, ties and loses to now."""

    ahead: float
    tied: float
    behind: float

    @property
    def strength(self) -> float:
        """Hand strength against one opponent: ahead + tied / 2."""
        return self.ahead + self.tied / 2


def _postflop_args(hole: CardsLike, board: CardsLike, opponents: int, rng_arg: object,
                   ) -> tuple[tuple[int, ...], tuple[int, ...], list[tuple[np.ndarray, np.ndarray]], list[int]]:
    """Checked hole, board, the live pairs of each distinct range, and which range each opponent has."""
    h = _as_cards(hole, "hole")
    if len(h) != 2:
        raise ValueError(f"hole: a hold'em hand has 2 cards, got {len(h)}")
    bd = _as_cards(board, "board")
    if not 3 <= len(bd) <= 5:
        raise ValueError(f"board: hand strength needs a flop, turn or river board (3..5 cards), got {len(bd)}")
    _check_distinct([("hole", h), ("board", bd)])
    rl = _ranges_list(rng_arg, opponents, "range")
    dead = _cards_mask(h + bd)
    distinct: dict[int, int] = {}
    lives: list[tuple[np.ndarray, np.ndarray]] = []
    which = []
    for r in rl:
        key = id(r)
        if key not in distinct:
            distinct[key] = len(lives)
            lives.append(_live_pairs(r, dead, "range"))
        which.append(distinct[key])
    return h, bd, lives, which


def _shares(h: tuple[int, ...], bd: tuple[int, ...], idx: np.ndarray, w: np.ndarray) -> Shares:
    hero = _rank_unchecked(h + bd)
    board_a = _SUIT_BASE + sum(_KEY_A_LIST[c] for c in bd)
    opp = _ranks_from_keys(board_a + _PAIR_A[idx], _cards_mask(bd) + _PAIR_B[idx], 2 + len(bd))
    total = float(w.sum())
    ahead = float(w[opp > hero].sum()) / total
    tied = float(w[opp == hero].sum()) / total
    return Shares(ahead, tied, max(1.0 - ahead - tied, 0.0))


def showdown_shares(hole: CardsLike, board: CardsLike, range: object = None) -> Shares:
    """Ahead / tied / behind shares of one opponent's holdings now (flop, turn or river)."""
    h, bd, lives, _ = _postflop_args(hole, board, 1, range)
    return _shares(h, bd, *lives[0])


def hand_strength(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1) -> float:
    """Share of opponent holdings beaten now, ties counted half; the product over opponents.

    ``range``: None (uniform), one range for all opponents, or one per opponent.
    """
    h, bd, lives, which = _postflop_args(hole, board, opponents, range)
    per_range = [_shares(h, bd, *live).strength for live in lives]
    return float(np.prod([per_range[i] for i in which]))


def _transitions(h: tuple[int, ...], bd: tuple[int, ...], idx: np.ndarray, w: np.ndarray,
                 ahead: int) -> tuple[np.ndarray, np.ndarray]:
    """Per runout of ``ahead`` cards: the range-weighted 3x3 counts of (state now, state after).

    Returns (P, W): P (M, 3, 3) normalised per runout, W (M,) the runout's total weight.
    """
    deck = _remaining(_cards_mask(h + bd))
    runs = deck[_combinations(len(deck), ahead)]
    ra, rb = _key_sums(runs)
    n_now, n_after = 2 + len(bd), 2 + len(bd) + ahead
    board_a = _SUIT_BASE + sum(_KEY_A_LIST[c] for c in bd)
    board_b = _cards_mask(bd)
    hole_a, hole_b = sum(_KEY_A_LIST[c] for c in h), _cards_mask(h)
    pa, pb = _PAIR_A[idx], _PAIR_B[idx]
    hero_now = _rank_unchecked(h + bd)
    opp_now = _ranks_from_keys(board_a + pa, board_b + pb, n_now)
    now = np.where(opp_now > hero_now, AHEAD, np.where(opp_now == hero_now, TIED, BEHIND))
    hero_after = _ranks_from_keys(board_a + hole_a + ra, board_b + hole_b + rb, n_after)
    counts = np.zeros((len(runs), 9))
    step = max(1, _CHUNK // len(idx))
    for s in range(0, len(runs), step):
        a = (board_a + ra[s:s + step])[:, None] + pa[None, :]
        b = (board_b + rb[s:s + step])[:, None] + pb[None, :]
        opp = _ranks_from_keys(a.ravel(), b.ravel(), n_after).reshape(a.shape)
        hr = hero_after[s:s + step, None]
        after = np.where(opp > hr, AHEAD, np.where(opp == hr, TIED, BEHIND))
        cell = now[None, :] * 3 + after + 9 * np.arange(a.shape[0])[:, None]
        ww = np.where((rb[s:s + step, None] & pb[None, :]) == 0, w[None, :], 0.0)
        counts[s:s + a.shape[0]] = np.bincount(cell.ravel(), weights=ww.ravel(),
                                                minlength=9 * a.shape[0]).reshape(-1, 9)
    total = counts.sum(axis=1)
    probs = np.divide(counts, total[:, None], out=np.zeros_like(counts), where=total[:, None] > 0)
    return probs.reshape(-1, 3, 3), total


def _potential_matrix(hole: CardsLike, board: CardsLike, range: object, opponents: int,
                      cards_ahead: int | None) -> tuple[np.ndarray, float]:
    """Billings' HP matrix (now x after, shares summing to 1) against all opponents, and HS_n."""
    h, bd, lives, which = _postflop_args(hole, board, opponents, range)
    hs = float(np.prod([[_shares(h, bd, *live).strength for live in lives][i] for i in which]))
    left = 5 - len(bd)
    if cards_ahead is None:
        cards_ahead = left
    if isinstance(cards_ahead, bool) or not isinstance(cards_ahead, (int, np.integer)) or cards_ahead < 1:
        raise ValueError(f"cards_ahead must be 1, 2 or None (to the river), got {cards_ahead!r}")
    if left == 0:
        return np.zeros((3, 3)), hs
    cards_ahead = min(cards_ahead, left)
    trans = [_transitions(h, bd, *live, cards_ahead) for live in lives]
    # Opponents are independent given the runout: "ahead of all" and "not
    # behind anyone" multiply, and differencing the cumulative cells recovers
    # the multiway (ahead, tied, behind) cells.
    cum = np.ones((len(trans[0][0]), 3, 3))
    weight = np.ones(len(trans[0][0]))
    for i in which:
        probs, total = trans[i]
        cum *= probs.cumsum(axis=1).cumsum(axis=2)
        weight *= total
    joint = np.diff(np.diff(cum, axis=1, prepend=0.0), axis=2, prepend=0.0)
    hp = (joint * weight[:, None, None]).sum(axis=0)
    total = hp.sum()
    return (hp / total if total > 0 else hp), hs


def hand_potential(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1,
                   cards_ahead: int | None = 1) -> tuple[float, float]:
    """Positive and negative potential (PPot, NPot) of a hand on the flop or turn.

    PPot: chance of moving ahead when behind now; NPot: of falling behind
    when ahead; ties count half (Billings et al. 2002).  ``cards_ahead`` 1
    looks one card ahead, None (or 2 on the flop) to the river.  Against
    several opponents the runout is shared and the opponents are treated as
    independent given it.  The river has no potential: (0.0, 0.0).
    """
    hp, _ = _potential_matrix(hole, board, range, opponents, cards_ahead)
    tot = hp.sum(axis=1)
    pden = tot[BEHIND] + tot[TIED] / 2
    nden = tot[AHEAD] + tot[TIED] / 2
    ppot = (hp[BEHIND, AHEAD] + hp[BEHIND, TIED] / 2 + hp[TIED, AHEAD] / 2) / pden if pden > 0 else 0.0
    npot = (hp[AHEAD, BEHIND] + hp[TIED, BEHIND] / 2 + hp[AHEAD, TIED] / 2) / nden if nden > 0 else 0.0
    return float(ppot), float(npot)


def effective_hand_strength(hole: CardsLike, board: CardsLike, range: object = None, opponents: int = 1,
                            cards_ahead: int | None = 1) -> float:
    """Effective hand strength EHS = HS_n + (1 - HS_n) * PPot (Billings et al.)."""
    hs = hand_strength(hole, board, range, opponents)
    ppot, _ = hand_potential(hole, board, range, opponents, cards_ahead)
    return hs + (1 - hs) * ppot
