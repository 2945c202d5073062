"""The static players of the 2008 study (docs/studies.md, the 2008 study): random2008, constant, mfs and rh.

Every player of the study sees the same game state and picks one of six
decisions.  This module owns both: :func:`situation` computes the state
variables from the engine, :func:`decision_action` turns a decision into a
legal action and :func:`action_decision` maps an observed action back to the
decision that explains it (the learner's training needs that).

The game state (amounts in SB, ``common.study_blinds``):

- POT: chips in the pots this player can still win.  Derived from the
  engine's spent amounts: every player's contribution counts up to the
  most this player can ever put in (its whole stack), so chips only a side
  pot it cannot reach would hold are left out.  Own chips count (winning
  gives them back).  With the equal stacks of Doyle's game this is the
  whole pot.
- ODDS: POT / own contribution, 0 when nothing contributed (a ratio).
- RAISE: the amount to call, capped by the stack (``State.to_call``).
- CHANCE: the percentage of 300 Monte Carlo deals (``evaluator.equity``
  against random hands of the opponents still in the hand, i.e. not
  folded) that this hand wins or ties: ties count as wins.  The sampling
  is seeded by the cards and the number of opponents, so the same
  situation always gets the same estimate (the learner's training then
  sees exactly the values the player saw when it acted).
- ROUND: the betting round, 0 (preflop) to 3 (river).
- FOLLOWERS: players still to act in this round, this one included: the
  actions the engine takes to finish the round when everybody checks or
  calls from here.
- INGAME: players neither folded nor busted (stacks reset every hand, so
  nobody is busted unless the game gives a seat no chips).
- NPLAYERS: the seats of the game.
- QTYRAISE: bets and raises made in this hand so far (blinds are not bets).

The six decisions: 1 fold (a check when checking is free), 2 check/call,
3 small raise (call + uniform 2..4 SB), 4 medium raise (call + uniform
6..18 SB), 5 large raise (call + uniform 20..40 SB), 6 all-in.  A raise
is a raise-TO for the hand (``max_spent`` + the drawn amount, the size
drawn as a real number and rounded to chips), clamped into the engine's
legal range by ``State.raise_or_call``; when no raise is allowed it is a
call.  In limit games every raise decision (3 to 6) is the fixed ``r``:
"all-in" there means raising whenever a raise is allowed.

The players that never look at their cards (random2008, constant, rh)
expose their policy, one row for every holding (:func:`decisions_row`:
a raise band spread over the chip amounts it rounds to), so LBR can
measure them and AIVAT corrects their draws; mfs and the learner read
their cards through CHANCE and expose none.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar, Sequence

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, State
from ..evaluator import equity
from ..gamedef import GameDef
from ..world import MatchInfo, View
from .base import INLINE_ENDS, ActionPolicy, Param, RaiseSpan, RunMode, Strategy, holding_free_policy
from .common import holdem_only, study_blinds
from .registration import register

#: the state variables in the order every table and data file uses
VARIABLES: tuple[str, ...] = ("POT", "ODDS", "RAISE", "CHANCE", "ROUND", "FOLLOWERS", "INGAME", "NPLAYERS",
                              "QTYRAISE")

FOLD_DECISION, CALL_DECISION, SMALL_RAISE, MEDIUM_RAISE, LARGE_RAISE, ALL_IN = 1, 2, 3, 4, 5, 6
DECISIONS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
DECISION_NAMES = {1: "fold", 2: "call", 3: "small raise", 4: "medium raise", 5: "large raise", 6: "all-in"}

#: raise decisions: the SB added on top of a call, drawn uniformly in [low, high]
RAISE_BANDS: dict[int, tuple[float, float]] = {3: (2.0, 4.0), 4: (6.0, 18.0), 5: (20.0, 40.0)}

#: random2008's weights of decisions 1..6 (1/9 each, 4/9 for call)
RANDOM_WEIGHTS: tuple[float, ...] = (1 / 9, 4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9)

CHANCE_SAMPLES = 300
_CHANCE_SALT = 2008

_R = ActionType.RAISE


@dataclass(frozen=True)
class Situation:
    """The game state one player sees when it acts (amounts in SB); ``chance`` None when not computed."""

    pot: float
    odds: float
    raise_: float
    chance: float | None
    round: int
    followers: int
    ingame: int
    nplayers: int
    qtyraise: int

    def values(self) -> tuple[float, ...]:
        """The variables in ``VARIABLES`` order (CHANCE must have been computed)."""
        if self.chance is None:
            raise ValueError("CHANCE was not computed for this situation")
        return tuple(float(getattr(self, f.name)) for f in fields(self))


def pot_chips(state: State, player: int) -> int:
    """Chips in the pots ``player`` can win: each contribution counted up to ``player``'s whole stack."""
    return state.pot_within_reach(player)


def followers(state: State) -> int:
    """Players still to act in this round, the one to act included: the actions to finish it if all check or call."""
    if state.finished:
        return 0
    probe = state.copy()
    round_ = probe.round
    count = 0
    while not probe.finished and probe.round == round_:
        probe.apply_unchecked(CALL)
        count += 1
    return count


def in_game(state: State) -> int:
    """Players neither folded nor busted (no chips at all for the hand)."""
    stack = state.game.stack
    return sum(1 for p, f in enumerate(state.folded) if not f and stack[p] > 0)


def qty_raise(state: State) -> int:
    """Bets and raises made in the hand so far."""
    return sum(1 for acts in state.actions for a in acts if a[0] == _R)


@lru_cache(maxsize=8192)
def _chance(hole: tuple[int, ...], board: tuple[int, ...], opponents: int, samples: int) -> float:
    # Seeded by the situation so that training recomputes exactly what the player saw.
    rng = np.random.default_rng([_CHANCE_SALT, samples, opponents, *hole, 52, *board])
    eq = equity(hole, board, opponents=opponents, samples=samples, exact=False, rng=rng)
    return 100.0 * (eq.win + eq.tie)


def chance(state: State, player: int, samples: int = CHANCE_SAMPLES) -> float:
    """CHANCE: % of ``samples`` Monte Carlo deals won or tied against the opponents still in the hand."""
    hole = tuple(state.hole[player])
    if len(hole) != 2:
        raise ValueError(f"CHANCE needs the hole cards of position {player}")
    board = tuple(state.visible_board())
    opponents = sum(1 for p, f in enumerate(state.folded) if not f and p != player)
    if opponents == 0:
        return 100.0
    return _chance(hole, board, opponents, samples)


def situation(state: State, player: int | None = None, with_chance: bool = True) -> Situation:
    """The 2008 study's game state of ``player`` (default: the one to act) in ``state``.

    FOLLOWERS is 0 for a player who is not the one to act; ``with_chance``
    False leaves CHANCE (the only costly variable) out.
    """
    p = state.current_player if player is None else player
    if p < 0:
        raise ValueError("the hand is over: nobody acts")
    sb = study_blinds(state.game)[0]
    pot = pot_chips(state, p)
    own = state.spent[p]
    odds = pot / own if own > 0 else 0.0
    return Situation(pot=pot / sb, odds=odds, raise_=max(state.to_call(p), 0) / sb,
                     chance=chance(state, p) if with_chance else None, round=state.round,
                     followers=followers(state) if p == state.current_player else 0,
                     ingame=in_game(state), nplayers=state.game.num_players, qtyraise=qty_raise(state))


def decision_action(state: State, decision: int, rng: random.Random) -> Action:
    """The legal action of a decision 1..6 for the player to act (raise sizes drawn with ``rng``)."""
    if decision == FOLD_DECISION:
        return state.fold_or_check()
    if decision == CALL_DECISION:
        return CALL
    if decision == ALL_IN:
        bounds = state.raise_bounds()
        return CALL if bounds is None else state.raise_or_call(bounds[1])
    band = RAISE_BANDS.get(decision)
    if band is None:
        raise ValueError(f"decision {decision!r} is not one of 1..6")
    if state.raise_bounds() is None:
        return CALL
    if state.game.is_limit:
        return state.raise_or_call()
    sb = study_blinds(state.game)[0]
    return state.raise_or_call(state.max_spent + rng.uniform(*band) * sb)


def decisions_row(state: State, weights: dict[int, float]) -> tuple[Sequence[Action], np.ndarray]:
    """The actions :func:`decision_action` plays when decision ``d`` is drawn with probability ``weights[d]``.

    A raise band's size is uniform over a real interval and rounded to chips
    (``State.raise_or_call``), so each chip amount gets the share of the band
    that rounds to it; amounts outside the legal range are clamped into it,
    as the engine clamps them.  No-limit raises come as a :class:`RaiseSpan`.
    """
    bounds = state.raise_bounds()
    plain: dict[Action, float] = {}
    sizes: np.ndarray | None = None
    if bounds is not None and state.game.is_nolimit:
        lo, hi = bounds
        sizes = np.zeros(hi - lo + 1)
    for d, w in weights.items():
        if w <= 0:
            continue
        if d == FOLD_DECISION:
            a = state.fold_or_check()
        elif d == CALL_DECISION or bounds is None:
            a = CALL
        elif state.game.is_limit:
            a = RAISE
        elif sizes is not None:
            if d == ALL_IN:
                sizes[-1] += w
            else:
                _spread_band(sizes, bounds, state.max_spent, RAISE_BANDS[d], study_blinds(state.game)[0], w)
            continue
        plain[a] = plain.get(a, 0.0) + w
    before = [a for a in (FOLD, CALL, RAISE) if a in plain]
    row = np.array([plain[a] for a in before], dtype=np.float64)
    if sizes is None or not sizes.any():
        return tuple(before), row
    return RaiseSpan(before, bounds[0], bounds[1]), np.concatenate([row, sizes])  # type: ignore[index]


def _spread_band(sizes: np.ndarray, bounds: tuple[int, int], max_spent: int, band: tuple[float, float],
                 sb: float, weight: float) -> None:
    """Add ``weight`` over the raise-tos of ``max_spent`` + uniform(``band``) SB, rounded, clamped to ``bounds``."""
    lo, hi = bounds
    x0, x1 = max_spent + band[0] * sb, max_spent + band[1] * sb
    chips = np.arange(math.floor(x0 + 0.5), math.floor(x1 + 0.5) + 1)
    # the part of [x0, x1] that rounds to each amount (the band's ends take part of a chip)
    width = np.minimum(chips + 0.5, x1) - np.maximum(chips - 0.5, x0)
    np.add.at(sizes, np.clip(chips, lo, hi) - lo, weight * np.maximum(width, 0.0) / (x1 - x0))


def action_decision(state: State, action: Action) -> int:
    """The decision that explains ``action`` taken by the player to act in ``state``.

    Fold is 1 and check/call 2 (a fold decision when checking is free shows
    as a check, hence as 2).  Every limit raise is 3.  A no-limit raise to
    the whole stack is 6; any other is the decision whose raise-to range
    (clamped into the legal range, all-in a single point) lies nearest,
    ties going to the smaller decision: so a small raise clamped up to the
    minimum raise reads as the smallest decision that yields that raise.
    """
    kind = action[0]
    if kind == ActionType.FOLD:
        return FOLD_DECISION
    if kind == ActionType.CALL:
        return CALL_DECISION
    if state.game.is_limit:
        return SMALL_RAISE
    bounds = state.raise_bounds()
    if bounds is None:
        raise ValueError("a raise where the engine allows none")
    lo, hi = bounds
    to = action[1]
    if to >= hi:
        return ALL_IN
    sb = study_blinds(state.game)[0]
    base = state.max_spent
    best, best_gap = ALL_IN, hi - to
    for d in (LARGE_RAISE, MEDIUM_RAISE, SMALL_RAISE):  # the smaller decision wins ties: it comes last
        a, b = RAISE_BANDS[d]
        low = min(max(round(base + a * sb), lo), hi)
        high = min(max(round(base + b * sb), lo), hi)
        gap = low - to if to < low else (to - high if to > high else 0)
        if gap <= best_gap:
            best, best_gap = d, gap
    return best


def random_decision(rng: random.Random) -> int:
    """A decision drawn as random2008 draws it."""
    return rng.choices(DECISIONS, weights=RANDOM_WEIGHTS)[0]


def mfs_decision(s: Situation, t: float) -> int:
    """The mathematically fair strategy's decision for situation ``s`` and threshold ``t`` (SB)."""
    if s.odds == 0:
        return CALL_DECISION
    if s.chance is None:
        raise ValueError("mfs needs CHANCE")
    e = s.pot * (s.odds - 1) / s.odds  # the opponents' money in the pot
    m = s.pot - e + s.raise_  # own money once called
    v = (s.chance * e - (100 - s.chance) * m) / 100
    if v < -t:
        return FOLD_DECISION
    if v < t:
        return CALL_DECISION
    if v < 5 * t:
        return SMALL_RAISE
    if v < 10 * t:
        return MEDIUM_RAISE
    if v < 15 * t:
        return LARGE_RAISE
    return ALL_IN


def rh_value(s: Situation) -> float:
    """Rachlin–Higgins' V = POT / ((QTYRAISE+1)·FOLLOWERS·INGAME·(RAISE+1))."""
    return s.pot / ((s.qtyraise + 1) * s.followers * s.ingame * (s.raise_ + 1))


def rh_decision(s: Situation, t: float) -> int:
    """Rachlin–Higgins' decision for situation ``s`` and threshold ``t``."""
    v = rh_value(s)
    for d, factor in ((1, 1), (2, 20), (3, 50), (4, 100), (5, 1000)):
        if v < factor * t:
            return d
    return ALL_IN


class Study2008Player(Strategy):
    """A 2008-study player: picks a decision 1..6 from the game state, played by :func:`decision_action`.

    ``last_decision`` and ``last_situation`` keep what the latest ``act``
    chose and saw (None where a player does not look at the state).
    """

    #: whether ``decide`` needs the situation (and which part)
    needs_situation: ClassVar[bool] = True
    needs_chance: ClassVar[bool] = True
    run_mode = RunMode("guarded", "ends")  # learns nothing between its turns

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)
        self.last_decision: int | None = None
        self.last_situation: Situation | None = None

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Hold'em of 2 to 10 players, limit or no-limit."""
        return holdem_only(game)

    def start_match(self, match: MatchInfo) -> None:
        """Load the evaluator's tables now rather than during the first decision."""
        if self.needs_chance:
            _chance((48, 49), (), 1, CHANCE_SAMPLES)

    def decide(self, s: Situation | None) -> int:
        """The decision 1..6 for situation ``s``."""
        raise NotImplementedError

    def decision_weights(self, s: Situation | None) -> dict[int, float]:
        """The probability of each decision in situation ``s`` (by default the one ``decide`` makes)."""
        return {self.decide(s): 1.0}

    def policy(self, view: View) -> ActionPolicy:
        """The same for every holding (the players declaring ``has_policy`` never look at their cards)."""
        if not self.has_policy:
            return super().policy(view)
        state = view.state
        s = situation(state, view.position, False) if self.needs_situation else None
        actions, row = decisions_row(state, self.decision_weights(s))
        return holding_free_policy(self.game, actions, row)

    def act(self, view: View, deadline: float) -> Action:
        """Compute the situation, decide, and play the decision."""
        state = view.state
        s = situation(state, view.position, self.needs_chance) if self.needs_situation else None
        d = self.decide(s)
        self.last_situation, self.last_decision = s, d
        return decision_action(state, d, self.rng)


@register
class Random2008(Study2008Player):
    """The 2008 study's random player: decisions 1,3,4,5,6 with probability 1/9 each, 2 (call) with 4/9.

    Deviations: none beyond the common conventions (no fold when checking
    is free, raises clamped into the legal range, limit raises are ``r``).
    """

    name = "random2008"
    description = "2008 study: decisions 1,3,4,5,6 at 1/9 each, call at 4/9."
    needs_situation = False
    needs_chance = False
    run_mode = INLINE_ENDS
    has_policy = True

    def decide(self, s: Situation | None) -> int:
        """A random decision with the study's weights."""
        return random_decision(self.rng)

    def decision_weights(self, s: Situation | None) -> dict[int, float]:
        """The study's weights."""
        return dict(zip(DECISIONS, RANDOM_WEIGHTS))


@register
class Constant(Study2008Player):
    """The 2008 study's constant player: always decision ``d`` (2 call, 3..5 small/medium/large raise, 6 all-in).

    Deviations: none beyond the common conventions; ``d`` defaults to 2 (the
    study does not name one).
    """

    name = "constant"
    description = "2008 study: always decision d (2 call, 3/4/5 small/medium/large raise, 6 all-in)."
    d: int  # the parameter, set from params by Strategy.__init__
    params: ClassVar[dict[str, Param]] = {
        "d": Param(int, 2, "the decision to play", choices=(2, 3, 4, 5, 6)),
    }
    needs_situation = False
    needs_chance = False
    run_mode = INLINE_ENDS
    has_policy = True

    def decide(self, s: Situation | None) -> int:
        """Always ``d``."""
        return self.d


@register
class MathematicallyFair(Study2008Player):
    """The 2008 study's mathematically fair strategy (MFS) with threshold ``t`` SB (the study used 1 and 5).

    ODDS = 0 -> call.  Else E = POT·(ODDS−1)/ODDS (opponents' money),
    M = POT − E + RAISE (own money once called), V = (CHANCE·E −
    (100−CHANCE)·M)/100; V < −T fold, < T call, < 5T small raise, < 10T
    medium, < 15T large, else all-in.  Deviations: POT counts only chips
    this player can win (side pots); CHANCE is seeded by the cards (see the
    module docstring); the common conventions.
    """

    name = "mfs"
    description = "2008 study: mathematically fair strategy, V from pot odds and 300-sample CHANCE vs thresholds t SB."
    params: ClassVar[dict[str, Param]] = {
        "t": Param(float, 1.0, "the threshold T in small blinds (the study used 1 and 5)",
                   lambda v: v > 0, "must be > 0"),
    }

    def decide(self, s: Situation | None) -> int:
        """MFS on the situation."""
        assert s is not None
        return mfs_decision(s, self.t)  # type: ignore[attr-defined]


@register
class RachlinHiggins(Study2008Player):
    """The 2008 study's Rachlin–Higgins player with threshold ``t`` (the study used 0.1 and 0.001); ignores its cards.

    V = POT / ((QTYRAISE+1)·FOLLOWERS·INGAME·(RAISE+1)) with POT and RAISE
    in SB; V < T fold, < 20T call, < 50T small raise, < 100T medium,
    < 1000T large, else all-in.  Deviations: POT counts only chips this
    player can win (side pots, see the module docstring); the common
    conventions.
    """

    name = "rh"
    description = "2008 study: Rachlin-Higgins, V = POT/((QTYRAISE+1)*FOLLOWERS*INGAME*(RAISE+1)) vs thresholds t."
    params: ClassVar[dict[str, Param]] = {
        "t": Param(float, 0.1, "the threshold T (the study used 0.1 and 0.001)", lambda v: v > 0, "must be > 0"),
    }
    needs_chance = False
    run_mode = INLINE_ENDS
    has_policy = True

    def decide(self, s: Situation | None) -> int:
        """RH on the situation."""
        assert s is not None
        return rh_decision(s, self.t)  # type: ignore[attr-defined]


def decisions_of_hand(state: State) -> Sequence[tuple[int, State, Action]]:
    """(acting position, state before the action, action) for every action of a replayed hand, in order."""
    return [(s.player, s.before, s.action) for s in state.steps()]
