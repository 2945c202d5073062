"""``utility``: the utility player of the 2017 study, with its threshold learning (docs/studies.md)."""

from __future__ import annotations

import logging
from typing import Any, ClassVar, NamedTuple

from ..engine import CALL, Action, ActionType, State
from ..evaluator import CLASS_WORST_RANKS, rank, rank_class
from ..preflop import hand_class, utility_rank
from ..world import MatchInfo, View
from .base import Param, Strategy
from .common import holdem_only
from .persist import ModelFile, ModelFileError, folder_exists, table_key
from .registration import register

log = logging.getLogger(__name__)

#: weights of the utility's four features (hand value, position, bet, stack)
W_VALUE, W_POSITION, W_BET, W_STACK = 0.6, 0.1, 0.2, 0.1
#: the study's starting thresholds: raise at U >= R (U > R facing a bet), fold below F
START_RAISE, START_FOLD = 0.55, 0.3
#: the smallest gap the learning keeps between the two thresholds
MIN_GAP = 0.01
#: the model file's kind and layout version
MODEL_KIND, MODEL_VERSION = "utility", 1

_R = ActionType.RAISE


def preflop_value(cls: str) -> float:
    """V before the flop: 1 − (rank − 1)/167 in the study's ranking of the 169 classes, clamped to [0, 1]."""
    # The study's anchors (rank 1 = 1.0, rank 168 = 0) fix this line; its
    # "1 − rank/168" misses the first anchor (see the class docstring).
    return max(0.0, 1.0 - (utility_rank(cls) - 1) / 167)


def postflop_value(cards: tuple[int, ...]) -> float:
    """V after the flop: the made hand's 0.1-wide band (high card 0.1–0.2 .. straight flush 0.9–1.0), placed by rank."""
    r = rank(cards)
    cls = max(int(rank_class(r)), 1)  # the royal flush is the best straight flush
    worst = CLASS_WORST_RANKS[cls]
    best = CLASS_WORST_RANKS[cls - 1] + 1 if cls >= 2 else 1
    # band floor (straight flush 0.9 .. high card 0.1) plus the place in the band, in tenths so ends are exact
    return ((10 - cls) + (worst - r) / (worst - best)) / 10


def hand_value(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """V: the preflop ranking value, or the made-hand band once there is a board."""
    if not board:
        return preflop_value(hand_class(*hole))
    return postflop_value(tuple(hole) + tuple(board))


def position_value(state: State, player: int) -> float:
    """P: the player's place in this round's acting order (1 = first) over the players who can still act."""
    order = state.acting_order()
    return (order.index(player) + 1) / len(order) if player in order else 1.0


def bet_value(state: State, player: int) -> float:
    """B: 1 − to_call / pot."""
    pot = state.pot
    return min(1.0, max(0.0, 1.0 - state.to_call(player) / pot)) if pot > 0 else 1.0


def stack_value(state: State, player: int) -> float:
    """S: the player's chips behind over everyone's chips behind."""
    stacks = [state.stack_left(p) for p in range(state.game.num_players)]
    total = sum(stacks)
    return stacks[player] / total if total > 0 else 1.0 / len(stacks)


class Utility(NamedTuple):
    """U and its four features."""

    u: float
    value: float
    position: float
    bet: float
    stack: float


#: the study's weights (V, P, B, S)
WEIGHTS = (W_VALUE, W_POSITION, W_BET, W_STACK)


def utility(view: View, weights: tuple[float, float, float, float] = WEIGHTS) -> Utility:
    """U = wV·V + wP·P + wB·B + wS·S (default 0.6, 0.1, 0.2, 0.1) for the seat to act in ``view``."""
    state, me = view.state, view.position
    v = hand_value(view.hole, view.board_cards)
    p = position_value(state, me)
    b = bet_value(state, me)
    s = stack_value(state, me)
    wv, wp, wb, ws = weights
    return Utility(wv * v + wp * p + wb * b + ws * s, v, p, b, s)


def learn(raise_t: float, fold_t: float, hands: list[tuple[float, int, int]], mu: float) -> tuple[float, float]:
    """The thresholds after one learning step over ``hands`` = (result, raises, calls) per hand.

    Only when the hands lost chips in all: each raise in a lost hand moves R
    up by ``mu``, in a won hand down; calls move F the same way.  Then
    R <= 1, R − F >= MIN_GAP, and (our addition) R >= MIN_GAP, F >= 0.
    """
    if sum(h[0] for h in hands) >= 0:
        return raise_t, fold_t
    for result, raises, calls in hands:
        sign = 1 if result < 0 else (-1 if result > 0 else 0)
        raise_t += sign * mu * raises
        fold_t += sign * mu * calls
    raise_t = min(1.0, max(MIN_GAP, raise_t))
    fold_t = max(0.0, min(fold_t, raise_t - MIN_GAP))
    return raise_t, fold_t


def read_entry(entry: Any, path: str, key: str | None) -> tuple[float, float, int, int]:
    """(R, F, hands, steps) of a model file entry; ModelFileError naming the file and key when it is not one."""
    try:
        r, f = float(entry["R"]), float(entry["F"])
        hands, steps = int(entry.get("hands", 0)), int(entry.get("steps", 0))
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ModelFileError(f"model file {path}: entry {key!r} is not a utility entry (bad or missing {exc})") \
            from None
    if not 0 <= f < r <= 1:
        raise ModelFileError(f"model file {path}: entry {key!r} has thresholds R={r}, F={f} outside 0 <= F < R <= 1")
    return r, f, hands, steps


@register
class UtilityStrategy(Strategy):
    """The 2017 study's utility player: U = 0.6·V + 0.1·P + 0.2·B + 0.1·S against learnt thresholds.

    Features, each in [0, 1]: V, before the flop 1 − (rank − 1)/167 in the
    study's ranking of the 169 classes (AA 1.0; clamped, so ranks 168–169
    give 0), after it
    the made hand's band (high card 0.1–0.2, pair 0.2–0.3 ... straight flush
    0.9–1.0, royal flush included) placed inside the band by the treys rank
    within its class; P = place in this round's acting order (1 = first) /
    players who can still act (neither folded nor all-in); B = 1 − to_call /
    pot; S = own chips behind / everyone's chips behind.

    Thresholds start at R = 0.55 and F = 0.3.  Nothing to call: check when
    U < R, else raise.  Facing a bet: fold when U < F, call when
    F <= U <= R, raise when U > R.  A no-limit raise-to grows linearly from
    the minimum raise at U = R to all-in at U = 1; limit games raise ``r``.

    Learning every ``n`` hands (default 50) with step ``mu`` (default 0.02):
    when those hands lost chips in all, each hand's result is credited to
    every raise and every call (a call that put chips in; checks are not
    calls) we made in it: a raise in a lost hand pushes R up by mu, in a won
    hand pulls it down; calls move F the same way.  R stays <= 1 and
    R − F >= 0.01.

    The 2017 study's experiments vary the starting thresholds (``r``,
    ``f``), the weights (``wv``, ``wp``, ``wb``, ``ws``) and the step
    (``mu=0`` freezes the thresholds); ``acpc-match tune`` tunes any of them
    within ``tune_ranges``.  Over freezeout tables (``acpc-match sitngo``)
    S is the seat's share of the chips still in play at the table.

    ``model=FILE`` keeps the thresholds across matches (JSON, see
    acpcbot.strategies.persist), keyed by the table: the other seats' names joined by
    ``+`` when the match names them, else their seats (``seat:2``,
    ``seat:2+3``); with several opponents the key is the whole table, since
    the thresholds answer to the table as a whole.  The file is written
    after every learning step and at the end of the match; hands of an
    unfinished learning window are not kept.

    Plays hold'em of any size, limit and no-limit.  Deviations from the
    study: its text gives V as "1 − rank/168 (rank 1 = 1.0, ranks 168–169 =
    0)", which cannot hold at rank 1 (1 − 1/168 = 0.994); the line through
    both stated anchors, 1 − (rank − 1)/167, is used (every V within 0.006
    of 1 − rank/168, the ends exact); learning also keeps R >= 0.01 and
    F >= 0 (the study gave no lower bounds).
    """

    name = "utility"
    description = "The 2017 study's utility player: U = .6V+.1P+.2B+.1S vs raise/fold thresholds it learns."
    # the parameters, set from params by Strategy.__init__
    n: int
    mu: float
    model: str
    r: float
    f: float
    wv: float
    wp: float
    wb: float
    ws: float
    params: ClassVar[dict[str, Param]] = {
        "n": Param(int, 50, "hands between learning steps", lambda v: v >= 1, "must be >= 1"),
        "mu": Param(float, 0.02, "learning step", lambda v: 0 <= v <= 1, "must be in 0..1"),
        "model": Param(str, "", "JSON file keeping the thresholds across matches (empty: none)", folder_exists,
                       "its folder must exist"),
        "r": Param(float, START_RAISE, "starting raise threshold", lambda v: 0 < v <= 1, "must be in (0, 1]"),
        "f": Param(float, START_FOLD, "starting fold threshold", lambda v: 0 <= v < 1, "must be in [0, 1)"),
        "wv": Param(float, W_VALUE, "weight of V (hand value)", lambda v: v >= 0, "must be >= 0"),
        "wp": Param(float, W_POSITION, "weight of P (position)", lambda v: v >= 0, "must be >= 0"),
        "wb": Param(float, W_BET, "weight of B (bet)", lambda v: v >= 0, "must be >= 0"),
        "ws": Param(float, W_STACK, "weight of S (stack share)", lambda v: v >= 0, "must be >= 0"),
    }
    #: the ranges ``acpc-match tune`` searches
    tune_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "r": (0.3, 0.95), "f": (0.05, 0.5), "wv": (0.0, 1.0), "wp": (0.0, 1.0), "wb": (0.0, 1.0), "ws": (0.0, 1.0),
        "mu": (0.0, 0.1)}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        r, f = self.r, self.f
        if not f < r:
            raise ValueError(f"utility: the fold threshold f={f} must be below the raise threshold r={r}")
        self.raise_threshold = r
        self.fold_threshold = f
        self.weights = (self.wv, self.wp, self.wb, self.ws)
        #: the model file (loaded now so a bad file fails before the match)
        self.store = ModelFile(self.model, MODEL_KIND, MODEL_VERSION) if self.model else None
        if self.store is not None:
            for key, entry in self.store.entries.items():
                read_entry(entry, self.model, key)
        self.info: MatchInfo | None = None
        self.key: str | None = None
        #: (result, raises, calls) of the hands since the last learning step
        self.window: list[tuple[float, int, int]] = []
        self.hands = 0
        self.steps = 0
        #: the utility of the latest decision (for inspection)
        self.last: Utility | None = None

    @classmethod
    def unsupported_reason(cls, game: Any) -> str | None:
        """Hold'em only (its hand values are hold'em rankings)."""
        return holdem_only(game)

    def start_match(self, match: MatchInfo) -> None:
        """Remember the match; the thresholds are looked up on the first state (the key may need our seat)."""
        self.info = match

    def observe(self, view: View) -> None:
        """On the first state, pick the model key and load its thresholds."""
        if self.key is None:
            self.key = table_key(self.info, view)
            entry = self.store.get(self.key) if self.store is not None else None
            if entry is not None:
                self._load(entry)

    def _load(self, entry: Any) -> None:
        self.raise_threshold, self.fold_threshold, self.hands, self.steps = read_entry(entry, self.model, self.key)

    def act(self, view: View, deadline: float) -> Action:
        """Compare U with the thresholds."""
        self.observe(view)  # in case the client skipped observe (direct calls in tests)
        state = view.state
        u = self.last = utility(view, self.weights)
        r, f = self.raise_threshold, self.fold_threshold
        if view.to_call == 0:
            wants_raise = u.u >= r
        elif u.u < f:
            return state.fold_or_check()
        else:
            wants_raise = u.u > r
        if not wants_raise:
            return CALL
        bounds = state.raise_bounds()
        if bounds is None:
            return CALL
        lo, hi = bounds
        share = 1.0 if r >= 1 else min(1.0, max(0.0, (u.u - r) / (1 - r)))
        return state.raise_or_call(lo + (hi - lo) * share)

    def end_hand(self, view: View) -> None:
        """Keep the hand for learning; learn every ``n`` hands."""
        self.observe(view)
        result = view.result
        if result is None:
            return
        mine = [a for a in view.actions if a.player == view.position]
        raises = sum(1 for a in mine if a.type == _R)
        calls = sum(1 for a in mine if a.type == ActionType.CALL and a.added > 0)
        self.window.append((result, raises, calls))
        self.hands += 1
        if len(self.window) >= self.n:
            self.raise_threshold, self.fold_threshold = learn(self.raise_threshold, self.fold_threshold,
                                                              self.window, self.mu)
            self.window = []
            self.steps += 1
            self._save()

    def learnt(self) -> dict[str, float | int]:
        """What the player has learnt so far: thresholds, hands counted and learning steps (freezeout results)."""
        return {"R": round(self.raise_threshold, 6), "F": round(self.fold_threshold, 6), "hands": self.hands,
                "steps": self.steps}

    def end_match(self) -> None:
        """Write the thresholds to the model file."""
        self._save()

    def _save(self) -> None:
        if self.store is None or self.key is None:
            return
        self.store.put(self.key, {"R": self.raise_threshold, "F": self.fold_threshold,
                                  "hands": self.hands, "steps": self.steps})
        try:
            self.store.save()
        except ModelFileError as exc:
            log.error("utility: %s; the thresholds of this match are not saved", exc)
