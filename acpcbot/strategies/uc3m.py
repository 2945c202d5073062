"""``uc3m`` and ``uc3m-simple``: the 2012 study's ACPC agent and its rule-only first version (docs/studies.md)."""

from __future__ import annotations

import json
import logging
import math
from datetime import datetime
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple, TextIO

import numpy as np

from ..engine import CALL, RAISE, Action, ActionType, State
from ..evaluator import NUM_PAIRS, hand_strength
from ..preflop import CLASSES, PAIR_CLASS, hand_class, preflop_equity
from ..world import MatchInfo, View
from .base import Param, RunMode, Strategy
from .common import holdem_only, sample_triple
from .persist import ModelFile, ModelFileError, ModelSaver, folder_exists, opponent_key, table_key
from .registration import register
from .uc3m_tree import RAISE_FRACTION, ModelError, OpponentModel, line_tokens, miximax, showdown_strength

log = logging.getLogger(__name__)

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE

# ----------------------------------------------------------------- the numbers the study left open

#: preflop: go (or call) all-in with an equity against a random hand of at least this (QQ+: QQ is 0.7993)
ALLIN_EQUITY = 0.79
#: the all-in threshold never widens below this (about the best 20% of hands: 66, A8s, A9o, KJs and better)
ALLIN_EQUITY_FLOOR = 0.60
#: an opponent raising preflop more often than this is "raising often"; the threshold widens past it...
PFR_NORMAL = 0.25
#: ...by this much per unit of the opponent's preflop raise rate above PFR_NORMAL (always-raise: 0.79 - 0.3)
ALLIN_WIDEN = 0.4
#: preflop (fold, call, raise) by equity against a random hand, best band first; the fold share is a
#: check when nothing is to be called
PREFLOP_BANDS: tuple[tuple[float, tuple[float, float, float]], ...] = (
    (0.66, (0.00, 0.25, 0.75)),  # 77+, AQs+, AKo: mostly raise
    (0.58, (0.00, 0.60, 0.40)),  # 55, ATs, KQs, A9o ...: raise sometimes
    (0.50, (0.15, 0.75, 0.10)),  # middling hands: see a flop
    (0.00, (0.75, 0.25, 0.00)),  # the rest: mostly give up
)
#: preflop raise factor F (raise F x the pot after calling) grows with equity: F_LOW at EQ_LOW..F_HIGH at EQ_HIGH
RAISE_F_LOW, RAISE_F_HIGH = 0.5, 1.5
RAISE_EQ_LOW, RAISE_EQ_HIGH = 0.55, 0.80
#: postflop (least hand strength, target bets in the round, raise factor F), best band first
TARGET_BANDS: tuple[tuple[float, int, float], ...] = (
    (0.95, 4, 1.0),   # near the nuts: keep raising (all-in once someone has bet)
    (0.85, 3, 1.0),   # very strong: bet, raise and re-raise
    (0.70, 2, 0.75),  # strong: bet and raise once
    (0.55, 1, 0.5),   # better than average: one bet
    (0.00, 0, 0.5),   # weak: no bet
)
#: hand strength from which a raise goes all-in once the round holds a bet
ALLIN_STRENGTH = 0.95
#: below the target, raise this share of the time (the rest calls: a little slow play)
RAISE_BELOW_TARGET = 0.85
#: past the target, call anyway when the chips behind are at most this many pots (pot committed)
SMALL_STACK_POTS = 1.0
#: continuation bet: on the flop, after raising last preflop, bet this share of the time, F x pot
CBET_SHARE, CBET_FACTOR = 0.75, 0.5
#: bluff: instead of checking or folding (facing at most one bet after the flop) raise this share, F x pot
BLUFF_SHARE, BLUFF_FACTOR = 0.10, 0.75
#: raise sizes are spread by up to this share either way (sampled), so sizes do not give the hand away
RAISE_JITTER = 0.2
#: the opponent range after a preflop raise: its best (raise rate) share of hands, at least this share
RANGE_MIN_SHARE = 0.10
#: the EV analyzer: play its best move this share of the time, else the rule-based analyzers' sample
EV_SHARE = 0.75
#: the EV walk visits at most this many tree nodes per decision
EV_MAX_NODES = 2000
#: save the model file every this many hands (and at the end of the match)
SAVE_EVERY = 1000
#: the model file's kind and layout version
MODEL_KIND, MODEL_VERSION = "uc3m", 1

ALLIN = math.inf  # the raise factor of an all-in


class Intent(NamedTuple):
    """A decision of the rule-based analyzers: a (fold, call, raise) triple and the raise factor F."""

    triple: tuple[float, float, float]
    factor: float
    why: str


def preflop_raise_factor(equity: float) -> float:
    """F before the flop: linear in equity from RAISE_F_LOW to RAISE_F_HIGH."""
    share = (equity - RAISE_EQ_LOW) / (RAISE_EQ_HIGH - RAISE_EQ_LOW)
    return RAISE_F_LOW + (RAISE_F_HIGH - RAISE_F_LOW) * min(1.0, max(0.0, share))


def allin_threshold(preflop_raise_rate: float | None) -> float:
    """The preflop all-in equity, widened when the opponent raises preflop more than PFR_NORMAL."""
    if preflop_raise_rate is None:
        return ALLIN_EQUITY
    return max(ALLIN_EQUITY_FLOOR, ALLIN_EQUITY - ALLIN_WIDEN * max(0.0, preflop_raise_rate - PFR_NORMAL))


def target_band(strength: float) -> tuple[int, float]:
    """(target bets, raise factor) of a postflop hand strength."""
    for low, target, factor in TARGET_BANDS:
        if strength >= low:
            return target, factor
    return TARGET_BANDS[-1][1], TARGET_BANDS[-1][2]  # pragma: no cover - the last band starts at 0


_EQUITY_BY_CLASS = np.array([preflop_equity(c) for c in CLASSES])
_PAIR_EQUITY = _EQUITY_BY_CLASS[PAIR_CLASS]
_PAIRS_BEST_FIRST = np.argsort(-_PAIR_EQUITY, kind="stable")


@lru_cache(maxsize=128)
def top_range(share_percent: int) -> np.ndarray:
    """A range of the best ``share_percent``% of hole pairs by equity against a random hand."""
    r = np.zeros(NUM_PAIRS)
    r[_PAIRS_BEST_FIRST[:max(1, round(NUM_PAIRS * share_percent / 100))]] = 1.0
    r.setflags(write=False)
    return r


def committed(view: View) -> bool:
    """Whether the chips behind are small against the pot (at most SMALL_STACK_POTS pots)."""
    return view.stack <= SMALL_STACK_POTS * view.pot


def raised_last_preflop(state: State, player: int) -> bool:
    """Whether ``player`` made the last raise before the flop."""
    raisers = [p for a, p in zip(state.actions[0], state.actors[0]) if a[0] == _R]
    return bool(raisers) and raisers[-1] == player


@register
class Uc3mSimpleStrategy(Strategy):
    """The 2012 study's first, rule-only agent (no opponent model): ``uc3m`` without the tree and EV analyzer.

    Decides through a (fold, call, raise) triple plus a raise factor F: a
    raise is F x the pot after calling (State.raise_to_fraction), spread by up
    to RAISE_JITTER either way, clamped into the legal range; ``r`` in limit
    games.  A fold when nothing is to be called is a check.

    Preflop: equity against a random hand (preflop.preflop_equity, the
    study's table: AA 0.8520 ... 88 0.6916), against k opponents in the
    hand eq^k (our approximation for multi-player).  At or above the all-in
    threshold ALLIN_EQUITY = 0.79 (QQ+) it raises all-in, or calls when it
    cannot raise.  Otherwise, facing a bet it calls when the chips behind
    are at most SMALL_STACK_POTS = 1 pot, else folds when the pot odds ask
    for more equity than it has; then it samples PREFLOP_BANDS: equity >= 0.66
    (0, .25, .75); >= 0.58 (0, .6, .4); >= 0.50 (.15, .75, .1); below
    (.75, .25, 0); F grows linearly from 0.5 at equity 0.55 to 1.5 at 0.80.

    Postflop: hand strength (evaluator.hand_strength: share of opponent
    holdings beaten now, uniform range, product over opponents) picks a target
    number of bets for the round: >= 0.95 four (all-in once the round holds
    a bet), >= 0.85 three (F 1), >= 0.70 two (F 0.75), >= 0.55 one (F 0.5),
    else none.  With fewer bets than the target it raises (0.85) or calls;
    at the target it calls; past it, it folds unless the chips behind are at
    most one pot (in limit games, where stacks never run short, it also
    calls when its strength pays the pot odds: hs >= to_call / (pot +
    to_call)).  Continuation bet: on the flop, checked to after raising
    last preflop, it bets 0.5 pot three times in four.  Bluff: where it would
    check or fold after the flop facing at most one bet, it raises 0.75 pot
    instead one time in ten.

    Plays hold'em of any size, limit and no-limit (heads-up no-limit is its
    home; in limit games F is moot and "all-in" is a raise).

    Where the study left numbers open they are the named constants above.
    Additions to the study's description: the preflop pot-odds fold and the
    pot-committed call also before the flop; the limit pot-odds call; eq^k
    and strength against k opponents in multi-player games; raise sizes
    jittered by up to 20%.  Reading: the study sets "a target number of
    bets for the hand"; the target is re-read from the strength at every
    decision and compared with the bets of the current round (the make-N
    rule of Billings et al.'s Loki, which this is), not of the whole hand.

    ``history=FILE`` appends one JSON line per hand: the match start date,
    hand number, position, opponents' key, result and running total.
    """

    run_mode = RunMode("guarded", "ends")  # its model learns at the ends of hands only
    name = "uc3m-simple"
    description = "The 2012 study's rule-only ACPC agent: equity/strength bands, target bets, c-bets, 10% bluffs."
    # the parameters, set from params by Strategy.__init__
    history: str
    params: ClassVar[dict[str, Param]] = {
        "history": Param(str, "", "append each hand's result (JSON lines) with the match start date to this file",
                         folder_exists, "its folder must exist"),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.info: MatchInfo | None = None
        self.started = datetime.now().isoformat(timespec="seconds")
        self._history: TextIO | None = None
        self._strength: dict[tuple[int, int, int], float] = {}
        self._strength_hand = -1
        #: the latest rule-based plan and the move played (for inspection)
        self.last_plan: Intent | None = None
        self.last_source = ""

    @classmethod
    def unsupported_reason(cls, game: Any) -> str | None:
        """Hold'em only (its equities and strengths are hold'em's)."""
        return holdem_only(game)

    # ------------------------------------------------------------- the match

    def start_match(self, match: MatchInfo) -> None:
        """Note the start date and open the history file."""
        self.info = match
        self.started = datetime.now().isoformat(timespec="seconds")
        if self.history:
            self._history = open(self.history, "a", encoding="utf-8")

    def end_hand(self, view: View) -> None:
        """Write the hand's result to the history file."""
        if self._history is None:
            return
        record = {"start": self.started, "hand": view.hand_id, "position": view.position,
                  "opponents": table_key(self.info, view), "result": view.result, "total": view.match.total}
        try:
            self._history.write(json.dumps(record) + "\n")
            self._history.flush()
        except OSError as exc:
            log.error("%s: cannot write the history file %s: %s; history stops here", self.name, self.history, exc)
            self._history = None

    def end_match(self) -> None:
        """Close the history file."""
        if self._history is not None:
            self._history.close()
            self._history = None

    # ------------------------------------------------------------- the rule-based analyzers

    def preflop_raise_rate(self, view: View) -> float | None:
        """The opponent's preflop raise rate when it is modelled (None: not modelled)."""
        return None

    def opponent_range(self, view: View) -> np.ndarray | None:
        """The opponent's range for hand strength (None: uniform)."""
        return None

    def strength(self, view: View, opponents: int, use_range: bool = True) -> float:
        """Hand strength against ``opponents`` opponents now (cached within the hand)."""
        if view.hand_id != self._strength_hand:
            self._strength.clear()
            self._strength_hand = view.hand_id
        rng = self.opponent_range(view) if use_range and opponents == 1 else None
        key = (len(view.board_cards), opponents, -1 if rng is None else id(rng))
        hs = self._strength.get(key)
        if hs is None:
            hs = self._strength[key] = hand_strength(view.hole, view.board_cards, rng, opponents)
        return hs

    def rules(self, view: View) -> Intent:
        """The rule-based analyzers' plan for the state."""
        return self.preflop_plan(view) if view.round == 0 else self.postflop_plan(view)

    def preflop_plan(self, view: View) -> Intent:
        """Preflop: equity bands, the all-in threshold, pot odds."""
        k = max(1, len(view.opponents))
        equity = preflop_equity(hand_class(*view.hole)) ** k
        if equity >= allin_threshold(self.preflop_raise_rate(view)):
            return Intent((0.0, 0.0, 1.0), ALLIN, "all-in equity")
        to_call = view.to_call
        if to_call > 0:
            if committed(view):
                return Intent((0.0, 1.0, 0.0), 0.0, "committed")
            if equity < to_call / view.state.pot_after_call(view.position):
                return Intent((1.0, 0.0, 0.0), 0.0, "pot odds")
        for low, triple in PREFLOP_BANDS:
            if equity >= low:
                return Intent(triple, preflop_raise_factor(equity), f"equity band {low}")
        raise AssertionError("unreachable")  # pragma: no cover

    def postflop_plan(self, view: View) -> Intent:
        """Postflop: target bets by hand strength, continuation bet, bluff."""
        state = view.state
        hs = self.strength(view, max(1, len(view.opponents)))
        target, factor = target_band(hs)
        bets = state.num_raises
        if bets < target:
            if hs >= ALLIN_STRENGTH and bets >= 1:
                plan = Intent((0.0, 0.0, 1.0), ALLIN, "nuts")
            else:
                plan = Intent((0.0, 1 - RAISE_BELOW_TARGET, RAISE_BELOW_TARGET), factor, f"below target {target}")
        elif bets == target or view.to_call == 0:
            plan = Intent((0.0, 1.0, 0.0), 0.0, f"at target {target}")
        elif committed(view):
            plan = Intent((0.0, 1.0, 0.0), 0.0, "committed")
        elif self.game.is_limit and hs >= view.to_call / view.state.pot_after_call(view.position):
            plan = Intent((0.0, 1.0, 0.0), 0.0, "limit pot odds")
        else:
            plan = Intent((1.0, 0.0, 0.0), 0.0, f"past target {target}")
        if plan.triple[2] == 0.0 and view.can_raise:
            if view.round == 1 and view.to_call == 0 and raised_last_preflop(state, view.position):
                return Intent((0.0, 1 - CBET_SHARE, CBET_SHARE), CBET_FACTOR, "continuation bet")
            if bets <= 1 and (plan.triple[0] > 0 or view.to_call == 0):
                f, c, _ = plan.triple
                keep = 1 - BLUFF_SHARE
                return Intent((f * keep, c * keep, BLUFF_SHARE), BLUFF_FACTOR, plan.why + ", bluff 10%")
        return plan

    # ------------------------------------------------------------- acting

    def raise_action(self, view: View, factor: float) -> Action:
        """A raise of ``factor`` x the pot after calling (jittered), or all-in; ``r`` in limit games."""
        state = view.state
        bounds = state.raise_bounds()
        if bounds is None:
            return CALL
        if self.game.is_limit:
            return RAISE
        if factor == ALLIN:
            return state.raise_or_call(bounds[1])
        jitter = 1 + RAISE_JITTER * (2 * self.rng.random() - 1)
        return state.raise_or_call(state.raise_to_fraction(factor * jitter))

    def play_plan(self, view: View, plan: Intent) -> Action:
        """Sample the plan's triple and turn it into a legal action."""
        kind = sample_triple(self.rng, plan.triple)
        if kind == _F:
            return view.state.fold_or_check()
        if kind == _R:
            return self.raise_action(view, plan.factor)
        return CALL

    def act(self, view: View, deadline: float) -> Action:
        """Sample the rule-based plan."""
        plan = self.last_plan = self.rules(view)
        self.last_source = "rules"
        return self.play_plan(view, plan)


@register
class Uc3mStrategy(Uc3mSimpleStrategy):
    """The 2012 study's ACPC agent: ``uc3m-simple``'s analyzers plus an opponent tree and an EV analyzer.

    Everything of ``uc3m-simple`` (see its docstring), and in heads-up games:

    Opponent model (acpcbot.strategies.uc3m_tree): per opponent and per position it sat
    in, a tree of the betting lines seen (raises bucketed by size), every
    node counting visits, who acted with what, the average pot, a 20-cell
    histogram of the hand strength the opponent showed at showdown after the
    line, and results where hands ended; plus the opponent's preflop raise
    rate.  That rate (pulled toward 1/4 while hands are few) widens the
    preflop all-in threshold: 0.79 − 0.4 x (rate − 0.25) when above 0.25,
    never below 0.60.  After the opponent raised preflop, hand strength is
    taken against its best (rate) share of hands by equity (at least 10%),
    else against a uniform range.

    EV analyzer ("miximax", opponent.miximax): where the opponent has shown
    down at least ``showdowns`` (default 5) times after the current line,
    the EV of fold (minus our chips in), call and each raise size seen here
    comes from walking the tree: leaf P(win)·pot − our chips, P(win) from
    the histogram against our current strength (hand strength against a
    uniform range, or preflop equity); opponent nodes average their replies
    by observed frequency; our own nodes take our best reply.  Mixing: with
    probability ``mix`` (default EV_SHARE = 0.75) it plays the best-EV move
    (a raise at its bucket's typical size: half pot, pot, two pots or
    all-in), otherwise it samples the rule-based plan, so the agent stays
    hard to read and keeps feeding its tree with varied lines.

    ``model=FILE`` keeps the trees across matches (acpcbot.strategies.persist), keyed
    by the opponent's name when the match names it, else by its seat
    (``seat:2``); saved every 1000 hands and at the end of the match.

    In games of three or more players the model and the EV analyzer are
    off (the study models one opponent; a tree per opponent of multi-way
    lines grows too fast to be read): it plays the rule-based analyzers
    and ``model`` is not used.  Limit games use the same tree with ``r``
    for every raise.
    """

    name = "uc3m"
    description = "The 2012 study's ACPC agent: uc3m-simple plus a per-opponent betting tree and a miximax EV analyzer."
    # the parameters, set from params by Strategy.__init__
    model: str
    showdowns: int
    mix: float
    params: ClassVar[dict[str, Param]] = {
        **Uc3mSimpleStrategy.params,
        "model": Param(str, "", "JSON file keeping the opponent trees across matches (empty: none)", folder_exists,
                       "its folder must exist"),
        "showdowns": Param(int, 5, "showdowns after a line before its EV is trusted", lambda v: v >= 1,
                           "must be >= 1"),
        "mix": Param(float, EV_SHARE, "share of decisions taken by the EV analyzer where it applies",
                     lambda v: 0 <= v <= 1, "must be in 0..1"),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heads_up = self.game.num_players == 2
        self.models: dict[str, OpponentModel] = {}
        self.store = ModelFile(self.model, MODEL_KIND, MODEL_VERSION) if self.model else None
        if self.store is not None:
            if not self.heads_up:
                log.warning("uc3m: model=%s is not used: the opponent model plays heads-up games only", self.model)
            for key, entry in self.store.entries.items():
                try:
                    model = OpponentModel.from_json(entry, self.game.num_players)
                except ModelError as exc:
                    if not self.heads_up:
                        continue
                    raise ModelFileError(f"model file {self.model}: entry {key!r}: {exc}") from None
                self.models[key] = model
        self.saver = ModelSaver(self.store, self.models, "uc3m: %s; the opponent model of this match is not saved",
                                SAVE_EVERY)
        #: the EV analyzer's values at the latest decision (None where it did not apply)
        self.last_ev: dict[str, float] | None = None

    # ------------------------------------------------------------- the model

    def opponent(self, view: View) -> tuple[str, OpponentModel, int] | None:
        """The modelled opponent of a heads-up hand: key, model and its position; None in bigger games."""
        if not self.heads_up:
            return None
        pos = 1 - view.position
        key = opponent_key(self.info, view, pos)
        model = self.models.get(key)
        if model is None:
            model = self.models[key] = OpponentModel(self.game.num_players)
        return key, model, pos

    def preflop_raise_rate(self, view: View) -> float | None:
        """The modelled opponent's preflop raise rate."""
        opp = self.opponent(view)
        return None if opp is None else opp[1].preflop_raise_rate()

    def opponent_range(self, view: View) -> np.ndarray | None:
        """After a preflop raise by the opponent: its best (raise rate) share of hands."""
        opp = self.opponent(view)
        if opp is None:
            return None
        _, model, pos = opp
        state = view.state
        if not any(a[0] == _R and p == pos for a, p in zip(state.actions[0], state.actors[0])):
            return None
        share = min(1.0, max(RANGE_MIN_SHARE, model.preflop_raise_rate()))
        return None if share >= 1.0 else top_range(round(100 * share))

    def ev_values(self, view: View) -> dict[str, float] | None:
        """The EV analyzer's value per legal move (token), or None where it does not apply."""
        opp = self.opponent(view)
        if opp is None:
            return None
        _, model, pos = opp
        tree = model.trees.get(pos)
        if tree is None:
            return None
        if view.round == 0:
            strength = preflop_equity(hand_class(*view.hole))
        else:
            strength = self.strength(view, 1, use_range=False)
        values = miximax(tree, line_tokens(view.state), view.position, strength, self.showdowns, EV_MAX_NODES)
        if values is None:
            return None
        legal = {}
        for token, v in values.items():
            bare = token.lstrip("/")
            if bare == "f" or (bare.startswith("r") and not view.can_raise):
                continue
            legal[bare] = v
        if view.can_fold:
            legal["f"] = -float(view.spent[view.position])
        return legal if legal else None

    def token_action(self, view: View, token: str) -> Action:
        """The action of a move token: fold, call, or a raise of the bucket's typical size."""
        if token == "f":
            return view.state.fold_or_check()
        if token == "c":
            return CALL
        if token in ("r", "ra"):
            return self.raise_action(view, ALLIN if token == "ra" else 1.0)
        return view.state.raise_or_call(view.state.raise_to_fraction(RAISE_FRACTION[token]))

    def act(self, view: View, deadline: float) -> Action:
        """The EV analyzer's best move (share ``mix``) where it applies, else the rule-based plan."""
        plan = self.last_plan = self.rules(view)
        values = self.last_ev = self.ev_values(view)
        if values is not None and self.rng.random() < self.mix:
            best = max(values, key=lambda t: values[t])
            self.last_source = "ev"
            return self.token_action(view, best)
        self.last_source = "rules"
        return self.play_plan(view, plan)

    def end_hand(self, view: View) -> None:
        """Add the hand to the opponent's tree, write history, save the model now and then."""
        super().end_hand(view)
        opp = self.opponent(view)
        if opp is None:
            return
        key, model, pos = opp
        shown = view.shown.get(pos)
        strength = showdown_strength(shown, view.board_cards) if shown else None
        model.record(view.state, pos, view.result, strength)
        self.saver.changed(key)
        self.saver.hand_done()

    def end_match(self) -> None:
        """Save the model and close the history file."""
        self.saver.save()
        super().end_match()
