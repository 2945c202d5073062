"""The 2020 study's patterned players ``maniac``, ``rock`` and ``station``, and their hand buckets.

Each pattern plays a fixed (fold, call, raise) probability triple per hand
bucket and ignores everything else (docs/studies.md, the 2020 study):

- preflop bucket k = 0..8: the Sklansky–Malmuth group G1..G8 of the hole
  cards, 8 when the hand is in no group (``preflop.sm_group`` minus one);
- postflop bucket k = 0..9: the made-hand category of the best five of the
  hole and board cards: royal flush 0, straight flush 1, quads 2, full house
  3, flush 4, straight 5, trips 6, two pair 7, pair 8, high card 9.  This is
  ``evaluator.rank_class`` of the treys rank: treys 0.1.8 gives the royal
  flush (the ace-high straight flush, rank 1) a class of its own, so a
  5-high or king-high straight flush is bucket 1, never 0.

The triples, for k from 0 (``n`` = 8 preflop, 9 postflop):

- maniac: fold 0.025k, call 0.05 + 0.025k, raise 0.95 - 0.05k;
- rock: fold 0.99 k²/n², raise 0.99 (k - n)²/n², call the rest;
- station: fold 0.0375k, call 0.85 - 0.025k, raise 0.15 - 0.0125k.

The bucket tables here are shared with ``bayes``, which models its
opponents as these patterns: ``triple_table`` gives a (buckets, 3) array,
``PAIR_PREFLOP_BUCKET`` and ``pair_postflop_buckets`` the bucket of each of
the 1326 hole pairs.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

import numpy as np

from ..engine import Action, ActionType
from ..evaluator import WORST_RANK, pair_ranks, rank, rank_class, rank_class_batch
from ..gamedef import GameDef
from ..preflop import CLASSES, PAIR_CLASS, SM_GROUP, sm_group
from ..world import View
from .base import INLINE_ENDS, ActionPolicy, Param, Strategy
from .common import holdem_only, intent_to_action, sample_triple
from .registration import register

PATTERNS: tuple[str, ...] = ("maniac", "rock", "station")
#: buckets before the flop (G1..G8, none) and after it (royal flush .. high card)
PREFLOP_BUCKETS = 9
POSTFLOP_BUCKETS = 10
#: the postflop bucket of "pair": buckets up to this one are "pair or better"
PAIR_BUCKET = 8

Triple = tuple[float, float, float]


def preflop_bucket(hole: Sequence[int]) -> int:
    """Preflop bucket 0..8 of two hole cards: Sklansky–Malmuth group G1..G8 -> 0..7, no group -> 8."""
    c1, c2 = hole
    return sm_group(c1, c2) - 1


def postflop_bucket(hole: Sequence[int], board: Sequence[int]) -> int:
    """Postflop bucket 0..9: made-hand category of the best five cards (royal flush 0 .. high card 9)."""
    return int(rank_class(rank(tuple(hole) + tuple(board))))


def bucket(hole: Sequence[int], board: Sequence[int]) -> int:
    """The bucket of a hand now: preflop without board cards, else postflop."""
    return postflop_bucket(hole, board) if board else preflop_bucket(hole)


#: PAIR_PREFLOP_BUCKET[i]: preflop bucket of hole pair i (``evaluator.PAIRS`` order).
PAIR_PREFLOP_BUCKET = np.array([SM_GROUP.get(c, 9) - 1 for c in CLASSES], dtype=np.int64)[PAIR_CLASS]
PAIR_PREFLOP_BUCKET.setflags(write=False)


def pair_postflop_buckets(board: Sequence[int]) -> np.ndarray:
    """Postflop bucket of every hole pair with ``board`` (3..5 cards); -1 where the pair holds a board card."""
    ranks = pair_ranks(board)
    dead = ranks == 0
    # a dead pair gets any valid rank for the lookup, then -1
    out = rank_class_batch(np.where(dead, WORST_RANK, ranks)).astype(np.int64)
    out[dead] = -1
    return out


def maniac_triple(k: int, postflop: bool = False) -> Triple:
    """maniac's (fold, call, raise) in bucket ``k``."""
    _check_bucket(k, postflop)
    return 0.025 * k, 0.05 + 0.025 * k, 0.95 - 0.05 * k


def rock_triple(k: int, postflop: bool = False) -> Triple:
    """rock's (fold, call, raise) in bucket ``k``: fold 0.99 k²/n², raise 0.99 (k-n)²/n², call the rest."""
    _check_bucket(k, postflop)
    n = POSTFLOP_BUCKETS - 1 if postflop else PREFLOP_BUCKETS - 1
    fold = 0.99 * k * k / (n * n)
    raise_ = 0.99 * (k - n) ** 2 / (n * n)
    return fold, 1.0 - fold - raise_, raise_


def station_triple(k: int, postflop: bool = False) -> Triple:
    """station's (fold, call, raise) in bucket ``k``."""
    _check_bucket(k, postflop)
    return 0.0375 * k, 0.85 - 0.025 * k, 0.15 - 0.0125 * k


_TRIPLES = {"maniac": maniac_triple, "rock": rock_triple, "station": station_triple}


def _check_bucket(k: int, postflop: bool) -> None:
    top = POSTFLOP_BUCKETS if postflop else PREFLOP_BUCKETS
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < top:
        raise ValueError(f"{'postflop' if postflop else 'preflop'} bucket must be an int 0..{top - 1}, got {k!r}")


def pattern_triple(pattern: str, k: int, postflop: bool = False) -> Triple:
    """The (fold, call, raise) of ``pattern`` (maniac, rock or station) in bucket ``k``."""
    try:
        fn = _TRIPLES[pattern]
    except KeyError:
        raise ValueError(f"unknown pattern {pattern!r} (expected one of {', '.join(PATTERNS)})") from None
    return fn(k, postflop)


def _table(pattern: str, postflop: bool) -> np.ndarray:
    n = POSTFLOP_BUCKETS if postflop else PREFLOP_BUCKETS
    t = np.array([pattern_triple(pattern, k, postflop) for k in range(n)])
    t.setflags(write=False)
    return t


_TABLES = {(p, post): _table(p, post) for p in PATTERNS for post in (False, True)}


def triple_table(pattern: str, postflop: bool) -> np.ndarray:
    """(buckets, 3) read-only array: row k is ``pattern_triple(pattern, k, postflop)``."""
    if pattern not in _TRIPLES:
        raise ValueError(f"unknown pattern {pattern!r} (expected one of {', '.join(PATTERNS)})")
    return _TABLES[(pattern, bool(postflop))]



class PatternStrategy(Strategy):
    """A patterned player: the triple of its bucket, sampled; raises are pot-sized in no-limit.

    Deviation from the study: it left the raise size open; here a raise is a
    pot-sized raise (``State.raise_to_fraction``) clamped into the legal range,
    ``r`` in limit games; ``pot=F`` raises by F times the pot instead.  A sampled fold when checking is free is a check,
    and a sampled raise where no raise is allowed a call (the common
    conventions).  The rule ignores the number of players, so it plays any
    hold'em game, heads-up or multi-player, limit or no-limit.
    """

    pattern: ClassVar[str] = ""
    # the parameters, set from params by Strategy.__init__
    pot: float
    params: ClassVar[dict[str, Param]] = {
        "pot": Param(float, 1.0, "no-limit raise size as a fraction of the pot after calling (1 = pot-sized)",
                     lambda v: 0 < v <= 100, "must be > 0 and <= 100"),
    }
    run_mode = INLINE_ENDS

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Hold'em only: the buckets need two hole cards and a 3-1-1 board."""
        return holdem_only(game)

    def triple(self, view: View) -> Triple:
        """The (fold, call, raise) this player uses in ``view``."""
        board = view.board_cards
        if board:
            return pattern_triple(self.pattern, postflop_bucket(view.hole, board), True)
        return pattern_triple(self.pattern, preflop_bucket(view.hole), False)

    has_policy = True

    def policy(self, view: View) -> ActionPolicy:
        """Every hole pair's bucket triple, its intents turned into the legal actions ``act`` would send."""
        board = view.board_cards
        if board:
            # a pair holding a board card has bucket -1: any valid row will do there
            buckets = np.maximum(pair_postflop_buckets(board), 0)
            triples = triple_table(self.pattern, True)[buckets]
        else:
            triples = triple_table(self.pattern, False)[PAIR_PREFLOP_BUCKET]
        triples = np.maximum(triples, 0.0)
        triples = triples / triples.sum(axis=1, keepdims=True)  # as sample_triple renormalises
        state = view.state
        target = state.raise_to_fraction(self.pot) if self.game.is_nolimit else None
        actions: list[Action] = []
        columns: list[np.ndarray] = []
        for k, kind in enumerate((ActionType.FOLD, ActionType.CALL, ActionType.RAISE)):
            action = intent_to_action(state, kind, target)
            if action in actions:  # a fold when checking is free is a check; a raise where none is allowed a call
                columns[actions.index(action)] = columns[actions.index(action)] + triples[:, k]
            else:
                actions.append(action)
                columns.append(triples[:, k])
        return ActionPolicy(tuple(actions), np.stack(columns, axis=1), self.game)

    def act(self, view: View, deadline: float) -> Action:
        """Sample the bucket's triple; a raise is pot-sized (no-limit) or ``r`` (limit)."""
        kind = sample_triple(self.rng, self.triple(view))
        state = view.state
        target = state.raise_to_fraction(self.pot) if kind == ActionType.RAISE and self.game.is_nolimit else None
        return intent_to_action(state, kind, target)


@register
class ManiacStrategy(PatternStrategy):
    """The 2020 study's maniac: raises most hands, folds little (fold 0.025k, call 0.05+0.025k, raise 0.95-0.05k).

    Bucket k: preflop Sklansky–Malmuth group (0..8), postflop made-hand
    category (0 royal flush .. 9 high card).  See ``PatternStrategy`` for the
    raise size and the other conventions.
    """

    name = "maniac"
    description = "2020 study: raise-heavy fixed triple per hand bucket (fold .025k, call .05+.025k, raise .95-.05k)."
    pattern = "maniac"


@register
class RockStrategy(PatternStrategy):
    """The 2020 study's rock: plays only strong hands (fold 0.99k²/n², raise 0.99(k-n)²/n², call the rest).

    n = 8 preflop (Sklansky–Malmuth groups), 9 postflop (made-hand
    categories).  See ``PatternStrategy`` for the raise size and the other
    conventions.
    """

    name = "rock"
    description = "2020 study: tight fixed triple per hand bucket (fold .99k²/n², raise .99(k-n)²/n²)."
    pattern = "rock"


@register
class StationStrategy(PatternStrategy):
    """The 2020 study's calling station: calls most hands (fold 0.0375k, call 0.85-0.025k, raise 0.15-0.0125k).

    Bucket k: preflop Sklansky–Malmuth group (0..8), postflop made-hand
    category (0 royal flush .. 9 high card).  See ``PatternStrategy`` for the
    raise size and the other conventions.
    """

    name = "station"
    description = "2020 study: call-heavy fixed triple per hand bucket (fold .0375k, call .85-.025k, raise .15-.0125k)."
    pattern = "station"


__all__ = ["PATTERNS", "PREFLOP_BUCKETS", "POSTFLOP_BUCKETS", "PAIR_BUCKET", "PAIR_PREFLOP_BUCKET",
           "preflop_bucket", "postflop_bucket", "bucket", "pair_postflop_buckets", "pattern_triple",
           "maniac_triple", "rock_triple", "station_triple", "triple_table", "PatternStrategy",
           "ManiacStrategy", "RockStrategy", "StationStrategy"]
