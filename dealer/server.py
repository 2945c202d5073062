"""The dealer's TCP side: one listening port per seat, one player per port, bounded per-seat line reading.

``TcpSeat`` is the :class:`dealer.seats.SeatChannel` over an asyncio
connection.  It keeps at most a bounded amount of unread input (reading
pauses beyond it, so a flooding client is held back by TCP itself) and
splits lines as the reference's 4096-byte read buffer does.
"""

from __future__ import annotations

import asyncio
import socket
from typing import BinaryIO, Sequence, TextIO

from .config import MatchConfig
from .logs import Transcript
from .match import Match, MatchResult
from .resume import MatchFiles
from .seats import MAX_LINE, SeatChannel, SeatClosed, SeatTimeout

#: Unread input kept per seat before reading pauses.
READ_HIGH_WATER = 1 << 16
#: Unsent output per seat beyond which the match waits for the player to read.
WRITE_HIGH_WATER = 1 << 20


class TcpSeat(asyncio.Protocol, SeatChannel):
    """One seat's TCP connection."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buf = bytearray()
        self._eof = False
        self._gone = False
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.congested = False

    # ------------------------------------------------------- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)

    def data_received(self, data: bytes) -> None:  # noqa: D102
        buf = self._buf
        buf += data
        if len(buf) >= READ_HIGH_WATER and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        if self._waiter is not None and (b"\n" in data or len(buf) >= MAX_LINE):
            self._wake()

    def eof_received(self) -> bool:  # noqa: D102
        self._eof = True
        self._wake()
        return True  # keep sending: a half-closed player may still read

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        self._eof = True
        self._gone = True
        self.congested = False
        self._wake()

    def pause_writing(self) -> None:  # noqa: D102
        self.congested = True

    def resume_writing(self) -> None:  # noqa: D102
        self.congested = False
        self._wake()

    def _wake(self) -> None:
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    # --------------------------------------------------------- SeatChannel

    def send(self, line: bytes) -> None:
        """Queue a line; SeatClosed once the connection is known to be gone."""
        t = self.transport
        if self._gone or t is None or t.is_closing():
            raise SeatClosed
        t.write(line)

    def take_line(self) -> bytes | None:
        """A complete line (or a MAX_LINE piece of a longer one) already received, else None."""
        buf = self._buf
        i = buf.find(b"\n", 0, MAX_LINE)
        if i >= 0:
            n = i + 1
        elif len(buf) >= MAX_LINE:
            n = MAX_LINE
        else:
            return None
        line = bytes(buf[:n])
        del buf[:n]
        if self._paused and len(buf) < READ_HIGH_WATER // 2 and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        return line

    async def read_line(self, deadline: float) -> bytes:
        """The next line, waiting until ``deadline`` (loop time); a partial line at end of file is dropped."""
        loop = asyncio.get_running_loop()
        while True:
            line = self.take_line()
            if line is not None:
                return line
            if self._eof:
                raise SeatClosed
            if loop.time() >= deadline:
                raise SeatTimeout
            await self._wait(loop, deadline)

    async def drain(self, deadline: float) -> None:
        """Wait until the unsent output falls below the high-water mark."""
        loop = asyncio.get_running_loop()
        while self.congested:
            if self._gone:
                raise SeatClosed
            if loop.time() >= deadline:
                raise SeatTimeout
            await self._wait(loop, deadline)
        if self._gone:
            raise SeatClosed

    async def _wait(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        # One timer per seat, re-armed lazily: deadlines mostly move later, so
        # a wait rarely needs a new timer (they cost more than the wait itself).
        self._deadline = deadline
        timer = self._timer
        if timer is None or timer.when() > deadline:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(deadline, self._on_timer)
        fut = loop.create_future()
        self._waiter = fut
        try:
            await fut
        finally:
            self._waiter = None

    def _on_timer(self) -> None:
        self._timer = None
        if self._waiter is None:
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= self._deadline:
            self._wake()
        else:
            self._timer = loop.call_at(self._deadline, self._on_timer)

    async def closed(self, loop_deadline: float) -> None:
        """Wait (until the deadline at most) for a closing connection to finish sending."""
        loop = asyncio.get_running_loop()
        while not self._gone and loop.time() < loop_deadline:
            await self._wait(loop, loop_deadline)

    def close(self) -> None:
        """Close the connection (what was queued is still sent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport is not None:
            self.transport.close()


def _set_done(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class StartupError(Exception):
    """The match could not start (a port could not be opened, a seat did not connect)."""


def open_listeners(host: str, ports: Sequence[int]) -> list[socket.socket]:
    """One listening socket per seat on ``host``; port 0 picks a free one."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if not infos:
        raise StartupError(f"ERROR: cannot resolve host {host}")
    family, _, _, _, address = infos[0]
    listeners = []
    try:
        for seat, port in enumerate(ports):
            sock = socket.socket(family, socket.SOCK_STREAM)
            listeners.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((address[0], port) + tuple(address[2:]))
                sock.listen(1)
            except OSError as exc:
                raise StartupError(f"ERROR: could not open port {port} for seat {seat + 1} on {host}: "
                                   f"{exc.strerror or exc}") from None
            sock.setblocking(False)
    except BaseException:
        for sock in listeners:
            sock.close()
        raise
    return listeners


async def accept_seats(listeners: Sequence[socket.socket], start_timeout_ms: int) -> list[TcpSeat]:
    """Accept one player per listening socket, seat by seat; each listener closes after its player.

    With ``start_timeout_ms >= 0`` all seats must connect within that time
    of the call, as the reference's ``--start_timeout``.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + start_timeout_ms / 1000 if start_timeout_ms >= 0 else None
    seats: list[TcpSeat] = []
    try:
        for seat, listener in enumerate(listeners):
            try:
                try:
                    conn, _ = listener.accept()  # a player already waiting counts even with no time left
                except BlockingIOError:
                    if deadline is None:
                        conn, _ = await loop.sock_accept(listener)
                    else:
                        conn, _ = await asyncio.wait_for(loop.sock_accept(listener), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                raise StartupError(f"ERROR: timed out waiting for seat {seat + 1} to connect") from None
            finally:
                listener.close()
            _, protocol = await loop.connect_accepted_socket(TcpSeat, conn)
            seats.append(protocol)
    except BaseException:
        for s in seats:
            s.close()
        for listener in listeners:
            listener.close()
        raise
    return seats


async def serve_match(config: MatchConfig, files: MatchFiles, transcript: Transcript, stdout: TextIO,
                      host: str = "127.0.0.1", ports: Sequence[int] | None = None) -> MatchResult | None:
    """Open the ports, print them, accept the players and play the match.

    Returns None when the match could not start (the error is in the
    transcript); otherwise the match's result, its SCORE line printed on
    ``stdout`` when it finished.
    """
    n = config.game.num_players
    ports = list(ports or []) + [0] * n
    match = Match(config, transcript, files)
    try:
        listeners = open_listeners(host, ports[:n])
    except (StartupError, OSError) as exc:
        transcript.problem(str(exc) if isinstance(exc, StartupError) else f"ERROR: cannot listen on {host}: {exc}")
        transcript.flush()
        match.close()
        return None
    _print(stdout, " ".join(str(s.getsockname()[1]) for s in listeners))
    match.write_header()
    try:
        seats = await accept_seats(listeners, config.start_timeout)
    except (StartupError, OSError) as exc:
        # an OSError here is the system refusing a connection (too many open files...)
        transcript.problem(str(exc) if isinstance(exc, StartupError) else f"ERROR: could not accept a player: {exc}")
        transcript.flush()
        match.close()
        return None
    result = await match.run(seats)
    if result.score_line is not None:
        _print(stdout, result.score_line)
    # let the last views leave before the event loop (and the process) ends
    for seat in seats:
        await seat.closed(loop_deadline=asyncio.get_running_loop().time() + 1.0)
    return result


def _print(stdout: TextIO, line: str) -> None:
    try:
        stdout.write(line + "\n")
        stdout.flush()
    except (OSError, ValueError):
        pass  # whoever started the dealer stopped listening; the log has it all


def binary_stream(stream: TextIO | BinaryIO) -> BinaryIO:
    """The byte stream under a text stream such as sys.stderr (or the stream itself)."""
    return getattr(stream, "buffer", stream)  # type: ignore[return-value]
