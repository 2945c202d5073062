"""External-sampling MCCFR with linear weighting and regret-based pruning over a ``BlueprintTree`` and a deal sampler.

Why this method on two cores: the HUNL abstraction has ~10^5 betting
nodes times thousands of card keys, too many for full-width CFR passes in
numpy within two hours (each pass touches every entry), while one
external-sampling iteration touches only the traverser's tree under one
sampled deal and one sampled line of the opponent's: cost independent of
the number of card keys, memory two float32 tables.  Linear weighting
(regrets and average strategy discounted by d/(d+1) every
``discount_every`` iterations, Brown & Sandholm 2019) forgets the costly
early iterations; pruning (Pluribus) skips, with probability
``prune_probability`` once ``prune_after`` iterations are done, the
traverser's actions whose regret is below ``prune_threshold`` (never those
ending the hand nor on the last round), with regrets floored at
``regret_floor`` so a pruned action can come back.

A deal sampler gives, per traversal, each player's information key per
round and the showdown outcome for player 0 (+1, 0, -1): any game whose
chance can be drawn that way runs through the same trainer (Kuhn and
Leduc with their real cards; HUNL with the bucket chance model of
``cards``).  The trainer's randomness is one ``random.Random``, stored in
a checkpoint with the tables, so a resumed run is bit-identical to an
uninterrupted one.
"""

from __future__ import annotations

import json
import os
import random
import sys
from array import array
from dataclasses import asdict, dataclass
from typing import Any, Callable, Protocol

import numpy as np

from ...arrayfile import ArrayFileError, arrays_digest, read_npz
from ...atomic import atomic_write
from .actions import BlueprintTree

CHECKPOINT_FORMAT = 1


class DealSampler(Protocol):
    """Chance for the trainer: ``deal(rng)`` -> (keys of player 0 per round, keys of player 1, outcome for 0)."""

    def deal(self, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """One deal."""


@dataclass(frozen=True)
class Settings:
    """The trainer's parameters (recorded in checkpoints and policy files)."""

    seed: int = 0
    discount_every: int = 1000        # iterations between linear-weighting discounts
    linear_until: int = 10**12        # no discount after this many iterations
    prune_after: int = 10**12         # no pruning before this many iterations
    prune_probability: float = 0.95
    prune_threshold: float = -3.0e5   # chips of regret
    regret_floor: float = -3.1e5


class MCCFR:
    """Regret and average-strategy tables over a betting tree, trained by external sampling."""

    def __init__(self, tree: BlueprintTree, sampler: DealSampler, settings: Settings = Settings()) -> None:
        self.tree = tree
        self.sampler = sampler
        self.settings = settings
        self.regret = array("f", bytes(4 * tree.size))
        self.strategy = array("f", bytes(4 * tree.size))
        self.iteration = 0
        self.rng = random.Random(settings.seed)
        self.nact = [len(a) for a in tree.actions]
        # fold value per terminal, with showdowns marked by None: a list read is cheaper than an attribute chain
        self._fold = tree.fold_value
        self._stake = tree.stake

    # ------------------------------------------------------------ training

    def run(self, iterations: int, should_stop: Callable[[], bool] = lambda: False) -> int:
        """Train ``iterations`` more iterations (one traversal per player each); returns those done."""
        done = 0
        s = self.settings
        for _ in range(iterations):
            if should_stop():
                break
            t = self.iteration + 1
            prune = t > s.prune_after
            for p in (0, 1):
                keys0, keys1, outcome = self.sampler.deal(self.rng)
                self._traverse(p, (keys0, keys1), outcome, prune)
            self.iteration = t
            if t % s.discount_every == 0 and t <= s.linear_until:
                d = t // s.discount_every
                f = np.float32(d / (d + 1))
                for table in (self.regret, self.strategy):
                    view = np.frombuffer(table, dtype=np.float32)
                    view *= f
            done += 1
        return done

    def _traverse(self, p: int, keys: tuple[tuple[int, ...], tuple[int, ...]], outcome: int, prune: bool) -> float:
        tree = self.tree
        actor, rounds, children, base, nact = tree.actor, tree.round, tree.children, tree.base, self.nact
        fold, stake = self._fold, self._stake
        regret, strategy = self.regret, self.strategy
        rand = self.rng.random
        last = tree.game.num_rounds - 1
        s = self.settings
        threshold, floor, pprob = s.prune_threshold, s.regret_floor, s.prune_probability
        sign = 1.0 if p == 0 else -1.0

        def walk(n: int) -> float:
            if n < 0:
                fv = fold[-1 - n]
                return sign * (outcome * stake[-1 - n] if fv is None else fv)
            who = actor[n]
            na = nact[n]
            r = rounds[n]
            off = base[n] + keys[who][r] * na
            total = 0.0
            for i in range(off, off + na):
                x = regret[i]
                if x > 0:
                    total += x
            if who == p:
                ch = children[n]
                skip = prune and r < last and rand() < pprob
                u = [0.0] * na
                done = [True] * na
                v = 0.0
                for a in range(na):
                    x = regret[off + a]
                    if skip and x < threshold and ch[a] >= 0:
                        done[a] = False
                        continue
                    ua = walk(ch[a])
                    u[a] = ua
                    if total > 0:
                        if x > 0:
                            v += x / total * ua
                    else:
                        v += ua / na
                for a in range(na):
                    if done[a]:
                        x = regret[off + a] + u[a] - v
                        regret[off + a] = x if x > floor else floor
                return v
            # the opponent: add its current strategy to the average, follow one sampled action
            z = rand()
            pick = -1
            acc = 0.0
            for a in range(na):
                if total > 0:
                    x = regret[off + a]
                    q = x / total if x > 0 else 0.0
                else:
                    q = 1.0 / na
                strategy[off + a] += q
                acc += q
                if pick < 0 and z < acc:
                    pick = a
            return walk(children[n][pick])

        return walk(0)

    # ------------------------------------------------------------- results

    def average_row(self, node: int, key: int) -> list[float]:
        """The average strategy at ``node`` for ``key`` (the current one where nothing was averaged; uniform last)."""
        na = self.nact[node]
        off = self.tree.base[node] + key * na
        row = [max(0.0, float(x)) for x in self.strategy[off:off + na]]
        total = sum(row)
        if total <= 0:
            row = [max(0.0, float(x)) for x in self.regret[off:off + na]]
            total = sum(row)
        if total <= 0:
            return [1.0 / na] * na
        return [x / total for x in row]

    # --------------------------------------------------------- checkpoints

    def save(self, path: str | os.PathLike[str], ident: dict, extra: dict | None = None) -> None:
        """Write the tables, iteration, random state and ``ident`` (what the run is) atomically."""
        state = self.rng.getstate()
        meta = {"format": CHECKPOINT_FORMAT, "ident": ident, "iteration": self.iteration,
                "settings": asdict(self.settings), "rng": [state[0], list(state[1]), state[2]],
                "size": self.tree.size, **(extra or {})}
        arrays: dict[str, Any] = {"regret": np.frombuffer(self.regret, dtype=np.float32),
                  "strategy": np.frombuffer(self.strategy, dtype=np.float32)}
        meta["digest"] = arrays_digest(arrays)
        with atomic_write(path, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)

    def load(self, path: str | os.PathLike[str], ident: dict) -> dict:
        """Resume from a ``save`` file made for the same ``ident``; returns its metadata (ValueError if it does not fit)."""
        where = os.fspath(path)
        n = self.tree.size
        try:
            z = read_npz(path, {"meta": ("U", ()), "regret": (np.dtype(np.float32), (n,)),
                                "strategy": (np.dtype(np.float32), (n,))})
            meta = json.loads(str(z["meta"]))
        except (ArrayFileError, ValueError) as exc:
            raise ValueError(f"{where}: not a checkpoint of this tree ({n:,} entries): {exc}") from None
        if meta.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"{where}: checkpoint format {meta.get('format')}, expected {CHECKPOINT_FORMAT}")
        if meta.get("ident") != ident:
            diff = sorted(k for k in set(ident) | set(meta.get("ident", {}))
                          if ident.get(k) != meta.get("ident", {}).get(k))
            raise ValueError(f"{where}: made for another run (differs in {', '.join(diff)})")
        if arrays_digest({"regret": z["regret"], "strategy": z["strategy"]}) != meta.get("digest"):
            raise ValueError(f"{where}: the tables do not match their digest (damaged)")
        self.regret = array("f", z["regret"].tobytes())
        self.strategy = array("f", z["strategy"].tobytes())
        self.iteration = int(meta["iteration"])
        version, internal, gauss = meta["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        return meta


def log(msg: str) -> None:
    """Progress on stderr, flushed."""
    print(msg, file=sys.stderr, flush=True)
