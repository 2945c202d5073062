"""Fixed probes: card-blind players with one simple rule each, to measure how well a player exploits them.

``probe:kind=K`` plays, whatever its cards:

- ``jam``: all-in whenever it may raise (a limit raise in limit games), else call;
- ``minraise``: the minimum raise whenever it may raise, else call;
- ``call``: check or call, always;
- ``betpot``: check or call before the river; on the river a pot-sized bet or
  raise whenever it may raise, else call.

Never folds.  Each probe also states its policy exactly (:class:`ProbePolicy`,
the opponent policy ``adaptive.search`` reads), so a best response to it can
be computed and checked (``adaptive:opponent=probe:kind=K``).

``probe-br:kind=K`` is the best response to probe K in heads-up hold'em.
Since a probe's cards never change what it does, its range stays uniform,
and the best response needs only our equity against a random hand.  Where
it has a closed form (module :func:`best_response_action`: ``jam``,
``call`` and ``betpot`` in no-limit, ``call`` in limit) that is played
(exact: the preflop table, then enumeration); otherwise (``minraise`` in
no-limit, ``jam``, ``minraise`` and ``betpot`` in limit) a search over the
rest of the hand, ``acpcbot.measure.blind_br`` (exact from the flop on for
its action set: in no-limit fold, call, a pot-sized raise once a round and
all-in; preflop over sampled boards).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np

from ..engine import CALL, RAISE, Action, ActionType, State, raise_to
from ..evaluator import equity
from ..gamedef import GameDef
from ..measure.blind_br import BlindBestResponse
from ..preflop import hand_class, preflop_equity
from ..world import View
from .base import INLINE_ENDS, Param, RunMode, Strategy
from .common import holdem_only
from .registration import register

KINDS = ("jam", "minraise", "call", "betpot")


def probe_action(kind: str, state: State) -> Action:
    """What probe ``kind`` plays in ``state`` (it is to act)."""
    bounds = state.raise_bounds()
    if bounds is None or kind == "call":
        return CALL
    if kind == "betpot" and state.round < state.game.num_rounds - 1:
        return CALL
    if state.game.is_limit:
        return RAISE
    lo, hi = bounds
    if kind == "jam":
        return raise_to(hi)
    if kind == "minraise":
        return raise_to(lo)
    return raise_to(min(max(state.raise_to_fraction(1.0), lo), hi))


class ProbePolicy:
    """A probe's exact policy as the search reads it: the same action for every strength bin."""

    def __init__(self, kind: str, num_bins: int) -> None:
        self.kind = kind
        self.num_bins = num_bins

    def probs(self, state: State, hist: np.ndarray | None) -> np.ndarray:
        """One-hot (fold, call, raise) rows: the probe's action, whatever its bin."""
        out = np.zeros((3, self.num_bins))
        out[int(probe_action(self.kind, state).type)] = 1.0
        return out

    def raise_to(self, state: State) -> Action:
        """The probe's raise where it raises."""
        action = probe_action(self.kind, state)
        return action if action.type == ActionType.RAISE else RAISE if state.game.is_limit else \
            raise_to(state.raise_bounds()[0])  # type: ignore[index]


@register
class ProbeStrategy(Strategy):
    """A card-blind probe (module docstring): never folds, raises by one fixed rule."""

    name = "probe"
    description = "card-blind probes for measuring exploitation: jam, minraise, call or betpot (pot on the river)."
    params: ClassVar[dict[str, Param]] = {
        "kind": Param(str, "jam", "the rule", choices=KINDS),
    }
    run_mode = INLINE_ENDS

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)

    def act(self, view: View, deadline: float) -> Action:
        """The probe's action."""
        return probe_action(self.kind, view.state)  # type: ignore[attr-defined]


# --------------------------------------------------------------------- the exact best responses

#: the probes whose best response has the closed form below, per betting type
BEST_RESPONSE_KINDS = {"nolimit": ("jam", "call", "betpot"), "limit": ("call",)}


def equity_vs_random(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Our showdown equity (ties half) against a uniformly random hand: exact (preflop from the table)."""
    if not board:
        return preflop_equity(hand_class(*hole))
    return equity(hole, board, 1, exact=True).equity


def best_response_action(kind: str, state: State, me: int, hole: tuple[int, ...]) -> Action:
    """The exact best response to probe ``kind`` where we act in ``state`` holding ``hole``.

    - jam (no-limit): it puts its stack in at once, so only the preflop
      matters: play (and call its all-in) iff stack x (2 eq - 1) beats what
      folding now loses.
    - call (no-limit): it calls every bet and never bets, so betting before
      the river only spends chips we could bet knowing more: check to the
      river, then all-in iff our equity there beats 1/2.
    - betpot (no-limit): as call before the river; on the river all-in iff
      equity > 1/2 (it calls), else check and call its pot-sized bet iff the
      equity beats the pot odds of 1/3.
    - call (limit): every street is one bet it calls: bet or raise iff the
      equity now beats 1/2 (a street's bets cannot be carried to a later one).
    """
    game = state.game
    board = tuple(state.visible_board())
    eq = equity_vs_random(hole, board)
    to_call = state.to_call(me)
    bounds = state.raise_bounds()
    if game.is_limit:
        if bounds is not None and eq > 0.5 and state.num_raises == 0:
            return RAISE
        return CALL
    stack = game.stack[me]
    river = state.round == game.num_rounds - 1
    if kind == "jam":
        if to_call > 0 and stack * (2 * eq - 1) <= -state.spent[me]:
            return state.fold_or_check()
        return CALL
    if not river:
        return CALL
    if eq > 0.5 and bounds is not None:
        return raise_to(bounds[1])
    if to_call > 0:
        return CALL if eq * state.pot_after_call(me) >= to_call else state.fold_or_check()
    return CALL


@register
class ProbeBestResponse(Strategy):
    """The exact best response to a probe (``best_response_action``), for checking a player that exploits it."""

    name = "probe-br"
    description = "the best response to a card-blind probe: closed forms where they exist, else a search."
    run_mode = RunMode("guarded", "ends")
    params: ClassVar[dict[str, Param]] = {
        "kind": Param(str, "call", "the probe it answers", choices=KINDS),
    }

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Heads-up Texas hold'em, for the probes with a closed form."""
        reason = holdem_only(game)
        if reason is None and game.num_players != 2:
            reason = "its best responses are heads-up"
        return reason

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)
        kind = self.kind  # type: ignore[attr-defined]
        self.search: BlindBestResponse | None = None
        if kind not in BEST_RESPONSE_KINDS[game.betting]:
            self.search = BlindBestResponse(game, lambda state: probe_action(kind, state), seed=rng.randrange(2**32))

    def act(self, view: View, deadline: float) -> Action:
        """The best response's action."""
        if self.search is not None:
            return self.search.best_action(view.state, view.position, tuple(view.hole))
        return best_response_action(self.kind, view.state, view.position, tuple(view.hole))  # type: ignore[attr-defined]
