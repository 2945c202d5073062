"""One whole match as a seat over asyncio: connect to the dealer, play it through a :class:`Client`, report.

``acpcbot HOST PORT`` runs this (or, for an inline strategy, the blocking
loop of ``direct``, which takes the same steps from here: start the
strategy, report a dealer out of reach, say the seat is connected, report
the match's end); ``acpcbot.play`` runs it from a user's own code.
:func:`serve` is the asyncio loop itself: lines from a
:class:`~acpcbot.connection.Connection`, each handled where the client's
:class:`~acpcbot.scheduling.Schedule` says (answered from the connection's
callback while the strategy runs inline).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable, TextIO

from .client import Client
from .connection import EXIT_OK, EXIT_STRATEGY, ClientError, Connection, open_connection
from .playedfile import PlayedRowsWriter
from .protocol import VERSION_LINE
from .strategies.base import Strategy
from .world import MatchInfo

log = logging.getLogger("acpcbot.client")  # the seat's log, as the client's own lines


def start_strategy(strategy: Strategy, info: MatchInfo) -> bool:
    """Tell the strategy the match starts; False (logged) when it fails to, and the seat ends with EXIT_STRATEGY."""
    try:
        strategy.start_match(info)
    except Exception as exc:  # noqa: BLE001 - whatever a strategy raises, the seat reports it and ends
        log.exception("strategy %s failed to start: %s", strategy.spec, exc)
        return False
    return True


def not_connected(client: Client, exc: ClientError) -> int:
    """The exit code when the dealer could not be reached; the strategy's match is ended first."""
    log.error("%s", exc)
    client.end_match()
    return exc.exit_code


def log_connected(client: Client, host: str, port: int) -> None:
    """The line that says the seat is at the table."""
    info = client.info
    log.info("connected to %s:%d as %s playing %s in %s", host, port, info.name, client.strategy.spec, info.game.name)


def match_ended(client: Client, exc: ClientError | None) -> int:
    """The exit code once the match is over (``exc`` None) or was cut by ``exc``, with the seat's summary logged."""
    if exc is not None:
        log.error("%s (after %s)", exc, client.summary())
        return exc.exit_code
    log.info("match over: %s", client.summary())
    return EXIT_OK


async def run(strategy: Strategy, info: MatchInfo, host: str, port: int, *, history: TextIO | None = None,
              retry_for: float = 5.0, idle_timeout: float | None = None, deadline_alarm: bool = True,
              played: PlayedRowsWriter | None = None) -> int:
    """Play one match and return the exit code; errors are logged with a clear message.

    ``idle_timeout`` (seconds, None: no limit) ends the match when the
    dealer sends nothing that long while this seat waits for it;
    ``deadline_alarm`` False keeps a strategy that declares nothing off the
    alarm (see the client module's docstring): probed on the worker thread.
    ``played`` keeps the rows the strategy played from (``Client.played``).
    """
    client = Client(strategy, info, history, deadline_alarm=deadline_alarm, played=played)
    if not start_strategy(strategy, info):
        return EXIT_STRATEGY
    try:
        conn = await open_connection(host, port, retry_for, client.clock)
    except ClientError as exc:
        return not_connected(client, exc)
    log_connected(client, host, port)
    try:
        await serve(client, conn, idle_timeout)
    except ClientError as exc:
        return match_ended(client, exc)
    finally:
        conn.close()
    return match_ended(client, None)


async def serve(client: Client, conn: Connection, idle_timeout: float | None = None) -> None:
    """Play the match over a :class:`Connection` until the dealer closes it; ClientError on failure.

    An inline strategy is answered from the connection's callback itself,
    so a reply leaves as soon as its state has been read.
    """
    schedule = client.schedule
    schedule.start_asyncio(asyncio.get_running_loop(), client.deadline_alarm)
    if schedule.alarm is not None:
        client.send_now = conn.write
    try:
        conn.write(VERSION_LINE.encode("ascii"))
        lines = conn.lines
        while True:
            if lines:
                raw, received = lines.popleft()
                line = client.decode_line(raw)
                if client.runs_inline:
                    out = client.handle_line(line, received)
                else:
                    out = await client.handle_line_threaded(line, received)
                if out is not None:
                    conn.write(out.encode("ascii"))
                    client.budget.spend(client.clock() - received)
                continue
            conn.resume()
            if conn.error is not None:
                raise conn.error
            if conn.eof:
                break
            conn.direct = _answer_here(client) if client.runs_inline else None
            try:
                await conn.wait(idle_timeout)
            finally:
                conn.direct = None
        client.stream_ended(conn.lost, conn.partial)
    finally:
        schedule.close_alarm()
        await end_match(client)


def _answer_here(client: Client) -> Callable[[Connection], None]:
    """The connection's handler of queued lines while the strategy runs inline: each answered in the callback."""
    handle, decode, spend, clock = client.handle_line, client.decode_line, client.budget.spend, client.clock

    def answer(conn: Connection) -> None:
        lines = conn.lines
        while lines and conn.direct is not None:
            raw, received = lines.popleft()
            out = handle(decode(raw), received)
            if out is not None:
                conn.write(out.encode("ascii"))
                spend(clock() - received)
            if not client.runs_inline:
                conn.direct = None
                conn.wake()

    return answer


async def end_match(client: Client, wait: float = 30.0) -> None:
    """Tell the strategy the match is over, on its worker thread when it has one (given ``wait`` s to finish)."""
    thread = client.schedule.thread
    if thread is None:
        client.end_match()
        return
    fut = thread.submit(client.call_hook, client.strategy.end_match, want_result=True)
    thread.close()
    assert fut is not None
    done, _ = await asyncio.wait((fut,), timeout=wait)
    if not done:
        log.error("strategy %s did not finish end_match within %.0f s; leaving it", client.strategy.spec, wait)
    client.schedule.thread = None
