"""The ``blueprint`` strategy: the shipped heads-up limit hold'em policy, played and exposed as a policy."""

from __future__ import annotations

import numpy as np
import pytest

from acpcbot.engine import CALL, FOLD, RAISE
from acpcbot.gamedef import load_game
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.blueprint import shipped_reason
from acpcbot.strategies.registry import create
from acpcbot.world import View

HULHE = load_game("hulhe")
pytestmark = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))


def view(line: str) -> View:
    return View.parse(line, HULHE)


def test_plays_the_games_with_a_blueprint_only():
    for name in ("3pl", "leduc", "kuhn2p"):
        with pytest.raises(UnsupportedGame):
            create("blueprint", load_game(name), 1)
    hunl = load_game("hunl")
    if shipped_reason(hunl) is None:  # the HUNL policy is in the repository: blueprint plays it when named
        assert create("blueprint", hunl, 1).table.actions(View.parse("MATCHSTATE:0:0::AsKd|", hunl).state)


def test_aces_never_fold_and_every_answer_is_legal():
    player = create("blueprint", HULHE, 3)
    for line in ("MATCHSTATE:1:0::|AsAd", "MATCHSTATE:0:1:r:AsAd|", "MATCHSTATE:0:2:rrr:AhAc|"):
        v = view(line)
        for _ in range(50):
            action = player.act(v, 0.0)
            assert v.state.is_legal(action) and action != FOLD
    v = view("MATCHSTATE:1:3:cc/cc/cc/r:|7c2d/QsJsTs/9h/4d")
    assert all(v.state.is_legal(player.act(v, 0.0)) for _ in range(50))


def test_act_samples_the_policy_row_and_replays_with_the_seed():
    v = view("MATCHSTATE:0:4:r:Ts9s|")
    policy = create("blueprint", HULHE, 1).policy(v)
    row = policy.row(v.hole)
    table = create("blueprint", HULHE, 1).table.probabilities(v.state)
    assert np.allclose(row, [table[int(a.type)] for a in policy.actions])
    a, b = create("blueprint", HULHE, 7), create("blueprint", HULHE, 7)
    assert [a.act(v, 0.0) for _ in range(20)] == [b.act(v, 0.0) for _ in range(20)]
    player = create("blueprint", HULHE, 11)
    counts = dict.fromkeys(policy.actions, 0)
    for _ in range(2000):
        counts[player.act(v, 0.0)] += 1
    for action, p in zip(policy.actions, row):
        assert counts[action] / 2000 == pytest.approx(p, abs=0.04)


def test_policy_rows_are_the_tables_rows_over_the_legal_actions():
    player = create("blueprint", HULHE, 1)
    v = view("MATCHSTATE:1:5:cr:|KdQh")  # facing a raise: fold, call, raise
    policy = player.policy(v)
    assert policy.actions == (FOLD, CALL, RAISE)
    assert np.allclose(policy.probs, player.table.probabilities_all(v.state))
    v = view("MATCHSTATE:0:6:crc/:KdQh|/2c7h9s")  # first to act on the flop: no fold
    policy = player.policy(v)
    assert policy.actions == (CALL, RAISE)
    assert np.allclose(policy.probs.sum(axis=1), 1.0)


def test_quick_action_is_the_rows_most_likely_action():
    player = create("blueprint", HULHE, 1)
    v = view("MATCHSTATE:0:1:r:AsAd|")
    assert player.quick_action(v) == [FOLD, CALL, RAISE][int(np.argmax(player.table.probabilities(v.state)))]


def test_act_without_a_clock_re_solves_to_its_iterations():
    # act(view, 0.0) is a direct call with no client deadline: it must not read as a deadline already past
    # (which cut every solve short and stored "no solution" for the subgame, so policy() fell back too); the
    # seconds' cap far above any solve, so that a busy machine cannot cut it short (it failed so at load 5)
    player = create("blueprint:resolve_seconds=600", HULHE, 1)
    river = view("MATCHSTATE:1:1:rc/rc/rc/rrr:|AhAd/2c3d4s/5h/Td")
    player.act(river, 0.0)
    assert (player.resolver.solves, player.resolver.cut_short) == (1, 0)
