"""acpcbot as a library: play one match at an ACPC dealer with a strategy given as a spec, a class or an object.

``acpcbot.play(host, port, strategy, game=...)`` blocks until the match is
over; ``await acpcbot.play_async(...)`` does the same inside a running
event loop (several seats can play from one loop).  Both return the exit
status the ``acpcbot`` command would (0: the match was played; see
``acpcbot.client``).  The strategy may be a spec (``"call"``,
``"adaptive:risk=0"``, ``"mybots:TightBot:fold=0.3"``), a
:class:`~acpcbot.strategies.base.Strategy` subclass (built for the game
with ``params``) or a strategy object already built.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any, Sequence, TextIO

from .gamedef import GameDef, load_game
from .session import run
from .strategies.base import Strategy
from .strategies.registry import create
from .world import MatchInfo


def build_strategy(strategy: str | type[Strategy] | Strategy, game: GameDef, seed: int,
                   params: dict[str, Any] | None = None) -> Strategy:
    """The strategy object to play: created from a spec or a class, or the object itself."""
    if isinstance(strategy, Strategy):
        if params:
            raise TypeError("params go with a spec or a class, not with a strategy object")
        return strategy
    if isinstance(strategy, str):
        if params:
            raise TypeError("give parameters inside the spec (name:k=v,...), not as params")
        return create(strategy, game, seed)
    if isinstance(strategy, type) and issubclass(strategy, Strategy):
        built = strategy(game, random.Random(seed), **(params or {}))
        built.spec = strategy.name or strategy.__name__
        return built
    raise TypeError(f"strategy must be a spec, a Strategy subclass or a Strategy, not {type(strategy).__name__}")


async def play_async(host: str, port: int, strategy: str | type[Strategy] | Strategy, *, game: str | GameDef = "hunl",
                     name: str = "acpcbot", seed: int | None = None, opponents: Sequence[str] = (),
                     time_per_hand: float = 7.0, history: TextIO | None = None, retry: float = 5.0,
                     params: dict[str, Any] | None = None, idle_timeout: float | None = None) -> int:
    """Play one whole match at ``host:port`` in the running event loop; return the exit status (0: played).

    ``time_per_hand`` is the average budget in seconds; ``retry`` how long
    refused connections are retried while the dealer starts; ``idle_timeout``
    (seconds, default None: wait for ever) ends the match with status 5 when
    the dealer sends nothing that long while this seat waits for it.
    """
    gamedef = game if isinstance(game, GameDef) else load_game(game)
    seed = seed if seed is not None else secrets.randbits(32)
    player = build_strategy(strategy, gamedef, seed, params)
    info = MatchInfo(game=gamedef, name=name, seed=seed, time_per_hand=time_per_hand, opponents=tuple(opponents),
                     spec=player.spec)
    return await run(player, info, host, port, history=history, retry_for=retry, idle_timeout=idle_timeout)


def play(host: str, port: int, strategy: str | type[Strategy] | Strategy, **options: Any) -> int:
    """:func:`play_async` run to its end from ordinary (non-async) code; same options."""
    return asyncio.run(play_async(host, port, strategy, **options))
