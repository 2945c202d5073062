"""``adaptive``: acpcbot's own exploitative hold'em player (opponent model, ranges, EV choice).

How it decides, in one paragraph: it counts what each opponent does in each
kind of spot (``acpcbot.strategies.adaptive_stats``: fold/call/raise by street, by whether
it faces a bet and how big, shrunk toward a generic opponent while hands
are few); during a hand it narrows each opponent's range (1326 weights) by
those frequencies through a soft threshold model (an opponent raising x% of
the time here raises with its top x% of hands on this board), mixed with
"the action says nothing" by how well the model has explained the hands
the opponent showed down; it computes its equity against every pair at
once; then it values each move (fold, check/call, a few bet sizes) by a
one-step look-ahead: the opponent folds, calls or raises as often as its
statistics say, with the part of its range that would take each reply, and
the rest of the hand is worth our equity times the pot.  It plays the move
worth the most.

The exploits follow from the numbers rather than from rules: bets are
small where the opponent folds as often to small bets as to big ones and
big where it calls regardless; a player who folds too much is attacked, one
who never folds is value-bet and never bluffed, a rock's raise narrows its
range to strong hands (so we fold), a card-blind maniac's raise narrows
nothing (so we call it down).

Heads-up is the home game.  With two or more opponents still in the hand it
values moves against all of them together (Monte Carlo equity against their
narrowed ranges, fold chances multiplied); that is simpler but sound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, State, raise_to
from ..evaluator import equity
from ..gamedef import GameDef
from .adaptive_stats import OpponentStats, SavedStatsError, Spot, info_class, spot_of
from .persist import ModelFile, ModelFileError, ModelSaver, folder_exists, opponent_key
from ..world import MatchInfo, View
from .adaptive_ranges import (PreflopEquities, action_likelihood, range_histogram, reference_percentiles, score_bins, equity_vector, pair_of, pairs_with, range_equity,
                              strength_scores, threshold_likelihoods)
from .base import Param, Strategy, parse_bool
from .common import holdem_only
from .registration import register


_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE

#: no-limit bet sizes tried, as fractions of the pot after calling (plus the minimum raise and all-in)
BET_FRACTIONS = (0.33, 0.5, 0.75, 1.0, 1.5, 2.5)
#: a size leaving less than this share of the pot behind is replaced by all-in
SHORT_BEHIND = 0.25
#: the bets (fractions of the pot) we consider on the street after the one we decide in
NEXT_STREET_BETS = (0.33, 0.75)
#: the multiway value of the pot when betting goes on to a later street: equity x pot x REALIZATION
REALIZATION = 1.0
#: Monte Carlo deals for the equity against two or more opponents
MULTIWAY_SAMPLES = 600
#: equity against the players who call a multiway bet, as a share of the equity against all of them
MULTIWAY_CALLER_DISCOUNT = 0.85
#: moves within this many big blinds of the best are near-ties, broken at random
TIE_BB = 0.02
#: a prior standard deviation of our result per hand, in big blinds (no-limit, limit)
PRIOR_RESULT_SD = {False: 30.0, True: 4.0}
#: save the model file every this many hands (and at the end of the match)
SAVE_EVERY = 1000
MODEL_KIND, MODEL_VERSION = "adaptive", 1


@dataclass
class Event:
    """An opponent action of this hand, kept to learn from its cards if they are shown."""

    position: int
    cls: str
    #: the threshold model's chance of the action per pair, and its mean over the range then
    chance: np.ndarray
    mean: float


@dataclass
class HandTracker:
    """What ``adaptive`` knows about the hand in progress: opponents' ranges, events, cached vectors."""

    hand_id: int
    me: int
    hole: tuple[int, ...]
    ranges: dict[int, np.ndarray]
    done: int = 0
    removed: int = 0
    events: list[Event] = field(default_factory=list)
    #: strength bins per street (by board size)
    scores: dict[int, np.ndarray] = field(default_factory=dict)
    equities: dict[int, np.ndarray] = field(default_factory=dict)
    multi: dict[tuple, float] = field(default_factory=dict)

    def bins(self, board: tuple[int, ...]) -> np.ndarray:
        """Strength bins of every pair on ``board`` (cached per street)."""
        b = self.scores.get(len(board))
        if b is None:
            b = self.scores[len(board)] = score_bins(strength_scores(board))
        return b


@dataclass(frozen=True)
class Choice:
    """A decision: the action and the values of the moves considered (chips from now on)."""

    action: Action
    #: each move's score (mean less risk x variance, chips)
    values: dict[Action, float]
    equity: float
    risk: float = 0.0
    outcomes: dict[Action, "Moments"] | None = None


@register
class AdaptiveStrategy(Strategy):
    """acpcbot's own hold'em player: per-opponent statistics, narrowed ranges and a one-step EV choice.

    See the module docstring for the method.  Parameters: ``model=FILE``
    keeps the opponent statistics across matches (acpcbot.strategies.persist), keyed by
    the opponent's name when the match names it, else its seat.  The
    random generator is the strategy's seeded ``rng``, so a match replays
    exactly.  Plays every Texas hold'em game (2+ players, limit or no-limit).
    """

    name = "adaptive"
    description = "acpcbot's own player: opponent statistics, ranges narrowed by them, EV of fold/call/bet sizes."
    params: ClassVar[dict[str, Param]] = {
        "model": Param(str, "", "JSON file keeping the opponent statistics across matches (empty: none)",
                       folder_exists, "its folder must exist"),
        "risk": Param(float, 1.0, "weight of the variance penalty that plays for significance (0: plain EV)",
                      lambda v: 0 <= v <= 100, "must be in 0..100"),
        "lookahead": Param(parse_bool, True, "play the next street out in the look-ahead (0: share the pot by equity)"),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gen = np.random.default_rng(self.rng.getrandbits(64))
        self.preflop = PreflopEquities(self.gen)
        self.info: MatchInfo | None = None
        self.stats: dict[str, OpponentStats] = {}
        self.hand: HandTracker | None = None
        self.big_blind = float(max(max(self.game.blind), min(self.game.raise_size) if self.game.is_limit else 1))
        self.store = ModelFile(self.model, MODEL_KIND, MODEL_VERSION) if self.model else None
        if self.store is not None:
            for key, entry in self.store.entries.items():
                try:
                    self.stats[key] = OpponentStats.from_json(entry)
                except SavedStatsError as exc:
                    raise ModelFileError(f"model file {self.model}: entry {key!r}: {exc}") from None
        self.saver = ModelSaver(self.store, self.stats, "adaptive: %s; the statistics of this match are not saved",
                                SAVE_EVERY)
        #: the latest decision (for inspection and tests)
        self.last: Choice | None = None

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Hold'em only: ranges, equities and strengths are hold'em's."""
        return holdem_only(game)

    # ------------------------------------------------------------- the match

    def start_match(self, match: MatchInfo) -> None:
        """Remember the match (opponents' names key the statistics); build the evaluator's tables now."""
        self.info = match
        # the first ranking of a batch builds lookup tables (a few hundred ms): not inside a timed decision
        equity_vector((0, 5), (10, 20, 30, 40, 50), self.gen)

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
                self.saver.changed(key)
        self.saver.hand_done()

    def end_match(self) -> None:
        """Save the model file."""
        self.saver.save()

    # ------------------------------------------------------------- the opponents

    def key(self, view: View, position: int) -> str:
        """The key of the opponent sitting at ``position`` in this hand."""
        return opponent_key(self.info, view, position)

    def opponent_stats(self, view: View, position: int) -> OpponentStats:
        """The statistics of the opponent at ``position`` (created empty on first sight)."""
        key = self.key(view, position)
        stats = self.stats.get(key)
        if stats is None:
            stats = self.stats[key] = OpponentStats()
        return stats

    def sync(self, view: View) -> HandTracker:
        """Bring the hand's tracker up to ``view``: count and narrow on every opponent action not yet seen."""
        hand = self.hand
        if hand is None or hand.hand_id != view.hand_id or hand.me != view.position or hand.hole != view.hole:
            weights = np.where(pairs_with(view.hole), 0.0, 1.0)
            hand = self.hand = HandTracker(view.hand_id, view.position, tuple(view.hole),
                                           {p: weights.copy() for p in range(self.game.num_players)
                                            if p != view.position})
        state = view.state
        for step in state.steps(hand.done):
            self._remove_board(hand, view, step.round)
            if step.player != hand.me:
                self._narrow(hand, view, step.before, step.player, step.action)
        hand.done = state.num_actions
        self._remove_board(hand, view, state.round)
        return hand

    def _remove_board(self, hand: HandTracker, view: View, round_: int) -> None:
        visible = view.state.board[:self.game.board_cards_through(round_)]
        if len(visible) > hand.removed:
            dead = pairs_with(visible[hand.removed:])
            for w in hand.ranges.values():
                w[dead] = 0.0
            hand.removed = len(visible)

    def _narrow(self, hand: HandTracker, view: View, before: State, p: int, action: Action) -> None:
        """Count an opponent's action and narrow its range by the threshold model."""
        stats = self.opponent_stats(view, p)
        spot = spot_of(before, p)
        triple = stats.predict(spot)
        to_call = before.to_call(p)
        kind = ActionType(action[0])
        stats.observe(before, action)
        if kind == _F:
            return
        r = before.round
        board = tuple(view.state.board[:self.game.board_cards_through(r)])
        bins = hand.bins(board)
        w = hand.ranges[p]
        current = range_histogram(bins, w)
        key = (r, spot.kind, 0)
        u = reference_percentiles(stats.reference.blend(key, current), bins)
        stats.reference.add(key, current)
        if r > 0:
            earlier = hand.bins(tuple(view.state.board[:self.game.board_cards_through(r - 1)]))
            stats.reference.add((r, spot.kind, 1), range_histogram(earlier, w))
        chance = threshold_likelihoods(u, triple, to_call > 0)[int(kind)]
        cls = info_class(kind, to_call, before.round)
        total = w.sum()
        mean = float(np.dot(w, chance) / total) if total > 0 else 0.0
        new = w * action_likelihood(chance, w, stats.info.kappa(cls))
        top = new.max()
        if top > 0:
            hand.ranges[p] = new / top
        hand.events.append(Event(p, cls, chance, mean))

    # ------------------------------------------------------------- deciding

    def act(self, view: View, deadline: float) -> Action:
        """The move worth the most chips by the one-step look-ahead."""
        hand = self.sync(view)
        opponents = [p for p in view.opponents]
        if len(opponents) == 1:
            choice = self.decide_headsup(view, hand, opponents[0])
        else:
            choice = self.decide_multiway(view, hand, opponents)
        self.last = choice
        return choice.action

    def raise_targets(self, state: State) -> list[int]:
        """Raise-to sizes to try: the minimum, BET_FRACTIONS of the pot, all-in (one fixed size in limit games)."""
        bounds = state.raise_bounds()
        if bounds is None:
            return []
        lo, hi = bounds
        if self.game.is_limit:
            return [lo]
        out = {lo, hi}
        for frac in BET_FRACTIONS:
            target = state.raise_to_fraction(frac)
            if lo < target < hi and not leaves_short(state, target, hi):
                out.add(target)
        return sorted(out)

    def _pick(self, values: dict[Action, float], rng_scale: float) -> Action:
        """The best move; near-ties (within TIE_BB big blinds) are broken at random."""
        best = max(values.values())
        near = [a for a, v in values.items() if v >= best - rng_scale]
        return near[int(self.gen.integers(len(near)))] if len(near) > 1 else max(values, key=values.get)

    def risk_aversion(self, view: View, opp: int) -> float:
        """lambda of ``mean - lambda x variance`` (per chip): our mean over twice our variance per hand so far.

        Maximising a match's significance (total won over its standard
        deviation) hand by hand means trading a chip of mean for
        mean / (2 x variance) chips of variance, both per hand against this
        opponent; a losing or even match gives 0 (plain expected value).
        ``risk`` scales it (0: always plain expected value).
        """
        if self.risk <= 0:
            return 0.0
        mean, var = self.opponent_stats(view, opp).result_moments(PRIOR_RESULT_SD[self.game.is_limit])
        return self.risk * max(0.0, mean) / (2 * var) / self.big_blind

    # ------------------------------------------------------------- heads-up

    def decide_headsup(self, view: View, hand: HandTracker, opp: int) -> Choice:
        """Fold, check/call and each raise size valued against one opponent."""
        state = view.state
        board = tuple(view.board_cards)
        eqv = hand.equities.get(len(board))
        if eqv is None:
            eqv = hand.equities[len(board)] = (equity_vector(view.hole, board, self.gen) if board
                                               else self.preflop.get(view.hole))
        risk = self.risk_aversion(view, opp)
        ctx = _Context(self, view, hand, opp, eqv, hand.bins(board), risk)
        outcomes: dict[Action, Moments] = {}
        if view.can_fold:
            outcomes[FOLD] = Moments.sure(0.0)
        outcomes[CALL] = ctx.passive(state)
        for target in self.raise_targets(state):
            action = RAISE if self.game.is_limit else raise_to(target)
            outcomes[action] = ctx.aggressive(state, action)
        values = {a: o.score(risk) for a, o in outcomes.items()}
        action = self._pick(values, TIE_BB * self.big_blind)
        return Choice(action, values, range_equity(eqv, hand.ranges[opp]), risk, outcomes)

    # ------------------------------------------------------------- multiway

    def decide_multiway(self, view: View, hand: HandTracker, opponents: list[int]) -> Choice:
        """Against two or more opponents: Monte Carlo equity against their ranges, fold chances multiplied."""
        state = view.state
        me = view.position
        board = tuple(view.board_cards)
        key = (len(board), tuple(opponents))
        e = hand.multi.get(key)
        if e is None:
            ranges = []
            for p in opponents:
                w = hand.ranges[p]
                ranges.append(w if w.sum() > 0 else np.where(pairs_with(tuple(view.hole) + board), 0.0, 1.0))
            try:
                e = equity(view.hole, board, len(opponents), ranges, samples=MULTIWAY_SAMPLES, exact=False,
                           rng=self.gen).equity
            except ValueError:
                e = equity(view.hole, board, len(opponents), None, samples=MULTIWAY_SAMPLES, exact=False,
                           rng=self.gen).equity
            hand.multi[key] = e
        last_round = state.round == self.game.num_rounds - 1
        keep = 1.0 if last_round else REALIZATION
        to_call = view.to_call
        values: dict[Action, float] = {}
        if view.can_fold:
            values[FOLD] = 0.0
        values[CALL] = e * state.pot_after_call(me) * keep - to_call
        for target in self.raise_targets(state):
            action = RAISE if self.game.is_limit else raise_to(target)
            after = state.copy()
            after.apply_unchecked(action)
            added = after.spent[me] - state.spent[me]
            fold_all = 1.0
            called = 0.0
            for p in opponents:
                if after.is_all_in(p):
                    continue
                need = after.to_call(p)
                # the spot p will be in, classified as its statistics record it (adaptive_stats.spot_of)
                f = float(self.opponent_stats(view, p).predict(spot_of(after, p))[0])
                fold_all *= f
                called += (1 - f) * need
            win_pot = after.pot + called
            ev_called = MULTIWAY_CALLER_DISCOUNT * e * win_pot * keep - added
            values[action] = fold_all * state.pot + (1 - fold_all) * ev_called
        action = self._pick(values, TIE_BB * self.big_blind)
        return Choice(action, values, e)


def leaves_short(state: State, target: int, all_in: int) -> bool:
    """Whether raising to ``target`` (``all_in`` being the all-in raise-to) leaves less than SHORT_BEHIND of the pot behind."""
    after = state.pot + (target - state.spent[state.current_player]) + (target - state.max_spent)
    return all_in - target < SHORT_BEHIND * after


class Moments(NamedTuple):
    """A move's result in chips from now on, as a mean and a second moment (so variances add up through mixtures)."""

    mean: float
    m2: float

    @property
    def var(self) -> float:
        """Variance."""
        return max(0.0, self.m2 - self.mean * self.mean)

    def score(self, risk: float) -> float:
        """Mean less ``risk`` x variance."""
        return self.mean - risk * self.var

    def shift(self, x: float) -> "Moments":
        """The outcome plus a sure ``x`` chips."""
        return Moments(self.mean + x, self.m2 + 2 * x * self.mean + x * x)

    @staticmethod
    def sure(x: float) -> "Moments":
        """Exactly ``x`` chips."""
        return Moments(x, x * x)

    @staticmethod
    def lottery(p: float, win: float, lose: float) -> "Moments":
        """``win`` chips with chance ``p``, else ``lose``."""
        return Moments(p * win + (1 - p) * lose, p * win * win + (1 - p) * lose * lose)


def _mix(parts: list[tuple[float, Moments]]) -> Moments:
    total = sum(p for p, _ in parts)
    return Moments(sum(p * o.mean for p, o in parts) / total, sum(p * o.m2 for p, o in parts) / total)


class _Context:
    """One heads-up decision's data: the opponent's range, its percentiles, statistics and our equity vector.

    Moves are valued as :class:`Moments` (mean and second moment of the
    chips won from now on) and ranked by ``mean - risk x variance``.  The
    look-ahead covers the rest of this betting round (the opponent's reply
    to our move, and our reply to its raise) and, when the round closes
    into a new street, that street too (:meth:`next_street`); past that the
    pot is shared by equity.
    """

    def __init__(self, player: AdaptiveStrategy, view: View, hand: HandTracker, opp: int,
                 eqv: np.ndarray, bins: np.ndarray, risk: float) -> None:
        self.player = player
        self.game = view.game
        self.me = view.position
        self.opp = opp
        self.start = view.state
        self.stats = player.opponent_stats(view, opp)
        self.risk = risk
        live = ~np.isnan(eqv)
        w = hand.ranges[opp]
        if w.sum() <= 0:  # the model was wrong about every pair: start again from the live pairs
            w = hand.ranges[opp] = live.astype(np.float64)
        # every sub-range below derives from w, so zeroing the dead pairs once lets equity() be a plain dot product
        self.w = w * live
        self.eq0 = np.where(live, eqv, 0.0)
        self.bins = bins
        self.lookahead = player.lookahead
        #: replies() per (range, spot): the look-ahead meets the same range in the same spot for many bet sizes
        self._replies: dict[tuple, tuple[np.ndarray, np.ndarray, list[np.ndarray]]] = {}

    def equity(self, w: np.ndarray) -> float:
        """Our equity against a (sub-)range of ``self.w`` (0.5 when empty)."""
        total = w.sum()
        return float(np.dot(w, self.eq0) / total) if total > 0 else 0.5

    def replies(self, state: State, w: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The opponent's (fold, call, raise) chances where it acts in ``state`` holding ``w``, and the range taking each."""
        spot = spot_of(state, self.opp)
        can_raise = state.raise_bounds() is not None
        to_call = state.to_call(self.opp)
        key = (id(w), spot, can_raise, to_call > 0, min(1, state.round - self.start.round))
        hit = self._replies.get(key)
        if hit is None:
            probs, sub = self._replies_of(state, spot, w, can_raise, to_call)
            hit = self._replies[key] = (w, probs, sub)  # holding w keeps its id from being reused
        return hit[1], hit[2]

    def _replies_of(self, state: State, spot: Spot, w: np.ndarray, can_raise: bool,
                    to_call: int) -> tuple[np.ndarray, list[np.ndarray]]:
        triple = self.stats.predict(spot)
        if not can_raise:
            triple = np.array([triple[0], triple[1] + triple[2], 0.0])
        # its thresholds are read against the ranges it usually holds there (in this street's strength, which is
        # all a look-ahead into the next street knows: that spot's reference in the previous street's terms)
        key = (state.round, spot.kind, min(1, state.round - self.start.round))
        u = reference_percentiles(self.stats.reference.blend(key, range_histogram(self.bins, w)), self.bins)
        chances = threshold_likelihoods(u, triple, to_call > 0)
        info = self.stats.info
        total = w.sum()
        sub = []
        probs = np.empty(3)
        for kind in (_F, _C, _R):
            kappa = info.kappa(info_class(kind, to_call, state.round))
            t = chances[int(kind)]
            # a range stronger than the ones it usually holds here folds less and raises more, as far as its
            # shown cards have borne the threshold model out (kappa)
            in_range = float(np.dot(w, t) / total) if total > 0 else triple[int(kind)]
            probs[int(kind)] = kappa * in_range + (1.0 - kappa) * triple[int(kind)]
            sub.append(w * action_likelihood(t, w, kappa))
        return probs / probs.sum(), sub

    def best(self, options: list[Moments]) -> Moments:
        """The option we would take: the best score."""
        return max(options, key=lambda o: o.score(self.risk))

    def settle(self, state: State, w: np.ndarray, deep: bool = False) -> Moments:
        """Chips coming back to us from ``state``'s pot (less any we add later) once the round's betting is closed.

        Chips one side put in beyond what the other could match come back to
        it; the rest goes to the winner, which we are with our equity against
        ``w``.  When ``state`` starts a new street (and the look-ahead is not
        already ``deep``) that street is played out first (``next_street``).
        """
        if not (deep or state.finished or state.round == self.start.round or not self.lookahead):
            return self.next_street(state, w)
        me, opp = self.me, self.opp
        matched = min(state.spent[me], state.spent[opp])
        excess = state.spent[me] - matched
        contested = state.pot - excess - (state.spent[opp] - matched)
        return Moments.lottery(self.equity(w), contested + excess, excess)

    def next_street(self, s: State, w: np.ndarray) -> Moments:
        """The value of a new street starting in ``s`` with the opponent holding ``w`` (one round of betting).

        We either check or bet one of NEXT_STREET_BETS; it replies as its
        statistics say.  Its range keeps this street's percentiles (the next
        card is unknown); after this street's betting the pot is shared by
        equity.
        """
        if s.current_player == self.me:
            return self.best(self._our_turn(s, s, w))
        (_, c, r), (_, w_c, w_r) = self.replies(s, w)
        parts: list[tuple[float, Moments]] = []
        if c > 0:  # it checks: our turn
            s2 = s.copy()
            s2.apply_unchecked(CALL)
            parts.append((c, self.best(self._our_turn(s, s2, w_c))))
        if r > 0:  # it bets: we fold or call
            s2 = s.copy()
            s2.apply_unchecked(self._opponent_raise(s))
            s3 = s2.copy()
            s3.apply_unchecked(CALL)
            call = self.settle(s3, w_r, deep=True).shift(-(s3.spent[self.me] - s.spent[self.me]))
            parts.append((r, self.best([call, Moments.sure(0.0)])))
        return _mix(parts) if parts else self.settle(s, w, deep=True)

    def _our_turn(self, start: State, s: State, w: np.ndarray) -> list[Moments]:
        """Our options on the next street where we act in ``s``: check (or call) and the nominal bets."""
        s2 = s.copy()
        s2.apply_unchecked(CALL)
        if s2.finished or s2.round != s.round or s2.current_player != self.opp:
            options = [self.settle(s2, w, deep=True)]
        else:
            options = [self._opponent_turn(start, s2, 0, w, deep=True)]
        bounds = s.raise_bounds()
        if bounds is not None:
            targets = [bounds[0]] if self.game.is_limit else \
                sorted({min(max(s.raise_to_fraction(f), bounds[0]), bounds[1]) for f in NEXT_STREET_BETS})
            for target in targets:
                s2 = s.copy()
                s2.apply_unchecked(RAISE if self.game.is_limit else raise_to(target))
                added = s2.spent[self.me] - start.spent[self.me]
                options.append(self._opponent_turn(start, s2, added, w, deep=True))
        return options

    def passive(self, state: State) -> Moments:
        """Value of checking or calling."""
        s2 = state.copy()
        s2.apply_unchecked(CALL)
        added = s2.spent[self.me] - state.spent[self.me]
        if s2.finished or s2.round != state.round or s2.current_player != self.opp:
            return self.settle(s2, self.w).shift(-added)
        return self._opponent_turn(state, s2, added, self.w)

    def aggressive(self, state: State, action: Action) -> Moments:
        """Value of a raise (``action``), the opponent replying as its statistics say."""
        s2 = state.copy()
        s2.apply_unchecked(action)
        added = s2.spent[self.me] - state.spent[self.me]
        if s2.finished or s2.current_player != self.opp:
            return self.settle(s2, self.w).shift(-added)
        return self._opponent_turn(state, s2, added, self.w)

    def _opponent_turn(self, start: State, s2: State, added: int, w: np.ndarray, deep: bool = False,
                       again: int = 1) -> Moments:
        """Value when the opponent (holding ``w``) is to act in ``s2`` after we added ``added`` chips since ``start``.

        When it raises we fold, call or (``again`` times more) raise back:
        all-in in no-limit games, the fixed raise in limit games.
        """
        me = self.me
        (f, c, r), (_, w_c, w_r) = self.replies(s2, w)
        parts: list[tuple[float, Moments]] = []
        if f > 0:
            parts.append((f, Moments.sure(s2.pot - added)))  # it folds: the pot before our move is ours
        if c > 0:
            s3 = s2.copy()
            s3.apply_unchecked(CALL)  # if the round went on (a limp), it is treated as closed here
            parts.append((c, self.settle(s3, w_c, deep).shift(-added)))
        if r > 0:
            s3 = s2.copy()
            s3.apply_unchecked(self._opponent_raise(s2))
            s4 = s3.copy()
            s4.apply_unchecked(CALL)
            call = self.settle(s4, w_r, deep).shift(-(s4.spent[me] - start.spent[me]))
            options = [call, Moments.sure(-added)]
            bounds = s3.raise_bounds() if again > 0 else None
            if bounds is not None:
                s4 = s3.copy()
                s4.apply_unchecked(RAISE if self.game.is_limit else raise_to(bounds[1]))
                options.append(self._opponent_turn(start, s4, s4.spent[me] - start.spent[me], w_r, deep, again - 1))
            parts.append((r, self.best(options)))
        if not parts:
            return self.settle(s2, w, deep).shift(-added)
        return _mix(parts)

    def _opponent_raise(self, state: State) -> Action:
        """The opponent's typical raise where it acts in ``state``."""
        if self.game.is_limit:
            return RAISE
        lo, hi = state.raise_bounds()  # type: ignore[misc]  # only asked where a raise is possible
        spot = spot_of(state, self.opp)
        target = min(max(state.raise_to_fraction(self.stats.raise_size(spot.kind, spot.street), self.opp), lo), hi)
        # nobody raises to leave a sliver behind: valuing the sliver's later street as a fresh bet-or-fold
        # fight overrates the fold equity it buys (a 4-bet into a shover looked profitable that way)
        return raise_to(hi if leaves_short(state, target, hi) else target)
