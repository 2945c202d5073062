"""How a river re-solve converges with its iterations, on real spots of blueprint play; prints one JSON object.

    .venv/bin/python benchmarks/resolving_convergence.py [--game hulhe|hunl] [--spots 20] [--reference 1000]
        [--every 10] [--seed 0]

Deals hands between the shipped blueprint (``blueprint:resolve=0``, whose
play gives the histories) and, alternately, ``call`` and the blueprint
itself, and keeps the first river decision of the blueprint's seat in each
hand that has one, up to ``--spots``.  Each spot is re-solved as the
player does (``Resolver``: the blueprint's ranges and rows, the Resolve
gadget) for ``--reference`` iterations, and every ``--every`` iterations
the average strategy is measured: the gadget's excess (the opponent's
gadget best response over the blueprint's value, % of the root pot: what
Resolve drives to 0), the safety margin as the ``Resolver`` reports it
(the opponent's best response against the blueprint less against the
re-solve, its blueprint reach weighing its holdings, % of the pot), the
excess so weighed, the subgame's own exploitability (% of the pot, the
figure ``SubgameResult`` reports) and the L1 distance of the decision's
rows to the reference's and to the 200-iteration ones (its blueprint reach
weighing the holdings; at most 2).  ``by_iteration`` gives each figure's
mean (and the worst spot's) at 10/20/40/80/200 and the reference;
``by_rule`` what stopping rules give (the first check whose excess is at
most the target and whose margin, every holding at its gadget weight,
moved at most ``settle`` since the check before; the cap 200, today's
fixed count): iterations run (mean, max), the excess where it stopped, the
margin beside the 200-iteration one, and the rows' distances.
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
from acpcbot.solve.blueprint_registry import spec_for  # noqa: E402
from acpcbot.solve.resolving import gadget as gd  # noqa: E402
from acpcbot.solve.resolving.clock import SETTLE, TARGET  # noqa: E402
from acpcbot.solve.subgame import Subgame, SubgameResult  # noqa: E402
from acpcbot.solve.subgame.best_response import evaluate  # noqa: E402
from acpcbot.solve.subgame.passes import by_node  # noqa: E402
from acpcbot.strategies import builtin  # noqa: E402,F401  (registers the strategies)
from acpcbot.strategies.blueprint import load_blueprint  # noqa: E402
from acpcbot.strategies.registry import create  # noqa: E402
from acpcbot.world import View  # noqa: E402

SHOWN = (10, 20, 40, 80, 200)
#: (target, settle) stopping rules, % of the root pot (settle None: the excess alone); the default is clock's
RULES = ((0.1, None), (0.01, None), (0.001, None), (0.1, 0.1), (0.03, 0.05), (TARGET, SETTLE), (0.01, 0.02))
CAP = 200


def blueprint_spots(game, count: int, seed: int, street: int | None = None) -> list[State]:
    """The first decision of the blueprint's seat on ``street`` (default: the river) in each dealt hand that has one
    (against call and against itself, seats alternating): the spots of this benchmark and of resolving_turn.py."""
    street = game.num_rounds - 1 if street is None else street
    me_spec = "blueprint:resolve=0"
    player = create(me_spec, game, seed)
    opponents = [create("call", game, seed + 1), create(me_spec, game, seed + 2)]
    rng = random.Random(seed)
    cards = list(deck())
    out: list[State] = []
    hand = 0
    while len(out) < count:
        dealt = rng.sample(cards, 4 + game.total_board_cards)
        state = State(game, hand, [dealt[0:2], dealt[2:4]], dealt[4:])
        me, opponent = hand % 2, opponents[(hand // 2) % 2]
        hand += 1
        while not state.finished:
            p = state.current_player
            view = View.parse(format_match_state(state, p), game)
            if p == me and state.round == street:
                out.append(view.state)
                break
            state.apply((player if p == me else opponent).act(view, 0.0))
    return out


def measure(resolver, state: State, reference: int, every: int) -> dict:
    """One spot's figures at every check (rows of the decision kept for the distances)."""
    spot = resolver.spot(state)
    ranges = resolver.ranges(state, spot)
    player, opp = spot.player, 1 - spot.player
    game = resolver.game
    t0 = time.perf_counter()
    sub = Subgame(game, spot.root, spot.board, gd.gadget_ranges(game, ranges, opp, spot.board), spot.sizes)
    alternative = gd.alternative_values(sub, gd.load_strategy(sub, spot.root, resolver.node_rows), opp)
    gadget = gd.ResolveGadget(sub, opp, alternative)
    setup = time.perf_counter() - t0
    prep = sub.prep
    reach = ranges[opp][prep.hands[opp].rows]
    weight = ranges[player]
    checks = []
    step_s = 0.0
    while sub.cfr.iteration < reference:
        t1 = time.perf_counter()
        sub.cfr.step()
        step_s += time.perf_counter() - t1
        t = sub.cfr.iteration
        if t % every and t != reference:
            continue
        levels = sub.cfr.average_levels()
        br = gadget.best_response(levels)
        diff = alternative - br
        ev = evaluate(sub.workspace, levels, with_values=False)
        result = SubgameResult(sub, by_node(sub.workspace, levels), t, 0.0, ev)
        rows = resolver._read(result, state, spot.before)
        checks.append({"t": t, "excess": gadget.excess(br) * 100 / sub.root_pot,
                       "margin": float(reach @ diff) / prep.normaliser * 100 / sub.root_pot,
                       "margin_w": float(gadget.weights @ diff) / prep.normaliser * 100 / sub.root_pot,
                       "excess_reach": float(reach @ np.maximum(-diff, 0)) / prep.normaliser * 100 / sub.root_pot,
                       "subgame_pct": 100 * ev.exploitability / sub.root_pot, "rows": rows})
    return {"checks": checks, "weight": weight, "setup_s": setup, "step_s": step_s / reference,
            "nodes": len(sub.tree.nodes), "holdings": [len(h.rows) for h in prep.hands], "pot": sub.root_pot}


def distance(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """Reach-weighted mean L1 distance between two (holdings, actions) row tables."""
    return float(w @ np.abs(a - b).sum(axis=1)) / float(w.sum())


def main() -> None:
    """Collect the spots, measure them, print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("hulhe", "hunl"), default="hulhe")
    ap.add_argument("--spots", type=int, default=20)
    ap.add_argument("--reference", type=int, default=1000)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dump", default="", help="a file for every check's figures, spot by spot (JSON)")
    args = ap.parse_args()
    load0 = os.getloadavg()
    game = load_game(args.game)
    spec = spec_for(game)
    assert spec is not None and spec.resolver is not None
    resolver = spec.resolver(game, load_blueprint(game), args.reference, 1e9, game.num_rounds - 1)
    spots = blueprint_spots(game, args.spots, args.seed)
    runs = [measure(resolver, s, args.reference, args.every) for s in spots]
    if args.dump:
        with open(args.dump, "w") as f:
            json.dump([{"pot": r["pot"], "checks": [
                {**{k: v for k, v in c.items() if k != "rows"},
                 "l1_ref": distance(c["rows"], r["checks"][-1]["rows"], r["weight"]),
                 "l1_200": distance(c["rows"], next(d["rows"] for d in r["checks"] if d["t"] == 200), r["weight"])}
                for c in r["checks"]]} for r in runs], f)
    by_t = {}
    for t in sorted(set(SHOWN) | {args.reference}):
        rows = []
        for run in runs:
            at = {c["t"]: c for c in run["checks"]}
            if t not in at:
                continue
            c, ref = at[t], run["checks"][-1]
            rows.append((c["excess"], c["margin"], c["excess_reach"], c["subgame_pct"],
                         distance(c["rows"], ref["rows"], run["weight"]),
                         distance(c["rows"], at[200]["rows"], run["weight"]) if 200 in at else float("nan")))
        a = np.array(rows)
        by_t[t] = {"excess_pct": [round(float(a[:, 0].mean()), 4), round(float(a[:, 0].max()), 4)],
                   "margin_pct": [round(float(a[:, 1].mean()), 3), round(float(a[:, 1].min()), 3)],
                   "excess_reach_pct": [round(float(a[:, 2].mean()), 4), round(float(a[:, 2].max()), 4)],
                   "subgame_pct": round(float(a[:, 3].mean()), 2),
                   "l1_to_reference": [round(float(a[:, 4].mean()), 4), round(float(a[:, 4].max()), 4)],
                   "l1_to_200": [round(float(a[:, 5].mean()), 4), round(float(a[:, 5].max()), 4)]}
    by_rule = {}
    for target, settle in RULES:
        its, l1s, l1_200, margins, margins_200, excess = [], [], [], [], [], []
        for run in runs:
            at = {c["t"]: c for c in run["checks"]}
            stop = at[CAP]  # the cap: today's fixed count
            for c in run["checks"]:
                prev = at.get(c["t"] - args.every)
                if c["t"] < CAP and c["excess"] <= target and (
                        settle is None or (prev is not None and abs(c["margin_w"] - prev["margin_w"]) <= settle)):
                    stop = c
                    break
            its.append(stop["t"])
            l1s.append(distance(stop["rows"], run["checks"][-1]["rows"], run["weight"]))
            l1_200.append(distance(stop["rows"], at[CAP]["rows"], run["weight"]))
            margins.append(stop["margin"])
            margins_200.append(at[CAP]["margin"])
            excess.append(stop["excess"])
        by_rule[f"target {target}, settle {settle}"] = {
            "iterations": [round(float(np.mean(its)), 1), int(max(its))],
            "excess_pct_max": round(float(np.max(excess)), 4),
            "margin_pct": round(float(np.mean(margins)), 3), "margin_pct_200": round(float(np.mean(margins_200)), 3),
            "margin_lost_max_pct": round(float(np.max(np.array(margins_200) - margins)), 3),
            "l1_to_reference": round(float(np.mean(l1s)), 4),
            "l1_to_200": [round(float(np.mean(l1_200)), 4), round(float(np.max(l1_200)), 4)]}
    print(json.dumps({
        "benchmark": "resolving_convergence", "game": args.game, "spots": len(runs), "reference": args.reference,
        "every": args.every, "seed": args.seed,
        "spot_sizes": {"nodes": [min(r["nodes"] for r in runs), max(r["nodes"] for r in runs)],
                       "holdings": [min(min(r["holdings"]) for r in runs), max(max(r["holdings"]) for r in runs)]},
        "ms_per_iteration": round(1000 * float(np.median([r["step_s"] for r in runs])), 2),
        "setup_ms": round(1000 * float(np.median([r["setup_s"] for r in runs])), 1),
        "by_iteration": {str(k): v for k, v in by_t.items()}, "by_rule": by_rule,
        "per_spot_excess": [[round(c["excess"], 3) for c in r["checks"] if c["t"] in SHOWN] for r in runs],
        "load": [round(x, 2) for x in load0 + os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
