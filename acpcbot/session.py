"""One whole match as a seat over asyncio: connect to the dealer, play it through a :class:`Client`, report.

``acpcbot HOST PORT`` runs this (or, for an inline strategy, the blocking
loop of ``direct``, which takes the same steps from here: start the
strategy, report a dealer out of reach, say the seat is connected, report
the match's end); ``acpcbot.play`` runs it from a user's own code.
"""

from __future__ import annotations

import logging
from typing import TextIO

from .client import Client
from .connection import EXIT_OK, EXIT_STRATEGY, ClientError, open_connection
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
    client._safe(client.strategy.end_match)
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
              retry_for: float = 5.0, idle_timeout: float | None = None, deadline_alarm: bool = True) -> int:
    """Play one match and return the exit code; errors are logged with a clear message.

    ``idle_timeout`` (seconds, None: no limit) ends the match when the
    dealer sends nothing that long while this seat waits for it;
    ``deadline_alarm`` False keeps a strategy that declares nothing off the
    alarm (see the client module's docstring): probed on the worker thread.
    """
    client = Client(strategy, info, history, deadline_alarm=deadline_alarm)
    if not start_strategy(strategy, info):
        return EXIT_STRATEGY
    try:
        conn = await open_connection(client, host, port, retry_for)
    except ClientError as exc:
        return not_connected(client, exc)
    log_connected(client, host, port)
    try:
        await client.serve(conn, idle_timeout)
    except ClientError as exc:
        return match_ended(client, exc)
    finally:
        conn.close()
    return match_ended(client, None)
