"""``acpcbot HOST PORT``: play one match against an ACPC 2.0.0 dealer (the competitions' start-script shape)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import sys
import threading
from typing import Sequence, TextIO

from .client import EXIT_OK, EXIT_STRATEGY
from .connection import KEEPALIVE_COUNT, KEEPALIVE_IDLE, KEEPALIVE_INTERVAL
from .direct import can_run_direct, run_direct
from .gamedef import SHIPPED_GAMES, GameDefError, load_game
from .playedfile import PlayedRowsWriter
from .session import run
from .strategies.base import Strategy, UnsupportedGame
from .strategies.registry import StrategySpecError, available, create, default_spec, describe, with_absolute_paths
from .version import VersionAction
from .world import MatchInfo

log = logging.getLogger("acpcbot")

EXIT_USAGE = 2


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port {text!r} is not a number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range 1..65535")
    return port


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``acpcbot``."""
    p = argparse.ArgumentParser(
        prog="acpcbot",
        description="Connect to an ACPC 2.0.0 dealer at HOST PORT and play one whole match. To play against "
                    "the bot yourself: acpc-match human.",
        epilog="Exit status: 0 match played, 1 strategy failed to start, 2 bad command line, "
               "3 dealer unreachable, 4 protocol error, 5 dealer went away mid-hand or stayed silent past "
               "--idle-timeout.")
    p.add_argument("--version", action=VersionAction)
    p.add_argument("host", nargs="?", help="the dealer's host name or address")
    p.add_argument("port", nargs="?", type=_port, help="the port the dealer gave this seat")
    p.add_argument("--game", default="hunl",
                   help=f"the game: a short name ({', '.join(SHIPPED_GAMES)}), a .game file or an official "
                        "file name (default: hunl)")
    p.add_argument("--strategy", metavar="SPEC",
                   help="the strategy as name:k=v,... (default: the strongest strategy that plays the game), "
                        "or your own as module:ClassName[:k=v,...]; see --list-strategies")
    p.add_argument("--seed", type=int, help="seed of the strategy's random generator, for reproducible play "
                                             "(default: a random seed, logged)")
    p.add_argument("--name", default="acpcbot", help="this seat's name (default: acpcbot)")
    p.add_argument("--opponent", action="append", default=[], metavar="NAME",
                   help="an opponent's name, when known (repeat for each; models are kept per opponent)")
    p.add_argument("--time-per-hand", type=_non_negative, default=7000.0, metavar="MS",
                   help="average time budget per hand in milliseconds (default: 7000)")
    p.add_argument("--history", metavar="FILE", help="append one JSON line per hand to FILE")
    p.add_argument("--played-rows", metavar="FILE",
                   help="write to FILE, a line per decision, the probabilities the strategy played from, where it "
                        "keeps them (the re-solving blueprint): AIVAT reads them instead of replaying it (the arena "
                        "asks for it)")
    p.add_argument("--retry", type=_non_negative, default=5.0, metavar="SECONDS",
                   help="keep retrying a refused connection this long while the dealer starts (default: 5)")
    p.add_argument("--idle-timeout", type=_positive, default=None, metavar="SECONDS",
                   help="end the match (exit 5) when the dealer sends nothing this long while this seat waits "
                        "for it (default: no limit, as the reference players; TCP keepalive is on: first probe "
                        f"after {KEEPALIVE_IDLE} s of silence, then every {KEEPALIVE_INTERVAL} s, "
                        f"{KEEPALIVE_COUNT} unanswered probes drop the connection)")
    p.add_argument("--log-level", default=None, type=str.upper,
                   choices=("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
                   help="logging threshold on standard error (default: INFO; WARNING for --strategy human)")
    p.add_argument("--list-strategies", action="store_true",
                   help="list every strategy with its parameters and exit")
    return p


def list_strategies(game_name: str | None) -> str:
    """The listing printed by --list-strategies (marking strategies that cannot play ``game_name``).

    An unknown game is a GameDefError, not a listing for no game.
    """
    game = load_game(game_name) if game_name else None
    lines = []
    for cls in available().values():
        text = describe(cls)
        reason = cls.unsupported_reason(game) if game is not None else None
        if reason:
            text += f"\n    (cannot play {game.name}: {reason})"  # type: ignore[union-attr]
        lines.append(text)
    if game is not None:
        lines.append(f"default for {game.name}: {default_spec(game)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list_strategies:
        try:
            print(list_strategies(args.game))
        except GameDefError as exc:
            print(f"acpcbot: error: --game: {exc}", file=sys.stderr)
            return EXIT_USAGE
        return 0
    if args.host is None or args.port is None:
        parser.print_usage(sys.stderr)
        print("acpcbot: error: HOST and PORT are required", file=sys.stderr)
        return EXIT_USAGE
    # a person at the keyboard reads the table, not the client's progress lines
    level = args.log_level or ("WARNING" if (args.strategy or "").split(":")[0] == "human" else "INFO")
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        game = load_game(args.game)
    except GameDefError as exc:
        print(f"acpcbot: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    try:
        # a file a parameter names is read where the command runs; a missing one is said now, not mid-match
        spec = with_absolute_paths(args.strategy, os.getcwd()) if args.strategy else default_spec(game)
        strategy = create(spec, game, seed)
    except (StrategySpecError, UnsupportedGame) as exc:
        print(f"acpcbot: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - a strategy failing to load its data
        print(f"acpcbot: error: strategy {args.strategy or ''!s} cannot start: {exc}", file=sys.stderr)
        return EXIT_STRATEGY
    info = MatchInfo(game=game, name=args.name, seed=seed, time_per_hand=args.time_per_hand / 1000.0,
                     opponents=tuple(args.opponent), spec=strategy.spec)
    log.info("%s plays %s in %s with seed %d", args.name, strategy.spec, game.name, seed)
    history = None
    if args.history:
        try:
            history = open(args.history, "a", encoding="utf-8")
        except OSError as exc:
            print(f"acpcbot: error: cannot open history file {args.history}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    # resolved here, where the command runs; the file is made at the first row the strategy gives
    played = PlayedRowsWriter(os.path.abspath(args.played_rows)) if args.played_rows else None
    try:
        if can_run_direct(strategy):
            # hooks of microseconds: a blocking socket, no event loop round per line
            return run_direct(strategy, info, args.host, args.port, history=history, retry_for=args.retry,
                              idle_timeout=args.idle_timeout, played=played)
        return asyncio.run(play_leavable(strategy, info, args.host, args.port, history, args.retry,
                                         args.idle_timeout, played))
    except KeyboardInterrupt:
        log.error("interrupted")
        return 130
    finally:
        if history is not None:
            history.close()
        if played is not None:
            played.close()


async def play_leavable(strategy: Strategy, info: MatchInfo, host: str, port: int, history: TextIO | None = None,
                        retry: float = 5.0, idle_timeout: float | None = None,
                        played: PlayedRowsWriter | None = None) -> int:
    """Play the match; a strategy with a ``leave`` hook (the human player) may end it by closing the connection.

    Leaving cancels the match task before the strategy's ``act`` returns, so
    the answer it gives then is never sent: leaving never folds a hand.
    """
    task = asyncio.ensure_future(run(strategy, info, host, port, history=history, retry_for=retry,
                                     idle_timeout=idle_timeout, played=played))
    loop = asyncio.get_running_loop()
    left: list[bool] = []

    def leave() -> None:
        requested = threading.Event()

        def cancel() -> None:
            left.append(True)
            task.cancel()
            requested.set()

        loop.call_soon_threadsafe(cancel)
        requested.wait(10.0)

    if hasattr(strategy, "leave"):
        strategy.leave = leave
    try:
        return await task
    except asyncio.CancelledError:
        if left:
            log.info("the player left the match")
            return EXIT_OK
        raise
