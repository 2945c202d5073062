"""Deals bit-identical to the reference dealer: MT19937 seeded with ``init_genrand``.

In acpcbot's core, beside the cards, so that both the dealer and the log checker
(``acpcbot.logcheck``, which checks a log's cards against its seed) deal from it.

The standard library's ``random.Random`` is an MT19937 whose
``getrandbits(32)`` returns exactly ``genrand_int32()``; only its seeding
differs, so the state is computed with the reference's ``init_genrand``
and loaded with ``setstate``.  That keeps dealing at C speed.
"""

from __future__ import annotations

import random

from acpcbot.cards import dealing_order
from acpcbot.gamedef import GameDef

_N = 624


def mt19937(seed: int) -> random.Random:
    """A generator whose ``getrandbits(32)`` yields the reference's ``genrand_int32`` stream for ``seed``."""
    mt = [0] * _N
    mt[0] = seed & 0xFFFFFFFF
    for i in range(1, _N):
        prev = mt[i - 1]
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
    rng = random.Random()
    rng.setstate((3, tuple(mt) + (_N,), None))
    return rng


class Dealer:
    """Deals hands of one game from one seed, in the reference's order."""

    def __init__(self, game: GameDef, seed: int) -> None:
        self.game = game
        self.rng = mt19937(seed)
        self._deck = dealing_order(game.num_ranks, game.num_suits)
        self._per_hand = game.num_players * game.num_hole_cards + game.total_board_cards

    def deal(self) -> tuple[list[tuple[int, ...]], list[int]]:
        """The next hand's hole cards per position and its whole board.

        Every card of the hand is dealt up front, whatever the betting: each
        card is ``deck[i]`` with ``i = genrand_int32() % n``, then the last of
        the ``n`` remaining cards takes its place.
        """
        deck = self._deck[:]
        bits = self.rng.getrandbits
        n = len(deck)
        cards = []
        for _ in range(self._per_hand):
            i = bits(32) % n
            cards.append(deck[i])
            n -= 1
            deck[i] = deck[n]
        k = self.game.num_hole_cards
        np_ = self.game.num_players
        hole = [tuple(cards[p * k:(p + 1) * k]) for p in range(np_)]
        return hole, cards[np_ * k:]
