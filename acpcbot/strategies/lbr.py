"""The ``lbr`` player: Local Best Response against a strategy that exposes its policy (heads-up).

LBR tracks its opponent's range through the opponent's policy and plays
the greedy best response of ``acpcbot.measure.lbr``.  What it knows of the
opponent comes from a :class:`TargetModel`:

- :class:`ShadowTarget` (the default, used when LBR runs as its own
  process, e.g. over TCP): a copy of the target built from its spec and
  seed, fed the target's view of every state as LBR can reconstruct it
  (LBR sees every action; the target's hole cards only when shown at a
  showdown, a fixed stand-in otherwise).  Exact for strategies whose policy
  depends only on public information and on the history they see; for a
  learning strategy whose model also depends on its own hole cards in
  hands that ended without a showdown, the copy's model can drift from the
  real one.
- :class:`LiveTarget` (``acpc-match lbr --transport memory``): the real
  target object, seated through a :class:`TargetProxy` that records its
  policy at each of its decisions; exact.

The target's spec is given with ``;`` between its parameters (``,``
separates LBR's own): ``lbr:target=adaptive:risk=0;lookahead=0``.
``actions=S2`` (or S1, S3, S4, cc1, cc2, full, or streets of letters)
restricts LBR's actions street by street (``acpcbot.measure.lbr_actions``).
"""

from __future__ import annotations

import logging
import random
from typing import Any, ClassVar

import numpy as np

from ..engine import FOLD, Action, State
from ..equity_vectors import EquityCache
from ..gamedef import GameDef
from ..holdings import blocked, holdings
from ..measure.lbr import Valued, candidates, check_heads_up, choose, initial_range, narrow, valuate
from ..measure.lbr_actions import check_setting, parse_setting, raises_allowed
from ..protocol import MatchState, format_betting, format_match_state
from ..world import MatchHistory, MatchInfo, View, World
from .base import ActionPolicy, NoPolicy, Param, RunMode, Strategy
from .registration import register
from .registry import registered_class

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ views of the target

def target_view(state: State, position: int, hole: tuple[int, ...], match: MatchHistory,
                info: MatchInfo | None) -> View:
    """The view ``position`` would have of ``state``, holding ``hole`` (other hole cards hidden unless shown)."""
    s = state.view_of(position, holding=hole)  # LBR's guess (or the shown cards) in place of what it cannot see
    text = format_match_state(s, position)
    return View(text, MatchState(position, s.hand_id, s, format_betting(s)), match, info)


def stand_in(game: GameDef, state: State) -> tuple[int, ...]:
    """A holding the unseen target could hold in ``state``: the first not sharing a card with what is visible."""
    known = list(state.visible_board()) + [c for h in state.hole for c in h]
    free = np.flatnonzero(~blocked(game, known))
    return tuple(int(c) for c in holdings(game)[int(free[0])])


def make_target(spec: str, game: GameDef, seed: int | None) -> Strategy:
    """The registered strategy ``spec`` names (``name:k=v;k=v`` or with ``,``), seeded by ``seed``."""
    name, _, rest = spec.strip().partition(":")
    cls = registered_class(name)
    if cls is None:
        raise ValueError(f"lbr: unknown target strategy {name!r}")
    params: dict[str, Any] = {}
    for item in rest.replace(";", ",").split(",") if rest else ():
        key, eq, value = item.partition("=")
        param = cls.params.get(key.strip())
        if not eq or param is None:
            raise ValueError(f"lbr: target {spec!r}: {item!r} is not a parameter of {name} "
                             f"(parameters: {', '.join(cls.params) or 'none'})")
        params[key.strip()] = param.convert(value.strip())
    if not cls.has_policy:
        raise NoPolicy(f"strategy {name!r} does not expose its policy (the probability of each action for every "
                       f"holding), which LBR needs")
    strategy = cls(game, random.Random(seed), **params)
    strategy.spec = spec.strip().replace(";", ",")
    return strategy


# ------------------------------------------------------------------ what LBR knows of its target

class TargetModel:
    """The target's policy at its real decisions (recorded as they happen) and in states LBR imagines."""

    def __init__(self) -> None:
        self.records: dict[tuple[int, int], ActionPolicy] = {}
        self._hand: int | None = None
        #: the policies LBR asked for in the hand in progress, by the betting that led there
        self._asked: dict[tuple[int, tuple[tuple[Action, ...], ...]], ActionPolicy] = {}

    def record(self, hand_id: int, index: int, policy: ActionPolicy) -> None:
        """Keep the policy of the target's decision number ``index`` (actions so far) of hand ``hand_id``."""
        if hand_id != self._hand:
            self.records.clear()
            self._hand = hand_id
        self.records[(hand_id, index)] = policy

    def recorded(self, hand_id: int, index: int) -> ActionPolicy | None:
        """The policy recorded at that decision, if any."""
        return self.records.get((hand_id, index))

    def see(self, view: View) -> None:
        """LBR's own view of a state (every state of the match, in order)."""

    def policy_in(self, state: State) -> ActionPolicy:
        """The target's policy in ``state`` (its turn), as LBR sees the state (kept for :meth:`asked`)."""
        key = (state.hand_id, tuple(map(tuple, state.actions)))
        if self._asked and next(iter(self._asked))[0] != state.hand_id:
            self._asked.clear()  # a new hand
        out = self._asked[key] = self._policy_in(state)
        return out

    def asked(self, state: State) -> ActionPolicy | None:
        """The policy :meth:`policy_in` gave for this hand's ``state`` (same betting), if LBR asked for it.

        LBR asks for the state each raise it weighs leads to; when it makes
        one, the target decides in that very state.  A target that learns
        nothing in between (its ``run_mode`` does not ask for every state) has there, by
        the policy's contract, the policy LBR was given: it is not asked again.
        """
        return self._asked.get((state.hand_id, tuple(map(tuple, state.actions))))

    def _policy_in(self, state: State) -> ActionPolicy:
        raise NotImplementedError


class TargetProxy(Strategy):
    """Seats the real target unchanged and records its policy before each of its actions (in-memory matches)."""

    name = "lbr-target-proxy"  # not registered: built by acpc-match lbr around the target

    def __init__(self, target: Strategy, model: "LiveTarget | None" = None) -> None:
        super().__init__(target.game, target.rng)
        self.target = target
        self.spec = target.spec
        # the client runs the proxy where it would run the target, and shows it every state (see observe)
        self.run_mode = RunMode(target.run_mode.where, "every")
        self.model = model
        self.info: MatchInfo | None = None
        self.match: MatchHistory | None = None
        self.hole: tuple[int, tuple[int, ...]] | None = None
        self._observes = target.run_mode.every_state
        self._recorded: tuple[int, int, ActionPolicy] | None = None  # the policy recorded at the last action

    def start_match(self, match: MatchInfo) -> None:
        """Start the target's match."""
        self.info = match
        self.target.start_match(match)

    def observe(self, view: View) -> None:
        """Remember the target's history and cards; the target observes only if it would have."""
        self.match = view.match
        self.hole = (view.hand_id, view.hole)
        if self._observes:
            self.target.observe(view)

    def act(self, view: View, deadline: float) -> Action:
        """Record the target's policy here, then let it act."""
        if self.model is not None:
            policy = None if self._observes else self.model.asked(view.state)
            if policy is None:
                policy = self.target.policy(view)
            self.model.record(view.hand_id, view.state.num_actions, policy)
            self._recorded = (view.hand_id, view.state.num_actions, policy)
        return self.target.act(view, deadline)

    @property
    def keeps_played_rows(self) -> bool:
        """As its target: rows only for a re-solver, dear to replay (a cheap one's policy over every raise size,
        random's, would be a line of thousands of columns a decision)."""
        return self.target.keeps_played_rows

    def played_policy(self, view: View) -> ActionPolicy | None:
        """For a target that keeps its played rows, the policy recorded before its action (it acted from it): AIVAT
        reads it instead of replaying the target; None for the others."""
        if not self.keeps_played_rows:
            return None
        kept = self._recorded
        if kept is not None and kept[:2] == (view.hand_id, view.state.num_actions):
            return kept[2]
        return self.target.played_policy(view)

    def end_hand(self, view: View) -> None:
        """The target's end of hand."""
        self.target.end_hand(view)

    def end_match(self) -> None:
        """The target's end of match."""
        self.target.end_match()


class LiveTarget(TargetModel):
    """The real target object of an in-memory match: its recorded policies, and its policy asked directly."""

    def __init__(self, target: Strategy) -> None:
        super().__init__()
        self.proxy = TargetProxy(target, self)

    def _policy_in(self, state: State) -> ActionPolicy:
        """The target's own policy, in its own view of ``state`` (its real cards when known)."""
        proxy = self.proxy
        position = state.current_player
        if proxy.hole is not None and proxy.hole[0] == state.hand_id and proxy.hole[1]:
            hole = proxy.hole[1]
        else:
            hole = stand_in(state.game, state)
        view = target_view(state, position, hole, proxy.match or MatchHistory(), proxy.info)
        return proxy.target.policy(view)


class ShadowTarget(TargetModel):
    """A copy of the target fed the target's view of every state as LBR reconstructs it."""

    def __init__(self, target: Strategy, info: MatchInfo) -> None:
        super().__init__()
        self.target = target
        self.world = World(target.game, info)
        self.info = info
        target.start_match(info)
        self._stand_in: tuple[int, tuple[int, ...]] | None = None
        self._observes = target.run_mode.every_state

    def _hole(self, state: State, position: int) -> tuple[int, ...]:
        """The target's cards when shown, else a stand-in kept for the hand while no card dealt collides with it."""
        if state.hole[position]:
            return tuple(state.hole[position])
        known = set(state.visible_board()) | {c for h in state.hole for c in h}
        keep = self._stand_in
        if keep is None or keep[0] != state.hand_id or known.intersection(keep[1]):
            keep = self._stand_in = (state.hand_id, stand_in(state.game, state))
        return keep[1]

    def see(self, view: View) -> None:
        """Feed the copy the target's view of this state; record its policy when it is to act."""
        state = view.state
        position = 1 - view.position
        tv = target_view(state, position, self._hole(state, position), self.world.match, self.info)
        tv = self.world.update(tv.text, tv.match_state)
        self.target.observe(tv)
        if tv.is_my_turn:
            policy = None if self._observes else self.asked(state)
            if policy is None:
                policy = self.target.policy(tv)
            self.record(state.hand_id, state.num_actions, policy)
        if tv.is_final:
            self.target.end_hand(tv)

    def _policy_in(self, state: State) -> ActionPolicy:
        """The copy's policy in the target's view of ``state``."""
        position = state.current_player
        return self.target.policy(target_view(state, position, self._hole(state, position), self.world.match,
                                              self.info))


# ------------------------------------------------------------------ the player

@register
class LBRStrategy(Strategy):
    """Local best response to a strategy with a policy: range through its policy, greedy fold/call/raise."""

    name = "lbr"
    description = ("Local best response (heads-up) against target=SPEC (a strategy exposing its policy): "
                   "its winnings are a lower bound on the target's exploitability.")
    # the parameters, set from params by Strategy.__init__
    target: str
    tseed: int
    tname: str
    samples: int
    actions: str
    params: ClassVar[dict[str, Param]] = {
        "target": Param(str, "", "the opponent's strategy spec, ';' between its parameters (required)"),
        "tseed": Param(int, -1, "the opponent's seed in the match (-1: unknown; only strategies whose policy "
                                "depends on their generator need it)"),
        "tname": Param(str, "", "the opponent's name in the match (default: as the match tells)"),
        # 4,000, not equity_vectors.PREFLOP_BOARDS: every LBR figure published was measured with 4,000 boards
        "samples": Param(int, 4_000, "random boards behind hold'em preflop equities",
                         lambda v: v >= 50, "must be >= 50"),
        "actions": Param(str, "full", "LBR's actions street by street: full, DeepStack's S1|S2|S3|S4, cc1|cc2 (check/"
                                      "call the first one or two streets), or streets of letters F C P A B R split "
                                      "by '/' (acpcbot.measure.lbr_actions)", check_setting,
                         "expected full, S1, S2, S3, S4, cc1, cc2 or streets like C/C/FCPA/FCPA"),
    }

    # a measurement must not be cut short: a decision the client replaced by its safe fallback would not be
    # LBR's (the dealer's own time limits still apply)
    run_mode = RunMode("untimed")

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Heads-up games only."""
        return check_heads_up(game)

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        super().__init__(game, rng, **params)
        if not self.target:
            raise ValueError("lbr needs target=SPEC: the strategy it best-responds to")
        self.model: TargetModel | None = None
        self.setting = parse_setting(self.actions)
        self.equity = EquityCache(game, rng.getrandbits(32), self.samples)
        self._hand: int | None = None
        self._weights = np.zeros(0)
        self._done = 0
        #: times the range ran empty (the target played an action its policy says it never plays)
        self.resets = 0
        #: the last decision's candidates, for inspection
        self.last: list[Valued] = []

    def attach(self, model: TargetModel) -> None:
        """Use ``model`` for the target instead of a copy built from its spec (acpc-match lbr in memory)."""
        self.model = model

    def start_match(self, match: MatchInfo) -> None:
        """Build the shadow copy of the target unless a live one was attached; prepare the equity tables."""
        self.equity.prepare()
        if self.model is not None:
            return
        seed = self.tseed if self.tseed >= 0 else None
        target = make_target(self.target, self.game, seed)
        name = self.tname or (match.opponents[0] if match.opponents else "target")
        info = MatchInfo(game=self.game, name=name, seed=seed, time_per_hand=match.time_per_hand,
                         opponents=(match.name,), spec=target.spec)
        self.model = ShadowTarget(target, info)

    def observe(self, view: View) -> None:
        """Every state goes to the target model (a shadow copy learns from it)."""
        if self.model is None:
            raise RuntimeError("lbr: start_match was not called")
        self.model.see(view)

    def _range(self, view: View) -> np.ndarray:
        """The target's range now: narrowed by each of its actions in this hand through its policy."""
        assert self.model is not None
        state = view.state
        if view.hand_id != self._hand:
            self._hand, self._done = view.hand_id, 0
            self._weights = initial_range(self.game, view.hole)
        me = view.position
        w = self._weights
        for step in state.steps(self._done):
            if step.player == me:
                continue
            policy = self.model.recorded(view.hand_id, step.index) or self.model.policy_in(step.before)
            w = narrow(w, policy.prob(step.action))
        self._done = state.num_actions
        if not w.sum() > 0:
            self.resets += 1
            # once per match: a policy that disagrees with play makes LBR's figure doubtful, not wrong to report
            (log.warning if self.resets == 1 else log.debug)(
                "hand %d: the target played %s, which its policy gives no holding left in LBR's range; LBR starts "
                "the range again (this happens when a strategy's policy and its play disagree)",
                view.hand_id, state.actions)
            w = initial_range(self.game, view.hole)
        self._weights = w
        return w * ~blocked(self.game, list(view.hole) + list(view.board_cards))

    def act(self, view: View, deadline: float) -> Action:
        """The best of fold, check/call and the candidate raises against the target's range."""
        assert self.model is not None
        weights = self._range(view)
        equity, valid = self.equity.get(view.hole, view.board_cards)
        weights = weights * valid
        state = view.state
        if not weights.sum() > 0:
            if not raises_allowed(self.setting, state.round):
                return candidates(state, self.setting)[-1]  # check/call: the one action every setting allows
            return view.state.raise_or_call() if view.can_raise else view.fold_or_check()
        model = self.model

        def fold_probs(action: Action) -> np.ndarray:
            return model.policy_in(state.copy().apply(action)).prob(FOLD)

        self.last = valuate(state, view.position, equity, weights, fold_probs, candidates(state, self.setting))
        return choose(self.last).action
