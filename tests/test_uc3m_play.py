"""uc3m and uc3m-simple in play: the real TCP dealer (no warnings) and duplicate sanity results."""

from __future__ import annotations

import pytest
from playkit import check_dealer_match, duplicate


@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
@pytest.mark.parametrize("spec", ["uc3m", "uc3m-simple"])
def test_plays_random_through_the_dealer(spec, game_name, caplog):
    # legality and no warnings through the dealer; the 2,000-hand runs are make soak's (150 hands here, not 300:
    # the check is of every reply, and the long runs carry the count)
    check_dealer_match(game_name, spec, 150, 31, caplog)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", ["hunl", "hulhe"])
@pytest.mark.parametrize("spec", ["uc3m", "uc3m-simple"])
def test_plays_2000_hands_against_random_through_the_dealer(spec, game_name, caplog):
    check_dealer_match(game_name, spec, 2000, 32, caplog)


@pytest.mark.slow  # a duplicate strength run (2 x 400 hands a pairing): make soak
@pytest.mark.parametrize("opponent", ["call", "raise:size=pot"])
def test_uc3m_beats_call_and_pot_raises_in_duplicate(opponent):
    """The study's test opponents: always-call and always-raise (pot-sized), heads-up no-limit.

    Fixed seed, 400 duplicate pairs; measured when written: about +6 bb/hand
    against call and +18 bb/hand against pot raises, each several standard
    errors clear.  Required: at least 1 bb/hand and 3 standard errors.
    """
    mean, se = duplicate("hunl", "uc3m", opponent, 400, 41)
    assert mean > 1000 and mean > 3 * se, (mean, se)
