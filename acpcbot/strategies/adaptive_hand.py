"""What ``adaptive`` knows about the hand in progress: each opponent's range, the actions to learn from, cached vectors."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .adaptive_ranges import score_bins, strength_scores
from .adaptive_search import Runouts


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
        """An independent copy (ranges copied; the cached vectors, never written in place, shared)."""
        return HandTracker(self.hand_id, self.me, {p: w.copy() for p, w in self.ranges.items()}, self.done,
                           self.removed, list(self.events), dict(self.scores), dict(self.runouts), dict(self.multi))

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
