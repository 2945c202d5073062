"""``acpc-match lbr``: Local Best Response against a strategy, in duplicate, reported in mbb/g with a 95% interval.

LBR (``acpcbot.strategies.lbr``) sits in one seat and the strategy in the
other, for ``--hands`` hands from ``--seed``, then again with the seats
swapped; LBR's duplicate winnings (per deal, averaged over the two
seatings) are a lower bound on how much the strategy can be exploited,
up to sampling noise.  Over TCP the strategy runs as a normal acpcbot
process and LBR tracks a copy of it (exact for strategies whose policy
depends only on what LBR sees); in memory LBR reads the strategy's real
object (``lbr_seats``).  Strategies that do not expose their policy are
refused.  ``--lbr-actions`` restricts LBR's actions street by street
(DeepStack's settings S1-S4, ``acpcbot.measure.lbr_actions``); the figures,
also by street, go to results.json's ``lbr`` and the run's lbr.json
(``lbr_results``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from acpcbot.gamedef import GameDefError, load_game
from acpcbot.measure.lbr_actions import SETTINGS, parse_setting

from .folders import RUNS_DIR, RunError, match_command
from .lbr_results import LBR_NAME, attach, format_summary
from .recipes import (
    TRANSPORTS,
    Entry,
    Plan,
    RecipeError,
    build_plan,
    check_strategy,
    game_path,
    resolve_entries,
    strategy_name,
    strategy_seed,
)
from .runner import RunInterrupted, execute
from .stats import StatsError


def add_parser(sub: Any) -> None:
    """Add the ``lbr`` command to ``acpc-match``'s sub-commands."""
    p = sub.add_parser("lbr", help="Local Best Response against a strategy with a policy (heads-up, duplicate): "
                                   "a lower bound on its exploitability in mbb/g")
    p.add_argument("strategy", metavar="STRATEGY", help="the strategy to measure (it must expose its policy)")
    p.add_argument("--game", required=True, help="a heads-up game: hunl hulhe leduc kuhn2p ..., or a .game file")
    p.add_argument("--hands", type=int, default=1000, help="hands per seating (default: 1000)")
    p.add_argument("--seed", type=int, default=0, help="deal seed (default: 0)")
    p.add_argument("--lbr-actions", default="full", metavar="SETTING",
                   help=f"LBR's actions street by street: {'|'.join(SETTINGS)} (DeepStack's S1-S4: S1 fold/call "
                        f"everywhere; S2 check/call preflop and flop, fold/call/pot/all-in after; S3 the same with "
                        f"56 sizes; S4 check/call preflop, 56 sizes on the flop, fold/call after) or streets of "
                        f"letters F C P A B R split by '/' (default: full)")
    p.add_argument("--transport", choices=TRANSPORTS, default="tcp",
                   help="tcp: the strategy as its own acpcbot process; memory: one process, LBR reads the "
                        "strategy's real object (default: tcp)")
    p.add_argument("--jobs", type=int, help="matches played at once (default: one per core)")
    p.add_argument("--name", help="run name (folder matches/runs/NAME-TIMESTAMP)")
    p.add_argument("--json", action="store_true",
                   help='print {"strategy", "game", "hands", "lbr_mbb_per_hand", "ci95", ...} as one JSON object')
    p.add_argument("--runs-dir", default=str(RUNS_DIR), help=f"where run folders go (default: {RUNS_DIR})")


def lbr_plan(spec: str, game_arg: str, hands: int, seed: int, transport: str, jobs: int | None = None,
             name: str | None = None, base: str | Path = ".", actions: str = "full") -> Plan:
    """The duplicate plan of LBR (under action setting ``actions``) against ``spec``; RecipeError naming what cannot be played."""
    try:
        parse_setting(actions)
    except ValueError as exc:
        raise RecipeError(f"--lbr-actions: {exc}") from None
    try:
        game = load_game(game_arg)
    except GameDefError as exc:
        raise RecipeError(f"--game: {exc}") from None
    if game.num_players != 2:
        raise RecipeError(f"--game: LBR is defined heads-up; {game.name} seats {game.num_players} players")
    check_strategy(spec, game, "STRATEGY")
    from acpcbot.strategies.registry import resolve

    if not resolve(spec)[0].has_policy:
        raise RecipeError(f"STRATEGY: {spec!r} does not expose its policy (the probability of each action for "
                          f"every holding), which LBR needs; strategies with one: {', '.join(policy_strategies())}")
    target_name = strategy_name(spec)
    if target_name == LBR_NAME:
        target_name = "target"
    target = resolve_entries([Entry(target_name, spec)], ["STRATEGY"], base)[0]
    assert target.strategy is not None
    lbr_spec = (f"lbr:target={target.strategy.replace(',', ';')},tseed={strategy_seed(seed, target_name)},"
                f"tname={target_name}")
    if actions.strip() != "full":
        lbr_spec += f",actions={actions.strip()}"
    try:
        return build_plan(name=name or f"lbr-{target_name}", game=game_arg, hands=hands, seed=seed, duplicate=True,
                          mode="play", entries=[Entry(LBR_NAME, lbr_spec), target], transport=transport,
                          parallel=jobs)
    except RecipeError as exc:
        raise RecipeError(f"--{exc}") from None


def policy_strategies() -> list[str]:
    """The registered strategies that expose their policy (LBR can measure them)."""
    from acpcbot.strategies.registry import available

    return [n for n, cls in available().items() if cls.has_policy]


def main(args: argparse.Namespace) -> int:
    """Run ``acpc-match lbr``; the exit status (0 done, 1 a match did not finish, 2 bad input)."""
    base = Path.cwd()
    stream = sys.stderr if sys.stderr.isatty() else None
    try:
        plan = lbr_plan(args.strategy, game_path(args.game, base), args.hands, args.seed, args.transport,
                        args.jobs, args.name, base, args.lbr_actions)
        doc = execute(plan, args.runs_dir, stream, plugin_dirs=[str(base)])
    except (RecipeError, RunError, StatsError) as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    except RunInterrupted as stop:
        print(f"acpc-match: interrupted; the finished matches are in {stop.doc['run_dir']} "
              f"({match_command()} resume {stop.doc['run_dir']} finishes them)", file=sys.stderr)
        return 128 + stop.signum
    s = attach(doc, spec=args.strategy, game=args.game)
    assert s is not None  # an lbr plan's run
    try:
        print(json.dumps(s) if args.json else format_summary(s), flush=True)
    except BrokenPipeError:
        sys.stdout = None
    return 0 if s["complete"] else 1
