"""The solver's public tree: its size, the refusals, and values checked against a brute-force replay of every deal."""

import itertools
import math
import random

import numpy as np
import pytest

from acpcbot.cards import deck
from acpcbot.engine import CALL, FOLD, RAISE, State
from acpcbot.gamedef import load_game, parse_game
from acpcbot.solve.policy import infoset_key, policy_from_strategy
from acpcbot.solve.tree import (
    DECISION,
    TERMINAL,
    GameTooBig,
    build_tree,
    check_solvable,
    count_betting_sequences,
    count_deals,
)

ACTION = {"f": FOLD, "c": CALL, "r": RAISE}


def random_strategy(tree, seed):
    """A seeded, fully mixed strategy array over the legal actions."""
    rng = np.random.default_rng(seed)
    sigma = rng.random((len(tree.dec_node), 3, tree.num_hands)) + 0.05
    sigma *= tree.dec_legal[:, :, None]
    return sigma / sigma.sum(1, keepdims=True)


def brute_values(game, policy):
    """Each position's expected payoff under a policy dict: every deal replayed through the engine."""
    n = game.num_players
    k = game.num_hole_cards
    deals = list(itertools.permutations(deck(game.num_ranks, game.num_suits), n * k + game.total_board_cards))
    total = np.zeros(n)

    def walk(state, prob):
        if state.finished:
            return prob * np.array(state.payoffs())
        p = state.current_player
        out = np.zeros(n)
        for ch, q in policy[infoset_key(state, p)].items():
            if q > 0:
                out += walk(state.copy().apply(ACTION[ch]), prob * q)
        return out

    for deal in deals:
        hole = [deal[p * k:(p + 1) * k] for p in range(n)]
        total += walk(State(game, 0, hole, deal[n * k:]), 1.0)
    return total / len(deals)


@pytest.mark.parametrize("name, nodes, decisions, terminals, infosets", [
    ("kuhn2p", 9, 4, 5, 12),      # J Q K Kuhn: 4 betting decisions x 3 cards
    ("kuhn3p", 25, 12, 13, 48),   # 12 betting decisions x 4 cards
    # Leduc: 6 + 5x6 round-two decisions per board card; 6x6 + 30x30 information sets
    ("leduc", 465, 186, 274, 936),
])
def test_tree_sizes(name, nodes, decisions, terminals, infosets):
    tree = build_tree(load_game(name))
    assert (tree.num_nodes, len(tree.dec_node), len(tree.term_node), tree.num_infosets) == \
        (nodes, decisions, terminals, infosets)
    assert tree.kind[0] == DECISION and tree.states[0].current_player == 0


def test_leduc_counts():
    game = load_game("leduc")
    assert count_deals(game) == 6 * 5 * 4
    assert count_betting_sequences(game) == (85, True)
    assert check_solvable(game) == 85 * 120


@pytest.mark.parametrize("name", ["hunl", "leducnl", "3pnl", "6pnl"])
def test_refuses_nolimit(name):
    with pytest.raises(GameTooBig, match="no-limit.*not discrete"):
        build_tree(load_game(name))


@pytest.mark.parametrize("name", ["hulhe", "3pl"])
def test_refuses_big_games_with_an_estimate(name):
    with pytest.raises(GameTooBig, match=r"too big to solve: estimated tree size .*betting sequences x .* deals"):
        build_tree(load_game(name))


def test_hulhe_estimate_is_sequences_times_deals():
    game = load_game("hulhe")
    sequences, exact = count_betting_sequences(game)
    assert exact
    assert count_deals(game) == math.perm(52, 9)
    with pytest.raises(GameTooBig, match=f"{sequences:,} betting sequences"):
        check_solvable(game)


def test_small_limit_bound_is_configurable():
    with pytest.raises(GameTooBig, match="10,200"):
        check_solvable(load_game("leduc"), max_size=10_000)


def test_terminal_tables_are_zero_sum_and_sum_to_one():
    tree = build_tree(load_game("kuhn3p"))
    util = tree.term_utility
    # player p's table has p's hand first; put every table back in position order to compare
    total = util[0] + np.moveaxis(util[1], 1, 2) + np.moveaxis(util[2], 1, 3)
    assert np.allclose(total, 0)
    # a fold-only terminal: r f f -> the raiser (position 0) wins the two antes
    node = next(n for n in tree.term_node if tree.states[n].actions[0] == [RAISE, FOLD, FOLD])
    t = list(tree.term_node).index(node)
    assert np.isclose(util[0][t].sum(), 2.0)  # probabilities of all deals add up to one


@pytest.mark.parametrize("name, seed", [("kuhn2p", 1), ("kuhn3p", 2), ("leduc", 3)])
def test_policy_values_match_brute_force(name, seed):
    game = load_game(name)
    tree = build_tree(game)
    sigma = random_strategy(tree, seed)
    policy = policy_from_strategy(tree, sigma)
    expected = brute_values(game, policy)
    # the policy file rounds to 9 decimals
    got = [tree.value(sigma, p) for p in range(game.num_players)]
    assert np.allclose(got, expected, atol=1e-7)
    assert abs(sum(got)) < 1e-12


def test_board_in_first_round_and_two_hole_cards():
    # a made-up game exercising a round-one board card and ordered two-card hands
    game = parse_game("""GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 2
raiseSize = 2 2
firstPlayer = 2 1
maxRaises = 1 1
numSuits = 1
numRanks = 6
numHoleCards = 2
numBoardCards = 1 1
END GAMEDEF""", "tiny")
    tree = build_tree(game)
    assert tree.kind[0] != DECISION and tree.kind[0] != TERMINAL  # the root deals the first board card
    sigma = random_strategy(tree, 4)
    policy = policy_from_strategy(tree, sigma)
    assert any(key.startswith("1::") for key in policy)  # position 1 acts first (firstPlayer 2)
    got = [tree.value(sigma, p) for p in range(2)]
    assert np.allclose(got, brute_values(game, policy), atol=1e-7)


def test_random_policies_agree_on_leduc_cards():
    # a second seed, with probabilities pushed to near-pure choices
    game = load_game("leduc")
    tree = build_tree(game)
    rng = random.Random(7)
    sigma = random_strategy(tree, 8) ** 6
    sigma /= sigma.sum(1, keepdims=True)
    sigma[:, :, rng.randrange(tree.num_hands)] = tree.uniform()[:, :, 0]
    policy = policy_from_strategy(tree, sigma)
    assert np.allclose([tree.value(sigma, p) for p in range(2)], brute_values(game, policy), atol=1e-7)
