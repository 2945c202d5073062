"""No-limit re-solving of the HUNL blueprint (issue 30): the opponent's real sizes in the re-solved tree, rows over
the table's legal actions, the blueprint's row when the clock cuts a solve short, the translation that reads
off-tree sizes for the ranges, the ladder that rebuilds the blueprint's own sizes, and the match clock.

Runs on a tiny policy trained here (one size a street), as tests/test_blueprint_hunl.py does: no shipped file.
"""

from __future__ import annotations

import random
from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest

from acpcbot.engine import CALL, FOLD, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.holdings import holding_index
from acpcbot.solve.blueprint_train import DEFAULT_BUCKETS
from acpcbot.solve.hunl.actions import HUNL_DEFAULT, ActionAbstraction, BlueprintTree, abstract_actions
from acpcbot.solve.hunl.cards import BucketDeals, build_cards
from acpcbot.solve.hunl.mccfr import MCCFR, Settings
from acpcbot.solve.hunl.policy import HunlBlueprint, buckets_digest, quantised_rows, write_policy
from acpcbot.solve.hunl.spec import HUNL
from acpcbot.solve.resolving.clock import Budget, MatchClock
from acpcbot.solve.resolving.columns import action_weights, find, to_columns
from acpcbot.solve.resolving.floor import ResolvingTable
from acpcbot.solve.subgame.abstraction import LadderSizes
from acpcbot.solve.subgame.tree import DECISION, build_tree
from acpcbot.world import View

GAME = load_game("hunl")
#: one size a street, one raise before all-in (the river: a pot-sized bet, then all-in only)
TINY = ActionAbstraction(sizes=(((1.0,),), ((0.5,),), ((1.0,),), ((1.0,),)), max_raises=(2, 1, 1, 1))
#: both players limp and check to the river: pot 200, position 0 (the big blind) acts first there
RIVER = "cc/cc/cc/"
CARDS = "|/7h7c2c/9h/5s"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from acpcbot.solve.abstraction import Buckets  # noqa: PLC0415
    buckets = Buckets.load(DEFAULT_BUCKETS)
    cards = build_cards(buckets, 6, 6)
    tree = BlueprintTree(GAME, TINY, cards.widths)
    trainer = MCCFR(tree, BucketDeals(buckets, cards), Settings(seed=2))
    trainer.run(300)
    path = tmp_path_factory.mktemp("hunl") / "tiny.npz"
    write_policy(path, tree, cards, quantised_rows(trainer), {"iterations": 300, "buckets": buckets_digest(buckets)})
    return path, HunlBlueprint(GAME, path, DEFAULT_BUCKETS)


def resolver(table, iterations: int = 20, seconds: float = 60.0, start_round: int = 3):
    return HUNL.resolver(GAME, table, iterations, seconds, start_round)


def state_of(position: int, betting: str, hole: str = "AsKd") -> State:
    cards = f"{hole}{CARDS}" if position == 0 else f"|{hole}{CARDS[1:]}"
    return View.parse(f"MATCHSTATE:{position}:0:{betting}:{cards}", GAME).state


def path_in_tree(tree, state: State, before: int) -> int | None:
    """The subgame node the real betting after the root leads to (None when an action is not in the tree)."""
    node = 0
    for step in state.steps(before):
        n = tree.nodes[node]
        i = find(n.actions, step.action)
        if i < 0:
            return None
        node = n.children[i]
    return node


@lru_cache(maxsize=1)
def opponent_sizes() -> list[int]:
    """Raise-to totals a river bettor may make into a pot of 200: both ends, around the ladder's 300, and a sweep."""
    return sorted({200, 201, 250, 299, 301, 333, 1000, 19_999, 20_000} | set(range(200, 20_001, 397)))


# ------------------------------------------------------------------ nested: the opponent's sizes are in the tree

def test_every_river_bet_the_opponent_can_make_is_in_the_resolved_tree(tiny):
    _, table = tiny
    r = resolver(table)
    for opening in (f"{RIVER}r", f"{RIVER}cr"):  # we act second (position 1), or check first (position 0)
        us = 1 if opening.endswith("/r") else 0
        for size in opponent_sizes():
            state = state_of(us, f"{opening}{size}")
            assert state.current_player == us
            spot = r.spot(state)
            tree = build_tree(GAME, spot.root, spot.board, spot.sizes)
            node = path_in_tree(tree, state, spot.before)
            assert node is not None and tree.nodes[node].kind == DECISION and tree.nodes[node].player == us, size
            # the ladder's own sizes key no new solve: only off-tree ones are extras, and only the opponent's
            assert (size in spot.key[-1]) == (size not in (300, 20_000)), size
            assert spot.sizes is not None and spot.sizes.extra_player == 1 - us


def test_an_off_tree_raise_of_our_bet_is_in_the_tree_too(tiny):
    _, table = tiny
    r = resolver(table)
    # we (position 1) bet the ladder's pot (to 300) over the check, the opponent raises to an odd 1,234
    state = state_of(1, f"{RIVER}cr300r1234")
    spot = r.spot(state)
    assert spot.key[-1] == (1234,)
    tree = build_tree(GAME, spot.root, spot.board, spot.sizes)
    assert path_in_tree(tree, state, spot.before) is not None


# ------------------------------------------------------------------ rows: legal, complete, re-solved

def test_rows_sum_to_one_over_the_tables_legal_actions_after_an_off_tree_bet(tiny):
    _, table = tiny
    r = resolver(table, iterations=30)
    state = state_of(1, f"{RIVER}r777")
    actions = table.actions(state)
    assert actions[0] == FOLD and actions[1] == CALL and all(state.is_legal(a) for a in actions)
    rows = r.rows(state, None, cap=False)
    assert rows is not None and r.solves == 1 and r.cut_short == 0 and r.missed == 0
    assert rows.shape == (1326, len(actions)) and (rows >= 0).all()
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-9)
    assert np.abs(rows - table.probabilities_all(state)).max() > 1e-3  # a re-solve, not the table
    again = ResolvingTable(table, r).probabilities(state)  # the same solve serves the one-holding question
    np.testing.assert_array_equal(again, rows[holding_index(GAME, state.hole[1])])
    assert r.solves == 1
    # the re-solve is safe against the blueprint: the opponent's best response never gains on average
    assert r.margins and r.margins[0][0] >= 0


def test_before_the_river_the_rows_are_the_blueprints(tiny):
    _, table = tiny
    r = resolver(table)
    turn = View.parse("MATCHSTATE:0:0:cc/cc/:AsKd|/7h7c2c/9h", GAME).state
    assert not r.active(turn)
    np.testing.assert_array_equal(ResolvingTable(table, r).probabilities_all(turn), table.probabilities_all(turn))


def test_a_resolve_cut_short_at_its_deadline_plays_the_blueprints_rows(tiny):
    _, table = tiny
    short = resolver(table, iterations=10_000, seconds=1e-6)
    state = state_of(1, f"{RIVER}r555")
    floor = ResolvingTable(table, short)
    np.testing.assert_array_equal(floor.probabilities_all(state), table.probabilities_all(state))
    np.testing.assert_array_equal(floor.probabilities(state), table.probabilities(state))
    assert short.cut_short == 1
    # and a clock with nothing in the bank cuts it short the same way
    broke = resolver(table)
    broke.clock = MatchClock(per_hand=1e-9, reserve=0.0)
    assert broke.rows(state, None) is None and broke.cut_short == 1


def test_a_solve_the_measured_pace_says_cannot_finish_is_not_started(tiny):
    _, table = tiny
    r = resolver(table)
    state = state_of(1, f"{RIVER}r555")
    r.pace = 1.0  # a second an iteration and node: 20 iterations of any tree pass the 6 s a decision
    assert r.rows(state, None) is None and r.skipped == 1 and r.solves == 0 and r.clock.used == 0.0
    assert r.rows(state, None, cap=False) is None  # the hand stays on the blueprint: one strategy a hand
    fresh = resolver(table)
    assert fresh.rows(state, None) is not None and fresh.skipped == 0 and fresh.pace is not None
    assert fresh.clock.used > 0.0


def test_the_strategy_plays_and_reports_the_resolved_rows(tiny):
    from acpcbot.strategies import builtin  # noqa: F401, PLC0415 - registers the strategies
    from acpcbot.strategies.registry import create  # noqa: PLC0415
    path, _ = tiny
    player = create(f"blueprint:policy={path},resolve_iterations=20,resolve_seconds=60", GAME, 3)
    plain = create(f"blueprint:policy={path},resolve=0", GAME, 3)
    view = View.parse(f"MATCHSTATE:1:0:{RIVER}r640:|JdQd/7h7c2c/9h/5s", GAME)
    policy = player.policy(view)
    assert policy.actions == plain.policy(view).actions
    assert np.allclose(policy.probs.sum(axis=1), 1.0)
    rows = player.resolving.probabilities_all(view.state)
    np.testing.assert_allclose(policy.probs, rows / rows.sum(axis=1, keepdims=True))
    assert np.abs(policy.probs - plain.policy(view).probs).max() > 1e-3
    for _ in range(5):
        assert view.state.is_legal(player.act(view, 1e12))
    assert player.resolver.solves == 1


# ------------------------------------------------------------------ translation and the ladder

def test_an_off_tree_size_reads_by_pseudo_harmonic_translation():
    state = State(GAME)
    state.apply(CALL)
    state.apply(CALL)  # the flop: pot 200, position 0 to act
    columns = (CALL, raise_to(200), raise_to(300), raise_to(20_000))  # bets of 1/2 pot, 1 pot, all-in
    # 3/4 pot (to 250): f(0.75) = (1 - 0.75)(1 + 0.5) / ((1 - 0.5)(1 + 0.75)) = 3/7 on the half pot
    (i, p), (j, q) = action_weights(state, raise_to(250), columns)
    assert (i, j) == (1, 2) and p == pytest.approx(3 / 7) and q == pytest.approx(4 / 7)
    assert action_weights(state, raise_to(300), columns) == [(2, 1.0)]
    assert action_weights(state, raise_to(20_000), columns) == [(3, 1.0)]      # all-in is all-in
    assert action_weights(state, raise_to(5_000), columns) == [(2, 1.0)]       # above the largest: the largest
    assert action_weights(state, CALL, columns) == [(0, 1.0)]
    # a subgame's extra size goes to the table's raise nearest it in chips, a fold where nothing is owed to check
    m = to_columns((FOLD, CALL, raise_to(260), raise_to(20_000)), columns)
    assert m.argmax(axis=1).tolist() == [0, 0, 2, 3]


def test_the_ladder_offers_the_blueprints_own_sizes_to_the_chip():
    rng = random.Random(7)
    ladder = LadderSizes(bet_fractions=(), raise_fractions=(), min_raise=False, ladder=HUNL_DEFAULT.sizes,
                         caps=HUNL_DEFAULT.max_raises)
    checked = 0
    for _ in range(60):
        state = State(GAME)
        while not state.finished:
            if ActionType.RAISE in state.legal_actions():
                tree = [a[1] for a in abstract_actions(state, HUNL_DEFAULT) if a[0] == ActionType.RAISE]
                assert ladder.raise_sizes(state, tuple(state.spent)) == tree
                checked += 1
                lo, hi = state.raise_bounds()
                if rng.random() < 0.5:
                    state.apply(raise_to(rng.choice([lo, hi, rng.randint(lo, hi), rng.randint(lo, min(hi, 4 * lo))])))
                    continue
            state.apply(FOLD if state.to_call() > 0 and rng.random() < 0.1 else CALL)
    assert checked > 100


def test_the_match_clock_banks_two_seconds_a_hand_and_caps_a_decision_at_six():
    clock = MatchClock(per_hand=2.0, per_decision=6.0, reserve=6.0)
    assert clock.allowance(0) == 6.0            # 6 reserve + 2: capped at 6
    clock.charge(5.0)
    assert clock.allowance(0) == 3.0            # the same hand: 8 - 5
    assert clock.allowance(1) == 5.0            # a new hand: 10 - 5
    clock.charge(7.0)
    assert clock.allowance(1) == 0.0            # overdrawn: nothing until hands pay it back
    assert clock.allowance(2) == 0.0 and clock.allowance(3) == 2.0  # 6 + 4 x 2 - 12
    seen = MatchClock(per_hand=2.0, reserve=0.0)
    for hand in (7, 7, 8, 9):                    # hands that never reach a solve still pay into the bank
        seen.see(hand)
    assert seen.allowance(9) == 6.0 and seen.allowance(10) == 6.0 and seen.hands == 4
    with pytest.raises(ValueError):
        MatchClock(per_hand=0.0)
    with pytest.raises(ValueError):
        Budget(0)


# ------------------------------------------------------------------ from the turn: a ladder of its own

TURN = "cc/cc/"


def turn_state(position: int, betting: str, hole: str = "AsKd") -> State:
    """A state on the turn (board 7h7c2c 9h) after ``betting``, seen by ``position``."""
    cards = f"{hole}|/7h7c2c/9h" if position == 0 else f"|{hole}/7h7c2c/9h"
    return View.parse(f"MATCHSTATE:{position}:0:{betting}:{cards}", GAME).state


def test_a_turn_subgame_bets_a_pot_or_all_in_with_one_raise_and_has_32_decisions(tiny):
    _, table = tiny
    r = resolver(table, start_round=2)
    spot = r.spot(turn_state(0, TURN))
    sizes = spot.sizes
    assert sizes is not None and spot.key[-1] == ()
    root = spot.root
    # pot 200 (100 each): a pot-sized bet is to 300, and all-in; over it only all-in (one raise a street)
    assert sizes.raise_sizes(root, tuple(root.spent)) == [300, 20_000]
    bet = root.copy()
    bet.apply(raise_to(300))
    assert sizes.raise_sizes(bet, tuple(root.spent)) == [20_000]
    # by hand: 8 decisions on the turn (check/pot/all-in, the answers), 3 of its lines reach the river (check-check,
    # check-pot-call, pot-call), each a river of 8: 8 + 3 x 8
    assert build_tree(GAME, root, spot.board, sizes).num_decisions == 32
    # the river's subgame keeps the table's ladder (its sizes to the chip: the tiny policy's pot)
    river = r.spot(state_of(0, RIVER))
    assert river.sizes is not None and river.sizes.raise_sizes(river.root, tuple(river.root.spent)) == [300, 20_000]
    # the shipped ladder (keying a spot reads no rows: the table's abstraction only)
    stub = SimpleNamespace(tree=SimpleNamespace(abstraction=HUNL_DEFAULT), probabilities_all=None, actions=tuple)
    shipped = HUNL.resolver(GAME, stub, 20, 60.0, 2)
    turn = shipped.spot(turn_state(0, TURN))
    assert build_tree(GAME, turn.root, turn.board, turn.sizes).num_decisions == 32
    river = shipped.spot(state_of(0, RIVER))  # the shipped ladder's river: 1/2, 1, 2 pots and all-in
    assert river.sizes.raise_sizes(river.root, tuple(river.root.spent)) == [200, 300, 500, 20_000]


def test_every_turn_bet_the_opponent_can_make_is_in_the_turn_subgame(tiny):
    _, table = tiny
    r = resolver(table, start_round=2)
    for opening in (f"{TURN}r", f"{TURN}cr"):
        us = 1 if opening.endswith("/r") else 0
        for size in (200, 250, 299, 300, 301, 777, 5_000, 19_999, 20_000):
            state = turn_state(us, f"{opening}{size}")
            spot = r.spot(state)
            tree = build_tree(GAME, spot.root, spot.board, spot.sizes)
            node = path_in_tree(tree, state, spot.before)
            assert node is not None and tree.nodes[node].kind == DECISION and tree.nodes[node].player == us, size
            assert (size in spot.key[-1]) == (size not in (300, 20_000)), size


def test_a_turn_resolve_gives_legal_complete_rows_and_is_safe_and_its_deadline_plays_the_blueprint(tiny):
    _, table = tiny
    r = resolver(table, iterations=40, start_round=2)
    state = turn_state(1, f"{TURN}r777")
    actions = table.actions(state)
    rows = r.rows(state, None, cap=False)
    assert rows is not None and r.solves == 1 and r.cut_short == 0 and r.missed == 0
    assert rows.shape == (1326, len(actions)) and (rows >= 0).all()
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-9)
    assert np.abs(rows - table.probabilities_all(state)).max() > 1e-3
    assert r.margins and r.margins[0][0] >= 0  # the gadget's opponent gains nothing over the blueprint on average
    short = resolver(table, iterations=10_000, seconds=1e-6, start_round=2)
    floor = ResolvingTable(table, short)
    np.testing.assert_array_equal(floor.probabilities_all(state), table.probabilities_all(state))
    assert short.cut_short == 1
