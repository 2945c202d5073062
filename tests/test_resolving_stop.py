"""A re-solve stops when converged (issues 29 and 30): the gadget's excess and margin decide, deterministically.

Golden facts: the blueprint itself has no excess and no margin in its own
gadget (the alternatives are its best-response values); the rule stops a
hold'em river re-solve well before its cap with the excess at most the
target; a stopped solve is bit for bit the fixed-count solve run to the same
iteration (the checks do not disturb DCFR), and the same twice; in limit
Leduc, every round-2 subgame re-solved under the rule still leaves the
whole game less exploitable than the blueprint by the exact best response,
and no position's best response gains.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from leducspots import leduc, leduc_spot

from acpcbot.gamedef import load_game
from acpcbot.solve.best_response import exploitability
from acpcbot.solve.resolving import exact
from acpcbot.solve.resolving.clock import SETTLE, TARGET, Budget
from acpcbot.solve.resolving.exact import resolve_rounds
from acpcbot.solve.resolving.gadget import (
    ResolveGadget,
    alternative_values,
    by_level,
    gadget_ranges,
    load_strategy,
    resolve,
)
from acpcbot.solve.resolving.player import Resolver, bare, round_start
from acpcbot.solve.resolving.ranges import policy_ranges
from acpcbot.solve.subgame import Subgame
from acpcbot.strategies import builtin  # noqa: F401  (registers every built-in strategy)
from acpcbot.strategies.blueprint import (
    SETTLE as PLAYER_SETTLE,
    TARGET as PLAYER_TARGET,
    load_blueprint,
    shipped_reason,
)
from acpcbot.strategies.registry import create
from acpcbot.world import View

HULHE = load_game("hulhe")
NO_HULHE = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))
#: position 0 to act first on the river (the spot of test_resolving_play)
RIVER = "MATCHSTATE:0:0:rc/cc/rc/:AsKd|/7h7c2c/9h/5s"


@lru_cache(maxsize=1)
def river_spot():
    state = View.parse(RIVER, HULHE).state
    root, before = round_start(state, 3)
    ranges = policy_ranges(state, load_blueprint(HULHE).probabilities_all, before)
    rows = Resolver(HULHE, load_blueprint(HULHE).probabilities_all).node_rows
    return HULHE, bare(root), tuple(state.board), ranges, 0, rows


def test_the_blueprint_has_no_excess_and_no_margin_in_its_own_gadget() -> None:
    for index in (0, 3, 11):
        game, state, board, ranges, player, rows = leduc_spot(index)
        opponent = 1 - player
        sub = Subgame(game, state, board, gadget_ranges(game, ranges, opponent, board))
        blueprint = load_strategy(sub, state, rows)
        gadget = ResolveGadget(sub, opponent, alternative_values(sub, blueprint, opponent))
        excess, margin = gadget.check(by_level(sub.workspace, blueprint))
        assert excess == pytest.approx(0.0, abs=1e-9) and margin == pytest.approx(0.0, abs=1e-5)
        # the uniform strategy DCFR starts from is no blueprint: the opponent gains somewhere
        assert gadget.check(sub.cfr.sigma)[0] > 0


@NO_HULHE
def test_the_rule_stops_a_river_resolve_before_its_cap_at_its_target() -> None:
    # the gadget alone (no committed share): its excess goes to 0, and the checks stop it there
    result, alternative = resolve(*river_spot(), iterations=200, target=TARGET, settle=SETTLE, commit=0.0)
    gadget = result.subgame.cfr.gadget
    assert isinstance(gadget, ResolveGadget) and gadget.reached
    assert result.iterations < 200 and result.iterations % 10 == 0
    t, excess, margin = gadget.history[-1]
    assert t == result.iterations and excess <= TARGET and abs(margin - gadget.history[-2][2]) <= SETTLE
    assert gadget.history[0][1] > TARGET  # after 10 iterations it was not safe yet: the checks decided
    # the final evaluation agrees with the last check: the opponent's best response is the blueprint's or less
    br = np.asarray(result.evaluation.best_cfv[1], dtype=np.float64)
    assert 100 * gadget.excess(br) / result.subgame.root_pot == pytest.approx(excess, abs=1e-6)
    assert gadget.margin(br) > 0 and np.mean(br <= alternative + 1e-3) > 0.97


def test_a_stopped_solve_is_the_fixed_count_solve_to_its_iteration_and_the_same_twice() -> None:
    spot = leduc_spot(3)
    # a loose target stops at a check; the fixed count runs to the same iteration without any check
    stopped, _ = resolve(*spot, iterations=200, target=0.5, settle=0.5, commit=0.0)
    again, _ = resolve(*spot, iterations=200, target=0.5, settle=0.5, commit=0.0)
    fixed, _ = resolve(*spot, iterations=stopped.iterations, commit=0.0)
    assert stopped.subgame.cfr.gadget.reached and stopped.iterations < 200
    assert again.iterations == fixed.iterations == stopped.iterations
    for a, b, c in zip(stopped.strategy, again.strategy, fixed.strategy):
        assert (a is None) == (b is None) == (c is None)
        if a is not None:
            assert np.array_equal(a, b) and np.array_equal(a, c)


def test_leduc_resolved_under_the_rule_is_less_exploitable_and_no_position_gains(monkeypatch) -> None:
    s = leduc(5)
    tree, blueprint = s.tree, s.average()
    runs: list[int] = []

    def counted(*args, **kwargs):
        result = resolve(*args, **kwargs)
        runs.append(result[0].iterations)
        return result
    monkeypatch.setattr(exact, "resolve", counted)
    before = exploitability(tree, blueprint)
    after = exploitability(tree, resolve_rounds(tree, blueprint, iterations=200, target=TARGET, settle=SETTLE))
    assert after.chips < before.chips
    for p in (0, 1):
        assert after.best_responses[p] <= before.best_responses[p] + 1e-6
    assert len(runs) > 30 and max(runs) <= 200 and np.mean(runs) < 100  # the rule, not the cap, stopped most


@NO_HULHE
def test_the_player_stops_by_the_rule_and_target_zero_is_the_fixed_count() -> None:
    view = View.parse(RIVER, HULHE)
    ruled, fixed = create("blueprint", HULHE, 3), create("blueprint:resolve_target=0", HULHE, 3)
    assert ruled.resolver.budget.target == TARGET and fixed.resolver.budget.target is None
    for player in (ruled, fixed):
        player.policy(view)
    assert fixed.resolver.iterations == [200] and 10 <= ruled.resolver.iterations[0] < 200
    assert ruled.resolver.cut_short == 0 and len(ruled.resolver.margins) == 1
    capped = create("blueprint:resolve_iterations=20", HULHE, 3)
    capped.policy(view)
    assert capped.resolver.iterations == [20] and capped.resolver.cut_short == 0  # the cap, not a cut


def test_bad_stopping_values_are_refused_and_the_players_defaults_are_the_clocks() -> None:
    assert (PLAYER_TARGET, PLAYER_SETTLE) == (TARGET, SETTLE)
    for bad in ({"target": -1.0}, {"settle": -0.1}, {"check_every": 0}):
        with pytest.raises(ValueError):
            Budget(**bad)  # type: ignore[arg-type]
    for spec in ("blueprint:resolve_target=-1", "blueprint:resolve_settle=-1"):
        with pytest.raises(ValueError):
            create(spec, HULHE, 1)
