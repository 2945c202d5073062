"""``acpc-dealer`` / ``python -m dealer``: the reference dealer's command line.

    acpc-dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]

plus ``--host ADDR`` (default 127.0.0.1), ``--strict`` and ``--spin_us``.  Usage errors
print the usage and exit 1; a match that ends early exits 1; stdout carries
the ports line first and the SCORE line last.  A log, transaction file or
transcript that cannot be written does not stop the match: the failure is
reported once (on stderr, or on stdout when stderr itself fails), the file
keeps its complete lines, and the dealer exits 1 at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Callable, NoReturn, Sequence

from acpcbot.gamedef import GameDefError, load_game

from .config import MatchConfig
from .logs import Transcript
from .resume import ResumeError, open_match_files
from .server import binary_stream, serve_match

USAGE = """usage: dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]
  -f use fixed dealer button at table
  -l/L disable/enable log file - enabled by default
  -p player1_port,player2_port,... [default is random]
  -q only print errors, warnings, and final value to stderr
  -t/T disable/enable transaction file - disabled by default
  -a append to log/transaction files - disabled by default
  --t_response [milliseconds] maximum time per response
  --t_hand [milliseconds] maximum player time per hand
  --t_per_hand [milliseconds] maximum average player time for match
  --start_timeout [milliseconds] maximum time to wait for players to connect
    <0 [default] is no timeout
  --host ADDR listen on this address [default 127.0.0.1]
  --strict end the match at the first malformed, invalid or late reply
  --spin_us [microseconds] how long a read looks for a fast player's reply
    before it sleeps, while a processor is spare [default 200; 0 never]
  --version print the version and exit
"""

UINT32_MAX = 2**32 - 1


class UsageError(Exception):
    """A bad command line; the message is printed before the usage."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"ERROR: {message}")

    def print_help(self, file=None) -> None:  # noqa: ANN001
        (file or sys.stdout).write(USAGE)


def _uint(text: str, what: str, limit: int | None = None) -> int:
    if not text.isascii() or not text.isdigit() or (limit is not None and int(text) > limit):
        raise UsageError(f"ERROR: invalid {what} {text[:40]}" + (f" (at most {limit})" if limit is not None else ""))
    return int(text)


def _is_utf8(text: str) -> bool:
    # bytes that are not UTF-8 reach us as lone surrogates (the file system's surrogateescape)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _whole(unit: str) -> Callable[[str], int]:
    """An argparse type: a whole number of ``unit``, or an error naming the text."""
    def parse(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number of {unit}: {text!r}") from None
    return parse


_ms, _us = _whole("milliseconds"), _whole("microseconds")


def parse_ports(text: str) -> list[int]:
    """``port1,port2,...`` as the reference reads it (0: any free port)."""
    ports = []
    for item in text.split(","):
        if not item.isascii() or not item.isdigit() or int(item) > 65535:
            raise UsageError(f"ERROR: bad port string {text}")
        ports.append(int(item))
    return ports


def parse_args(argv: Sequence[str]) -> tuple[MatchConfig, argparse.Namespace]:
    """The match configuration and the remaining options; UsageError for anything wrong."""
    p = _Parser(prog="dealer", add_help=True, allow_abbrev=True)
    p.add_argument("args", nargs="*")
    p.add_argument("-f", dest="fixed", action="store_true")
    p.add_argument("-l", dest="log", action="store_false", default=True)
    p.add_argument("-L", dest="log", action="store_true")
    p.add_argument("-p", dest="ports")
    p.add_argument("-q", dest="quiet", action="store_true")
    p.add_argument("-t", dest="tlog", action="store_false", default=False)
    p.add_argument("-T", dest="tlog", action="store_true")
    p.add_argument("-a", dest="append", action="store_true")
    # the defaults are MatchConfig's, so that a match made in code and one from the command line agree
    p.add_argument("--t_response", type=_ms, default=MatchConfig.t_response)
    p.add_argument("--t_hand", type=_ms, default=MatchConfig.t_hand)
    p.add_argument("--t_per_hand", type=_ms, default=MatchConfig.t_per_hand)
    p.add_argument("--start_timeout", type=_ms, default=MatchConfig.start_timeout)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--strict", action="store_true")
    p.add_argument("--spin_us", type=_us, default=MatchConfig.spin_us)
    ns = p.parse_intermixed_args(list(argv))
    args = ns.args
    if len(args) < 4:
        raise UsageError("")
    for key in ("t_response", "t_hand", "t_per_hand", "spin_us"):
        if getattr(ns, key) < 0:
            raise UsageError(f"ERROR: --{key} must not be negative")
    match_name, game_arg, hands_text, seed_text, *names = args
    try:
        game = load_game(game_arg)
    except GameDefError as exc:
        raise UsageError(f"ERROR: could not read game {game_arg}: {exc}") from None
    num_hands = _uint(hands_text, "number of hands", UINT32_MAX)
    seed = _uint(seed_text, "random number seed", UINT32_MAX)
    if len(names) != game.num_players:
        raise UsageError(f"ERROR: the game has {game.num_players} players; {len(names)} names given")
    for name in names:
        if not name or any(ch in name for ch in ":|\r\n"):
            raise UsageError(f"ERROR: invalid player name {name!r}: names must be non-empty, without ':', '|' "
                             f"or line breaks (the log separates fields with them)")
        if not _is_utf8(name):
            raise UsageError(f"ERROR: invalid player name {name!r}: names must be UTF-8 text (the log is UTF-8 "
                             f"and a checker could not read it)")
    if not _is_utf8(match_name) or not _is_utf8(game_arg):
        raise UsageError("ERROR: matchName and gameDefFile must be UTF-8 text (the log's header repeats them)")
    if not match_name or any(ch.isspace() for ch in match_name):
        raise UsageError(f"ERROR: invalid matchName {match_name!r}: it must be non-empty and without spaces "
                         f"(the log's header separates its fields with spaces)")
    ns.port_list = parse_ports(ns.ports) if ns.ports is not None else []
    config = MatchConfig(match_name=match_name, game=game, game_arg=game_arg, num_hands=num_hands, seed=seed,
                         names=list(names), fixed_seats=ns.fixed, quiet=ns.quiet, strict=ns.strict,
                         t_response=ns.t_response, t_hand=ns.t_hand, t_per_hand=ns.t_per_hand,
                         start_timeout=ns.start_timeout, spin_us=ns.spin_us)
    return config, ns


def main(argv: Sequence[str] | None = None) -> int:
    """Run the dealer; return the exit status (0: the match finished)."""
    argv = sys.argv[1:] if argv is None else argv
    if list(argv) == ["--version"]:
        from acpcbot.version import version
        print(f"acpc-dealer (acpcbot) {version()}")
        return 0
    try:
        config, ns = parse_args(argv)
    except UsageError as exc:
        if str(exc):
            sys.stderr.write(f"{exc}\n")
        sys.stderr.write(USAGE)
        return 1
    sys.stderr.flush()
    transcript = Transcript(binary_stream(sys.stderr), quiet=config.quiet, name="the transcript (stderr)")
    # stderr cannot carry news of its own failure: that one goes to stdout, before the SCORE line
    transcript.on_failure = _print_on_stdout

    def report(text: str) -> None:
        transcript.problem(text)
        transcript.flush()
        if transcript.failed:
            _print_on_stdout(text)

    try:
        files = open_match_files(config, use_log=ns.log, use_tlog=ns.tlog, append=ns.append, on_failure=report)
    except ResumeError as exc:
        transcript.problem(f"ERROR: {exc}")
        transcript.flush()
        return 1
    except OSError as exc:
        transcript.problem(f"ERROR: cannot open the match files: {exc}")
        transcript.flush()
        return 1
    try:
        result = asyncio.run(serve_match(config, files, transcript, sys.stdout, host=ns.host, ports=ns.port_list))
    except KeyboardInterrupt:
        transcript.problem("ERROR: interrupted")
        transcript.flush()
        return 1
    transcript.flush()  # a file that failed as it closed reported it after the match's last flush
    failed = files.failures + ([transcript.failed] if transcript.failed else [])
    return 0 if result is not None and result.finished and not failed else 1


def _print_on_stdout(text: str) -> None:
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # nowhere left to say it; the exit status still does


if __name__ == "__main__":
    sys.exit(main())
