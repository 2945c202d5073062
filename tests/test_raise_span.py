"""RaiseSpan: a policy over every no-limit raise size, made one action at a time, equal to the spelt-out list."""

from __future__ import annotations

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_match_state
from acpcbot.strategies.base import RaiseSpan
from acpcbot.strategies.registry import create
from acpcbot.world import View

HUNL = load_game("hunl")


def test_a_span_is_the_list_it_stands_for():
    span = RaiseSpan([FOLD, CALL], 200, 210)
    spelt = (FOLD, CALL) + tuple(raise_to(s) for s in range(200, 211))
    assert len(span) == len(spelt) == 13
    assert tuple(span) == spelt
    assert [span[i] for i in range(-13, 13)] == list(spelt) * 2
    assert span[3:6] == spelt[3:6]
    assert [span.index(a) for a in spelt] == list(range(13))
    kinds, sizes = span.arrays()
    assert kinds.tolist() == [int(a[0]) for a in spelt] and sizes.tolist() == [a[1] for a in spelt]
    for absent in (raise_to(199), raise_to(211), RAISE):
        assert absent not in span
        with pytest.raises(ValueError):
            span.index(absent)
    with pytest.raises(IndexError):
        span[13]


def test_randoms_policy_raises_to_every_size_without_listing_them():
    player = create("random", HUNL, 1)
    state = State(HUNL, 0, [(0, 1), (2, 3)], [])
    view = View.parse(format_match_state(state.view_of(1), 1), HUNL)  # the small blind first to act
    policy = player.policy(view)
    lo, hi = state.raise_bounds()
    assert isinstance(policy.actions, RaiseSpan)
    assert len(policy.actions) == 2 + hi - lo + 1
    row = policy.probs[0]
    assert row.sum() == pytest.approx(1.0)
    assert row[policy.index(FOLD)] == pytest.approx(0.06) and row[policy.index(CALL)] == pytest.approx(0.47)
    assert row[policy.index(raise_to(hi))] == pytest.approx(0.47 / (hi - lo + 1))
    assert policy.kinds[-1] == int(RAISE[0]) and policy.sizes[-1] == hi and policy.sizes[2] == lo
