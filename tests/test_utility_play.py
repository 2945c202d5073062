"""The utility player through the real TCP dealer: no dealer warnings, no client corrections."""

from __future__ import annotations

import logging

import pytest

from acpcbot.client import EXIT_OK
from test_uc3m_matchkit import play_dealer, score_line


def check_dealer_match(game_name: str, spec: str, hands: int, seed: int, tmp_path, caplog) -> None:
    """Play ``spec`` against random through the dealer; nothing may be corrected or fail on either side."""
    caplog.set_level(logging.WARNING)
    out = play_dealer(game_name, [spec, "random"], hands, seed, tmp_path)
    assert out.codes == [EXIT_OK, EXIT_OK]
    assert out.warnings() == []
    assert set(score_line(out.stdout)) == {"p1", "p2"}
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_utility_plays_random_through_the_dealer(game_name, tmp_path, caplog):
    check_dealer_match(game_name, "utility", 300, 21, tmp_path, caplog)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
def test_utility_plays_2000_hands_against_random_through_the_dealer(game_name, tmp_path, caplog):
    check_dealer_match(game_name, "utility", 2000, 22, tmp_path, caplog)
