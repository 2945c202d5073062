"""The hold'em blueprint: bucket lookup latency, policy lookup, solver speed; prints one JSON object.

    .venv/bin/python benchmarks/blueprint.py [--no-train] [--evaluate]

Keys:
- ``lookup_one_ms``: p50/p99 (wall and CPU time) of mapping one holding to its bucket history at
  a decision with a board never seen before (no cache), per street; the
  peer ``treys_same_lookup_ms`` computes the same river/turn strength with
  treys.Evaluator in a Python loop (1081 hands per river board).
- ``lookup_all_ms``: p50/p99 of the (1326, 3) table for every holding.
- ``decision_one_ms``: p50/p99 of ``Blueprint.probabilities`` over the
  decisions of random hands (cache warm as in play).
- ``iteration_s``: seconds per CFR+ iteration on the shipped abstraction
  with 1 and 2 threads (skipped with --no-train: it allocates ~2 GB).
- ``shipped``: the policy file's own record (iterations, training seconds,
  exploitability curve); ``--evaluate`` re-measures its exact abstract
  exploitability here.
Times on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treys import Evaluator  # noqa: E402

from acpcbot.cards import TREYS_INT  # noqa: E402
import numpy as np  # noqa: E402 - after acpcbot, which gives numpy's BLAS one thread (see its __init__)
from acpcbot.engine import CALL, FOLD, RAISE, State  # noqa: E402
from acpcbot.evaluator import PAIR_INDEX  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.solve.abstract_cfr import AbstractSolver  # noqa: E402
from acpcbot.solve.blueprint import Blueprint, bucket_histories, bucket_history  # noqa: E402
from acpcbot.solve.blueprint_train import (DEFAULT_POLICY, blueprint_game, evaluate_rows,  # noqa: E402
                                           single_threaded_blas)


def percentiles(samples: list[tuple[float, float]]) -> dict[str, float]:
    """p50 and p99 in milliseconds of wall time, and of this process's CPU time (robust to a loaded machine)."""
    out: dict[str, float] = {}
    for j, name in ((0, ""), (1, "cpu_")):
        xs = sorted(s[j] for s in samples)
        out[f"{name}p50"] = round(1e3 * statistics.median(xs), 3)
        out[f"{name}p99"] = round(1e3 * xs[int(0.99 * (len(xs) - 1))], 3)
    out["n"] = len(samples)
    return out


def timed(fn) -> tuple[float, float]:
    """(wall, cpu) seconds of one call."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def treys_strength(board: list[int], hole: tuple[int, int]) -> int:
    """The same board strength (2*worse + ties) as the abstraction, with treys in a loop."""
    ev = Evaluator()
    tb = [TREYS_INT[c] for c in board]
    mine = ev.evaluate([TREYS_INT[c] for c in hole], tb)
    worse = ties = 0
    live = [c for c in range(52) if c not in board]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            r = ev.evaluate([TREYS_INT[a], TREYS_INT[b]], tb)
            worse += r > mine
            ties += r == mine
    return 2 * worse + ties


def random_decisions(game, rng, count):
    out = []
    while len(out) < count:
        cards = [int(c) for c in rng.permutation(52)]
        state = State(game, hole=[tuple(cards[:2]), tuple(cards[2:4])], board=cards[4:9])
        while not state.finished:
            out.append(state.copy())
            state.apply([FOLD, CALL, RAISE][int(rng.choice(state.legal_actions()))])
    return out[:count]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-train", action="store_true", help="skip the solver speed measurement")
    ap.add_argument("--evaluate", action="store_true", help="re-measure the shipped policy's exploitability")
    args = ap.parse_args()
    single_threaded_blas()
    rng = np.random.default_rng(1)
    out: dict[str, object] = {}
    t = time.perf_counter()
    bp = Blueprint()
    out["load_s"] = round(time.perf_counter() - t, 2)
    bk = bp.buckets
    one, every, peer = {}, {}, {}
    for street, length in (("flop", 3), ("turn", 4), ("river", 5)):
        ones, alls = [], []
        for _ in range(200):
            cards = [int(c) for c in rng.choice(52, length + 2, replace=False)]
            board, pair = tuple(cards[:length]), int(PAIR_INDEX[cards[-2], cards[-1]])
            ones.append(timed(lambda: bucket_history(bk, board, pair)))
            alls.append(timed(lambda: bucket_histories(bk, board)))
        one[street], every[street] = percentiles(ones), percentiles(alls)
        if length >= 4:
            cards = [int(c) for c in rng.choice(52, 7, replace=False)]
            board, hole = cards[:length], (cards[5], cards[6])
            if length == 5:
                peer[street] = percentiles([timed(lambda: treys_strength(board, hole)) for _ in range(5)])
            else:
                rivers = [c for c in range(52) if c not in board and c not in hole]
                peer[street] = percentiles([timed(lambda: [treys_strength(board + [r], hole) for r in rivers])])
    out["lookup_one_ms"], out["lookup_all_ms"], out["treys_same_lookup_ms"] = one, every, peer
    states = random_decisions(bp.game, rng, 2000)
    out["decision_one_ms"] = percentiles([timed(lambda: bp.probabilities(s)) for s in states])
    out["decision_all_ms"] = percentiles([timed(lambda: bp.probabilities_all(s)) for s in states[:300]])
    out["shipped"] = {k: v for k, v in bp.meta.items() if k != "game_text"}
    out["policy_mb"] = round(DEFAULT_POLICY.stat().st_size / 1e6, 2)
    if args.evaluate:
        t = time.perf_counter()
        rep = evaluate_rows(bp.abstract, bp.rows)
        out["evaluated_mbb"] = round(rep.mbb, 4)
        out["evaluate_s"] = round(time.perf_counter() - t, 1)
    if not args.no_train:
        ag = blueprint_game(load_game("hulhe"), bk)
        speed = {}
        for workers in (1, 2):
            solver = AbstractSolver(ag, workers=workers)
            solver.run(1)                                   # first touch of the arrays
            speed[f"{workers}_threads"] = round(min(timed(solver.step)[0] for _ in range(3)), 3)
            solver.close()
            del solver
        out["iteration_s"] = speed
    # one key per line, values compact
    print("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()) + "\n}")


if __name__ == "__main__":
    main()
