"""What a turn re-solve costs and gives, exact rivers against river classes; prints one JSON object.

    .venv/bin/python benchmarks/resolving_turn.py [--game hulhe|hunl] [--spots 8] [--exact-spots 2]
        [--classes 3,4,6,8] [--cap 40] [--seed 0]

Spots: the first turn decision of the blueprint's seat in hands of the
shipped blueprint (``blueprint:resolve=0``) against ``call`` and against
itself, as ``resolving_convergence.py`` takes the river's.  Each is
re-solved as the player does (the blueprint's ranges and rows, the Resolve
gadget, the stopping rule of ``clock.Budget`` with ``--cap`` iterations at
most):

* **exact** (today's code, every river card enumerated; the first
  ``--exact-spots`` spots): the setup's parts (tree and matrices, the
  blueprint's alternatives), seconds per DCFR iteration, where an
  iteration's time goes (cProfile of the passes, shares of the total), and
  the iterations the stopping rule takes (cap 200), with the average
  strategy then kept as the reference for the turn decision's rows;
* **classes k** (``Subgame(last_classes=k)``: the river dealt as k classes
  of cards, ``subgame.chance``): the whole solve's seconds (setup
  included), its iterations, the gadget's excess and margin where it
  stopped (in its own, abstract subgame) and, measured in the exact
  subgame (the class's rows played on every card of the class), how much
  less the opponent's best response wins there than against the blueprint
  (``margin_exact``, % of the root pot, its blueprint reach weighing its
  holdings; > 0: the re-solve is less exploitable there than the blueprint)
  and where it wins more (``excess_exact``); the L1 distance of the turn
  decision's rows to the exact reference where there is one;
* **player**: ``Resolver.rows`` as ``blueprint:resolve_from=turn`` builds it
  (the spec's resolver), seconds a turn decision (median, p90, max).

Times are CPU seconds (``time.process_time``) of one thread; the machine's
load is reported beside them.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acpcbot.engine import State  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.notation.matchstate import format_match_state  # noqa: E402
from acpcbot.solve.blueprint_registry import spec_for  # noqa: E402
from acpcbot.solve.resolving import gadget as gd  # noqa: E402
from acpcbot.solve.resolving.clock import SETTLE, TARGET  # noqa: E402
from acpcbot.solve.subgame import Subgame  # noqa: E402
from acpcbot.strategies import builtin  # noqa: E402,F401  (registers the strategies)
from acpcbot.strategies.blueprint import load_blueprint  # noqa: E402

TURN = 2
#: cProfile's functions by what they do in an iteration
PARTS = {"_terminals": "terminals (showdown products)", "__call__": "terminals (fold sums)",
         "regret_matching": "regret matching", "step": "regret and average updates", "forward": "reach down",
         "level_values": "values up (levels)", "backward": "values up (chance sums)", "take": "terminals (fold sums)"}


def cpu() -> float:
    """CPU seconds of this process (one thread: the solver's)."""
    return time.process_time()


def setup(resolver, state: State, classes: int | None) -> dict:
    """The gadget subgame of ``state``'s spot, timed in parts."""
    spot = resolver.spot(state)
    ranges = resolver.ranges(state, spot)
    game, opp = resolver.game, 1 - spot.player
    t0 = cpu()
    sub = Subgame(game, spot.root, spot.board, gd.gadget_ranges(game, ranges, opp, spot.board), spot.sizes,
                  last_classes=classes)
    t1 = cpu()
    blueprint = gd.load_strategy(sub, spot.root, resolver.node_rows)
    alternative = gd.alternative_values(sub, blueprint, opp)
    gadget = gd.ResolveGadget(sub, opp, alternative)
    t2 = cpu()
    return {"spot": spot, "ranges": ranges, "sub": sub, "gadget": gadget, "alternative": alternative,
            "blueprint": blueprint,
            "build_s": t1 - t0, "alternatives_s": t2 - t1}


def turn_rows(resolver, result, state: State, before: int) -> np.ndarray:
    """The turn decision's rows of every holding from a solve's result."""
    rows = resolver._read(result, state, before)
    assert rows is not None
    return rows


def exact_margin(exact: dict, result, river_blueprint: bool = False) -> tuple[float, float]:
    """(margin, excess) in % of the root pot, in the exact subgame, of a class solve's strategy (each river card
    playing its class's rows, or with ``river_blueprint`` the blueprint's) against the blueprint's alternatives,
    the opponent's blueprint reach weighing its holdings."""
    sub, csub = exact["sub"], result.subgame
    per_node = []
    for i, node in enumerate(sub.tree.nodes):
        rows = result.strategy[i]
        if rows is None:
            per_node.append(None)
            continue
        group = csub.tree.groups[node.group]
        if river_blueprint and group.boards.shape[1] == sub.game.total_board_cards:
            per_node.append(exact["blueprint"][i])
            continue
        if group.members is None:
            per_node.append(rows)
            continue
        cards = sub.tree.groups[node.group].boards[:, -1]
        per_node.append(rows[:, np.argmax(group.members[:, cards], axis=0), :])
    opp = 1 - exact["spot"].player
    br = gd.opponent_best(sub, gd.by_level(sub.workspace, per_node), opp)
    prep = sub.prep
    reach = exact["ranges"][opp][prep.hands[opp].rows]
    diff = exact["alternative"] - br
    pct = 100.0 / sub.root_pot / prep.normaliser
    return float(reach @ diff) * pct, float(reach @ np.maximum(-diff, 0.0)) * pct


def profile_iterations(sub: Subgame, count: int) -> dict:
    """Shares of an iteration's time by part (cProfile's own time per function)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(count):
        sub.cfr.step()
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    parts: dict[str, float] = {}
    total = 0.0
    for (_file, _line, name), (_cc, _nc, tottime, _ct, _callers) in stats.items():
        total += tottime
        key = PARTS.get(name, "other")
        parts[key] = parts.get(key, 0.0) + tottime
    return {k: round(v / total, 3) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])}


def solve(info: dict, cap: int, target: float | None = TARGET, settle: float | None = SETTLE) -> tuple:
    """Solve a prepared gadget subgame with the stopping rule; (result, seconds of the iterations)."""
    t0 = cpu()
    result = gd.solve_to(info["sub"], info["gadget"], target if target is not None else 0.0, cap, None, settle)
    return result, cpu() - t0


def main() -> None:
    """Collect the spots, measure them, print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("hulhe", "hunl"), default="hulhe")
    ap.add_argument("--spots", type=int, default=8)
    ap.add_argument("--exact-spots", type=int, default=2)
    ap.add_argument("--exact-cap", type=int, default=200)
    ap.add_argument("--classes", default="3,4,6,8")
    ap.add_argument("--caps", default="20,40", help="the iteration caps of the class solves")
    ap.add_argument("--no-exact", action="store_true",
                    help="no exact subgame at all (no exact_* figures): the class solves' time and gadget figures only")
    ap.add_argument("--player", action="store_true", help="also time Resolver.rows as resolve_from=turn builds it")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    # the sibling benchmark's spots, on any street (imported here: the docs' checks run this file by path, where its
    # folder is not on the import path, and only ask for --help)
    from resolving_convergence import blueprint_spots  # noqa: PLC0415
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    game = load_game(args.game)
    spec = spec_for(game)
    assert spec is not None and spec.resolver is not None
    table = load_blueprint(game)
    resolver = spec.resolver(game, table, 200, 1e9, TURN)
    classes = [int(k) for k in args.classes.split(",") if k]
    caps = [int(c) for c in args.caps.split(",") if c]
    spots = blueprint_spots(game, args.spots, args.seed, TURN)
    out_spots = []
    for n, state in enumerate(spots):
        row: dict = {"spot": format_match_state(state, state.current_player)}
        reference = None
        exact: dict | None = None
        if not args.no_exact:
            exact = setup(resolver, state, None)
            sub = exact["sub"]
            row["holdings"] = [len(h.rows) for h in sub.prep.hands]
            row["nodes"] = len(sub.tree.nodes)
            row["exact"] = {"build_s": round(exact["build_s"], 3), "alternatives_s": round(exact["alternatives_s"], 3)}
        if exact is not None and n < args.exact_spots:
            t0 = cpu()
            for _ in range(3):
                sub.cfr.step()
            row["exact"]["iteration_s"] = round((cpu() - t0) / 3, 4)
            row["exact"]["profile"] = profile_iterations(sub, 2)
            # the stopping rule from scratch (the five iterations above are part of it)
            result, secs = solve(exact, args.exact_cap - 5)
            gadget = exact["gadget"]
            row["exact"].update({"iterations": result.iterations, "reached": gadget.reached,
                                 "solve_s": round(secs + 5 * row["exact"]["iteration_s"], 2),
                                 "excess_margin": [[t, round(e, 4), round(m, 3)] for t, e, m in gadget.history]})
            reference = turn_rows(resolver, result, state, exact["spot"].before)
            # the exact solve's own turn rows, the blueprint's on the river (the measure the class solves get too)
            margin_b, excess_b = exact_margin(exact, result, river_blueprint=True)
            row["exact"].update({"margin_exact_bp_river_pct": round(margin_b, 3),
                                 "excess_exact_bp_river_pct": round(excess_b, 4)})
            exact = setup(resolver, state, None)  # fresh regrets: the class solves are measured against it
        for k, cap in [(k, c) for k in classes for c in caps]:
            t0 = cpu()
            info = setup(resolver, state, k)
            result, _ = solve(info, cap)
            secs = cpu() - t0
            stop = info["gadget"].check(info["sub"].cfr.average_levels())
            entry = {"classes": k, "cap": cap, "solve_s": round(secs, 3),
                     "gadget_at_stop": [round(stop[0], 4), round(stop[1], 3)],
                     "setup_s": round(info["build_s"] + info["alternatives_s"], 3), "iterations": result.iterations,
                     "excess_margin": [[t, round(e, 4), round(m, 3)] for t, e, m in info["gadget"].history[-2:]],
                     "holdings": [len(h.rows) for h in info["sub"].prep.hands], "nodes": len(info["sub"].tree.nodes)}
            if exact is not None:
                margin, excess = exact_margin(exact, result)
                margin_b, excess_b = exact_margin(exact, result, river_blueprint=True)
                entry.update({"margin_exact_pct": round(margin, 3), "excess_exact_pct": round(excess, 4),
                              "margin_exact_bp_river_pct": round(margin_b, 3),
                              "excess_exact_bp_river_pct": round(excess_b, 4)})
            if reference is not None and exact is not None:
                weight = exact["ranges"][exact["spot"].player]
                rows = turn_rows(resolver, result, state, info["spot"].before)
                entry["l1_to_exact"] = round(float(weight @ np.abs(rows - reference).sum(axis=1)) / float(weight.sum()), 4)
            row.setdefault("by_classes", []).append(entry)
        out_spots.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    summary = {}
    for k, cap in [(k, c) for k in classes for c in caps]:
        entries = [e for r in out_spots for e in r["by_classes"] if e["classes"] == k and e["cap"] == cap]
        summary[f"{k} classes, cap {cap}"] = figures = {
            "solve_s_median": round(float(np.median([e["solve_s"] for e in entries])), 3),
            "solve_s_max": round(max(e["solve_s"] for e in entries), 3),
            "iterations_mean": round(float(np.mean([e["iterations"] for e in entries])), 1),
            "gadget_excess_pct_at_stop_max": round(max(e["gadget_at_stop"][0] for e in entries), 4),
            "gadget_margin_pct_at_stop_mean": round(float(np.mean([e["gadget_at_stop"][1] for e in entries])), 3),
            "l1_to_exact": [e["l1_to_exact"] for e in entries if "l1_to_exact" in e]}
        for name in ("margin_exact_pct", "margin_exact_bp_river_pct"):
            if entries and name in entries[0]:
                figures[name + "_mean"] = round(float(np.mean([e[name] for e in entries])), 3)
                figures[name + "_min"] = round(min(e[name] for e in entries), 3)
        for name in ("excess_exact_pct", "excess_exact_bp_river_pct"):
            if entries and name in entries[0]:
                figures[name + "_max"] = round(max(e[name] for e in entries), 4)
    player = None
    if args.player:
        # the peer, in the same minutes: today's river re-solve (the spec's resolver from the river) on the river
        # spots of resolving_convergence, turn and river decisions alternated
        live = spec.resolver(game, table, 200, 1e9, TURN)
        peer = spec.resolver(game, table, 200, 1e9, game.num_rounds - 1)
        rivers = blueprint_spots(game, len(spots), args.seed)
        times: dict[str, list[float]] = {"turn": [], "river": []}
        for turn, river in zip(spots, rivers):
            for name, who, state in (("turn", live, turn), ("river", peer, river)):
                t0 = cpu()
                who.rows(state)
                times[name].append(cpu() - t0)
        player = {f"{name}_decision_s": {"median": round(float(np.median(t)), 3),
                                         "p90": round(float(np.quantile(t, 0.9)), 3), "max": round(max(t), 3)}
                  for name, t in times.items()}
        player.update({"turn_iterations": live.iterations, "river_iterations": peer.iterations,
                       "turn_cut_short": live.cut_short})
    print(json.dumps({
        "benchmark": "resolving_turn", "game": args.game, "started": started, "spots": len(out_spots),
        "caps": caps, "seed": args.seed, "by_classes": summary, "player": player, "per_spot": out_spots,
        "load": [round(x, 2) for x in load0 + os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
