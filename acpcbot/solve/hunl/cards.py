"""HUNL card abstraction: EMD k-means over the hold'em bucket histories, and the chance model the trainer samples.

The hold'em buckets (``acpcbot.solve.abstraction``, the shipped
``hulhe_buckets.npz``, built with the project's evaluator over every
suit-canonical flop, turn and river) give every hole pair on a board its
history ``(c, b1, b2, b3)``: the lossless preflop class (169), a flop
cluster within the class, a turn cluster within (class, flop cluster) and
a river strength bucket.  Each turn cluster has a centroid: the
cumulative distribution of the hand's river strength over the rivers
(40 bins); a flop history's distribution is the mixture of its turn
clusters' by the exact transition table.  HUNL keys:

- preflop: the class ``c`` (169, lossless);
- flop: ``flop_map[c * K1 + b1]``, k-means with the earth mover's distance
  (L1 between cumulative distributions; centroids are coordinate-wise
  weighted medians, themselves cumulative distributions) over the 1,352
  flop histories' distributions, weighted by how often they occur:
  potential-aware, board-aware through the flop clusters;
- turn: ``turn_map[(c * K1 + b1) * K2 + b2]``, the same over the 8,112 turn
  histories;
- river: ``b3`` (strength percentile: a higher bucket wins the showdown).

Everything is a function of the hold'em bucket history, so the keys are as
suit-isomorphic as the buckets (one table over canonical flops) and
preflop is lossless.  The trainer's chance (``BucketDeals``) is the
hold'em blueprint's abstract game: classes with exact card removal, each
player's bucket history drawn from the exact one-player transition
tables, a showdown won by the higher river bucket.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ..abstraction import NUM_CLASSES, Buckets, class_joint


def emd_kmeans(x: np.ndarray, w: np.ndarray, k: int, seed: int = 0, iters: int = 50) -> np.ndarray:
    """Labels 0..k-1 of cumulative-distribution rows ``x`` by weighted k-means under L1 (1-D EMD), weakest first.

    k-means++ seeding under the same distance; Lloyd steps with weighted
    coordinate-wise medians; clusters renumbered by their mean strength,
    so label 0 is the weakest.
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = len(x)
    k = min(k, n)
    cent = [x[rng.choice(n, p=w / w.sum())]]
    d = np.abs(x - cent[0]).sum(1)
    for _ in range(1, k):
        p = w * d
        cent.append(x[rng.choice(n, p=p / p.sum())] if p.sum() > 0 else x[rng.integers(n)])
        d = np.minimum(d, np.abs(x - cent[-1]).sum(1))
    c = np.array(cent)
    lab = np.zeros(n, dtype=np.int64)
    for _ in range(iters):
        lab = np.abs(x[:, None, :] - c[None]).sum(2).argmin(1)
        new = c.copy()
        for j in range(k):
            sel = lab == j
            if w[sel].sum() > 0:
                new[j] = _weighted_median(x[sel], w[sel])
        if np.array_equal(new, c):
            break
        c = new
    lab = np.abs(x[:, None, :] - c[None]).sum(2).argmin(1)
    # a smaller cumulative sum is more mass on high strength: sort by the sum, largest (weakest) first
    order = np.argsort(-c.sum(1), kind="stable")
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)
    return rank[lab]


def _weighted_median(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Coordinate-wise weighted median of rows ``x`` (the L1 centre)."""
    order = np.argsort(x, axis=0, kind="stable")
    xs = np.take_along_axis(x, order, 0)
    cw = np.cumsum(w[order], axis=0)
    idx = (cw < cw[-1] / 2).sum(0)
    return xs[idx, np.arange(x.shape[1])]


@dataclass(frozen=True)
class HunlCards:
    """The HUNL key maps over a set of hold'em buckets (see the module docstring)."""

    k_flop: int
    k_turn: int
    flop_map: np.ndarray     # (169 * K1,) int16
    turn_map: np.ndarray     # (169 * K1 * K2,) int16
    river_k: int             # K3: river keys are b3

    @property
    def widths(self) -> tuple[int, int, int, int]:
        """Keys per round."""
        return NUM_CLASSES, self.k_flop, self.k_turn, self.river_k

    def key(self, history: int, round_: int) -> int:
        """The round's key of a hold'em strategy key (``blueprint.bucket_history``'s number)."""
        if round_ == 0:
            return history
        if round_ == 1:
            return int(self.flop_map[history])
        if round_ == 2:
            return int(self.turn_map[history])
        return history % self.river_k

    def keys(self, histories: np.ndarray, round_: int) -> np.ndarray:
        """The round's keys of an array of hold'em strategy keys."""
        if round_ == 0:
            return histories
        if round_ == 1:
            return self.flop_map[histories].astype(np.int64)
        if round_ == 2:
            return self.turn_map[histories].astype(np.int64)
        return histories % self.river_k


def build_cards(buckets: Buckets, k_flop: int, k_turn: int, seed: int = 0) -> HunlCards:
    """Cluster the hold'em histories into ``k_flop`` flop and ``k_turn`` turn keys (seconds)."""
    k1, k2, k3 = buckets.k
    joint = class_joint()
    p_class = joint.sum(1)
    t1, t2 = buckets.transitions[0], buckets.transitions[1]
    cent = buckets.turn_centroids.reshape(NUM_CLASSES * k1, k2, -1).astype(np.float64)   # (1352, K2, BINS)
    w_turn = (p_class[:, None] * t1).reshape(-1, 1) * t2                                   # (1352, K2)
    flop_cdf = np.einsum("gk,gkb->gb", t2, cent)
    w_flop = (p_class[:, None] * t1).reshape(-1)
    flop_map = emd_kmeans(flop_cdf, w_flop, k_flop, seed)
    turn_map = emd_kmeans(cent.reshape(-1, cent.shape[-1]), w_turn.reshape(-1), k_turn, seed + 1)
    return HunlCards(k_flop=k_flop, k_turn=k_turn, flop_map=flop_map.astype(np.int16),
                     turn_map=turn_map.astype(np.int16), river_k=k3)


class BucketDeals:
    """The trainer's chance: classes with card removal, each player's bucket history from the transition tables."""

    def __init__(self, buckets: Buckets, cards: HunlCards) -> None:
        k1, k2, _ = buckets.k
        self.k1, self.k2 = k1, k2
        joint = class_joint().ravel()
        self.joint = list(accumulate(float(x) for x in joint / joint.sum()))
        self.t = [[list(accumulate(float(x) for x in row / row.sum())) for row in tr] for tr in buckets.transitions]
        self.flop_map = [int(x) for x in cards.flop_map]
        self.turn_map = [int(x) for x in cards.turn_map]

    def _path(self, c: int, rng: random.Random) -> tuple[tuple[int, int, int, int], int]:
        t1, t2, t3 = self.t
        b1 = min(bisect_right(t1[c], rng.random()), self.k1 - 1)
        h1 = c * self.k1 + b1
        b2 = min(bisect_right(t2[h1], rng.random()), self.k2 - 1)
        h2 = h1 * self.k2 + b2
        row = t3[h2]
        b3 = min(bisect_right(row, rng.random()), len(row) - 1)
        return (c, self.flop_map[h1], self.turn_map[h2], b3), b3

    def deal(self, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """One deal: both players' keys per round and player 0's showdown outcome."""
        j = min(bisect_right(self.joint, rng.random()), len(self.joint) - 1)
        keys0, s0 = self._path(j // NUM_CLASSES, rng)
        keys1, s1 = self._path(j % NUM_CLASSES, rng)
        return keys0, keys1, (s0 > s1) - (s0 < s1)
