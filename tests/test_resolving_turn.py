"""Re-solving from the turn (issues 29, 30): the river dealt as classes of cards inside the turn subgame, exact for a
strategy that plays a class as one board, lossless where the classes are suit-isomorphic (Leduc), and the river
re-solved at its own start from the strategy the turn's solve played."""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, RAISE, State
from acpcbot.gamedef import load_game
from acpcbot.holdings import blocked
from acpcbot.solve.resolving.clock import Budget
from acpcbot.solve.resolving.gadget import alternative_values, by_level, load_strategy
from acpcbot.solve.resolving.player import Resolver
from acpcbot.solve.resolving.ranges import policy_ranges
from acpcbot.solve.subgame import Subgame, SubgameError
from acpcbot.solve.subgame.best_response import evaluate
from acpcbot.solve.subgame.chance import last_card_classes
from acpcbot.strategies import builtin  # noqa: F401  (registers every built-in strategy)
from acpcbot.strategies.blueprint import load_blueprint, shipped_reason
from acpcbot.strategies.registry import create
from acpcbot.world import View

HULHE = load_game("hulhe")
LEDUC = load_game("leduc")
needs_blueprint = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))


def _turn(num: int, seed: int):
    """A hulhe turn root (preflop raise-call, flop bet-call) on 7h 8h 2c 9h, random ranges of ``num`` holdings."""
    state = State(HULHE)
    for action in (RAISE, CALL, RAISE, CALL):
        state.apply(action)
    rng = np.random.default_rng(seed)
    ranges = []
    for _ in range(2):
        r = np.zeros(1326)
        r[rng.choice(1326, num, replace=False)] = rng.random(num) + 0.1
        ranges.append(r)
    return state, parse_cards("7h8h2c9h"), ranges


def _expand(exact: Subgame, classed: Subgame, strategy: list) -> list:
    """A class solve's strategy on the exact tree: every card plays its class's rows."""
    out = []
    for i, node in enumerate(exact.tree.nodes):
        rows = strategy[i]
        group = classed.tree.groups[node.group] if rows is not None else None
        if group is None or group.members is None:
            out.append(rows)
            continue
        cards = exact.tree.groups[node.group].boards[:, -1]
        out.append(rows[:, np.argmax(group.members[:, cards], axis=0), :])
    return out


def test_classes_partition_the_cards_and_suits_of_a_rank_share_one_in_leduc() -> None:
    board = tuple(parse_cards("7h8h2c9h"))
    classes = last_card_classes(HULHE, board, 6)
    cards = sorted(c for cls in classes for c in cls)
    assert len(classes) == 6 and all(classes) and cards == sorted(set(range(52)) - set(board))
    assert classes == last_card_classes(HULHE, board, 6)  # deterministic
    assert last_card_classes(HULHE, board, 48) == [(c,) for c in cards]
    # Leduc's two suits play alike: the three classes are the three ranks
    leduc = last_card_classes(LEDUC, (), 3)
    assert len(leduc) == 3 and all(len(cls) == 2 and len({c // 4 for c in cls}) == 1 for cls in leduc)
    with pytest.raises(SubgameError, match="at least 1"):
        Subgame(HULHE, _turn(10, 0)[0], board, _turn(10, 0)[2], last_classes=0)


def test_a_class_per_card_is_the_exact_subgame() -> None:
    state, board, ranges = _turn(40, 1)
    exact = Subgame(HULHE, state, board, ranges)
    classed = Subgame(HULHE, state, board, ranges, last_classes=48)
    a = exact.solve(target_pct=None, max_iterations=6)
    b = classed.solve(target_pct=None, max_iterations=6)
    np.testing.assert_allclose(a.evaluation.best, b.evaluation.best, rtol=1e-5, atol=1e-6)
    for p in (0, 1):
        np.testing.assert_allclose(a.cfv[p], b.cfv[p], rtol=1e-4, atol=1e-6)


def test_a_class_per_card_loads_the_blueprint_and_its_alternatives_as_the_exact_subgame() -> None:
    state, board, ranges = _turn(40, 3)

    def rows(_i, node, _state, full) -> np.ndarray:  # a blueprint whose rows depend on the holding and the river
        x = (np.arange(1326)[:, None] * (3 + len(node.children)) + np.arange(len(node.children)) * sum(full)) % 7
        return (x + 1.0) / (x + 1.0).sum(axis=1, keepdims=True)

    exact = Subgame(HULHE, state, board, ranges)
    classed = Subgame(HULHE, state, board, ranges, last_classes=48)
    a = alternative_values(exact, load_strategy(exact, state, rows), 1)
    b = alternative_values(classed, load_strategy(classed, state, rows), 1)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    # with fewer classes a class plays the mean of its cards' rows, not its representative's
    coarse = Subgame(HULHE, state, board, ranges, last_classes=2)
    mean, rep = load_strategy(coarse, state, rows, class_reads=52), load_strategy(coarse, state, rows, class_reads=1)
    river = [i for i, n in enumerate(coarse.tree.nodes) if mean[i] is not None and coarse.tree.groups[n.group].members
             is not None]
    assert river and any(not np.allclose(mean[i], rep[i]) for i in river)


def test_class_values_are_exact_for_a_strategy_that_plays_each_class_as_one_board() -> None:
    # the class's showdown matrix sums its cards' matrices and its folds count the cards neither holding holds:
    # the values of a class-tied strategy are the exact subgame's, holding by holding
    state, board, ranges = _turn(60, 2)
    classed = Subgame(HULHE, state, board, ranges, last_classes=5)
    assert len(classed.tree.groups[-1].boards) == 5
    result = classed.solve(target_pct=None, max_iterations=8)
    exact = Subgame(HULHE, state, board, ranges)
    levels = by_level(exact.workspace, _expand(exact, classed, result.strategy))
    ev = evaluate(exact.workspace, levels, with_values=True)
    for p in (0, 1):
        np.testing.assert_allclose(exact.expand(p, ev.cfv[p]), result.cfv[p], rtol=2e-4, atol=1e-5)
    assert ev.value[0] == pytest.approx(result.evaluation.value[0], rel=1e-4, abs=1e-6)
    # a best response that sees the real card gains at least what one that sees only the class does
    assert ev.best[0] >= result.evaluation.best[0] - 1e-6 and ev.best[1] >= result.evaluation.best[1] - 1e-6


def test_leduc_with_its_ranks_as_classes_solves_to_the_games_value() -> None:
    # a Leduc board card's suit is irrelevant, so three classes (the ranks) lose nothing: the value is the game's
    sub = Subgame(LEDUC, State(LEDUC), (), (np.ones(6), np.ones(6)), last_classes=3)
    assert len(sub.tree.groups[1].boards) == 3
    result = sub.solve(target_pct=0.2, max_iterations=3000, check_every=50)
    assert result.exploitability_pct <= 0.2
    assert result.evaluation.value[0] == pytest.approx(-0.0856, abs=2e-3)
    coarse = Subgame(LEDUC, State(LEDUC), (), (np.ones(6), np.ones(6)), last_classes=1).solve(
        target_pct=0.2, max_iterations=3000, check_every=50)
    assert abs(coarse.evaluation.value[0] + 0.0856) > 0.01  # one class is a real loss: the test can fail


@needs_blueprint
def test_the_river_is_resolved_at_its_start_from_the_turns_played_rows() -> None:
    table = load_blueprint(HULHE)
    resolver = Resolver(HULHE, table.probabilities_all, Budget(iterations=3, seconds=60, target=None),
                        start_round=2, last_classes=3, early=Budget(iterations=3, seconds=60, target=None))
    turn = View.parse("MATCHSTATE:0:0:rc/cc/:AsKd|/7h7c2c/9h", HULHE).state
    rows = resolver.rows(turn)
    assert rows is not None and resolver.solves == 1 and np.allclose(rows.sum(axis=1), 1.0)
    solved = next(iter(resolver.solutions.values()))
    assert solved is not None and len(solved.tree.groups[-1].boards) == 3  # the river as three classes
    river = View.parse("MATCHSTATE:0:0:rc/cc/cc/:AsKd|/7h7c2c/9h/5s", HULHE).state
    spot = resolver.spot(river)
    assert spot.root.round == 3 and len(spot.board) == 5  # rooted at the river's start, not the turn's
    ranges = resolver.ranges(river, spot)
    blueprint_ranges = policy_ranges(river, table.probabilities_all, before=spot.before)
    turn_check = rows[:, int(CALL.type)]
    # our range: the blueprint's to the turn, then the turn solve's check; the opponent's: the blueprint's
    np.testing.assert_allclose(blueprint_ranges[1], ranges[1])
    played = policy_ranges(turn, table.probabilities_all)[0] * turn_check
    played[blocked(HULHE, river.board)] = 0.0
    np.testing.assert_allclose(ranges[0], played, rtol=1e-6, atol=1e-12)
    assert not np.allclose(ranges[0], blueprint_ranges[0])
    assert resolver.rows(river) is not None and resolver.solves == 2


@needs_blueprint
def test_resolve_from_turn_deals_the_river_as_classes() -> None:
    player = create("blueprint:resolve_from=turn", HULHE, 2)
    assert player.resolver.last_classes is not None and player.resolver.early is not None
    assert create("blueprint", HULHE, 2).resolver.last_classes is None
