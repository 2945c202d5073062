"""bayes in play: through the real dealer, at multi-player tables, and its results against the patterns."""

from __future__ import annotations

import pytest
from playkit import check_dealer_match, duplicate_mbb, play_match, slow


@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_bayes_plays_random_through_the_dealer(game_name, caplog):
    check_dealer_match(game_name, "bayes", 125, 14, caplog)  # legality and no warnings; 2,000 hands in soak


@slow
@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_bayes_plays_2000_hands_against_random_through_the_dealer(game_name, caplog):
    check_dealer_match(game_name, "bayes", 2000, 13, caplog)


@pytest.mark.parametrize("game_name,specs", [("3pnl", ["bayes", "maniac", "station"]),
                                             ("3pl", ["rock", "bayes", "bayes"]),
                                             ("6pnl", ["bayes", "rock", "station", "random", "maniac", "bayes"])])
def test_bayes_plays_multi_player_games_legally(game_name, specs):
    results = play_match(game_name, specs, 150, 8)
    assert abs(sum(sum(r) for r in results)) < 1e-6


# Sanity results (duplicate pairs, fixed seeds, generous margins).  Measured here over 10 seeds x 500
# hands: hunl bayes vs maniac +5086 ± 541 mbb/hand, vs rock +178 ± 102, vs station +2026 ± 234;
# hulhe vs maniac -251 ± 40, vs rock +236 ± 9, vs station +322 ± 15.

@slow  # a duplicate strength run (3 seeds x 2 x 200 hands): make soak, like adaptive's and uc3m's strength runs
def test_bayes_beats_maniac_in_no_limit():
    mean, se = duplicate_mbb("hunl", "bayes", "maniac", 200, [1, 2, 3])
    assert mean > 1000 and mean - 3 * se > 0, (mean, se)


@slow  # a duplicate strength run (2 opponents x 3 seeds x 2 x 200 hands): make soak
def test_bayes_beats_rock_and_station_in_limit():
    for opponent in ("rock", "station"):
        mean, se = duplicate_mbb("hulhe", "bayes", opponent, 200, [1, 2, 3])
        assert mean > 50 and mean - 3 * se > 0, (opponent, mean, se)
