"""``acpc-match human``: you against a bot in one command: the dealer without a clock, the bot, and you at the terminal.

The dealer and the bot run as child processes (``python -P -m dealer``,
``python -P -m acpcbot``) in a new run folder, which keeps the dealer log,
its transcript, the bot's output and this side's log file: nothing but the
table reaches the screen.  You play in this process through the same
client as any bot, with the ``human`` strategy; the dealer's time limits
are set out of reach (a person thinks), the bot keeps its own budget.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
import sys
from pathlib import Path
from typing import Any, Coroutine

from acpcbot.cli import play_leavable
from acpcbot.gamedef import GameDefError, load_game
from acpcbot.notation.loglines import SCORE_PREFIX
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.registry import StrategySpecError, create, default_spec, with_absolute_paths
from acpcbot.world import MatchInfo
from dealer.config import NO_CLOCK_FLAGS

from .folders import RUNS_DIR, RunError, new_run_dir
from .recipes import safe_name, strategy_seed
from .tcp import DEALER_START_S, HOST, child_env, python_command, stop_process

log = logging.getLogger("acpcbot")


def add_parser(sub: Any) -> None:
    """The ``human`` subcommand of acpc-match."""
    p = sub.add_parser("human", help="play against a bot yourself at the terminal (dealer and bot started for you)")
    p.add_argument("--game", default="hunl", help="game: hunl hulhe 3pl 3pnl 6pnl kuhn2p kuhn3p leduc leducnl, or a "
                                                  ".game file (default: hunl)")
    p.add_argument("--hands", type=int, default=100, help="hands to play (default: 100)")
    p.add_argument("--seed", type=int, help="deal seed (default: random, printed)")
    p.add_argument("--bot", metavar="SPEC", help="the bot's strategy (default: the strongest that plays the game); "
                                                 "one bot per other seat")
    p.add_argument("--name", default="you", help="your name in the logs (default: you)")
    p.add_argument("--runs-dir", default=str(RUNS_DIR), help=f"where the run folder goes (default: {RUNS_DIR})")


def main(args: argparse.Namespace) -> int:
    """Start the dealer and the bot, play the human seat here; return 0 when the match was played or left."""
    try:
        game = load_game(args.game)
    except GameDefError as exc:
        print(f"acpc-match: error: --game: {exc}", file=sys.stderr)
        return 2
    if not 1 <= args.hands <= 2**32 - 1:
        print(f"acpc-match: error: --hands: must be 1..4294967295, got {args.hands}", file=sys.stderr)
        return 2
    name = safe_name(args.name)
    seed = args.seed if args.seed is not None else secrets.randbits(31)
    try:
        bot = with_absolute_paths(args.bot, Path.cwd()) if args.bot else default_spec(game)
        create(bot, game, 0)  # fails here, before anything starts, when the bot cannot play the game
        me = create("human", game, seed)
    except (StrategySpecError, UnsupportedGame) as exc:
        print(f"acpc-match: error: --bot: {exc}", file=sys.stderr)
        return 2
    bots = [f"bot{i}" if game.num_players > 2 else "bot" for i in range(1, game.num_players)]
    if name in bots:
        print(f"acpc-match: error: --name: {name!r} is the bot's name; choose another", file=sys.stderr)
        return 2
    try:
        run_dir = new_run_dir(args.runs_dir, f"human-{game.name or 'game'}")
    except RunError as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    handler = logging.FileHandler(run_dir / "you.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    print(f"acpc-match human: {args.hands} hand{'' if args.hands == 1 else 's'} of {game.name}, seed {seed}, you against {bot}; "
          f"logs in {run_dir}", flush=True)
    # Ctrl-C ends the session at once: asyncio's own handler would only cancel the match on the first one, and
    # the reader blocked on your keyboard would then hold the process at exit
    previous = signal.signal(signal.SIGINT, lambda *_: _interrupted(run_dir, handler))
    try:
        return asyncio.run(_interruptible(_play(game, args.game, args.hands, seed, name, bots, bot, me, run_dir),
                                          run_dir, handler))
    finally:
        signal.signal(signal.SIGINT, previous)
        root.removeHandler(handler)
        handler.close()


_CHILDREN: list[Any] = []  # the dealer and the bots of the session in play, for Ctrl-C


async def _interruptible(play: Coroutine[Any, Any, int], run_dir: Path, handler: logging.Handler) -> int:
    """``play`` with Ctrl-C handled by the event loop, so that it wakes the loop whichever thread the kernel hands
    the signal to (a Python handler alone runs when the main thread next wakes, and it sleeps in the loop while you
    think: the reader of your keyboard, the child watchers' threads, ... took the first Ctrl-C one time in six)."""
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, _interrupted, run_dir, handler)
    return await play


def _interrupted(run_dir: Path, handler: logging.Handler) -> None:
    """Ctrl-C: stop the dealer and the bots, say where the logs are, and leave (status 130) without waiting."""
    for proc in _CHILDREN:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # each started in a session of its own
        except OSError:
            pass
    print(f"\ninterrupted: the match stops here; the dealer log of the hands played: {run_dir / 'match.log'}",
          file=sys.stderr, flush=True)
    handler.flush()
    os._exit(130)  # the thread reading your keyboard cannot be woken; nothing else is left to save


async def _play(game: Any, game_arg: str, hands: int, seed: int, name: str, bots: list[str], bot: str,
                me: Any, run_dir: Path) -> int:
    """The dealer and the bots as children, you in this process; the dealer's result decides the status."""
    game_arg = str(Path(game_arg).absolute()) if Path(game_arg).is_file() else game_arg
    names = [name, *bots]
    env = child_env([str(Path.cwd())])
    dealer_cmd = python_command("dealer") + [
        "match", game_arg, str(hands), str(seed), *names, *NO_CLOCK_FLAGS,
        "--start_timeout", str(int(DEALER_START_S * 1000))]
    with open(run_dir / "match.err", "wb") as transcript:
        dealer = await asyncio.create_subprocess_exec(*dealer_cmd, cwd=run_dir, stdin=asyncio.subprocess.DEVNULL,
                                                      stdout=asyncio.subprocess.PIPE, stderr=transcript, env=env,
                                                      start_new_session=True)
    procs: list[Any] = []
    _CHILDREN[:] = [dealer]
    try:
        assert dealer.stdout is not None
        first = await asyncio.wait_for(dealer.stdout.readline(), DEALER_START_S)
        ports = [int(p) for p in first.split()]
        if len(ports) != len(names):
            print(f"acpc-match: error: the dealer did not start (see {run_dir / 'match.err'})", file=sys.stderr)
            return 1
        for seat, (bot_name, port) in enumerate(zip(bots, ports[1:]), start=2):
            cmd = python_command("acpcbot") + [
                HOST, str(port), "--game", game_arg, "--strategy", bot, "--seed", str(strategy_seed(seed, bot_name)),
                "--name", bot_name, "--log-level", "INFO", *[w for n in names if n != bot_name for w in ("--opponent", n)]]
            with open(run_dir / f"{bot_name}.err", "wb") as err:
                procs.append(await asyncio.create_subprocess_exec(
                    *cmd, cwd=run_dir, stdin=asyncio.subprocess.DEVNULL, stdout=err, stderr=err, env=env,
                    start_new_session=True))
            _CHILDREN.append(procs[-1])
        info = MatchInfo(game=game, name=name, seed=None, time_per_hand=7.0, opponents=tuple(bots), spec="human")
        code = await play_leavable(me, info, HOST, ports[0])
        score = (await asyncio.wait_for(dealer.stdout.read(), 30)).decode("ascii", "replace")
        await asyncio.wait_for(dealer.wait(), 30)
        if me.left:
            print(f"The dealer log of the hands played: {run_dir / 'match.log'}")  # the table said "You left"
            return 0
        final = [line for line in score.splitlines() if line.startswith(SCORE_PREFIX)]
        print(f"\nMatch over{': ' + final[-1] if final else ''}. Logs: {run_dir}")
        return 0 if code == 0 and dealer.returncode == 0 else 1
    finally:
        for proc in procs:
            await stop_process(proc)
        await stop_process(dealer)
        _CHILDREN.clear()
