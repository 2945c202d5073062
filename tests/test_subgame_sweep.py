"""The rank-sorted showdown sweep gives the win/lose matrix product's values, and a solve on it the same results.

Golden checks against ``showdown_matrix`` multiplied out in float64 on
random reaches: hold'em river boards (one, and a turn's rivers with the
holdings each river blocks), limit and no-limit, both players' different
holding lists, boards with many ties, pairs sharing a card; Leduc for one
hole card.  Then whole subgames prepared both ways: the same strategy
judged by both has the same exploitability and values, and a short solve
the same values.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, RAISE, State
from acpcbot.gamedef import load_game
from acpcbot.holdings import holdings
from acpcbot.solve.subgame import Subgame, SubgameError, spot_sizes
from acpcbot.solve.subgame.best_response import evaluate
from acpcbot.solve.subgame.hands import PlayerHands, disjoint, player_hands, showdown_values
from acpcbot.solve.subgame.spots import spot, spot_game
from acpcbot.solve.subgame.sweep import ShowdownSweep, sweep_pays
from acpcbot.solve.subgame.terminal import showdown_matrix


def _live(hands: PlayerHands, boards: np.ndarray) -> np.ndarray:
    return (hands.member[:, boards].sum(axis=2).T == 0).astype(np.float32)


def _random_hands(game, root: tuple[int, ...], share: float, rng: np.random.Generator) -> PlayerHands:
    weights = rng.random(len(holdings(game))) * (rng.random(len(holdings(game))) < share)
    return player_hands(game, weights, root, "x")


def _check(game, boards: np.ndarray, own: PlayerHands, opp: PlayerHands, terminals: int,
           rng: np.random.Generator) -> None:
    m_own, m_opp = _live(own, boards), _live(opp, boards)
    v_own, v_opp = showdown_values(game, boards, own), showdown_values(game, boards, opp)
    matrix = showdown_matrix(v_own, v_opp, m_own, m_opp, own, opp).astype(np.float64)
    # the inputs must exercise what the sweep has to get right: ties, shared cards and (several boards) blocking
    live_pairs = (m_own[:, :, None] * m_opp[:, None, :]) > 0
    same_value = v_own[:, :, None] == v_opp[:, None, :]
    assert (live_pairs & same_value & (disjoint(own, opp)[None] > 0)).any(), "no tie among live disjoint pairs"
    assert (live_pairs & (disjoint(own, opp)[None] == 0)).any(), "no pair sharing a card"
    sweep = ShowdownSweep(v_own, v_opp, m_own, m_opp, own, opp)
    # the reach is zero where the board blocks the opponent's holding (as the passes give it) but for one board,
    # which the sweep must ignore on its own, as the matrix's blocked columns do
    reach = rng.random((terminals, len(boards), len(opp.rows))).astype(np.float32)
    reach[:, 1:] *= m_opp[None, 1:]
    want = np.einsum("tbo,bho->tbh", reach.astype(np.float64), matrix)
    got = sweep(reach)
    scale = reach.sum(axis=2, keepdims=True).max()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * scale)
    out = np.full_like(got, np.nan)
    assert sweep(reach, out=out) is out
    np.testing.assert_allclose(out, got)


@pytest.mark.parametrize("game_name", ["hulhe", "hunl"])
@pytest.mark.parametrize("terminals,shares,seed", [(1, (0.9, 0.6), 0), (4, (0.2, 0.5), 1), (9, (1.0, 0.8), 2),
                                                      (9, (1.0, 1.0), 3)])
def test_the_sweep_is_the_matrix_product_on_a_river(game_name: str, terminals: int, shares: tuple, seed: int) -> None:
    game = load_game("hulhe") if game_name == "hulhe" else spot_game()
    rng = np.random.default_rng(seed)
    root = tuple(int(c) for c in rng.permutation(52)[:5])
    own, opp = (_random_hands(game, root, s, rng) for s in shares)
    if shares[0] != shares[1]:
        assert len(own.rows) != len(opp.rows)
    _check(game, np.array([root]), own, opp, terminals, rng)
    _check(game, np.array([root]), opp, own, terminals, rng)  # the other player's side


@pytest.mark.parametrize("board", ["AcAdAhKcKd", "2c3d4h5s6c", "AsKsQsJsTs", "7c7d2h2s9c"])
def test_the_sweep_is_the_matrix_product_on_boards_full_of_ties(board: str) -> None:
    game = load_game("hulhe")
    rng = np.random.default_rng(7)
    root = tuple(parse_cards(board))
    own, opp = _random_hands(game, root, 0.7, rng), _random_hands(game, root, 0.5, rng)
    _check(game, np.array([root]), own, opp, 3, rng)


@pytest.mark.parametrize("rivers,terminals,seed", [(2, 1, 3), (12, 5, 4), (48, 2, 5)])
def test_the_sweep_is_the_matrix_product_on_a_turns_rivers(rivers: int, terminals: int, seed: int) -> None:
    game = spot_game()
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    root = tuple(int(c) for c in deck[:4])
    boards = np.array([root + (int(c),) for c in deck[4:4 + rivers]])
    own, opp = _random_hands(game, root, 0.4, rng), _random_hands(game, root, 0.3, rng)
    _check(game, boards, own, opp, terminals, rng)
    _check(game, boards, opp, own, terminals, rng)


def test_the_sweep_is_the_matrix_product_with_one_hole_card() -> None:
    game = load_game("leduc")
    rng = np.random.default_rng(8)
    own = player_hands(game, np.ones(6), (), "x")
    opp = player_hands(game, rng.random(6) + 0.1, (), "y")
    boards = np.arange(6)[:, None]
    m_own, m_opp = _live(own, boards), _live(opp, boards)
    v_own, v_opp = showdown_values(game, boards, own), showdown_values(game, boards, opp)
    matrix = showdown_matrix(v_own, v_opp, m_own, m_opp, own, opp).astype(np.float64)
    reach = (rng.random((3, 6, 6)) * m_opp[None]).astype(np.float32)
    got = ShowdownSweep(v_own, v_opp, m_own, m_opp, own, opp)(reach)
    np.testing.assert_allclose(got, np.einsum("tbo,bho->tbh", reach, matrix), atol=1e-6)
    assert np.abs(got).max() > 0.1


def _both(make) -> tuple[Subgame, Subgame]:
    matrix, sweep = make("matrix"), make("sweep")
    assert not matrix.prep.showdown_sweep and matrix.prep.showdown
    assert sweep.prep.showdown_sweep and not sweep.prep.showdown  # every showdown group on the sweep
    return matrix, sweep


def _river(mode: str) -> Subgame:
    game, state, board, ranges = spot("river")
    return Subgame(game, state, board, ranges, spot_sizes(), showdown_mode=mode)


def _hulhe_turn(mode: str, **extra) -> Subgame:
    # a turn subgame (the river dealt card by card: 46 boards, chance, holdings blocked per river) on thin ranges
    game = load_game("hulhe")
    state = State(game)
    for action in (RAISE, CALL, CALL, CALL):
        state.apply(action)
    board = parse_cards("Td9d6hQc")
    rng = np.random.default_rng(11)
    ranges = [np.where(rng.random(1326) < 0.06, rng.random(1326) + 0.1, 0.0) for _ in range(2)]
    return Subgame(game, state, board, ranges, showdown_mode=mode, **extra)


def _leduc(mode: str) -> Subgame:
    game = load_game("leduc")
    return Subgame(game, State(game), (), (np.ones(6), np.linspace(0.5, 1.5, 6)), showdown_mode=mode)


@pytest.mark.parametrize("make", [_river, _hulhe_turn, _leduc])
def test_a_strategy_judged_on_the_sweep_has_the_matrix_paths_values(make) -> None:
    matrix, sweep = _both(make)
    matrix.solve(target_pct=None, max_iterations=12)
    strategy = matrix.cfr.average_levels()
    a, b = evaluate(matrix.workspace, strategy), evaluate(sweep.workspace, strategy)
    assert a.cfv is not None and b.cfv is not None
    scale = max(np.abs(a.cfv[0]).max(), np.abs(a.cfv[1]).max())
    for p in (0, 1):
        np.testing.assert_allclose(b.cfv[p], a.cfv[p], rtol=0, atol=2e-5 * scale)
        np.testing.assert_allclose(b.best_cfv[p], a.best_cfv[p], rtol=0, atol=2e-5 * scale)
    assert b.exploitability == pytest.approx(a.exploitability, rel=1e-4, abs=1e-6 * scale)
    assert a.exploitability > 0  # twelve iterations are far from an equilibrium: a wrong sign would show


@pytest.mark.parametrize("make", [_river, _hulhe_turn])
def test_a_short_solve_on_the_sweep_gives_the_matrix_paths_results(make) -> None:
    # a few iterations only: regret matching amplifies float rounding, so longer solves part (both still converge)
    matrix, sweep = _both(make)
    a, b = matrix.solve(target_pct=None, max_iterations=3), sweep.solve(target_pct=None, max_iterations=3)
    scale = np.abs(a.cfv[0]).max()
    np.testing.assert_allclose(b.cfv[0], a.cfv[0], rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(b.cfv[1], a.cfv[1], rtol=0, atol=1e-4 * scale)
    assert b.exploitability_pct == pytest.approx(a.exploitability_pct, rel=1e-3)


def test_auto_takes_the_sweep_only_for_wide_ranges_on_one_board() -> None:
    assert sweep_pays(1081, 1081, 9, 1)
    assert not sweep_pays(167, 246, 9, 1)  # the spots' narrow ranges: the product
    assert not sweep_pays(1081, 1081, 9, 48)  # a turn's rivers: the product
    assert not sweep_pays(1081, 1081, 0, 1)
    assert not _river("auto").prep.showdown_sweep
    game = load_game("hulhe")
    state = State(game)
    while state.round < 3:
        state.apply(CALL)
    wide = Subgame(game, state, parse_cards("Td9d6hQc2s"), (np.ones(1326), np.ones(1326)))
    assert list(wide.prep.showdown_sweep) == [0] and not wide.prep.showdown
    # class groups and depth-limited leaves keep the matrix even when the sweep is asked for
    for extra in ({"last_classes": 4}, {"depth_limited": True}):
        sub = _hulhe_turn("sweep", **extra)
        groups = sub.prep.tree.groups
        assert sub.prep.showdown, extra
        assert all(groups[g].members is not None or sub.prep.tree.depth_limited for g in sub.prep.showdown)
        assert all(groups[g].members is None and not sub.prep.tree.depth_limited for g in sub.prep.showdown_sweep)


def test_an_unknown_showdown_mode_is_refused() -> None:
    with pytest.raises(SubgameError, match="showdown mode"):
        _river("fast")
