"""Card abstraction for 2-player limit hold'em: 169 classes, nested flop/turn clusters, river strength buckets.

A player's abstract history is ``(c, b1, b2, b3)``:

- ``c``: the hole pair's class (``acpcbot.preflop``: 169, lossless).
- river ``b3``: the hand's *board strength* ``s = 2*worse + ties`` (hands
  sharing no card with the 5-card board, self included in ties; 1..2161)
  cut at fixed percentile edges.  Strength is strictly monotone in the
  hand's rank, so a higher river bucket always wins: the showdown
  expectation between buckets is exactly sign(b0 - b1).
- flop ``b1``: k-means cluster, *within the class c*, of the hand's
  distribution of river strength over the 1081 turn/river runouts (a
  40-bin histogram, compared as cumulative vectors: EMD-like).
- turn ``b2``: k-means cluster, within the group (c, b1), of the same
  distribution over the 46 river cards.

Nesting the clusters inside the history spends every bucket where it adds
information.  Flop buckets are a table over the 1,755 suit-canonical flops
(shipped); turn and river buckets are computed on demand (48 boards ranked
at once).  ``build`` enumerates every canonical flop with every turn and
river card, so the transition tables ``T1, T2, T3`` of the abstract game
are exact frequencies of the real deal (for one player; see
``blueprint_game``).
"""

from __future__ import annotations

import itertools
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from multiprocessing import Pool
from typing import Any, Iterator

import numpy as np

from ..atomic import atomic_write
from ..evaluator import NUM_PAIRS, PAIR_INDEX, PAIRS, pair_ranks
from ..preflop import PAIR_CLASS

NUM_CLASSES = 169
BINS = 40                       # strength histogram bins (percentile steps of 0.025)
STRENGTH_SCALE = 2 * 1081       # strength / STRENGTH_SCALE is the percentile
FORMAT = 1
_WORST = 7463                   # treys ranks are 1..7462, lower better

SUIT_PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)   # (24, 4)
#: PERM_PAIR[k, i]: the pair index of pair i with its suits renamed by SUIT_PERMS[k]
_PERM_CARD = (np.arange(52) & ~3)[None, :] + SUIT_PERMS[:, np.arange(52) & 3]     # (24, 52)
PERM_PAIR = PAIR_INDEX[_PERM_CARD[:, PAIRS[:, 0]], _PERM_CARD[:, PAIRS[:, 1]]]     # (24, 1326)
#: PAIR_CARDS_MASK[i]: 52-bit mask of pair i
PAIR_MASK = (np.int64(1) << PAIRS[:, 0]) | (np.int64(1) << PAIRS[:, 1])


class AbstractionError(ValueError):
    """Bucket data that is missing, damaged or made for other settings."""


# --------------------------------------------------------------- flops

@cache
def _flop_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Canonical flops (codes), their multiplicities, and per raw flop code its canonical index and suit renaming."""
    flops = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int64)     # (22100, 3)
    mapped = np.sort(_PERM_CARD[:, flops], axis=2)                                   # (24, 22100, 3)
    codes = (mapped[..., 0] * 52 + mapped[..., 1]) * 52 + mapped[..., 2]             # (24, 22100)
    best = codes.argmin(0)
    canon_code = codes[best, np.arange(len(flops))]
    canon, index, weight = np.unique(canon_code, return_inverse=True, return_counts=True)
    raw = (flops[:, 0] * 52 + flops[:, 1]) * 52 + flops[:, 2]
    flop_index = np.full(52 ** 3, -1, dtype=np.int32)
    flop_perm = np.zeros(52 ** 3, dtype=np.int8)
    flop_index[raw] = index
    flop_perm[raw] = best
    return canon, weight, flop_index, flop_perm


#: the flop tables' public names, built on first use (tens of milliseconds at import, for every process that
#: imports a solver, most of which never read a flop): module attributes by PEP 562
_FLOP_NAMES = ("CANON_FLOPS", "FLOP_WEIGHTS")


def __getattr__(name: str) -> np.ndarray:
    if name in _FLOP_NAMES:
        return _flop_tables()[_FLOP_NAMES.index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def canonical_flop(flop) -> tuple[int, int]:
    """(canonical flop index 0..1754, suit renaming index into SUIT_PERMS) of three board cards, any order."""
    a, b, c = sorted(int(x) for x in flop)
    code = (a * 52 + b) * 52 + c
    _, _, flop_index, flop_perm = _flop_tables()
    idx = int(flop_index[code])
    if idx < 0 or not a < b < c:
        raise AbstractionError(f"not a flop of three distinct cards: {flop!r}")
    return idx, int(flop_perm[code])


def flop_cards(index: int) -> tuple[int, int, int]:
    """The three cards of canonical flop ``index``."""
    code = int(_flop_tables()[0][index])
    return code // 2704, code // 52 % 52, code % 52


# ------------------------------------------------------------ strength

def river_strength(boards: np.ndarray) -> np.ndarray:
    """Board strength 2*worse + ties of every pair on each 5-card board: (n, 1326) int16, 0 where a card is shared."""
    boards = np.asarray(boards, dtype=np.int64).reshape(-1, 5)
    n = len(boards)
    ranks = pair_ranks(boards)
    value = np.where(ranks > 0, _WORST - ranks.astype(np.int64), 0)     # 1..7462, higher better
    key = np.arange(n, dtype=np.int64)[:, None] * _WORST + value
    counts = np.bincount(key.ravel(), minlength=n * _WORST)
    cum = np.cumsum(counts)
    row_start = np.concatenate([[0], cum[np.arange(1, n) * _WORST - 1]])
    below = cum[np.maximum(key - 1, 0)] - row_start[:, None] - (NUM_PAIRS - 1081)   # conflicting pairs sit at 0
    out = 2 * below + counts[key]
    out[value == 0] = 0
    return out.astype(np.int16)


def strength_bin(strength: np.ndarray) -> np.ndarray:
    """Histogram bin 0..BINS-1 of strengths 1..2161."""
    return (strength.astype(np.int32) * BINS) // STRENGTH_SCALE


def _histograms(keys: np.ndarray, bins: np.ndarray, valid: np.ndarray, n_keys: int) -> np.ndarray:
    """Counts per key and bin: (n_keys, BINS)."""
    flat = (keys * BINS + bins)[valid]
    return np.bincount(flat, minlength=n_keys * BINS).reshape(n_keys, BINS)


def flop_runouts(flop: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The 1176 (turn, river) pairs after ``flop`` (turn < river) and their strengths: ((1176, 2), (1176, 1326))."""
    rest = [c for c in range(52) if c not in flop]
    runs = np.array(list(itertools.combinations(rest, 2)), dtype=np.int64)
    boards = np.concatenate([np.broadcast_to(np.array(flop), (len(runs), 3)), runs], axis=1)
    return runs, river_strength(boards)


def flop_features(strength: np.ndarray) -> np.ndarray:
    """Per pair, counts of its river strength over the runouts it can see: (1326, BINS) (1081 in all, or 0)."""
    bins = strength_bin(strength)
    keys = np.broadcast_to(np.arange(NUM_PAIRS), strength.shape)
    return _histograms(keys, bins, strength > 0, NUM_PAIRS)


def turn_features(runs: np.ndarray, strength: np.ndarray) -> np.ndarray:
    """Per turn card (0..51) and pair, counts of river strength over the rivers: (52, 1326, BINS).

    Each runout {t, r} counts once with turn t and once with turn r.
    """
    bins = strength_bin(strength)
    valid = strength > 0
    pairs = np.broadcast_to(np.arange(NUM_PAIRS), strength.shape)
    out = np.zeros(52 * NUM_PAIRS * BINS, dtype=np.int64)
    for col in (0, 1):
        keys = runs[:, col][:, None] * NUM_PAIRS + pairs
        out += _histograms(keys, bins, valid, 52 * NUM_PAIRS).ravel()
    return out.reshape(52, NUM_PAIRS, BINS)


def cdf(counts: np.ndarray) -> np.ndarray:
    """Cumulative distribution vectors (float32) of histogram counts along the last axis (all-zero rows stay 0)."""
    total = counts.sum(-1, keepdims=True)
    return (np.cumsum(counts, -1) / np.maximum(total, 1)).astype(np.float32)


# -------------------------------------------------------------- k-means

def kmeans(x: np.ndarray, w: np.ndarray, k: int, rng: np.random.Generator, iters: int = 30) -> np.ndarray:
    """Weighted k-means (k-means++ start, Lloyd steps): centroids (k, dims) sorted by their mean."""
    x = x.astype(np.float64)
    n = len(x)
    if n == 0:
        return np.zeros((k, x.shape[1]))
    picks = [x[rng.choice(n, p=w / w.sum())]]
    d2 = ((x - picks[0]) ** 2).sum(1)
    for _ in range(1, k):
        p = w * d2
        picks.append(x[rng.choice(n, p=p / p.sum())] if p.sum() > 0 else x[rng.integers(n)])
        d2 = np.minimum(d2, ((x - picks[-1]) ** 2).sum(1))
    cent = np.array(picks)
    sq = (x * x).sum(1)
    for _ in range(iters):
        # |x - c|^2 = |x|^2 - 2 x.c + |c|^2 as a matrix product: fitting only (assignments use ``nearest``)
        lab = (sq[:, None] - 2 * x @ cent.T + (cent * cent).sum(1)[None, :]).argmin(1)
        new = cent.copy()
        for j in range(k):
            sel = lab == j
            if w[sel].sum() > 0:
                new[j] = (w[sel, None] * x[sel]).sum(0) / w[sel].sum()
        if np.allclose(new, cent):
            break
        cent = new
    # weakest first: a smaller cumulative sum means more mass on high strength
    return cent[np.argsort(-cent.sum(1), kind="stable")]


def nearest(x: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid (squared L2) of each row; the lowest index on a tie."""
    d = ((x[..., None, :] - centroids) ** 2).sum(-1)
    return d.argmin(-1)


# ------------------------------------------------------------ the data

@contextmanager
def open_abstraction_file(path: str | os.PathLike[str], fmt: int, kind: str, contents: str,
                          errors: tuple[type[Exception], ...] = ()) -> Iterator[Any]:
    """An abstraction file's arrays (buckets, a policy), its ``format`` member checked against ``fmt``; any failure to
    read it (inside the block too; ``errors`` adds the block's own kinds) is the AbstractionError naming the file:
    "``kind`` format N, expected ``fmt``", or "cannot read ``contents``"."""
    where = os.fspath(path)
    caught: tuple[type[Exception], ...] = (OSError, KeyError, ValueError, *errors)
    try:
        with np.load(path) as z:
            if int(z["format"]) != fmt:
                raise AbstractionError(f"{where}: {kind} format {int(z['format'])}, expected {fmt}")
            yield z
    except caught as exc:
        if isinstance(exc, AbstractionError):
            raise
        raise AbstractionError(f"{where}: cannot read {contents}: {exc}") from None


def _open_buckets(path: str | os.PathLike[str]) -> Any:
    """A bucket file's arrays, its format checked (:func:`open_abstraction_file`)."""
    return open_abstraction_file(path, FORMAT, "bucket", "bucket data")


def bucket_counts(path: str | os.PathLike[str]) -> tuple[int, ...]:
    """The bucket counts (flop, turn, river) of a file written by ``Buckets.save``, its tables not read."""
    with _open_buckets(path) as z:
        return tuple(int(x) for x in z["k"])


@dataclass
class Buckets:
    """Everything that maps cards to abstract histories, plus the exact transition tables."""

    k: tuple[int, int, int]          # K1 flop, K2 turn, K3 river
    river_edges: np.ndarray          # (K3-1,) strength-bin edges: b3 = number of edges <= bin
    flop_bucket: np.ndarray          # (1755, 1326) uint8, canonical flop x pair; 255 where they share a card
    turn_centroids: np.ndarray       # (169, K1, K2, BINS) float32, cumulative vectors
    transitions: list[np.ndarray]    # T1 (169, K1), T2 (169*K1, K2), T3 (169*K1*K2, K3)
    build_seconds: float = 0.0

    @property
    def histories(self) -> tuple[int, int, int, int]:
        """H_r for the four rounds."""
        k1, k2, k3 = self.k
        return NUM_CLASSES, NUM_CLASSES * k1, NUM_CLASSES * k1 * k2, NUM_CLASSES * k1 * k2 * k3

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write as a compressed npz (atomically)."""
        with atomic_write(path, "wb") as fh:
            np.savez_compressed(fh, format=FORMAT, k=np.array(self.k), river_edges=self.river_edges,
                                flop_bucket=self.flop_bucket, turn_centroids=self.turn_centroids,
                                t1=self.transitions[0], t2=self.transitions[1], t3=self.transitions[2],
                                build_seconds=self.build_seconds, canon_flops=_flop_tables()[0])

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Buckets":
        """Read a file written by ``save``; AbstractionError naming what does not fit."""
        where = os.fspath(path)
        with _open_buckets(path) as z:
            if not np.array_equal(z["canon_flops"], _flop_tables()[0]):
                raise AbstractionError(f"{where}: made with another list of canonical flops")
            k1, k2, k3 = (int(x) for x in z["k"])
            b = cls(k=(k1, k2, k3), river_edges=z["river_edges"], flop_bucket=z["flop_bucket"],
                    turn_centroids=z["turn_centroids"], transitions=[z["t1"], z["t2"], z["t3"]],
                    build_seconds=float(z["build_seconds"]))
        k1, k2, k3 = b.k
        want = {"flop_bucket": (len(_flop_tables()[0]), NUM_PAIRS), "turn_centroids": (NUM_CLASSES, k1, k2, BINS),
                "river_edges": (k3 - 1,)}
        for name, shape in want.items():
            if getattr(b, name).shape != shape:
                raise AbstractionError(f"{where}: {name} has shape {getattr(b, name).shape}, expected {shape}")
        return b

    # -------------------------------------------------------- lookups

    def river_bucket(self, strength: np.ndarray) -> np.ndarray:
        """River bucket of board strengths."""
        return np.searchsorted(self.river_edges, strength_bin(strength), side="right")

    def flop_buckets(self, flop) -> np.ndarray:
        """Flop bucket of every pair on this flop: (1326,) int (255 where a card is shared)."""
        idx, perm = canonical_flop(flop)
        return self.flop_bucket[idx, PERM_PAIR[perm]].astype(np.int64)

    def turn_buckets(self, counts: np.ndarray, classes: np.ndarray, b1: np.ndarray) -> np.ndarray:
        """Turn bucket from river-strength counts over the rivers (..., BINS), given the class and flop bucket."""
        return nearest(cdf(counts), self.turn_centroids[classes, b1])


# --------------------------------------------------------------- build

def _flop_job(args):
    """Phase 1 for one canonical flop: its flop features and a sample of turn features."""
    f, samples, seed = args
    flop = flop_cards(f)
    runs, strength = flop_runouts(flop)
    ff = flop_features(strength).astype(np.int16)
    tf = turn_features(runs, strength)
    rng = np.random.default_rng(seed)
    turns = rng.choice([c for c in range(52) if c not in flop], size=samples, replace=False)
    return f, ff, turns, tf[turns].astype(np.uint8)


def _count_job(args):
    """Phase 2 for one canonical flop: weighted counts of (c, b1, b2) and of (c, b1, b2, b3)."""
    f, k, edges, flop_b1, centroids = args
    k1, k2, k3 = k
    flop = flop_cards(f)
    runs, strength = flop_runouts(flop)
    tf = turn_features(runs, strength)                                  # (52, 1326, BINS)
    ok = flop_b1 < 255
    turns = np.array([c for c in range(52) if c not in flop])
    counts2 = np.zeros(NUM_CLASSES * k1 * k2)
    counts3 = np.zeros((NUM_CLASSES * k1 * k2, k3))
    pairs = np.flatnonzero(ok)
    group = PAIR_CLASS[pairs] * k1 + flop_b1[pairs]
    cent = centroids.reshape(NUM_CLASSES * k1, k2, BINS)[group]           # (P, K2, BINS)
    bin_to_bucket = np.searchsorted(edges, np.arange(BINS), side="right")
    for t in turns:
        live = (PAIR_MASK[pairs] >> t) & 1 == 0
        sub = tf[t, pairs[live]]
        b2 = nearest(cdf(sub), cent[live])
        g2 = group[live] * k2 + b2
        counts2 += np.bincount(g2, minlength=len(counts2))
        per3 = np.zeros((len(sub), k3))
        for b in range(BINS):
            per3[:, bin_to_bucket[b]] += sub[:, b]
        for j in range(k3):
            counts3[:, j] += np.bincount(g2, weights=per3[:, j], minlength=len(counts3))
    return f, counts2, counts3


def build(k: tuple[int, int, int], river_edges: tuple[int, ...], workers: int = 2, seed: int = 0,
          turn_samples: int = 6, log=print, flops: int | None = None) -> Buckets:
    """Compute the buckets and exact transition tables (every canonical flop, turn and river).

    ``flops`` limits the work to the first canonical flops (a quick check; the tables are then partial).
    """
    k1, k2, k3 = k
    edges = np.array(river_edges, dtype=np.int64)
    if len(edges) != k3 - 1 or (np.diff(edges) <= 0).any() or edges.min() < 1 or edges.max() >= BINS:
        raise AbstractionError(f"river edges {river_edges}: need {k3 - 1} increasing bins in 1..{BINS - 1}")
    start = time.perf_counter()
    canon_flops, flop_weights = _flop_tables()[:2]
    n_flops = len(canon_flops) if flops is None else flops
    weights = flop_weights.astype(np.float64)
    flop_counts = np.zeros((n_flops, NUM_PAIRS, BINS), dtype=np.int16)
    turn_sample: list = [None] * n_flops
    jobs = [(f, turn_samples, seed * 100003 + f) for f in range(n_flops)]
    with Pool(workers) as pool:
        for done, (f, ff, turns, tf) in enumerate(pool.imap_unordered(_flop_job, jobs, chunksize=4), 1):
            flop_counts[f] = ff
            turn_sample[f] = (turns, tf)
            if done % 100 == 0 or done == n_flops:
                log(f"flop features {done}/{n_flops}  {time.perf_counter() - start:.0f} s")
        rng = np.random.default_rng(seed)
        # flop clusters within each class
        flop_bucket = np.full((len(canon_flops), NUM_PAIRS), 255, dtype=np.uint8)
        t1 = np.zeros((NUM_CLASSES, k1))
        for c in range(NUM_CLASSES):
            pairs = np.flatnonzero(PAIR_CLASS == c)
            x = flop_counts[:n_flops, pairs]                             # (F, P, BINS)
            valid = x.sum(-1) > 0
            fi, pi = np.nonzero(valid)
            feats = cdf(x[fi, pi])
            cent = kmeans(feats, weights[fi], k1, rng)
            lab = nearest(feats, cent)
            flop_bucket[fi, pairs[pi]] = lab
            t1[c] = np.bincount(lab, weights=weights[fi], minlength=k1)
        log(f"flop clusters  {time.perf_counter() - start:.0f} s")
        # turn clusters within each (class, flop bucket), from the sampled turns
        feat_rows, group_rows, wt_rows = [], [], []
        for f in range(n_flops):
            turns, tf = turn_sample[f]
            b1 = flop_bucket[f]
            for j, t in enumerate(turns):
                live = np.flatnonzero((b1 < 255) & ((PAIR_MASK >> t) & 1 == 0))
                feat_rows.append(tf[j, live])
                group_rows.append(PAIR_CLASS[live] * k1 + b1[live])
                wt_rows.append(np.full(len(live), weights[f]))
        feats, groups, wts = np.concatenate(feat_rows), np.concatenate(group_rows), np.concatenate(wt_rows)
        del feat_rows, group_rows, wt_rows  # their copies are in the arrays: the pieces' memory is freed now
        order = np.argsort(groups, kind="stable")
        bounds = np.searchsorted(groups[order], np.arange(NUM_CLASSES * k1 + 1))
        centroids: np.ndarray = np.zeros((NUM_CLASSES * k1, k2, BINS), dtype=np.float32)
        for g in range(NUM_CLASSES * k1):
            sel = order[bounds[g]:bounds[g + 1]]
            centroids[g] = kmeans(cdf(feats[sel]), wts[sel], k2, rng)
        centroids = centroids.reshape(NUM_CLASSES, k1, k2, BINS)
        del feats, groups, wts, turn_sample
        log(f"turn clusters  {time.perf_counter() - start:.0f} s")
        counts2 = np.zeros(NUM_CLASSES * k1 * k2)
        counts3 = np.zeros((NUM_CLASSES * k1 * k2, k3))
        count_jobs = [(f, k, edges, flop_bucket[f], centroids) for f in range(n_flops)]
        for done, (f, c2, c3) in enumerate(pool.imap_unordered(_count_job, count_jobs, chunksize=4), 1):
            counts2 += weights[f] * c2
            counts3 += weights[f] * c3
            if done % 100 == 0 or done == n_flops:
                log(f"transitions {done}/{n_flops}  {time.perf_counter() - start:.0f} s")
    t1, t2, t3 = (_rows(t1), _rows(counts2.reshape(NUM_CLASSES * k1, k2)), _rows(counts3))
    return Buckets(k=k, river_edges=edges, flop_bucket=flop_bucket, turn_centroids=centroids,
                   transitions=[t1, t2, t3], build_seconds=time.perf_counter() - start)


def _rows(counts: np.ndarray) -> np.ndarray:
    """Counts to probability rows; a history that never occurs (an empty cluster) gets a uniform row."""
    total = counts.sum(1, keepdims=True)
    return np.where(total > 0, counts / np.where(total > 0, total, 1), 1.0 / counts.shape[1])


def class_joint() -> np.ndarray:
    """(169, 169) probability that the two players' hole pairs fall in classes (c0, c1), card removal exact."""
    disjoint = (PAIR_MASK[:, None] & PAIR_MASK[None, :]) == 0
    onehot = np.zeros((NUM_PAIRS, NUM_CLASSES))
    onehot[np.arange(NUM_PAIRS), PAIR_CLASS] = 1
    joint = onehot.T @ disjoint.astype(np.float64) @ onehot
    return joint / joint.sum()
