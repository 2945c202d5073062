"""LBR under DeepStack's action settings S1-S4 (arXiv 1701.01724, Table 1): the actions street by street, the
golden figures against always-fold in heads-up no-limit, and the lower bound in a no-limit Leduc solved exactly.

Against always-fold (it checks when it can, folds to any bet) in HUNL (blinds 50/100): as the big blind LBR
always wins the small blind's 50; as the small blind, under S2-S4 it checks/calls to the first street where it
may bet and bets (always-fold folds: +100), under S1 it may only fold or call, so it calls and checks down (worth
0 on average, whatever it holds: the deal is symmetric).  So 750 mbb/g under S2, S3, S4 and 250 under S1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import load_game, parse_game
from acpcbot.matchlog import read_match_log
from acpcbot.measure.lbr import candidates
from acpcbot.measure.lbr_actions import FRACTIONS_56, SETTINGS, parse_setting
from acpcbot.measure.lbr_exact import best_response_nolimit, exact_lbr, exact_lbr_nolimit
from acpcbot.protocol import format_match_state
from acpcbot.strategies.lbr import LiveTarget
from acpcbot.strategies.registry import create
from acpcbot.world import View
from dealer.arena.cli import main as acpc_match
from dealer.arena.lbr import lbr_plan
from dealer.arena.recipes import RecipeError
from dealer.arena.runner import execute

HUNL = load_game("hunl")
UNIFORM = "random:fold=1,call=1,raise=1"

# Leduc's rules (two suits of three ranks, one hole card, one board card, antes, two rounds) in no-limit with
# stacks of four antes, so that every raise size is its own branch and the best response weighs them all
LEDUC_NL_SMALL = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 4 4
blind = 1 1
firstPlayer = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def _hand(game, *actions, board="") -> State:
    state = State(game, 0, [parse_cards("2c3d"), parse_cards("AsAh")], parse_cards(board) if board else [])
    for a in actions:
        state.apply(a)
    return state


def _raises(actions):
    return [a.size for a in actions if a.type == ActionType.RAISE]


# ------------------------------------------------------------------ the settings

def test_the_settings_street_by_street_in_no_limit():
    board = "Kd7h2s9cJd"
    preflop = _hand(HUNL)  # the small blind faces the big blind
    assert candidates(preflop, parse_setting("S1")) == [FOLD, CALL]
    for name in ("S2", "S3", "S4"):
        assert candidates(preflop, parse_setting(name)) == [CALL]  # check/call only: not even a fold
    # the turn after calls and checks: pot 200, nobody has bet
    turn = _hand(HUNL, CALL, CALL, CALL, CALL, board=board)
    assert turn.round == 2
    assert candidates(turn, parse_setting("S1")) == [CALL]
    assert candidates(turn, parse_setting("S2")) == [CALL, raise_to(300), raise_to(20000)]  # pot 100+200, all-in
    assert candidates(turn, parse_setting("S4")) == [CALL]
    facing = turn.copy().apply(raise_to(300))
    assert candidates(facing, parse_setting("S4")) == [FOLD, CALL]
    assert candidates(facing, parse_setting("S2"))[:2] == [FOLD, CALL]
    # a pot of 1,200 (raised to 600 preflop): every one of the 56 sizes is a distinct legal raise
    deep = _hand(HUNL, raise_to(600), CALL, CALL, CALL, board=board)
    s3 = candidates(deep, parse_setting("S3"))
    assert s3[0] == CALL and len(_raises(s3)) == 56 and _raises(s3) == sorted(set(_raises(s3)))
    assert _raises(s3)[:3] == [700, 720, 780]  # the minimum raise, then 0.1 and 0.15 of the pot
    assert _raises(s3)[-2:] == [600 + 15 * 1200, 20000]  # 15 pots, all-in
    assert candidates(deep.copy(), parse_setting("S4")) == [CALL]  # the turn: fold/call only
    flop = _hand(HUNL, raise_to(600), CALL, board=board)
    assert len(_raises(candidates(flop, parse_setting("S4")))) == 56
    assert candidates(flop, parse_setting("S3")) == [CALL]
    # short of chips the sizes collapse into the legal range: fewer, never an illegal one
    small = _raises(candidates(turn, parse_setting("S3")))
    assert small[0] == 200 and small[-1] == 20000 and len(small) < 56


def test_the_full_setting_is_todays_set():
    preflop = _hand(HUNL)
    assert candidates(preflop) == candidates(preflop, parse_setting("full"))
    assert _raises(candidates(preflop)) == [200, 300, 500, 20000]


def test_in_limit_every_raise_letter_is_the_one_raise():
    hulhe = load_game("hulhe")
    preflop = _hand(hulhe)
    assert candidates(preflop, parse_setting("S2")) == [CALL]
    assert candidates(preflop, parse_setting("cc1")) == [CALL]
    assert candidates(preflop, parse_setting("full")) == [FOLD, CALL, RAISE]
    flop = _hand(hulhe, CALL, CALL, board="Kd7h2s9cJd")
    assert candidates(flop, parse_setting("cc1")) == [CALL, RAISE]
    assert candidates(flop, parse_setting("cc2")) == [CALL]
    assert candidates(flop, parse_setting("S4")) == [CALL, RAISE]


def test_the_named_settings_and_the_street_syntax():
    assert len(FRACTIONS_56) + 2 == 56
    assert parse_setting("S2") == ("C", "C", "FCPA", "FCPA") == parse_setting("c/c/fcpa/fcpa")
    assert parse_setting("s1") == parse_setting("S1") and set(SETTINGS) >= {"full", "S1", "S2", "S3", "S4"}
    for bad in ("S5", "", "C//C", "FCX"):
        with pytest.raises(ValueError, match="expected one of full"):
            parse_setting(bad)


def test_a_bad_setting_is_refused_before_any_hand(tmp_path, capsys):
    with pytest.raises(RecipeError, match="--lbr-actions"):
        lbr_plan("fold", "hunl", 10, 1, "memory", actions="S9")
    assert acpc_match(["lbr", "fold", "--game", "hunl", "--hands", "5", "--lbr-actions", "S9",
                       "--runs-dir", str(tmp_path)]) == 2
    assert "--lbr-actions" in capsys.readouterr().err and not any(tmp_path.iterdir())
    with pytest.raises(ValueError, match="actions"):
        create("lbr:target=fold,actions=S9", HUNL, 1)


# ------------------------------------------------------------------ golden figures against always-fold

def _run(tmp_path, setting, hands=12):
    doc = execute(lbr_plan("fold", "hunl", hands, 5, "memory", jobs=1, actions=setting), tmp_path)
    return doc, next(r for r in doc["results"] if r["player"] == "lbr")


@pytest.mark.parametrize("setting", ["S2", "S3", "S4"])
def test_lbr_wins_750_against_always_fold_under_s2_s3_s4(tmp_path, setting):
    doc, row = _run(tmp_path, setting)
    # every deal: +100 as the small blind (the bet always-fold folds to), +50 as the big blind: no variance at all
    assert row["duplicate_mbb_per_hand"] == 750.0 and row["duplicate_ci95"] == 0.0
    first_street = {"S2": 2, "S3": 2, "S4": 1}[setting]  # where LBR may first bet
    for m in doc["matches"]:
        for hand in read_match_log(tmp_path / doc["run_dir"] / m["files"]["log"]).hands:
            if hand.names.index("lbr") == 1:  # the small blind: checks/calls, then bets the first street it may
                assert hand.state.round == first_street and hand.state.actions[first_street][-1] == FOLD


def test_lbr_wins_250_against_always_fold_under_s1(tmp_path):
    doc, row = _run(tmp_path, "S1")
    sb_showdowns = []
    for m in doc["matches"]:
        for hand in read_match_log(tmp_path / doc["run_dir"] / m["files"]["log"]).hands:
            me = hand.names.index("lbr")
            if me == 0:  # the big blind: the small blind folds at once
                assert hand.values[me] == 50.0 and hand.state.actions == [[FOLD]]
            else:  # the small blind: calls, then both check to the showdown, 100 chips each whatever LBR holds
                assert hand.state.actions == [[CALL, CALL]] * 4 and hand.state.spent == [100, 100]
                sb_showdowns.append(hand.values[me])
    # what LBR does never depends on its cards, so the showdowns are worth 0 on average: 50/2 chips a hand exactly
    assert len(sb_showdowns) == 12
    # the sample's figure is that exact value plus the luck of its showdowns, to the chip
    assert row["duplicate_mbb_per_hand"] == pytest.approx(250.0 + 1000 * np.mean(sb_showdowns) / 2 / 100)
    # and it calls even with the hand that does worst against a random one (32o: about 32% equity; 25% suffices)
    lbr = create("lbr:target=fold,actions=S1", HUNL, 1)
    lbr.attach(LiveTarget(create("fold", HUNL, 2)))
    lbr.equity.prepare()
    state = State(HUNL, 0, [parse_cards("AsAh"), parse_cards("3c2d")], [])
    assert lbr.act(View.parse(format_match_state(state.view_of(1), 1), HUNL), math.inf) == CALL


# ------------------------------------------------------------------ the lower bound, exactly, in no-limit Leduc

@pytest.fixture(scope="module")
def leduc_nl():
    game = parse_game(LEDUC_NL_SMALL)
    return game, best_response_nolimit(game, lambda: create(UNIFORM, game, 3))


def _lbr_maker(game, setting):
    def make(target):
        lbr = create(f"lbr:target=x,actions={setting}", game, 7)
        lbr.attach(LiveTarget(target))
        return lbr
    return make


@pytest.mark.parametrize("setting", ["S1", "S2", "S3", "S4", "full"])
def test_no_setting_beats_the_exact_best_response_in_no_limit_leduc(leduc_nl, setting):
    game, br = leduc_nl
    r = exact_lbr_nolimit(game, lambda: create(UNIFORM, game, 3), _lbr_maker(game, setting), br)
    for lbr, best in zip(r.lbr, r.best_response):
        assert lbr <= best + 1e-9
    # S2 and S3 only check/call in a two-street game: against the uniform player that is worth 0 by symmetry;
    # the others win, but less than the best response (which weighs every raise size)
    if setting in ("S2", "S3"):
        assert r.lbr_mbb == pytest.approx(0.0, abs=1e-9)
    else:
        assert 0 < r.lbr_mbb < r.best_response_mbb


@pytest.mark.parametrize("name", ["kuhn2p", pytest.param("leduc", marks=pytest.mark.slow)])
def test_the_no_limit_recursion_agrees_with_the_public_tree_in_limit_games(name):
    # the same values by the vectorised public tree (limit only) and by the recursion over every engine state
    game = load_game(name)
    make_target = lambda: create("cfr", game, 3)  # noqa: E731
    tree = exact_lbr(game, make_target, _lbr_maker(game, "full"))
    walk = exact_lbr_nolimit(game, make_target, _lbr_maker(game, "full"))
    assert walk.lbr == pytest.approx(tree.lbr, abs=1e-12)
    assert walk.best_response == pytest.approx(tree.best_response, abs=1e-12)
