"""A blueprint whose later rounds are re-solved, behind the blueprint's own probabilities interface.

Players that stand on a blueprint (``adaptive``'s floor, the ``blueprint``
strategy) ask it for one holding's row or every holding's rows; this wraps
a blueprint table and a :class:`~acpcbot.solve.resolving.player.Resolver`
so that the same two calls answer with the re-solved rows where the
resolver plays and the table's elsewhere, or when a solve was cut short.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ...engine import State
from ...holdings import holding_index
from .player import Resolver


class RowTable(Protocol):
    """What a blueprint table answers: one holding's (3,) row, or every holding's (holdings, 3) rows."""

    def probabilities(self, state: State, hole: tuple[int, int] | None = None) -> np.ndarray:
        """Fold/call/raise probabilities of the player to act holding ``hole`` (default: its own cards)."""

    def probabilities_all(self, state: State) -> np.ndarray:
        """Fold/call/raise probabilities of every holding for the player to act."""


class ResolvingTable:
    """``table``'s rows, re-solved by ``resolver`` in the rounds it plays (the table's when a solve is cut short)."""

    def __init__(self, table: RowTable, resolver: Resolver) -> None:
        self.table = table
        self.resolver = resolver

    def probabilities_all(self, state: State, deadline: float | None = None, cap: bool = True) -> np.ndarray:
        """(holdings, 3) rows of every holding for the player to act; ``deadline`` is a ``time.monotonic()``."""
        if self.resolver.active(state):
            rows = self.resolver.rows(state, deadline, cap)
            if rows is not None:
                return rows
        return self.table.probabilities_all(state)

    def probabilities(self, state: State, hole: tuple[int, int] | None = None,
                      deadline: float | None = None) -> np.ndarray:
        """(3,) row of the player to act holding ``hole`` (default: its own cards)."""
        if not self.resolver.active(state):
            return self.table.probabilities(state, hole)
        rows = self.resolver.rows(state, deadline)
        if rows is None:
            return self.table.probabilities(state, hole)
        cards = state.hole[state.current_player] if hole is None else hole
        return rows[holding_index(state.game, cards)]
