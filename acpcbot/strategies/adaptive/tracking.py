"""adaptive's view of its opponents during a hand: their statistics, counted, and their ranges, narrowed.

Every opponent action is counted in the opponent's statistics
(``adaptive.stats``) and narrows its range (1326 weights) through the soft
threshold model (``adaptive.ranges``), mixed with "the action says
nothing" by how well the model has explained the hands the opponent
showed down.  The searches before the flop read snapshots of the
statistics taken at the start of a hand (``_freeze``), so what they give
depends only on the hands already over.
"""

from __future__ import annotations

import numpy as np

from ...engine import Action, ActionType, State
from ...evaluator import NUM_PAIRS
from ...gamedef import GameDef
from ...world import MatchInfo, View
from ..persist import opponent_key
from .preflop import PREFLOP_REFRESH
from .ranges import (
    Event,
    HandTracker,
    action_likelihood,
    pairs_with,
    range_histogram,
    reference_percentiles,
    size_likelihoods,
    threshold_likelihood,
)
from .stats import OpponentStats, info_class, raise_size_class, size_info_class, spot_of

_F, _R = ActionType.FOLD, ActionType.RAISE


class RangeTracking:
    """The opponents' statistics and the hand's ranges, brought up to each view (a part of AdaptiveStrategy)."""

    game: GameDef
    info: MatchInfo | None
    #: the opponent's exact policy when known (probe:kind=K; its actions say nothing of its cards)
    opponent: str
    #: per opponent key, everything learnt about it
    stats: dict[str, OpponentStats]
    #: the hand being tracked (None before the first)
    hand: HandTracker | None
    #: per opponent, its statistics as they were at the start of a hand (hands seen then, a copy)
    _frozen: dict[str, tuple[int, OpponentStats]]

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

    def sync(self, view: View, freeze: bool = True) -> HandTracker:
        """Bring the hand's tracker up to ``view``: count and narrow on every opponent action not yet seen (a
        new hand first takes the snapshots of ``_freeze``); heads-up, a range the model was wrong about entirely
        starts again from the live pairs."""
        hand = self.hand
        # the tracker follows the public hand only (a policy's views differ in the hole cards, never in what is known)
        if hand is None or hand.hand_id != view.hand_id or hand.me != view.position:
            # our own cards are taken out per row at the showdowns (a policy's rows hold other pairs)
            weights = np.ones(NUM_PAIRS)
            hand = self.hand = HandTracker(view.hand_id, view.position,
                                           {p: weights.copy() for p in range(self.game.num_players)
                                            if p != view.position})
            if freeze:
                for p in hand.ranges:
                    self._freeze(view, p)
        state = view.state
        for step in state.steps(hand.done):
            self._remove_board(hand, view, step.round)
            if step.player != hand.me:
                self._narrow(hand, view, step.before, step.player, step.action)
        hand.done = state.num_actions
        self._remove_board(hand, view, state.round)
        opponents = view.opponents
        if len(opponents) == 1 and not hand.ranges[opponents[0]].sum() > 0:
            hand.ranges[opponents[0]] = (~pairs_with(tuple(view.board_cards))).astype(np.float64)
        return hand

    def _freeze(self, view: View, p: int) -> None:
        """Snapshot the statistics of the opponent at ``p`` (at the start of a hand) once the hands seen have grown
        by a PREFLOP_REFRESH-th (at least one) since the last: the searches before the flop read the snapshot, so
        what they give depends only on the hands already over, however often or wherever they are asked."""
        key = self.key(view, p)
        stats = self.opponent_stats(view, p)
        held = self._frozen.get(key)
        if held is None or stats.hands - held[0] >= max(1, held[0] // PREFLOP_REFRESH):
            self._frozen[key] = (stats.hands, stats.copy())

    def _remove_board(self, hand: HandTracker, view: View, round_: int) -> None:
        visible = view.state.board[:self.game.board_cards_through(round_)]
        if len(visible) > hand.removed:
            dead = pairs_with(visible[hand.removed:])
            for w in hand.ranges.values():
                w[dead] = 0.0
            hand.removed = len(visible)

    def _narrow(self, hand: HandTracker, view: View, before: State, p: int, action: Action) -> None:
        """Count an opponent's action and narrow its range by the threshold model."""
        if self.opponent:
            return  # a known card-blind policy: its actions say nothing of its cards
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
        chance = threshold_likelihood(u, triple, to_call > 0, int(kind))
        self._weigh(hand, p, stats, info_class(kind, to_call, before.round, spot.bucket), chance)
        if kind == _R and self.game.is_nolimit:
            lo, hi = stats.size_band(spot.kind, r, raise_size_class(before.raise_fraction(action[1])))
            if hi - lo < 1.0 - 1e-9:  # the player has raised other sizes here: where does this one sit?
                self._weigh(hand, p, stats, size_info_class(r), size_likelihoods(u, float(triple[2]), lo, hi))

    @staticmethod
    def _weigh(hand: HandTracker, p: int, stats: OpponentStats, cls: str, chance: np.ndarray) -> None:
        """Narrow ``p``'s range by an action's chance per pair (mixed by the class's informativeness); keep the
        event to learn that informativeness if the cards are shown."""
        w = hand.ranges[p]
        total = w.sum()
        mean = float(np.dot(w, chance) / total) if total > 0 else 0.0
        new = w * action_likelihood(chance, w, stats.info.kappa(cls))
        top = new.max()
        if top > 0:
            hand.ranges[p] = new / top
        hand.events.append(Event(p, cls, chance, mean))
