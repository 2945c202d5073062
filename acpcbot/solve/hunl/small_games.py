"""Small games through the HUNL trainer: Kuhn and Leduc deals as keys, and the exact exploitability of the result.

``CardDeals`` draws the real cards of a one-hole-card game (Kuhn, Leduc)
and gives each player's key per round: the rank of the hole card, then
the board's ranks after it, so the trainer's table is the game's own
information sets (suits are irrelevant to these games' showdowns).
``exact_exploitability`` turns the trainer's average strategy into the
exact solver's strategy array and measures it with the exact best
response (``acpcbot.solve.best_response``): a known answer to converge to.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np

from ...cards import deck
from ...gamedef import GameDef
from ..best_response import Exploitability, exploitability
from ..tree import ACTION_TYPES, build_tree
from .mccfr import MCCFR


class CardDeals:
    """Deals of a 2-player game with one hole card each: keys from ranks, outcome from the game's showdown."""

    def __init__(self, game: GameDef) -> None:
        if game.num_players != 2 or game.num_hole_cards != 1:
            raise ValueError(f"{game.name or 'this game'}: CardDeals takes 2-player games with one hole card")
        self.game = game
        self.cards = list(deck(game.num_ranks, game.num_suits))
        self.low = min(c >> 2 for c in self.cards)
        self.num_ranks = game.num_ranks
        self.through = [game.board_cards_through(r) for r in range(game.num_rounds)]
        self.rank = game.ranking_for_showdown
        self.widths = tuple(game.num_ranks ** (1 + n) for n in self.through)

    def key(self, hole: int, board: list[int], round_: int) -> int:
        """The key of a hole card on the board dealt by ``round_``: ranks as base-``num_ranks`` digits."""
        k = (hole >> 2) - self.low
        for c in board[:self.through[round_]]:
            k = k * self.num_ranks + (c >> 2) - self.low
        return k

    def deal(self, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """One deal: the two players' keys per round and player 0's showdown outcome."""
        cards = rng.sample(self.cards, 2 + self.through[-1])
        h0, h1, board = cards[0], cards[1], cards[2:]
        rounds = range(self.game.num_rounds)
        v0, v1 = self.rank([h0, *board]), self.rank([h1, *board])
        return (tuple(self.key(h0, board, r) for r in rounds), tuple(self.key(h1, board, r) for r in rounds),
                (v0 > v1) - (v0 < v1))


def exact_exploitability(trainer: MCCFR, deals: CardDeals) -> Exploitability:
    """The exact exploitability of the trainer's average strategy (the game's own exact tree and best response)."""
    game = deals.game
    exact = build_tree(game)
    sigma = exact.uniform()
    tree = trainer.tree
    for d, node in enumerate(exact.dec_node):
        state = exact.states[node]
        n = 0
        for r, acts in enumerate(state.actions):
            for a in acts:
                child = tree.child(n, a)
                assert child is not None and child >= 0, f"no tree node for {state.actions}"
                n = child
        board = list(exact.boards[node])
        cols = [ACTION_TYPES.index(a[0]) for a in tree.actions[n]]
        for i in np.flatnonzero(exact.compat[node]):
            row = trainer.average_row(n, deals.key(exact.hands[i][0], board, state.round))
            sigma[d, :, i] = 0.0
            for col, p in zip(cols, row):
                sigma[d, col, i] = p
    return exploitability(exact, sigma)


def all_deals(deals: CardDeals) -> int:
    """How many ordered deals the game has (for the docs of a test's bound)."""
    return sum(1 for _ in combinations(deals.cards, 2 + deals.through[-1]))
