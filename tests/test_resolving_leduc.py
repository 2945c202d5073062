"""Safe re-solving where exact answers exist (issue 29): limit Leduc's public tree, exact CFR and best response.

(a) The subgame solver's values equal the full game's on every round-2
subgame: the same strategy gives the same counterfactual values per
holding (up to the deal's constant probability), and the solver's own
solution of a subgame has the value the full game's equilibrium gives it.
(b) From coarse blueprints (CFR stopped after a few iterations), re-solving
every round-2 subgame through the Resolve gadget lowers the whole game's
exploitability by the exact best response, and never raises either
player's best-response value (the gadget's per-holding guarantee).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from acpcbot.gamedef import load_game
from acpcbot.solve.best_response import exploitability
from acpcbot.solve.cfr import Solver
from acpcbot.solve.resolving.exact import node_map, resolve_rounds, round_roots, tree_rows
from acpcbot.solve.resolving.gadget import by_level, load_strategy
from acpcbot.solve.subgame import Subgame
from acpcbot.solve.subgame.best_response import evaluate
from acpcbot.solve.subgame.tree import build_tree

GAMES = Path(__file__).resolve().parents[1] / "acpcbot" / "games"


@lru_cache(maxsize=None)
def solver(iterations: int, algorithm: str = "cfr+") -> Solver:
    s = Solver(load_game(GAMES / "leduc.game"), algorithm)
    s.run(iterations)
    return s


def subgame_at(tree, sigma, root):
    reach = tree.reach(sigma)
    ranges = (reach[root, 0] * tree.compat[root], reach[root, 1] * tree.compat[root])
    state, board = tree.states[root], tree.boards[root]
    sub = Subgame(tree.game, state, board, ranges)
    mapping = node_map(tree, build_tree(tree.game, state, board), root)
    return sub, load_strategy(sub, state, tree_rows(sigma, mapping)), reach


def test_leduc_has_the_round_two_roots_it_should() -> None:
    tree = solver(1).tree
    roots = round_roots(tree)
    # round 1 ends in a call after: cc, crc, crrc, rc, rrc (5 lines), times the 6 board cards
    assert len(roots) == 5 * 6
    assert all(tree.states[r].round == 1 and len(tree.boards[r]) == 1 for r in roots)


def test_subgame_values_equal_the_full_trees_under_one_strategy() -> None:
    s = solver(50)
    tree, sigma = s.tree, s.average()
    for root in round_roots(tree)[::7]:
        sub, loaded, reach = subgame_at(tree, sigma, root)
        ev = evaluate(sub.workspace, by_level(sub.workspace, loaded), with_values=True)
        for p in (0, 1):
            rows = sub.prep.hands[p].rows
            for cfv, best in ((ev.cfv[p], False), (ev.best_cfv[p], True)):
                full = tree.backward(p, reach, sigma, best=best)[root][rows]
                # the full tree's values carry the deal's probability, the same for every holding
                scale = np.dot(full, cfv) / np.dot(cfv, cfv)
                assert scale > 0
                np.testing.assert_allclose(cfv * scale, full, atol=1e-6)
                assert scale == pytest.approx(1 / (6 * 5 * 4), rel=1e-5)


def test_solved_subgame_value_equals_the_full_equilibriums() -> None:
    s = solver(400)
    tree, sigma = s.tree, s.average()
    assert exploitability(tree, sigma).mbb < 5
    checked = 0
    for root in round_roots(tree)[::2]:
        sub, loaded, reach = subgame_at(tree, sigma, root)
        if sub.prep.normaliser < 0.05:
            continue  # rarely reached: the full game's average barely constrains it
        full = evaluate(sub.workspace, by_level(sub.workspace, loaded), with_values=True)
        solved = sub.solve(target_pct=0.2, max_iterations=2000)
        assert solved.exploitability_pct <= 0.2
        pot = sub.root_pot
        # the subgame's value for player 0 (chips a hand given the ranges) is unique at equilibrium
        assert solved.evaluation.value[0] == pytest.approx(full.value[0], abs=0.01 * pot)
        checked += 1
    assert checked >= 5


SLOW = pytest.mark.slow


@pytest.mark.parametrize("algorithm,iterations", [("cfr+", 5), ("dcfr", 2), pytest.param("cfr+", 1, marks=SLOW),
                                                  pytest.param("cfr+", 20, marks=SLOW),
                                                  pytest.param("dcfr", 10, marks=SLOW)])
def test_resolving_round_two_lowers_exploitability_and_never_raises_it(algorithm: str, iterations: int) -> None:
    s = solver(iterations, algorithm)
    tree, blueprint = s.tree, s.average()
    before = exploitability(tree, blueprint)
    after = exploitability(tree, resolve_rounds(tree, blueprint, iterations=30))
    assert after.chips < before.chips
    for p in (0, 1):  # no position's best response gains from the re-solve
        assert after.best_responses[p] <= before.best_responses[p] + 1e-6
