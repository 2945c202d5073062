"""uc3m and uc3m-simple (docs/studies.md, the 2012 study): analyzers, raise sizes, EV analyzer, persistence, history."""

from __future__ import annotations

import json
import logging
import random

import pytest
from playkit import play_memory

from acpcbot.cards import parse_card
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import NUM_PAIRS, pair_index
from acpcbot.gamedef import load_game
from acpcbot.preflop import preflop_equity
from acpcbot.protocol import replay_betting
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.persist import ModelFileError
from acpcbot.strategies.registry import StrategySpecError, create
from acpcbot.strategies.uc3m import (
    ALLIN,
    ALLIN_EQUITY,
    ALLIN_EQUITY_FLOOR,
    BLUFF_FACTOR,
    Uc3mSimpleStrategy,
    Uc3mStrategy,
    allin_threshold,
    preflop_raise_factor,
    target_band,
    top_range,
)
from acpcbot.strategies.uc3m_tree import OpponentModel
from acpcbot.world import MatchInfo, View

HUNL, HULHE, P3 = load_game("hunl"), load_game("hulhe"), load_game("3pnl")


def view(line: str, game=HUNL) -> View:
    return View.parse(line, game)


def simple(game=HUNL, seed: int = 0, **params) -> Uc3mSimpleStrategy:
    return Uc3mSimpleStrategy(game, random.Random(seed), **params)


def full(game=HUNL, seed: int = 0, opponents=("bob",), **params) -> Uc3mStrategy:
    s = Uc3mStrategy(game, random.Random(seed), **params)
    s.start_match(MatchInfo(game, name="me", opponents=opponents))
    return s


# ----------------------------------------------------------------- the chosen numbers

def test_allin_threshold_widens_with_the_opponents_preflop_raises():
    assert allin_threshold(None) == ALLIN_EQUITY == 0.79
    assert allin_threshold(0.25) == 0.79 and allin_threshold(0.1) == 0.79
    assert allin_threshold(0.5) == pytest.approx(0.69)
    assert allin_threshold(1.0) == ALLIN_EQUITY_FLOOR == 0.60


def test_preflop_raise_factor_grows_with_equity():
    assert preflop_raise_factor(0.40) == 0.5 == preflop_raise_factor(0.55)
    assert preflop_raise_factor(0.675) == pytest.approx(1.0)
    assert preflop_raise_factor(0.85) == 1.5


@pytest.mark.parametrize("hs,band", [(1.0, (4, 1.0)), (0.95, (4, 1.0)), (0.949, (3, 1.0)), (0.85, (3, 1.0)),
                                     (0.7, (2, 0.75)), (0.55, (1, 0.5)), (0.549, (0, 0.5)), (0.0, (0, 0.5))])
def test_target_bands(hs, band):
    assert target_band(hs) == band


def test_top_range_holds_the_best_hands_by_equity():
    r = top_range(10)
    assert r.sum() == round(NUM_PAIRS * 0.1)
    aa = pair_index(parse_card("As"), parse_card("Ad"))
    seven_deuce = pair_index(parse_card("7c"), parse_card("2d"))
    assert r[aa] == 1 and r[seven_deuce] == 0
    assert top_range(10) is r  # cached: built once


# ----------------------------------------------------------------- preflop

@pytest.mark.parametrize("line,plan", [
    ("MATCHSTATE:1:0::|AsAd", ((0, 0, 1), ALLIN, "all-in equity")),
    ("MATCHSTATE:1:0::|QsQd", ((0, 0, 1), ALLIN, "all-in equity")),  # 0.7993
    ("MATCHSTATE:1:0::|JsJd", ((0, 0.25, 0.75), preflop_raise_factor(preflop_equity("JJ")), "equity band 0.66")),
    ("MATCHSTATE:1:0::|5s5d", ((0, 0.6, 0.4), preflop_raise_factor(preflop_equity("55")), "equity band 0.58")),
    ("MATCHSTATE:1:0::|7c2d", ((0.75, 0.25, 0), 0.5, "equity band 0.0")),
    ("MATCHSTATE:0:0:r1000:7c2d|", ((1, 0, 0), 0.0, "pot odds")),  # 900 to call into 1100: needs 0.45 > 0.346
    ("MATCHSTATE:0:0:r300r10000r20000:7c2d|", ((0, 1, 0), 0.0, "committed")),  # 10000 behind, pot 30000
])
def test_preflop_plans(line, plan):
    got = simple().rules(view(line))
    assert got.triple == pytest.approx(plan[0]) and got.factor == pytest.approx(plan[1]) and got.why == plan[2]


def test_preflop_equity_against_several_opponents_is_a_power():
    got = simple(P3).rules(view("MATCHSTATE:2:0::||AsAd", P3))  # two opponents: 0.852^2 = 0.726 < 0.79
    assert got.triple == (0, 0.25, 0.75) and got.why == "equity band 0.66"


def test_all_in_preflop_is_a_shove_or_a_call():
    assert simple().act(view("MATCHSTATE:1:0::|AsAd"), 0) == raise_to(20000)
    assert simple().act(view("MATCHSTATE:0:0:r20000:AsAd|"), 0) == CALL
    assert simple(HULHE).act(view("MATCHSTATE:1:0::|AsAd", HULHE), 0) == RAISE


# ----------------------------------------------------------------- postflop

@pytest.mark.parametrize("line,triple,factor,why", [
    # top set: below its four bets it raises, all-in once the round holds a bet
    ("MATCHSTATE:0:0:cc/:KcKd|/Ks7h2c", (0, 0.15, 0.85), 1.0, "below target 4"),
    ("MATCHSTATE:1:0:cc/r400:|KcKd/Ks7h2c", (0, 0, 1), ALLIN, "nuts"),
    # a strong draw-less pair (0.925): three bets, then it calls
    ("MATCHSTATE:1:0:cc/r400r1200r3600:|Jc9c/Js7h2c", (0, 1, 0), 0.0, "at target 3"),
    # nothing: a check, or a fold past its target, with a 10% bluff facing at most one bet
    ("MATCHSTATE:0:0:cc/:7c2d|/AsKhQd", (0, 0.9, 0.1), BLUFF_FACTOR, "at target 0, bluff 10%"),
    ("MATCHSTATE:1:0:cc/r400:|7c2d/AsKhQd", (0.9, 0, 0.1), BLUFF_FACTOR, "past target 0, bluff 10%"),
    ("MATCHSTATE:0:0:cc/r400r1200:7c2d|/AsKhQd", (1, 0, 0), 0.0, "past target 0"),
    # continuation bets after raising last preflop, first to act or checked to
    ("MATCHSTATE:0:0:cr300c/:7c2d|/AsKhQd", (0, 0.25, 0.75), 0.5, "continuation bet"),
    ("MATCHSTATE:1:0:r300c/c:|7c2d/AsKhQd", (0, 0.25, 0.75), 0.5, "continuation bet"),
    # pot committed: 10000 behind, 25000 in the pot
    ("MATCHSTATE:1:0:r10000c/r15000:|7c2d/AsKhQd", (0, 1, 0), 0.0, "committed"),
])
def test_postflop_plans(line, triple, factor, why):
    got = simple().rules(view(line))
    assert got.triple == pytest.approx(triple) and got.factor == factor and got.why == why


def test_limit_games_call_when_the_pot_odds_pay():
    # 10 to call into 30: needs 0.25; T9 on J72 has 0.263, 72 on AKQ 0.137
    assert simple(HULHE).rules(view("MATCHSTATE:1:0:cc/r:|Tc9c/Js7h2c", HULHE)).why == "limit pot odds"
    assert simple(HULHE).rules(view("MATCHSTATE:1:0:cc/r:|7c2d/AsKhQd", HULHE)).why.startswith("past target 0")


def test_bluffs_one_time_in_ten():
    line = view("MATCHSTATE:1:0:cc/r400:|7c2d/AsKhQd")
    s = simple(seed=5)
    acts = [s.act(line, 0) for _ in range(4000)]
    raises = [a for a in acts if a.type == ActionType.RAISE]
    assert 0.085 < len(raises) / len(acts) < 0.115
    assert all(a == FOLD for a in acts if a.type != ActionType.RAISE)


def test_raise_sizes_are_f_times_the_pot_spread_by_a_fifth():
    s = simple(seed=2)
    v = view("MATCHSTATE:0:0:cc/:KcKd|/Ks7h2c")  # pot 200: F = 1 raises by 160..240
    sizes = {s.raise_action(v, 1.0).size for _ in range(500)}
    assert min(sizes) >= 100 + 160 and max(sizes) <= 100 + 240 and len(sizes) > 40
    assert s.raise_action(v, ALLIN) == raise_to(20000)
    assert s.raise_action(view("MATCHSTATE:0:0:cc/:KcKd|/Ks7h2c"), 0.01) == raise_to(200)  # clamped to the minimum


# ----------------------------------------------------------------- the opponent model and EV analyzer

def state_of(betting: str) -> State:
    return replay_betting(betting, HUNL, State(HUNL))


def teach(model: OpponentModel) -> None:
    """The opponent (small blind, position 1) folds to our raise 2 times in 5; see test_opponent's worked tree."""
    for line, shown in [("cc/cc/cc/cc", 0.2), ("cc/cc/cc/cc", 0.6), ("cr300f", None), ("cr300f", None),
                        ("cr300c/cc/cc/cc", 0.3), ("cr300c/cc/cc/cc", 0.9), ("cr300c/r600f", None)]:
        model.record(state_of(line), 1, None, shown)


def test_the_ev_analyzer_plays_the_best_move_where_the_opponent_showed_down_enough():
    s = full(showdowns=2, mix=1.0)
    v = view("MATCHSTATE:0:0:c:7c2d|")  # it limped; we may check or raise
    teach(s.opponent(v)[1])
    # 72o (0.346 against a random hand): check 0.5*200-100 = 0; raise 0.4*100 + 0.6*300 = 220
    assert s.act(v, 0) == raise_to(300) and s.last_source == "ev"
    assert s.last_ev == pytest.approx({"c": 0.0, "rp": 220.0})
    assert s.last_plan.triple == (0.75, 0.25, 0)  # the rules alone would mostly check


def test_mixing_and_thin_models_fall_back_to_the_rules():
    v = view("MATCHSTATE:0:0:c:7c2d|")
    s = full(showdowns=2, mix=0.0)
    teach(s.opponent(v)[1])
    assert s.act(v, 0) == CALL and s.last_source == "rules" and s.last_ev is not None
    s = full(showdowns=5, mix=1.0)  # four showdowns after the limp are not enough
    teach(s.opponent(v)[1])
    s.act(v, 0)
    assert s.last_source == "rules" and s.last_ev is None
    s = full(showdowns=2, mix=0.75, seed=3)
    teach(s.opponent(v)[1])
    sources = []
    for _ in range(400):
        s.act(v, 0)
        sources.append(s.last_source)
    assert 0.68 < sources.count("ev") / len(sources) < 0.82


def test_folding_is_valued_at_our_chips_in():
    s = full(showdowns=1, mix=1.0)
    v = view("MATCHSTATE:0:0:r300:7c2d|")
    model = s.opponent(v)[1]
    for _ in range(3):  # it raised and we called: it always showed the nuts
        model.record(state_of("r300c/cc/cc/cc"), 1, None, 0.99)
    assert s.last_ev is None
    assert s.act(v, 0) == FOLD and s.last_ev == pytest.approx({"f": -100.0, "c": 0.0 * 600 - 300})


def test_the_model_widens_all_in_and_narrows_the_range_after_raises():
    s = full()
    v = view("MATCHSTATE:1:0::|6s6d")  # 66: 0.633
    model = s.opponent(v)[1]
    assert s.rules(v).why == "equity band 0.58"
    model.hands, model.preflop_raises = 100, 100
    assert s.rules(v).why == "all-in equity"  # threshold 0.60 against a raise-always opponent
    model.hands, model.preflop_raises = 96, 19  # rate (19+1)/(96+4) = 0.2
    assert s.opponent_range(view("MATCHSTATE:1:0:r300c/:|6s6d/Ks7h2c")) is None  # it did not raise
    assert s.opponent_range(view("MATCHSTATE:0:0:r300c/:6s6d|/Ks7h2c")) is top_range(20)


def test_three_handed_uc3m_plays_the_rules_without_a_model(tmp_path, caplog):
    path = tmp_path / "m.json"
    with caplog.at_level(logging.WARNING):
        s = create(f"uc3m:model={path}", P3, 1)
    assert "heads-up games only" in caplog.text
    s.start_match(MatchInfo(P3))
    v = view("MATCHSTATE:2:0::||AsAd", P3)
    assert s.opponent(v) is None and s.ev_values(v) is None
    s.act(v, 0)
    assert s.last_source == "rules"


# ----------------------------------------------------------------- persistence and history

def test_opponent_trees_persist_per_opponent_name(tmp_path, caplog):
    path = tmp_path / "uc3m.json"
    spec = f"uc3m:model={path}"
    first = play_memory("hunl", [spec, "raise:size=pot"], 120, 3, names=["me", "bob"])
    s = first.strategies[0]
    doc = json.loads(path.read_text())
    assert doc["kind"] == "uc3m" and set(doc["entries"]) == {"bob"}
    assert doc["entries"]["bob"] == json.loads(json.dumps(s.models["bob"].to_json()))
    assert s.models["bob"].hands == 120
    again = create(spec, HUNL, 1)
    assert again.models["bob"].to_json() == s.models["bob"].to_json()
    # the next match against bob continues its trees; a match against carol keeps bob's untouched
    play_memory("hunl", [spec, "call"], 30, 4, names=["me", "carol"])
    doc = json.loads(path.read_text())
    assert set(doc["entries"]) == {"bob", "carol"} and doc["entries"]["carol"]["hands"] == 30
    assert doc["entries"]["bob"]["hands"] == 120
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_unnamed_opponents_are_keyed_by_seat(tmp_path):
    path = tmp_path / "uc3m.json"
    s = create(f"uc3m:model={path}", HUNL, 1)
    s.start_match(MatchInfo(HUNL))
    final = view("MATCHSTATE:1:0:cr300f:|7c2d")  # position 1 of hand 0 is seat 1: the opponent is seat 0
    s.end_hand(final)
    s.end_match()
    entries = json.loads(path.read_text())["entries"]
    assert list(entries) == ["seat:1"] and entries["seat:1"]["hands"] == 1


@pytest.mark.parametrize("entry,words", [
    ({"players": 3, "hands": 0, "preflop_raises": 0, "trees": {}}, "entry 'x': the model is of a 3-player game"),
    ({"players": 2, "hands": 0}, "entry 'x': bad or missing field"),
    ("nonsense", "entry 'x': an opponent model must be an object"),
])
def test_bad_model_entries_fail_before_the_match(tmp_path, entry, words):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "uc3m", "version": 1, "entries": {"x": entry}}))
    with pytest.raises(ModelFileError, match=words):
        create(f"uc3m:model={path}", HUNL, 1)


@pytest.mark.parametrize("spec", ["uc3m", "uc3m-simple"])
def test_history_file_has_every_hand_with_the_match_start(spec, tmp_path):
    path = tmp_path / "history.jsonl"
    result = play_memory("hunl", [f"{spec}:history={path}", "random"], 40, 6, names=["me", "bob"])
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 40 and [r["hand"] for r in records] == list(range(40))
    assert len({r["start"] for r in records}) == 1 and records[0]["start"] == result.strategies[0].started
    assert {r["opponents"] for r in records} == {"bob"}
    assert sum(r["result"] for r in records) == pytest.approx(result.totals[0]) == records[-1]["total"]
    play_memory("hunl", [f"{spec}:history={path}", "random"], 5, 7, names=["me", "bob"])
    assert len(path.read_text().splitlines()) == 45  # appended, not overwritten


# ----------------------------------------------------------------- games

@pytest.mark.parametrize("spec", ["uc3m", "uc3m-simple"])
@pytest.mark.parametrize("game_name", ["kuhn2p", "leduc", "leducnl"])
def test_refuses_games_other_than_holdem(spec, game_name):
    with pytest.raises(UnsupportedGame, match="written for Texas hold'em"):
        create(spec, load_game(game_name), 1)


@pytest.mark.parametrize("spec", ["uc3m", "uc3m-simple"])
@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pl", "3pnl", "6pnl"])
def test_plays_every_holdem_game_legally(spec, game_name, caplog):
    n = load_game(game_name).num_players
    result = play_memory(game_name, [spec] + ["random"] * (n - 1), 120, 8)
    assert result.warnings == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    # chips only change hands; split pots leave float rounding, far below a chip
    assert sum(result.totals) == pytest.approx(0, abs=1e-6)


@pytest.mark.parametrize("spec", ["uc3m:history=/nonexistent/h.jsonl", "uc3m-simple:history=/nonexistent/h.jsonl",
                                  "uc3m:model=/nonexistent/m.json", "utility:model=/nonexistent/m.json"])
def test_files_in_missing_folders_are_refused_with_the_spec(spec):
    with pytest.raises(StrategySpecError, match="parameter (history|model)='/nonexistent/.*' is invalid: its folder "
                                                "must exist"):
        create(spec, HUNL, 1)
