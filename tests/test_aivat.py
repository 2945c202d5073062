"""AIVAT and all-in expectation: exactly unbiased on whole small games, zero-mean corrections in seeded matches,
unchanged hands where no luck is corrected, a hand worked by hand, less variance, and the run's outputs.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, State
from acpcbot.gamedef import load_game
from acpcbot.holdings import holdings
from acpcbot.measure.aivat import Evaluator
from acpcbot.measure.rollout import matchup_equity
from acpcbot.protocol import format_match_state
from acpcbot.strategies.registry import create
from acpcbot.world import View
from dealer.arena.aivat import evaluate_run
from dealer.arena.analysis import load_logs
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.runner import execute

UNIFORM = "random:fold=1,call=1,raise=1"


# ------------------------------------------------------------------ exactly unbiased on a whole game

def _expectations(game_name: str, specs: tuple[str, str]) -> tuple[np.ndarray, np.ndarray, float]:
    """E[payoff], E[AIVAT] (position 0) and the two variances' ratio, summing every deal and line of play."""
    game = load_game(game_name)
    players = [create(s, game, 1) for s in specs]
    evaluator = Evaluator(game)
    cards = [int(c) for c in holdings(game).ravel()]
    deals = list(itertools.permutations(cards, 2 + game.total_board_cards))
    totals = np.zeros(2)
    squares = np.zeros(2)

    seen: dict[str, object] = {}  # a policy depends on the seat's view only: one per information set

    def walk(state: State, prob: float, policies: dict) -> None:
        if state.finished:
            v = evaluator.hand(state, policies)
            totals[:] += prob * np.array([v.payoff[0], v.aivat[0]])
            squares[:] += prob * np.array([v.payoff[0], v.aivat[0]]) ** 2
            return
        p = state.current_player
        text = format_match_state(state.view_of(p), p)
        policy = seen.get(text)
        if policy is None:
            policy = seen[text] = players[p].policy(View.parse(text, game))
        row = policy.row(state.hole[p])
        for action, q in zip(policy.actions, row):
            if q > 0:
                walk(state.copy().apply(action), prob * q, {**policies, state.num_actions: policy})

    for deal in deals:
        walk(State(game, 0, [(deal[0],), (deal[1],)], list(deal[2:])), 1.0 / len(deals), {})
    mean = totals
    var = squares - mean ** 2
    return mean[0], mean[1], var[1] / var[0]


@pytest.mark.parametrize("game_name,specs", [("kuhn2p", ("cfr", "cfr")), ("kuhn2p", (UNIFORM, "cfr")),
                                              ("leduc", ("cfr", UNIFORM)), ("leduc", ("call", "raise"))])
def test_aivat_is_exactly_unbiased_over_a_whole_game(game_name, specs):
    payoff, corrected, ratio = _expectations(game_name, specs)
    assert corrected == pytest.approx(payoff, abs=1e-12)
    if game_name == "kuhn2p" and specs == ("cfr", "cfr"):
        assert payoff == pytest.approx(-1 / 18, abs=2e-3)  # the game's value for the first player
    assert ratio < 1.0  # and it lowers the variance


# ------------------------------------------------------------------ hand-worked

def test_a_checked_down_hand_is_worth_its_preflop_equity():
    # call against call: every card after the deal is corrected, nothing else; what is left is
    # the preflop all-in value of AA against KK at 100 chips each: 200 * eq - 100
    game = load_game("hunl")
    state = State(game, 0, [parse_cards("AsAh"), parse_cards("KsKh")], list(parse_cards("2c7d9hTsJc")))
    while not state.finished:
        state.apply(CALL)
    evaluator = Evaluator(game)
    policies = {}
    replay = State(game, 0, state.hole, state.board)
    for i in range(state.num_actions):
        p = replay.current_player
        view = View.parse(format_match_state(replay.view_of(p), p), game)
        policies[i] = create("call", game, 1).policy(view)
        replay.apply(CALL)
    v = evaluator.hand(state, policies)
    assert v.payoff == (100.0, -100.0)
    eq = float(matchup_equity(game, state.hole, (), samples=100_000, rng=np.random.default_rng(3))[0][0])
    assert eq == pytest.approx(0.82, abs=0.01)
    assert v.aivat[0] == pytest.approx(200 * eq - 100, abs=3.0)  # the board sample's preflop equity: +-0.015
    assert v.action == (0.0, 0.0)  # deterministic policies take no luck out


def test_all_in_expectation_values_the_all_in_at_its_equity():
    game = load_game("hunl")
    state = State(game, 0, [parse_cards("AsAh"), parse_cards("KsKh")], list(parse_cards("Kc7d9hTs2c")))
    state.apply(state.raise_or_call(20000)).apply(CALL)  # SB all-in, BB calls: KK hits its set
    assert state.finished and state.payoffs()[0] == -20000
    v = Evaluator(game).hand(state)
    assert v.allin[0] == pytest.approx(40000 * 0.82 - 20000, abs=600)
    # after a flop all-in, the rest is enumerated exactly: 990 turn and river cards
    flop = State(game, 0, state.hole, state.board).apply(CALL).apply(CALL)  # limped: the flop is dealt
    flop.apply(flop.raise_or_call(20000)).apply(CALL)
    assert flop.finished and flop.round == 3
    exact = float(matchup_equity(game, state.hole, parse_cards("Kc7d9h"))[0][0])
    assert Evaluator(game).hand(flop).allin[0] == pytest.approx(40000 * exact - 20000)


# ------------------------------------------------------------------ through the arena

def _play(tmp_path, game, specs, hands, seed, duplicate=True):
    entries = [Entry(f"p{i}-{s.split(':')[0]}", s) for i, s in enumerate(specs)]
    plan = build_plan(name="aivat", game=game, hands=hands, seed=seed, duplicate=duplicate, mode="play",
                      entries=entries, transport="memory", parallel=2)
    return execute(plan, tmp_path)


def _per_hand(doc):
    records = doc["matches"]
    game = load_game(doc["game"])
    played, logs = load_logs(records, Path(doc["run_dir"]), game)
    return evaluate_run(played, logs, doc["players"], game), logs


@pytest.mark.parametrize("game,specs", [("hunl", ("station", UNIFORM)), ("hulhe", ("maniac", "rock"))])
def test_the_corrections_average_zero_in_seeded_matches(tmp_path, game, specs):
    diffs = []
    for seed in range(3):
        doc = _play(tmp_path / str(seed), game, specs, 100, seed, duplicate=False)
        run, logs = _per_hand(doc)
        name = doc["players"][0]["player"]
        plain = [v for h in logs[0].hands for n, v in zip(h.names, h.values) if n == name]
        diffs += [a - b for a, b in zip(run.aivat[0][name], plain)]
        assert run.mismatches == 0
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    # 4.5 standard errors: a chance failure below 1e-5 (and the seeds are fixed)
    assert abs(statistics.fmean(diffs)) <= 4.5 * se
    assert se > 0  # the corrections did something


def test_nothing_changes_when_no_card_or_choice_is_luck(tmp_path):
    # raise against fold: the small blind raises or folds, the other folds at once, no board card is
    # ever dealt and both policies are deterministic: AIVAT is the plain result hand by hand
    doc = _play(tmp_path, "hunl", ("raise", "fold"), 50, 9)
    run, logs = _per_hand(doc)
    for values, mlog in zip(run.aivat, logs):
        for name, v in values.items():
            plain = [x for h in mlog.hands for n, x in zip(h.names, h.values) if n == name]
            assert v == plain
    r = doc["results"][0]
    assert r["aivat_duplicate_mbb_per_hand"] == r["duplicate_mbb_per_hand"]


@pytest.mark.slow  # a measurement of the interval over 2 x 300 duplicate hands: make soak
def test_aivat_narrows_the_interval(tmp_path):
    doc = _play(tmp_path, "hunl", ("station", "maniac"), 300, 4)
    r = doc["results"][0]
    assert r["aivat_duplicate_ci95"] < 0.6 * r["duplicate_ci95"]
    assert doc["aivat"]["known_players"] == ["p0-station", "p1-maniac"] and doc["aivat"]["mismatches"] == 0


def test_results_say_when_no_policy_is_known(tmp_path):
    doc = _play(tmp_path, "hunl", ("mfs", "uc3m-simple"), 30, 1)
    assert doc["schema"] == 2
    assert "AIVAT needs a known policy" in doc["aivat"]["notes"][0]
    r = doc["results"][0]
    assert "aivat_mbb_per_hand" not in r and r["allin_mbb_per_hand"] is not None
    saved = json.loads((Path(doc["run_dir"]) / "results.json").read_text())
    assert saved["aivat"]["known_players"] == []


def test_the_report_and_table_show_aivat(tmp_path):
    from dealer.arena.results_text import format_results

    doc = _play(tmp_path, "leduc", ("cfr", UNIFORM), 200, 2)
    run_dir = Path(doc["run_dir"])
    svg = (run_dir / "report.svg").read_text()
    assert "(AIVAT)" in svg and "AIVAT duplicate" in svg
    table = format_results(doc)
    assert "AIVAT" in table.splitlines()[1] and "all-in EV" in table.splitlines()[1]


def test_matches_valued_in_parallel_give_the_same_values(tmp_path, monkeypatch):
    import dealer.arena.aivat as arena_aivat

    doc = _play(tmp_path, "leduc", ("cfr", UNIFORM), 60, 5)
    game = load_game("leduc")
    played, logs = load_logs(doc["matches"], Path(doc["run_dir"]), game)
    serial = evaluate_run(played, logs, doc["players"], game, parallel=1)
    monkeypatch.setattr(arena_aivat, "PARALLEL_HANDS", 0)
    pooled = evaluate_run(played, logs, doc["players"], game, parallel=2)
    assert pooled.aivat == serial.aivat and pooled.allin == serial.allin and len(serial.aivat) == 2


def test_a_hero_runs_crosstable_gives_each_opponent_the_aivat_figure_of_its_own_run(tmp_path):
    # the main job's kind of run (a hero against each opponent, in duplicate): each cell's AIVAT figure is the one a
    # run of that pairing alone gives (the same seed, names and deals), and the column's cell is its negative
    hero, others = Entry("station", "station"), [Entry("maniac", "maniac"), Entry("rock", "rock")]
    plan = build_plan(name="field", game="hunl", hands=40, seed=3, duplicate=True, mode="tournament",
                      entries=others, hero=hero, transport="memory", parallel=2)
    doc = execute(plan, tmp_path / "field")
    table = doc["crosstable"]
    row = table["players"].index("station")
    for opponent in others:
        col = table["players"].index(opponent.name)
        seed = next(m["seed"] for m in doc["matches"] if opponent.name in [s["player"] for s in m["seats"]])
        alone = execute(build_plan(name=opponent.name, game="hunl", hands=40, seed=seed, duplicate=True,
                                   mode="play", entries=[hero, opponent], transport="memory", parallel=2),
                        tmp_path / opponent.name)
        own = alone["results"][0]
        assert alone["results"][0]["player"] == "station"
        assert table["mbb_per_hand"][row][col] == pytest.approx(own["duplicate_mbb_per_hand"])
        assert table["aivat_mbb_per_hand"][row][col] == pytest.approx(own["aivat_duplicate_mbb_per_hand"])
        assert table["aivat_ci95"][row][col] == pytest.approx(own["aivat_duplicate_ci95"])
        assert table["aivat_mbb_per_hand"][col][row] == pytest.approx(-own["aivat_duplicate_mbb_per_hand"])
        assert own["aivat_duplicate_ci95"] != own["duplicate_ci95"]  # AIVAT corrected something
    from dealer.arena.results_text import format_results

    printed = format_results(doc).splitlines()
    at = printed.index(next(line for line in printed if line.startswith("crosstable, AIVAT:")))
    cell = table["aivat_mbb_per_hand"][row][table["players"].index("rock")]
    assert f"{cell:+.0f}" in printed[at + 2 + row]


def test_without_aivat_the_crosstable_has_the_plain_figures_only(tmp_path):
    plan = build_plan(name="field", game="hunl", hands=10, seed=3, duplicate=True, mode="tournament",
                      entries=[Entry("maniac", "maniac"), Entry("rock", "rock")], hero=Entry("station", "station"),
                      transport="memory", parallel=1)
    doc = execute(plan, tmp_path, with_aivat=False)
    assert "aivat_mbb_per_hand" not in doc["crosstable"] and doc["crosstable"]["mbb_per_hand"]
    from dealer.arena.results_text import format_results

    assert "crosstable, AIVAT" not in format_results(doc) and "crosstable:" in format_results(doc)
