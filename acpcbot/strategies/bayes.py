"""The 2020 study's Bayesian player ``bayes``: it models each opponent as maniac, rock or station.

The rule (docs/studies.md, the 2020 study), with the fixes applied here:

- Preflop: a (fold, call, raise) triple from the Chen score of the hole
  cards (``chen_triple``), a tighter one when facing a re-raise.
- Opponent model, one per opponent: a range (a weight per possible hole
  pair, ``ranges.HandRange``) and a posterior over the three patterns.
- Flop and turn: hand strength against the weighted ranges (ahead, tied,
  behind with full treys ranks), one-card potential PPot/NPot, the chance of
  improving (OddMano) and the price of a call (OddBote) mixed into a triple
  (``postflop_triple``); river: (behind, tied, ahead).
- The triple is then adjusted to the opponents' most likely pattern
  (``adjust_triple``), fold-heavy triples sometimes turn into bluffs
  (``bluff``), and the action is sampled.

How the model works (and where it departs from the study):

- Pattern likelihood.  Given the hand's history, the chance that pattern m
  takes the observed action is a mixture over the opponent's holdings:
  L_m = Σ_h w_m(h)·p_m(action | bucket(h)) / Σ_h w_m(h), where w_m is the
  range conditioned on everything the opponent did this hand *under m*
  (one range per pattern, updated by p_m after each action).  By the chain
  rule the product of these L_m over a hand is P(the hand's actions | m,
  the cards we saw) (leaving out the cards' own, negligible, dependence on
  m through card removal).  The study
  summed the other patterns' likelihoods instead; not done here.  p_m counts
  the substitutions the patterns make: a check is p(call) + p(fold) where
  folding was not allowed, a call absorbs p(raise) where raising was not.
- Robustness (a choice): each L_m is mixed with a 1% "tremble" that plays
  uniformly among the legal actions, L'_m = 0.99·L_m + 0.01/#legal, so one
  action a pattern cannot make does not rule it out for the whole match.
- Showdown (a choice): when the opponent's cards are shown, the hand's
  mixture likelihoods are replaced by the exact ones for the shown pair,
  P(actions | m, cards) (the pair's own chance is the same under every
  pattern, so this is the exact Bayes update for what was seen).
- The posterior starts at 1/3 each, lasts the whole match, and is kept in
  log space.  The decision range (the one used for hand strength) starts at
  1 each hand, loses pairs holding visible cards, and after each opponent
  action is multiplied by p(action | bucket) under the pattern with the
  highest posterior *after* that action is counted (ties: maniac, rock,
  station, in that order).  An update that would leave no pair is skipped.
- Opponents are told apart by their seat offset from ours, (position −
  our position) mod players, which the dealer's seat rotation does not
  change, so each opponent's posterior follows that opponent across hands.
- Several opponents: one model per opponent.  Hand strength against all of
  them treats them as independent: ahead = Π ahead_i, behind = 1 − Π(1 −
  behind_i), tied the rest; PPot/NPot from ``evaluator.hand_potential`` with
  one range per opponent.  The pattern adjustment is made only when every
  opponent still in the hand is classified (top two posteriors more than 0.1
  apart) and all of them call for the same adjustment.
- Study silences filled: the Chen bands apply to the rounded score
  (``preflop.chen_score`` rounds half points up, so the bands are ≥ 12,
  10–11, 5–9, 4, ≤ 3); "facing a re-raise" means preflop, something to call,
  and at least two raises this round; OddMano counts the unseen cards that
  improve our made-hand category beyond what the board alone makes, over the
  unseen cards; the pattern adjustment is applied after the flop only (it
  needs a made hand); "the rock did not raise" means not in this hand; a
  raise is a pot-sized raise in no-limit (``r`` in limit), clamped; the
  kickers count (full treys ranks; the study ignored them).

It plays any hold'em game: heads-up or multi-player, limit or no-limit.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Iterable, Sequence

import numpy as np

from ..engine import Action, ActionType, State
from ..evaluator import PAIR_INDEX, hand_potential, rank, rank_batch, rank_class, rank_class_batch, showdown_shares
from ..gamedef import GameDef
from ..preflop import chen_score
from ..world import MatchInfo, View
from .base import Param, Strategy, parse_bool
from .bayes_ranges import HandRange
from .common import holdem_only, intent_to_action, sample_triple
from .patterns import PAIR_BUCKET, PAIR_PREFLOP_BUCKET, PATTERNS, pair_postflop_buckets, triple_table
from .registration import register

Triple = tuple[float, float, float]
_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE

#: share of each pattern likelihood given to a uniform choice among the legal actions
TREMBLE = 0.01
#: top two posteriors this close or closer: no pattern adjustment
UNSURE_MARGIN = 0.1

# ---------------------------------------------------------------------------
# Preflop
# ---------------------------------------------------------------------------

# (lowest rounded Chen score, triple), best band first
_CHEN_BANDS: tuple[tuple[float, Triple], ...] = (
    (12, (0.0, 0.1, 0.9)), (10, (0.0, 0.25, 0.75)), (5, (0.25, 0.65, 0.1)), (3.5, (0.69, 0.3, 0.01)),
    (-math.inf, (0.99, 0.01, 0.0)))
_CHEN_BANDS_RERAISE: tuple[tuple[float, Triple], ...] = (
    (12, (0.0, 0.2, 0.8)), (10, (0.0, 0.8, 0.2)), (5, (0.85, 0.1, 0.05)), (-math.inf, (0.99, 0.01, 0.0)))


def chen_triple(score: float, reraise: bool = False) -> Triple:
    """The preflop (fold, call, raise) for a Chen score; ``reraise``: facing a re-raise."""
    for low, triple in _CHEN_BANDS_RERAISE if reraise else _CHEN_BANDS:
        if score >= low:
            return triple
    raise AssertionError("unreachable")  # pragma: no cover


def facing_reraise(state: State) -> bool:
    """Whether the player to act faces a re-raise: preflop, chips to call, two or more raises this round."""
    return state.round == 0 and state.to_call() > 0 and state.num_raises >= 2


# ---------------------------------------------------------------------------
# Flop, turn and river
# ---------------------------------------------------------------------------

def postflop_triple(ahead: float, behind: float, ppot: float, npot: float, odd_mano: float,
                    odd_bote: float) -> Triple:
    """Flop and turn (fold, call, raise): the study's mix of strength, potential and odds.

    raise = .8·(ahead + (1−ahead)·PPot) + .1·OddMano + .1·OddBote;
    fold = .8·(behind + (1−behind)·NPot) + .1·(1−OddMano) + .1·OddBote;
    call the rest; raise and fold renormalised (call 0) when they exceed 1.
    """
    raise_ = 0.8 * (ahead + (1 - ahead) * ppot) + 0.1 * odd_mano + 0.1 * odd_bote
    fold = 0.8 * (behind + (1 - behind) * npot) + 0.1 * (1 - odd_mano) + 0.1 * odd_bote
    total = raise_ + fold
    if total > 1:
        return fold / total, 0.0, raise_ / total
    return fold, 1.0 - total, raise_


def river_triple(ahead: float, tied: float, behind: float) -> Triple:
    """River (fold, call, raise) = (behind, tied, ahead)."""
    return behind, tied, ahead


def odd_bote(to_call: float, pot_after_call: float) -> float:
    """The price of a call: to_call over the pot once called (``State.pot_after_call``); 0 when nothing is to call."""
    return to_call / pot_after_call if to_call > 0 else 0.0


def _four_card_class(cards: np.ndarray) -> np.ndarray:
    """Made-hand category of four cards per row (no straight or flush fits in four): quads..high card."""
    ranks = cards >> 2
    counts = np.zeros((len(cards), 13), dtype=np.int64)
    np.add.at(counts, (np.arange(len(cards))[:, None], ranks), 1)
    top = counts.max(axis=1)
    pairs = (counts == 2).sum(axis=1)
    return np.select([top == 4, top == 3, pairs == 2, pairs == 1], [2, 6, 7, 8], default=9)


def improving_cards(hole: Sequence[int], board: Sequence[int]) -> tuple[int, int]:
    """(unseen cards that improve the made-hand category beyond the board's own, unseen cards).

    A next card improves the hand when the best five of hole, board and that
    card form a better category than now, and better than the board with
    that card makes by itself (a card pairing the board helps everyone).
    """
    known = set(hole) | set(board)
    deck = np.array([c for c in range(52) if c not in known], dtype=np.int64)
    now = rank_class(rank(tuple(hole) + tuple(board)))
    base = np.array(tuple(hole) + tuple(board), dtype=np.int64)
    after = rank_class_batch(rank_batch(np.hstack([np.broadcast_to(base, (len(deck), len(base))), deck[:, None]])))
    board_rows = np.hstack([np.broadcast_to(np.array(board, dtype=np.int64), (len(deck), len(board))), deck[:, None]])
    board_after = rank_class_batch(rank_batch(board_rows)) if board_rows.shape[1] >= 5 \
        else _four_card_class(board_rows)
    better = (after < now) & (after < board_after)
    return int(better.sum()), len(deck)


def combine_shares(shares: Iterable[tuple[float, float, float]]) -> tuple[float, float, float]:
    """(ahead, tied, behind) against several independent opponents from each one's (ahead, tied, behind)."""
    ahead = not_behind = 1.0
    for a, t, _ in shares:
        ahead *= a
        not_behind *= a + t
    return ahead, max(not_behind - ahead, 0.0), max(1.0 - not_behind, 0.0)


# ---------------------------------------------------------------------------
# Adjustments
# ---------------------------------------------------------------------------

LOOSEN, TIGHTEN = "loosen", "tighten"


def loosen(triple: Triple) -> Triple:
    """Fold × 0.6, the removed mass shared equally by call and raise."""
    f, c, r = triple
    moved = 0.4 * f
    return 0.6 * f, c + moved / 2, r + moved / 2


def tighten(triple: Triple) -> Triple:
    """Call and raise × 0.8, the removed mass to fold."""
    f, c, r = triple
    return f + 0.2 * (c + r), 0.8 * c, 0.8 * r


def adjustment(posterior: np.ndarray, raised: bool, pair_or_better: bool) -> str | None:
    """How to adjust against one opponent: LOOSEN, TIGHTEN, or None when its pattern is unsure.

    Against maniac or station: loosen with a pair or better, else tighten.
    Against rock: loosen if it has not raised this hand, else as for maniac.
    """
    top2 = np.sort(posterior)[-2:]
    if top2[1] - top2[0] <= UNSURE_MARGIN:
        return None
    pattern = PATTERNS[int(np.argmax(posterior))]
    if pattern == "rock" and not raised:
        return LOOSEN
    return LOOSEN if pair_or_better else TIGHTEN


def adjust_triple(triple: Triple, directions: Sequence[str | None]) -> Triple:
    """The triple adjusted when every opponent's adjustment is known and the same; else unchanged."""
    if not directions or any(d is None for d in directions) or len(set(directions)) != 1:
        return triple
    return loosen(triple) if directions[0] == LOOSEN else tighten(triple)


def bluff(triple: Triple, u: float) -> Triple:
    """The bluff: when fold is the largest, with probability 1 − fold move its mass half to call, half to raise.

    ``u`` is a uniform draw in [0, 1): the bluff happens when u < 1 − fold.
    """
    f, c, r = triple
    if f > c and f > r and u < 1 - f:
        return 0.0, c + f / 2, r + f / 2
    return triple


# ---------------------------------------------------------------------------
# Opponent model
# ---------------------------------------------------------------------------

# (pattern, bucket, action) probabilities, preflop and postflop
_PATTERN_TABLES = {post: np.stack([triple_table(p, post) for p in PATTERNS]) for post in (False, True)}


def action_table(action: ActionType, legal: Sequence[ActionType], postflop: bool) -> np.ndarray:
    """(patterns, buckets): each pattern's chance, per bucket, of the observed ``action`` given the legal actions.

    A pattern's fold becomes a check where folding is not allowed and its
    raise a call where raising is not, so an observed call absorbs those.
    """
    t = _PATTERN_TABLES[postflop]
    out = t[:, :, int(action)].copy()
    if action == _C:
        if _F not in legal:
            out += t[:, :, int(_F)]
        if _R not in legal:
            out += t[:, :, int(_R)]
    return out


def _pair_values(table_row: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """A per-bucket value for each pair (0 for pairs with bucket -1, which hold a visible card)."""
    return np.where(buckets >= 0, table_row[np.maximum(buckets, 0)], 0.0)


class PatternBelief:
    """What bayes believes about one opponent: a pattern posterior over the match and its ranges this hand."""

    def __init__(self) -> None:
        #: log of prior × likelihood of the finished hands, per pattern (equal priors: zeros)
        self.log_posterior = np.zeros(len(PATTERNS))
        #: log-likelihood of this hand's actions so far, per pattern
        self.hand_log = np.zeros(len(PATTERNS))
        #: the range used for decisions (updated by the most likely pattern)
        self.range = HandRange()
        #: the range conditioned on this hand's actions under each pattern (for the likelihoods)
        self.pattern_ranges = [HandRange() for _ in PATTERNS]
        #: whether the opponent raised this hand
        self.raised = False
        #: this hand's actions: (pair buckets, action table, uniform share) for the showdown's exact likelihood
        self.history: list[tuple[np.ndarray, np.ndarray, float]] = []
        #: opponent actions observed over the match
        self.actions = 0

    def posterior(self) -> np.ndarray:
        """P(pattern | everything seen), in PATTERNS order."""
        x = self.log_posterior + self.hand_log
        p = np.exp(x - x.max())
        return p / p.sum()

    def likely_pattern(self) -> str:
        """The pattern with the highest posterior (ties: the first in PATTERNS)."""
        return PATTERNS[int(np.argmax(self.posterior()))]

    def start_hand(self, dead: Iterable[int]) -> None:
        """A new hand: every range back to 1, minus the pairs holding ``dead`` cards."""
        dead = list(dead)
        self.range.reset(dead)
        for r in self.pattern_ranges:
            r.reset(dead)
        self.hand_log[:] = 0.0
        self.raised = False
        self.history = []

    def remove_cards(self, cards: Iterable[int]) -> None:
        """Cards became visible: no range holds them."""
        cards = list(cards)
        self.range.remove_cards(cards)
        for r in self.pattern_ranges:
            r.remove_cards(cards)

    def observe(self, action: ActionType, legal: Sequence[ActionType], buckets: np.ndarray,
                postflop: bool) -> np.ndarray:
        """Count one opponent action (``buckets``: the bucket of each pair now); returns the per-pattern likelihoods."""
        table = action_table(action, legal, postflop)
        uniform = 1.0 / len(legal)
        likelihood = np.empty(len(PATTERNS))
        per_pair = []
        for m, prange in enumerate(self.pattern_ranges):
            values = _pair_values(table[m], buckets)
            per_pair.append(values)
            likelihood[m] = (1 - TREMBLE) * prange.expect(values) + TREMBLE * uniform
            prange.observe(values)
        self.hand_log += np.log(likelihood)
        self.range.observe(per_pair[int(np.argmax(self.posterior()))])
        self.history.append((buckets, table, uniform))
        self.raised |= action == _R
        self.actions += 1
        return likelihood

    def exact_log_likelihood(self, pair: int) -> np.ndarray:
        """log P(this hand's actions | pattern, the opponent held ``pair``), per pattern."""
        total = np.zeros(len(PATTERNS))
        for buckets, table, uniform in self.history:
            k = buckets[pair]
            p = table[:, k] if k >= 0 else np.zeros(len(PATTERNS))
            total += np.log((1 - TREMBLE) * p + TREMBLE * uniform)
        return total

    def finish_hand(self, shown: Sequence[int] | None = None) -> None:
        """Fold this hand's likelihood into the posterior; exact for the shown pair when cards were shown."""
        if shown is not None and len(shown) == 2 and self.history:
            self.hand_log = self.exact_log_likelihood(int(PAIR_INDEX[shown[0], shown[1]]))
        self.log_posterior += self.hand_log
        self.log_posterior -= self.log_posterior.max()  # only differences matter
        self.hand_log = np.zeros(len(PATTERNS))
        self.history = []


# ---------------------------------------------------------------------------
# The player
# ---------------------------------------------------------------------------

@register
class BayesStrategy(Strategy):
    """The 2020 study's Bayesian player; see the module docstring for its rule and every deviation.

    Preflop Chen-score triples; after the flop a triple from hand strength
    against per-opponent ranges narrowed by each opponent's most likely
    pattern (maniac, rock, station), pattern adjustment, bluffs; sampled.
    Raises are pot-sized in no-limit (clamped), ``r`` in limit.
    """

    name = "bayes"
    description = ("2020 study: Bayesian player modelling opponents as maniac/rock/station "
                   "(ranges, pattern posterior, strength and potential triples).")
    # the parameters, set from params by Strategy.__init__
    bluff: bool
    params: ClassVar[dict[str, Param]] = {
        "bluff": Param(parse_bool, True, "turn fold-heavy triples into bluffs sometimes (1/0)"),
    }

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Hold'em only (the Chen score, the buckets and the ranges need hold'em cards)."""
        return holdem_only(game)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: opponent models by seat offset (position - our position) mod players
        self.models: dict[int, PatternBelief] = {}
        self._hand_id: int | None = None
        self._position = -1
        self._finished = True
        self._seen = 0
        self._dead_through = -1  # the last round whose board cards the ranges exclude
        self._buckets: dict[int, np.ndarray] = {}
        #: the last decision's details (for tests and logs)
        self.last: dict[str, Any] = {}

    # ------------------------------------------------------------- the model

    def start_match(self, match: MatchInfo) -> None:
        """A fresh model for each opponent."""
        self.models = {}
        self._hand_id = None
        self._finished = True

    def model(self, position: int) -> PatternBelief:
        """The model of the opponent at ``position`` this hand."""
        key = (position - self._position) % self.game.num_players
        model = self.models.get(key)
        if model is None:
            model = self.models[key] = PatternBelief()
        return model

    def _start_hand(self, view: View) -> None:
        if not self._finished:
            self._finish(None)  # a hand whose final state never came: keep what it taught
        self._hand_id = view.hand_id
        self._position = view.position
        self._finished = False
        self._seen = 0
        self._dead_through = 0
        self._buckets = {}
        for p in range(self.game.num_players):
            if p != view.position:
                self.model(p).start_hand(view.hole)

    def _pair_buckets(self, round_: int, board: Sequence[int]) -> np.ndarray:
        b = self._buckets.get(round_)
        if b is None:
            b = PAIR_PREFLOP_BUCKET if round_ == 0 else pair_postflop_buckets(board)
            self._buckets[round_] = b
        return b

    def _sync(self, view: View) -> None:
        """Count the actions of ``view`` not counted yet."""
        if view.hand_id != self._hand_id or view.position != self._position:
            if self._finished and view.hand_id == self._hand_id:
                return  # the final state of a finished hand, again
            self._start_hand(view)
        elif self._finished:
            return
        state = view.state
        by_round = state.board_by_round()
        for step in state.steps(self._seen):
            self._reveal(step.round, by_round)
            if step.player != self._position:
                buckets = self._pair_buckets(step.round, step.before.visible_board())
                self.model(step.player).observe(step.action[0], step.before.legal_actions(), buckets, step.round > 0)
        self._seen = state.num_actions
        self._reveal(state.round, by_round)

    def _reveal(self, round_: int, by_round: Sequence[Sequence[int]]) -> None:
        """Take the board cards dealt through ``round_`` (``by_round``: the board per round) out of every range."""
        if round_ <= self._dead_through:
            return
        cards = [c for dealt in by_round[self._dead_through + 1:round_ + 1] for c in dealt]
        for p in range(self.game.num_players):
            if p != self._position:
                self.model(p).remove_cards(cards)
        self._dead_through = round_

    def _finish(self, view: View | None) -> None:
        shown = view.shown if view is not None else {}
        for p in range(self.game.num_players):
            if p != self._position:
                self.model(p).finish_hand(shown.get(p))
        self._finished = True

    def observe(self, view: View) -> None:
        """Count every opponent action as it is seen."""
        self._sync(view)

    def end_hand(self, view: View) -> None:
        """Fold the hand into each opponent's posterior (exactly, for shown cards)."""
        self._sync(view)
        if not self._finished:
            self._finish(view)

    # ------------------------------------------------------------- deciding

    def _opponent_ranges(self, view: View, opponents: Sequence[int]) -> list[np.ndarray]:
        dead = set(view.hole) | set(view.board_cards)
        out = []
        for p in opponents:
            w = self.model(p).range.weights
            if not w.any():  # cannot happen with the guards above, but never hand the evaluator an empty range
                r = HandRange()
                r.remove_cards(dead)
                w = r.weights
            out.append(w)
        return out

    def decide(self, view: View) -> Triple:
        """The triple before the bluff: Chen preflop, strength and potential after, pattern-adjusted."""
        state = view.state
        hole = view.hole
        if state.round == 0:
            reraise = facing_reraise(state)
            score = chen_score(hole[0], hole[1])
            triple = chen_triple(score, reraise)
            self.last = {"chen": score, "reraise": reraise, "triple": triple}
            return triple
        board = view.board_cards
        opponents = view.opponents
        ranges = self._opponent_ranges(view, opponents)
        ahead, tied, behind = combine_shares(
            (s.ahead, s.tied, s.behind) for s in (showdown_shares(hole, board, w) for w in ranges))
        info: dict[str, Any] = {"ahead": ahead, "tied": tied, "behind": behind}
        if len(board) >= 5:
            triple = river_triple(ahead, tied, behind)
        else:
            ppot, npot = hand_potential(hole, board, ranges if len(ranges) > 1 else ranges[0], len(ranges), 1)
            improving, left = improving_cards(hole, board)
            mano = improving / left
            bote = odd_bote(view.to_call, view.state.pot_after_call(view.position))
            triple = postflop_triple(ahead, behind, ppot, npot, mano, bote)
            info.update(ppot=ppot, npot=npot, odd_mano=mano, odd_bote=bote)
        pair_or_better = int(rank_class(rank(tuple(hole) + tuple(board)))) <= PAIR_BUCKET
        directions = [adjustment(self.model(p).posterior(), self.model(p).raised, pair_or_better) for p in opponents]
        adjusted = adjust_triple(triple, directions)
        info.update(base=triple, directions=directions, triple=adjusted)
        self.last = info
        return adjusted

    def act(self, view: View, deadline: float) -> Action:
        """Decide the triple, maybe bluff, sample; a raise is pot-sized (no-limit) or ``r`` (limit)."""
        self._sync(view)
        triple = self.decide(view)
        if self.bluff:
            triple = bluff(triple, self.rng.random())
        self.last["final"] = triple
        kind = sample_triple(self.rng, triple)
        state = view.state
        target = state.raise_to_fraction(1.0) if kind == _R and self.game.is_nolimit else None
        return intent_to_action(state, kind, target)


__all__ = ["BayesStrategy", "PatternBelief", "chen_triple", "facing_reraise", "postflop_triple", "river_triple",
           "odd_bote", "improving_cards", "combine_shares", "adjustment", "adjust_triple", "loosen", "tighten",
           "bluff", "action_table", "TREMBLE", "UNSURE_MARGIN", "LOOSEN", "TIGHTEN"]
