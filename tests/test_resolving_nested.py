"""Nested safe re-solving in no-limit Leduc (issue 29): the opponent's off-tree raise sizes enter the re-solved tree.

The game is no-limit Leduc under a fine betting abstraction (bets of half
and one pot, pot raises, all-in; two raises a street), where exact best
responses exist; the blueprint is DCFR stopped early on a coarse one (pot
and all-in only) and plays the fine game by nearest-chips translation.
Re-solving every round-2 subgame from the real history with the fine
sizes, through the Resolve gadget, lowers the whole game's exploitability
and raises neither player's best response.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from acpcbot.gamedef import load_game
from acpcbot.solve.resolving.nested import Whole, resolve_in_play, resolve_round_two, translate
from acpcbot.solve.subgame import BetSizes

COARSE = BetSizes(bet_fractions=(1.0,), raise_fractions=(1.0,), allin=True, min_raise=False, max_raises=2)
FINE = BetSizes(bet_fractions=(0.5, 1.0), raise_fractions=(1.0,), allin=True, min_raise=False, max_raises=2)


@lru_cache(maxsize=1)
def trees() -> tuple[Whole, Whole]:
    game = load_game("leducnl")
    return Whole.build(game, COARSE), Whole.build(game, FINE)


def test_the_fine_game_has_raises_the_coarse_blueprint_lacks() -> None:
    coarse, fine = trees()
    def lines(w):
        return {n.line for n in w.subgame.tree.nodes}
    assert lines(coarse) < lines(fine)
    assert any(label.startswith("B") and all(label not in ln for ln in lines(coarse))
               for ln in lines(fine) for label in ln)


@pytest.mark.parametrize("iterations", [5, pytest.param(2, marks=pytest.mark.slow),
                                        pytest.param(20, marks=pytest.mark.slow)])
def test_nested_resolving_lowers_exploitability_and_never_raises_it(iterations: int) -> None:
    coarse, fine = trees()
    game = coarse.subgame.game
    sub = Whole.build(game, COARSE).subgame  # a fresh solver: the cached trees are shared
    blueprint = translate(coarse, fine, sub.solve(target_pct=None, max_iterations=iterations).strategy)
    before_best = fine.best(blueprint)
    after = resolve_round_two(fine, blueprint, FINE, iterations=20)
    assert fine.exploitability(after) < fine.exploitability(blueprint)
    for p in (0, 1):
        assert fine.best(after)[p] <= before_best[p] + 1e-3


@pytest.mark.parametrize("iterations,players,resolve_iterations", [
    (5, (1,), 10),
    pytest.param(5, (0, 1), 30, marks=pytest.mark.slow),
    pytest.param(20, (0, 1), 30, marks=pytest.mark.slow),
])
def test_the_players_no_limit_resolver_lowers_exploitability_and_never_raises_it(
        iterations: int, players: tuple[int, ...], resolve_iterations: int) -> None:
    # the code path HUNL plays: the no-limit Resolver over a blueprint table (TreeTable), its ladder the coarse
    # sizes, the opponent's fine sizes entering the re-solved tree as they are bet, answering every round-2
    # decision of the re-solving players in the fine game
    coarse, fine = trees()
    game = coarse.subgame.game
    sub = Whole.build(game, COARSE).subgame
    blueprint = translate(coarse, fine, sub.solve(target_pct=None, max_iterations=iterations).strategy)
    before_best = fine.best(blueprint)
    after, resolver = resolve_in_play(fine, blueprint, COARSE, iterations=resolve_iterations, players=players)
    assert resolver.solves > 0 and resolver.cut_short == 0
    assert resolver.nested > 0  # some solves had the opponent's fine sizes added to the coarse ladder
    assert fine.exploitability(after) < fine.exploitability(blueprint)
    for p in (0, 1):
        assert fine.best(after)[p] <= before_best[p] + 1e-3
    for p in players:  # the best response against the re-solving player falls
        assert fine.best(after)[1 - p] < before_best[1 - p] - 1.0
