"""Real matches through the bundled dealer over loopback TCP: random in every seat of every shipped game.

All nine matches run at once (a dealer process and a players process per
game) so that they share the two cores; each test then checks one game's
outcome: every hand completed, no WARNING in the dealer's transcript, no
action corrected or replaced, and every seat's own result equal to the
dealer's SCORE.  The issue's 2,000-hand runs are marked slow (``make test``
runs them); 200 hands per game keep the same checks in the quick suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from acpcbot.gamedef import SHIPPED_GAMES, load_game
from matchkit import ROOT, dealer_process

HANDS = 2000
QUICK_HANDS = 200
TIMEOUT = 240.0  # the whole batch, on a loaded two-core machine
HERE = Path(__file__).parent


async def _one(game_name: str, workdir: Path, seed: int, hands: int) -> dict:
    game = load_game(game_name)
    names = [f"p{i}" for i in range(game.num_players)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [f"m_{game_name}", game_name, str(hands), str(seed), *names, "-q"]
    players = None
    async with dealer_process(workdir, args) as (dealer, ports):
        try:
            players = await asyncio.create_subprocess_exec(
                sys.executable, str(HERE / "client_seats.py"), game_name, "random", str(seed), *map(str, ports),
                cwd=workdir, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            (p_out, p_err), (d_out, d_err) = await asyncio.gather(players.communicate(), dealer.communicate())
        finally:
            if players is not None and players.returncode is None:
                players.kill()
                await players.wait()
    return {"dealer_code": dealer.returncode, "dealer_out": d_out.decode(), "transcript": d_err.decode(),
            "players_code": players.returncode,
            "seats": [json.loads(line) for line in p_out.decode().splitlines()], "players_err": p_err.decode(),
            "log": workdir / f"m_{game_name}.log"}


async def _all(root: Path, hands: int) -> dict:
    dirs = {g: root / g for g in SHIPPED_GAMES}
    for d in dirs.values():
        d.mkdir()
    results = await asyncio.gather(*[_one(g, dirs[g], 100 + i, hands) for i, g in enumerate(SHIPPED_GAMES)])
    return dict(zip(SHIPPED_GAMES, results))


@pytest.fixture(scope="module")
def matches(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("client_dealer")
    return asyncio.run(asyncio.wait_for(_all(root, HANDS), TIMEOUT))


@pytest.fixture(scope="module")
def quick_matches(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("client_dealer_quick")
    return asyncio.run(asyncio.wait_for(_all(root, QUICK_HANDS), TIMEOUT))


def _check(m: dict, game_name: str, hands: int) -> None:
    assert m["dealer_code"] == 0, m["transcript"][-2000:]
    assert m["players_code"] == 0, m["players_err"][-2000:]
    assert "WARNING" not in m["transcript"]
    assert "ERROR" not in m["transcript"]
    assert m["players_err"] == ""  # not one warning from any seat
    score = [line for line in m["dealer_out"].splitlines() if line.startswith("SCORE:")]
    assert len(score) == 1
    values = [float(v) for v in score[0].split(":")[1].split("|")]
    seats = m["seats"]
    assert len(seats) == load_game(game_name).num_players
    for i, seat in enumerate(seats):
        assert (seat["code"], seat["hands"], seat["corrections"], seat["fallbacks"]) == (0, hands, 0, 0), seat
        assert seat["total"] == pytest.approx(values[i], abs=1e-6)
    assert sum(seat["replies"] for seat in seats) > hands
    # the dealer logged every hand
    assert sum(line.startswith("STATE:") for line in m["log"].read_text().splitlines()) == hands


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_random_in_every_seat_plays_200_hands_cleanly(quick_matches, game_name):
    _check(quick_matches[game_name], game_name, QUICK_HANDS)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_random_in_every_seat_plays_2000_hands_cleanly(matches, game_name):
    _check(matches[game_name], game_name, HANDS)
