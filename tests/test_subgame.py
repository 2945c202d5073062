"""The subgame solver's pieces against golden facts: SOLVER_SPOTS.md's trees to the chip, and brute-force loops.

The two spots' trees are the published ones (32 decision nodes and 61
lines on the river, 192 and 321 on the turn); fold and showdown values with
card removal match a loop over every pair of holdings; the exact best
response matches one computed by plain recursion over holdings.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, State, raise_to
from acpcbot.evaluator.ranking import showdown_value
from acpcbot.gamedef import load_game
from acpcbot.holdings import holdings
from acpcbot.solve.subgame import BetSizes, Subgame, SubgameError, build_tree, spot_sizes
from acpcbot.solve.subgame.best_response import evaluate
from acpcbot.solve.subgame.hands import player_hands, showdown_values
from acpcbot.solve.subgame.spots import spot
from acpcbot.solve.subgame.terminal import FoldSums, showdown_matrix
from acpcbot.solve.subgame.tree import FOLD_END, SHOWDOWN

RIVER_LINES = """
X X => showdown oop_in=0 ip_in=0 pot=200
X B100 F => fold oop_in=0 ip_in=100 pot=300
X B100 C => showdown oop_in=100 ip_in=100 pot=400
X B100 R200 F => fold oop_in=200 ip_in=100 pot=500
X B100 R200 C => showdown oop_in=200 ip_in=200 pot=600
X B100 R200 R400 F => fold oop_in=200 ip_in=400 pot=800
X B100 R200 R400 C => showdown oop_in=400 ip_in=400 pot=1000
X B100 R200 R400 R800 F => fold oop_in=800 ip_in=400 pot=1400
X B100 R200 R400 R800 C => showdown oop_in=800 ip_in=800 pot=1800
X B100 R200 R400 R800 A900 F => fold oop_in=800 ip_in=900 pot=1900
X B100 R200 R400 R800 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B100 R200 R400 A900 F => fold oop_in=900 ip_in=400 pot=1500
X B100 R200 R400 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B100 R200 A900 F => fold oop_in=200 ip_in=900 pot=1300
X B100 R200 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B100 A900 F => fold oop_in=900 ip_in=100 pot=1200
X B100 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B200 F => fold oop_in=0 ip_in=200 pot=400
X B200 C => showdown oop_in=200 ip_in=200 pot=600
X B200 R400 F => fold oop_in=400 ip_in=200 pot=800
X B200 R400 C => showdown oop_in=400 ip_in=400 pot=1000
X B200 R400 R800 F => fold oop_in=400 ip_in=800 pot=1400
X B200 R400 R800 C => showdown oop_in=800 ip_in=800 pot=1800
X B200 R400 R800 A900 F => fold oop_in=900 ip_in=800 pot=1900
X B200 R400 R800 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B200 R400 A900 F => fold oop_in=400 ip_in=900 pot=1500
X B200 R400 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X B200 A900 F => fold oop_in=900 ip_in=200 pot=1300
X B200 A900 C => showdown oop_in=900 ip_in=900 pot=2000
X A900 F => fold oop_in=0 ip_in=900 pot=1100
X A900 C => showdown oop_in=900 ip_in=900 pot=2000
B100 F => fold oop_in=100 ip_in=0 pot=300
B100 C => showdown oop_in=100 ip_in=100 pot=400
B100 R200 F => fold oop_in=100 ip_in=200 pot=500
B100 R200 C => showdown oop_in=200 ip_in=200 pot=600
B100 R200 R400 F => fold oop_in=400 ip_in=200 pot=800
B100 R200 R400 C => showdown oop_in=400 ip_in=400 pot=1000
B100 R200 R400 R800 F => fold oop_in=400 ip_in=800 pot=1400
B100 R200 R400 R800 C => showdown oop_in=800 ip_in=800 pot=1800
B100 R200 R400 R800 A900 F => fold oop_in=900 ip_in=800 pot=1900
B100 R200 R400 R800 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B100 R200 R400 A900 F => fold oop_in=400 ip_in=900 pot=1500
B100 R200 R400 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B100 R200 A900 F => fold oop_in=900 ip_in=200 pot=1300
B100 R200 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B100 A900 F => fold oop_in=100 ip_in=900 pot=1200
B100 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B200 F => fold oop_in=200 ip_in=0 pot=400
B200 C => showdown oop_in=200 ip_in=200 pot=600
B200 R400 F => fold oop_in=200 ip_in=400 pot=800
B200 R400 C => showdown oop_in=400 ip_in=400 pot=1000
B200 R400 R800 F => fold oop_in=800 ip_in=400 pot=1400
B200 R400 R800 C => showdown oop_in=800 ip_in=800 pot=1800
B200 R400 R800 A900 F => fold oop_in=800 ip_in=900 pot=1900
B200 R400 R800 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B200 R400 A900 F => fold oop_in=900 ip_in=400 pot=1500
B200 R400 A900 C => showdown oop_in=900 ip_in=900 pot=2000
B200 A900 F => fold oop_in=200 ip_in=900 pot=1300
B200 A900 C => showdown oop_in=900 ip_in=900 pot=2000
A900 F => fold oop_in=900 ip_in=0 pot=1100
A900 C => showdown oop_in=900 ip_in=900 pot=2000
"""

TURN_EXAMPLE = """
B200 C | X X => showdown oop_in=200 ip_in=200 pot=600
B200 C | X B300 F => fold oop_in=200 ip_in=500 pot=900
B200 C | X B300 C => showdown oop_in=500 ip_in=500 pot=1200
B200 C | X B300 R600 F => fold oop_in=800 ip_in=500 pot=1500
B200 C | X B300 R600 C => showdown oop_in=800 ip_in=800 pot=1800
B200 C | X B300 R600 A700 F => fold oop_in=800 ip_in=900 pot=1900
B200 C | X B300 R600 A700 C => showdown oop_in=900 ip_in=900 pot=2000
B200 C | X B300 A700 F => fold oop_in=900 ip_in=500 pot=1600
B200 C | X B300 A700 C => showdown oop_in=900 ip_in=900 pot=2000
B200 C | X B600 F => fold oop_in=200 ip_in=800 pot=1200
B200 C | X B600 C => showdown oop_in=800 ip_in=800 pot=1800
B200 C | X B600 A700 F => fold oop_in=900 ip_in=800 pot=1900
"""


def test_river_spot_tree_is_the_published_one() -> None:
    game, state, board, _ = spot("river")
    tree = build_tree(game, state, board, spot_sizes())
    assert tree.num_decisions == 32
    assert sorted(tree.terminal_lines()) == sorted(RIVER_LINES.strip().splitlines())


def test_turn_spot_tree_counts_and_lines() -> None:
    game, state, board, _ = spot("turn")
    tree = build_tree(game, state, board, spot_sizes())
    lines = tree.terminal_lines()
    assert tree.num_decisions == 192
    assert len(lines) == 321
    on_turn = [line for line in lines if "|" not in line]
    assert len(on_turn) == 46
    assert sum(1 for line in on_turn if "=> fold" in line) == 30
    assert sum(1 for line in on_turn if "=> showdown" in line) == 16
    assert set(TURN_EXAMPLE.strip().splitlines()) <= set(lines)
    assert len(tree.groups) == 2 and len(tree.groups[1].boards) == 48


def test_bet_sizes_clamp_to_the_engine_and_add_min_raise_and_all_in() -> None:
    game = load_game("hunl")
    state = State(game).apply(CALL).apply(CALL)  # flop: pot 200, 100 in each, 19,900 behind
    sizes = BetSizes(bet_fractions=(0.1, 1.0), raise_fractions=(1.0,), extra_to=(1234,))
    start = (100, 100)
    # 10% of 200 is below the minimum bet (one big blind): clamped up to it, the same as the min raise
    assert sizes.raise_sizes(state, start) == [200, 300, 1234, 20000]
    state.apply(raise_to(300))  # a pot-sized bet of 200
    # pot raise: call 200 makes 600 in the pot, raise by that: to 900; min raise to 500
    assert sizes.raise_sizes(state, start) == [500, 900, 1234, 20000]
    assert BetSizes(max_raises=1).raise_sizes(state, start) == []
    assert spot_sizes().raise_sizes(state, start) == [500, 20000]  # 2x of the bet of 200 on the street


def test_bad_input_is_named_before_work() -> None:
    game, state, board, ranges = spot("river")
    with pytest.raises(SubgameError, match="board cards"):
        build_tree(game, state, board[:4], spot_sizes())
    with pytest.raises(SubgameError, match="one weight per holding"):
        Subgame(game, state, board, (ranges[0][:10], ranges[1]), spot_sizes())
    with pytest.raises(SubgameError, match="no holding left"):
        Subgame(game, state, board, (np.zeros(1326), ranges[1]), spot_sizes())
    with pytest.raises(SubgameError, match="abstraction"):
        Subgame(game, state, board, ranges)


def _random_hands(game, board, seed, n):
    rng = np.random.default_rng(seed)
    out = []
    for who in ("a", "b"):
        r = np.zeros(len(holdings(game)))
        r[rng.choice(len(r), n, replace=False)] = rng.random(n) + 0.1
        out.append(player_hands(game, r, board, who))
    return out


def test_fold_sums_with_card_removal_match_a_loop_over_pairs() -> None:
    game = load_game("hulhe")
    board = parse_cards("Td9d6hQc2s")
    own, opp = _random_hands(game, board, 1, 300)
    reach = np.random.default_rng(2).random((3, len(opp.rows))).astype(np.float32)
    cards, dense = FoldSums(own, opp, "cards"), FoldSums(own, opp, "dense")
    assert not cards.dense and dense.dense
    for t in range(3):
        want = [sum(reach[t, j] for j, b in enumerate(opp.cards.tolist()) if not set(a) & set(b))
                for a in own.cards.tolist()]
        np.testing.assert_allclose(cards(reach)[t], want, rtol=1e-4)
        np.testing.assert_allclose(dense(reach)[t], want, rtol=1e-4)


def test_fold_sums_one_hole_card_leduc() -> None:
    game = load_game("leduc")
    own = player_hands(game, np.ones(6), (), "a")
    opp = player_hands(game, np.arange(1, 7, dtype=float), (), "b")
    for mode in ("cards", "dense"):
        got = FoldSums(own, opp, mode)(opp.weights.astype(np.float32)[None])[0]
        np.testing.assert_allclose(got, 21.0 - np.arange(1, 7))


def test_showdown_values_match_a_loop_with_the_evaluator() -> None:
    game = load_game("hulhe")
    board = parse_cards("Td9d6hQc2s")
    own, opp = _random_hands(game, board, 3, 200)
    boards = np.array([board])
    ones = (np.ones((1, len(own.rows)), np.float32), np.ones((1, len(opp.rows)), np.float32))
    m = showdown_matrix(showdown_values(game, boards, own), showdown_values(game, boards, opp), *ones, own, opp)
    reach = np.random.default_rng(4).random(len(opp.rows))
    got = m[0] @ reach
    want = np.zeros(len(own.rows))
    for i, a in enumerate(own.cards.tolist()):
        va = showdown_value(tuple(a) + board)
        for j, b in enumerate(opp.cards.tolist()):
            if set(a) & set(b):
                continue
            vb = showdown_value(tuple(b) + board)
            want[i] += reach[j] * ((va > vb) - (va < vb))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _brute_best_response(sub, strategy, player):
    """Best-response value by recursion over holdings and nodes, one pair of holdings at a time (river only)."""
    tree, prep = sub.tree, sub.prep
    board = tuple(tree.groups[0].boards[0].tolist())
    me, opp = prep.hands[player], prep.hands[1 - player]
    sign = 1.0 if player == 0 else -1.0

    def value(node, h, reach):  # reach: opponent reach per opponent holding
        n = tree.nodes[node]
        a = me.cards[h].tolist()
        if n.kind in (FOLD_END, SHOWDOWN):
            total = 0.0
            for j, b in enumerate(opp.cards.tolist()):
                if set(a) & set(b) or reach[j] == 0:
                    continue
                if n.kind == FOLD_END:
                    pay = sign * n.payoff0
                else:
                    va, vb = showdown_value(tuple(a) + board), showdown_value(tuple(b) + board)
                    pay = n.payoff0 * ((va > vb) - (va < vb))
                total += reach[j] * pay
            return total
        if n.player == player:
            return max(value(c, h, reach) for c in n.children)
        s = strategy[node]
        return sum(value(c, h, reach * s[k, 0].astype(np.float64)) for k, c in enumerate(n.children))

    total = sum(me.weights[h] * value(0, h, opp.weights.copy()) for h in range(len(me.rows)))
    return total / prep.normaliser


def test_exploitability_matches_brute_force_on_a_small_river_spot() -> None:
    game = load_game("hulhe")
    state = State(game)
    while state.round < 3:
        state.apply(CALL)
    board = parse_cards("Td9d6hQc2s")
    rng = np.random.default_rng(5)
    ranges = []
    for _ in range(2):
        r = np.zeros(1326)
        r[rng.choice(1326, 12, replace=False)] = rng.random(12) + 0.2
        ranges.append(r)
    sub = Subgame(game, state, board, ranges)
    result = sub.solve(target_pct=None, max_iterations=3)
    levels = sub.cfr.average_levels()
    ev = evaluate(sub.workspace, levels)
    for p in (0, 1):
        assert ev.best[p] == pytest.approx(_brute_best_response(sub, result.strategy, p), rel=1e-4, abs=1e-4)
    assert ev.value[0] == pytest.approx(-ev.value[1], abs=1e-3)
    assert ev.best[0] >= ev.value[0] - 1e-4 and ev.best[1] >= ev.value[1] - 1e-4
