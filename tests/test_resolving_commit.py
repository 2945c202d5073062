"""The committed share of the opponent in a safe re-solve (issue 29): what it is, and what it buys where exact.

With Burch et al.'s Resolve gadget alone, a holding of the opponent whose
alternative beats the subgame leaves it, and the re-solve stops caring how
it plays against that holding.  A share ``commit`` of the opponent enters
committed (its blueprint range, no Terminate option); the rest chooses.
Share 1 is unsafe re-solving; 0 the gadget alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from leducspots import leduc, leduc_spot

from acpcbot.gamedef import load_game
from acpcbot.solve.best_response import exploitability
from acpcbot.solve.resolving.exact import resolve_rounds
from acpcbot.solve.resolving.gadget import (
    COMMIT,
    ResolveGadget,
    alternative_values,
    gadget_ranges,
    load_strategy,
    resolve,
)
from acpcbot.solve.resolving.player import Resolver
from acpcbot.solve.subgame import Subgame
from acpcbot.solve.subgame.tree import DECISION
from acpcbot.strategies import builtin  # noqa: F401  (registers every built-in strategy)
from acpcbot.strategies.blueprint import COMMIT as PLAYER_COMMIT
from acpcbot.strategies.registry import StrategySpecError, create


def test_the_committed_share_lowers_leducs_exploitability_below_the_gadget_alone_and_no_position_gains() -> None:
    # measured (exact best response, CFR+ 5 blueprint, 30 iterations a re-solve): 1,371 mbb/hand before, 953 after
    # re-solving through the gadget alone, 347 with a tenth of the opponent committed
    s = leduc(5)
    tree, blueprint = s.tree, s.average()
    before = exploitability(tree, blueprint)
    alone = exploitability(tree, resolve_rounds(tree, blueprint, iterations=30, commit=0.0))
    committed = exploitability(tree, resolve_rounds(tree, blueprint, iterations=30, commit=0.1))
    assert committed.chips < 0.6 * alone.chips < 0.6 * before.chips
    for p in (0, 1):
        assert committed.best_responses[p] <= before.best_responses[p] + 1e-6


def test_a_fully_committed_opponent_is_unsafe_resolving_on_its_range() -> None:
    for index in (0, 3, 11):
        game, state, board, ranges, player, rows = leduc_spot(index)
        result, _ = resolve(game, state, board, ranges, player, rows, iterations=30, commit=1.0)
        # the same subgame with the opponent's real range and no gadget: the re-solving player's rows are the same
        plain = Subgame(game, state, board, ranges).solve(target_pct=None, max_iterations=30)
        ours, theirs = result.subgame.prep.hands[player].rows, plain.subgame.prep.hands[player].rows
        assert np.array_equal(ours, theirs)
        for node, a, b in zip(result.tree.nodes, result.strategy, plain.strategy):
            if node.kind == DECISION and node.player == player:
                assert a is not None and b is not None
                np.testing.assert_allclose(a, b, atol=1e-5)


def test_the_committed_part_of_a_holding_never_leaves_the_subgame() -> None:
    game, state, board, ranges, player, rows = leduc_spot(3)
    opponent = 1 - player
    sub = Subgame(game, state, board, gadget_ranges(game, ranges, opponent, board))
    alternative = alternative_values(sub, load_strategy(sub, state, rows), opponent)
    committed = np.asarray(ranges[opponent], dtype=np.float64)[sub.prep.hands[opponent].rows]
    # alternatives no subgame can reach: with the gadget alone every holding terminates, a committed tenth stays
    alone = ResolveGadget(Subgame(game, state, board, gadget_ranges(game, ranges, opponent, board)), opponent,
                          alternative + 1e6)
    share = ResolveGadget(sub, opponent, alternative + 1e6, committed, 0.1)
    for g in (alone, share):
        for _ in range(5):
            g.subgame.cfr.step()
    assert np.all(alone.subgame.cfr.roots[opponent] == 0)
    np.testing.assert_allclose(share.subgame.cfr.roots[opponent][0], 0.1 * committed, rtol=1e-6)


def test_a_share_outside_zero_to_one_is_refused_everywhere_and_the_players_default_is_the_gadgets() -> None:
    assert PLAYER_COMMIT == COMMIT
    game, state, board, ranges, player, rows = leduc_spot(0)
    sub = Subgame(game, state, board, ranges)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="committed share"):
            ResolveGadget(sub, 1 - player, np.zeros(len(sub.prep.hands[1 - player].rows)), commit=bad)
        with pytest.raises(ValueError, match="committed share"):
            Resolver(game, lambda s: np.zeros((6, 3)), commit=bad)
    with pytest.raises(StrategySpecError, match="resolve_commit"):
        create("blueprint:resolve_commit=2", load_game("hulhe"), 1)


@pytest.mark.parametrize("commit", [0.1, 0.5])
def test_the_excess_is_at_most_the_shares_odds_times_the_margin_taken_from_the_real_range(commit: float) -> None:
    # the blueprint scores sum w alternative in the share's objective, so at the solution
    # (1 - commit) * excess <= commit * margin (docs/resolving-play.md, "The committed share")
    for index in (0, 3, 11, 20):
        for player in (0, 1):
            game, state, board, ranges, _, rows = leduc_spot(index, player)
            if ranges[0].sum() <= 0 or ranges[1].sum() <= 0:
                continue
            result, alternative = resolve(game, state, board, ranges, player, rows, iterations=300, commit=commit)
            opp = 1 - player
            gadget = result.subgame.cfr.gadget
            best = np.asarray(result.evaluation.best_cfv[opp], dtype=np.float64)
            real = np.asarray(ranges[opp], dtype=np.float64)[result.subgame.prep.hands[opp].rows]
            norm = result.subgame.prep.normaliser
            excess = gadget.weights @ np.maximum(best - alternative, 0.0) / norm
            margin = real @ (alternative - best) / norm
            assert excess <= commit / (1 - commit) * margin + 1e-3 * result.subgame.root_pot
