"""The numbers behind ``adaptive``: hand-strength scores, range percentiles, threshold likelihoods, equity vectors.

Everything works on the 1326 hole pairs (``evaluator.PAIRS`` order) with
numpy, so a decision costs a few milliseconds:

- :func:`strength_scores`: how strong each pair is for its holder on a
  board, judged without knowing our cards (preflop equity against a random
  hand; after the flop the share of random holdings it beats now).  This is
  the order in which an opponent is assumed to rank its hands.
- :func:`percentiles`, :func:`reference_percentiles`: each pair's place
  (0 weakest .. 1 strongest) among the pairs a range holds, or in a
  reference distribution of strength (the ranges a player usually holds in
  a spot), over SCORE_BINS bins of the score.
- :func:`threshold_likelihoods`: the soft threshold model of an opponent
  whose (fold, call, raise) frequencies in a spot are known: it raises with
  its top ``raise`` share, folds its bottom ``fold`` share and calls with the
  rest; :func:`action_likelihood` mixes it with "the action says nothing"
  by the learnt informativeness kappa.
- :func:`equity_vector`: our showdown equity against every pair at once
  (exact on the turn and river, sampled runouts on the flop and preflop),
  with its valid mask (``acpcbot.equity_vectors``' one convention, whose
  functions compute it), so the equity against any range or sub-range is
  a weighted mean (:func:`range_equity`);
  :func:`quick_equity`, a quicker reading against the ranges now.
- :class:`HandTracker`: the ranges of the hand in progress, with the
  actions to learn from and the vectors kept per street.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np

from ...engine import ActionType
from ...equity_vectors import (
    holdem_equity_on_runs,
    range_equity as range_equity,  # the equity against a range: the one convention's
    valid_mean,
)
from ...evaluator import NUM_PAIRS, PAIR_INDEX, PAIRS, pair_ranks
from ...preflop import CLASSES, PAIR_CLASS, hand_class, preflop_equity
from .runouts import SCORE_BINS, Runouts

#: softness of the threshold model, in percentile units
SOFTNESS = 0.06
#: sampled runouts for the flop (of 1081) and boards before the flop
FLOP_SAMPLES = 200
PREFLOP_SAMPLES = 300
#: a preflop hand's vector is refined on each sight up to this many batches of PREFLOP_SAMPLES boards
PREFLOP_BATCHES = 4

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
_PAIR_EQUITY = np.array([preflop_equity(c) for c in CLASSES])[PAIR_CLASS]
_PAIR_EQUITY.setflags(write=False)
_PAIR_CARD_MASK = np.zeros((NUM_PAIRS, 52), dtype=bool)
_PAIR_CARD_MASK[np.arange(NUM_PAIRS), PAIRS[:, 0]] = True
_PAIR_CARD_MASK[np.arange(NUM_PAIRS), PAIRS[:, 1]] = True


def pairs_with(cards: Sequence[int]) -> np.ndarray:
    """Boolean mask of the pairs holding any of ``cards``."""
    cs = list(cards)
    if not cs:
        return np.zeros(NUM_PAIRS, dtype=bool)
    return _PAIR_CARD_MASK[:, cs].any(axis=1)  # type: ignore[return-value]  # numpy's stub: of a 2-D array, an array


def strength_scores(board: Sequence[int]) -> np.ndarray:
    """A score per pair in [0, 1], higher is stronger for its holder; pairs holding a board card get 0.

    Preflop: the pair's all-in equity against a random hand.  After the
    flop: the share of the other live pairs it beats now (ties count half),
    i.e. the hand strength against a uniform random range.
    """
    if not board:
        return _PAIR_EQUITY.copy()
    ranks = pair_ranks(tuple(board)).astype(np.int64)
    live = ranks > 0
    live_ranks = np.sort(ranks[live])
    n = len(live_ranks)
    # treys ranks: lower is better; a pair beats the live pairs with a higher rank
    worse = n - np.searchsorted(live_ranks, ranks, side="right")
    ties = np.searchsorted(live_ranks, ranks, side="right") - np.searchsorted(live_ranks, ranks, side="left") - 1
    score = (worse + 0.5 * ties) / max(1, n - 1)
    return np.where(live, score, 0.0)


def score_bins(score: np.ndarray) -> np.ndarray:
    """The histogram bin (0..SCORE_BINS-1) of each pair's strength score."""
    return np.minimum((score * SCORE_BINS).astype(np.int64), SCORE_BINS - 1)


def range_histogram(bins: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A range's distribution over the strength bins (sums to 1; uniform when the range is empty)."""
    hist = np.bincount(bins, weights=weights, minlength=SCORE_BINS)
    total = hist.sum()
    return hist / total if total > 0 else np.full(SCORE_BINS, 1.0 / SCORE_BINS)


def reference_percentiles(dist: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """Each pair's percentile (0 weakest .. 1 strongest) in a distribution over strength bins (a bin's middle)."""
    below = np.cumsum(dist) - dist
    return (below + 0.5 * dist)[bins]


def percentiles(score: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each pair's weighted percentile of ``score`` within the range ``weights`` (binned; ties share the middle)."""
    bins = score_bins(score)
    return reference_percentiles(range_histogram(bins, weights), bins)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _sigmoid_into(x: np.ndarray, out: np.ndarray) -> None:
    """:func:`_sigmoid` of ``x`` written into ``out`` (a scratch ``x`` is overwritten): the same operations in the
    same order, without a temporary for each (threshold_likelihoods runs on a few bins many times a decision)."""
    np.multiply(x, 0.5, out=x)
    np.tanh(x, out=x)
    np.add(x, 1.0, out=x)
    np.multiply(x, 0.5, out=out)


def threshold_likelihoods(u: np.ndarray, triple: Sequence[float] | np.ndarray, facing: bool,
                          softness: float | None = None) -> np.ndarray:
    """(3, 1326) chance of fold, call, raise per pair under the soft threshold model at percentiles ``u``.

    The top ``raise`` share raises, the bottom ``fold`` share folds (only
    when ``facing`` a bet; otherwise a fold is a check), the rest calls.
    """
    f, r = float(triple[0]), float(triple[2])
    softness = SOFTNESS if softness is None else softness
    out = np.zeros((3, len(u)))
    call = out[1]
    call.fill(1.0)
    if r > 0:
        x = u - (1.0 - r)
        x /= softness
        _sigmoid_into(x, out[2])
        call -= out[2]
    if facing and f > 0:
        x = u - f
        x /= softness
        _sigmoid_into(x, out[0])
        np.subtract(1.0, out[0], out=out[0])
        # 1 - fold - raise, in that order; neither chance is above 1, so only the floor at 0 can bind
        np.subtract(1.0, out[0], out=call)
        if r > 0:
            call -= out[2]
    np.maximum(call, 0.0, out=call)
    return out


def threshold_likelihood(u: np.ndarray, triple: Sequence[float] | np.ndarray, facing: bool, kind: int) -> np.ndarray:
    """Row ``kind`` (0 fold, 1 call, 2 raise) of :func:`threshold_likelihoods`, the same numbers: a fold or a raise
    needs only its own edge (a range is narrowed by the one action taken)."""
    f, r = float(triple[0]), float(triple[2])
    if kind == 1:
        return threshold_likelihoods(u, triple, facing)[1]
    out = np.zeros(len(u))
    if kind == 2 and r > 0:
        x = u - (1.0 - r)
        x /= SOFTNESS
        _sigmoid_into(x, out)
    elif kind == 0 and facing and f > 0:
        x = u - f
        x /= SOFTNESS
        _sigmoid_into(x, out)
        np.subtract(1.0, out, out=out)
    return out


#: softness of the edges of a raise size's band within the raising range (in shares of that range)
SIZE_SOFTNESS = 0.08


def size_likelihoods(u: np.ndarray, raise_share: float, lo: float, hi: float) -> np.ndarray:
    """Chance per pair (at percentiles ``u``) that its raise has the size it had, bigger raises from stronger hands.

    Within the raising range (the top ``raise_share`` of the percentiles)
    the raises of this size class are the band from ``lo`` to ``hi`` of it
    (the shares of the player's raises smaller than it and through it): a
    player sizing by strength puts its biggest raises on its best hands.
    """
    r = max(float(raise_share), 1e-3)
    v = (u - (1.0 - r)) / r
    out = np.ones_like(u)
    if lo > 0:
        out *= _sigmoid((v - lo) / SIZE_SOFTNESS)
    if hi < 1:
        out *= 1.0 - _sigmoid((v - hi) / SIZE_SOFTNESS)
    return out


def action_likelihood(t: np.ndarray, weights: np.ndarray, kappa: float) -> np.ndarray:
    """Per-pair likelihood of an action: kappa x the threshold model's (normalised) + (1 - kappa) x uniform.

    ``t`` is the threshold model's chance of the action per pair; it is
    scaled to average 1 over the range, so the result averages 1 too and
    only the shape (which pairs the action favours) narrows the range.
    """
    total = weights.sum()
    mean = float(np.dot(weights, t) / total) if total > 0 else 0.0
    if mean <= 1e-9:
        return np.ones_like(t)
    return kappa * (t / mean) + (1.0 - kappa)


def _deck(dead: Sequence[int]) -> np.ndarray:
    used = set(dead)
    return np.array([c for c in range(52) if c not in used], dtype=np.int64)


@lru_cache(maxsize=4)
def _combos(m: int, k: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(m), k)), dtype=np.int64)


def _runout_boards(hole: Sequence[int], board: Sequence[int], gen: np.random.Generator) -> np.ndarray:
    """Full 5-card boards continuing ``board``: all of them on the turn, a sample on the flop and preflop."""
    deck = _deck(tuple(hole) + tuple(board))
    need = 5 - len(board)
    base = np.array(board, dtype=np.int64)
    if need == 1:
        runs = deck[:, None]
    elif need == 2:
        combos = _combos(len(deck), 2)
        pick = gen.choice(len(combos), size=min(FLOP_SAMPLES, len(combos)), replace=False)
        runs = deck[combos[pick]]
    else:
        keys = gen.random((PREFLOP_SAMPLES, len(deck)))
        runs = deck[np.argpartition(keys, need, axis=1)[:, :need]]
    return np.hstack([np.broadcast_to(base, (len(runs), len(base))), runs])


def equity_vector(hole: Sequence[int], board: Sequence[int], gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(equity, valid): our showdown equity (win + tie/2) against each of the 1326 pairs, and which pairs can be
    held (``acpcbot.equity_vectors``' convention: a pair holding a known card has equity 0 and valid False).

    Exact on the river and the turn (every river card), over sampled
    runouts on the flop (FLOP_SAMPLES of 1081) and preflop (PREFLOP_SAMPLES
    boards): each pair's mean over the runouts it is compatible with.
    """
    hole = tuple(int(c) for c in hole)
    board = tuple(int(c) for c in board)
    if len(board) == 5:
        return holdem_equity_on_runs(hole, board, np.zeros((1, 0), dtype=np.int64))
    boards = _runout_boards(hole, board, gen)
    return holdem_equity_on_runs(hole, board, boards[:, len(board):])


def canonical_hole(hole: Sequence[int]) -> tuple[tuple[int, int], tuple[int, ...]]:
    """The suit-canonical form of a hole pair and the suit map to it (first card clubs, second diamonds if offsuit).

    Returns (canonical hole, sigma) with ``sigma[s]`` the canonical suit of suit ``s``.
    """
    a, b = int(hole[0]), int(hole[1])
    order = [a & 3] + ([b & 3] if b & 3 != a & 3 else [])
    order += [s for s in range(4) if s not in order]
    sigma = [0] * 4
    for new, old in enumerate(order):
        sigma[old] = new
    return ((a >> 2) * 4 + sigma[a & 3], (b >> 2) * 4 + sigma[b & 3]), tuple(sigma)


@lru_cache(maxsize=24)
def _pair_permutation(sigma: tuple[int, ...]) -> np.ndarray:
    """perm[i]: index of pair i with its suits mapped by ``sigma``."""
    c = PAIRS[:, 0] >> 2 << 2 | np.array(sigma)[PAIRS[:, 0] & 3]
    d = PAIRS[:, 1] >> 2 << 2 | np.array(sigma)[PAIRS[:, 1] & 3]
    return PAIR_INDEX[c, d]


class PreflopEquities:
    """Preflop equity vectors per suit-canonical hand (169 of them), mapped to the actual suits.

    A hand's first sight costs one batch of PREFLOP_SAMPLES boards; each
    later sight adds a batch until PREFLOP_BATCHES, so hands met often get
    precise vectors while no single decision pays much.  The board luck
    common to all pairs is removed by a control variate: the vector is
    shifted so that its mean against a random hand is the exact equity
    (``preflop.preflop_equity``).
    """

    def __init__(self, gen: np.random.Generator) -> None:
        self.gen = gen
        self.sums: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
        self.vectors: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def get(self, hole: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(equity, valid): our equity against every pair before the flop, and the pairs not holding our cards."""
        canon, sigma = canonical_hole(hole)
        total, batches = self.sums.get(canon, (None, 0))
        if batches < PREFLOP_BATCHES:
            vec, valid = equity_vector(canon, (), self.gen)
            total = vec if total is None else total + vec
            batches += 1
            self.sums[canon] = (total, batches)
            mean = total / batches
            exact = _PAIR_EQUITY[pair_of(canon)]
            self.vectors[canon] = (np.where(valid, mean + (exact - valid_mean(mean, valid)), 0.0), valid)
        perm = _pair_permutation(sigma)
        vec, valid = self.vectors[canon]
        return vec[perm], valid[perm]



def pair_of(cards: Sequence[int]) -> int:
    """Index of a two-card hand."""
    return int(PAIR_INDEX[int(cards[0]), int(cards[1])])


def quick_equity(hole: tuple[int, ...], board: tuple[int, ...], ranges: Sequence[np.ndarray]) -> float:
    """Our equity against every range now, a quick reading (multiplied over the ranges): before the flop the
    hand's all-in equity against a random hand; later the share of each range it beats now, ties half."""
    if not board:
        return preflop_equity(hand_class(*hole)) ** len(ranges)
    ranks = pair_ranks(board)
    mine = int(ranks[pair_of(hole)])
    eq = 1.0
    for w in ranges:
        w = np.where((ranks > 0) & ~pairs_with(hole), w, 0.0)
        total = w.sum()
        if total > 0:
            eq *= float((w * np.where(ranks > mine, 1.0, np.where(ranks == mine, 0.5, 0.0))).sum() / total)
    return eq


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
    ranges: dict[int, np.ndarray]
    done: int = 0
    removed: int = 0
    events: list[Event] = field(default_factory=list)
    #: strength bins per street (by board size)
    scores: dict[int, np.ndarray] = field(default_factory=dict)
    #: the sampled runouts per street (by board size): those played out, those an all-in runs out on
    runouts: dict[int, tuple[Runouts, Runouts]] = field(default_factory=dict)
    multi: dict[tuple, float] = field(default_factory=dict)

    def copy(self) -> "HandTracker":
        """An independent copy (ranges copied); the strength bins and runouts, functions of the hand's board
        alone, are the same dictionaries: what a policy's copy makes, the hand keeps (and ``act`` need not redo)."""
        return HandTracker(self.hand_id, self.me, {p: w.copy() for p, w in self.ranges.items()}, self.done,
                           self.removed, list(self.events), self.scores, self.runouts, dict(self.multi))

    def bins(self, board: tuple[int, ...]) -> np.ndarray:
        """Strength bins of every pair on ``board`` (cached per street)."""
        b = self.scores.get(len(board))
        if b is None:
            b = self.scores[len(board)] = score_bins(strength_scores(board)) if board else preflop_bins()
        return b


@lru_cache(maxsize=1)
def preflop_bins() -> np.ndarray:
    """Every pair's strength bin before the flop (its all-in equity against a random hand), made once."""
    bins = score_bins(strength_scores(()))
    bins.setflags(write=False)
    return bins
