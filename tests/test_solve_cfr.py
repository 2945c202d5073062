"""CFR+ / DCFR and the exact best response: known values, hand-worked best responses, convergence."""

import itertools

import numpy as np
import pytest

from acpcbot.cards import deck
from acpcbot.engine import CALL, FOLD, RAISE, State
from acpcbot.gamedef import load_game
from acpcbot.solve import Solver, build_tree, exploitability
from acpcbot.solve.best_response import best_response_value, policy_values
from acpcbot.solve.policy import infoset_key, policy_from_strategy

ACTION = {"f": FOLD, "c": CALL, "r": RAISE}


@pytest.fixture(scope="module")
def kuhn():
    return build_tree(load_game("kuhn2p"))


@pytest.fixture(scope="module")
def leduc():
    return build_tree(load_game("leduc"))


def test_kuhn_value_is_minus_one_eighteenth(kuhn):
    solver = Solver(kuhn)
    solver.run(2000)
    report = exploitability(kuhn, solver.average())
    assert report.values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert report.values[1] == pytest.approx(1 / 18, abs=1e-3)
    assert report.mbb < 0.1
    assert report.chips == pytest.approx(report.mbb / 1000)  # the big blind is 1 chip


def test_leduc_value(leduc):
    # Leduc's game value for the first player is about -0.0856 chips
    solver = Solver(leduc)
    solver.run(600)
    report = exploitability(leduc, solver.average())
    assert report.values[0] == pytest.approx(-0.0856, abs=5e-4)
    assert report.mbb < 2


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_exploitability_falls_with_iterations(leduc, algorithm):
    solver = Solver(leduc, algorithm)
    seen = []
    for iterations in (10, 90, 400):
        solver.run(iterations)
        seen.append(exploitability(leduc, solver.average()).mbb)
    assert seen[0] > seen[1] > seen[2]
    assert seen[2] < 5


def test_uniform_kuhn_best_responses_by_hand(kuhn):
    """Both players uniform; cards Q < K < A, antes 1, one bet of 1.

    Position 0 best-responds: with Q bet (-1/2: the opponent folds half the
    time, else Q loses 2) rather than check (-1); with K bet (+1/2) rather
    than check (0); with A betting and checking both give 3/2.
    Position 1 best-responds: Q folds to a bet (-1) and bets after a check
    (-1/2), -3/4 in all; K calls a bet (0) and bets after a check (+1/2),
    1/4; A calls (2) and bets (3/2), 7/4.
    """
    sigma = kuhn.uniform()
    reach = kuhn.reach(sigma)
    hands = [kuhn.hand_text(i) for i in range(kuhn.num_hands)]
    assert hands == ["Qs", "Ks", "As"]
    per_hand_0 = kuhn.backward(0, reach, sigma, best=True)[0] * 3  # each card is dealt a third of the time
    per_hand_1 = kuhn.backward(1, reach, sigma, best=True)[0] * 3
    assert np.allclose(per_hand_0, [-0.5, 0.5, 1.5])
    assert np.allclose(per_hand_1, [-0.75, 0.25, 1.75])
    assert best_response_value(kuhn, sigma, 0) == pytest.approx(0.5)
    assert best_response_value(kuhn, sigma, 1) == pytest.approx(1.25 / 3)
    # uniform play: position 0 wins 1/8 (the bet-fold lines favour the first bettor)
    assert policy_values(kuhn, sigma) == pytest.approx((0.125, -0.125))
    report = exploitability(kuhn, sigma)
    assert report.nash_conv == pytest.approx(0.5 - 0.125 + 1.25 / 3 + 0.125)
    assert report.chips == pytest.approx(report.nash_conv / 2)


def test_uniform_leduc_nash_conv(leduc):
    # the published NashConv of the uniform policy in Leduc (OpenSpiel's test suite)
    assert exploitability(leduc, leduc.uniform()).nash_conv == pytest.approx(4.747222222222222)


def _pure_strategy_values(game, policy, player):
    """Every pure strategy of ``player`` against ``policy``: its value, by replaying every deal."""
    keys = sorted(k for k in policy if k.startswith(f"{player}:"))
    deals = list(itertools.permutations(deck(game.num_ranks, game.num_suits), 2))
    values = []
    for choice in itertools.product(*(sorted(policy[k]) for k in keys)):
        pure = dict(zip(keys, choice))
        total = sum(_walk(State(game, 0, [(a,), (b,)]), player, policy, pure) for a, b in deals)
        values.append(total / len(deals))
    assert len(values) == 2 ** 6
    return values


def _walk(state, player, policy, pure):
    if state.finished:
        return state.payoffs()[player]
    p = state.current_player
    key = infoset_key(state, p)
    if p == player:
        return _walk(state.copy().apply(ACTION[pure[key]]), player, policy, pure)
    return sum(q * _walk(state.copy().apply(ACTION[ch]), player, policy, pure) for ch, q in policy[key].items())


@pytest.mark.parametrize("seed", [11, 12])
def test_best_response_is_the_best_pure_strategy(kuhn, seed):
    # every pure strategy of Kuhn (2^6 per position) replayed through the engine
    rng = np.random.default_rng(seed)
    sigma = rng.random((len(kuhn.dec_node), 3, kuhn.num_hands)) * kuhn.dec_legal[:, :, None]
    sigma /= sigma.sum(1, keepdims=True)
    policy = policy_from_strategy(kuhn, sigma)
    game = kuhn.game
    for player in (0, 1):
        best = max(_pure_strategy_values(game, policy, player))
        assert best_response_value(kuhn, sigma, player) == pytest.approx(best, abs=1e-7)


def test_three_player_gains():
    tree = build_tree(load_game("kuhn3p"))
    start = exploitability(tree, tree.uniform())
    assert len(start.gains) == 3 and min(start.gains) > 0.1
    solver = Solver(tree)
    solver.run(500)
    report = exploitability(tree, solver.average())
    assert all(-1e-12 <= g < 2e-4 for g in report.gains)
    assert report.chips == pytest.approx(sum(report.gains) / 3)
    assert sum(report.values) == pytest.approx(0, abs=1e-12)
    # position 1's value is -1/48 in every equilibrium of three-player Kuhn
    assert report.values[1] == pytest.approx(-1 / 48, abs=1e-3)


def test_runs_are_reproducible(leduc):
    a, b = Solver(leduc, "dcfr"), Solver(leduc, "dcfr")
    a.run(30)
    b.run(30)
    assert np.array_equal(a.average(), b.average())
    assert np.array_equal(a.regrets, b.regrets)


def test_unknown_algorithm(kuhn):
    with pytest.raises(ValueError, match="unknown algorithm 'cfr'.*cfr\\+, dcfr"):
        Solver(kuhn, "cfr")


def test_average_is_a_strategy(leduc):
    solver = Solver(leduc)
    solver.run(20)
    avg = solver.average()
    assert np.allclose(avg.sum(1), 1)
    assert np.all(avg[~leduc.dec_legal] == 0)
