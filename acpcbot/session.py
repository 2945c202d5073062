"""One whole match as a seat over asyncio: connect to the dealer, play it through a :class:`Client`, report.

``acpcbot HOST PORT`` runs this (or, for an inline strategy, the blocking
loop of ``direct``); ``acpcbot.play`` runs it from a user's own code.
"""

from __future__ import annotations

import logging
from typing import TextIO

from .client import Client
from .connection import EXIT_OK, EXIT_STRATEGY, ClientError, open_connection
from .strategies.base import Strategy
from .world import MatchInfo

log = logging.getLogger("acpcbot.client")  # the seat's log, as the client's own lines


async def run(strategy: Strategy, info: MatchInfo, host: str, port: int, *, history: TextIO | None = None,
              retry_for: float = 5.0, idle_timeout: float | None = None, deadline_alarm: bool = True) -> int:
    """Play one match and return the exit code; errors are logged with a clear message.

    ``idle_timeout`` (seconds, None: no limit) ends the match when the
    dealer sends nothing that long while this seat waits for it;
    ``deadline_alarm`` False keeps a strategy that declares nothing off the
    alarm (see the module's docstring): probed on the worker thread.
    """
    client = Client(strategy, info, history, deadline_alarm=deadline_alarm)
    try:
        strategy.start_match(info)
    except Exception as exc:  # noqa: BLE001
        log.exception("strategy %s failed to start: %s", strategy.spec, exc)
        return EXIT_STRATEGY
    try:
        conn = await open_connection(client, host, port, retry_for)
    except ClientError as exc:
        log.error("%s", exc)
        client._safe(strategy.end_match)
        return exc.exit_code
    log.info("connected to %s:%d as %s playing %s in %s", host, port, info.name, strategy.spec, info.game.name)
    try:
        await client.serve(conn, idle_timeout)
    except ClientError as exc:
        log.error("%s (after %s)", exc, client.summary())
        return exc.exit_code
    finally:
        conn.close()
    log.info("match over: %s", client.summary())
    return EXIT_OK
