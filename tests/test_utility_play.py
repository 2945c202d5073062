"""The utility player through the real TCP dealer: no dealer warnings, no client corrections."""

from __future__ import annotations

import pytest
from playkit import check_dealer_match, slow


@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_utility_plays_random_through_the_dealer(game_name, caplog):
    check_dealer_match(game_name, "utility", 300, 21, caplog)


@slow
@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_utility_plays_2000_hands_against_random_through_the_dealer(game_name, caplog):
    check_dealer_match(game_name, "utility", 2000, 22, caplog)
