"""``adaptive``: acpcbot's own exploitative hold'em player: an opponent model and a best response to it.

How it decides: it counts what each opponent does in each kind of spot
(``adaptive.stats``: fold/call/raise by street, by whether it faces a bet
and how big, shrunk toward a generic opponent while hands are few); during
a hand it narrows each opponent's range (1326 weights; ``adaptive.tracking``) by those
frequencies through a soft threshold model (an opponent raising x% of the
time here raises with its top x% of hands on this board), mixed with "the
action says nothing" by how well the model has explained the hands the
opponent showed down.  Heads-up it then plays the best response to that
model over the rest of the hand (``adaptive.search``): every action of the
betting round (our sizes from a documented set, all-in; past three raises
in a round only all-in; in limit the raise up to the game's own cap), the
opponent's replies with the chances the model gives each of its hands, and
the later streets played out on sampled
runouts to a river betting round, showdowns valued exactly.  The value is
plain expected chips: no variance penalty.

The exploits follow from the numbers rather than from rules: a player who
folds too much is attacked, one who never folds is value-bet (late, when
the cards have told us most) and never bluffed, a rock's raise narrows its
range to strong hands (so we fold), a card-blind maniac's raise narrows
nothing (so we call it down).

Heads-up, where the game has a blueprint (hulhe; hunl once its policy is there), it stands on it (adaptive.floor:
re-solved where the game's spec re-solves, hulhe's river): each hand is played by the floor or the model's
deviation, weighed by the deviation's importance-sampled results, not the model's own estimate (adaptive.portfolio).

An answer is always ready: :meth:`AdaptiveStrategy.quick_action` (on the
blueprint floor its most likely action, else equity against the range and
pot odds, within a millisecond) is what ``act`` plays when the search would
miss its deadline and what the client sends if ``act`` overruns or fails.
With two or more opponents still in the hand it values moves against all
of them together (Monte Carlo equity against their narrowed ranges, fold
chances multiplied): a one-step look-ahead, simpler but sound.  Its policy
(heads-up) is the very search ``act`` runs, for every holding, asked on
copies of what it tracks: asking never changes later play.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...engine import CALL, Action, State
from ...evaluator import pair_ranks
from ...gamedef import GameDef
from ...policy_types import holding_free_policy
from ...world import MatchInfo, View
from ..base import ActionPolicy, NoPolicy, Param, RunMode, Strategy, parse_bool
from ..common import holdem_only
from ..persist import ModelFile, ModelFileError, ModelSaver, folder_exists
from ..probes import KINDS as PROBE_KINDS, ProbePolicy
from ..registration import register
from .floor import BlueprintFloor, merge, shipped_floor, stands_on_blueprint
from .multiway import multiway_values
from .policy import ModelPolicy
from .portfolio import COLD_HANDS, DEVIATION_BB, Portfolio, deviation_rows, support_for  # noqa: F401
from .preflop import ALL_PAIRS, preflop_runouts
from .ranges import HandTracker, pair_of, pairs_with, preflop_bins, quick_equity
from .runouts import Runouts, runout_boards, signed_sums, warm_uniform
from .search import NUM_BINS, OpponentPolicy, Search, our_raises, quick_raise
from .stats import OpponentStats
from .tracking import RangeTracking

#: no-limit bet sizes of the multiway look-ahead, as fractions of the pot after calling (plus the minimum and all-in)
BET_FRACTIONS = (0.33, 0.5, 0.75, 1.0, 1.5, 2.5)
#: moves within this many big blinds of the best are near-ties in the multiway look-ahead, broken at random
TIE_BB = 0.02
#: runouts sampled to play the later streets out in the heads-up search (every river card on the turn)
RUNOUTS = 12
#: runouts an all-in is valued on on the flop (every river card on the turn); the first RUNOUTS of them are those
#: the later streets are played on (before the flop: ``preflop.ALLIN_RUNOUTS``)
FLOP_ALLIN_RUNOUTS = 100
#: the quick answer raises (pot-sized in no-limit) from this equity against the range, and calls from the pot odds
QUICK_RAISE_EQUITY = 0.7
#: save the model file every this many hands (and at the end of the match)
SAVE_EVERY = 1000
MODEL_KIND, MODEL_VERSION = "adaptive", 3  # 2: a fifth bet-size bucket (over three pots); 3: raise size classes


@dataclass(frozen=True)
class Choice:
    """A decision: the action and the values of the moves considered (chips from now on)."""

    action: Action
    #: each move's value: expected chips over the hand (heads-up: unnormalised by the range's weight)
    values: dict[Action, float]
    equity: float


@dataclass
class _Preflop:
    """A search before the flop for every holding, laid out (Search.lay_out): act's rows and policy's whole table."""

    actions: list[Action]
    search: Search
    #: the range's weight and its signed sums by bin (the equity's)
    mass: float
    signed: np.ndarray
    #: every holding's values (1326, actions), made from the layout when policy first asks
    table: np.ndarray | None = None


@dataclass(frozen=True)
class _Entry:
    """One opponent's entry in the model file: its statistics, and the portfolio's records of it when there are any."""

    stats: OpponentStats
    portfolio: Portfolio
    key: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data (``portfolio``: adaptive.portfolio.Portfolio.to_json)."""
        out = self.stats.to_json()
        kept = self.portfolio.to_json(self.key)
        if kept:
            out["portfolio"] = kept
        return out


class _Entries(Mapping[str, _Entry]):
    """The model file's entries of a player, read from it at save time (persist.ModelSaver's ``models``)."""

    def __init__(self, player: "AdaptiveStrategy") -> None:
        self.player = player

    def __getitem__(self, key: str) -> _Entry:
        return _Entry(self.player.stats[key], self.player.portfolio, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.player.stats)

    def __len__(self) -> int:
        return len(self.player.stats)


def _is_share(text: str) -> bool:
    """Whether ``text`` is empty or a number in 0..1."""
    try:
        return text == "" or 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


@register
class AdaptiveStrategy(RangeTracking, Strategy):
    """acpcbot's own hold'em player: per-opponent statistics, narrowed ranges and a best response to them.

    See the module docstring for the method.  Parameters: ``model=FILE``
    keeps the opponent statistics and, on a floor, the portfolio's records (our results, the deviations' measured
    gains) across matches (acpcbot.strategies.persist), keyed by
    the opponent's name when the match names it, else its seat.  The
    random generator is the strategy's seeded ``rng``, so a match replays
    exactly.  Plays every Texas hold'em game (2+ players, limit or no-limit).
    """

    name = "adaptive"
    run_mode = RunMode("guarded", "ends")  # it learns from the ends of hands (end_hand), not between its turns
    description = "acpcbot's own player: opponent statistics, ranges narrowed by them, a best response to them."
    # the parameters, set from params by Strategy.__init__
    model: str
    runouts: int
    blueprint: bool
    resolve: bool
    floor_policy: str
    support: str
    gifts: bool
    opponent: str
    params: ClassVar[dict[str, Param]] = {
        "model": Param(str, "", "JSON file keeping the opponent statistics and the portfolio's records across "
                                 "matches (empty: none)",
                       folder_exists, "its folder must exist"),
        "runouts": Param(int, RUNOUTS, "runouts sampled to play the later streets out (more: slower, finer)",
                         lambda v: 1 <= v <= 200, "must be in 1..200"),
        "blueprint": Param(parse_bool, True, "heads-up, stand on the game's blueprint (hulhe; hunl when "
                                             "floor_policy names its file), deviating as far as its measured results justify (0: the "
                                             "model's best response only)"),
        "resolve": Param(parse_bool, True, "on the floor, re-solve where the blueprint does (hulhe: the river, as "
                                           "blueprint does); 0: the blueprint's table alone"),
        "floor_policy": Param(str, "", "the blueprint policy file to stand on (default: the game's shipped one "
                                   "where its spec is for the default players: hulhe)",
                              lambda v: v == "" or os.path.isfile(v), "must be an existing file"),
        "support": Param(str, "", "on the floor, the deviation departs only to actions the floor's row plays at "
                                  "least this often (0: to any action; empty: the game's, adaptive.portfolio.support_for)",
                         _is_share, "must be empty or a number in 0..1"),
        "gifts": Param(parse_bool, True, "on the floor, once our results show an opponent giving chips away, the "
                                         "deviation may risk them: any action, a quicker ramp (adaptive.portfolio."
                                         "Z_GIFTS; 0: never)"),
        "opponent": Param(str, "", "the opponent's exact policy when known (probe:kind=K): the best response to it "
                                   "instead of the model (for measurement; empty: the model)",
                          lambda v: v == "" or v.startswith("probe:kind=") and v.split("=", 1)[1] in PROBE_KINDS,
                          "must be empty or probe:kind=" + "|".join(PROBE_KINDS)),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gen = np.random.default_rng(self.rng.getrandbits(64))
        self.info: MatchInfo | None = None
        self.stats: dict[str, OpponentStats] = {}
        self.hand: HandTracker | None = None
        self.big_blind = float(max(max(self.game.blind), min(self.game.raise_size) if self.game.is_limit else 1))
        self.portfolio = Portfolio(self.gifts)  # on the floor: how far to lean on the model, by its deviation's results
        self.store = ModelFile(self.model, MODEL_KIND, MODEL_VERSION) if self.model else None
        if self.store is not None:
            for key, entry in self.store.entries.items():
                try:
                    self.stats[key] = OpponentStats.from_json(entry)
                    self.portfolio.load(key, entry.get("portfolio", {}))
                except ValueError as exc:  # SavedStatsError among them
                    raise ModelFileError(f"model file {self.model}: entry {key!r}: {exc}") from None
        self.saver = ModelSaver(self.store, _Entries(self), "adaptive: %s; the statistics of this match are not saved",
                                SAVE_EVERY)
        #: the latest decision (for inspection and tests)
        self.last: Choice | None = None
        #: the row ``act`` played from heads-up: (hand, step, actions, row), for :meth:`played_policy`
        self._played_row: tuple[int, int, tuple[Action, ...], np.ndarray] | None = None
        #: the blueprint adaptive stands on (heads-up, where the game has one; adaptive.floor)
        self.floor: BlueprintFloor | None = None
        if stands_on_blueprint(self.game, self.blueprint, self.opponent, self.floor_policy):
            self.floor = shipped_floor(self.game, self.floor_policy, self.resolve)
        #: the least share of the floor's row an action needs for the deviation to depart to it
        self.support_share = float(self.support) if self.support else support_for(self.game)
        #: how long a decision's search has been taking (seconds, a running mean)
        self._search_s = 0.01
        #: per opponent, the searches before the flop for its statistics' snapshot: (hands of the snapshot,
        #: {(position, betting history): the search laid out, and its table once policy asks})
        self._laid_out: dict[str, tuple[int, dict[tuple, _Preflop]]] = {}
        #: per opponent, its statistics as they were at the start of a hand (hands seen then, a copy): what the
        #: searches before the flop read, retaken once the hands seen grow by a PREFLOP_REFRESH-th
        self._frozen: dict[str, tuple[int, OpponentStats]] = {}

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Hold'em only: ranges, equities and strengths are hold'em's."""
        return holdem_only(game)

    @classmethod
    def deterministic_for(cls, game: GameDef, params: dict[str, Any]) -> bool:
        """Heads-up off a blueprint floor (blueprint=0, a known opponent, or a game without a blueprint there) its
        rows are one-hot and ``act`` plays them; on the floor they mix (the blueprint's rows)."""
        if game.num_players != 2:
            return False  # multiway: no policy, and the look-ahead breaks near-ties at random
        blueprint = params.get("blueprint", cls.params["blueprint"].default)
        opponent = params.get("opponent", cls.params["opponent"].default)
        return not stands_on_blueprint(game, blueprint, opponent, params.get("floor_policy") or "")

    # ------------------------------------------------------------- the match

    def start_match(self, match: MatchInfo) -> None:
        """Remember the match (opponents' names key the statistics); build the tables and runouts now."""
        self.info = match
        # the rank tables (a few hundred ms), the boards before the flop and the uniform range's tables on them:
        # not inside a timed decision
        played, allin = preflop_runouts()
        warm_uniform(played, allin, preflop_bins())

    def end_hand(self, view: View) -> None:
        """Account for the hand's last actions and learn from the cards shown."""
        hand = self.sync(view)
        for event in hand.events:
            shown = view.shown.get(event.position)
            if shown and len(shown) == 2 and event.mean > 0:
                ratio = float(event.chance[pair_of(shown)]) / event.mean
                self.opponent_stats(view, event.position).info.add(event.cls, ratio)
        result = view.result
        for p in range(self.game.num_players):
            if p != view.position:
                key = self.key(view, p)
                stats = self.opponent_stats(view, p)
                stats.hands += 1
                if result is not None and self.game.num_players == 2:
                    stats.add_result(result / self.big_blind)
                    if self.floor is not None:
                        self.portfolio.end_hand(key, view, result / self.big_blind)
                self.saver.changed(key)
        self.saver.hand_done()

    def end_match(self) -> None:
        """Save the model file."""
        self.saver.save()

    # ------------------------------------------------------------- deciding

    def act(self, view: View, deadline: float) -> Action:
        """Heads-up: the best response to the model over the rest of the hand; multiway: a one-step look-ahead.

        When less time is left before ``deadline`` (``time.monotonic()``;
        0 or less: none) than twice what a search has been taking, it plays
        :meth:`quick_action` instead of starting one.  On a re-solving floor
        the re-solve runs within the deadline too (cut short: the table's row).
        """
        hand = self.sync(view)
        opponents = [p for p in view.opponents]
        self._played_row = None
        if 0 < deadline and deadline - time.monotonic() < 2 * self._search_s:
            self.last = None
            return self.quick_action(view)
        start = time.monotonic()
        if len(opponents) == 1:
            choice = self.decide_headsup(view, hand, opponents[0], deadline if deadline > 0 else None)
        else:
            choice = self.decide_multiway(view, hand, opponents)
        self._search_s = 0.8 * self._search_s + 0.2 * (time.monotonic() - start)
        self.last = choice
        return choice.action

    def quick_action(self, view: View) -> Action:
        """A sound answer within a millisecond: on the blueprint floor the table's most likely action (a table read,
        never a re-solve); else it raises from QUICK_RAISE_EQUITY against the ranges now (adaptive.ranges.quick_equity;
        the raise is adaptive.search.quick_raise: pot-sized in no-limit), calls when the equity beats the pot odds,
        else checks or folds.  The tracker is brought up to ``view`` as ``act`` would (the client asks just before ``act``)."""
        state = view.state
        if self.floor is not None and len(view.opponents) == 1:
            return self.floor.quick_action(state)
        hand = self.sync(view)
        eq = quick_equity(tuple(view.hole), tuple(view.board_cards), [hand.ranges[p] for p in view.opponents])
        if eq >= QUICK_RAISE_EQUITY:
            action = quick_raise(state)
            if action is not None:
                return action
        to_call = view.to_call
        if to_call > 0 and eq * state.pot_after_call(view.position) >= to_call:
            return CALL
        return state.fold_or_check()

    def raise_targets(self, state: State) -> list[int]:
        """Raise-to sizes the multiway look-ahead tries (adaptive.search.our_raises: the cap, all-in for slivers)."""
        return [state.raise_bounds()[0] if self.game.is_limit else a.size  # type: ignore[index]
                for a in our_raises(state, BET_FRACTIONS)]

    def _pick(self, values: dict[Action, float], rng_scale: float) -> Action:
        """The best move; near-ties (within TIE_BB big blinds) are broken at random."""
        best = max(values.values())
        near = [a for a, v in values.items() if v >= best - rng_scale]
        return near[int(self.gen.integers(len(near)))] if len(near) > 1 else max(values, key=lambda a: values[a])

    # ------------------------------------------------------------- the policy

    has_policy = True

    def played_policy(self, view: View) -> ActionPolicy | None:
        """On a blueprint floor, the row ``act`` just played from heads-up (the floor's re-solve is in it: a replay
        would search every holding and solve again); None off the floor, where adaptive is deterministic and AIVAT
        replays nothing, and where ``act`` played its quick answer."""
        kept = self._played_row
        if kept is None or self.floor is None or kept[:2] != (view.hand_id, view.state.num_actions):
            return None
        return holding_free_policy(self.game, kept[2], kept[3])

    def policy(self, view: View) -> ActionPolicy:
        """Heads-up: the best response for every holding at once (one-hot rows, the very search ``act`` runs;
        on the blueprint, its rows where adaptive does not deviate).

        NoPolicy with two or more opponents in the hand (the multiway look-ahead is per holding only).

        Asking changes nothing: the state may be one the hand never reaches (LBR's hypothetical raises), so
        the tracker and the statistics are brought up to ``view`` on copies, dropped afterwards.
        """
        opponents = view.opponents
        if len(opponents) != 1:
            raise NoPolicy(f"{self.spec}: a policy only heads-up (here {len(opponents)} opponents are in the hand)")
        saved_hand, saved_stats = self.hand, self.stats
        self.hand = saved_hand.copy() if saved_hand is not None else None
        self.stats = dict(saved_stats)
        for p in range(self.game.num_players):  # every other seat: a folded one's earlier actions are counted too
            key = self.key(view, p)
            if p != view.position and key in saved_stats:
                self.stats[key] = saved_stats[key].copy()
        try:
            hand = self.sync(view)
            if view.state.round == 0:  # the very table act reads
                actions, values, mass, _ = self._preflop_table(view, opponents[0])
            else:
                search = self._search(view, hand, opponents[0], ALL_PAIRS)
                actions, values = search.action_values()
                mass = search.mass.sum()
            actions, _, probs = self._rows(view, opponents[0], actions, values, mass, one=False)
        finally:
            self.hand, self.stats = saved_hand, saved_stats
        return ActionPolicy(tuple(actions), probs, self.game)

    # ------------------------------------------------------------- heads-up

    def decide_headsup(self, view: View, hand: HandTracker, opp: int, deadline: float | None = None) -> Choice:
        """The best response, for our holding, to the opponent's modelled policy over the rest of the hand.

        On a blueprint floor: the portfolio's row (adaptive.portfolio: floor or deviation by results), the floor's
        re-solve within ``deadline`` (``time.monotonic()``; None: no clock).
        """
        row = pair_of(view.hole)
        if view.state.round == 0:
            actions, values, mass, signed = self._preflop_row(view, opp, row)
            equity = 0.5 + 0.5 * float(signed[preflop_bins()[row]] / mass) if mass > 0 else 0.5
        else:
            search = self._search(view, hand, opp, np.array([row]))
            actions, values = search.action_values()
            mass = search.mass.sum()
            equity = 0.5 + 0.5 * float(signed_sums(search.mass)[search.our_bins[0]] / mass) if mass > 0 else 0.5
        actions, values, rows = self._rows(view, opp, actions, values, mass, one=True, deadline=deadline)
        row = rows[0]
        self._played_row = (view.hand_id, view.state.num_actions, tuple(actions), row)
        best = int(np.argmax(row)) if row.max() >= 1.0 else int(np.searchsorted(np.cumsum(row), self.rng.random()))
        return Choice(actions[min(best, len(actions) - 1)], {a: float(v) for a, v in zip(actions, values[0])},
                      equity)

    def _preflop_table(self, view: View, opp: int) -> tuple[list[Action], np.ndarray, float, np.ndarray]:
        """Before the flop: the search for every holding at once (actions, values (1326, actions), the range's
        weight, its signed sums by bin), kept per betting history while the statistics' snapshots (``_freeze``)
        stand; the betting so far is counted and narrowed on copies of them: a pure function of the history and
        the hands over, so ``act``, ``policy`` and a fresh copy replayed through the match agree."""
        laid = self._preflop_layout(view, opp)
        if laid.table is None:
            laid.table = laid.search.row_values(ALL_PAIRS)
        return laid.actions, laid.table, laid.mass, laid.signed

    def _preflop_row(self, view: View, opp: int, row: int) -> tuple[list[Action], np.ndarray, float, np.ndarray]:
        """Before the flop, for ``act``: :meth:`_preflop_table` with our holding's row alone (values (1, actions)),
        the very floats of the table's row: the table's when it is made, else the layout valued for this row only."""
        laid = self._preflop_layout(view, opp)
        values = laid.table[[row]] if laid.table is not None else laid.search.row_values(np.array([row]))
        return laid.actions, values, laid.mass, laid.signed

    def _preflop_layout(self, view: View, opp: int) -> _Preflop:
        """The search before the flop at this betting history laid out (Search.lay_out), kept per history for the
        opponent's statistics' snapshot: the rows ``act`` asks and the whole table ``policy`` reads come from it."""
        key, held = self._preflop_key(view, opp)
        kept = self._laid_out.get(key[0])
        if kept is None or kept[0] != held:  # a new snapshot: the searches of the last are never asked again
            kept = self._laid_out[key[0]] = (held, {})
        laid = kept[1].get(key[1:])
        if laid is None:
            search = self._preflop_search(view, opp)
            laid = kept[1][key[1:]] = _Preflop(search.lay_out(), search, float(search.mass.sum()),
                                               signed_sums(search.mass))
        return laid

    def _preflop_key(self, view: View, opp: int) -> tuple[tuple, int]:
        """The key of a search before the flop (opponent, position, betting history) and the hands of the
        opponent's statistics' snapshot it reads (snapshots taken now for a view with no hand started)."""
        me = view.position
        for p in range(self.game.num_players):
            if p != me and self.key(view, p) not in self._frozen:  # asked out of the blue: snapshot now
                self._freeze(view, p)
        opp_key = self.key(view, opp)
        return (opp_key, me, tuple(view.state.actions[0])), self._frozen[opp_key][0]

    def _preflop_search(self, view: View, opp: int) -> Search:
        """The search before the flop for every holding, on the statistics' snapshots (the betting so far counted
        and narrowed on copies of them)."""
        keys = [self.key(view, p) for p in range(self.game.num_players) if p != view.position]
        saved_hand, saved_stats = self.hand, self.stats
        self.hand, self.stats = None, dict(saved_stats)
        for k in keys:
            self.stats[k] = self._frozen[k][1].copy()
        try:
            hand = self.sync(view, freeze=False)
            return self._search(view, hand, opp, ALL_PAIRS)
        finally:
            self.hand, self.stats = saved_hand, saved_stats

    def floor_rows(self, view: View, actions: list[Action], values: np.ndarray, one: bool,
                   deadline: float | None = None) -> tuple[list[Action], np.ndarray, np.ndarray] | None:
        """The floor's rows for our holding (``one``: re-solved within ``deadline``) or every pair, beside the search's
        ``actions`` and ``values`` (adaptive.floor.merge: the actions of both, the values and the floor's rows over
        them); None off a floor."""
        if self.floor is None:
            return None
        state = view.state
        probs = self.floor.row(state, deadline)[None, :] if one else self.floor.rows(state)
        return merge(state, actions, values, self.floor.actions(state), probs)

    def _rows(self, view: View, opp: int, actions: list[Action], values: np.ndarray, mass: float, one: bool,
              deadline: float | None = None) -> tuple[list[Action], np.ndarray, np.ndarray]:
        """Our actions, their values and probabilities per row (our holding's alone if ``one``): the best response
        (one-hot); on the floor, over the floor's actions too, the portfolio's mixture of the floor's row and the
        deviation (adaptive.portfolio.deviation_rows)."""
        merged = self.floor_rows(view, actions, values, one, deadline)
        if merged is None:
            best = np.zeros(values.shape)
            best[np.arange(len(values)), np.argmax(values, axis=1)] = 1.0
            return actions, values, best
        actions, values, floor = merged
        key = self.key(view, opp)
        deviation = deviation_rows(values, floor, mass, self.opponent_stats(view, opp).hands, self.big_blind,
                                   self.portfolio.support(key, self.support_share))
        ours = 0 if one else pair_of(view.hole) if len(view.hole) == 2 else None
        model = values / (mass * self.big_blind) if mass > 0 else None  # the estimate's control variates
        return actions, values, self.portfolio.mix(key, view, actions, floor, deviation, ours, model)

    def _search(self, view: View, hand: HandTracker, opp: int, ours: np.ndarray) -> Search:
        """The search of one heads-up decision for our rows ``ours`` (pair indices)."""
        state = view.state
        board = tuple(view.board_cards)
        w0 = hand.ranges[opp]
        if not w0.sum() > 0:  # the model was wrong about every pair (sync restarts it heads-up): the live pairs
            w0 = (~pairs_with(board)).astype(np.float64)
        policy: OpponentPolicy = ModelPolicy(self.opponent_stats(view, opp), opp, self.game) if not self.opponent \
            else ProbePolicy(self.opponent.split("=", 1)[1], NUM_BINS)
        if len(board) == self.game.total_board_cards:
            return Search(state, view.position, opp, policy, hand.bins(board), w0, ours, None)
        cont, allin = self._runouts(hand, board)
        return Search(state, view.position, opp, policy, hand.bins(board), w0, ours, cont, allin)

    def _runouts(self, hand: HandTracker, board: tuple[int, ...]) -> tuple[Runouts, Runouts]:
        """This street's sampled runouts: the few the later streets are played on, and the many an all-in runs out on.

        Seeded by the hand and board (drawn once per match before the flop),
        the same for every row of a policy.
        """
        if not board:
            return preflop_runouts()
        pair = hand.runouts.get(len(board))
        if pair is None:  # on the turn: every river card
            seed = hash((hand.hand_id, board, 0x5EED)) & 0xFFFFFFFF
            boards = runout_boards(board, FLOP_ALLIN_RUNOUTS, seed)
            played = Runouts(pair_ranks(boards[:self.runouts]))
            # the all-in's ranks are made only if an all-in is valued (never in limit hold'em)
            pair = hand.runouts[len(board)] = (played, Runouts(None, boards, played))
        return pair

    # ------------------------------------------------------------- multiway

    def decide_multiway(self, view: View, hand: HandTracker, opponents: list[int]) -> Choice:
        """Against two or more opponents: the one-step look-ahead's values (adaptive.multiway), near-ties at random."""
        values, e = multiway_values(view, hand, opponents, self.raise_targets(view.state),
                                    lambda p, spot: float(self.opponent_stats(view, p).predict(spot)[0]), self.gen)
        return Choice(self._pick(values, TIE_BB * self.big_blind), values, e)
