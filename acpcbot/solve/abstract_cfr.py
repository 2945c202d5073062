"""CFR+ (or DCFR) and exact best response on an AbstractGame, vectorised over histories and threaded over instances.

Per round ``r`` the solver keeps ``(instances, decisions, 3, H_r)`` arrays
(regrets, strategy sum, current strategy; float32 by default).  One pass
for player ``p`` walks the rounds depth first: forward through a round's
template (both players' action reach per node; the opponent's reach is
folded into the chance kernels at the leaves), recursion into the next
round for the round-end leaves, backward for the values.  Instances of a
round are independent, so the big rounds are cut into chunks that a thread
pool runs in parallel (numpy releases the GIL inside its loops).

Values of ``p`` at ``(node, history)`` leave out ``p``'s own chance
probability of the history (a positive constant per information set, which
regret matching, averaging and the best response's max all ignore); it is
applied when a round's values are handed back through ``T_r``.
Exact best response: the same pass with ``max`` at ``p``'s nodes against
the normalised average strategy, in float64.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..atomic import atomic_write
from .abstract_game import FOLD_LEAF, NEXT_LEAF, AbstractGame
from .best_response import Exploitability
from .cfr_core import ALGORITHMS as ALGORITHMS, check_algorithm, match_columns as _match, normalise, regret_matching

#: instances x histories per chunk of a round (about a megabyte of float32 per array)
CHUNK_ELEMENTS = 1 << 16
CHECKPOINT_FORMAT = 1


@dataclass
class Report:
    """One exploitability measurement of the average strategy."""

    iteration: int
    exploitability: Exploitability
    seconds: float


class AbstractSolver:
    """Runs CFR+/DCFR on an AbstractGame; ``exploitability()`` is the exact best-response gap of the average."""

    def __init__(self, ag: AbstractGame, algorithm: str = "cfr+", workers: int = 2, dtype=np.float32,
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0, evaluate_only: bool = False,
                 reduce_last: bool = True) -> None:
        check_algorithm(algorithm)
        self.ag = ag
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.dtype = np.dtype(dtype)
        self.workers = max(1, int(workers))
        self.iteration = 0
        self.reduce_last = reduce_last
        self.regrets, self.strategy_sum, self.sigma = [], [], []
        for r, tpl in enumerate(ag.rounds):
            shape = (tpl.num_instances, tpl.num_decisions, 3, self.width(r))
            self.strategy_sum.append(np.zeros(shape, self.dtype))
            if evaluate_only:       # only exploitability() of a strategy put into strategy_sum
                continue
            self.regrets.append(np.zeros(shape, self.dtype))
            uniform = (tpl.legal / tpl.legal.sum(1, keepdims=True)).astype(self.dtype)
            self.sigma.append(np.ascontiguousarray(np.broadcast_to(uniform[None, :, :, None], shape)))
        self._pool = ThreadPoolExecutor(self.workers) if self.workers > 1 else None
        self._cache: dict[tuple, np.ndarray] = {}

    # ------------------------------------------------------------------ public

    def step(self) -> None:
        """One iteration: player 0 then player 1 update against the other's current strategy."""
        self.iteration += 1
        for p in (0, 1):
            self._root(p, "train")

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        for _ in range(iterations):
            self.step()

    def exploitability(self) -> Exploitability:
        """Policy values and exact best-response values of the average strategy (float64 passes)."""
        values, best = [], []
        for p in (0, 1):
            v, b = self._root(p, "eval")
            values.append(v)
            best.append(b)
        return Exploitability(values=tuple(values), best_responses=tuple(best), big_blind=self.ag.game.big_blind)

    def average(self, r: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """The average strategy of round ``r``'s instances lo..hi: (n, decisions, 3, H_r) float64."""
        s = self.strategy_sum[r][lo:hi]
        legal = self.ag.rounds[r].legal
        return np.stack([normalise(s[:, d], legal[d]) for d in range(s.shape[1])], axis=1)

    def close(self) -> None:
        """Stop the worker threads."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    # ------------------------------------------------------------ checkpoints

    def save(self, path: str | os.PathLike[str], meta: dict[str, object] | None = None) -> None:
        """Write regrets, sums and the iteration count; the old file is replaced only once the new one is whole."""
        arrays = {f"regrets{r}": a for r, a in enumerate(self.regrets)}
        arrays.update({f"sum{r}": a for r, a in enumerate(self.strategy_sum)})
        header = {"format": CHECKPOINT_FORMAT, "iteration": self.iteration, "algorithm": self.algorithm,
                  **(meta or {})}
        with atomic_write(path, "wb") as fh:
            np.savez(fh, header=np.array(json.dumps(header)), **arrays)  # type: ignore[arg-type]  # numpy's stub:
            # **arrays could name its allow_pickle flag; here they are regrets{r} and sum{r}

    def load(self, path: str | os.PathLike[str], meta: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Resume from a checkpoint written by ``save`` with the same ``meta``; returns its header.

        ValueError naming the first mismatch (format, algorithm, a ``meta`` value, an array shape).
        """
        with np.load(path) as z:
            header = json.loads(str(z["header"]))
            for key, want in {"format": CHECKPOINT_FORMAT, "algorithm": self.algorithm, **(meta or {})}.items():
                if header.get(key) != want:
                    raise ValueError(f"checkpoint {os.fspath(path)}: {key} is {header.get(key)!r}, expected {want!r}")
            for r in range(len(self.regrets)):
                for name, arrays in (("regrets", self.regrets), ("sum", self.strategy_sum)):
                    a = z[f"{name}{r}"]
                    if a.shape != arrays[r].shape:
                        raise ValueError(f"checkpoint {os.fspath(path)}: {name}{r} has shape {a.shape}, "
                                         f"expected {arrays[r].shape}")
                    arrays[r][...] = a
        self.iteration = int(header["iteration"])
        for r, tpl in enumerate(self.ag.rounds):
            for d in range(tpl.num_decisions):
                self.sigma[r][:, d] = regret_matching(self.regrets[r][:, d], tpl.legal[d])
        return header

    # ------------------------------------------------------------------ passes

    def _root(self, p: int, mode: str):
        c = self.ag.num_classes
        dtype = self.dtype if mode == "train" else np.float64
        ones = np.ones((1, c), dtype)
        vals = self._round(p, 0, 0, 1, ones, ones, mode)
        if mode == "train":
            return float(vals[0].sum())
        return float(vals[0].sum()), float(vals[1].sum())

    def _round(self, p: int, r: int, lo: int, hi: int, own: np.ndarray, opp: np.ndarray,
               mode: str) -> tuple[np.ndarray, ...]:
        """Values of ``p`` (n, H_{r-1}) entering instances lo..hi of round ``r``, in chunks.

        The chunks of one round (the turn in hold'em: each with its river
        subtrees) run on the thread pool; deeper calls run in their thread.
        """
        h = self.width(r)
        n = hi - lo
        per = max(1, CHUNK_ELEMENTS // h)
        if n <= per:
            return self._chunk(p, r, lo, hi, own, opp, mode)
        bounds = [(a, min(a + per, hi)) for a in range(lo, hi, per)]
        tasks = [(a, b, own[a - lo:b - lo], opp[a - lo:b - lo]) for a, b in bounds]
        if r == max(1, len(self.ag.rounds) - 2) and self._pool is not None:
            parts = list(self._pool.map(lambda t: self._chunk(p, r, t[0], t[1], t[2], t[3], mode), tasks))
        else:
            parts = [self._chunk(p, r, a, b, o, q, mode) for a, b, o, q in tasks]
        return tuple(np.concatenate([part[k] for part in parts]) for k in range(len(parts[0])))

    def width(self, r: int) -> int:
        """Keys of round r's strategy arrays: histories, or (class, bucket) in a reduced last round."""
        return self.ag.strategy_width(r) if self.reduce_last else self.ag.histories(r)

    def _reduced(self, r: int) -> bool:
        return self.reduce_last and r > 0 and r == len(self.ag.rounds) - 1

    def _dims(self, r: int) -> tuple[int, int, int]:
        """(C, M, K): a round-r key is (class, middle buckets, this round's bucket); M is 1 in a reduced round."""
        ag = self.ag
        c = ag.num_classes
        if r == 0:
            return c, 1, 1
        k = ag.buckets[r]
        return c, 1 if self._reduced(r) else ag.histories(r) // (c * k), k

    def _chunk(self, p: int, r: int, lo: int, hi: int, own: np.ndarray, opp: np.ndarray,
               mode: str) -> tuple[np.ndarray, ...]:
        ag = self.ag
        tpl = ag.rounds[r]
        train = mode == "train"
        n = hi - lo
        c, m, k = self._dims(r)
        dtype = self.dtype if train else np.dtype(np.float64)
        # arrays are (n, C, M, K); the entering reach is constant over K, so it stays compact
        if self._reduced(r):
            # histories (c, middle) merge into (c, b): reach summed with the chance of the middle buckets
            # (the own player's realisation weight of the merged key; the opponent's mass at the leaves)
            t = self._cast(("Tc", r), ag.transitions[r - 1].reshape(c, -1, k), dtype)           # (C, M', K)
            chain = self._cast(("chain", r - 1), ag.chain[r - 1], dtype)
            own = _merge(own * chain, t, n, c).reshape(n, c, 1, k)
            opp = _merge(opp, t, n, c).reshape(n, c, 1, k)
        else:
            own = own.reshape(n, c, m, 1)
            opp = opp.reshape(n, c, m, 1)
            if r > 0:
                # the opponent's reach carries its own chance: times T_r, once per round
                opp = opp * self._cast(("T", r), ag.transitions[r - 1], dtype).reshape(1, c, m, k)
        n_dec = tpl.num_decisions
        if train:
            sig = self.sigma[r][lo:hi].reshape(n, n_dec, 3, c, m, k)
        else:
            sig = self.average(r, lo, hi).reshape(n, n_dec, 3, c, m, k)
        own_at: list = [None] * n_dec
        opp_at: list = [None] * n_dec
        own_at[0], opp_at[0] = own, opp
        leaf_reach: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if train:
            weight = float(self.iteration) if self.algorithm == "cfr+" else float(self.iteration) ** self.gamma
            ssum = self.strategy_sum[r][lo:hi].reshape(n, n_dec, 3, c, m, k)
        # forward: reach of both players at every node
        for d in range(n_dec):
            actor = tpl.actor[d]
            ro, rq = own_at[d], opp_at[d]
            if train and actor == p:
                ssum[:, d] += (weight * ro)[:, None] * sig[:, d]
            for col in np.flatnonzero(tpl.legal[d]):
                if actor == p:
                    pair = (ro * sig[:, d, col], rq)
                else:
                    pair = (ro, rq * sig[:, d, col])
                ch = tpl.child[d, col]
                if ch >= 0:
                    own_at[ch], opp_at[ch] = pair
                else:
                    leaf_reach[-1 - ch] = pair
        leaf_vals = self._leaf_values(p, r, lo, hi, leaf_reach, mode)
        del own_at, opp_at, leaf_reach  # the forward pass's reaches, freed before the backward pass
        # backward
        node_vals: list = [None] * n_dec
        for d in range(n_dec - 1, -1, -1):
            cols = np.flatnonzero(tpl.legal[d])
            kids = []
            for col in cols:
                ch = tpl.child[d, col]
                kids.append(node_vals[ch] if ch >= 0 else leaf_vals[-1 - ch])
            if tpl.actor[d] != p:
                node_vals[d] = tuple(_add([kv[j] for kv in kids]) for j in range(len(kids[0])))
            elif train:
                reg = self.regrets[r][lo:hi, d].reshape(n, 3, c, m, k)
                node_vals[d] = (self._update(reg, sig[:, d], cols, [kv[0] for kv in kids]),)
            else:
                pol = _add([sig[:, d, col] * kv[0] for col, kv in zip(cols, kids)])
                best = np.maximum(kids[0][1], kids[1][1]) if len(kids) > 1 else kids[0][1]
                for kv in kids[2:]:
                    best = np.maximum(best, kv[1])
                node_vals[d] = (pol, best)
            for ch in tpl.child[d, cols]:
                if ch >= 0:
                    node_vals[ch] = None
        root = node_vals[0]
        if r == 0:
            return tuple(np.broadcast_to(v, (n, c, 1, 1)).reshape(n, c) for v in root)
        if self._reduced(r):
            t = self._cast(("Tc", r), ag.transitions[r - 1].reshape(c, -1, k), dtype)           # (C, M', K)
            # v(c, middle) = sum_b T[(c, middle), b] V(c, b)
            return tuple(np.matmul(t, np.broadcast_to(v, (n, c, 1, k)).reshape(n, c, k).transpose(1, 2, 0))
                         .transpose(2, 0, 1).reshape(n, -1) for v in root)
        t = self._cast(("T", r), ag.transitions[r - 1], dtype).reshape(1, c, m, k)
        ones = np.ones(k, dtype)
        return tuple(((v * t).reshape(n * c * m, k) @ ones).reshape(n, c * m) for v in root)

    def _update(self, reg: np.ndarray, sig: np.ndarray, cols: np.ndarray, cv: list[np.ndarray]) -> np.ndarray:
        """Value of the current strategy at an own node; regrets and current strategy (views) updated in place."""
        v = sig[:, cols[0]] * cv[0]
        for col, x in zip(cols[1:], cv[1:]):
            v += sig[:, col] * x
        cfr_plus = self.algorithm == "cfr+"
        if not cfr_plus:
            t = float(self.iteration)
            keep_pos = reg.dtype.type(t ** self.alpha / (t ** self.alpha + 1))
            keep_neg = reg.dtype.type(t ** self.beta / (t ** self.beta + 1))
        for col, x in zip(cols, cv):
            rc = reg[:, col]
            rc += x
            rc -= v
            if cfr_plus:
                np.maximum(rc, 0, out=rc)
            else:
                rc *= np.where(rc > 0, keep_pos, keep_neg)
        _match(reg if cfr_plus else np.maximum(reg, 0), sig, cols)
        return v

    def _selector(self, m: int, k: int, dtype) -> np.ndarray:
        """(M*K, K) 0/1 matrix summing the middle axis of (…, M, K) rows."""
        key = ("sel", m, k, np.dtype(dtype).str)
        if key not in self._cache:
            self._cache[key] = np.tile(np.eye(k, dtype=dtype), (m, 1))
        return self._cache[key]

    def _cast(self, key: tuple, array: np.ndarray, dtype, transpose: bool = False, negate: bool = False) -> np.ndarray:
        """A chance array in ``dtype`` (kernels transposed / negated for player 1), cached."""
        key = key + (np.dtype(dtype).str,)
        hit = self._cache.get(key)
        if hit is None:
            hit = array.transpose(0, 2, 1) if transpose else array
            hit = np.ascontiguousarray(-hit if negate else hit, dtype=dtype)
            self._cache[key] = hit
        return hit

    def _leaf_values(self, p: int, r: int, lo: int, hi: int, reach: dict, mode: str) -> dict[int, tuple]:
        """Values of p at every leaf of instances lo..hi: folds and showdowns by kernels, round ends by recursion."""
        ag = self.ag
        tpl = ag.rounds[r]
        n = hi - lo
        c, m, k = self._dims(r)
        n_out = 1 if mode == "train" else 2
        dtype = self.dtype if mode == "train" else np.dtype(np.float64)
        out: dict[int, tuple] = {}
        paths = ag.path[r][lo:hi]
        single = ag.paths(r) == 1
        fold = self._cast(("fold", r, p), ag.fold_kernel[r], dtype, p == 1, False)
        masses: dict[int, tuple] = {}   # leaves often share the opponent's reach array
        for leaf, kind in enumerate(tpl.leaf_kind):
            if kind == NEXT_LEAF:
                continue
            opp = reach[leaf][1]
            if id(opp) not in masses:
                full = np.ascontiguousarray(np.broadcast_to(opp, (n, c, m, k))).reshape(n * c, m * k)
                # a matrix product sums far faster than ndarray.sum over a middle axis
                masses[id(opp)] = (opp, (full @ self._selector(m, k, dtype)).reshape(n, c, k))
            mass = masses[id(opp)][1]                    # (n, C, K)
            pay = tpl.payoff[lo:hi, leaf].astype(dtype)
            if kind == FOLD_LEAF:
                mass = mass.sum(2)
                if p == 1:
                    pay = -pay
                q = mass @ fold[0].T if single else np.einsum("nab,nb->na", fold[paths], mass)
                val = (pay[:, None] * q).reshape(n, c, 1, 1)
            elif ag.showdown_outcome is not None:
                outcome = self._cast(("outcome", p), ag.showdown_outcome[None], dtype, p == 1, p == 1)[0]
                if single:    # one product for all instances: (C, C) @ (C, n*K)
                    q = (fold[0] @ mass.transpose(1, 0, 2).reshape(c, n * k)).reshape(c, n, k).transpose(1, 0, 2)
                else:
                    q = np.einsum("nab,nbk->nak", fold[paths], mass)
                val = (pay[:, None, None] * (q @ outcome.T)).reshape(n, c, 1, k)
            else:
                assert ag.showdown_kernel is not None  # the game has one of showdown_outcome and showdown_kernel
                kern = self._cast(("showdown", p), ag.showdown_kernel, dtype, p == 1, p == 1)
                mass = mass.reshape(n, c * k)
                q = mass @ kern[0].T if single else np.einsum("nab,nb->na", kern[paths], mass)
                val = (pay[:, None] * q).reshape(n, c, 1, k)
            out[leaf] = (val,) * n_out
        masses.clear()
        nxt = np.flatnonzero(tpl.leaf_kind == NEXT_LEAF)
        if len(nxt):
            n_pub = ag.public[r + 1]
            width = len(nxt) * n_pub
            shape = (n, c, m, k)
            own: np.ndarray  # (n, ends, 1, ·) here, then (n * width, ·) rows for the next round
            own = np.stack([np.broadcast_to(reach[leaf][0], shape) for leaf in nxt], axis=1).reshape(n, len(nxt), 1, -1)
            opp = np.stack([np.broadcast_to(reach[leaf][1], shape) for leaf in nxt], axis=1).reshape(n, len(nxt), 1, -1)
            own = np.broadcast_to(own, (n, len(nxt), n_pub, own.shape[-1])).reshape(n * width, -1)
            opp = np.broadcast_to(opp, (n, len(nxt), n_pub, opp.shape[-1])).reshape(n * width, -1)
            vals = self._round(p, r + 1, lo * width, hi * width, own, opp, mode)
            for j, leaf in enumerate(nxt.tolist()):
                out[leaf] = tuple(v.reshape(n, len(nxt), n_pub, c, m, k)[:, j].sum(1) for v in vals)
        return out


def _merge(reach: np.ndarray, t: np.ndarray, n: int, c: int) -> np.ndarray:
    """(n, C*M') reach times T (C, M', K), summed over the middle buckets: (n, C, K)."""
    x = reach.reshape(n, c, -1).transpose(1, 0, 2)            # (C, n, M')
    return np.matmul(x, t).transpose(1, 0, 2)


def _add(arrays: list[np.ndarray]) -> np.ndarray:
    """Sum of broadcastable arrays (a new array)."""
    total = arrays[0] + arrays[1] if len(arrays) > 1 else arrays[0].copy()
    for a in arrays[2:]:
        total = total + a if total.shape != np.broadcast_shapes(total.shape, a.shape) else np.add(total, a, out=total)
    return total


def train(solver: AbstractSolver, iterations: int, check_every: int, target_mbb: float | None = None,
          on_report=None, on_checkpoint=None, checkpoint_seconds: float = 600.0,
          should_stop=lambda: False) -> tuple[list[Report], bool]:
    """Run up to ``iterations`` total iterations, measuring every ``check_every`` and at the end.

    Stops early at ``target_mbb`` or when ``should_stop()`` turns true
    (checked between iterations, so the state stays consistent); returns
    the reports and whether it was stopped that way.
    """
    start = time.perf_counter()
    last_save = start
    reports: list[Report] = []
    while solver.iteration < iterations:
        solver.step()
        if should_stop():
            return reports, True
        if on_checkpoint is not None and time.perf_counter() - last_save >= checkpoint_seconds:
            on_checkpoint(solver)
            last_save = time.perf_counter()
        if solver.iteration % check_every == 0 or solver.iteration >= iterations:
            rep = Report(solver.iteration, solver.exploitability(), time.perf_counter() - start)
            reports.append(rep)
            if on_report is not None:
                on_report(rep)
            if target_mbb is not None and rep.exploitability.mbb <= target_mbb:
                break
    return reports, False
