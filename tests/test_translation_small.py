"""Bets and raises smaller than any the HUNL tree has: read between the call and the tree's smallest size.

Hand-worked numbers: with the call as A = 0, a size x below the smallest
tree size B reads as the call with probability (B - x) / (B (1 + x))
(pseudo-harmonic translation).  A minimum raise over a half-pot flop bet
is a quarter of the pot; against a tree whose one raise there is a pot
(the shipped abstraction's flop) it reads as the call 0.75 / 1.25 = 0.6
of the time.
"""

from __future__ import annotations

from functools import lru_cache

import hunlkit
import numpy as np
import pytest

from acpcbot.engine import CALL, FOLD, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.solve.hunl.actions import BlueprintTree
from acpcbot.solve.hunl.policy import HunlBlueprint
from acpcbot.solve.hunl.translation import map_action, tree_paths

GAME = load_game("hunl")
FLOP = (0, 13, 27)


def _flop_bet_half() -> State:
    """Limped preflop (pot 200), the big blind (first on the flop) bets half the pot: 100, to 200 in all."""
    state = State(GAME, hole=[(40, 41), (44, 45)]).apply(CALL).apply(CALL)
    state.deal_board(FLOP)
    return state.apply(raise_to(200))


@lru_cache(maxsize=1)
def tree() -> BlueprintTree:
    return BlueprintTree(GAME, hunlkit.SMALL, (1, 1, 1, 1))


def _path_at(state: State):
    paths = tree_paths(tree(), state)
    assert len(paths) == 1 and paths[0].owes < 0
    return paths[0]


def test_a_minimum_raise_over_a_half_pot_bet_reads_as_the_call_three_times_in_five():
    state = _flop_bet_half()
    node, _, tree_state, _ = _path_at(state)
    acts = tree().actions[node]
    lo, _ = state.raise_bounds()
    assert lo == 300                      # the minimum raise: by 100, a quarter of the pot of 400 after the call
    got = map_action(tree(), node, state, tree_state, raise_to(lo))
    pot_raise = acts.index(raise_to(600))               # the tree's raise of a pot over the bet: to 200 + 400
    assert got == [(acts.index(CALL), pytest.approx(0.6)), (pot_raise, pytest.approx(0.4))]
    # at or above the smallest size nothing changes: a raise of a pot is the tree's own
    assert map_action(tree(), node, state, tree_state, raise_to(600)) == [(pot_raise, 1.0)]


def test_the_player_facing_a_small_raise_read_as_the_call_owes_the_call_then_both_go_on():
    state = _flop_bet_half().apply(raise_to(300))
    paths = sorted(tree_paths(tree(), state), key=lambda p: -p.weight)
    assert [p.weight for p in paths] == [pytest.approx(0.6), pytest.approx(0.4)]
    owed, raised = paths
    assert owed.owes == 0 and raised.owes == -1         # the bettor (seat 0) owes the call on the call's reading
    assert tree().round[owed.node] == 2 and tree().round[raised.node] == 1   # the tree went on to the turn there
    # the bettor calls: the owing path stands at the turn's first node, the other at its own turn node
    called = state.copy().apply(CALL)
    called.deal_board((5,))
    after = sorted(tree_paths(tree(), called), key=lambda p: -p.weight)
    assert [p.weight for p in after] == [pytest.approx(0.6), pytest.approx(0.4)]
    assert after[0].node == owed.node and after[0].owes == -1
    assert after[1].node == tree().child(raised.node, CALL)
    # the bettor re-raises instead: only the raise's reading explains it
    reraised = state.copy().apply(raise_to(20000))
    assert [(p.weight, p.owes) for p in tree_paths(tree(), reraised)] == [(pytest.approx(1.0), -1)]


def test_a_small_first_bet_read_as_a_check_leaves_the_same_player_to_act_owing_nothing():
    state = State(GAME).apply(raise_to(300)).apply(CALL)       # the tree's open of a pot called: pot 600
    state.deal_board(FLOP)
    state.apply(raise_to(400))                # the minimum bet, 100 into 600: a sixth of the pot, the tree's is half
    paths = sorted(tree_paths(tree(), state), key=lambda p: -p.weight)
    check = (0.5 - 1 / 6) / (0.5 * (1 + 1 / 6))   # 4/7
    assert [p.weight for p in paths] == [pytest.approx(check), pytest.approx(1 - check)]
    assert all(p.owes == -1 and tree().actor[p.node] == 1 and tree().round[p.node] == 1 for p in paths)
    checked, bet = (p.state for p in paths)
    assert checked.to_call() == 0 and bet.to_call() > 0        # the check's node: nothing to call on the tree


@pytest.fixture(scope="module")
def random_policy(tmp_path_factory) -> HunlBlueprint:
    """Random rows over the small abstraction (its flop: a half-pot bet and a raise of a pot over it, as the
    shipped one's)."""
    return hunlkit.random_policy(GAME, tmp_path_factory.mktemp("hunl") / "random.npz")


def test_the_rows_facing_a_minimum_raise_are_the_call_mixed_with_the_rows_facing_a_pot_raise(random_policy):
    small = _flop_bet_half().apply(raise_to(300))   # the limp is on the small tree too: its opens are raises
    pot = _flop_bet_half().apply(raise_to(600))
    assert random_policy.actions(small) == random_policy.actions(pot) == (FOLD, CALL, raise_to(20000))
    rows_small, rows_pot = random_policy.probabilities_all(small), random_policy.probabilities_all(pot)
    call = np.zeros_like(rows_pot)
    call[:, 1] = 1.0
    assert np.allclose(rows_small, 0.6 * call + 0.4 * rows_pot)
    assert (rows_pot[:, 0] > 0).any() and (rows_small[:, 0] < rows_pot[:, 0] + 1e-12).all()
    # on the turn after the call, the rows are the two readings' rows, 0.6 and 0.4
    small.apply(CALL)
    small.deal_board((5,))
    assert small.round == 2 and small.current_player == 0
    rows = random_policy.probabilities_all(small)
    assert rows.shape[1] == len(random_policy.actions(small)) and np.allclose(rows.sum(1), 1.0)
    kinds = {ActionType(a[0]) for a in random_policy.actions(small)}
    assert kinds == {ActionType.CALL, ActionType.RAISE}   # the turn's first decision: check or bet


def test_the_ranges_read_a_minimum_raise_as_the_table_does(random_policy):
    from acpcbot.solve.resolving.columns import action_weights  # noqa: PLC0415
    before = _flop_bet_half()
    columns = random_policy.actions(before)
    assert columns == (FOLD, CALL, raise_to(600), raise_to(20000))
    assert action_weights(before, raise_to(300), columns) == [(1, pytest.approx(0.6)), (2, pytest.approx(0.4))]
    assert action_weights(before, raise_to(600), columns) == [(2, 1.0)]
