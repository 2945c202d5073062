"""adaptive's floor: the game's blueprint through its spec, re-solved where the spec re-solves (hulhe: the river).

Golden: cold (no results yet) adaptive's rows are the floor's own, the
re-solved ones in hulhe (the ``blueprint`` strategy's, to the last bit) and
the table's with ``resolve=0``; a hunl policy file given as the floor
(a small one of random rows: no shipped HUNL policy is needed) is played as its
table, over the table's own sizes; the merge of the floor's actions beside
the searched ones on hand-worked numbers; the quick answer never solves.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
import pytest
from playkit import play_memory, started

from acpcbot.engine import CALL, FOLD, RAISE, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.holdings import holding_index
from acpcbot.strategies.adaptive.floor import merge, stands_on_blueprint
from acpcbot.strategies.adaptive.portfolio import Portfolio
from acpcbot.strategies.blueprint import shipped_reason
from acpcbot.strategies.registry import create
from acpcbot.world import View

HULHE = load_game("hulhe")
HUNL = load_game("hunl")
hulhe_shipped = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))
#: a river decision after three raises (the blueprint may cap it); the re-solve plays it otherwise than the table
RIVER = "MATCHSTATE:1:1:rc/rc/rc/rrr:|AhAd/2c3d4s/5h/Td"


@lru_cache(maxsize=None)
def _policy(spec: str, line: str, game_name: str = "hulhe"):
    """``spec``'s policy at ``line``, from a fresh, started player (cold: no hand seen)."""
    game = load_game(game_name)
    return started(spec, game).policy(View.parse(line, game))


# ------------------------------------------------------------------ hulhe: the re-solving floor

@hulhe_shipped
def test_cold_on_the_river_adaptive_plays_the_blueprints_re_solved_rows():
    ours, theirs = _policy("adaptive", RIVER), _policy("blueprint", RIVER)
    assert ours.actions == theirs.actions
    np.testing.assert_array_equal(np.asarray(ours.probs), np.asarray(theirs.probs))
    # and they are the re-solve's, not the table's: resolve=0 plays the table, which differs from them
    table = _policy("adaptive:resolve=0", RIVER)
    np.testing.assert_array_equal(np.asarray(table.probs), np.asarray(_policy("blueprint:resolve=0", RIVER).probs))
    assert np.abs(np.asarray(table.probs) - np.asarray(ours.probs)).max() > 1e-2


@hulhe_shipped
def test_act_on_the_river_plays_within_the_re_solved_row():
    player = started("adaptive", HULHE)
    view = View.parse(RIVER, HULHE)
    row = player.policy(view).row(view.hole)
    actions = player.policy(view).actions
    solves = player.floor.resolving.resolver.solves
    for _ in range(6):
        action = player.act(view, 0.0)  # no deadline: the re-solve runs to its iterations, as the policy's
        assert row[actions.index(action)] > 0
    assert player.floor.resolving.resolver.solves == solves  # one solve a subgame: the hand reads it again


@hulhe_shipped
def test_a_solve_past_the_deadline_falls_back_to_the_tables_row_and_the_quick_answer_never_solves():
    player = started("adaptive", HULHE)
    state = View.parse(RIVER, HULHE).state
    floor = player.floor
    player.quick_action(View.parse(RIVER, HULHE))
    assert floor.resolving.resolver.solves == 0
    # a deadline already past: the solve gets no time and the table's row stands in
    np.testing.assert_array_equal(floor.row(state, time.monotonic() - 1.0), floor.table.probabilities(state))
    assert floor.resolving.resolver.cut_short == 1


@hulhe_shipped
def test_before_the_river_the_floor_is_the_table_and_resolve_0_never_builds_a_solver():
    flop = "MATCHSTATE:0:2:rc/:AsKd|/7h7c2c"
    np.testing.assert_array_equal(np.asarray(_policy("adaptive", flop).probs),
                                  np.asarray(_policy("adaptive:resolve=0", flop).probs))
    assert started("adaptive:resolve=0", HULHE).floor.resolving is None
    assert started("adaptive:blueprint=0", HULHE).floor is None


@hulhe_shipped
def test_a_short_re_solving_match_is_clean():
    # the default adaptive, re-solving its rivers, against call (every hand to the river) through the client
    result = play_memory("hulhe", ["adaptive", "call"], 4, 5)
    assert result.warnings == []
    assert all(c.fallbacks == 0 and c.corrections == 0 for c in result.clients)


# ------------------------------------------------------------------ the merge of the floor's actions

def test_merge_on_hand_worked_numbers():
    # hunl, the big blind facing a raise to 300: the search valued fold, call, 900 and all-in; the floor's table
    # plays fold, call, 750 and all-in
    state = View.parse("MATCHSTATE:0:1:r300:AsKd|", HUNL).state
    searched = [FOLD, CALL, raise_to(900), raise_to(20000)]
    values = np.array([[0.0, 5.0, 7.0, 3.0], [0.0, -1.0, -4.0, -9.0]])
    floor_actions = (FOLD, CALL, raise_to(750), raise_to(20000))
    probs = np.array([[0.1, 0.5, 0.4, 0.0], [0.6, 0.4, 0.0, 0.0]])
    actions, merged_values, floor = merge(state, searched, values, floor_actions, probs)
    assert actions == [FOLD, CALL, raise_to(750), raise_to(900), raise_to(20000)]
    # 750 valued as the nearest searched raise by ratio (900: log 1.2, not all-in's log 26.7)
    np.testing.assert_array_equal(merged_values, [[0.0, 5.0, 7.0, 7.0, 3.0], [0.0, -1.0, -4.0, -4.0, -9.0]])
    np.testing.assert_array_equal(floor, [[0.1, 0.5, 0.4, 0.0, 0.0], [0.6, 0.4, 0.0, 0.0, 0.0]])


def test_merge_keeps_legal_actions_only_and_sums_to_one():
    # limit, nothing to call: the table's fold column is not legal; its mass is dropped and the row renormalised
    state = View.parse("MATCHSTATE:0:1:rc/:AsKd|/7h7c2c", HULHE).state
    actions, _, floor = merge(state, [CALL, RAISE], np.zeros((3, 2)), (FOLD, CALL, RAISE),
                              np.array([[0.2, 0.4, 0.4], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]))
    assert actions == [CALL, RAISE]
    np.testing.assert_allclose(floor, [[0.5, 0.5], [0.0, 1.0], [0.5, 0.5]])  # no legal mass: uniform


def test_the_portfolio_keeps_no_limit_rows_by_action_not_kind():
    # two raise sizes: the deviation raises to 900, the floor to 750; the hand's estimate must read each one's
    # own column (by kind both are "raise", and the first would have been read for both)
    portfolio = Portfolio()
    line = "MATCHSTATE:0:1:r300:AsKd|"
    view = View.parse(line, HUNL)
    actions = [FOLD, CALL, raise_to(750), raise_to(900)]
    portfolio.mix("them", view, actions, np.array([[0.0, 0.5, 0.5, 0.0]]), np.array([[0.0, 0.0, 0.0, 1.0]]), 0)
    final = View.parse("MATCHSTATE:0:1:r300r900f:AsKd|", HUNL)
    p = portfolio.weight("them")
    gain = portfolio.end_hand("them", final, 3.0)
    # floor F = 0, deviation D = 1: gain = 3 (1 - 0) / ((1 - p) 0 + p 1) = 3 / p
    assert gain == pytest.approx(3.0 / p)


# ------------------------------------------------------------------ hunl: a policy file as the floor

@pytest.fixture(scope="module")
def smoke_hunl_policy(tmp_path_factory):
    """A HUNL policy file over a small abstraction, its rows drawn at random (hunlkit): what these tests check is
    what adaptive reads of the table, not what the table learnt (a trained one's card clustering and iterations
    cost 2 s)."""
    from hunlkit import random_policy
    path = tmp_path_factory.mktemp("hunl-floor") / "smoke.npz"
    random_policy(HUNL, path)
    return str(path)


def test_unasked_adaptive_stands_on_the_shipped_floor_in_hunl_and_is_its_default():
    # hunl's blueprint is for the default players: adaptive stands on it unasked and is the game's default
    # (blueprint is played when named); blueprint=0 takes it off the floor
    from acpcbot.strategies.registry import default_spec

    assert stands_on_blueprint(HUNL, True, "")
    assert not stands_on_blueprint(HUNL, False, "")
    assert default_spec(HUNL) == "adaptive" and default_spec(HULHE) == "blueprint"
    assert started("adaptive", HUNL).floor is not None and not create("adaptive", HUNL, 1).deterministic
    assert started("adaptive:blueprint=0", HUNL).floor is None and create("adaptive:blueprint=0", HUNL, 1).deterministic


@pytest.mark.parametrize("line", ["MATCHSTATE:1:0::|AsKd", "MATCHSTATE:0:0:r300:7c2d|",
                                  "MATCHSTATE:1:0:r300c/r600:|QhJh/Th9h2c"])
def test_cold_in_hunl_adaptive_plays_the_policy_files_table(smoke_hunl_policy, line):
    spec = f"adaptive:floor_policy={smoke_hunl_policy}"
    assert not create(spec, HUNL, 1).deterministic  # on a floor its rows mix
    player = started(spec, HUNL)
    view = View.parse(line, HUNL)
    policy = player.policy(view)
    state: State = view.state
    table = player.floor.table
    assert all(state.is_legal(a) for a in policy.actions)
    probs = np.asarray(policy.probs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    rows = table.probabilities_all(state)
    expected = np.zeros_like(probs)
    for j, a in enumerate(table.actions(state)):  # the table's own sizes, each a column of adaptive's list
        expected[:, policy.actions.index(a)] += rows[:, j]
    np.testing.assert_allclose(probs, expected, atol=1e-12)
    # the quick answer is the table's most likely action for our cards
    ours = rows[holding_index(HUNL, view.hole)]
    assert player.quick_action(view) == table.actions(state)[int(np.argmax(ours))]


def test_a_hunl_match_on_a_policy_file_floor_is_clean(smoke_hunl_policy):
    spec = f"adaptive:floor_policy={smoke_hunl_policy}"
    result = play_memory("hunl", [spec, "random"], 15, 3)
    assert result.warnings == []
    assert all(c.fallbacks == 0 and c.corrections == 0 for c in result.clients)
