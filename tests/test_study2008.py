"""The 2008 study's static players: the state variables, the six decisions, random2008, constant, mfs and rh."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from playkit import play_memory

import acpcbot.strategies.learner2008  # noqa: F401  registers learner2008 (played in the multi-game test)
from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import load_game, parse_game
from acpcbot.protocol import format_match_state, replay_betting
from acpcbot.strategies import UnsupportedGame, create
from acpcbot.strategies.registry import StrategySpecError, resolve
from acpcbot.strategies.study2008 import (
    VARIABLES,
    Constant,
    MathematicallyFair,
    RachlinHiggins,
    Random2008,
    Situation,
    action_decision,
    chance,
    decision_action,
    decisions_of_hand,
    followers,
    mfs_decision,
    pot_chips,
    rh_decision,
    rh_value,
    situation,
)
from acpcbot.world import View

HUNL = load_game("hunl")
HULHE = load_game("hulhe")
P3NL = load_game("3pnl")


def state_of(game, betting="", holes=None, board=""):
    """A replayed state with the given cards (text) and betting."""
    n = game.num_players
    holes = holes or ["AsAd", "7c2d", "KhKs", "QhQd", "JhJd", "ThTd"][:n]
    return replay_betting(betting, game, State(game, 0, [parse_cards(h) for h in holes], parse_cards(board)))


def sit(**kw):
    base = dict(pot=3.0, odds=3.0, raise_=1.0, chance=50.0, round=0, followers=2, ingame=2, nplayers=2, qtyraise=0)
    base.update(kw)
    return Situation(**base)


# ----------------------------------------------------------------- the state variables

def test_hunl_first_action():
    # reverse blinds: position 1 posts the small blind (50) and acts first, facing 50 more
    s = situation(state_of(HUNL))
    assert s == Situation(pot=3.0, odds=3.0, raise_=1.0, chance=s.chance, round=0, followers=2, ingame=2,
                          nplayers=2, qtyraise=0)
    assert len(s.values()) == len(VARIABLES)


def test_hunl_flop_facing_a_bet():
    st = state_of(HUNL, "r300c/r1000", board="2c7h9d")
    s = situation(st)
    assert st.current_player == 1
    # r1000 is a raise TO 1000 for the hand: pot 1000 + 300 = 1300 chips = 26 SB, own contribution 300
    assert (s.pot, s.odds, s.raise_, s.round, s.followers, s.qtyraise) == (26.0, 1300 / 300, 14.0, 1, 1, 2)


def test_three_handed_preflop():
    st = state_of(P3NL)
    s = situation(st)
    assert st.current_player == 2  # the button acts first and has put nothing in
    assert (s.odds, s.raise_, s.followers, s.ingame, s.nplayers) == (0.0, 2.0, 3, 3, 3)
    assert followers(state_of(P3NL, "c")) == 2
    assert followers(state_of(P3NL, "cc")) == 1  # the big blind's option
    assert followers(state_of(P3NL, "ccr300")) == 2  # the raise reopens the round for both others
    st = state_of(P3NL, "f")
    s = situation(st)
    assert (s.ingame, s.followers) == (2, 2)
    assert situation(state_of(P3NL, "r300r900")).qtyraise == 2


def test_followers_skip_players_all_in():
    st = state_of(P3NL, "r20000cc///", board="2c7h9dTsJs")
    assert st.finished
    st = state_of(P3NL, "r20000c")  # the big blind is the only one left to act
    assert st.current_player == 1 and followers(st) == 1


def test_raise_is_capped_by_the_stack():
    game = parse_game(P3NL.to_text().replace("stack = 20000 20000 20000", "stack = 20000 1000 20000"), "short")
    st = state_of(game, "r5000c")
    assert st.current_player == 1
    s = situation(st)
    assert s.raise_ == (1000 - 100) / 50  # to call 4900, but only 900 left behind


def test_pot_counts_only_what_the_player_can_win():
    game = parse_game(P3NL.to_text().replace("stack = 20000 20000 20000", "stack = 20000 1000 20000"), "short")
    st = state_of(game, "r5000c")
    # seat 1 (stack 1000) can win at most 1000 from each of the others plus its own 100 in
    assert pot_chips(st, 1) == 1000 + 100 + 1000
    assert situation(st).pot == 2100 / 50
    # the big stacks can win everything
    assert pot_chips(st, 0) == st.pot
    # equal stacks (Doyle's game): the whole pot
    st = state_of(P3NL, "r5000c")
    assert pot_chips(st, 1) == st.pot


def test_chance_counts_ties_as_wins():
    # everyone plays the royal flush on the board: every deal is a tie
    st = state_of(HUNL, "cc/cc/cc/", board="AsKsQsJsTs", holes=["2c3d", "4h5h"])
    assert chance(st, 0) == 100.0


def test_chance_estimates_equity_and_is_reproducible():
    st = state_of(HUNL, "", holes=["AsAd", "7c2d"])
    aces = chance(st, 0)
    assert 75 <= aces <= 93  # AA wins or ties about 85% against a random hand; 300 samples, sd about 2%
    assert chance(st, 0) == aces  # seeded by the situation
    st3 = state_of(P3NL, "", holes=["AsAd", "7c2d", "KhKs"])
    assert chance(st3, 0) < aces  # two opponents
    assert chance(state_of(P3NL, "f", holes=["AsAd", "7c2d", "KhKs"]), 0) > chance(st3, 0)  # one folded
    # all 300 samples: a multiple of 1/3 %
    assert round(aces * 3) == pytest.approx(aces * 3, abs=1e-9)


def test_chance_sees_only_the_board_of_the_current_round():
    full = "2c7h9dTsJs"
    st = state_of(HUNL, "r300c/", board=full, holes=["7s7d", "AcKc"])
    st_flop = state_of(HUNL, "r300c/", board="2c7h9d", holes=["7s7d", "AcKc"])
    assert chance(st, 0) == chance(st_flop, 0)


def test_qtyraise_counts_every_round():
    st = state_of(HUNL, "r300r900c/r1000r3000c/", board="2c7h9dTs")
    assert situation(st).qtyraise == 4


# ----------------------------------------------------------------- the decisions

def test_decision_one_folds_or_checks():
    assert decision_action(state_of(HUNL), 1, random.Random(0)) == FOLD
    assert decision_action(state_of(HUNL, "c"), 1, random.Random(0)) == CALL  # free check


@pytest.mark.parametrize("decision, low, high", [(3, 100 + 100, 100 + 200), (4, 100 + 300, 100 + 900),
                                                  (5, 100 + 1000, 100 + 2000)])
def test_raise_bands_are_a_call_plus_uniform_small_blinds(decision, low, high):
    rng = random.Random(decision)
    sizes = [decision_action(state_of(HUNL), decision, rng).size for _ in range(400)]
    assert all(low <= s <= high for s in sizes)
    assert max(sizes) - min(sizes) > (high - low) * 0.8  # spread over the band
    # the small band (call 100 + 2..4 SB = 200..300) sits at the minimum raise of 200 already
    if decision == 3:
        assert min(sizes) >= 200


def test_raises_are_clamped_and_all_in_is_the_stack():
    st = state_of(HUNL, "r5000")
    # small raise: 5000 + 100..200 is below the minimum raise, to 5000 + 4900 = 9900
    assert decision_action(st, 3, random.Random(1)) == raise_to(9900)
    assert decision_action(st, 6, random.Random(1)) == raise_to(20000)
    st = state_of(HUNL, "r20000")  # nothing left to raise
    for d in (3, 4, 5, 6):
        assert decision_action(st, d, random.Random(1)) == CALL


def test_limit_raises_are_r_and_all_in_raises_when_allowed():
    st = state_of(HULHE)
    for d in (3, 4, 5, 6):
        assert decision_action(st, d, random.Random(1)) == RAISE
    capped = state_of(HULHE, "rrr")  # preflop cap of three raises reached
    assert capped.raise_bounds() is None
    for d in (3, 4, 5, 6):
        assert decision_action(capped, d, random.Random(1)) == CALL


def test_bad_decision():
    with pytest.raises(ValueError, match="decision 7"):
        decision_action(state_of(HUNL), 7, random.Random(1))


# ----------------------------------------------------------------- decisions read back from actions

def test_action_decision_inverts_unclamped_decisions():
    rng = random.Random(3)
    for betting in ("", "c", "r300c/", "r300c/c"):
        st = state_of(HUNL, betting, board="2c7h9d")
        for d in (1, 2, 3, 4, 5, 6):
            action = decision_action(st, d, rng)
            expected = 2 if (d == 1 and action == CALL) else d
            assert action_decision(st, action) == expected, (betting, d, action)


def test_action_decision_of_clamped_and_foreign_sizes():
    st = state_of(HUNL, "r5000")
    # every band clamps to the minimum raise to 9900: the smallest decision explains it
    assert action_decision(st, raise_to(9900)) == 3
    assert action_decision(st, raise_to(20000)) == 6
    st = state_of(HUNL)
    # raise-by 250 SB (12500 chips over the 100 to call): nearer all-in (20000) than the large band's top (2100)
    assert action_decision(st, raise_to(12600)) == 6
    assert action_decision(st, raise_to(5000)) == 5
    assert action_decision(st, raise_to(350)) == 3  # between small (<=300) and medium (>=400): nearer small
    assert action_decision(st, raise_to(360)) == 4
    assert action_decision(state_of(HULHE), RAISE) == 3
    assert action_decision(st, FOLD) == 1 and action_decision(st, CALL) == 2


def test_decisions_of_hand_replays_every_action():
    st = state_of(HUNL, "r300c/r1000f", board="2c7h9d")
    steps = decisions_of_hand(st)
    assert [(p, a) for p, _, a in steps] == [(1, raise_to(300)), (0, CALL), (0, raise_to(1000)), (1, FOLD)]
    assert [before.round for _, before, _ in steps] == [0, 0, 1, 1]


# ----------------------------------------------------------------- the players' rules

def test_mfs_rule_worked_examples():
    assert mfs_decision(sit(odds=0.0), 1) == 2
    # POT 10, ODDS 2: E = 5 (opponents' money), RAISE 3: M = 10 - 5 + 3 = 8
    assert mfs_decision(sit(pot=10, odds=2, raise_=3, chance=50), 1) == 1  # V = (250 - 400)/100 = -1.5
    assert mfs_decision(sit(pot=10, odds=2, raise_=3, chance=80), 1) == 3  # V = (400 - 160)/100 = 2.4
    assert mfs_decision(sit(pot=10, odds=2, raise_=3, chance=80), 0.5) == 3  # 2.4 < 5T = 2.5
    assert mfs_decision(sit(pot=10, odds=2, raise_=3, chance=80), 0.4) == 4  # 5T = 2 <= 2.4 < 10T = 4
    # boundaries: V = -T calls, V = T raises small
    assert mfs_decision(sit(pot=10, odds=2, raise_=0, chance=40), 1) == 2  # V = (200 - 300)/100 = -1
    assert mfs_decision(sit(pot=10, odds=2, raise_=0, chance=60), 1) == 3  # V = (300 - 200)/100 = 1
    # POT 100, ODDS 4: E = 75, M = 25; CHANCE 100: V = 75
    assert mfs_decision(sit(pot=100, odds=4, raise_=0, chance=100), 5) == 6  # 75 >= 15T
    assert mfs_decision(sit(pot=100, odds=4, raise_=0, chance=100), 5.1) == 5  # 51 <= 75 < 76.5
    assert mfs_decision(sit(pot=100, odds=4, raise_=0, chance=100), 7.6) == 4  # 75 < 10T = 76


def test_rh_rule_worked_examples():
    s = sit(pot=3, qtyraise=0, followers=2, ingame=2, raise_=1)
    assert rh_value(s) == 3 / 8
    assert rh_decision(s, 0.1) == 2  # 0.1 <= 0.375 < 2
    assert rh_decision(s, 0.001) == 5  # 0.1 <= 0.375 < 1
    assert rh_decision(s, 0.0001) == 6
    assert rh_decision(s, 1) == 1
    assert rh_decision(s, 0.375 / 50) == 4  # V = 50T exactly: medium, not small
    assert rh_decision(s, 0.375 / 49.9) == 3


def test_random2008_frequencies():
    p = Random2008(HUNL, random.Random(5))
    st = state_of(HUNL, "c")
    counts = Counter()
    for _ in range(9000):
        p.act(View.parse(format_match_state(st, 0), HUNL), 0.0)
        counts[p.last_decision] += 1
    assert 3700 <= counts[2] <= 4300  # 4/9 of 9000 = 4000
    for d in (1, 3, 4, 5, 6):
        assert 850 <= counts[d] <= 1150  # 1/9 = 1000


def test_constant_plays_its_decision():
    for d in (2, 3, 4, 5, 6):
        p = create(f"constant:d={d}", HUNL, seed=1)
        p.act(View.parse(format_match_state(state_of(HUNL), 1), HUNL), 0.0)
        assert p.last_decision == d
    for bad in ("constant:d=1", "constant:d=7", "constant:d=x"):
        with pytest.raises(StrategySpecError):
            resolve(bad)
    assert create("constant", HUNL, seed=1).d == 2


def test_mfs_and_rh_play_views():
    view = View.parse(format_match_state(state_of(HUNL, "r300c/r1000", board="2c7h9d"), 1), HUNL)
    mfs = create("mfs:t=1", HUNL, seed=3)
    action = mfs.act(view, 0.0)
    # 7c2d on 2c7h9d: two pair, CHANCE high, a big pot: MFS raises
    assert mfs.last_situation.chance > 80 and mfs.last_decision >= 3 and action.type == ActionType.RAISE
    rh = create("rh:t=0.1", HUNL, seed=3)
    rh.act(view, 0.0)
    assert rh.last_situation.chance is None  # RH ignores its cards
    # V = 26 / (3 * 1 * 2 * 15) = 0.29: a call at T = 0.1
    assert rh.last_decision == 2


def test_params_validated():
    for bad in ("mfs:t=0", "mfs:t=-1", "rh:t=0", "mfs:x=1"):
        with pytest.raises(StrategySpecError):
            resolve(bad)
    assert resolve("mfs:t=5")[1] == {"t": 5.0}


@pytest.mark.parametrize("cls", [Random2008, Constant, MathematicallyFair, RachlinHiggins])
def test_only_holdem(cls):
    for name in ("kuhn2p", "kuhn3p", "leduc", "leducnl"):
        assert "hold'em" in cls.unsupported_reason(load_game(name))
        with pytest.raises(UnsupportedGame, match="hold'em"):
            cls(load_game(name), random.Random(1))
    for name in ("hunl", "hulhe", "3pl", "3pnl", "6pnl"):
        assert cls.unsupported_reason(load_game(name)) is None


# ----------------------------------------------------------------- legal play everywhere

@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pl", "3pnl", "6pnl"])
def test_every_player_acts_legally_in_every_holdem_game(game_name):
    game = load_game(game_name)
    specs = ["random2008", "constant:d=3", "learner2008", "constant:d=6", "mfs:t=1", "rh:t=0.001",
             "learner2008:setting=genetic", "mfs:t=5"]
    n = game.num_players
    result = play_memory(game_name, [specs[i % len(specs)] for i in range(n)], 40, 11, seeds=list(range(n)))
    # every reply legal as sent: the dealer warned of none, the clients corrected none and fell back on none
    assert result.warnings == []
    assert all(c.corrections == 0 and c.fallbacks == 0 for c in result.clients)
    decisions = Counter(action_decision(step.before, step.action) for hand in result.hands
                        for step in hand.state.steps())
    assert len(result.hands) == 40
    assert len(decisions) >= (3 if game.is_limit else 5)


@pytest.mark.slow  # the benchmark end to end: a process per strategy and a live TCP match each, 9 processes: make soak
def test_strategies_benchmark_prints_one_json_object():
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "strategies.py"
    out = subprocess.run([sys.executable, str(script), "--hands", "3", "--games", "hunl", "--only", "rh,mfs"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    figures = json.loads(out)
    assert set(figures) == {"rh", "mfs"}
    for f in figures.values():
        assert f["p50_ms"] <= f["p99_ms"] and f["actions"] > 0 and f["games"] == ["hunl"]
