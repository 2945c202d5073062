"""The private holdings of a game: every set of hole cards one seat can be dealt, in a fixed order.

A holding is ``num_hole_cards`` distinct cards of the game's deck, written
ascending; the holdings are listed in lexicographic order, so row ``i`` of
:func:`holdings` is holding ``i`` everywhere (policies, ranges, equity
vectors).  For Texas hold'em this is exactly ``acpcbot.evaluator.PAIRS``
(1,326 pairs); for Kuhn and Leduc it is the deck's cards, one per row.

This module sits beside ``cards`` and ``gamedef`` and imports nothing above
them, so the engine's neighbours and every strategy can use it.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterable

import numpy as np

from .cards import card_to_text, deck
from .gamedef import GameDef

#: the most holdings a game may have before we refuse to list them (hold'em: 1,326)
MAX_HOLDINGS = 200_000


@lru_cache(maxsize=32)
def _table(num_ranks: int, num_suits: int, num_hole: int) -> tuple[np.ndarray, dict[tuple[int, ...], int], np.ndarray]:
    cards = deck(num_ranks, num_suits)
    rows = list(itertools.combinations(cards, num_hole))
    if len(rows) > MAX_HOLDINGS:
        raise ValueError(f"a game with {len(cards)} cards and {num_hole} hole cards has {len(rows):,} holdings, "
                         f"above the limit of {MAX_HOLDINGS:,}")
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), num_hole)
    arr.setflags(write=False)
    index = {row: i for i, row in enumerate(rows)}
    # membership[i, c]: holding i holds card c (cards are 0..51 whatever the deck)
    member = np.zeros((len(rows), 52), dtype=bool)
    if len(rows):
        member[np.repeat(np.arange(len(rows)), num_hole), arr.ravel()] = True
    member.setflags(write=False)
    return arr, index, member


def _key(game: GameDef) -> tuple[int, int, int]:
    return game.num_ranks, game.num_suits, game.num_hole_cards


def holdings(game: GameDef) -> np.ndarray:
    """Every holding of ``game`` as a read-only (H, k) int64 array: rows ascending, in lexicographic order."""
    return _table(*_key(game))[0]


def num_holdings(game: GameDef) -> int:
    """How many holdings ``game`` has (1,326 in hold'em, the deck size with one hole card)."""
    return len(holdings(game))


def holding_index(game: GameDef, cards: Iterable[int]) -> int:
    """The row of :func:`holdings` holding exactly ``cards`` (any order); ValueError naming the cards otherwise."""
    key = tuple(sorted(int(c) for c in cards))
    index = _table(*_key(game))[1].get(key)
    if index is None:
        text = "".join(card_to_text(c) if 0 <= c < 52 else f"<{c}>" for c in key)
        raise ValueError(f"{text or 'no cards'} is not a holding of {game.name or 'this game'} "
                         f"({game.num_hole_cards} distinct hole cards of its deck)")
    return index


def blocked(game: GameDef, cards: Iterable[int]) -> np.ndarray:
    """Bool array over the holdings: True where the holding shares a card with ``cards``."""
    member = _table(*_key(game))[2]
    idx = [int(c) for c in cards if 0 <= int(c) < 52]
    if not idx:
        return np.zeros(len(member), dtype=bool)
    return member[:, idx].any(axis=1)  # type: ignore[return-value]  # numpy's stub: of a 2-D array, an array


def holds(game: GameDef) -> np.ndarray:
    """Read-only (H, 52) bool array: ``holds(game)[i, c]`` says holding ``i`` holds card ``c``."""
    return _table(*_key(game))[2]
