"""Helpers for the dealer tests: an in-process dealer and scripted asyncio players on 127.0.0.1.

A player connects, sends its version line and hands every state line it
receives to a policy coroutine ``policy(player, line, match_state)``; the
policy writes whatever it likes through ``player.write`` (a good reply,
garbage, nothing) and may sleep or close the connection.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Sequence

from matchkit import serve

from acpcbot.gamedef import load_game
from acpcbot.matchlog import parse_state_line
from acpcbot.protocol import MatchState, format_betting, parse_match_state, read_action
from dealer.config import MatchConfig
from dealer.match import MatchResult
from dealer.resume import MatchFiles, open_match_files

TIMEOUT = 120.0  # no test waits longer than this for anything (a ceiling for hangs, generous for a busy machine)
ROOT = Path(__file__).resolve().parents[1]


def logcheck_logs(folder: Path, texts: Sequence[str]) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``python -m acpcbot.logcheck`` run once over a log of each of ``texts`` written in ``folder`` (``m0.log``...;
    a process a log cost a quarter of a second of start-up each): its result and the files, in ``texts`` order."""
    paths = []
    for i, text in enumerate(texts):
        path = folder / f"m{i}.log"
        path.write_text(text)
        paths.append(str(path))
    result = subprocess.run([sys.executable, "-m", "acpcbot.logcheck", *paths], capture_output=True, text=True,
                            timeout=60, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return result, paths


Policy = Callable[["Player", str, MatchState], Awaitable[None]]


@dataclass
class Player:
    """One scripted player's connection and what it saw."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    received: list[str] = field(default_factory=list)

    def write(self, data: bytes) -> None:
        """Send raw bytes to the dealer."""
        self.writer.write(data)

    def reply(self, line: str, action: str) -> None:
        """Send the normal reply: the state line, ':' and the action."""
        self.writer.write(f"{line}:{action}\r\n".encode())


async def run_player(port: int, game_name: str, policy: Policy | None, version: bytes | None = b"VERSION:2.0.0\r\n",
                     pre: Callable[[Player], Awaitable[bool]] | None = None) -> Player:
    """Play until the dealer closes the connection; ``pre`` may misbehave first (return False to stop)."""
    game = load_game(game_name)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    player = Player(reader, writer)
    try:
        if pre is not None and not await pre(player):
            return player
        if version is not None:
            writer.write(version)
        while True:
            raw = await reader.readline()
            if not raw:
                break
            line = raw.decode().rstrip("\r\n")
            player.received.append(line)
            ms = parse_match_state(line, game)
            if ms.is_my_turn and policy is not None:
                await policy(player, line, ms)
                await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
    return player


async def always_call(player: Player, line: str, ms: MatchState) -> None:
    """Call (or check) every time."""
    player.reply(line, "c")


def replay_policy(log_lines: list[str], game_name: str) -> Policy:
    """A policy that plays the actions of a log's hands, whatever seat it sits in."""
    game = load_game(game_name)
    finals = {}
    for text in log_lines:
        if text.startswith("STATE:"):
            hand = parse_state_line(text, game)
            finals[hand.hand_id] = format_betting(hand.state)

    async def policy(player: Player, line: str, ms: MatchState) -> None:
        betting = format_betting(ms.state)
        final = finals[ms.hand_id]
        assert final.startswith(betting), (final, betting)
        rest = final[len(betting):].lstrip("/")
        _, used = read_action(rest, game)
        player.reply(line, rest[:used])

    return policy


@dataclass
class ScriptedMatch:
    """A finished in-process match: its result, stdout, transcript and the players."""

    result: MatchResult | None
    stdout: str
    transcript: str
    players: list[Player | BaseException]
    log: str | None

    def problems(self) -> list[str]:
        """WARNING and ERROR lines of the transcript (with the reference's 'seconds spent waiting' line)."""
        return [ln for ln in self.transcript.splitlines()
                if ln.startswith(("WARNING", "ERROR")) or " seconds spent waiting; timeout " in ln]


def config_for(game_name: str, hands: int, seed: int = 0, names: list[str] | None = None,
               match_name: str = "m", **options) -> MatchConfig:
    """A MatchConfig with reference defaults."""
    game = load_game(game_name)
    names = names or [f"p{i + 1}" for i in range(game.num_players)]
    return MatchConfig(match_name=match_name, game=game, game_arg=options.pop("game_arg", game_name),
                       num_hands=hands, seed=seed, names=names, **options)


async def play_match(config: MatchConfig, policies: list, workdir: Path | None = None, use_log: bool = True,
                     use_tlog: bool = False, append: bool = False, files: MatchFiles | None = None,
                     ports: list[int] | None = None, versions: list | None = None, pres: list | None = None,
                     connect: list[bool] | None = None) -> ScriptedMatch:
    """Run the real TCP dealer in this event loop against scripted players."""
    cwd = os.getcwd()
    if workdir is not None:
        os.chdir(workdir)
    try:
        if files is None:
            files = open_match_files(config, use_log=use_log and workdir is not None, use_tlog=use_tlog, append=append)
    finally:
        os.chdir(cwd)
    dealer = await serve(config, files, ports)
    n = config.game.num_players
    versions = versions or [b"VERSION:2.0.0\r\n"] * n
    pres = pres or [None] * n
    connect = connect or [True] * n
    tasks = [asyncio.create_task(run_player(dealer.ports[s], config.game.name, policies[s], versions[s], pres[s]))
             for s in range(n) if connect[s] and dealer.ports]
    result = await dealer.result(TIMEOUT)
    players = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), TIMEOUT)
    log = None
    if workdir is not None and use_log:
        path = workdir / f"{config.match_name}.log"
        log = path.read_text() if path.exists() else None
    return ScriptedMatch(result, dealer.stdout.getvalue(), dealer.transcript, list(players), log)
