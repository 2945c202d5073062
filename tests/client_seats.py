"""Test helper: play every seat of one or more matches in one process, then print one JSON summary per seat.

    python tests/client_seats.py GAME SPEC SEED PORT [PORT ...] [+ GAME SPEC SEED PORT [PORT ...] ...]

Seat i of a match connects to its i-th port with seed SEED + i; the
summaries come match by match, seat by seat, each naming its match (0, 1,
...).  Used by the tests that run real matches through the bundled dealer,
so that the dealers and the players use both cores, with one interpreter
for all the players rather than one per match.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys

from acpcbot.client import Client, open_connection
from acpcbot.gamedef import load_game
from acpcbot.session import serve
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo


async def seat(game_name: str, spec: str, seed: int, port: int) -> dict:
    """Play one seat; its exit code and what its world model recorded."""
    game = load_game(game_name)
    info = MatchInfo(game, name=f"seat{seed}", seed=seed)
    client = Client(create(spec, game, seed), info)
    code = 0
    error = ""
    try:
        conn = await open_connection("127.0.0.1", port, retry_for=10, clock=client.clock)
        try:
            await serve(client, conn)
        finally:
            conn.close()
    except Exception as exc:  # reported, not raised: the test reads the summary
        code = getattr(exc, "exit_code", 1)
        error = str(exc)
    match = client.world.match
    return {"port": port, "code": code, "error": error, "hands": match.hands_played, "total": match.total,
            "replies": client.replies, "corrections": client.corrections, "fallbacks": client.fallbacks}


async def main(argv: list[str]) -> int:
    groups: list[list[str]] = [[]]
    for word in argv:
        if word == "+":
            groups.append([])
        else:
            groups[-1].append(word)
    seats = []
    for number, (game_name, spec, seed, *ports) in enumerate(groups):
        seats += [(number, seat(game_name, spec, int(seed) + i, int(p))) for i, p in enumerate(ports)]
    results = await asyncio.gather(*[play for _, play in seats])
    for (number, _), r in zip(seats, results):
        print(json.dumps({"match": number, **r}))
    return 0 if all(r["code"] == 0 for r in results) else 1


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sys.exit(asyncio.run(main(sys.argv[1:])))
