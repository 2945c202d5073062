"""The re-solving blueprint's decision times in play, hold'em limit or no-limit; prints one JSON object.

    .venv/bin/python benchmarks/resolving_play.py [--game hulhe|hunl] [--policy FILE] [--hands 300]
        [--opponent call|random|blueprint|SPEC] [--seed 0] [--iterations 200] [--seconds 2.5] [--deadline 7]
        [--measure 5] [--target 0.01] [--settle 0.05] [--no-peer] [--match-hands 0] [--match-runs 2]
        [--resolve-from river|turn|flop]

Plays ``--hands`` hands (seats alternating) between the ``blueprint``
strategy as a user runs it (``blueprint:policy=FILE,...``: it re-solves
from the river, ``acpcbot.solve.resolving``) and ``--opponent``, a strategy
spec (``--resolve-from`` another street than the game's default;
``call``: every hand the blueprint does not fold reaches the river,
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

Re-solves stop by the rule (``--target``/``--settle``, % of the root pot:
``acpcbot.solve.resolving.clock``; ``--target 0`` is the fixed count).
``peer_fixed`` is the same player with the fixed count
(``resolve_target=0``: every re-solve runs ``--iterations``, the rule
before it) asked on the very same decisions, the two timed in alternating
order (its action is not played): ``river_solve_s`` and ``river_solve_cpu_s``
(median, p90, mean, max of the wall and CPU seconds of a decision that
re-solved) for both, and the rule's
iterations (``iterations_run``: mean, median, max).  ``--match-hands N``
also times the command a user runs, ``acpc-match play --game G --hands N
--seed 7 --transport memory --jobs 1 blueprint:... call`` (AIVAT's analysis
included), with the rule and with the fixed count, alternated
``--match-runs`` times each (``match``: wall seconds of every run).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acpcbot.cards import deck  # noqa: E402
from acpcbot.engine import State  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.notation.matchstate import format_match_state  # noqa: E402
from acpcbot.solve.resolving.clock import SETTLE, TARGET  # noqa: E402
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


def seconds(xs: list[float]) -> dict[str, float]:
    """Median, p90, mean and max in seconds."""
    if not xs:
        return {}
    a = np.array(xs)
    return {"n": len(xs), "median": round(float(np.median(a)), 3), "p90": round(float(np.percentile(a, 90)), 3),
            "mean": round(float(a.mean()), 3), "max": round(float(a.max()), 3)}


def timed_match(game: str, hands: int, spec: str) -> float:
    """Wall seconds of ``acpc-match play`` of ``spec`` against call, as a user runs it (AIVAT included)."""
    exe = Path(sys.executable).with_name("acpc-match")
    with tempfile.TemporaryDirectory() as runs:
        cmd = [str(exe), "play", "--game", game, "--hands", str(hands), "--seed", "7", "--transport", "memory",
               "--jobs", "1", "--runs-dir", runs, "--quiet", spec, "call"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0


def resolve_facts(resolver, state: State) -> dict | None:
    """The last solve's size and what the opponent's best response wins against the blueprint and the re-solve."""
    result = resolver.solutions.get(resolver.spot(state).key)
    if result is None or not resolver.values:
        return None
    pot, bp, rs = resolver.values[-1]
    return {"nodes": len(result.subgame.tree.nodes), "decisions": result.subgame.tree.num_decisions, "pot": pot,
            "br_vs_blueprint_pct": round(100 * bp / pot, 2), "br_vs_resolved_pct": round(100 * rs / pot, 2),
            "iterations": result.iterations, "solve_s": round(result.seconds, 3)}


def peer_act(peer_player, view: View, deadline: float, wall: list[float], cpu: list[float]) -> None:
    """The fixed-count peer asked on the same decision: its wall and CPU seconds when it re-solved (its action is
    not played)."""
    solves = peer_player.resolver.solves
    t0, c0 = time.perf_counter(), time.process_time()
    peer_player.act(view, time.monotonic() + deadline)
    if peer_player.resolver.solves > solves:
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)


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
    ap.add_argument("--target", type=float, default=TARGET, help="the rule's excess target, %% of the pot (0: fixed)")
    ap.add_argument("--settle", type=float, default=SETTLE, help="the rule's margin settle, %% of the pot")
    ap.add_argument("--no-peer", action="store_true", help="without the fixed-count peer on the same decisions")
    ap.add_argument("--match-hands", type=int, default=0, help="also time acpc-match play of this many hands")
    ap.add_argument("--match-runs", type=int, default=2, help="runs of each setting of the timed match")
    ap.add_argument("--resolve-from", choices=("river", "turn", "flop"), default=None,
                    help="the street re-solving starts on (default: the game's)")
    args = ap.parse_args()
    load0 = os.getloadavg()
    game = load_game(args.game)
    params = [f"resolve_iterations={args.iterations}", f"resolve_seconds={args.seconds}"]
    if args.policy:
        params.append(f"policy={args.policy}")
    if args.resolve_from:
        params.append(f"resolve_from={args.resolve_from}")
    ruled = params + [f"resolve_target={args.target}", f"resolve_settle={args.settle}"]
    t0 = time.perf_counter()
    player = create("blueprint:" + ",".join(ruled), game, args.seed)
    setup_s = time.perf_counter() - t0
    peer_player = None if args.no_peer else create("blueprint:" + ",".join(params + ["resolve_target=0"]), game,
                                                   args.seed)
    river_s: list[float] = []
    peer_river_s: list[float] = []
    river_cpu: list[float] = []
    peer_river_cpu: list[float] = []
    opponent_spec = "blueprint:resolve=0" + (f",policy={args.policy}" if args.policy else "") \
        if args.opponent == "blueprint" else args.opponent
    opponent = create(opponent_spec, game, args.seed + 1)
    resolver = player.resolver
    rng = random.Random(args.seed)
    cards = list(deck())
    wall: list[float] = []
    cpu: list[float] = []
    street: list[list[float]] = [[] for _ in STREETS]
    lookups: list[float] = []
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
                peer_first = peer_player is not None and hand % 4 >= 2  # the order alternates every two hands
                if peer_first:
                    peer_act(peer_player, view, args.deadline, peer_river_s, peer_river_cpu)
                t0, c0 = time.perf_counter(), time.process_time()
                action = player.act(view, time.monotonic() + args.deadline)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                if resolver.solves > solves:
                    river_s.append(dt)
                    river_cpu.append(dc)
                if peer_player is not None and not peer_first:
                    peer_act(peer_player, view, args.deadline, peer_river_s, peer_river_cpu)
                t1 = time.perf_counter()
                player.table.probabilities(view.state)
                lookups.append(time.perf_counter() - t1)
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
    spec = "blueprint:" + ",".join(ruled)
    match = None
    if args.match_hands:
        fixed_spec = "blueprint:" + ",".join(params + ["resolve_target=0"])
        runs: dict[str, list[float]] = {"rule": [], "fixed": []}
        for _ in range(args.match_runs):
            runs["rule"].append(round(timed_match(args.game, args.match_hands, spec), 1))
            runs["fixed"].append(round(timed_match(args.game, args.match_hands, fixed_spec), 1))
        match = {"command": f"acpc-match play --game {args.game} --hands {args.match_hands} --seed 7 "
                            f"--transport memory --jobs 1 SPEC call", "rule_spec": spec, "fixed_spec": fixed_spec,
                 "wall_s": runs}
    its = resolver.iterations
    peer = None
    if peer_player is not None:
        pr = peer_player.resolver
        peer = {"river_solve_s": seconds(peer_river_s), "river_solve_cpu_s": seconds(peer_river_cpu), "solves": pr.solves, "cut_short": pr.cut_short,
                "safety_chips": safety(pr.margins)}
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
        "blueprint_decision_ms": stats(lookups), "target": args.target, "settle": args.settle,
        "river_solve_s": seconds(river_s), "river_solve_cpu_s": seconds(river_cpu),
        "iterations_run": {} if not its else {"mean": round(float(np.mean(its)), 1),
                                              "median": float(np.median(its)), "max": int(max(its))},
        "peer_fixed": peer, "match": match,
        "load": [round(x, 2) for x in load0 + os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
