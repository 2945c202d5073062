"""acpcbot.measure.matchup: two known hold'em hands' showdown shares equal the rank-array computations exactly."""

from __future__ import annotations

import random

import pytest

from acpcbot.cards import parse_cards
from acpcbot.gamedef import load_game
from acpcbot.measure.matchup import holdem_matchup
from acpcbot.measure.rollout import BoardSample, matchup_equity

HUNL = load_game("hunl")


def test_known_matchups():
    # the river decides: a flush beats a straight; the same hand ties
    assert holdem_matchup(parse_cards("AhKh"), parse_cards("9c8d"), parse_cards("Qh7h2hTs6s")) == 1.0
    assert holdem_matchup(parse_cards("AhKd"), parse_cards("AcKs"), parse_cards("2c7d9hTsJd")) == 0.5
    # a made set against a drawless hand on the turn: the pair wins on 2 of 44 rivers... from the loser's side
    assert holdem_matchup(parse_cards("AcAd"), parse_cards("7c7d"), parse_cards("7h2s9dKc")) == pytest.approx(2 / 44)


@pytest.mark.parametrize("street", [3, 4, 5])
def test_later_streets_are_exactly_the_enumerated_shares(street):
    gen = random.Random(street)
    for _ in range(25):
        cards = gen.sample(range(52), 4 + street)
        holes = [cards[:2], cards[2:4]]
        board = cards[4:]
        want = float(matchup_equity(HUNL, holes, board)[0][0])
        assert holdem_matchup(holes[0], holes[1], board) == pytest.approx(want, abs=1e-12)


def test_preflop_is_exactly_the_board_samples_share():
    sample = BoardSample(1, 2_000)
    gen = random.Random(5)
    for _ in range(40):
        cards = gen.sample(range(52), 4)
        want = sample.matchup(tuple(cards[:2]), tuple(cards[2:]))
        assert holdem_matchup(cards[:2], cards[2:], seed=1, boards=2_000) == pytest.approx(want, abs=1e-12)


def test_aces_against_kings_preflop_is_the_published_81_percent():
    # AsAh against KcKd: about 81% (published preflop odds for aces against kings of the other suits;
    # all 1,712,304 boards enumerated give 81.26%); the 10,000-board sample is within a point of it
    assert 0.80 < holdem_matchup(parse_cards("AsAh"), parse_cards("KcKd")) < 0.825


@pytest.mark.parametrize("bad", [("AsAh", "AsKd", ""), ("AsAh", "KcKd", "2c3c"), ("As", "KcKd", "")])
def test_bad_cards_are_refused(bad):
    first, second, board = bad
    with pytest.raises(ValueError):
        holdem_matchup(parse_cards(first), parse_cards(second), parse_cards(board) if board else ())


def test_the_first_row_asked_builds_and_keeps_the_whole_preflop_table(tmp_path):
    # a run values a few holdings, but the whole table costs little more and every later process then loads it:
    # kept only when whole, a table built row by row was never kept by the runs that each need a few hundred rows
    import numpy as np

    from acpcbot.measure.matchup import PreflopRanks

    first = PreflopRanks(7, 40, directory=tmp_path)
    assert not first.built.any() and not first.path.exists()
    first.ensure(np.array([3, 1000]))
    assert first.built.all() and first.path.is_file()
    again = PreflopRanks(7, 40, directory=tmp_path)
    assert again.built.all()
    assert np.array_equal(again.first, first.first)
    assert np.array_equal(again.first[[0, 664, 1325]], first._rows(np.array([0, 664, 1325])))
    assert np.array_equal(again.clashes, first.clashes)
