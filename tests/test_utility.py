"""The utility player (docs/studies.md, the 2017 study): features, thresholds, raise sizes, learning, persistence."""

from __future__ import annotations

import json
import logging

import pytest
from playkit import play_memory

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import replay_betting
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.persist import ModelFileError
from acpcbot.strategies.registry import create
from acpcbot.strategies.utility import (
    START_FOLD,
    START_RAISE,
    UtilityStrategy,
    bet_value,
    hand_value,
    learn,
    position_value,
    postflop_value,
    preflop_value,
    stack_value,
    utility,
)
from acpcbot.world import MatchInfo, View

HUNL, HULHE, P3 = load_game("hunl"), load_game("hulhe"), load_game("3pnl")


def view(line: str, game=HUNL) -> View:
    return View.parse(line, game)


def state_of(betting: str, game=HUNL) -> State:
    return replay_betting(betting, game, State(game))


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


# ----------------------------------------------------------------- V

@pytest.mark.parametrize("cls,value", [
    ("AA", 1.0), ("KK", 1 - 1 / 167), ("AKs", 1 - 3 / 167), ("A9o", 1 - 75 / 167),
    ("83o", 1 - 166 / 167), ("82o", 0.0), ("72o", 0.0),
])
def test_preflop_value_runs_from_one_at_rank_1_to_zero_at_rank_168(cls, value):
    # the study: "1 - rank/168 (rank 1 = 1.0, ranks 168-169 = 0)"; the two
    # anchors fix the line, 1 - (rank - 1)/167, clamped for rank 169
    assert preflop_value(cls) == pytest.approx(value)


@pytest.mark.parametrize("hand,value", [
    ("AsKsQsJsTs", 1.0),          # royal flush: the top of the straight-flush band
    ("5s4s3s2sAs", 0.9),          # the worst straight flush: the bottom
    ("AsAhAdAcKs", 0.9),          # the best quads: the top of 0.8-0.9
    ("2s2h2d2c3s", 0.8),
    ("AsAhAdKcKs", 0.8), ("2s2h2d3c3s", 0.7),
    ("AsKsQsJs9s", 0.7), ("7s5s4s3s2s", 0.6),
    ("AsKdQcJhTs", 0.6), ("5s4d3c2hAs", 0.5),
    ("AsAdAcKhQs", 0.5), ("2s2d2c3h4s", 0.4),
    ("AsAdKcKhQs", 0.4), ("3s3d2c2h4s", 0.3),
    ("AsAdKcQhJs", 0.3), ("2s2d3c4h5s", 0.2),
    ("AsKdQcJh9s", 0.2), ("7s5d4c3h2s", 0.1),
])
def test_postflop_value_bands(hand, value):
    assert postflop_value(cards(hand)) == pytest.approx(value)


def test_postflop_value_inside_a_band_follows_the_rank():
    low, mid, high = (postflop_value(cards(h)) for h in ("2s2d3c4h5s", "8s8d3c4h5s", "AsAdKcQhJs"))
    assert 0.2 <= low < mid < high <= 0.3
    # seven cards: the best five count (a flush on board with a pair in hand)
    assert hand_value(cards("AhAd"), cards("2s5s9sJsKs")) == postflop_value(cards("2s5s9sJsKs"))
    assert hand_value(cards("AhAd"), ()) == preflop_value("AA")


# ----------------------------------------------------------------- P, B, S

def test_position_is_the_place_in_this_rounds_order():
    s = State(HUNL)  # preflop: position 1 (small blind) acts first
    assert position_value(s, 1) == 0.5 and position_value(s, 0) == 1.0
    s = state_of("cc/")  # after the flop: position 0 first
    assert position_value(s, 0) == 0.5 and position_value(s, 1) == 1.0
    s = State(P3)  # three-handed preflop: 2, 0, 1
    assert [position_value(s, p) for p in (2, 0, 1)] == [pytest.approx(1 / 3), pytest.approx(2 / 3), 1.0]
    s = state_of("fcc/", P3)  # position 2 folded: the flop is 0 then 1
    assert position_value(s, 0) == 0.5 and position_value(s, 1) == 1.0
    s = state_of("r20000cc///", P3)
    assert position_value(s, 0) == 1.0  # nobody can act: no order to be in


def test_bet_and_stack_features():
    s = State(HUNL)
    assert bet_value(s, 1) == pytest.approx(1 - 50 / 150) and bet_value(s, 0) == 1.0
    s = state_of("r300")
    assert bet_value(s, 0) == pytest.approx(1 - 200 / 400)
    assert stack_value(s, 0) == pytest.approx(19900 / (19900 + 19700))
    assert stack_value(State(HULHE), 0) == pytest.approx(0.5, abs=1e-6)  # limit stacks are unlimited


def test_utility_weights_its_features():
    v = view("MATCHSTATE:0:0:r300:AsAd|")
    u = utility(v)
    assert (u.value, u.position, u.bet) == (1.0, 1.0, 0.5)
    assert u.u == pytest.approx(0.6 * u.value + 0.1 * 1.0 + 0.2 * 0.5 + 0.1 * 19900 / 39600)


# ----------------------------------------------------------------- decisions

def strategy(game=HUNL, **params) -> UtilityStrategy:
    return UtilityStrategy(game, __import__("random").Random(0), **params)


def decide(s: UtilityStrategy, line: str, raise_t: float, fold_t: float, game=HUNL):
    s.raise_threshold, s.fold_threshold = raise_t, fold_t
    return s.act(view(line, game), 0.0)


def test_nothing_to_call_checks_below_r_and_raises_from_r():
    s = strategy()
    line = "MATCHSTATE:0:0:c:7c2d|"  # the small blind limped: we may check
    u = utility(view(line)).u
    assert decide(s, line, u + 1e-9, 0.0) == CALL
    assert decide(s, line, u, 0.0) == raise_to(200)  # U = R: the minimum raise
    assert decide(s, line, 0.99, 0.98) == CALL


def test_facing_a_bet_folds_below_f_calls_between_and_raises_above_r():
    s = strategy()
    line = "MATCHSTATE:0:0:r300:AsAd|"
    u = utility(view(line)).u
    assert decide(s, line, u + 0.2, u + 0.1) == FOLD
    assert decide(s, line, u + 0.1, u) == CALL      # F <= U
    assert decide(s, line, u, u - 0.1) == CALL      # U <= R
    lo, hi = 500, 20000
    for r in (u - 0.01, u - 0.2, 0.0):
        share = (u - r) / (1 - r)
        assert decide(s, line, r, 0.0) == raise_to(round(lo + (hi - lo) * share))


def test_limit_raises_are_r():
    s = strategy(HULHE)
    assert decide(s, "MATCHSTATE:0:0:r:AsAd|", 0.1, 0.0, HULHE) == RAISE
    assert decide(s, "MATCHSTATE:0:0:rrr:AsAd|", 0.1, 0.0, HULHE) == CALL  # raises capped this round


def test_a_fold_when_nothing_is_to_call_is_a_check():
    s = strategy()
    assert decide(s, "MATCHSTATE:0:0:c:7c2d|", 0.99, 0.98) == CALL


# ----------------------------------------------------------------- learning

def test_learning_moves_thresholds_only_after_losing_windows():
    # lost in all: a call lost (F up), a raise won (R down), two raises lost (R up twice)
    hands = [(-300, 0, 1), (100, 1, 0), (-50, 2, 0), (0, 1, 1)]
    assert learn(0.55, 0.3, hands, 0.02) == pytest.approx((0.55 - 0.02 + 0.04, 0.3 + 0.02))
    assert learn(0.55, 0.3, [(300, 0, 1), (-100, 1, 0)], 0.02) == (0.55, 0.3)  # won in all: no change
    assert learn(0.55, 0.3, [(0, 3, 3)], 0.02) == (0.55, 0.3)


def test_learning_keeps_the_thresholds_in_bounds():
    assert learn(0.99, 0.3, [(-1, 5, 0)], 0.02) == pytest.approx((1.0, 0.3))  # R <= 1
    assert learn(0.55, 0.5, [(-1, 0, 5)], 0.02) == pytest.approx((0.55, 0.54))  # R - F >= 0.01
    r, f = learn(0.02, 0.0, [(-2, 0, 0), (1, 5, 0)], 0.02)
    assert (r, f) == pytest.approx((0.01, 0.0))  # our lower bounds: R >= 0.01, F >= 0


def final(betting: str, ours: str, theirs: str, board: str, position: int = 0, hand: int = 0) -> View:
    holes = [ours, theirs] if position == 0 else [theirs, ours]
    return view(f"MATCHSTATE:{position}:{hand}:{betting}:{holes[0]}|{holes[1]}{board}")


def test_end_hand_learns_every_n_hands_from_our_raises_and_calls():
    s = strategy(n=2)
    s.start_match(MatchInfo(HUNL, opponents=("bob",)))
    lost = final("r300c/cc/cc/cc", "2c3d", "AsAd", "/Kh9s7c/5d/Jc")  # we called 200 and lost 300
    won = final("cr300f", "2c3d", "AsAd", "", hand=1)                # we raised, it folded: +100
    assert (lost.result, won.result) == (-300, 100)
    s.end_hand(lost)
    assert (s.raise_threshold, s.fold_threshold) == (START_RAISE, START_FOLD)
    s.end_hand(won)
    assert (s.raise_threshold, s.fold_threshold) == pytest.approx((START_RAISE - 0.02, START_FOLD + 0.02))
    assert s.window == [] and s.steps == 1 and s.hands == 2


# ----------------------------------------------------------------- persistence

def test_thresholds_persist_per_opponent_across_matches(tmp_path, caplog):
    path = tmp_path / "utility.json"
    spec = f"utility:n=5,mu=0.05,model={path}"
    first = play_memory("hunl", [spec, "raise:size=pot"], 60, 2, names=["me", "bob"])
    s = first.strategies[0]
    assert s.steps == 12 and (s.raise_threshold, s.fold_threshold) != (START_RAISE, START_FOLD)
    doc = json.loads(path.read_text())
    assert doc["kind"] == "utility" and doc["entries"]["bob"] == {
        "R": s.raise_threshold, "F": s.fold_threshold, "hands": 60, "steps": 12}
    # the next match against bob starts where this one ended; another opponent starts afresh
    second = create(spec, HUNL, 1)
    second.start_match(MatchInfo(HUNL, name="me", opponents=("bob",)))
    second.observe(view("MATCHSTATE:0:0::AsAd|"))
    assert (second.raise_threshold, second.fold_threshold, second.hands) == (s.raise_threshold, s.fold_threshold, 60)
    other = create(spec, HUNL, 1)
    other.start_match(MatchInfo(HUNL, name="me", opponents=("carol",)))
    other.observe(view("MATCHSTATE:0:0::AsAd|"))
    assert (other.raise_threshold, other.fold_threshold) == (START_RAISE, START_FOLD)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_unnamed_opponents_are_keyed_by_seat(tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "utility", "version": 1,
                                "entries": {"seat:2": {"R": 0.7, "F": 0.1}}}))
    s = create(f"utility:model={path}", HUNL, 1)
    s.start_match(MatchInfo(HUNL))
    s.observe(view("MATCHSTATE:0:0::AsAd|"))  # position 0 of hand 0: seat 0, the opponent is seat 2 (1-based)
    assert (s.key, s.raise_threshold, s.fold_threshold) == ("seat:2", 0.7, 0.1)
    s.end_match()
    assert json.loads(path.read_text())["entries"]["seat:2"] == {"R": 0.7, "F": 0.1, "hands": 0, "steps": 0}


@pytest.mark.parametrize("entry,words", [
    ({"R": 0.2, "F": 0.5}, "entry 'x' has thresholds R=0.2, F=0.5 outside"),
    ({"R": 0.2}, "entry 'x' is not a utility entry"),
    ([1, 2], "entry 'x' is not a utility entry"),
])
def test_bad_entries_fail_before_the_match(tmp_path, entry, words):
    path = tmp_path / "u.json"
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "utility", "version": 1, "entries": {"x": entry}}))
    with pytest.raises(ModelFileError, match=words):
        create(f"utility:model={path}", HUNL, 1)


# ----------------------------------------------------------------- games

@pytest.mark.parametrize("game_name", ["kuhn2p", "leduc", "leducnl", "kuhn3p"])
def test_refuses_games_other_than_holdem(game_name):
    with pytest.raises(UnsupportedGame, match="written for Texas hold'em"):
        create("utility", load_game(game_name), 1)


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pl", "3pnl", "6pnl"])
def test_plays_every_holdem_game_legally(game_name, caplog):
    n = load_game(game_name).num_players
    specs = ["utility:n=5"] + ["random"] * (n - 1)
    result = play_memory(game_name, specs, 150, 4)
    assert result.warnings == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    # chips only change hands; split pots leave float rounding, far below a chip
    assert sum(result.totals) == pytest.approx(0, abs=1e-6)
    assert result.strategies[0].steps == 30
