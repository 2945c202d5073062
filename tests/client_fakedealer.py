"""Test helpers for the client: scripted and dealing fake dealers on 127.0.0.1.

``ScriptedDealer`` plays a fixed script (send these bytes, read a line,
close...).  ``DealingDealer`` deals real hands of any game with the
reference's deck and MT19937, seats the client at one position (rotating
every hand) and plays the other positions itself at random, checking that
every reply repeats the state and carries a legal action.
"""

from __future__ import annotations

import asyncio
import random
import socket
import struct
import sys
from typing import Any, Callable

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import GameDef
from acpcbot.protocol import VERSION_LINE, format_match_state, parse_reply, read_action
from dealer.rng import Dealer

TIMEOUT = 60.0  # a ceiling for hangs only: a busy machine may take seconds where an idle one takes milliseconds

# The protocol specification's own example exchanges (S-> from the dealer, <-C the client's reply).
HULHE_EXCHANGE = """\
S-> MATCHSTATE:0:0::TdAs|
S-> MATCHSTATE:0:0:r:TdAs|
<-C MATCHSTATE:0:0:r:TdAs|:r
S-> MATCHSTATE:0:0:rr:TdAs|
S-> MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h
<-C MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h:r
S-> MATCHSTATE:0:0:rrc/r:TdAs|/2c8c3h
S-> MATCHSTATE:0:0:rrc/rc/:TdAs|/2c8c3h/9c
<-C MATCHSTATE:0:0:rrc/rc/:TdAs|/2c8c3h/9c:c
S-> MATCHSTATE:0:0:rrc/rc/c:TdAs|/2c8c3h/9c
S-> MATCHSTATE:0:0:rrc/rc/cr:TdAs|/2c8c3h/9c
<-C MATCHSTATE:0:0:rrc/rc/cr:TdAs|/2c8c3h/9c:c
S-> MATCHSTATE:0:0:rrc/rc/crc/:TdAs|/2c8c3h/9c/Kh
<-C MATCHSTATE:0:0:rrc/rc/crc/:TdAs|/2c8c3h/9c/Kh:c
S-> MATCHSTATE:0:0:rrc/rc/crc/c:TdAs|/2c8c3h/9c/Kh
S-> MATCHSTATE:0:0:rrc/rc/crc/cr:TdAs|/2c8c3h/9c/Kh
<-C MATCHSTATE:0:0:rrc/rc/crc/cr:TdAs|/2c8c3h/9c/Kh:c
S-> MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh
S-> MATCHSTATE:1:1::|Qd7c
<-C MATCHSTATE:1:1::|Qd7c:r
S-> MATCHSTATE:1:1:r:|Qd7c
S-> MATCHSTATE:1:1:rr:|Qd7c
<-C MATCHSTATE:1:1:rr:|Qd7c:c
S-> MATCHSTATE:1:1:rrc/:|Qd7c/2h8h5c
S-> MATCHSTATE:1:1:rrc/r:|Qd7c/2h8h5c
<-C MATCHSTATE:1:1:rrc/r:|Qd7c/2h8h5c:c
S-> MATCHSTATE:1:1:rrc/rc/:|Qd7c/2h8h5c/Th
S-> MATCHSTATE:1:1:rrc/rc/r:|Qd7c/2h8h5c/Th
<-C MATCHSTATE:1:1:rrc/rc/r:|Qd7c/2h8h5c/Th:f
S-> MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th
S-> MATCHSTATE:0:2::9d7s|
S-> MATCHSTATE:0:2:r:9d7s|
<-C MATCHSTATE:0:2:r:9d7s|:c
S-> MATCHSTATE:0:2:rc/:9d7s|/5d2cJc
<-C MATCHSTATE:0:2:rc/:9d7s|/5d2cJc:c
S-> MATCHSTATE:0:2:rc/c:9d7s|/5d2cJc
S-> MATCHSTATE:0:2:rc/cc/:9d7s|/5d2cJc/3d
<-C MATCHSTATE:0:2:rc/cc/:9d7s|/5d2cJc/3d:c
S-> MATCHSTATE:0:2:rc/cc/c:9d7s|/5d2cJc/3d
S-> MATCHSTATE:0:2:rc/cc/cr:9d7s|/5d2cJc/3d
<-C MATCHSTATE:0:2:rc/cc/cr:9d7s|/5d2cJc/3d:f
S-> MATCHSTATE:0:2:rc/cc/crf:9d7s|/5d2cJc/3d
"""

HUNL_EXCHANGE = """\
S-> MATCHSTATE:0:30::9s8h|
S-> MATCHSTATE:0:30:c:9s8h|
<-C MATCHSTATE:0:30:c:9s8h|:c
S-> MATCHSTATE:0:30:cc/:9s8h|/8c8d5c
<-C MATCHSTATE:0:30:cc/:9s8h|/8c8d5c:r250
S-> MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c
S-> MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s
<-C MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s:r500
S-> MATCHSTATE:0:30:cc/r250c/r500:9s8h|/8c8d5c/6s
S-> MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d
<-C MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d:r1250
S-> MATCHSTATE:0:30:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d
S-> MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d
S-> MATCHSTATE:1:31::|JdTc
<-C MATCHSTATE:1:31::|JdTc:r300
S-> MATCHSTATE:1:31:r300:|JdTc
S-> MATCHSTATE:1:31:r300r900:|JdTc
<-C MATCHSTATE:1:31:r300r900:|JdTc:c
S-> MATCHSTATE:1:31:r300r900c/:|JdTc/6dJc9c
S-> MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c
<-C MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c:r3600
S-> MATCHSTATE:1:31:r300r900c/r1800r3600:|JdTc/6dJc9c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c
<-C MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c:c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/:|JdTc/6dJc9c/Kh
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh
<-C MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh:c
S-> MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc
"""

THREE_PLAYER_EXCHANGE = """\
S-> MATCHSTATE:2:55::||AsTs
<-C MATCHSTATE:2:55::||AsTs:r
S-> MATCHSTATE:2:55:r:||AsTs
S-> MATCHSTATE:2:55:rc:||AsTs
S-> MATCHSTATE:2:55:rcc/:||AsTs/4cJh8h
S-> MATCHSTATE:2:55:rcc/r:||AsTs/4cJh8h
S-> MATCHSTATE:2:55:rcc/rf:||AsTs/4cJh8h
<-C MATCHSTATE:2:55:rcc/rf:||AsTs/4cJh8h:c
S-> MATCHSTATE:2:55:rcc/rfc/:||AsTs/4cJh8h/Kd
S-> MATCHSTATE:2:55:rcc/rfc/r:||AsTs/4cJh8h/Kd
<-C MATCHSTATE:2:55:rcc/rfc/r:||AsTs/4cJh8h/Kd:c
S-> MATCHSTATE:2:55:rcc/rfc/rc/:||AsTs/4cJh8h/Kd/8c
S-> MATCHSTATE:2:55:rcc/rfc/rc/r:||AsTs/4cJh8h/Kd/8c
<-C MATCHSTATE:2:55:rcc/rfc/rc/r:||AsTs/4cJh8h/Kd/8c:f
S-> MATCHSTATE:2:55:rcc/rfc/rc/rf:||AsTs/4cJh8h/Kd/8c
S-> MATCHSTATE:0:90::Ad6h||
S-> MATCHSTATE:0:90:c:Ad6h||
<-C MATCHSTATE:0:90:c:Ad6h||:r
S-> MATCHSTATE:0:90:cr:Ad6h||
S-> MATCHSTATE:0:90:crf:Ad6h||
S-> MATCHSTATE:0:90:crfc/:Ad6h||/TsKd7h
<-C MATCHSTATE:0:90:crfc/:Ad6h||/TsKd7h:r
S-> MATCHSTATE:0:90:crfc/r:Ad6h||/TsKd7h
S-> MATCHSTATE:0:90:crfc/rc/:Ad6h||/TsKd7h/Kh
<-C MATCHSTATE:0:90:crfc/rc/:Ad6h||/TsKd7h/Kh:r
S-> MATCHSTATE:0:90:crfc/rc/r:Ad6h||/TsKd7h/Kh
S-> MATCHSTATE:0:90:crfc/rc/rc/:Ad6h||/TsKd7h/Kh/6d
<-C MATCHSTATE:0:90:crfc/rc/rc/:Ad6h||/TsKd7h/Kh/6d:r
S-> MATCHSTATE:0:90:crfc/rc/rc/r:Ad6h||/TsKd7h/Kh/6d
S-> MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d
"""

EXCHANGES = {"hulhe": HULHE_EXCHANGE, "hunl": HUNL_EXCHANGE, "3pl": THREE_PLAYER_EXCHANGE}


def dealer_lines(exchange: str) -> list[str]:
    """The dealer's lines (S->) of an exchange."""
    return [line[4:] for line in exchange.splitlines() if line.startswith("S-> ")]


def client_lines(exchange: str) -> list[str]:
    """The client's lines (<-C) of an exchange."""
    return [line[4:] for line in exchange.splitlines() if line.startswith("<-C ")]


def script_of(exchange: str, eol: str = "\r\n", comments: bool = False) -> list[tuple]:
    """The dealer's side of an exchange: send each S-> line, read after each one the client answers."""
    steps: list[tuple] = []
    for i, line in enumerate(exchange.splitlines()):
        if line.startswith("S-> "):
            if comments and i % 3 == 0:
                steps.append(("send", f"# comment before line {i}{eol};GUI command{eol}"))
            steps.append(("send", line[4:] + (eol if i % 2 == 0 else "\r\n")))
        else:
            steps.append(("recv",))
    return steps


class ScriptedDealer:
    """One connection, one script: ``("send", text)``, ``("recv",)``, ``("sleep", s)``, ``("close",)``, ``("reset",)``.

    Every line the client sends is kept in ``received`` (the version line
    first).  With ``start_after`` the server only starts listening after that
    many seconds on a port reserved in advance (a dealer slow to start).
    """

    def __init__(self, script: list[tuple], start_after: float = 0.0) -> None:
        self.script = script
        self.start_after = start_after
        self.received: list[str] = []
        self.port = 0
        self.server: asyncio.base_events.Server | None = None
        self.done = asyncio.Event()
        self.error: BaseException | None = None

    async def start(self) -> int:
        """Start serving (maybe after a delay); return the port."""
        if self.start_after:
            # reserve a free port, then listen on it later
            probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
            self.port = probe.sockets[0].getsockname()[1]
            probe.close()
            await probe.wait_closed()
            asyncio.get_running_loop().call_later(self.start_after, lambda: asyncio.ensure_future(self._listen()))
            return self.port
        await self._listen()
        return self.port

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            self.received.append((await asyncio.wait_for(reader.readline(), TIMEOUT)).decode())
            for step in self.script:
                if step[0] == "send":
                    data = step[1]
                    writer.write(data if isinstance(data, bytes) else data.encode())
                    await writer.drain()
                elif step[0] == "recv":
                    self.received.append((await asyncio.wait_for(reader.readline(), TIMEOUT)).decode())
                elif step[0] == "sleep":
                    await asyncio.sleep(step[1])
                elif step[0] == "close":
                    break
                elif step[0] == "reset":
                    # an abortive close: the client sees a connection reset, not an end of file
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    writer.transport.abort()
                    break
        except BaseException as exc:  # kept for the test to see
            self.error = exc
        finally:
            writer.close()
            self.done.set()

    async def stop(self) -> None:
        """Stop listening."""
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (a server had it a moment ago)."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    return port


async def client_process(script: list[tuple], *args: str, stdin: Any = asyncio.subprocess.PIPE,
                         input: bytes | None = None, env: dict[str, str] | None = None,
                         started: Callable[[], None] | None = None) -> tuple[int, str, str, ScriptedDealer]:
    """``python -m acpcbot 127.0.0.1 PORT ARGS`` against a ScriptedDealer playing ``script``.

    ``started`` is called once the process runs (to feed a pseudo-terminal).
    Returns the exit code, stdout, stderr and the dealer (what it received).
    """
    dealer = ScriptedDealer(script)
    port = await dealer.start()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "acpcbot", "127.0.0.1", str(port), *args, stdin=stdin,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    if started is not None:
        started()
    try:
        out, err = await asyncio.wait_for(proc.communicate(input), TIMEOUT * 3)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await dealer.stop()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode(), dealer


class DealingDealer:
    """Deals ``hands`` hands of ``game`` from ``seed``; the client is seat 0, the other positions play at random."""

    def __init__(self, game: GameDef, hands: int, seed: int = 0, comments: bool = True) -> None:
        self.game = game
        self.hands = hands
        self.seed = seed
        self.comments = comments
        self.problems: list[str] = []
        self.replies = 0
        self.values: list[float] = []  # the client's result per hand
        self.port = 0
        self.done = asyncio.Event()
        self.server: asyncio.base_events.Server | None = None

    async def start(self) -> int:
        """Start listening; return the port."""
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def stop(self) -> None:
        """Stop listening."""
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    def _random_action(self, state: State, rng: random.Random):
        legal = state.legal_actions()
        kind = rng.choice(legal)
        if kind == ActionType.FOLD:
            return FOLD
        if kind == ActionType.CALL:
            return CALL
        if self.game.is_limit:
            return RAISE
        lo, hi = state.raise_bounds()
        return raise_to(rng.randint(lo, hi))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        game = self.game
        n = game.num_players
        rng = random.Random(self.seed)
        deals = Dealer(game, self.seed)
        try:
            version = await asyncio.wait_for(reader.readline(), TIMEOUT)
            if version.decode() != VERSION_LINE:
                self.problems.append(f"version line {version!r}")
            if self.comments:
                writer.write(b"# a comment the client must skip\r\n;another\r\n")
            for h in range(self.hands):
                hole, board = deals.deal()
                state = State(game, h, hole, board)
                pos = (0 - h) % n  # the client is seat 0: position p of hand h is seat (p + h) mod n
                while True:
                    line = format_match_state(state, pos)  # shows the board through the current round only
                    writer.write((line + "\r\n").encode())
                    if state.finished:
                        self.values.append(state.payoffs()[pos])
                        break
                    if state.current_player == pos:
                        await writer.drain()
                        raw = await asyncio.wait_for(reader.readline(), TIMEOUT)
                        reply = raw.decode()
                        self.replies += 1
                        if not reply.endswith("\r\n"):
                            self.problems.append(f"reply without CRLF: {reply!r}")
                        parsed, action_text = parse_reply(reply, game)
                        if reply.rstrip("\r\n").rpartition(":")[0] != line:
                            self.problems.append(f"reply {reply!r} does not repeat {line!r}")
                        action, used = read_action(action_text, game)
                        if used != len(action_text) or not state.is_legal(action):
                            self.problems.append(f"illegal reply {reply!r}")
                            action = state.fix(action)[0]
                        state.apply(action)
                    else:
                        state.apply(self._random_action(state, rng))
            await writer.drain()
        except BaseException as exc:  # kept for the test to see
            self.problems.append(f"dealer failed: {exc!r}")
        finally:
            writer.close()
            self.done.set()
