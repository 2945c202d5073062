"""The re-solving hold'em blueprint's decision times in play; prints one JSON object.

    .venv/bin/python benchmarks/resolving_play.py [--hands 300] [--opponent call|blueprint] [--seed 0]

Plays ``--hands`` hands of heads-up limit hold'em (seats alternating)
between the blueprint that re-solves the river (``acpcbot.solve.resolving``,
the strategy's defaults: 200 iterations, 2.5 s cap, a 7 s deadline as the
competition's average) and ``--opponent``: ``call`` (every hand reaches
the river, the most solves) or the shipped ``blueprint``.  Keys:
``decision_ms`` (median, p99, max, wall and CPU) over every decision of the
re-solving seat, ``river_decision_ms`` over its river decisions,
``hand_s`` (mean and max of its time a hand), ``solves`` and ``cut_short``,
``safety_chips`` (per finished solve: how much less the opponent's best
response wins in the subgame than against the blueprint, chips a hand),
and the peer ``blueprint_decision_ms``: the shipped policy's lookup on the
same decisions in the same run.  Times on a shared 2-core machine are noisy:
``load`` gives ``os.getloadavg()`` at the start and end.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acpcbot.cards import deck  # noqa: E402
from acpcbot.engine import CALL, FOLD, RAISE, State  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.holdings import holding_index  # noqa: E402
from acpcbot.solve.resolving.clock import Budget  # noqa: E402
from acpcbot.solve.resolving.player import Resolver  # noqa: E402
from acpcbot.strategies.blueprint import load_blueprint  # noqa: E402

ACTIONS = (FOLD, CALL, RAISE)


def stats(xs: list[float]) -> dict[str, float]:
    """Median, p99 and max in milliseconds."""
    if not xs:
        return {}
    a = np.array(xs) * 1000
    return {"n": len(xs), "median": round(float(np.median(a)), 2), "p99": round(float(np.percentile(a, 99)), 2),
            "max": round(float(a.max()), 2)}


def safety(margins: list[tuple[float, float]]) -> dict[str, float]:
    """Over the finished solves: the opponent's best response's loss against the re-solve (chips a hand of the
    subgame, its blueprint reach weighing its holdings), and the most any solve left it winning more somewhere."""
    if not margins:
        return {}
    gains = np.array([m[0] for m in margins])
    excess = np.array([m[1] for m in margins])
    return {"n": len(margins), "gain_mean": round(float(gains.mean()), 3), "gain_min": round(float(gains.min()), 3),
            "solves_gaining": int((gains > 0).sum()), "excess_max": round(float(excess.max()), 4)}


def main() -> None:
    """Play the hands and print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--opponent", choices=("call", "blueprint"), default="call", metavar="call|blueprint",
                    help="the opponent: call, or the shipped blueprint (blueprint:resolve=0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=2.5)
    args = ap.parse_args()
    load0 = os.getloadavg()
    game = load_game("hulhe")
    bp = load_blueprint(game)
    resolver = Resolver(game, bp.probabilities_all, Budget(args.iterations, args.seconds))
    rng = random.Random(args.seed)
    cards = list(deck())
    wall, cpu, river_wall, river_cpu, peer, hand_s = [], [], [], [], [], []
    start = time.perf_counter()
    for hand in range(args.hands):
        dealt = rng.sample(cards, 9)
        state = State(game, hand, [dealt[0:2], dealt[2:4]], dealt[4:9])
        me = hand % 2
        spent = 0.0
        while not state.finished:
            p = state.current_player
            if p == me:
                view = state.view_of(p)
                t0, c0 = time.perf_counter(), time.process_time()
                rows = resolver.rows(view, time.monotonic() + 7.0) if resolver.active(view) else None
                row = rows[holding_index(game, view.hole[p])] if rows is not None else bp.probabilities(view)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                t1 = time.perf_counter()
                bp.probabilities(view)
                peer.append(time.perf_counter() - t1)
                wall.append(dt)
                cpu.append(dc)
                spent += dt
                if view.round == 3:
                    river_wall.append(dt)
                    river_cpu.append(dc)
            else:
                row = bp.probabilities(state) if args.opponent == "blueprint" else np.array([0.0, 1.0, 0.0])
            kind = int(rng.choices((0, 1, 2), weights=row)[0])
            action = ACTIONS[kind]
            if not state.is_legal(action):
                action = CALL
            state.apply(action)
        hand_s.append(spent)
    print(json.dumps({
        "benchmark": "resolving_play", "hands": args.hands, "opponent": args.opponent, "seed": args.seed,
        "iterations": args.iterations, "cap_s": args.seconds, "seconds": round(time.perf_counter() - start, 1),
        "decision_ms": {"wall": stats(wall), "cpu": stats(cpu)},
        "river_decision_ms": {"wall": stats(river_wall), "cpu": stats(river_cpu)},
        "hand_s": {"mean": round(float(np.mean(hand_s)), 3), "max": round(float(np.max(hand_s)), 3)},
        "solves": resolver.solves, "cut_short": resolver.cut_short,
        "safety_chips": safety(resolver.margins),
        "blueprint_decision_ms": stats(peer), "load": [round(x, 2) for x in load0 + os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
