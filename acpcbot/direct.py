"""The client's blocking loop for strategies that declare ``inline``: a plain socket, no event loop.

A strategy whose hooks take microseconds needs no worker thread and no
deadline guard, so the match can be played with one blocking ``recv`` per
wake and the reply written in the same pass that read its state: no
``epoll`` round and no event-loop iteration per line.  Everything else is
:func:`acpcbot.session.run`'s behaviour, line for line: the same handshake,
replies, history, log messages and exit codes (the lines are handled by the
same :class:`~acpcbot.client.Client`).
"""

from __future__ import annotations

import logging
import socket
from typing import TextIO

from .client import Client
from .connection import EXIT_DISCONNECTED, EXIT_PROTOCOL, EXIT_STRATEGY, ClientError, connect_blocking, set_keepalive
from .framing import MAX_LINE, LineFramer
from .playedfile import PlayedRowsWriter
from .protocol import VERSION_LINE
from .scheduling import Schedule
from .session import log_connected, match_ended, not_connected, start_strategy
from .strategies.base import Strategy
from .world import MatchInfo

log = logging.getLogger("acpcbot.client")


def can_run_direct(strategy: Strategy) -> bool:
    """Whether ``strategy`` may be played by :func:`run_direct`: its ``run_mode`` is inline (``Schedule``)."""
    return Schedule.blocking_plays(strategy.run_mode)


def serve_direct(client: Client, sock: socket.socket, idle_timeout: float | None = None,
                 limit: int = MAX_LINE) -> None:
    """Play the match on a connected socket until the dealer closes it; ClientError on failure."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # one small reply per state: never held back
    set_keepalive(sock)
    sock.settimeout(idle_timeout)
    recv, send, clock = sock.recv, sock.sendall, client.clock
    handle, decode, spend, prepare = client.handle_line, client.decode_line, client.budget.spend, client.prepare
    framer = LineFramer(limit)
    feed = framer.feed
    lost: OSError | None = None
    # answer first, book-keep after: a hand's end is recorded once the replies of the same read are out, when
    # nothing of the strategy's can see the difference (it is shown its turns only)
    world = client.world
    world.defer_records = client.strategy.run_mode.turns_only
    try:
        send(VERSION_LINE.encode("ascii"))
        while True:
            try:
                data = recv(65536)
            except socket.timeout:
                raise ClientError(f"the dealer sent nothing for {idle_timeout:g} s (idle limit)",
                                  EXIT_DISCONNECTED) from None
            except OSError as exc:
                lost = exc
                break
            if not data:
                break
            received = clock()
            for raw in feed(data):
                try:
                    out = handle(decode(raw), received)
                except ClientError:
                    raise
                except Exception as exc:  # noqa: BLE001 - reported as the asyncio client reports it
                    log.exception("internal error while handling a line")
                    raise ClientError(f"internal error: {type(exc).__name__}: {exc}", EXIT_PROTOCOL) from None
                if out is not None:
                    try:
                        send(out.encode("ascii"))
                    except OSError as exc:
                        lost = exc
                        break
                    spend(clock() - received)
                    prepare()  # while the dealer reads the reply
            if world.unrecorded:
                client.settle()
            if lost is not None:
                break
            if framer.overlong is not None:
                raise ClientError(framer.overlong, EXIT_PROTOCOL)
        client.stream_ended(lost, framer.partial)
    finally:
        client.settle()
        client.end_match()


def run_direct(strategy: Strategy, info: MatchInfo, host: str, port: int, *, history: TextIO | None = None,
               retry_for: float = 5.0, idle_timeout: float | None = None,
               played: PlayedRowsWriter | None = None) -> int:
    """Play one match as :func:`acpcbot.session.run` does, on a blocking socket; return the exit code."""
    client = Client(strategy, info, history, played=played)
    if not start_strategy(strategy, info):
        return EXIT_STRATEGY
    try:
        sock = connect_blocking(host, port, retry_for)
    except ClientError as exc:
        return not_connected(client, exc)
    log_connected(client, host, port)
    try:
        serve_direct(client, sock, idle_timeout)
    except ClientError as exc:
        return match_ended(client, exc)
    finally:
        sock.close()
    return match_ended(client, None)
