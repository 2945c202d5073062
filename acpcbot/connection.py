"""The client's end of the TCP connection to a dealer: complete lines in, replies out, and how a match can end.

:class:`Connection` is an asyncio protocol that splits what arrives into
lines (:class:`~acpcbot.framing.LineFramer`) and either queues them for
the client's loop or, while an inline strategy waits for the dealer,
hands them to the loop's handler at once, so a reply leaves in the same
callback that read its state.  It knows nothing of the client (the
client's asyncio loop, :func:`acpcbot.session.serve`, drives it).  It
turns TCP keepalive on and measures the dealer's silence for an idle limit.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections import deque
from typing import Any, Callable

from .framing import MAX_LINE, LineFramer

log = logging.getLogger("acpcbot.client")

EXIT_OK = 0
EXIT_STRATEGY = 1
EXIT_CONNECT = 3
EXIT_PROTOCOL = 4
EXIT_DISCONNECTED = 5

#: TCP keepalive: first probe after this many idle seconds, then every KEEPALIVE_INTERVAL, KEEPALIVE_COUNT probes
KEEPALIVE_IDLE = 60
KEEPALIVE_INTERVAL = 10
KEEPALIVE_COUNT = 6


class ClientError(Exception):
    """A condition that ends the match for this client, with the exit code to report."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Connection(asyncio.Protocol):
    """The client's end of the TCP connection: complete lines as they arrive (:class:`LineFramer`).

    While ``direct`` is set (an inline strategy waiting for the dealer) it
    is called right here as lines arrive, to work the queue off; otherwise
    the lines queue in ``lines`` for the client's loop.  ``clock`` stamps
    each line with when it arrived.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, limit: int = MAX_LINE) -> None:
        self.clock = clock
        self.framer = LineFramer(limit)
        self.transport: asyncio.Transport | None = None
        self.lines: deque[tuple[bytes, float]] = deque()
        self.eof = False
        self.lost: Exception | None = None  # the reset or failure that ended the connection
        self.error: ClientError | None = None  # a failure found while handling lines here
        self.partial = b""  # an unfinished line at the end of the stream
        #: the loop's handler of queued lines, while it may answer them right here
        self.direct: Callable[[Connection], None] | None = None
        self.last_activity = 0.0
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # noqa: D102
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.last_activity = time.monotonic()
        sock = transport.get_extra_info("socket")
        if sock is not None:
            set_keepalive(sock)

    def data_received(self, data: bytes) -> None:  # noqa: D102
        received = self.clock()
        lines = self.lines
        framer = self.framer
        for line in framer.feed(data):
            lines.append((line, received))
            if line[:1] not in (b"#", b"\n", b"\r"):  # comments and blank lines are not the match going on:
                self.last_activity = time.monotonic()  # a dealer sending only those is idle
        if framer.overlong is not None:
            self._fail(ClientError(framer.overlong, EXIT_PROTOCOL))
            return
        if self.direct is not None:
            self._answer()
        elif lines:
            self.wake()
            if len(lines) > 256 and not self._paused and self.transport is not None:
                self._paused = True  # the strategy is behind: let TCP hold the dealer back
                self.transport.pause_reading()

    def _answer(self) -> None:
        """Let the loop's handler answer the queued lines here (inline strategy, nothing else pending)."""
        assert self.direct is not None
        try:
            self.direct(self)
        except ClientError as exc:
            self._fail(exc)
        except Exception as exc:  # noqa: BLE001 - reported by the loop, not lost in the event loop
            self._fail(ClientError(f"internal error: {type(exc).__name__}: {exc}", EXIT_PROTOCOL))
            log.exception("internal error while handling a line")

    def write(self, data: bytes) -> None:
        """Send ``data`` to the dealer (a connection already gone drops it; reading tells why)."""
        self.last_activity = time.monotonic()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _fail(self, exc: ClientError) -> None:
        if self.error is None:
            self.error = exc
        self.direct = None
        self.wake()

    def eof_received(self) -> bool:  # noqa: D102
        self.eof = True
        self.partial = self.framer.partial
        self.wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102
        if not self.eof:
            self.eof = True
            self.lost = exc
            if exc is None:
                self.partial = self.framer.partial
        self.wake()

    def resume(self) -> None:
        """Let reading go on (after the queue was worked off)."""
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()

    def wake(self) -> None:
        """Wake the loop waiting in :meth:`wait`."""
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    async def wait(self, idle_timeout: float | None = None) -> None:
        """Wait for lines, the end, or a failure; ClientError once the dealer is silent for ``idle_timeout`` s."""
        while not self.lines and not self.eof and self.error is None:
            loop = asyncio.get_running_loop()
            self._waiter = loop.create_future()
            try:
                if idle_timeout is None:
                    await self._waiter
                else:
                    left = self.last_activity + idle_timeout - time.monotonic()
                    if left <= 0:
                        raise ClientError(f"the dealer sent nothing for {idle_timeout:g} s (idle limit)",
                                          EXIT_DISCONNECTED)
                    await asyncio.wait((self._waiter,), timeout=left)
            finally:
                self._waiter = None

    def close(self) -> None:
        """Close the connection."""
        if self.transport is not None:
            self.transport.close()


def set_keepalive(sock: socket.socket) -> None:
    """Turn TCP keepalive on with the client's timings (where the system offers them)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for name, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE), ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                            ("TCP_KEEPCNT", KEEPALIVE_COUNT)):
            option = getattr(socket, name, None)
            if option is not None:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
    except OSError:
        pass  # not a TCP socket, or the system refuses: the match goes on without


class Retries:
    """When to try the dealer again: a refused attempt is retried after a doubling delay (0.05 s up to 0.5 s)
    until ``retry_for`` seconds have passed; anything else, or a refusal past that, is a ClientError naming it."""

    def __init__(self, host: str, port: int, retry_for: float) -> None:
        self.host, self.port, self.retry_for = host, port, retry_for
        self.give_up = time.monotonic() + retry_for
        self.delay = 0.05

    def wait_after(self, exc: OSError) -> float:
        """The seconds to wait before the next attempt after the failed one ``exc``; ClientError when none."""
        where = f"cannot connect to the dealer at {self.host}:{self.port}"
        if not isinstance(exc, (ConnectionRefusedError, ConnectionResetError, TimeoutError)):
            raise ClientError(f"{where}: {exc}", EXIT_CONNECT) from None
        if time.monotonic() + self.delay > self.give_up:
            raise ClientError(f"{where}: {exc.strerror or exc} (retried for {self.retry_for:g} s)",
                              EXIT_CONNECT) from None
        delay = self.delay
        self.delay = min(0.5, delay * 2)
        return delay


async def retrying(open_once: Callable[[], Any], host: str, port: int, retry_for: float) -> Any:
    """``open_once()`` until it connects, retrying refused attempts for ``retry_for`` seconds while a dealer starts."""
    retries = Retries(host, port, retry_for)
    while True:
        try:
            return await open_once()
        except OSError as exc:
            await asyncio.sleep(retries.wait_after(exc))


def connect_blocking(host: str, port: int, retry_for: float = 5.0) -> socket.socket:
    """A connected blocking socket to the dealer, retrying refused attempts as :func:`connect` does."""
    retries = Retries(host, port, retry_for)
    while True:
        try:
            return socket.create_connection((host, port))
        except OSError as exc:
            time.sleep(retries.wait_after(exc))


async def connect(host: str, port: int, retry_for: float = 5.0,
                  limit: int = MAX_LINE) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a stream pair to the dealer, retrying refused attempts for ``retry_for`` seconds while a dealer starts."""
    return await retrying(lambda: asyncio.open_connection(host, port, limit=limit), host, port, retry_for)


async def open_connection(host: str, port: int, retry_for: float = 5.0,
                          clock: Callable[[], float] = time.monotonic) -> Connection:
    """A :class:`Connection` to the dealer (``clock`` stamps its lines), retrying as :func:`connect` does."""
    loop = asyncio.get_running_loop()
    _, conn = await retrying(lambda: loop.create_connection(lambda: Connection(clock), host, port),
                              host, port, retry_for)
    return conn
