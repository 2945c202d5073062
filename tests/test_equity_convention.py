"""One equity-vector convention (``acpcbot.equity_vectors``): equity with a valid mask, its means, its integer form.

Golden facts: a royal flush on the board ties every live holding; a range's
equity leaves out invalid holdings; the valid mean is what ``np.nanmean``
gives on the NaN form, to the bit (the adaptive player's numbers did not
move when it took this convention).
"""

from __future__ import annotations

import numpy as np

from acpcbot.cards import parse_cards
from acpcbot.equity_vectors import (
    equity_vector,
    holdem_equity_on_runs,
    range_equity,
    showdown_strength,
    valid_mean,
)
from acpcbot.evaluator import pair_ranks
from acpcbot.gamedef import load_game


def test_a_royal_flush_on_the_board_ties_every_live_holding():
    board = parse_cards("AsKsQsJsTs")
    ranks = pair_ranks(np.array([board], dtype=np.int64))[0]
    live = ranks > 0
    assert live.sum() == 1081  # C(47, 2) holdings avoid the board
    mine = int(ranks[live][0])
    assert showdown_strength(ranks, mine) == 1081  # ties all, itself included; beats none
    eq, valid = holdem_equity_on_runs(parse_cards("2c3d"), board, np.zeros((1, 0), dtype=np.int64))
    assert (eq[valid] == 0.5).all() and valid.sum() == 1081 - 1 - 2 * 45  # pairs with 2c or 3d are blocked


def test_the_nuts_beat_everything_on_a_complete_board():
    board = parse_cards("2h7hKcTd9s")
    ranks = pair_ranks(np.array([board], dtype=np.int64))[0]
    nuts = int(ranks[ranks > 0].min())  # treys: lower is better
    assert showdown_strength(ranks, nuts) == 2 * (ranks > nuts).sum() + (ranks == nuts).sum()
    assert showdown_strength(ranks[None, :], np.array([[nuts]]))[0] == showdown_strength(ranks, nuts)


def test_a_ranges_equity_leaves_invalid_holdings_out():
    eq = np.array([1.0, 0.0, 0.5])
    valid = np.array([True, False, True])
    assert range_equity(eq, valid, np.array([1.0, 5.0, 1.0])) == 0.75
    assert range_equity(eq, valid, np.array([0.0, 5.0, 0.0])) == 0.5  # a range of invalid holdings only


def test_the_valid_mean_is_nanmean_of_the_nan_form_to_the_bit():
    rng = np.random.default_rng(0)
    eq = rng.random(1326)
    valid = rng.random(1326) > 0.1
    eq = np.where(valid, eq, 0.0)
    assert valid_mean(eq, valid) == float(np.nanmean(np.where(valid, eq, np.nan)))


def test_the_runs_form_is_the_vector_on_a_complete_board():
    game = load_game("hunl")
    hole, board = parse_cards("AhQh"), parse_cards("2h7hKcTd9s")
    eq, valid = holdem_equity_on_runs(hole, board, np.zeros((1, 0), dtype=np.int64))
    eq2, valid2 = equity_vector(game, hole, board)
    assert (valid == valid2).all() and (eq == eq2).all()
