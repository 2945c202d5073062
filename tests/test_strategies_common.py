"""The studies' shared conventions: blinds unit, no free folds, clamped raises, triples."""

import random

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import replay_betting
from acpcbot.strategies.common import holdem_only, intent_to_action, sample_triple, study_blinds


def test_study_blinds():
    assert study_blinds(load_game("hunl")) == (50.0, 100.0)  # reverse blinds: BB is the larger
    assert study_blinds(load_game("3pl")) == (5.0, 10.0)
    assert study_blinds(load_game("6pnl")) == (50.0, 100.0)


def test_holdem_only():
    for name in ("hunl", "hulhe", "3pl", "3pnl", "6pnl"):
        assert holdem_only(load_game(name)) is None
    for name in ("kuhn3p", "leduc", "leducnl", "kuhn2p"):
        assert "hold'em" in holdem_only(load_game(name))


def test_never_fold_when_checking_is_free():
    st = replay_betting("c", load_game("hunl"), State(load_game("hunl")))
    assert st.fold_or_check() == CALL
    assert intent_to_action(st, ActionType.FOLD) == CALL
    st = State(load_game("hunl"))
    assert st.fold_or_check() == FOLD


def test_raises_are_clamped_into_the_legal_range():
    st = State(load_game("hunl"))
    assert st.raise_or_call(120) == raise_to(200)
    assert st.raise_or_call(10 ** 9) == raise_to(20000)
    assert st.raise_or_call(777.4) == raise_to(777)
    assert st.raise_or_call() == raise_to(200)


def test_limit_raise_and_capped_round():
    g = load_game("hulhe")
    st = State(g)
    assert st.raise_or_call(5000) == RAISE
    replay_betting("rrr", g, st)
    assert st.raise_or_call(5000) == CALL


def test_pot_sized_raise():
    st = State(load_game("hunl"))
    # the small blind calls 50 more, the pot is then 200: raise by 200 to 300
    assert st.raise_to_fraction(1.0) == 300
    st.apply(raise_to(300))
    # the big blind calls 200 more (pot 600) then raises 600: to 900
    assert st.raise_to_fraction(1.0) == 900


def test_sample_triple_frequencies():
    rng = random.Random(3)
    draws = [sample_triple(rng, (0.2, 0.5, 0.3)) for _ in range(20000)]
    share = {k: draws.count(k) / len(draws) for k in ActionType}
    assert abs(share[ActionType.FOLD] - 0.2) < 0.015
    assert abs(share[ActionType.CALL] - 0.5) < 0.015
    assert abs(share[ActionType.RAISE] - 0.3) < 0.015
    assert sample_triple(rng, (0, 0, 0)) == ActionType.CALL
    assert all(sample_triple(rng, (0, 0, 2)) == ActionType.RAISE for _ in range(100))
