"""The 2008 study's players that ignore their cards (random2008, constant, rh) expose their policy.

Their decision depends on the public state only, so one row serves every
holding; a raise decision's size is drawn uniformly in its band of small
blinds and rounded to chips, so the row spreads it over the chip amounts
by the share of the band each one rounds from.  Hand-worked rows here;
``tests/test_policy_interface.py`` checks every such policy against ``act``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_policy_interface import view_of

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.strategies.base import NoPolicy
from acpcbot.strategies.registry import create
from dealer.arena.lbr import lbr_plan
from dealer.arena.runner import execute

HOLES = [parse_cards("7c2d"), parse_cards("AsAh")]


def _row(spec: str, state: State, position: int) -> dict:
    """The policy's nonzero probabilities by action (the same for every holding, checked)."""
    game = state.game
    policy = create(spec, game, 1).policy(view_of(state, position))
    probs = np.asarray(policy.probs)
    assert (probs == probs[0]).all(), "a player that ignores its cards has one row for every holding"
    row = probs[0]
    return {policy.actions[i]: float(row[i]) for i in np.flatnonzero(row)}


def _opening() -> State:
    # hunl: blinds 100 (position 0) and 50 (position 1, first to act preflop); stacks 20,000
    return State(load_game("hunl"), 0, HOLES, [])


def test_a_small_raise_spreads_over_the_chips_its_band_rounds_to():
    # constant:d=3: call (to 100) plus uniform 2..4 SB (100..200 chips): a raise-to uniform on [200, 300];
    # 200 and 300 each take half a chip's width of the band, 201..299 a whole one
    row = _row("constant:d=3", _opening(), 1)
    assert len(row) == 101
    assert row[raise_to(200)] == pytest.approx(0.005) and row[raise_to(300)] == pytest.approx(0.005)
    assert all(row[raise_to(k)] == pytest.approx(0.01) for k in range(201, 300))


def test_a_band_below_the_minimum_raise_is_the_minimum_raise():
    # after a raise to 1,000 the band is 1,100..1,200, under the minimum raise-to of 1,900: all of it goes there
    state = _opening().apply(raise_to(1000))
    assert _row("constant:d=3", state, 0) == {raise_to(1900): pytest.approx(1.0)}


def test_random2008_weighs_the_six_decisions():
    row = _row("random2008", _opening(), 1)
    assert row[FOLD] == pytest.approx(1 / 9) and row[CALL] == pytest.approx(4 / 9)
    # all-in, and a medium raise (6..18 SB over the 100 to call: 400..1,000, 600 chips wide) point by point
    assert row[raise_to(20000)] == pytest.approx(1 / 9)
    assert row[raise_to(700)] == pytest.approx(1 / 9 / 600)
    # small 200..300, medium 400..1,000, large 1,100..2,100, all-in: four ninths in raises
    raises = sum(p for a, p in row.items() if a not in (FOLD, CALL))
    assert raises == pytest.approx(4 / 9)
    assert min(a[1] for a in row if a not in (FOLD, CALL)) == 200


def test_rh_calls_the_opening_small_blind():
    # V = POT / ((QTYRAISE+1) FOLLOWERS INGAME (RAISE+1)) in SB = 3 / (1 * 2 * 2 * 2) = 0.375:
    # at least t = 0.1 (no fold), under 20 t = 2: call
    state = _opening()
    assert _row("rh:t=0.1", state, 1) == {CALL: 1.0}
    assert create("rh:t=0.1", state.game, 1).act(view_of(state, 1), float("inf")) == CALL


@pytest.mark.parametrize("spec", ["mfs", "learner2008"])
def test_the_players_that_read_their_cards_keep_no_policy(spec):
    game = load_game("hunl")
    strategy = create(spec, game, 1)
    assert not strategy.has_policy
    with pytest.raises(NoPolicy, match="does not expose its policy"):
        strategy.policy(view_of(_opening(), 1))


def test_lbr_plays_constant_call_exactly_as_it_plays_call(tmp_path):
    # constant:d=2 always checks or calls, as call does: the same deals give the same hands and the same figure.
    # Hand for hand the same at any length: 12 hands a seating (LBR's hunl decisions cost ~0.1 s each; 30 took 5 s)
    rows = []
    logs = []
    for spec in ("call", "constant:d=2"):
        doc = execute(lbr_plan(spec, "hunl", 12, 4, "memory", jobs=2), tmp_path / spec.replace(":", "_"))
        rows.append(next(r for r in doc["results"] if r["player"] == "lbr"))
        logs.append([p.read_text().splitlines()[4:] for p in sorted((tmp_path / spec.replace(":", "_")).glob("*/match-00*.log"))])
    assert rows[0]["duplicate_mbb_per_hand"] == rows[1]["duplicate_mbb_per_hand"]
    for a, b in zip(*logs):
        # the target's name differs; the actions, cards and payoffs do not
        assert [line.rsplit(":", 1)[0] for line in a] == [line.rsplit(":", 1)[0] for line in b]
