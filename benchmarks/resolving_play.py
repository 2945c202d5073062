"""The re-solving blueprint's decision times in play, hold'em limit or no-limit; prints one JSON object.

    .venv/bin/python benchmarks/resolving_play.py [--game hulhe|hunl] [--policy FILE] [--hands 300]
        [--opponent call|random|blueprint|SPEC] [--seed 0] [--iterations 200] [--seconds 2.5] [--deadline 7]
        [--measure 5]

Plays ``--hands`` hands (seats alternating) between the ``blueprint``
strategy as a user runs it (``blueprint:policy=FILE,...``: it re-solves
from the river, ``acpcbot.solve.resolving``) and ``--opponent``, a strategy
spec (``call``: every hand the blueprint does not fold reaches the river,
the most solves; ``random``; ``blueprint`` is the shipped policy alone,
``blueprint:resolve=0``).  Each decision of the re-solving seat is timed
around the strategy's ``act`` (what the client calls), with
``--deadline`` seconds to answer.  Keys: ``decision_ms`` (median, p99, max,
wall and CPU) over every decision, ``by_street`` (wall) and
``hand_s`` (mean and max of its time a hand), ``solves``, ``cut_short``,
``missed`` (decisions whose history the solved tree lacked), ``nested``
(solves with the opponent's off-ladder sizes in the tree), ``skipped``
(solves the match clock did not start: too slow for what is left), ``clock``
(the no-limit match clock: hands, seconds used), ``safety_chips`` (per
finished solve: how much less the opponent's best response wins in the
subgame than against the blueprint, chips a hand), ``resolves`` (for the
first ``--measure`` finished solves: the subgame's nodes and root pot, and
what the opponent's best response wins in % of that pot, its blueprint
reach weighing its holdings, against the blueprint's strategy and against
the re-solved one: the re-solve's exploitability gain), and the peer
``blueprint_decision_ms``:
the table's lookup on the same decisions in the same run.  Times on a
shared 2-core machine are noisy: ``load`` gives ``os.getloadavg()`` at the
start and end.
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
from acpcbot.engine import State  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.notation.matchstate import format_match_state  # noqa: E402
from acpcbot.strategies import builtin  # noqa: E402,F401  (registers the strategies)
from acpcbot.strategies.registry import create  # noqa: E402
from acpcbot.world import View  # noqa: E402

STREETS = ("preflop", "flop", "turn", "river")


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


def resolve_facts(resolver, state: State) -> dict | None:
    """The last solve's size and what the opponent's best response wins against the blueprint and the re-solve."""
    result = resolver.solutions.get(resolver.spot(state).key)
    if result is None or not resolver.values:
        return None
    pot, bp, rs = resolver.values[-1]
    return {"nodes": len(result.subgame.tree.nodes), "decisions": result.subgame.tree.num_decisions, "pot": pot,
            "br_vs_blueprint_pct": round(100 * bp / pot, 2), "br_vs_resolved_pct": round(100 * rs / pot, 2),
            "iterations": result.iterations, "solve_s": round(result.seconds, 3)}


def main() -> None:
    """Play the hands and print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("hulhe", "hunl"), default="hulhe", metavar="hulhe|hunl")
    ap.add_argument("--policy", default="", help="the blueprint's policy file (default: the shipped one)")
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--opponent", default="call", help="a strategy spec (call, random, blueprint: the shipped "
                                                         "policy alone)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=2.5)
    ap.add_argument("--deadline", type=float, default=7.0, help="seconds the strategy has to answer a decision")
    ap.add_argument("--measure", type=int, default=0, help="finished solves whose best-response values are reported")
    args = ap.parse_args()
    load0 = os.getloadavg()
    game = load_game(args.game)
    params = [f"resolve_iterations={args.iterations}", f"resolve_seconds={args.seconds}"]
    if args.policy:
        params.append(f"policy={args.policy}")
    t0 = time.perf_counter()
    player = create("blueprint:" + ",".join(params), game, args.seed)
    setup_s = time.perf_counter() - t0
    opponent_spec = "blueprint:resolve=0" + (f",policy={args.policy}" if args.policy else "") \
        if args.opponent == "blueprint" else args.opponent
    opponent = create(opponent_spec, game, args.seed + 1)
    resolver = player.resolver
    rng = random.Random(args.seed)
    cards = list(deck())
    wall: list[float] = []
    cpu: list[float] = []
    street: list[list[float]] = [[] for _ in STREETS]
    peer: list[float] = []
    hand_s: list[float] = []
    measured: list[dict] = []
    start = time.perf_counter()
    for hand in range(args.hands):
        dealt = rng.sample(cards, 4 + game.total_board_cards)
        state = State(game, hand, [dealt[0:2], dealt[2:4]], dealt[4:])
        me = hand % 2
        spent = 0.0
        while not state.finished:
            p = state.current_player
            view = View.parse(format_match_state(state, p), game)
            if p == me:
                solves = resolver.solves
                t0, c0 = time.perf_counter(), time.process_time()
                action = player.act(view, time.monotonic() + args.deadline)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                t1 = time.perf_counter()
                player.table.probabilities(view.state)
                peer.append(time.perf_counter() - t1)
                wall.append(dt)
                cpu.append(dc)
                street[view.state.round].append(dt)
                spent += dt
                if resolver.solves > solves and len(measured) < args.measure:
                    m = resolve_facts(resolver, view.state)
                    if m is not None:
                        measured.append(m)
            else:
                action = opponent.act(view, time.monotonic() + args.deadline)
            state.apply(action)
        hand_s.append(spent)
    clock = getattr(resolver, "clock", None)
    print(json.dumps({
        "benchmark": "resolving_play", "game": args.game, "policy": args.policy or "shipped", "hands": args.hands,
        "opponent": args.opponent, "seed": args.seed, "iterations": args.iterations, "cap_s": args.seconds,
        "deadline_s": args.deadline, "seconds": round(time.perf_counter() - start, 1),
        "setup_s": round(setup_s, 2),
        "decision_ms": {"wall": stats(wall), "cpu": stats(cpu)},
        "by_street": {name: stats(xs) for name, xs in zip(STREETS, street)},
        "hand_s": {"mean": round(float(np.mean(hand_s)), 3), "max": round(float(np.max(hand_s)), 3)},
        "solves": resolver.solves, "cut_short": resolver.cut_short, "missed": resolver.missed,
        "nested": resolver.nested,
        "skipped": getattr(resolver, "skipped", 0),
        "clock": None if clock is None else {"hands": clock.hands, "used_s": round(clock.used, 2)},
        "safety_chips": safety(resolver.margins), "resolves": measured,
        "blueprint_decision_ms": stats(peer), "load": [round(x, 2) for x in load0 + os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
