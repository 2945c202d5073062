"""``acpc-match``: self-matches and tournaments through the bundled dealer, with honest statistics.

``play`` seats strategies (and external programs) at one table, ``tournament``
plays every table of a round robin, ``run`` does either from a TOML recipe
and ``merge`` combines runs made anywhere.  Every run writes a folder under
``matches/runs/`` holding the dealer logs and transcripts, each seat's
output, ``results.json`` and ``report.svg``; the figures are computed from
the dealer logs alone (``dealer.arena.stats``), so a merged run gives exactly
the figures of one run of the same matches.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from acpcbot.gamedef import GameDefError, load_game

from .folders import RUNS_DIR, RunError
from .recipes import (EXTERNAL_PREFIX, TRANSPORTS, Plan, RecipeError, build_plan, check_strategy, load_recipe,
                      make_entries, parse_player, safe_name)
from .results import format_results
from .runner import execute, job_command, merge_runs
from .stats import StatsError


def _name_and_value(text: str) -> tuple[str | None, str]:
    """Split ``NAME=VALUE`` when the part before the first ``=`` is a safe player name; a spec's ``=`` follows a ``:``."""
    head, eq, rest = text.partition("=")
    if eq and head and ":" not in head and safe_name(head) == head and rest.strip():
        return head, rest.strip()
    return None, text.strip()


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True,
                   help="game: hunl hulhe 3pl 3pnl 6pnl kuhn2p kuhn3p leduc leducnl, or a .game file")
    p.add_argument("--hands", type=int, default=1000, help="hands per match (default: 1000)")
    p.add_argument("--seed", type=int, default=0, help="deal seed of the first table; table i plays seed+i (default: 0)")
    p.add_argument("--duplicate", action="store_true",
                   help="replay each table's seed with the seats swapped (rotated for 3+ players) and pair the deals")
    p.add_argument("--transport", choices=TRANSPORTS, default="tcp",
                   help="tcp: dealer and one client process per seat over sockets; memory: the same match loop "
                        "in one process, no sockets (default: tcp)")
    p.add_argument("--external", action="append", default=[], metavar="[NAME=]CMD",
                   help="seat a program that takes host and port as its last two arguments (repeatable; "
                        "externals take the seats after the strategies)")
    p.add_argument("--name", help="run name (folder matches/runs/NAME-TIMESTAMP)")
    p.add_argument("--jobs", type=int, help="matches played at once (default: one per core)")


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--runs-dir", default=str(RUNS_DIR), help=f"where run folders go (default: {RUNS_DIR})")


def build_parser() -> argparse.ArgumentParser:
    """The ``acpc-match`` command line."""
    parser = argparse.ArgumentParser(
        prog="acpc-match", description="Self-matches and tournaments through the bundled dealer, with honest "
        "statistics (mbb/hand, 95% intervals, duplicate pairing).", epilog="Exit status: 0 every match finished, "
        "1 a match did not finish (its hands so far are counted), 2 bad input.")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="one table: the given strategies in the given seats")
    _common(play)
    _output_options(play)
    play.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="players in seat order: strategy specs (raise:size=pot), or external:CMD for a "
                           "program; NAME= sets the player's log name")
    tour = sub.add_parser("tournament", help="every table of a round robin, in parallel, with a crosstable")
    _common(tour)
    _output_options(tour)
    tour.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="the entrants (as for play); every set of as many as the game seats plays a table")
    tour.add_argument("--print-jobs", action="store_true",
                      help="print one 'acpc-match play' command per match instead of playing (to split a run "
                           "over machines; merge the run folders afterwards)")
    run = sub.add_parser("run", help="play a TOML recipe (see matches/*.toml)")
    run.add_argument("recipe", help="the recipe file")
    run.add_argument("--print-jobs", action="store_true", help="print one command per match instead of playing")
    _output_options(run)
    merge = sub.add_parser("merge", help="combine run folders into one (split tournaments, duplicate halves)")
    merge.add_argument("runs", nargs="+", metavar="RUN_DIR")
    merge.add_argument("--name", default="merge", help="name of the merged run (default: merge)")
    _output_options(merge)
    return parser


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The plan a ``play`` or ``tournament`` command line asks for; RecipeError naming the argument."""
    raw: list[tuple[str | None, str | None, str | None]] = []
    for text in args.strategies:
        raw.append(parse_player(*_name_and_value(text), where=f"player {text!r}"))
    for text in args.external:
        name, cmd = _name_and_value(text)
        raw.append(parse_player(name, EXTERNAL_PREFIX + cmd, where="--external"))
    if not raw:
        raise RecipeError("no players: give strategy specs (and/or --external commands)")
    entries = make_entries(raw)
    try:
        game = load_game(args.game)
    except GameDefError as exc:
        raise RecipeError(f"--game: {exc}") from None
    for i, e in enumerate(entries):
        if e.strategy is not None:
            check_strategy(e.strategy, game, f"strategy {i + 1} ({e.strategy})")
    mode = args.command
    if mode == "play" and len(entries) != game.num_players:
        raise RecipeError(f"{game.name} seats {game.num_players} players; got {len(entries)}")
    name = args.name or ("-vs-".join(e.name for e in entries) if mode == "play" and len(entries) <= 3
                         else f"{mode}-{Path(args.game).stem}")
    if safe_name(name) != name:
        name = safe_name(name)
    try:
        return build_plan(name=name, game=args.game, hands=args.hands, seed=args.seed, duplicate=args.duplicate,
                          mode=mode, entries=entries, transport=args.transport, parallel=args.jobs)
    except RecipeError as exc:
        raise RecipeError(f"--{exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 done, 1 a match failed, 2 bad input)."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "merge":
            doc = merge_runs(args.runs, args.runs_dir, safe_name(args.name))
        else:
            plan = load_recipe(args.recipe) if args.command == "run" else plan_from_args(args)
            if getattr(args, "print_jobs", False):
                for job in plan.jobs:
                    print(job_command(job, plan))
                return 0
            stream = sys.stderr if sys.stderr.isatty() else None
            doc = execute(plan, args.runs_dir, stream)
    except (RecipeError, RunError, StatsError) as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("acpc-match: interrupted; the logs written so far are kept in the run folder", file=sys.stderr)
        return 130
    try:
        print(json.dumps(doc) if args.json else format_results(doc), flush=True)
    except BrokenPipeError:
        sys.stdout = None  # type: ignore[assignment]  # the reader left (| head): nothing more to print
    return 0 if all(m["complete"] for m in doc["matches"]) else 1
