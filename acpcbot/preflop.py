"""Preflop tables of hold'em: the 169 hand classes, their equity, Chen score, groups, rankings.

A class is ``'AA'`` (a pair: 6 combos), ``'AKs'`` (suited: 4) or ``'AKo'``
(offsuit: 12), higher rank first.  The equity table is exact and ships as
data (``acpcbot/data/preflop_equity.csv``, made by
``tools/make_preflop_equity.py``); the Chen score, the Sklansky–Malmuth
groups and the utility player's ranking follow docs/studies.md
(sections 2 and 3).
"""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources
from typing import Iterable, Mapping, Union

import numpy as np

from .cards import RANK_CHARS, CardError, parse_card
from .evaluator import PAIRS

_DESC = RANK_CHARS[::-1]  # 'AKQJT98765432'


def _make_classes() -> tuple[str, ...]:
    pairs = [r + r for r in _DESC]
    suited = [_DESC[i] + _DESC[j] + "s" for i in range(13) for j in range(i + 1, 13)]
    offsuit = [_DESC[i] + _DESC[j] + "o" for i in range(13) for j in range(i + 1, 13)]
    return tuple(pairs + suited + offsuit)


#: The 169 classes: the 13 pairs (AA..22), the 78 suited (AKs..32s), the 78 offsuit (AKo..32o).
CLASSES: tuple[str, ...] = _make_classes()
CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASSES)}

CardLike = Union[int, str]


def _card(card: CardLike, what: str) -> int:
    if isinstance(card, str):
        try:
            return parse_card(card)
        except CardError as e:
            raise CardError(f"{what}: {e}") from None
    if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) or not 0 <= card < 52:
        raise ValueError(f"{what}: a card is an int 0..51 or text like 'As', got {card!r}")
    return int(card)


def _two_cards(c1: CardLike, c2: CardLike) -> tuple[int, int]:
    a, b = _card(c1, "c1"), _card(c2, "c2")
    if a == b:
        raise ValueError(f"c1 and c2 are the same card ({RANK_CHARS[a >> 2]}{'cdhs'[a & 3]})")
    return a, b


def hand_class(c1: CardLike, c2: CardLike) -> str:
    """Class of a hole pair: 'AKs', 'T9o', '77'."""
    a, b = _two_cards(c1, c2)
    hi, lo = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
    if hi == lo:
        return RANK_CHARS[hi] * 2
    return RANK_CHARS[hi] + RANK_CHARS[lo] + ("s" if a & 3 == b & 3 else "o")


def _check_class(cls: str) -> str:
    if not isinstance(cls, str) or cls not in CLASS_INDEX:
        raise ValueError(f"unknown hand class {cls!r} (expected e.g. 'AA', 'AKs', 'T9o', higher rank first)")
    return cls


#: PAIR_CLASS[i]: index in CLASSES of the class of hole pair i (see evaluator.pair_index).
PAIR_CLASS = np.array([CLASS_INDEX[hand_class(int(a), int(b))] for a, b in PAIRS], dtype=np.int64)
PAIR_CLASS.setflags(write=False)


def class_combos(cls: str) -> list[tuple[int, int]]:
    """The hole pairs (lower card first) of a class: 6, 4 or 12 of them."""
    i = CLASS_INDEX[_check_class(cls)]
    return [(int(a), int(b)) for a, b in PAIRS[PAIR_CLASS == i]]


def class_range(classes: Union[Mapping[str, float], Iterable[str]]) -> np.ndarray:
    """A range (1326 weights) from classes: an iterable (weight 1) or a class -> weight mapping."""
    items = classes.items() if isinstance(classes, Mapping) else ((c, 1.0) for c in classes)
    weights = np.zeros(len(CLASSES))
    for cls, w in items:
        if not (isinstance(w, (int, float, np.integer, np.floating)) and math.isfinite(w) and w >= 0):
            raise ValueError(f"class_range: weight of {cls!r} must be a finite number >= 0, got {w!r}")
        weights[CLASS_INDEX[_check_class(cls)]] = w
    return weights[PAIR_CLASS]


# ---------------------------------------------------------------------------
# Equity against a random hand
# ---------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _load_counts() -> np.ndarray:
    """(169, 3) int64: deals won, tied, dealt per class, from the shipped data file."""
    text = resources.files("acpcbot").joinpath("data/preflop_equity.csv").read_text()
    rows = [line.split(",") for line in text.splitlines()[1:] if line.strip()]
    counts = np.zeros((len(CLASSES), 3), dtype=np.int64)
    seen = set()
    for row in rows:
        cls = _check_class(row[0])
        counts[CLASS_INDEX[cls]] = [int(row[2]), int(row[3]), int(row[4])]
        seen.add(cls)
    if len(seen) != len(CLASSES):
        raise ValueError(f"preflop_equity.csv: {len(CLASSES) - len(seen)} classes missing")
    counts.setflags(write=False)
    return counts


def preflop_equity(cls: str) -> float:
    """Exact heads-up all-in equity (ties half) of a class against a random hand (AA: 0.8520)."""
    win, tie, deals = _load_counts()[CLASS_INDEX[_check_class(cls)]]
    return float((win + tie / 2) / deals)


def preflop_win_tie(cls: str) -> tuple[float, float]:
    """Win and tie shares of a class all-in against a random hand."""
    win, tie, deals = _load_counts()[CLASS_INDEX[_check_class(cls)]]
    return float(win / deals), float(tie / deals)


def preflop_equity_table() -> dict[str, float]:
    """Every class's equity against a random hand."""
    return {cls: preflop_equity(cls) for cls in CLASSES}


# ---------------------------------------------------------------------------
# Chen score, Sklansky–Malmuth groups, the utility player's ranking
# ---------------------------------------------------------------------------

_CHEN_HIGH = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}  # A K Q J; others: face value / 2
_CHEN_GAP = {0: 0, 1: 1, 2: 2, 3: 4}  # four or more ranks apart: 5


def chen_score(c1: CardLike, c2: CardLike) -> int:
    """Bill Chen's preflop score of a hole pair, half points rounded up (AA 20, AKs 12, 72o -1)."""
    a, b = _two_cards(c1, c2)
    hi, lo = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
    score = _CHEN_HIGH.get(hi, (hi + 2) / 2)
    if hi == lo:
        score = max(score * 2, 5.0)
    else:
        if a & 3 == b & 3:
            score += 2
        gap = hi - lo - 1
        score -= _CHEN_GAP.get(gap, 5)
        if gap <= 1 and hi < 10:  # both below a queen
            score += 1
    return math.floor(score + 0.5)


def _expand(spec: str) -> list[str]:
    out = []
    for token in spec.split():
        if token == "Axs":
            out += ["A" + r + "s" for r in "98765432"]
        elif token == "Kxs":
            out += ["K" + r + "s" for r in "8765432"]
        else:
            out.append(token)
    return out


# Sklansky–Malmuth groups as the 2020 study lists them (docs/studies.md).
_SM_GROUPS = (
    "AA KK QQ JJ AKs",
    "TT AQs AJs KQs AKo",
    "99 JTs QJs KJs ATs AQo",
    "T9s KQo 88 QTs 98s J9s AJo KTs",
    "77 87s Q9s T8s KJo QJo JTo 76s 97s Axs 65s",
    "66 ATo 55 86s KTo QTo 54s K9s J8s 75s",
    "44 J9o 64s T9o 53s 33 98o 43s 22 Kxs T7s Q8s",
    "87o A9o Q9o 76o 42s 32s 96s 85s J8o J7s 65o 54o 74s K9o T8o",
)
SM_GROUP: dict[str, int] = {cls: g for g, spec in enumerate(_SM_GROUPS, 1) for cls in _expand(spec)}


def sm_group(c1: CardLike, c2: CardLike) -> int:
    """Sklansky–Malmuth group 1..8 of a hole pair, 9 when it is in none."""
    return SM_GROUP.get(hand_class(c1, c2), 9)


# The utility player's ranking (docs/studies.md, the 2017 study), best first.
UTILITY_RANKING: tuple[str, ...] = tuple("""
AA KK QQ AKs JJ AQs KQs AJs KJs TT AKo ATs QJs KTs QTs JTs 99 AQo A9s KQo
88 K9s T9s A8s Q9s J9s AJo A5s 77 A7s KJo A4s A3s A6s QJo 66 K8s T8s A2s
98s J8s ATo Q8s K7s KTo 55 JTo 87s QTo 44 33 22 K6s 97s K5s 76s T7s K4s
K3s K2s Q7s 86s 65s J7s 54s Q6s 75s 96s Q5s 64s Q4s Q3s T9o T6s Q2s A9o
53s 85s J6s J9o K9o J5s Q9o 43s 74s J4s J3s 95s J2s 63s A8o 52s T5s 84s
T4s T3s 42s T2s 98o T8o A5o A7o 73s A4o 32s 94s 93s J8o A3o 62s 92s K8o
A6o 87o Q8o 83s A2o 82s 97o 72s 76o K7o 65o T7o K6o 86o 54o K5o J7o 75o
Q7o K4o K3o 96o K2o 64o Q6o 53o 85o T6o Q5o 43o Q4o Q3o 74o Q2o J6o 63o
J5o 95o 52o J4o J3o 42o J2o 84o T5o T4o 32o T3o 73o T2o 62o 94o 93o 92o
83o 82o 72o
""".split())
_UTILITY_RANK = {cls: i for i, cls in enumerate(UTILITY_RANKING, 1)}


def utility_rank(cls: str) -> int:
    """Rank 1 (AA) .. 169 (72o) of a class in the utility player's ranking."""
    return _UTILITY_RANK[_check_class(cls)]
