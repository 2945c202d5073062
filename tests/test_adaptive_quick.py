"""adaptive's quick answer: pot-sized raises in no-limit (all-in only where pot-sized nearly is), the blueprint's
most likely action on the heads-up limit floor; and a cold model plays exactly the blueprint.
"""

from __future__ import annotations

import numpy as np
import pytest
from playkit import play_memory, started

from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.strategies.adaptive import COLD_HANDS, DEVIATION_BB
from acpcbot.strategies.registry import create
from acpcbot.world import View

HUNL = load_game("hunl")
HULHE = load_game("hulhe")


@pytest.mark.parametrize("line,expected", [
    # QQ facing a 3-big-blind open: pot-sized (to 300 + 600), not 200 big blinds (before: r20000)
    ("MATCHSTATE:0:1:r300:QsQd|", raise_to(900)),
    # first in, AA as the small blind: pot-sized over the blinds (to 100 + 200)
    ("MATCHSTATE:1:2::|AsAd", raise_to(300)),
    # facing a raise to 65 big blinds: pot-sized (to 195) would leave 5 behind: all-in
    ("MATCHSTATE:0:3:r6500:AsAd|", raise_to(20000)),
    # facing a raise to 80 big blinds: pot-sized is past the stack: all-in
    ("MATCHSTATE:0:4:r8000:AsAd|", raise_to(20000)),
    # past the raise cap (three raises this round) a pot-sized raise is not made, and a shove is not pot-sized
    ("MATCHSTATE:0:5:r300r900r2700:AsAd|", CALL),
    # a strong hand on the river facing a pot bet: pot-sized raise
    ("MATCHSTATE:0:6:r200c/cc/cc/cr400:AsAh|/AdAc2s/7h/9d", raise_to(1200)),
])
def test_no_limit_quick_raises_are_pot_sized(line, expected):
    player = started("adaptive:blueprint=0", HUNL)  # off the floor: the search's quick answer
    view = View.parse(line, HUNL)
    action = player.quick_action(view)
    assert view.is_legal(action)
    assert action == expected


@pytest.mark.parametrize("line", [
    "MATCHSTATE:0:1:r:7c2d|", "MATCHSTATE:0:2:r:AsAd|", "MATCHSTATE:1:3::|9h8h", "MATCHSTATE:1:4::|7c2d",
    "MATCHSTATE:1:5:rc/r:|KhJs/Ks8d2c", "MATCHSTATE:0:6:rc/cr:6d5h|/Ks8d2c", "MATCHSTATE:0:7:rc/cc/:QhJh|/Th9h2c/3s",
    "MATCHSTATE:0:8:rrc/rrrr:Tc9c|/Ts8d2c",
])
def test_on_the_limit_floor_the_quick_answer_is_the_blueprints_most_likely_action(line):
    player = started("adaptive", HULHE)
    assert player.floor is not None
    view = View.parse(line, HULHE)
    probs = player.floor.table.probabilities(view.state)  # the plain table: a quick answer never re-solves
    action = player.quick_action(view)
    assert view.is_legal(action)
    legal = [a for a in (FOLD, CALL, RAISE) if view.is_legal(a)]
    assert probs[int(action.type)] == max(probs[int(a.type)] for a in legal), (line, probs)


def test_the_limit_floor_quick_answer_differs_from_the_equity_rule():
    # 7-2 offsuit as the big blind facing the small blind's raise: 35% against a random hand beats the 25% the
    # pot odds ask (the equity rule calls); the blueprint folds it
    player = started("adaptive", HULHE)
    view = View.parse("MATCHSTATE:0:1:r:7c2d|", HULHE)
    assert player.quick_action(view) == FOLD
    assert started("adaptive:blueprint=0", HULHE).quick_action(view) == CALL


# ------------------------------------------------------------------ cold: exactly the blueprint

def test_a_cold_model_plays_exactly_the_blueprints_rows_and_deviates_only_past_the_bar():
    player = started("adaptive:resolve=0", HULHE, seed=4)  # the table floor (the re-solved one: test_adaptive_floor)
    # before COLD_HANDS hands against this opponent: the policy is the blueprint's rows, every holding
    seen = []
    for line in ("MATCHSTATE:1:0::|9h8h", "MATCHSTATE:0:0:r:7c2d|", "MATCHSTATE:0:0:rc/cr:KhJs|/Ks8d2c"):
        view = View.parse(line, HULHE)
        policy = player.policy(view)
        # the blueprint's rows over the actions considered (adaptive.floor_rows), each holding
        floor = player.floor.table.probabilities_all(view.state)[:, [int(a.type) for a in policy.actions]]
        live = floor.sum(axis=1) > 0
        assert np.allclose(policy.probs[live], floor[live] / floor[live].sum(axis=1, keepdims=True)), line
        seen.append(policy)
    # warm it up against a maniac (raises every hand: a model very far from the blueprint's opponent)
    play_memory("hulhe", ["adaptive", "maniac"], COLD_HANDS + 30, 2,
                strategies=[player, create("maniac", HULHE, 5)], names=["me", "them"])
    first = View.parse("MATCHSTATE:1:0::|9h8h", HULHE)
    assert player.opponent_stats(first, first.opponents[0]).hands >= COLD_HANDS
    deviated = 0
    # each line its own hand: a policy asked at our earlier decision of the same hand would move the members'
    # weights by their chances of our action there (the posterior: test_adaptive_portfolio)
    for line in ("MATCHSTATE:0:1:r:7c2d|", "MATCHSTATE:0:2:rc/cr:KhJs|/Ks8d2c",
                 "MATCHSTATE:0:3:rc/crc/cr:Qd4c|/Ks8d2c/3h"):
        view = View.parse(line, HULHE)
        hand = player.sync(view)
        opp = view.opponents[0]
        if view.state.round == 0:  # before the flop: the table act and policy read
            actions, values, mass, _ = player._preflop_table(view, opp)
        else:
            search = player._search(view, hand, opp, np.arange(1326))
            actions, values = search.action_values()
            mass = search.mass.sum()
        actions, values, floor = player.floor_rows(view, actions, values, one=False)
        policy = player.policy(view)
        hands = player.opponent_stats(view, opp).hands
        bar = DEVIATION_BB * player.big_blind * (COLD_HANDS / hands) ** 0.5
        gain = (values.max(axis=1) - (floor * values).sum(axis=1)) / mass
        off = ~np.all(np.isclose(policy.probs, floor), axis=1)
        # a row leaves the blueprint only where the model's gain passes the bar, and then toward the best response:
        # the portfolio's mixture (1 - p) blueprint + p best response, p its weight on the deviation
        assert (gain[off] > bar).all(), line
        p = player.portfolio.weight(player.key(view, opp))
        best = np.eye(len(actions))[np.argmax(values[off], axis=1)]
        assert 0 < p < 1
        assert np.allclose(policy.probs[off], (1 - p) * floor[off] + p * best)
        assert np.allclose(policy.probs[gain <= bar], floor[gain <= bar])
        deviated += int(off.sum())
    assert deviated > 0  # warm, against a maniac, it does exploit somewhere
