"""Freezeout tables: chips conserved, busted players gone for good, the moving button, places and tie rule."""

from __future__ import annotations

import json
import random

import pytest

from acpcbot.client import Client
from acpcbot.engine import CALL, State
from acpcbot.gamedef import load_game
from acpcbot.strategies.base import INLINE_ENDS, Strategy
from acpcbot.strategies.utility import stack_value
from acpcbot.world import MatchInfo
from dealer.arena.sitngo import (
    BlindLevel,
    FreezeoutTable,
    TableRules,
    hand_game,
    next_live,
    parse_schedule,
    positions,
    whole_chips,
)
from dealer.arena.sitngo_cli import recipe_main
from dealer.arena.sitngo_run import plan_tables, run_tables, summarise

HUNL = load_game("hunl")


class Counting(Strategy):
    """Goes all-in or calls at random, counting its turns (fast tables with many eliminations)."""

    name = "counting"
    run_mode = INLINE_ENDS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.turns: list[int] = []

    def act(self, view, deadline):
        self.turns.append(view.hand_id)
        if self.rng.random() < 0.3:
            return view.state.raise_or_call(10 ** 9)
        return CALL


def clients(n: int, seed: int = 0) -> list[Client]:
    out = []
    for s in range(n):
        strategy = Counting(HUNL, random.Random(seed * 100 + s))
        strategy.start_match(MatchInfo(game=HUNL, name=f"p{s}"))
        out.append(Client(strategy, MatchInfo(game=HUNL, name=f"p{s}")))
    return out


def play(n: int, seed: int, **rules) -> tuple[FreezeoutTable, list]:
    """A table of counting players and the list its hands fill: (state, seats by position, stacks after)."""
    table = FreezeoutTable(HUNL, TableRules(**rules), clients(n, seed), [f"p{s}" for s in range(n)], seed)
    hands: list = []
    table.on_hand = lambda state, order: hands.append((state, order, table.stacks[:]))
    return table, hands


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_chips_are_conserved_and_the_winner_holds_them_all(n):
    table, hands = play(n, seed=n)
    result = table.play()
    assert hands
    for _, _, stacks in hands:
        assert sum(stacks) == 1000 * n and min(stacks) >= 0
    assert result.chips[result.winner] == 1000 * n
    assert sorted(result.places) == list(range(1, n + 1))
    assert result.places[result.winner] == 1
    assert len(result.eliminated) == n - 1


def test_a_busted_player_never_acts_again():
    table, hands = play(5, seed=3)
    table.play()
    busted_at: dict[int, int] = {}
    for state, order, stacks in hands:
        for seat in order:
            assert seat not in busted_at, "a busted seat was dealt in"
        for seat, chips in enumerate(stacks):
            if chips == 0 and seat not in busted_at:
                busted_at[seat] = state.hand_id
    assert len(busted_at) == 4
    for seat, hand in busted_at.items():
        assert all(h <= hand for h in table.clients[seat].strategy.turns)


def test_two_player_table_ends_when_one_holds_every_chip():
    table, hands = play(2, seed=7)
    result = table.play()
    assert sorted(result.chips) == [0, 2000]
    assert result.hands == len(hands)
    last_state, _, last_stacks = hands[-1]
    assert 0 in last_stacks and all(0 < min(s) for _, _, s in hands[:-1])


def test_positions_skip_busted_seats():
    # seats 0..4, seats 1 and 3 busted, the button on seat 4: small blind seat 0, big blind seat 2, button last
    assert positions(4, [0, 2, 4], 5) == [0, 2, 4]
    assert next_live(4, [0, 2, 4], 5) == 0
    # heads-up: the button (position 1) posts the small blind, the other the big blind
    order = positions(2, [2, 4], 5)
    assert order == [4, 2]
    game = hand_game(HUNL, [1000, 1000], 10, 20)
    assert game.blind == (20, 10) and game.first_player[0] == 1 and game.first_player[1] == 0


def test_moving_button_passes_over_a_seat_that_busted():
    # the moving button: from seat 1 it goes to the next seat still in, seat 2 having busted -> seat 3
    # (under the dead-button rule it would stay on the empty seat 2)
    table = FreezeoutTable(HUNL, TableRules(), clients(4), ["a", "b", "c", "d"], 1)
    table.stacks = [1000, 1500, 0, 1500]
    table.button, table.hands = 1, 5
    assert table.next_button(table.live()) == 3
    state = table.play_hand()
    assert table.button == 3
    # the blinds were posted by the next live seats after the button: seat 0 small, seat 1 big
    assert state.game.num_players == 3
    assert state.spent[0] >= 10 and state.spent[1] >= 20


def test_blinds_are_capped_by_the_stack():
    game = hand_game(HUNL, [5, 1000, 1000], 10, 20)
    assert game.blind == (5, 20, 0)
    state = State(game, 0)
    assert state.is_all_in(0)


def test_hand_limit_tie_rule_most_chips_then_lower_seat():
    table = FreezeoutTable(HUNL, TableRules(max_hands=10), clients(3), ["a", "b", "c"], 1)
    table.stacks, table.hands = [500, 1250, 1250], 10
    result = table.play()
    assert result.places == [3, 1, 2] and result.winner == 1


def test_study_2008_short_stop():
    table = FreezeoutTable(HUNL, TableRules(short_stop=True), clients(3), ["a", "b", "c"], 1)
    table.stacks = [2980, 10, 10]
    assert table.over()
    assert table.play().places == [1, 2, 3]


def test_whole_chips_odd_chip_to_the_first_winner():
    assert whole_chips([50.5, 50.5, -101.0]) == [51, 50, -101]
    assert whole_chips([-30.0, 15.0, 15.0]) == [-30, 15, 15]
    assert sum(whole_chips([100 / 3, 100 / 3, -200 / 3])) == 0


def test_strategies_see_their_stack_share():
    # the 2017 player's S: its chips behind over everyone's, from the hand's own stacks
    state = State(hand_game(HUNL, [300, 700], 10, 20), 0)
    assert stack_value(state, 0) == pytest.approx(280 / 970)


def test_schedule():
    assert parse_schedule("10/20,20/40@5") == (BlindLevel(0, 10, 20), BlindLevel(5, 20, 40))
    rules = TableRules(levels=parse_schedule("10/20,20/40@5"))
    assert rules.blinds(4) == (10, 20) and rules.blinds(5) == (20, 40)
    with pytest.raises(ValueError):
        parse_schedule("10/20@3")


def test_duplicate_plans_rotate_the_seats():
    plans = plan_tables(2, [4, 2], 4, 10, duplicate=True)
    assert [(p.seed, p.seats) for p in plans] == [(10, (0, 1, 0, 1)), (10, (1, 0, 1, 0)), (11, (0, 1)), (11, (1, 0))]


def test_parallel_runs_give_the_same_tables():
    rules = TableRules(stack=300)
    plans = plan_tables(3, [3], 4, 1, duplicate=False)
    specs, names = ["random2008", "constant:d=2", "rh:t=0.1"], ["r", "c", "h"]
    one = run_tables("hunl", rules, specs, names, plans, jobs=1)
    two = run_tables("hunl", rules, specs, names, plans, jobs=2)
    assert [r.to_json() for r in one] == [r.to_json() for r in two]
    summary = summarise(one, names, 300)
    assert sum(s["won"] for s in summary.values()) == 4


def test_sitngo_recipe(tmp_path, capsys):
    recipe = tmp_path / "t.toml"
    recipe.write_text('kind = "sitngo"\nplayers = ["random2008", "rh:t=0.1"]\ntables = 2\nstack = 200\njobs = 1\n')
    assert recipe_main(str(recipe), str(tmp_path / "runs"), json_out=True) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sum(s["tables"] for s in doc["summary"].values()) == 4
    folder = next((tmp_path / "runs").iterdir())
    assert (folder / "report.svg").read_text().startswith("<svg")
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "sitngo"\nplayers = ["random2008"]\ntablez = 2\n')
    assert recipe_main(str(bad), str(tmp_path / "runs")) == 2


def test_a_series_carries_the_same_players_across_tables(tmp_path):
    # utility learns every 5 hands; over a series its thresholds move and reach the model file, one entry per bot
    model = tmp_path / "m.json"
    spec = f"utility:n=5,mu=0.05,model={model}"
    rules = TableRules(stack=300)
    plans = plan_tables(3, [3], 6, 1, duplicate=False)
    results = run_tables("hunl", rules, [spec] * 3, ["a", "b", "c"], plans, carry=True)
    assert len(results) == 6
    entries = json.loads(model.read_text())["entries"]
    assert sorted(entries) == ["a+b", "a+c", "b+c"]
    hands = sum(r.hands for r in results)
    # every bot played every hand until it busted: its count spans tables, beyond any single table's hands
    assert max(e["hands"] for e in entries.values()) > max(r.hands for r in results)
    assert sum(e["hands"] for e in entries.values()) <= 3 * hands


def test_a_series_reports_what_the_players_learnt():
    plans = plan_tables(3, [3], 3, 2, duplicate=False)
    results = run_tables("hunl", TableRules(stack=300), ["utility:n=5,mu=0.05"] * 3, ["a", "b", "c"], plans,
                         carry=True)
    summary = summarise(results, ["a", "b", "c"], 300)
    for name in "abc":
        end = summary[name]["learnt_end"]
        assert end == results[-1].learnt[name] and 0 <= end["F"] < end["R"] <= 1
    assert sum(summary[n]["learnt_end"]["hands"] for n in "abc") > 0


def test_places_picture_text_fits_and_never_overlaps():
    from dealer.arena.report import text_boxes
    from dealer.arena.sitngo_run import places_svg

    summary = {f"a-rather-long-player-name-{i}": {"places": {str(p): (p * i) % 7 + 1 for p in range(1, 11)}}
               for i in range(10)}
    width, height, boxes = text_boxes(places_svg(summary, "title", ["a note"]))
    for i, a in enumerate(boxes):
        assert 0 <= a.x0 and a.x1 <= width and a.y1 <= height, a
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)


def test_the_commands(tmp_path, capsys):
    from dealer.arena.cli import main

    runs = str(tmp_path / "runs")
    assert main(["sitngo", "--tables", "2", "--jobs", "1", "--stack", "200", "--runs-dir", runs, "--json",
                 "random2008", "rh:t=0.1"]) == 0
    assert set(json.loads(capsys.readouterr().out)["summary"]) == {"random2008", "rh-t-0.1"}
    recipe = tmp_path / "r.toml"
    recipe.write_text('kind = "sitngo"\nplayers = ["random2008", "call"]\ntables = 1\nstack = 100\n')
    assert main(["run", str(recipe), "--runs-dir", runs]) == 0
    assert "win%" in capsys.readouterr().out
    assert main(["tune", "random2008", "--field", "call"]) == 2
    assert "declares no parameter ranges" in capsys.readouterr().err


def test_recipe_kinds(tmp_path):
    from dealer.arena.recipes import RecipeError, load_recipe, recipe_kind

    base = 'game = "kuhn2p"\nhands = 5\nplayers = ["call", "fold"]\n'
    for kind, expected in (('"match"', "match"), ('"sitngo"', "sitngo"), ('"other"', "match")):
        path = tmp_path / "r.toml"
        path.write_text(f"kind = {kind}\n" + base)
        assert recipe_kind(path) == expected
    assert load_recipe(_write(tmp_path, 'kind = "match"\n' + base)).hands == 5
    with pytest.raises(RecipeError, match="'kind'"):
        load_recipe(_write(tmp_path, 'kind = "other"\n' + base))


def _write(tmp_path, text):
    path = tmp_path / "k.toml"
    path.write_text(text)
    return path
