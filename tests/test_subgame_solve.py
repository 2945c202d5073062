"""The subgame solver end to end: it converges, keeps to its budget with a complete policy, and is exact on Leduc.

Leduc from its first decision, both ranges uniform, is the whole game: the
solver's value for the first player must be the game's (-0.0856 chips, as
the exact solver of ``acpcbot.solve`` finds it) and its exploitability go to
zero; the no-limit Leduc variant solves too, with chance over the board card.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, State
from acpcbot.gamedef import load_game
from acpcbot.solve import Solver, build_tree as build_full_tree, exploitability as full_exploitability
from acpcbot.solve.subgame import BetSizes, Subgame, SubgameError, spot_sizes
from acpcbot.solve.subgame.best_response import evaluate
from acpcbot.solve.subgame.spots import spot
from acpcbot.solve.subgame.tree import CHANCE, DECISION, FOLD_END, SHOWDOWN


def _hulhe_river(num: int, seed: int):
    game = load_game("hulhe")
    state = State(game)
    while state.round < 3:
        state.apply(CALL)
    board = parse_cards("Td9d6hQc2s")
    rng = np.random.default_rng(seed)
    ranges = []
    for _ in range(2):
        r = np.zeros(1326)
        r[rng.choice(1326, num, replace=False)] = 1.0
        ranges.append(r)
    return game, state, board, ranges


def test_river_spot_converges_under_the_target() -> None:
    game, state, board, ranges = spot("river")
    result = Subgame(game, state, board, ranges, spot_sizes()).solve(target_pct=2.0, check_every=5)
    pcts = [pct for _, _, pct in result.history]
    assert pcts[-1] <= 2.0
    assert pcts == sorted(pcts, reverse=True)
    assert result.exploitability_pct == pytest.approx(pcts[-1])
    v0, v1 = result.evaluation.value
    assert v0 == pytest.approx(-v1, abs=1e-3)  # zero-sum
    # the final evaluation reuses the last check's best responses: they are those of the strategy returned
    fresh = evaluate(result.subgame.workspace, result.subgame.cfr.average_levels())
    assert fresh.best == pytest.approx(result.evaluation.best, rel=1e-6)
    assert fresh.value == pytest.approx(result.evaluation.value, rel=1e-6, abs=1e-6)


def test_more_iterations_lower_exploitability_on_a_limit_river() -> None:
    sub = Subgame(*_hulhe_river(150, 7))
    first = sub.solve(target_pct=None, max_iterations=5).exploitability
    second = sub.solve(target_pct=None, max_iterations=60).exploitability
    assert second < first / 4


def _check_policy(result) -> None:
    tree = result.tree
    for i, node in enumerate(tree.nodes):
        if node.kind != DECISION:
            assert result.strategy[i] is None
            continue
        s = result.strategy[i]
        assert s.shape[0] == len(node.children) == len(node.actions)  # one row per legal abstract action
        np.testing.assert_allclose(s.sum(axis=0), 1.0, atol=1e-5)
        assert (s >= 0).all()


def test_a_zero_time_limit_returns_a_complete_uniform_policy() -> None:
    game, state, board, ranges = spot("turn")
    result = Subgame(game, state, board, ranges, spot_sizes()).solve(target_pct=0.5, time_limit=0.0)
    assert result.iterations == 0
    _check_policy(result)
    root = result.strategy[0]
    np.testing.assert_allclose(root, 1.0 / root.shape[0])
    assert result.exploitability_pct > 0.5


def test_an_iteration_budget_gives_a_complete_policy_and_values() -> None:
    game, state, board, ranges = spot("turn")
    sub = Subgame(game, state, board, ranges, spot_sizes())
    result = sub.solve(target_pct=None, max_iterations=2)
    assert result.iterations == 2
    _check_policy(result)
    probs = result.action_probs(0, board, int(np.flatnonzero(ranges[0])[0]))
    assert list(probs) == ["X", "B100", "B200", "A900"] and sum(probs.values()) == pytest.approx(1.0, abs=1e-5)
    cfv, ev = result.cfv, result.ev
    assert cfv[0].shape == (1326,) and (cfv[1][ranges[1] == 0] == 0).all()
    mass = sub.opponent_mass(0)
    assert float(ranges[0] @ cfv[0]) / float(ranges[0] @ mass) == pytest.approx(
        float(ranges[0] @ (ev[0] * mass)) / float(ranges[0] @ mass))


def test_solve_needs_a_stopping_rule() -> None:
    with pytest.raises(SubgameError, match="never stops"):
        Subgame(*_hulhe_river(20, 1)).solve(target_pct=None)


def test_leduc_from_the_root_is_the_whole_game() -> None:
    game = load_game("leduc")
    state = State(game)
    sub = Subgame(game, state, (), (np.ones(6), np.ones(6)))
    result = sub.solve(target_pct=0.2, max_iterations=3000, check_every=50)
    assert result.exploitability_pct <= 0.2
    # the exact solver of acpcbot.solve on the same game: the same value
    full = Solver(build_full_tree(game))
    full.run(300)
    report = full_exploitability(full.tree, full.average())
    assert result.evaluation.value[0] == pytest.approx(report.values[0], abs=2e-3)
    assert result.evaluation.value[0] == pytest.approx(-0.0856, abs=2e-3)


def test_leduc_no_limit_solves_with_chance_over_the_board() -> None:
    game = load_game("leducnl")
    state = State(game)
    sub = Subgame(game, state, (), (np.ones(6), np.ones(6)), BetSizes(bet_fractions=(1.0,), raise_fractions=(1.0,)))
    assert len(sub.tree.groups) == 2 and len(sub.tree.groups[1].boards) == 6
    first = sub.solve(target_pct=None, max_iterations=10).exploitability
    result = sub.solve(target_pct=2.0, max_iterations=2000, check_every=25)
    assert result.exploitability < first and result.exploitability_pct <= 2.0


def test_a_leduc_round_two_subgame_has_the_full_games_value() -> None:
    # Both check pre-flop and the board is a king: the ranges are what the full game's (near) equilibrium
    # brings there; a subgame reached by both players is solved by that equilibrium too, and a zero-sum
    # subgame with fixed ranges has one value, so the re-solved value must be the full game's.
    from acpcbot.cards import make_card
    from acpcbot.holdings import holding_index
    from acpcbot.solve.cfr import Solver as FullSolver
    from acpcbot.solve.tree import count_deals

    game = load_game("leduc")
    full = FullSolver(build_full_tree(game))
    full.run(400)
    tree, sigma = full.tree, full.average()
    king = make_card(11, 2)
    node = next(n for n in range(tree.num_nodes)
                if tree.boards[n] == (king,) and tree.states[n].actions == [[CALL, CALL], []])
    reach = tree.reach(sigma)[node]  # (players, hands): each player's own reach
    ranges = []
    for p in (0, 1):
        r = np.zeros(6)
        for i, hand in enumerate(tree.hands):
            r[holding_index(game, hand)] = reach[p, i]
        ranges.append(r)
    state = State(game).apply(CALL).apply(CALL)
    result = Subgame(game, state, (king,), ranges).solve(target_pct=0.01, max_iterations=4000, check_every=50)
    deals = count_deals(game)
    for p in (0, 1):
        full_value = float(reach[p] @ tree.backward(p, tree.reach(sigma), sigma)[node])
        mine = float(ranges[p] @ result.cfv[p]) / deals
        assert abs(full_value) > 1e-3  # not a trivially empty comparison
        assert mine == pytest.approx(full_value, abs=2e-4)


def _plain_dcfr_average(sub: Subgame, iterations: int, alpha: float = 1.5, beta: float = 0.0,
                        gamma: float = 3.0) -> list[np.ndarray | None]:
    """DCFR written the plain way: one deal of two holdings at a time, node by node, in float64 (alternating updates).

    The solver's vectorised passes (reach scaled by the average's weight,
    regrets kept at their values' scale, rows only where a reach changes)
    must give this average strategy, per decision node.
    """
    tree, prep = sub.tree, sub.prep
    nodes, groups = tree.nodes, tree.groups
    hands = prep.hands
    rank = sub.game.ranking_for_showdown
    shape = [(len(n.children), len(groups[n.group].boards)) if n.kind == DECISION else None for n in nodes]
    sigma = [None if s is None else np.full(s + (len(hands[n.player].rows),), 1.0 / s[0])
             for n, s in zip(nodes, shape)]
    regrets = [None if s is None else np.zeros_like(s) for s in sigma]
    ssum = [None if s is None else np.zeros_like(s) for s in sigma]

    def walk(i: int, b: int, h: tuple[int, int], reach: tuple[float, float], chance: float, p: int, inst: list,
             own: list) -> float:
        n = nodes[i]
        sign = 1.0 if p == 0 else -1.0
        if n.kind == FOLD_END:
            return sign * n.payoff0
        if n.kind == SHOWDOWN:
            board = tuple(groups[n.group].boards[b].tolist())
            v0, v1 = (rank(tuple(hands[q].cards[h[q]].tolist()) + board) for q in (0, 1))
            return sign * n.payoff0 * ((v0 > v1) - (v0 < v1))
        if n.kind == CHANCE:
            child = n.children[0]
            g = groups[nodes[child].group]
            held = set(hands[0].cards[h[0]].tolist()) | set(hands[1].cards[h[1]].tolist())
            deals = [c for c in np.flatnonzero(g.parent_board == b) if not held & set(g.boards[c].tolist())]
            return sum(walk(child, int(c), h, reach, chance / len(deals), p, inst, own) for c in deals) / len(deals)
        q = n.player
        s = sigma[i][:, b, h[q]]
        u = np.array([walk(c, b, h, (reach[0] * s[a], reach[1]) if q == 0 else (reach[0], reach[1] * s[a]), chance,
                           p, inst, own) for a, c in enumerate(n.children)])
        if q == p:
            inst[i][:, b, h[p]] += reach[1 - p] * chance * (u - s @ u)
            own[i][:, b, h[p]] = reach[p] * s
        return float(s @ u)

    for t in range(1, iterations + 1):
        prev = float(t - 1)
        keep_pos = prev ** alpha / (prev ** alpha + 1.0)
        keep_neg = prev ** beta / (prev ** beta + 1.0)
        for p in (0, 1):
            o = 1 - p
            inst = [None if s is None else np.zeros_like(s) for s in sigma]
            own = [None if s is None else np.zeros_like(s) for s in sigma]
            for hp in range(len(hands[p].rows)):
                for ho in range(len(hands[o].rows)):
                    if set(hands[p].cards[hp].tolist()) & set(hands[o].cards[ho].tolist()):
                        continue
                    h = (hp, ho) if p == 0 else (ho, hp)
                    walk(0, 0, h, (hands[0].weights[h[0]], hands[1].weights[h[1]]), 1.0, p, inst, own)
            for i, n in enumerate(nodes):
                if n.kind != DECISION or n.player != p:
                    continue
                r = regrets[i]
                r *= np.where(r > 0, keep_pos, keep_neg)
                r += inst[i]
                ssum[i] += t ** gamma * own[i]
                pos = np.where(r > 1e-9, r, 0.0)  # a true tie can leave float64 a crumb of 1e-18 either way
                total = pos.sum(axis=0)
                sigma[i] = np.where(total > 0, pos / np.where(total > 0, total, 1.0), 1.0 / len(n.children))
    out: list[np.ndarray | None] = []
    for n, s in zip(nodes, ssum):
        if s is None:
            out.append(None)
            continue
        total = s.sum(axis=0)
        out.append(np.where(total > 0, s / np.where(total > 0, total, 1.0), 1.0 / len(n.children)))
    return out


def test_the_vectorised_dcfr_is_plain_dcfr_on_leduc() -> None:
    # uneven range weights, chance over the board card, raises on both rounds: every scale the passes carry
    game = load_game("leduc")
    ranges = (np.array([1.0, 0.5, 2.0, 1.0, 0.25, 1.5]), np.array([0.5, 1.0, 1.0, 2.0, 1.0, 0.75]))
    sub = Subgame(game, State(game), (), ranges)
    # two iterations (weights 1 and 8, value scales 1, 8 and 27): later, exact ties between actions (suits are
    # symmetric) leave float32 and float64 crumbs of opposite sign and regret matching tips them apart
    sub.cfr.step()
    sub.cfr.step()
    want = _plain_dcfr_average(sub, 2)
    for i, (a, b) in enumerate(zip(sub.cfr.average(), want)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, atol=1e-6, err_msg=f"node {i} {sub.tree.nodes[i].line}")
