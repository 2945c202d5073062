"""How far adaptive leans on its model on a blueprint floor (heads-up): judged by results, not by the model.

adaptive has two members: the blueprint (the floor) and the model's
deviation (its best response where the model's gain passes the bar, the
floor elsewhere).  The model is biased, so its own estimate of the gain
cannot decide between them.  Instead (after Bard, Johanson, Burch &
Bowling, "Online implicit agent modelling", AAMAS 2013) each hand is played
by one member, the deviation with probability ``p``, and every hand is an
importance-sampled sample of both members' values: with F and D the
products over OUR decisions of each member's probability of the action
played (the opponent's and chance's terms are the same under both and
cancel), the hand was played with probability ``(1 - p) F + p D`` and
``payoff x (D - F) / ((1 - p) F + p D)`` is an unbiased estimate of the
deviation's gain over the floor, whatever the model believes: zero where
the members agree, and never past ``payoff / min(p, 1 - p)``.  The model's
action values serve only as control variates (``gain_estimate``): they
can take noise out, never add bias (measured 2026-11-26 on the hands where
the members part: 3 to 4% less spread against blueprint and call; the
spread is mostly the ratio times the cards and replies still to come).

A whole hand per member keeps each member's lines whole (mixing per
decision bluffs with one and gives up with the other, and measured 2026-11-26
lost half the deviation's loss at a tenth of its weight) and makes the
value of the mixture exactly linear in ``p``.  The member is never drawn:
each decision plays the member's rows weighted by how likely each member
was to have played the hand so far with the holding (its posterior), which
is the same distribution; so ``policy`` is a pure function of what is known
and ``act`` plays it.  The posterior of every holding needs every holding's
rows at our earlier decisions: ``policy`` keeps them when asked at each of
our decisions in order (as AIVAT and LBR ask); asked cold in the middle of
a hand it skips the decisions it was not asked at (the one inexact case).

The weight ``p`` follows the t-statistic of the gain's mean over recent
hands (discounted: the model learns and opponents adapt): P_MIN while the
gain is not shown, rising to P_MAX as it becomes significant.  P_MIN keeps
the deviation measurable at a bounded cost (P_MIN x its loss); P_MAX keeps
the floor measured.  ``p`` moves only between hands.

Two deviations, each with its own record: a cautious one (in no-limit kept
to the floor's support) while nothing is known, and one free to take any
action, on a quicker ramp, while our own results against the opponent show
it giving chips away (Z_GIFTS): what the deviation then risks is what the
opponent gave, so a best responder, which wins from the floor, opens that
mode only through a run of luck.  The mode too moves only between hands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...engine import Action, State
from ...gamedef import GameDef
from ...world import View
from .stats import saved_sums

#: hands against an opponent before the deviation leaves the blueprint anywhere (until then adaptive plays the floor)
COLD_HANDS = 50
#: the gain over the blueprint's play (big blinds, by the model) a row's deviation must show at COLD_HANDS hands;
#: the bar falls as the square root of the hands seen
DEVIATION_BB = 0.3
#: the deviation's least and greatest weight: support for both members' actions, so both stay measured.  Against
#: a player the deviation loses to, adaptive gives up about P_MIN x that loss, LBR's included: weighted 0.06 on
#: average, a deviation free to take any action lost 17 big blinds a hand to LBR (importance-sampled, hunl,
#: 2026-11-30), about 1,000 mbb/hand over the floor's LBR figure; within the floor's support (SUPPORT) about 8
P_MIN, P_MAX = 0.01, 0.9
#: the weight rises from P_MIN to P_MAX as t, the gain's t-statistic, passes Z_BAR (at t = 0 it is P_MIN).
#: With no gain t wanders about 0 with spread 1 over a match (importance-sampled gains are noisy), so the bar must
#: sit well above it: at 1.5 (P_MIN 0.05) adaptive's weight against the hunl floor rose to 0.42 at t = 1.3 (2,000
#: hands traced, 2026-11-30).  The price is speed: a deviation free to take any action, gaining 33 big blinds a hand
#: against uc3m, passed 0.3 after about 400 hands (200 at 1.5); one kept to the floor's support (no-limit) gains
#: about 7 there with a spread of 198 and does not pass the bar in 2,000 hands (hunl, traced, 2026-11-30)
Z_BAR = 2.5
#: the ramp's width in standard errors: the weight is P_MIN + (P_MAX - P_MIN) * Phi((t - Z_BAR) / Z_SPREAD).  Against
#: LBR (hunl, 2026-11-30) the deviation lost about 7 big blinds a hand, but its gains are noisy enough that t reached
#: 1.6 within 200 hands, where a ramp of width 1 weighed it 0.17 (its mean over the match: 0.05); at 0.5 that t
#: weighs it 0.04, and t = Z_BAR + 0.5 already 0.76
Z_SPREAD = 0.5
#: the record forgets with this half-life in hands (the model learns and opponents adapt)
HALF_LIFE = 3000
#: the deviation departs only to actions the floor's row plays at least this often.  Two reasons: an action the
#: floor never plays tells a watching opponent the deviation is playing (LBR, knowing the policy, called the
#: deviation's off-support all-ins with the model's "bluffs" and took 51 big blinds a hand from it, importance-
#: sampled, hunl, 2026-11-30); and it bounds each decision's importance ratio by 1 / SUPPORT whatever the weight,
#: where an off-support action weighs 1 / p, so the gain's estimate stays usable at a weight of 1%
SUPPORT = 0.05
#: hands (discounted) before the t-statistic is read at all: a handful of samples gives no variance
MIN_HANDS = 100
#: the t-statistic of OUR results against an opponent (big blinds a hand, discounted as the gains) past which it is
#: *giving* chips away, and the deviation may risk them (after Ganzfried & Sandholm, "Safe opponent exploitation",
#: 2015: risking only what has been won beyond the game's value, 0 over both seats here, keeps a player safe; here
#: the results must be significant, since what was won includes luck).  LBR wins from the floor, so it cannot open
#: this mode without paying for it first, but one big pot can: drawn from the results LBR's matches against adaptive
#: really had (24,000 hands, hunl, 2026-11-30: heavy-tailed, spread 40 big blinds), the bar of 2 opened the mode in
#: 5% of 1,000-hand matches for 0.3% of the hands; a bar of 1.5 in 23%, for 3.3% (4 of 24 LBR matches opened it,
#: three before their 140th hand); against uc3m (+2.8 big blinds a hand, spread 39) the bar of 2 is passed after
#: about 470 hands (tests/test_adaptive_portfolio.py draws both)
Z_GIFTS = 2.0
#: once an opponent is giving chips away: the deviation free to take any action (its gain against uc3m 33 big
#: blinds a hand, against 7 kept to the floor's support), weighed by the ramp adaptive had before its retune
GIFTED_P_MIN, GIFTED_Z_BAR, GIFTED_Z_SPREAD = 0.05, 1.5, 1.0


def support_for(game: GameDef) -> float:
    """The least share of the floor's row an action needs for the deviation to depart to it in ``game``: SUPPORT in
    no-limit, where an action off the floor's support can be an all-in; 0 in limit, where it risks a bet and the
    restriction took most of the deviation's gain against uc3m (hulhe, 1,500 hands a seating, 2026-11-30)."""
    return SUPPORT if game.is_nolimit else 0.0


@dataclass
class GainRecord:
    """Discounted sums of the per-hand gain estimates (big blinds) against one opponent."""

    hands: float = 0.0
    total: float = 0.0
    squares: float = 0.0

    def add(self, gain: float) -> None:
        """Count one hand's estimate of the deviation's gain over the floor."""
        keep = 0.5 ** (1.0 / HALF_LIFE)
        self.hands = keep * self.hands + 1.0
        self.total = keep * self.total + gain
        self.squares = keep * self.squares + gain * gain

    def t_statistic(self) -> float:
        """The mean gain over its standard error (0 before MIN_HANDS hands or without spread)."""
        if self.hands < MIN_HANDS:
            return 0.0
        mean = self.total / self.hands
        var = max(self.squares / self.hands - mean * mean, 0.0)
        if var <= 0.0:
            return 0.0
        return mean / math.sqrt(var / self.hands)

    def weight(self, gifted: bool = False) -> float:
        """The deviation's weight in the mixture played (``gifted``: on the ramp of a deviation risking gifts)."""
        least, bar, spread = (GIFTED_P_MIN, GIFTED_Z_BAR, GIFTED_Z_SPREAD) if gifted else (P_MIN, Z_BAR, Z_SPREAD)
        phi = 0.5 * (1.0 + math.erf((self.t_statistic() - bar) / (spread * math.sqrt(2.0))))
        return least + (P_MAX - least) * phi

    def to_json(self) -> list[float]:
        """JSON-ready sums: [hands, total, squares]."""
        return [self.hands, self.total, self.squares]

    @classmethod
    def from_json(cls, data: Any, what: str) -> "GainRecord":
        """A record from ``to_json`` output; adaptive.stats.SavedStatsError (a ValueError) naming ``what`` when
        malformed."""
        return cls(*saved_sums(data, what))


def deviation_rows(values: np.ndarray, floor: np.ndarray, mass: float, hands: int, big_blind: float,
                   support: float = SUPPORT) -> np.ndarray:
    """The deviation's rows: the best response (one-hot) among the actions the floor's row plays at least ``support``
    of the time, where the model's gain over the floor's row passes the bar (DEVIATION_BB big blinds at COLD_HANDS
    hands, falling as 1/sqrt(hands)); the floor's row elsewhere and while the model is cold.  ``values`` are the
    search's (rows, actions), unnormalised by the range's weight ``mass`` (every legal action: in limit the search
    raises up to the game's own cap, as the floor does)."""
    if hands < COLD_HANDS or mass <= 0:
        return floor
    allowed = floor >= support
    choice = np.argmax(np.where(allowed, values, -np.inf), axis=1)
    rows = np.arange(len(values))
    best = np.zeros(values.shape)
    best[rows, choice] = 1.0
    bar = DEVIATION_BB * big_blind * (COLD_HANDS / hands) ** 0.5
    gain = (values[rows, choice] - (floor * values).sum(axis=1)) / mass
    # a row with no action in the support (only a support above 1 / its actions) keeps the floor's
    return np.where(((gain > bar) & allowed[rows, choice])[:, None], best, floor)


def history(state: State) -> tuple[Action, ...]:
    """Every action of the hand so far, in order: the key of a decision within its hand."""
    return tuple(a for r in state.actions for a in r)


@dataclass(frozen=True)
class Rows:
    """Both members' rows at one decision (one per holding, or our holding's alone) over ``actions``."""

    actions: tuple[Action, ...]
    floor: np.ndarray
    deviation: np.ndarray
    #: the model's value of each action per row (big blinds over the hand; None: none), the estimate's control
    values: np.ndarray | None = None

    def played(self, action: Action) -> tuple[np.ndarray, np.ndarray] | None:
        """Each member's probability of ``action`` per row (None: neither has it among its actions)."""
        if action not in self.actions:
            return None
        i = self.actions.index(action)
        return self.floor[:, i], self.deviation[:, i]


def conditional(p: float, floor_prefix: np.ndarray, deviation_prefix: np.ndarray, floor: np.ndarray,
                deviation: np.ndarray) -> np.ndarray:
    """The rows a hand played by the deviation with probability ``p`` plays here: each member's row weighted by
    its chance of having played our actions so far with the row's holding (``*_prefix``, one per row); the
    row of the only member that could have come here, the prior mixture where neither could."""
    wf = ((1.0 - p) * floor_prefix)[:, None]
    wd = (p * deviation_prefix)[:, None]
    total = wf + wd
    prior = floor + p * (deviation - floor)
    mixed = np.divide(wf * floor + wd * deviation, total, out=prior.copy(), where=total > 0)
    # exactly one member's row where only it could have come here or the two agree (a one-hot row stays one-hot)
    mixed = np.where((wf > 0) & (wd == 0), floor, np.where((wd > 0) & (wf == 0), deviation, mixed))
    same = np.all(floor == deviation, axis=1, keepdims=True)
    return np.where(same, floor, mixed)


def gain_estimate(result: float, steps: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]],
                  p: float) -> float | None:
    """A hand's unbiased estimate of the deviation's gain over the floor, from ``result`` and, per decision of
    ours, (floor's row, deviation's row, the model's values or None, the action played); None when the mixture
    could not have played the hand.

    Doubly robust (per-decision control variates, Jiang & Li 2016): each member's importance-sampled payoff,
    less at each decision the ratio-weighted value of the action played plus the member's expected value
    there, both by the model's values.  Those terms have mean zero whatever the values are, so the model's
    bias cannot bias the estimate; they only take out of the payoff's noise what the values explain.
    """
    f = d = 1.0
    rf = rd = 1.0  # each member's chance of our actions so far over the mixture's
    control_f = control_d = 0.0
    for floor, deviation, values, i in steps:
        before_f, before_d = rf, rd
        f, d = f * float(floor[i]), d * float(deviation[i])
        played = (1.0 - p) * f + p * d
        if played <= 0.0:
            return None
        rf, rd = f / played, d / played
        if values is not None:
            control_f += before_f * float(floor @ values) - rf * float(values[i])
            control_d += before_d * float(deviation @ values) - rd * float(values[i])
    return (rd - rf) * result + control_d - control_f


class Portfolio:
    """Per opponent, our results and the record of each deviation's measured gain (kept to the floor's support, and
    free once the opponent gives chips away); within a hand, both members' rows at each of our decisions (our
    holding's, and every holding's when ``policy`` was asked)."""

    def __init__(self, gifts: bool = True) -> None:
        #: whether a deviation may risk what an opponent gives away (False: always the cautious one)
        self.gifts = gifts
        #: per opponent, the cautious deviation's gains (kept to the floor's support in no-limit)
        self.records: dict[str, GainRecord] = {}
        #: per opponent, the gains of the deviation free to take any action, played while the opponent gives gifts
        self.gifted_records: dict[str, GainRecord] = {}
        #: per opponent, our results (big blinds a hand): whether it gives chips away
        self.results: dict[str, GainRecord] = {}
        #: (hand, position, our cards, history) -> our holding's rows, as act or policy computed them this hand
        self._ours: dict[tuple, Rows] = {}
        #: (hand, position, history) -> every holding's rows, as policy computed them this hand
        self._every: dict[tuple, Rows] = {}

    def _kept(self) -> dict[str, dict[str, GainRecord]]:
        """The records kept across matches, by their name in a model file."""
        return {"cautious": self.records, "gifted": self.gifted_records, "results": self.results}

    def to_json(self, key: str) -> dict[str, list[float]]:
        """What is known of ``key`` (JSON-ready, for a model file): each record there is of it, by name."""
        return {name: kept[key].to_json() for name, kept in self._kept().items() if key in kept}

    def load(self, key: str, data: Any) -> None:
        """Take the records of ``key`` from ``to_json`` output; ValueError naming the record when malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"portfolio: expected an object of records, got {data!r:.80}")
        kept = self._kept()
        unknown = sorted(set(data) - set(kept))
        if unknown:
            raise ValueError(f"portfolio: unknown record {unknown[0]!r} (known: {', '.join(kept)})")
        records = {name: GainRecord.from_json(value, f"portfolio record {name!r}") for name, value in data.items()}
        for name, record in records.items():  # all or nothing
            kept[name][key] = record

    def gifted(self, key: str) -> bool:
        """Whether our results against ``key`` show it giving chips away (t past Z_GIFTS, from the hands over)."""
        results = self.results.get(key)
        return self.gifts and results is not None and results.t_statistic() >= Z_GIFTS

    def support(self, key: str, share: float) -> float:
        """The least share of the floor's row the deviation departs to against ``key``: ``share``, 0 while gifted."""
        return 0.0 if self.gifted(key) else share

    def weight(self, key: str) -> float:
        """The deviation's weight against the opponent ``key`` (from the hands over)."""
        return self._playing(key)[1]

    def _playing(self, key: str) -> tuple[dict[str, GainRecord], float]:
        """The records of the deviation that plays against ``key`` now (the free one while gifted), and its weight."""
        gifted = self.gifted(key)
        records = self.gifted_records if gifted else self.records
        return records, (records.get(key) or GainRecord()).weight(gifted)

    def mix(self, key: str, view: View, actions: list[Action], floor: np.ndarray, deviation: np.ndarray,
            ours: int | None, values: np.ndarray | None = None) -> np.ndarray:
        """The rows played against ``key`` at ``view`` (see ``conditional``): ``floor`` and ``deviation`` hold our
        holding's row alone (act: ``ours`` is 0) or every holding's (policy: ``ours`` is our holding's row, None
        when the view has no cards); the rows, and our holding's ``values`` (the model's, big blinds, rows as
        ``floor``), are kept for the later decisions and the hand's estimate."""
        p = self.weight(key)
        acts = tuple(actions)
        here = history(view.state)
        every = len(floor) > 1
        if every:
            self._every[(view.hand_id, view.position, here)] = Rows(acts, floor, deviation)
        if ours is not None:
            self._ours[(view.hand_id, view.position, pair_key(view), here)] = \
                Rows(acts, floor[ours:ours + 1].copy(), deviation[ours:ours + 1].copy(),
                     np.nan_to_num(values[ours:ours + 1], nan=0.0) if values is not None else None)
        f, d = self._prefix(view, every, len(floor))
        return conditional(p, f, d, floor, deviation)

    def _prefix(self, view: View, every: bool, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Each member's chance of our actions so far this hand, per row (a decision not kept counts as 1 in
        both: its rows were never asked for)."""
        f, d = np.ones(rows), np.ones(rows)
        me = view.position
        for step in view.state.steps():
            if step.player != me:
                continue
            at = history(step.before)
            kept = self._every.get((view.hand_id, me, at)) if every else \
                self._ours.get((view.hand_id, me, pair_key(view), at))
            probs = kept.played(step.action) if kept is not None else None
            if probs is not None:
                f, d = f * probs[0], d * probs[1]
        return f, d

    def end_hand(self, key: str, view: View, result_bb: float) -> float | None:
        """Count the hand just over: our result, and its estimate of the deviation's gain (big blinds), or None when
        one of our decisions has no rows kept (a quick answer under time pressure: not a draw from the mixture)."""
        # the member and its weight as the hand was played: read before this hand's result moves either
        records, p = self._playing(key)
        self.results.setdefault(key, GainRecord()).add(result_bb)
        me = view.position
        ours = pair_key(view)
        steps = []
        try:
            for step in view.state.steps():
                if step.player != me:
                    continue
                kept = self._ours.get((view.hand_id, me, ours, history(step.before)))
                if kept is None or step.action not in kept.actions:
                    return None
                steps.append((kept.floor[0], kept.deviation[0], kept.values[0] if kept.values is not None else None,
                              kept.actions.index(step.action)))
        finally:
            self._ours.clear()
            self._every.clear()
        gain = gain_estimate(result_bb, steps, p)
        if gain is not None:
            records.setdefault(key, GainRecord()).add(gain)
        return gain


def pair_key(view: View) -> tuple[int, ...]:
    """Our hole cards, sorted: the holding a decision's rows were kept for."""
    return tuple(sorted(view.hole))
