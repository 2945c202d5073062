"""``python -m acpcbot.solve GAME [--iterations N | --target-mbb X] --out POLICY.json``: solve a small game.

A game with a blueprint (``blueprint_registry``: hulhe, hunl) goes to its
spec's build command instead.

Prints progress (iteration, exploitability, elapsed seconds) and writes the
average strategy as a JSON policy.  ``--evaluate POLICY.json`` instead
reports the exploitability of an existing policy file.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..atomic import check_writable
from ..gamedef import GameDefError, load_game
from .best_response import Exploitability, exploitability
from .blueprint_registry import spec_for
from .blueprint_spec import BlueprintSpec
from .cfr import ALGORITHMS, Solver
from .policy import PolicyError, policy_from_strategy, read_policy, strategy_from_policy, write_policy
from .tree import GameTooBig, build_tree

DEFAULT_ITERATIONS = 1000


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    ap = argparse.ArgumentParser(
        prog="python -m acpcbot.solve",
        description="Solve a small limit game (kuhn2p, kuhn3p, leduc, or a .game file) with CFR+ or DCFR "
                    "and write the average strategy as a JSON policy.")
    ap.add_argument("game", help="game short name, .game file path or official file name")
    stop = ap.add_mutually_exclusive_group()
    stop.add_argument("--iterations", type=_positive_int,
                      help=f"run exactly this many iterations (default {DEFAULT_ITERATIONS})")
    stop.add_argument("--target-mbb", type=_positive_float,
                      help="run until the exploitability is at most this many mbb/hand")
    ap.add_argument("--max-iterations", type=_positive_int, default=1_000_000,
                    help="give up on --target-mbb after this many iterations (default 1000000)")
    ap.add_argument("--algorithm", choices=ALGORITHMS, default="cfr+", help="regret minimiser (default cfr+)")
    ap.add_argument("--check-every", type=_positive_int, default=100,
                    help="measure and print the exploitability every this many iterations (default 100)")
    ap.add_argument("--out", help="policy file to write")
    ap.add_argument("--evaluate", metavar="POLICY", help="report the exploitability of this policy file and exit")
    return ap


def _describe(report: Exploitability) -> str:
    text = f"exploitability {report.mbb:.4f} mbb/hand ({report.chips:.6g} chips)"
    if len(report.values) > 2:
        text += "  gains " + " ".join(f"{g:.6g}" for g in report.gains)
    return text


def _blueprint_spec(argv: list[str]) -> BlueprintSpec | None:
    """The blueprint to hand the command to: the registry's spec of the game, unless a JSON policy file is named.

    A JSON policy (``--out``/``--evaluate`` FILE.json) asks for the exact
    solver, which refuses hold'em with its estimated tree size.
    """
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
        if arg.split("=", 1)[0] in ("--out", "--evaluate") and value.endswith(".json"):
            return None
    names = [a for a in argv if not a.startswith("-")]
    if not names:
        return None
    try:
        game = load_game(names[0])
    except (GameDefError, OSError):
        return None
    return spec_for(game)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    spec = _blueprint_spec(argv)
    if spec is not None:
        return spec.train(argv)
    ap = parser()
    args = ap.parse_args(argv)
    if args.evaluate is None and args.out is None:
        ap.error("--out POLICY.json is required (or --evaluate POLICY.json)")
    if args.evaluate is None:
        try:  # before any work: a bad --out found after training would lose it
            check_writable(args.out)
        except OSError as exc:
            print(f"acpcbot.solve: cannot write --out {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    try:
        game = load_game(args.game)
        tree = build_tree(game)
    except (GameDefError, GameTooBig) as exc:
        print(f"acpcbot.solve: {exc}", file=sys.stderr)
        return 2
    if args.evaluate is not None:
        try:
            sigma = strategy_from_policy(tree, read_policy(args.evaluate, game))
        except PolicyError as exc:
            print(f"acpcbot.solve: {exc}", file=sys.stderr)
            return 2
        evaluation = exploitability(tree, sigma)
        print(f"{args.evaluate}: {_describe(evaluation)}  values " + " ".join(f"{v:.6g}" for v in evaluation.values))
        return 0

    print(f"{game.name}: {tree.num_infosets} information sets, {tree.num_nodes} public nodes, "
          f"{args.algorithm}", flush=True)
    solver = Solver(tree, args.algorithm)
    limit = args.iterations if args.target_mbb is None else args.max_iterations
    if args.iterations is None and args.target_mbb is None:
        limit = DEFAULT_ITERATIONS
    start = time.perf_counter()
    report: Exploitability | None = None
    reached = args.target_mbb is None
    while solver.iteration < limit:
        solver.run(min(args.check_every, limit - solver.iteration))
        report = exploitability(tree, solver.average())
        print(f"iteration {solver.iteration}  {_describe(report)}  elapsed {time.perf_counter() - start:.2f} s",
              flush=True)
        if args.target_mbb is not None and report.mbb <= args.target_mbb:
            reached = True
            break
    policy = policy_from_strategy(tree, solver.average())
    try:
        write_policy(args.out, policy)
    except OSError as exc:
        print(f"acpcbot.solve: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    assert report is not None
    print(f"wrote {len(policy)} information sets to {args.out}; position 0 value {report.values[0]:.6f} chips; "
          f"{_describe(report)}")
    if not reached:
        print(f"acpcbot.solve: target {args.target_mbb} mbb/hand not reached after {solver.iteration} iterations",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
