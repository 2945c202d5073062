"""Depth-limited re-solving from the flop: leaves where the flop's betting ends, the rest of the board checked down.

Golden facts: the equity matrix by hand in Leduc and against a brute force
over every runout in hold'em; a depth-limited tree counted by hand; in
play, the flop re-solved once for every holding (rows legal and complete,
the gadget's margin >= 0), every flop bet the opponent can make in the
tree, the turn left to the blueprint and the river re-solved.
"""

from __future__ import annotations

import itertools

import hunlkit
import numpy as np
import pytest

from acpcbot.engine import CALL, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.holdings import holding_index, holdings
from acpcbot.solve.hunl.spec import HUNL
from acpcbot.solve.resolving.columns import find
from acpcbot.solve.subgame.abstraction import LadderSizes
from acpcbot.solve.subgame.hands import player_hands
from acpcbot.solve.subgame.leaves import equity_matrix, runouts
from acpcbot.solve.subgame.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN, SubgameError, build_tree

HUNL_GAME = load_game("hunl")
LEDUC = load_game("leduc")
FLOP = (0, 21, 30)


def _one(game, cards: tuple[int, ...], board: tuple[int, ...] = ()):
    weights = np.zeros(len(holdings(game)))
    weights[holding_index(game, cards)] = 1.0
    return player_hands(game, weights, board, "test")


def test_leduc_equity_by_hand():
    # the deck: two each of three ranks (42/43, 46/47, 50/51); a pair beats no pair, else the higher card
    low, mid = _one(LEDUC, (42,)), _one(LEDUC, (46,))
    # 42 against 46 over the four cards left: 43 pairs 42 (wins), 47 pairs 46, 50 and 51 give 46 the kicker
    assert equity_matrix(LEDUC, (), low, mid)[0, 0, 0] == pytest.approx((1 - 3) / 4)
    assert equity_matrix(LEDUC, (), mid, low)[0, 0, 0] == pytest.approx((3 - 1) / 4)
    same = _one(LEDUC, (43,))
    assert equity_matrix(LEDUC, (), low, same)[0, 0, 0] == 0.0     # the same rank: every board a tie


def test_holdem_equity_over_every_runout_matches_a_brute_force():
    a, b = (51, 47), (41, 40)                                        # two hole pairs, neither on the flop
    rank = HUNL_GAME.ranking_for_showdown
    wins = losses = 0
    rest = [c for c in range(52) if c not in FLOP + a + b]
    for turn, river in itertools.combinations(rest, 2):
        board = FLOP + (turn, river)
        ra, rb = rank(a + board), rank(b + board)
        wins += ra > rb
        losses += ra < rb
    everything = np.array(list(itertools.combinations([c for c in range(52) if c not in FLOP], 2)))
    got = equity_matrix(HUNL_GAME, FLOP, _one(HUNL_GAME, a, FLOP), _one(HUNL_GAME, b, FLOP), cards=everything)
    assert got[0, 0, 0] == pytest.approx((wins - losses) / len(list(itertools.combinations(rest, 2))), abs=1e-6)


def test_runouts_are_all_of_them_when_few_and_a_seeded_sample_of_each_next_card_else():
    turn = runouts(HUNL_GAME, FLOP + (5,))
    assert turn.shape == (48, 1)                                     # a turn's 48 rivers, every one
    flop = runouts(HUNL_GAME, FLOP)
    assert flop.shape == (49 * 3, 2) and set(flop[:, 0].tolist()) == set(range(52)) - set(FLOP)
    assert np.array_equal(flop, runouts(HUNL_GAME, FLOP))           # the same sample in play and in a replay


def _flop_root() -> State:
    state = State(HUNL_GAME).apply(CALL).apply(CALL)                 # limped: 100 each
    state.deal_board(FLOP)
    return state


def test_a_depth_limited_flop_tree_stops_where_the_flops_betting_ends():
    all_in = LadderSizes(bet_fractions=(), raise_fractions=(), min_raise=False)
    tree = build_tree(HUNL_GAME, _flop_root(), FLOP, all_in, depth_limited=True)
    kinds = [n.kind for n in tree.nodes]
    # by hand: check or all-in; after a check, check (a leaf) or all-in; facing all-in, fold or call (a leaf)
    assert kinds.count(DECISION) == 4 and kinds.count(FOLD_END) == 2 and kinds.count(SHOWDOWN) == 3
    assert CHANCE not in kinds and len(tree.groups) == 1 and tree.depth_limited
    leaves = sorted(n.payoff0 for n in tree.nodes if n.kind == SHOWDOWN)
    assert leaves == [100.0, 20_000.0, 20_000.0]                     # each player's stake at the leaf
    with pytest.raises(SubgameError):                                # the river is the whole rest of the hand
        river = _flop_root().apply(CALL).apply(CALL)
        river.deal_board((5,))
        river.apply(CALL).apply(CALL)
        river.deal_board((6,))
        build_tree(HUNL_GAME, river, FLOP + (5, 6), all_in, depth_limited=True)


@pytest.fixture(scope="module")
def flop_resolver(tmp_path_factory):
    table = hunlkit.random_policy(HUNL_GAME, tmp_path_factory.mktemp("hunl") / "random.npz")
    resolver = HUNL.resolver(HUNL_GAME, table, 20, 60.0, HUNL.start_round(HUNL_GAME, "flop"))
    resolver.clock = None
    return table, resolver


def _state(betting: tuple, board=FLOP) -> State:
    state = State(HUNL_GAME, hole=[(12, 13), (44, 45)]).apply(CALL).apply(CALL)
    state.deal_board(board)
    for action in betting:
        state.apply(action)
    return state


def test_the_flop_is_resolved_depth_limited_the_turn_left_to_the_table_the_river_resolved(flop_resolver):
    table, r = flop_resolver
    assert r.start_round == 1 and r.depth_limited == {1} and r.skip == {2}
    state = _state((raise_to(777),))                                  # an off-ladder bet: 677 into 200
    actions = table.actions(state)
    rows = r.rows(state, None, cap=False)
    assert rows is not None and r.solves == 1 and r.missed == 0
    assert rows.shape == (1326, len(actions)) and (rows >= 0).all()
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-9)
    assert np.abs(rows - table.probabilities_all(state)).max() > 1e-3
    assert r.margins and r.margins[0][0] >= 0     # the gadget's opponent gains nothing over the blueprint on average
    spot = r.spot(state)
    assert spot.key[-1] == (777,)                                    # nested: the real size in the tree
    turn = _state((CALL, CALL))
    turn.deal_board((5,))
    assert not r.active(turn)
    river = turn.apply(CALL).apply(CALL)
    river.deal_board((6,))
    assert r.active(river)


def test_every_flop_bet_the_opponent_can_make_is_in_the_depth_limited_tree(flop_resolver):
    _, r = flop_resolver
    for size in (200, 201, 250, 299, 300, 301, 777, 5_000, 19_999, 20_000):
        state = _state((raise_to(size),))
        spot = r.spot(state)
        tree = build_tree(HUNL_GAME, spot.root, spot.board, spot.sizes, depth_limited=True)
        node = 0
        for step in state.steps(spot.before):
            i = find(tree.nodes[node].actions, step.action)
            assert i >= 0, size
            node = tree.nodes[node].children[i]
        assert tree.nodes[node].kind == DECISION and tree.nodes[node].player == 1, size
        # the ladder's own sizes (half the pot: to 200; all-in) key no new solve, every other one does
        assert (size in spot.key[-1]) == (size not in (200, 20_000)), size


def test_an_off_ladder_bet_roots_the_resolve_at_our_answer_with_the_opponents_range_read_through_it(flop_resolver):
    from acpcbot.solve.resolving.columns import action_weights  # noqa: PLC0415
    from acpcbot.solve.resolving.ranges import policy_ranges  # noqa: PLC0415
    table, r = flop_resolver
    on, off = _state((raise_to(200),)), _state((raise_to(777),))
    # the ladder's half-pot bet: rooted where the flop's betting began; 777: where we answer it
    assert r.spot(on).root.round == 1 and r.spot(on).before == 2 and r.spot(on).root.current_player == 0
    spot = r.spot(off)
    assert spot.before == 3 and spot.root.current_player == 1 and spot.root.spent[0] == 777
    # the opponent's range there is the blueprint's reach with its bet read on the table's sizes (translation)
    theirs, ours = r.ranges(off, spot)                               # position 0 bet, we are position 1

    def read(before, action):
        return action_weights(before, action, table.actions(before))
    expected = policy_ranges(off, table.probabilities_all, before=3, read=read)
    np.testing.assert_allclose(theirs, expected[0])
    np.testing.assert_allclose(ours, expected[1])
    street_start = policy_ranges(off, table.probabilities_all, before=2, read=read)
    # read through its bet: each holding's reach times the probability of betting it (below the street's start)
    assert (theirs <= street_start[0] + 1e-12).all() and theirs.sum() < 0.95 * street_start[0].sum()
