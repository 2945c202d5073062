"""The subgame solver on SOLVER_SPOTS.md's two exact no-limit spots, and on two limit hold'em subgames.

    python benchmarks/subgame.py [--target 0.5] [--only river,turn,hulhe-river,hulhe-turn,hulhe-river-wide]
        [--showdown auto|matrix|sweep]

Prints one JSON object.  Each spot runs in its own process (so ``peak_mb``,
``resource.getrusage``'s peak resident size, is that spot's), BLAS pinned to
one thread: ``total_s`` is the user's time from the call to the result
(tree, holdings, showdown matrices, solve), ``cpu_s`` the process's CPU time over
the same span (what the solve costs when other processes share the cores;
it includes the one-time load of the evaluator's tables), ``solve_s`` the iterations and
best responses alone, ``iterations`` and ``exploitability_pct`` (half the
sum of both players' best-response gains, % of the starting pot) where it
stopped, ``history`` its best-response checks (iteration, s, %).  ``warm_*``:
the same spot built and solved again in the same process, as a bot's later
decisions are (the evaluator's tables already loaded).  The peer,
b-inary/postflop-solver on one thread as SOLVER_SPOTS.md measured it on this
kind of machine (river 0.008 s in 60 iterations, turn 5.0 s in 120), stands
beside the no-limit spots with ``ratio`` = our total_s / its seconds
(``cpu_ratio`` the same with cpu_s).  The
limit spots have no peer figure: the same board and ranges, hulhe's own
betting (a raised pre-flop pot of 40 and a bet and call on the flop: 80);
``hulhe-river-wide`` is the river with every holding in both ranges (1,081
a side, as wide as the blueprint's river re-solves in play get).
``--showdown`` picks the showdown evaluator (``Subgame``'s
``showdown_mode``: the win/lose matrix product, the rank-sorted sweep, or
``auto``, the sweep where it measured faster); ``sweep_groups`` counts the
board groups the sweep values.
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PEER = {"river": {"seconds": 0.008, "iterations": 60, "exploitability_pct": 0.41, "peak_mb": 4},
        "turn": {"seconds": 5.0, "iterations": 120, "exploitability_pct": 0.47, "peak_mb": 38}}
SPOTS = ("river", "turn", "hulhe-river", "hulhe-turn", "hulhe-river-wide")


def _limit_spot(street: str, wide: bool = False):
    import numpy as np

    from acpcbot.cards import parse_cards
    from acpcbot.engine import CALL, RAISE, State
    from acpcbot.gamedef import load_game
    from acpcbot.solve.subgame.spots import IP_TURN, OOP_TURN, RIVER_BOARD, TURN_BOARD, spot_range

    game = load_game("hulhe")
    state = State(game)
    for action in (RAISE, CALL, RAISE, CALL):  # pre-flop raise and call (40), flop bet and call (80)
        state.apply(action)
    if street == "river":
        state.apply(CALL).apply(CALL)
    board = RIVER_BOARD if street == "river" else TURN_BOARD
    if wide:
        return game, state, parse_cards(board), (np.ones(1326), np.ones(1326))
    # position 0 (the big blind) acts first after the flop: it holds the out-of-position range
    return game, state, parse_cards(board), (spot_range(game, OOP_TURN, board), spot_range(game, IP_TURN, board))


def run_one(name: str, target: float, warm: bool = True, showdown: str = "auto") -> dict:
    """Solve one spot in this process and report it."""
    from acpcbot.solve.subgame import Subgame, spot_sizes
    from acpcbot.solve.subgame.spots import spot

    def once() -> tuple:
        start = time.perf_counter()
        cpu = time.process_time()
        if name in ("river", "turn"):
            game, state, board, ranges = spot(name)
            sub = Subgame(game, state, board, ranges, spot_sizes(), showdown_mode=showdown)
        else:
            game, state, board, ranges = _limit_spot(name.split("-")[1], wide=name.endswith("-wide"))
            sub = Subgame(game, state, board, ranges, showdown_mode=showdown)
        built = time.perf_counter() - start
        result = sub.solve(target_pct=target)
        return sub, result, time.perf_counter() - start, time.process_time() - cpu, built

    sub, result, total, cpu, built = once()
    out = {"total_s": round(total, 4), "cpu_s": round(cpu, 4), "build_s": round(built, 4),
           "solve_s": round(result.seconds, 4), "iterations": result.iterations,
           "exploitability_pct": round(result.exploitability_pct, 4),
           "s_per_iteration": round(result.seconds / max(1, result.iterations), 5),
           "decision_nodes": sub.tree.num_decisions, "terminal_lines": len(sub.tree.terminal_lines()),
           "holdings": [len(h.rows) for h in sub.prep.hands], "showdown": showdown,
           "sweep_groups": len(sub.prep.showdown_sweep),
           "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
           "history": [[t, round(s, 3), round(p, 4)] for t, s, p in result.history]}
    if warm:
        _, _, total_w, cpu_w, built_w = once()  # again, the evaluator's tables loaded: a bot's later decisions
        out.update({"warm_total_s": round(total_w, 4), "warm_cpu_s": round(cpu_w, 4), "warm_build_s": round(built_w, 4)})
    if name in PEER:
        out["peer"] = PEER[name]
        out["ratio"] = round(total / PEER[name]["seconds"], 2)
        out["cpu_ratio"] = round(cpu / PEER[name]["seconds"], 2)
        if warm:
            out["warm_cpu_ratio"] = round(out["warm_cpu_s"] / PEER[name]["seconds"], 2)
    return out


def main() -> None:
    """Run every spot in a child process and print one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=0.5, help="exploitability target, %% of the pot")
    parser.add_argument("--only", default=",".join(SPOTS), help="comma-separated spots to run")
    parser.add_argument("--cold-only", action="store_true", help="skip the second (warm) solve of each spot")
    parser.add_argument("--showdown", default="auto", choices=("auto", "matrix", "sweep"),
                        help="showdown evaluator (Subgame's showdown_mode)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.target, not args.cold_only, args.showdown)))
        return
    names = [n for n in args.only.split(",") if n]
    bad = [n for n in names if n not in SPOTS]
    if bad:
        parser.error(f"unknown spot(s) {', '.join(bad)}; choose from {', '.join(SPOTS)}")
    report: dict = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                    "load_before": round(os.getloadavg()[0], 2), "target_pct": args.target,
                    "threads": 1, "showdown": args.showdown, "spots": {}}
    for name in names:
        extra = ["--cold-only"] if args.cold_only else []
        proc = subprocess.run([sys.executable, __file__, "--child", name, "--target", str(args.target),
                               "--showdown", args.showdown] + extra,
                              capture_output=True, text=True, check=False)
        if proc.returncode:
            report["spots"][name] = {"error": proc.stderr.strip().splitlines()[-1:]}
            continue
        report["spots"][name] = json.loads(proc.stdout)
    report["load_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
