"""acpcbot.strategies.uc3m_tree: betting tokens, the betting tree, its JSON form, and the miximax EV analyzer."""

from __future__ import annotations

import json
import random

import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, State, raise_to
from acpcbot.evaluator import hand_strength
from acpcbot.gamedef import load_game
from acpcbot.protocol import replay_betting
from acpcbot.strategies.uc3m_tree import (
    HIST_CELLS,
    BettingTree,
    ModelError,
    Node,
    OpponentModel,
    action_token,
    betting_line,
    line_tokens,
    miximax,
    showdown_strength,
    strength_cell,
    win_probability,
)

HUNL = load_game("hunl")  # stacks 20000, blinds 100 (position 0) / 50 (position 1, acts first preflop)
HULHE = load_game("hulhe")


def state_of(betting: str, game=HUNL) -> State:
    """The state after a betting string (no cards)."""
    return replay_betting(betting, game, State(game))


# ----------------------------------------------------------------- tokens

def test_no_limit_raises_are_bucketed_by_size():
    s = State(HUNL)  # SB to act: pot 150, 50 to call, so the pot after calling is 200
    assert action_token(s, raise_to(200)) == "rh"   # raise by 100: half the pot
    assert action_token(s, raise_to(249)) == "rh"   # by 149: 0.745 pot
    assert action_token(s, raise_to(250)) == "rp"   # by 150: 0.75
    assert action_token(s, raise_to(400)) == "rp"   # by 300: 1.5 pots
    assert action_token(s, raise_to(402)) == "ro"   # by 302: over 1.5 pots
    assert action_token(s, raise_to(20000)) == "ra"  # all-in, whatever its size
    assert action_token(s, CALL) == "c" and action_token(s, FOLD) == "f"


def test_limit_raises_and_round_prefixes():
    assert line_tokens(state_of("rrc/rc/c", HULHE)) == ["r", "r", "c", "/r", "c", "/c"]
    assert line_tokens(state_of("cr300c/cr600f")) == ["c", "rp", "c", "/c", "rh", "f"]
    assert line_tokens(state_of("r20000c///")) == ["ra", "c"]


def test_betting_line_records_the_situation_before_each_action():
    steps, end = betting_line(state_of("r300c/r600f"))
    assert [(s.token, s.actor, s.pot, s.spent) for s in steps] == [
        ("rp", 1, 150, (100, 50)), ("c", 0, 400, (100, 300)), ("/rh", 0, 600, (300, 300)),
        ("f", 1, 900, (600, 300))]
    assert end.finished and end.pot == 900


def test_strength_cells_and_win_probability():
    assert [strength_cell(x) for x in (0.0, 0.049, 0.05, 0.5, 0.99, 1.0)] == [0, 0, 1, 10, 19, 19]
    hist = [0] * HIST_CELLS
    hist[4] = hist[14] = 1
    hist[10] = 2
    assert win_probability(hist, 0.65) == 0.75  # above cells 4, 10, 10; below 14
    assert win_probability(hist, 0.5) == 0.25 + 0.25  # cell 4 beaten, cell 10 (two entries) half
    assert win_probability(hist, 0.0) == 0.0
    assert win_probability([0] * HIST_CELLS, 0.3) == 0.5  # nothing seen: a coin


def test_showdown_strength_is_hand_strength_against_random_hands():
    hole, board = parse_cards("AsAd"), parse_cards("2c7h9sTdJd")
    assert showdown_strength(hole, board) == hand_strength(hole, board)
    assert showdown_strength(hole, ()) is None


# ----------------------------------------------------------------- the tree

def test_record_counts_visits_actors_pots_endings_and_showdowns():
    tree = BettingTree(2)
    tree.record(state_of("cr300f"), result=100)
    tree.record(state_of("cr300c/cc/cc/cc"), result=-300, shown=0.3)
    tree.record(state_of("cr300c/cc/cc/cc"), result=300, shown=0.9)
    root = tree.root
    assert root.visits == 3 and root.actor == 1 and root.mean_pot() == 150
    assert root.showdowns == 2 and root.hist[6] == 1 and root.hist[18] == 1
    node = tree.find(["c", "rp"])
    assert node.actor == 1 and node.visits == 3 and node.mean_pot() == 400
    assert node.frequencies() == pytest.approx({"f": 1 / 3, "c": 2 / 3})
    fold = tree.find(["c", "rp", "f"])
    assert (fold.actor, fold.ends, fold.result, fold.mean_pot(), fold.mean_spent(0)) == (-1, 1, 100, 400, 300)
    end = tree.find(["c", "rp", "c", "/c", "c", "/c", "c", "/c", "c"])
    assert (end.ends, end.result, end.showdowns, end.mean_pot()) == (2, 0, 2, 600)
    assert tree.find(["c", "c"]) is None
    assert tree.size == 1 + 3 + 7  # root; c, rp, f; the called line's 7 nodes after rp


def test_a_full_tree_stops_growing_but_keeps_counting():
    tree = BettingTree(2, max_nodes=3)
    tree.record(state_of("cr300f"), result=100, shown=None)
    assert tree.size == 3 and tree.find(["c", "rp"]) is not None and tree.find(["c", "rp", "f"]) is None
    tree.record(state_of("cr300f"), result=100, shown=0.5)
    assert tree.find(["c", "rp"]).visits == 2 and tree.find(["c", "rp"]).showdowns == 1
    assert tree.find(["c", "rp"]).ends == 0  # the hand did not end where the tree stops


def test_json_round_trip_is_exact():
    rnd = random.Random(4)
    model = OpponentModel(2)
    for line in ("cr300f", "r300c/cc/cc/cc", "r20000c///", "cc/r400c/r1200r20000c/", "f"):
        model.record(state_of(line), position=rnd.randrange(2), result=rnd.uniform(-500, 500),
                     shown=rnd.random())
    data = json.loads(json.dumps(model.to_json()))
    again = OpponentModel.from_json(data, 2)
    assert again.to_json() == model.to_json()
    assert (again.hands, again.preflop_raises) == (5, model.preflop_raises)
    for p, tree in model.trees.items():
        assert again.trees[p].size == tree.size


def test_preflop_raises_are_counted_per_opponent_position():
    model = OpponentModel(2)
    model.record(state_of("r300c/cc/cc/cc"), position=1)  # position 1 raised
    model.record(state_of("r300c/cc/cc/cc"), position=0)  # position 0 only called
    model.record(state_of("cr300f"), position=0)          # position 0 raised
    assert (model.hands, model.preflop_raises) == (3, 2)
    assert model.preflop_raise_rate() == (2 + 1) / (3 + 4)
    assert model.preflop_raise_rate(0, 0) == 2 / 3
    assert set(model.trees) == {0, 1}


@pytest.mark.parametrize("mutate,words", [
    (lambda d: d.update(players=3), "3-player game, not 2-player"),
    (lambda d: d.pop("hands"), "bad or missing field"),
    (lambda d: d["trees"].update({"5": {}}), "position '5' is outside the game"),
    (lambda d: d["trees"]["1"].update(n=-1), "tree of position 1: node root: bad or missing field"),
    (lambda d: d["trees"]["1"]["c"]["rp"].update(h=[1, 2]), "node root rp: a histogram has 20 cells"),
    (lambda d: d["trees"]["1"]["c"]["rp"].update(n=0), "node root rp: a recorded line has at least one visit"),
    (lambda d: d["trees"]["1"]["c"]["rp"].update(s=[0]), "node root rp: does not fit a 2-player game"),
])
def test_malformed_models_name_what_is_wrong(mutate, words):
    model = OpponentModel(2)
    model.record(state_of("r300c/cc/cc/cc"), position=1, result=5, shown=0.5)
    data = json.loads(json.dumps(model.to_json()))
    mutate(data)
    with pytest.raises(ModelError, match=words):
        OpponentModel.from_json(data, 2)


# ----------------------------------------------------------------- miximax

def worked_tree() -> BettingTree:
    """Hands with the opponent as the small blind (position 1) and us (position 0) the big blind.

    After its limp (``c``) we checked (``c``) twice to showdowns where it showed
    0.2 and 0.6, raised pot (``rp``) five times: it folded twice, called three
    times; after the call we checked down twice (it showed 0.3 and 0.9) and
    once bet half pot on the flop, which it folded.
    """
    tree = BettingTree(2)
    tree.record(state_of("cc/cc/cc/cc"), shown=0.2)
    tree.record(state_of("cc/cc/cc/cc"), shown=0.6)
    tree.record(state_of("cr300f"))
    tree.record(state_of("cr300f"))
    tree.record(state_of("cr300c/cc/cc/cc"), shown=0.3)
    tree.record(state_of("cr300c/cc/cc/cc"), shown=0.9)
    tree.record(state_of("cr300c/r600f"))
    return tree


def test_miximax_by_hand():
    tree = worked_tree()
    # With 2 showdowns enough, each line reads its own histogram (our strength 0.65):
    #  check: P(win) 1 (0.2, 0.6 below), pot 200, our chips 100 -> 100
    #  raise: it folds 2/5 (pot 400, ours 300: +100) or calls 3/5; then our best of
    #  checking down (P(win) 1/2 of 0.3, 0.9: 0.5*600 - 300 = 0) and betting (it folded: 900 - 600 = 300) -> 300
    #  -> 0.4 * 100 + 0.6 * 300 = 220
    assert miximax(tree, ["c"], 0, 0.65, min_showdowns=2) == pytest.approx({"c": 100, "rp": 220})
    # With 3 needed, deeper lines fall back to the node's own four showdowns (P(win) 0.75):
    #  check: 0.75 * 200 - 100 = 50; checking down after the raise: 0.75 * 600 - 300 = 150 < 300
    assert miximax(tree, ["c"], 0, 0.65, min_showdowns=3) == pytest.approx({"c": 50, "rp": 220})
    # a weaker hand: P(win) 0 against the 0.3 / 0.9 line, 1/2 against 0.2 / 0.6
    assert miximax(tree, ["c"], 0, 0.25, min_showdowns=2) == pytest.approx(
        {"c": 0.5 * 200 - 100, "rp": 0.4 * 100 + 0.6 * 300})


def test_miximax_applies_only_with_enough_showdowns_and_on_our_turn():
    tree = worked_tree()
    assert miximax(tree, ["c"], 0, 0.5, min_showdowns=5) is None  # four showdowns after the limp
    assert miximax(tree, ["c"], 1, 0.5, min_showdowns=1) is None  # not position 1's turn there
    assert miximax(tree, ["r"], 0, 0.5, min_showdowns=1) is None  # never seen


def test_miximax_walk_is_bounded():
    tree = worked_tree()
    # a budget of one node: every move is valued as a showdown at its own average pot and histogram
    out = miximax(tree, ["c"], 0, 0.65, min_showdowns=2, max_nodes=1)
    assert out == pytest.approx({"c": 1.0 * 200 - 100, "rp": 0.5 * 400 - 300})


def test_node_defaults():
    node = Node(2)
    assert (node.visits, node.actor, node.showdowns, node.mean_pot(), node.frequencies()) == (0, -1, 0, 0.0, {})
