"""What is derived from a hand, asked of the engine's state: its steps, each position's view, board by round, pots, fractions, seats.

:class:`HandFacts` is part of ``engine.State`` (its base class): the state
owns these facts so that the dealer, the client, the statistics, the
opponent models and the strategies all read them from one place instead
of replaying or re-deriving a hand.  Only derived facts live here; the
rules themselves (turns, legality, transitions, payoffs) are in
``engine.py``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple, Self, cast

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .engine import Action, State
    from .gamedef import GameDef


def seat_of(position: int, hand_id: int, num_players: int, fixed: bool = False) -> int:
    """The seat playing ``position`` in hand ``hand_id``: seats rotate every hand (seat (p + h) mod N) unless fixed."""
    return position if fixed else (position + hand_id) % num_players


def position_of(seat: int, hand_id: int, num_players: int, fixed: bool = False) -> int:
    """The position ``seat`` plays in hand ``hand_id`` (the inverse of :func:`seat_of`)."""
    return seat if fixed else (seat - hand_id) % num_players


class Step(NamedTuple):
    """One action of a hand and the situation it was taken in."""

    #: 0-based over the whole hand
    index: int  # type: ignore[assignment]  # the step's number; shadows tuple.index, which nobody calls on a Step
    round: int
    player: int
    action: Action
    #: the hand just before the action: an independent copy holding the same cards as the state it came from
    before: "State"
    #: chips the action put in
    added: int


class Pot(NamedTuple):
    """One pot: its chips and the positions that can win it (those in the hand who put in its level)."""

    amount: int
    eligible: tuple[int, ...]


class HandFacts:
    """The derived facts of a hand; mixed into ``engine.State``, whose fields and rules they read."""

    if TYPE_CHECKING:
        # the engine's State provides these; declared here so the facts type-check against what they read
        game: GameDef
        hand_id: int
        hole: list[tuple[int, ...]]
        board: list[int]
        spent: list[int]
        max_spent: int
        folded: list[bool]
        actions: list[list[Action]]
        actors: list[list[int]]
        round: int
        finished: bool

        def __init__(self, game: GameDef, hand_id: int = 0, hole: Sequence[Sequence[int]] | None = None,
                     board: Sequence[int] | None = None) -> None: ...
        def copy(self) -> Self: ...
        def _do(self, action: Action) -> None: ...
        def to_call(self, player: int | None = None) -> int: ...
        def shown_players(self) -> list[int]: ...
        def deal_hole(self, position: int, cards: Sequence[int]) -> Self: ...
        @property
        def pot(self) -> int: ...
        @property
        def current_player(self) -> int: ...
    else:
        __slots__ = ()  # State lists the slots; hidden from mypy, which would read them as this class's only ones

    @property
    def num_actions(self) -> int:
        """Actions taken in the hand so far, all rounds."""
        return sum(len(a) for a in self.actions)

    def steps(self, start: int = 0) -> list[Step]:
        """The hand's actions from the ``start``-th on (0-based), each with the situation before it.

        Replayed from the blinds with this state's cards; every ``before``
        is an independent copy, so callers may keep it.
        """
        replay = type(self)(self.game, self.hand_id, self.hole, self.board)
        spent = replay.spent
        out = []
        i = 0
        for r, (acts, actors) in enumerate(zip(self.actions, self.actors)):
            for action, p in zip(acts, actors):
                if i >= start:
                    before = replay.copy()
                    replay._do(action)
                    out.append(Step(i, r, p, action, cast("State", before), spent[p] - before.spent[p]))
                else:
                    replay._do(action)
                i += 1
        return out

    def board_by_round(self) -> tuple[tuple[int, ...], ...]:
        """The board cards of each round through the current one (round 0 included, usually empty)."""
        nb = self.game.num_board_cards
        cards = self.board
        out = []
        start = 0
        for r in range(self.round + 1):
            out.append(tuple(cards[start:start + nb[r]]))
            start += nb[r]
        return tuple(out)

    def visible_board(self) -> list[int]:
        """The board cards dealt through the current round (a dealer's state knows the later ones too)."""
        return self.board[:self.game.board_cards_through(self.round)]

    def visible_positions(self, viewer: int | None) -> list[int]:
        """Positions whose hole cards ``viewer`` sees: its own, and at the end those shown down; None: every position."""
        if viewer is None:
            return list(range(self.game.num_players))
        shown = self.shown_players()
        if viewer in shown:
            return shown
        return sorted(shown + [viewer])

    def visible_holes(self, viewer: int | None) -> list[tuple[int, ...]]:
        """Hole cards per position as ``viewer`` sees them: ``()`` where hidden; None: all of them."""
        if viewer is None:
            return self.hole[:]
        seen = self.visible_positions(viewer)
        return [tuple(h) if p in seen else () for p, h in enumerate(self.hole)]

    def view_of(self, viewer: int, holding: Sequence[int] | None = None) -> Self:
        """A copy holding only what ``viewer`` may see: its own hole cards, those shown at the end, the board so far.

        ``holding``: the cards the viewer holds in the view instead of its
        own (a guess at an unseen player's, as a best response makes); they
        must not clash with the other cards it sees (``DealError``).  Its
        ``hole`` and ``board`` are lists of its own.
        """
        view = self.copy()
        if self.finished:
            view.hole = self.visible_holes(viewer)
        else:
            # nothing is shown before the end: the viewer's own cards only (the in-memory dealer asks this per action)
            hole: list[tuple[int, ...]] = [()] * len(self.hole)
            hole[viewer] = tuple(self.hole[viewer])
            view.hole = hole
        view.board = self.board[:self.game.board_cards_through(self.round)]
        if holding is not None:
            view.hole[viewer] = ()
            view.deal_hole(viewer, holding)
        return view

    def pots(self) -> list[Pot]:
        """The main pot and side pots, in order: one per contribution level of the players still in.

        Each holds every player's chips up to its level (folded players'
        too) and can be won by the players still in who reached the level.
        """
        n = self.game.num_players
        spent = self.spent
        live = [p for p in range(n) if not self.folded[p]]
        levels = sorted({spent[p] for p in live})
        out = []
        below = 0
        for i, level in enumerate(levels):
            top = max(spent) if i == len(levels) - 1 else level  # chips above the last level stay in the last pot
            amount = sum(min(c, top) - min(c, below) for c in spent)
            out.append(Pot(amount, tuple(p for p in live if spent[p] >= level)))
            below = level
        return out

    def pot_within_reach(self, player: int) -> int:
        """Chips of the pots ``player`` could win were it all in: each contribution counted up to its whole stack
        (with it all in, the total of the :meth:`pots` it is eligible for)."""
        cap = self.game.stack[player]
        return sum(min(s, cap) for s in self.spent)

    def pot_after_call(self, player: int | None = None) -> int:
        """The pot once ``player`` (default: the one to act) has called."""
        return self.pot + self.to_call(player)

    def pot_after_raise_called(self, target: int, player: int | None = None) -> int:
        """The pot once ``player`` (default: the one to act) raises to ``target`` and a player at the current bet
        calls it (heads-up: the opponent)."""
        who = self.current_player if player is None else player
        return self.pot + (target - self.spent[who]) + (target - self.max_spent)

    def raise_fraction(self, size: int) -> float:
        """A raise to ``size`` by the player to act, as a fraction of the pot after calling (1.0: a pot-sized raise)."""
        after_call = self.pot_after_call()
        return (size - self.max_spent) / after_call if after_call > 0 else 1.0

    def raise_to_fraction(self, fraction: float, player: int | None = None) -> int:
        """The raise-to of a raise by ``fraction`` of the pot after calling (unclamped; 1.0: pot-sized)."""
        return self.max_spent + int(round(fraction * self.pot_after_call(player)))

    def bet_to_pot(self, player: int | None = None) -> float:
        """The bet ``player`` (default: the one to act) faces, over the pot before it (inf when nothing was in before)."""
        to_call = self.to_call(player)
        before = self.pot - to_call
        return to_call / before if before > 0 else math.inf

    def seat_of(self, position: int, fixed: bool = False) -> int:
        """The seat playing ``position`` in this hand (see :func:`seat_of`)."""
        return seat_of(position, self.hand_id, self.game.num_players, fixed)
