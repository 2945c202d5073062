"""Hand ranking for showdowns: treys-exact for five to seven cards, generic otherwise."""

from __future__ import annotations

from typing import Sequence

from treys import Evaluator as _TreysEvaluator

from .cards import TREYS_INT

_TREYS = _TreysEvaluator()
_TREYS_WORST = 7462

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
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    if len(cards) >= 5:
        by_suit: dict[int, list[int]] = {}
        for c in cards:
            by_suit.setdefault(c & 3, []).append(c >> 2)
        flush = max(by_suit.values(), key=len)
        if len(flush) >= 5:
            top = _straight_top(set(flush))
            if top >= 0:
                return _pack(STRAIGHT_FLUSH, [top])
    # groups by (count, rank), biggest first
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    if groups[0][0] >= 4:
        quad = groups[0][1]
        return _pack(QUADS, [quad] + [r for r in ranks if r != quad][:1])
    if groups[0][0] == 3 and len(groups) > 1 and groups[1][0] >= 2:
        return _pack(FULL_HOUSE, [groups[0][1], groups[1][1]])
    if len(cards) >= 5:
        if len(flush) >= 5:
            return _pack(FLUSH, sorted(flush, reverse=True)[:5])
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

    Five to seven cards use treys (value 7463 - treys rank); other counts the
    generic ranking.  Compare values only between hands of the same size.
    """
    n = len(cards)
    if 5 <= n <= 7:
        t = TREYS_INT
        tc = [t[c] for c in cards]
        return _TREYS_WORST + 1 - _TREYS.evaluate(tc[:2], tc[2:])
    return generic_value(cards)
