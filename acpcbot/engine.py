"""The rules of one hand of any ACPC game: turns, legal actions, transitions and payoffs.

This is the one rules engine of the project: the dealer, the client, the
opponent models and every strategy ask it.  It agrees with the reference
dealer (project_acpc_server 1.0.42) on every rule, including its quirks:
raise sizes are raise-TO totals for the hand, a round holds at most 64
actions, and when fewer than two players can act the board runs out with
no more betting.

A :class:`State` is mutable and cheap to apply actions to; ``copy()`` it to
branch.  Cards are optional: a state may know all of them (the dealer),
only what one seat sees (the client) or none (tree building).

The state also answers every fact derived from a hand, so that nobody above
re-derives one: its steps (:meth:`State.steps`: the situation before each
action), what one position may see (:meth:`State.visible_holes`,
:meth:`State.view_of`), the board by round, the pots with the positions
eligible for each (:meth:`State.pots`), the pot after a call and raise
sizes as fractions of it, and which seat plays a position (:func:`seat_of`).
Cards enter a state only through its dealing and showing operations, each
with ``can_``/``verify_`` twins, and one terminal-value function says what
a hand pays (``acpcbot/showdown.py``: :meth:`State.deal_hole`,
:meth:`State.deal_board`, :meth:`State.show`, :meth:`State.payoffs`,
:meth:`State.payoffs_for`, :meth:`State.heads_up_value`).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple, Sequence

from .gamedef import GameDef
from .hand import HandFacts, Pot as Pot, Step as Step, position_of as position_of, seat_of as seat_of  # re-exported
from .showdown import CardsAndPayoffs, DealError as DealError  # re-exported

MAX_NUM_ACTIONS = 64  # the reference engine's per-round action limit


class ActionType(IntEnum):
    """The three action kinds; values match the reference (fold 0, call 1, raise 2)."""

    FOLD = 0
    CALL = 1
    RAISE = 2


class Action(NamedTuple):
    """An action; ``size`` is the raise-TO total for the hand in no-limit games, else 0."""

    type: ActionType
    size: int = 0


FOLD = Action(ActionType.FOLD)
CALL = Action(ActionType.CALL)
RAISE = Action(ActionType.RAISE)  # a limit raise (no size)


def raise_to(size: int) -> Action:
    """A no-limit raise to ``size`` chips spent in the hand."""
    return Action(ActionType.RAISE, int(size))


class IllegalAction(ValueError):
    """An action that the rules do not allow in this state."""


# Warning texts the reference dealer prints when it substitutes an action.
WARN_INVALID = "WARNING: invalid action, changed to call"
WARN_TOO_MANY_ACTIONS = "WARNING: #actions in round is too close to MAX_NUM_ACTIONS, forcing call/fold"


def warn_raise_increased(size: int, new: int) -> str:
    """The reference dealer's warning for a no-limit raise below the minimum."""
    return f"WARNING: raise of {size} increased to {new}"


def warn_raise_decreased(size: int, new: int) -> str:
    """The reference dealer's warning for a no-limit raise above the stack."""
    return f"WARNING: raise of {size} decreased to {new}"


_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
_new = object.__new__


class State(HandFacts, CardsAndPayoffs):
    """One hand in progress: betting so far, chips spent, cards known, whose turn."""

    __slots__ = ("game", "hand_id", "spent", "max_spent", "min_raise_to", "actions", "actors",
                 "round", "finished", "folded", "hole", "board",
                 "_player", "_n_folded", "_n_allin", "_n_called", "_n_raises", "_payoffs")

    def __init__(self, game: GameDef, hand_id: int = 0,
                 hole: Sequence[Sequence[int]] | None = None, board: Sequence[int] = ()) -> None:
        n = game.num_players
        self.game = game
        self.hand_id = hand_id
        self.spent = list(game.blind)
        self.max_spent = max(game.blind)
        if game.is_nolimit:
            # call the biggest blind, then raise by at least that much
            self.min_raise_to = 2 * self.max_spent if self.max_spent else 1
        else:
            self.min_raise_to = 0
        self.actions: list[list[Action]] = [[]]
        self.actors: list[list[int]] = [[]]
        self.round = 0
        self.finished = False
        self.folded = [False] * n
        #: hole cards per position; an empty tuple where unknown
        self.hole: list[tuple[int, ...]] = [tuple(h) for h in hole] if hole is not None else [()] * n
        #: board cards known so far, in dealing order over all rounds
        self.board: list[int] = list(board)
        self._n_folded = 0
        self._n_allin = sum(1 for p in range(n) if self.spent[p] >= game.stack[p])
        self._n_called = 0
        self._n_raises = 0
        self._payoffs: tuple[float, ...] | None = None
        if n - self._n_allin < 1:
            # nobody can act at all (every blind is a whole stack): straight to showdown
            self.finished = True
            self._set_round(game.num_rounds - 1)
            self._player = -1
        else:
            self._player = self._next_player(game.first_player[0] + n - 1)

    # ----------------------------------------------------------------- queries

    def copy(self) -> "State":
        """An independent copy (cards shared, betting copied)."""
        s = _new(State)
        s.game = self.game
        s.hand_id = self.hand_id
        s.spent = self.spent[:]
        s.max_spent = self.max_spent
        s.min_raise_to = self.min_raise_to
        # only the current round's lists ever grow (_do appends there, _set_round adds new ones): the rounds
        # before it are shared, and a copy costs two list copies whatever the round (the client copies per line)
        r = self.round
        actions = self.actions[:]
        actions[r] = actions[r][:]
        s.actions = actions
        actors = self.actors[:]
        actors[r] = actors[r][:]
        s.actors = actors
        s.round = r
        s.finished = self.finished
        s.folded = self.folded[:]
        s.hole = self.hole[:]
        s.board = self.board[:]
        s._player = self._player
        s._n_folded = self._n_folded
        s._n_allin = self._n_allin
        s._n_called = self._n_called
        s._n_raises = self._n_raises
        s._payoffs = self._payoffs
        return s

    @property
    def current_player(self) -> int:
        """Position to act, or -1 when the hand is over."""
        return self._player

    @property
    def pot(self) -> int:
        """All chips put in by all players."""
        return sum(self.spent)

    @property
    def num_folded(self) -> int:
        """Players who have folded."""
        return self._n_folded

    @property
    def num_active(self) -> int:
        """Players who can still act: neither folded nor all-in."""
        return self.game.num_players - self._n_folded - self._n_allin

    @property
    def num_raises(self) -> int:
        """Raises made in the current round."""
        return self._n_raises

    def stack_left(self, player: int) -> int:
        """Chips ``player`` still has behind."""
        return self.game.stack[player] - self.spent[player]

    def is_all_in(self, player: int) -> bool:
        """Whether ``player`` has put in the whole stack."""
        return self.spent[player] >= self.game.stack[player]

    def to_call(self, player: int | None = None) -> int:
        """Chips ``player`` (default: the one to act) must add to call."""
        p = self._player if player is None else player
        stack = self.game.stack[p]
        bet = self.max_spent
        return (bet if bet <= stack else stack) - self.spent[p]  # min(bet, stack): asked at every node of a search

    def acting_order(self) -> list[int]:
        """Positions that can still act (neither folded nor all-in), in this round's order from its first player."""
        n = self.game.num_players
        first = self.game.first_player[self.round]
        stack = self.game.stack
        return [p for p in ((first + k) % n for k in range(n))
                if not self.folded[p] and self.spent[p] < stack[p]]

    def raise_bounds(self) -> tuple[int, int] | None:
        """(min, max) raise-TO for the player to act, or None when no raise is allowed.

        In limit games both bounds are the raise-to the fixed raise leads to.
        """
        return self._raise_bounds()[0]

    def _raise_bounds(self) -> tuple[tuple[int, int] | None, str | None]:
        """Raise bounds plus the warning the reference prints when the action cap blocks a raise."""
        p = self._player
        if p < 0:
            return None, None
        game = self.game
        if self._n_raises >= game.max_raises[self.round]:
            return None, None
        if len(self.actions[self.round]) + game.num_players > MAX_NUM_ACTIONS:
            return None, WARN_TOO_MANY_ACTIONS  # one raise plus everyone calling would pass the cap
        if game.num_players - self._n_folded - self._n_allin <= 1:
            return None, None  # nobody left to call a raise
        stack = game.stack[p]
        if game.is_limit:
            to = self.max_spent + game.raise_size[self.round]
            to = stack if to > stack else to
            return (to, to), None
        lo = self.min_raise_to
        if lo > stack:
            if self.max_spent >= stack:
                return None, None  # cannot even increase the bet
            lo = stack  # only an all-in raise remains
        return (lo, stack), None

    def legal_actions(self) -> tuple[ActionType, ...]:
        """Action types the player to act may take (fold only when facing a bet)."""
        p = self._player
        if p < 0:
            return ()
        can_fold = self.spent[p] < self.max_spent and self.spent[p] < self.game.stack[p]
        can_raise = self._raise_bounds()[0] is not None
        if can_fold:
            return (_F, _C, _R) if can_raise else (_F, _C)
        return (_C, _R) if can_raise else (_C,)

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` may be applied as it is."""
        return self._why_illegal(action) is None

    def _why_illegal(self, action: Action) -> str | None:
        p = self._player
        if p < 0:
            return "the hand is over"
        kind = action[0]
        if kind == _C:
            return None if action[1] == 0 else "a call takes no size"
        if kind == _F:
            if self.spent[p] >= self.max_spent or self.spent[p] >= self.game.stack[p]:
                return "fold is not allowed when there is nothing to call"
            return None if action[1] == 0 else "a fold takes no size"
        if kind == _R:
            bounds = self._raise_bounds()[0]
            if bounds is None:
                return "no raise is allowed here"
            if self.game.is_limit:
                return None if action[1] == 0 else "a limit raise takes no size"
            if not bounds[0] <= action[1] <= bounds[1]:
                return f"raise to {action[1]} is outside the legal range {bounds[0]}..{bounds[1]}"
            return None
        return f"unknown action type {kind!r}"

    def fold_or_check(self) -> Action:
        """Fold when facing a bet, else check (calling nothing): the safe answer, which never folds for free."""
        return FOLD if _F in self.legal_actions() else CALL

    def raise_or_call(self, target: float | None = None) -> Action:
        """A raise to ``target`` chips (for the hand) clamped into the legal range; a call when no raise is allowed.

        In limit games the size is ignored (a raise is ``r``); ``target``
        None means the minimum raise.
        """
        bounds = self.raise_bounds()
        if bounds is None:
            return CALL
        if self.game.is_limit:
            return RAISE
        lo, hi = bounds
        size = lo if target is None else int(round(target))
        return raise_to(min(max(size, lo), hi))

    def fix(self, action: Action) -> tuple[Action, tuple[str, ...]]:
        """The action the reference dealer would play instead, and the warnings it prints.

        An invalid action becomes a call; a no-limit raise outside the legal
        range is clamped to the nearest bound.  A legal action comes back
        unchanged with no warnings.
        """
        if self._player < 0:
            raise IllegalAction("the hand is over: no action can be fixed")
        kind = action[0]
        warnings: list[str] = []
        if kind == _R:
            bounds, warning = self._raise_bounds()
            if warning:
                warnings.append(warning)
            if bounds is None:
                return CALL, tuple(warnings) + (WARN_INVALID,)
            if self.game.is_limit:
                return RAISE, tuple(warnings)
            size = action[1]
            if size < bounds[0]:
                return raise_to(bounds[0]), (warn_raise_increased(size, bounds[0]),)
            if size > bounds[1]:
                return raise_to(bounds[1]), (warn_raise_decreased(size, bounds[1]),)
            return Action(_R, size), ()
        if kind == _F:
            if self._why_illegal(FOLD) is not None:
                return CALL, (WARN_INVALID,)
            return FOLD, ()
        if kind == _C:
            return CALL, ()
        return CALL, (WARN_INVALID,)

    # ----------------------------------------------------------------- actions

    def apply(self, action: Action) -> "State":
        """Apply a legal action for the player to act; raise IllegalAction otherwise."""
        if action[0] == _C and action[1] == 0 and self._player >= 0:
            self._do(action)  # a call is legal whenever someone is to act: the usual line, judged here
            return self
        why = self._why_illegal(action)
        if why is not None:
            raise IllegalAction(f"{why} (round {self.round + 1}, player {self._player})")
        self._do(action)
        return self

    def apply_unchecked(self, action: Action) -> "State":
        """Apply an action already known to be legal (for search and self-play loops)."""
        self._do(action)
        return self

    def _do(self, action: Action) -> None:
        # every state line of a match passes here (the dealer's and each client's): locals, the call first
        game = self.game
        p = self._player
        r = self.round
        self.actions[r].append(action)
        self.actors[r].append(p)
        kind = action[0]
        stack = game.stack[p]
        spent = self.spent
        if kind == _C:
            if self.max_spent >= stack:
                spent[p] = stack
                self._n_allin += 1
            else:
                spent[p] = self.max_spent
                self._n_called += 1
        elif kind == _F:
            self.folded[p] = True
            self._n_folded += 1
        else:
            if game.is_nolimit:
                size = action[1]
                # the next raise must call this bet and raise by at least as much
                nxt = size + size - self.max_spent
                if nxt > self.min_raise_to:
                    self.min_raise_to = nxt
                self.max_spent = size
            else:
                to = self.max_spent + game.raise_size[r]
                self.max_spent = stack if to > stack else to
            spent[p] = self.max_spent
            self._n_raises += 1
            if self.max_spent >= stack:
                self._n_allin += 1
                self._n_called = 0
            else:
                self._n_called = 1  # the raiser has called its own bet

        n = game.num_players
        folded_n = self._n_folded
        if folded_n + 1 >= n:
            self.finished = True
            self._player = -1
            return
        acting = n - folded_n - self._n_allin
        if self._n_called >= acting:
            if acting > 1:
                if r + 1 < game.num_rounds:
                    self._set_round(r + 1)
                    self.min_raise_to = max(1, max(game.blind)) + self.max_spent
                    self._player = self._next_player(game.first_player[r + 1] + n - 1)
                    return
                self.finished = True
            else:
                # fewer than two can act: the rest of the board is dealt with no betting
                self.finished = True
                self._set_round(game.num_rounds - 1)
            self._player = -1
            return
        self._player = self._next_player(p)

    def _set_round(self, r: int) -> None:
        while len(self.actions) <= r:
            self.actions.append([])
            self.actors.append([])
        self.round = r
        self._n_called = 0
        self._n_raises = 0

    def _next_player(self, current: int) -> int:
        n = self.game.num_players
        stack = self.game.stack
        folded = self.folded
        spent = self.spent
        p = current
        for _ in range(n):
            p = (p + 1) % n
            if not folded[p] and spent[p] < stack[p]:
                return p
        return -1
