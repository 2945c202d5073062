"""The re-solving table (acpcbot.solve.resolving.floor): the blueprint's interface, re-solved rows where the
resolver plays, the blueprint's before the river and when a solve is cut short."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from acpcbot.gamedef import load_game
from acpcbot.holdings import holding_index
from acpcbot.solve.resolving.clock import Budget
from acpcbot.solve.resolving.floor import ResolvingTable
from acpcbot.solve.resolving.player import Resolver
from acpcbot.strategies.blueprint import load_blueprint, shipped_reason
from acpcbot.world import View

HULHE = load_game("hulhe")
pytestmark = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))
RIVER = "MATCHSTATE:0:0:rc/cc/rc/:AsKd|/7h7c2c/9h/5s"
FLOP = "MATCHSTATE:0:0:rc/:AsKd|/7h7c2c"


@lru_cache(maxsize=1)
def table() -> ResolvingTable:
    bp = load_blueprint(HULHE)
    return ResolvingTable(bp, Resolver(HULHE, bp.probabilities_all, Budget(30, 60.0)))


def state(line: str):
    return View.parse(line, HULHE).state


def test_the_river_row_of_one_holding_is_its_row_among_all():
    t = table()
    s = state(RIVER)
    every = t.probabilities_all(s)
    ours = t.probabilities(s)
    assert every.shape == (1326, 3)
    np.testing.assert_array_equal(ours, every[holding_index(HULHE, s.hole[s.current_player])])
    np.testing.assert_allclose(every.sum(axis=1), 1.0, atol=1e-9)
    # a re-solve, not the table: the rows differ from the blueprint's somewhere
    assert np.abs(every - t.table.probabilities_all(s)).max() > 1e-3


def test_before_the_river_the_rows_are_the_blueprints():
    t = table()
    s = state(FLOP)
    np.testing.assert_array_equal(t.probabilities_all(s), t.table.probabilities_all(s))
    np.testing.assert_array_equal(t.probabilities(s), t.table.probabilities(s))


def test_a_solve_cut_short_answers_with_the_blueprints_rows():
    bp = load_blueprint(HULHE)
    short = ResolvingTable(bp, Resolver(HULHE, bp.probabilities_all, Budget(10_000, 1e-6)))
    s = state(RIVER)
    np.testing.assert_array_equal(short.probabilities_all(s), bp.probabilities_all(s))
    np.testing.assert_array_equal(short.probabilities(s), bp.probabilities(s))
    assert short.resolver.cut_short == 1
