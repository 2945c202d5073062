"""The client against a fake dealer that deals real hands of every shipped game: every reply legal and exact."""

from __future__ import annotations

import asyncio

import pytest
from client_fakedealer import DealingDealer

from acpcbot.client import EXIT_OK
from acpcbot.gamedef import SHIPPED_GAMES, load_game
from acpcbot.session import run
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo


async def _match(game_name: str, spec: str, hands: int, seed: int):
    game = load_game(game_name)
    dealer = DealingDealer(game, hands, seed)
    port = await dealer.start()
    strategy = create(spec, game, seed)
    seen = []
    strategy.end_hand = lambda view: seen.append(view.result)  # type: ignore[method-assign]
    try:
        code = await run(strategy, MatchInfo(game, time_per_hand=7.0), "127.0.0.1", port, retry_for=2)
        await asyncio.wait_for(dealer.done.wait(), 30)
    finally:
        await dealer.stop()
    return code, dealer, seen


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_random_plays_every_shipped_game_legally(game_name, caplog):
    code, dealer, results = asyncio.run(asyncio.wait_for(_match(game_name, "random", 300, 5), 300))
    assert code == EXIT_OK
    assert dealer.problems == []
    assert dealer.replies > 100
    # the client's own accounting of every hand agrees with the dealer's
    assert results == dealer.values
    assert "WARNING" not in caplog.text


@pytest.mark.parametrize("spec", ["raise:size=pot", "raise:size=allin", "fold", "call"])
def test_other_baselines_in_no_limit_three_handed(spec, caplog):
    code, dealer, results = asyncio.run(asyncio.wait_for(_match("3pnl", spec, 60, 9), 300))
    assert code == EXIT_OK and dealer.problems == [] and results == dealer.values
    assert "WARNING" not in caplog.text
