"""``acpc-match``: self-matches and tournaments through the bundled dealer, with honest statistics.

``play`` seats strategies (and external programs) at one table, ``tournament``
plays every table of a round robin, ``run`` does either from a TOML recipe,
``resume`` finishes an interrupted run, ``merge`` combines runs made
anywhere (``--print-jobs`` prints one command per match for batch systems)
and ``human`` seats you against a bot.  Every run writes a folder under
``matches/runs/`` holding the dealer logs and transcripts, each seat's
output, ``results.json`` and ``report.svg``; the figures are computed from
the dealer logs alone (``dealer.arena.stats``), so a merged run gives exactly
the figures of one run of the same matches.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

from acpcbot.gamedef import GameDefError, load_game
from acpcbot.version import VersionAction

from .batch import job_commands, jobs_folder, merge_hint
from .folders import RUNS_DIR, RunError, match_command
from .planfile import plugin_players, read_plan
from .recipes import (
    EXTERNAL_PREFIX,
    TRANSPORTS,
    Plan,
    RecipeError,
    build_plan,
    check_strategy,
    game_path,
    load_recipe,
    make_entries,
    parse_player,
    recipe_kind,
    resolve_entries,
    safe_name,
)
from .results_text import format_results
from .runner import RunInterrupted, execute, merge_runs, resume
from .stats import StatsError

#: the options of build_plan's messages, as the command line spells them
_OPTIONS = {"hands": "--hands", "seed": "--seed", "jobs": "--jobs", "transport": "--transport", "game": "--game"}


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
    p.add_argument("--name", help="run name (folder RUNS_DIR/NAME-TIMESTAMP)")
    p.add_argument("--jobs", type=int, help="matches played at once (default: one per core)")
    _print_jobs(p)


def _print_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--print-jobs", action="store_true",
                   help="print one self-contained shell command per match instead of playing (for GNU parallel, "
                        "Slurm arrays...; each writes RUNS_DIR/NAME-jobs/match-NNN; merge those folders afterwards)")


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-aivat", action="store_true", help="skip AIVAT and all-in expectation (the plain figures only)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--quiet", action="store_true", help="print nothing when every match finished")
    p.add_argument("--runs-dir", default=str(RUNS_DIR), help=f"where run folders go (default: {RUNS_DIR})")


def build_parser() -> argparse.ArgumentParser:
    """The ``acpc-match`` command line."""
    parser = argparse.ArgumentParser(
        prog="acpc-match", description="Self-matches and tournaments through the bundled dealer, with honest "
        "statistics (mbb/hand, 95% intervals, duplicate pairing).", epilog="Exit status: 0 every match finished, "
        "1 a match did not finish (its hands so far are counted), 2 bad input.")
    parser.add_argument("--version", action=VersionAction, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="one table: the given strategies in the given seats")
    _common(play)
    _output_options(play)
    play.add_argument("--run-dir", help="write into this folder (created, or empty) instead of a new one under "
                                        "--runs-dir; batch jobs use it")
    play.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="players in seat order: strategy specs (raise:size=pot), or external:CMD for a "
                           "program; NAME= sets the player's log name")
    tour = sub.add_parser("tournament", help="every table of a round robin, in parallel, with a crosstable")
    _common(tour)
    _output_options(tour)
    tour.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="the entrants (as for play); every set of as many as the game seats plays a table")
    run = sub.add_parser("run", help="play a TOML recipe (see matches/*.toml); paths in it are read against its "
                                     "folder")
    run.add_argument("recipe", help="the recipe file")
    run.add_argument("--hands", type=int, help="hands per match instead of the recipe's")
    run.add_argument("--seed", type=int, help="seed of the first table instead of the recipe's")
    run.add_argument("--jobs", type=int, help="matches played at once instead of the recipe's")
    _print_jobs(run)
    _output_options(run)
    res = sub.add_parser("resume", help="finish a run that was interrupted: keep its finished matches, play the rest")
    res.add_argument("run_dir", metavar="RUN_DIR")
    res.add_argument("--json", action="store_true", help="print the results as one JSON object")
    res.add_argument("--quiet", action="store_true", help="print nothing when every match finished")
    res.add_argument("--plugin-dir", action="append", default=[], metavar="DIR",
                     help="look for plugin strategies (module:Class) in DIR (repeatable); a run folder's own "
                          "plan.json is never trusted to name them")
    merge = sub.add_parser("merge", help="combine run folders into one (batch jobs, split tournaments, duplicate "
                                         "halves, partial runs)")
    merge.add_argument("runs", nargs="+", metavar="RUN_DIR")
    merge.add_argument("--name", default="merge", help="name of the merged run (default: merge)")
    _output_options(merge)
    from .humanplay import add_parser as add_human_parser
    add_human_parser(sub)
    from .lbr import add_parser as add_lbr_parser
    add_lbr_parser(sub)
    from .sitngo_cli import add_parsers as add_experiment_parsers
    add_experiment_parsers(sub)  # sitngo and tune
    return parser


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The plan a ``play`` or ``tournament`` command line asks for; RecipeError naming the argument.

    Paths (a .game file, strategy files, external programs) are read
    against the folder the command runs in.
    """
    base = Path.cwd()
    raw: list[tuple[str | None, str | None, str | None]] = []
    keys: list[str] = []
    for text in args.strategies:
        raw.append(parse_player(*_name_and_value(text), where=f"player {text!r}"))
        keys.append(f"strategy {len(keys) + 1} ({text})")
    for text in args.external:
        name, cmd = _name_and_value(text)
        raw.append(parse_player(name, EXTERNAL_PREFIX + cmd, where="--external"))
        keys.append(f"--external {text!r}")
    if not raw:
        raise RecipeError("no players: give strategy specs (and/or --external commands)")
    entries = make_entries(raw)
    game_arg = game_path(args.game, base)
    try:
        game = load_game(game_arg)
    except GameDefError as exc:
        raise RecipeError(f"--game: {exc}") from None
    mode = args.command
    if mode == "play" and len(entries) != game.num_players:
        raise RecipeError(f"{game.name} seats {game.num_players} players; got {len(entries)}")
    if not (args.transport == "memory" and any(e.external for e in entries)):
        entries = resolve_entries(entries, keys, base)  # first, so the strategies check files where they are
    for e, key in zip(entries, keys):
        if e.strategy is not None:
            check_strategy(e.strategy, game, key)
    name = args.name or ("-vs-".join(e.name for e in entries) if mode == "play" and len(entries) <= 3
                         else f"{mode}-{Path(args.game).stem}")
    if safe_name(name, "run") != name:
        name = safe_name(name, "run")
    try:
        return build_plan(name=name, game=game_arg, hands=args.hands, seed=args.seed, duplicate=args.duplicate,
                          mode=mode, entries=entries, transport=args.transport, parallel=args.jobs)
    except RecipeError as exc:
        key, _, rest = str(exc).partition(": ")
        if key in _OPTIONS:
            raise RecipeError(f"{_OPTIONS[key]}: {rest}") from None
        raise RecipeError(f"the players: {rest}") from None


def _print(doc: dict[str, Any], args: argparse.Namespace) -> None:
    """The results on stdout: JSON, the tables, or nothing with --quiet when every match finished."""
    if getattr(args, "quiet", False) and not getattr(args, "json", False) and not doc.get("partial") \
            and all(m["complete"] for m in doc["matches"]):
        return
    try:
        print(json.dumps(doc) if args.json else format_results(doc), flush=True)
    except BrokenPipeError:
        sys.stdout = None  # the reader left (| head): nothing more to print


def _resume_command(run_dir: str) -> str:
    """``acpc-match resume RUN_DIR``, quoted, with the ``--plugin-dir`` folders a run of plugins needs."""
    words = [match_command(), "resume", run_dir]
    try:
        plan, dirs = read_plan(Path(run_dir))
        if plugin_players(plan):
            for d in dirs:
                words += ["--plugin-dir", d]
    except RunError:
        pass
    return " ".join(shlex.quote(w) for w in words)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 done, 1 a match failed, 2 bad input, 130/143 interrupted)."""
    args = build_parser().parse_args(argv)
    if args.command == "human":
        from .humanplay import main as human_main
        return human_main(args)
    if args.command == "lbr":
        from .lbr import main as lbr_main
        return lbr_main(args)
    if hasattr(args, "experiment"):
        return args.experiment(args)
    if args.command == "run" and recipe_kind(args.recipe) == "sitngo":
        from .sitngo_cli import recipe_main
        return recipe_main(args.recipe, args.runs_dir, args.json)
    stream = sys.stderr if sys.stderr.isatty() else None
    with_aivat = not getattr(args, "no_aivat", False)
    try:
        if args.command == "merge":
            doc = merge_runs(args.runs, args.runs_dir, safe_name(args.name, "merge"), with_aivat)
        elif args.command == "resume":
            doc = resume(args.run_dir, stream, args.plugin_dir, with_aivat)
        else:
            if args.command == "run":
                overrides = {"hands": args.hands, "seed": args.seed, "jobs": args.jobs}
                plan = load_recipe(args.recipe, overrides)
                base = Path(args.recipe).parent.absolute()
            else:
                plan = plan_from_args(args)
                base = Path.cwd()
            if args.print_jobs:
                out_dir = jobs_folder(args.runs_dir, plan)
                commands = job_commands(plan, base, out_dir)  # every line checked before the first is printed
                hint = merge_hint(plan, out_dir)
                for command in commands:
                    print(command)
                print(hint, file=sys.stderr)
                return 0
            run_dir = getattr(args, "run_dir", None)
            doc = execute(plan, args.runs_dir, stream, run_dir=run_dir, plugin_dirs=[str(base)], with_aivat=with_aivat)
    except (RecipeError, RunError, StatsError) as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    except RunInterrupted as stop:
        doc = stop.doc
        _print(doc, args)
        done = sum(1 for m in doc["matches"] if m.get("played") is not False)
        print(f"acpc-match: interrupted: {done} of {len(doc['matches'])} matches finished and are counted in "
              f"{doc['run_dir']}/results.json (partial); to play the rest: {_resume_command(doc['run_dir'])}",
              file=sys.stderr)
        return 128 + stop.signum
    _print(doc, args)
    return 0 if all(m["complete"] for m in doc["matches"]) else 1
