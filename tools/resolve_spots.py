"""River re-solves on sampled spots against the blueprint they replace, per committed share of the opponent.

    .venv/bin/python tools/resolve_spots.py [--game hulhe|hunl] [--spots N] [--seed S] [--commit 0,0.1]
                                            [--iterations 200] [--json]

Deals hands and plays both seats from the shipped blueprint table (sampled,
the real cards) to the river's first decision; there it re-solves the
river for the player to act as the game's ``blueprint`` does (its
``Resolver``'s root, ranges, blueprint rows and, in no-limit, bet sizes;
``gadget.resolve`` with the player's stopping rule), once per committed share (``--commit``; 0 is
the Resolve gadget alone).  Every figure of a spot is exact over the
cards, both players' ranges the blueprint's reach along the real history:

- ``h2h``: the re-solving player's value with its re-solved river against
  the blueprint's own river play, less the blueprint's against itself
  (chips a spot; what a duplicate match against the shipped table sees);
- ``br_resolved`` and ``br_blueprint``: the opponent's best-response value
  (its real range) against the re-solve and against the blueprint;
- ``excess_pct``: the gadget's excess, sum_h w(h) max(0, BR(h) - alternative(h)),
  w the opponent's real range, in % of the pot (0: safe on every holding).

Means and 95% intervals over the spots, the difference of each share from
the first one per spot (paired: the spots are the same), and ``mbb_per_hand``:
the head-to-head times the share of dealt hands that reach a river decision,
in thousandths of a big blind.  One JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from acpcbot.engine import State
from acpcbot.gamedef import GameDef, load_game
from acpcbot.holdings import blocked
from acpcbot.solve.blueprint_registry import spec_for
from acpcbot.solve.resolving.clock import SETTLE, TARGET
from acpcbot.solve.resolving.gadget import by_level, load_strategy, resolve
from acpcbot.solve.resolving.player import Resolver
from acpcbot.solve.subgame import BetSizes, Subgame
from acpcbot.solve.subgame.best_response import Evaluation, evaluate
from acpcbot.strategies.blueprint import load_blueprint

Z95 = 1.959963984540054
#: the opponent's real range gets this floor (relative to its largest weight) so its live holdings are the
#: gadget's and the strategies' arrays line up; 1e-12 of the largest weight changes no figure printed
TINY = 1e-12


def river_spot(game: GameDef, table: Any, rng: np.random.Generator) -> State | None:
    """One hand played by the table from a random deal to the river's first decision (None: it ended before)."""
    deck = rng.permutation(game.num_suits * game.num_ranks)
    hole = [tuple(int(c) for c in deck[0:2]), tuple(int(c) for c in deck[2:4])]
    board = [int(c) for c in deck[4:9]]
    state = State(game, 0, hole=hole)
    last = game.num_rounds - 1
    while not state.finished:
        need = game.board_cards_through(state.round)
        if len(state.board) < need:
            state.deal_board(board[len(state.board):need])
        if state.round == last:
            return state
        row = table.probabilities(state, hole[state.current_player])
        state.apply(table.actions(state)[int(rng.choice(len(row), p=row / row.sum()))])
    return None


def real_subgame(game: GameDef, root: State, board: tuple[int, ...], ranges: Sequence[np.ndarray],
                 player: int, sizes: BetSizes | None = None) -> Subgame:
    """The spot's subgame with both real ranges, the opponent's floored at ``TINY`` (the gadget's live holdings)."""
    opp = 1 - player
    real = [np.asarray(r, dtype=np.float64).copy() for r in ranges]
    allowed = ~blocked(game, board)
    real[opp][allowed] = np.maximum(real[opp][allowed], TINY * real[opp].max())
    return Subgame(game, root, board, real, sizes)


@dataclass(frozen=True)
class Baseline:
    """What every setting at one spot is measured against: the real-range subgame, the blueprint's strategy in it
    (the solver's per-node arrays) and its evaluation."""

    subgame: Subgame
    blueprint: list[np.ndarray | None]
    evaluation: Evaluation


def baseline(game: GameDef, root: State, board: tuple[int, ...], ranges: Sequence[np.ndarray], player: int,
             rows: Any, sizes: BetSizes | None = None) -> Baseline:
    """The spot's ``Baseline``: built once a spot, shared by the settings measured there."""
    sub = real_subgame(game, root, board, ranges, player, sizes)
    blueprint = load_strategy(sub, root, rows)
    return Baseline(sub, blueprint, evaluate(sub.workspace, by_level(sub.workspace, blueprint)))


def measure(base: Baseline, player: int, strategy: Sequence[np.ndarray | None]) -> dict[str, float]:
    """The spot's figures (chips) for a re-solved ``strategy`` of ``player`` (the solver's per-node arrays)."""
    opp = 1 - player
    sub, e_blueprint = base.subgame, base.evaluation
    ws = sub.workspace
    mixed = [b if b is None or sub.tree.nodes[i].player != player else s
             for i, (b, s) in enumerate(zip(base.blueprint, strategy))]
    e_mixed = evaluate(ws, by_level(ws, mixed))
    assert e_blueprint.value is not None and e_mixed.value is not None  # with_values
    gain = np.asarray(e_mixed.best_cfv[opp], np.float64) - np.asarray(e_blueprint.best_cfv[opp], np.float64)
    weights = sub.prep.hands[opp].weights
    return {"h2h": e_mixed.value[player] - e_blueprint.value[player],
            "br_resolved": e_mixed.best[opp], "br_blueprint": e_blueprint.best[opp],
            "excess_pct": 100.0 * float(weights @ np.maximum(gain, 0.0)) / sub.prep.normaliser / sub.root_pot,
            "pot": sub.root_pot}


def summary(values: Sequence[float]) -> dict[str, float]:
    """Mean and 95% interval (normal) of ``values``."""
    arr = np.asarray(values, dtype=np.float64)
    ci = Z95 * float(arr.std(ddof=1)) / math.sqrt(len(arr)) if len(arr) > 1 else float("nan")
    return {"mean": round(float(arr.mean()), 4), "ci95": round(ci, 4)}


def resolver_for(game: GameDef, table: Any, iterations: int) -> Resolver:
    """The game's blueprint player's river resolver (its spec's), without a clock."""
    spec = spec_for(game)
    if spec is None or spec.resolver is None:
        raise SystemExit(f"resolve_spots: {game.name or 'this game'} has no re-solving blueprint")
    return spec.resolver(game, table, iterations, 1e9, game.num_rounds - 1)


def run(spots: int, seed: int, commits: Sequence[float], iterations: int, progress: bool = False,
        game_name: str = "hulhe") -> dict[str, Any]:
    """The figures of ``spots`` river spots, one re-solve per committed share."""
    game = load_game(game_name)
    table = load_blueprint(game)
    resolver = resolver_for(game, table, iterations)
    rows = resolver.node_rows
    rng = np.random.default_rng(seed)
    per: dict[float, list[dict[str, float]]] = {c: [] for c in commits}
    dealt = 0
    start = time.perf_counter()
    while len(per[commits[0]]) < spots:
        dealt += 1
        state = river_spot(game, table, rng)
        if state is None:
            continue
        spot = resolver.spot(state)
        ranges = resolver.ranges(state, spot)
        player = spot.player
        if ranges[0].sum() <= 0 or ranges[1].sum() <= 0:
            continue  # a history the blueprint never plays (the player plays its table there too)
        base = baseline(game, spot.root, spot.board, ranges, player, rows, spot.sizes)
        for c in commits:
            t0 = time.process_time()
            result, _ = resolve(game, spot.root, spot.board, ranges, player, rows, spot.sizes, iterations=iterations,
                                target=TARGET, settle=SETTLE, commit=c)
            seconds = time.process_time() - t0
            figures = measure(base, player, result.strategy)
            per[c].append(figures | {"iterations": float(result.iterations), "cpu_seconds": seconds})
        if progress:
            print(f"spot {len(per[commits[0]])}/{spots}", file=sys.stderr, flush=True)
    river_share = spots / dealt
    out: dict[str, Any] = {"game": game_name, "spots": spots, "hands_dealt": dealt, "seed": seed,
                           "iterations_cap": iterations, "target_pct": TARGET, "settle_pct": SETTLE,
                           "seconds": round(time.perf_counter() - start, 1), "shares": {}}
    first = per[commits[0]]
    for c in commits:
        spots_c = per[c]
        cell = {key: summary([s[key] for s in spots_c]) for key in
                ("h2h", "br_resolved", "br_blueprint", "excess_pct", "iterations", "cpu_seconds")}
        h2h = cell["h2h"]
        cell["mbb_per_hand"] = {k: round(v * river_share * 1000.0 / game.big_blind, 1) for k, v in h2h.items()}
        cell["h2h_minus_first"] = summary([s["h2h"] - f["h2h"] for s, f in zip(spots_c, first)])
        out["shares"][str(c)] = cell
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: sample, re-solve, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="hulhe", choices=("hulhe", "hunl"), help="the game (default hulhe)")
    ap.add_argument("--spots", type=int, default=100, help="river spots to sample (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="the deals' seed (default 1)")
    ap.add_argument("--commit", default="0,0.1", help="committed shares, comma-separated (default 0,0.1)")
    ap.add_argument("--iterations", type=int, default=200, help="each re-solve's iteration cap (default 200)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        commits = [float(x) for x in args.commit.split(",")]
    except ValueError:
        ap.error(f"--commit: shares are numbers in [0, 1] separated by commas, got {args.commit!r}")
    if any(not 0 <= c <= 1 for c in commits):
        ap.error(f"--commit: every share is in [0, 1], got {args.commit!r}")
    if args.spots < 2:
        ap.error(f"--spots: at least 2 for an interval, got {args.spots}")
    if args.iterations < 1:
        ap.error(f"--iterations: at least 1, got {args.iterations}")
    out = run(args.spots, args.seed, commits, args.iterations, progress=sys.stderr.isatty(), game_name=args.game)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for share, cell in out["shares"].items():
            print(f"commit {share}: h2h {cell['h2h']['mean']:+.3f} +- {cell['h2h']['ci95']:.3f} chips a spot "
                  f"({cell['mbb_per_hand']['mean']:+.1f} mbb/hand), opponent's BR {cell['br_resolved']['mean']:.3f} "
                  f"(blueprint {cell['br_blueprint']['mean']:.3f}), excess {cell['excess_pct']['mean']:.4f}% of the pot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
