"""Recipes, player names and match jobs: what a run will play, and errors that name the key at fault."""

import pytest

from dealer.arena.recipes import (
    Entry,
    RecipeError,
    external_name,
    load_recipe,
    make_entries,
    plan_jobs,
    recipe_plan,
    safe_name,
    strategy_name,
    strategy_seed,
)


def test_names_are_safe_for_the_log_format():
    assert strategy_name("raise:size=pot") == "raise-size-pot"
    assert strategy_name("mfs:t=0.5") == "mfs-t-0.5"
    assert strategy_name("a|b c:d") == "a-b-c-d"
    assert safe_name(":::") == "player"
    for name in ("raise-size-pot", "mfs-t-0.5", "a-b-c-d"):
        assert not set(name) & set(":| \t")


def test_external_names_look_past_interpreters():
    assert external_name("python3 /tmp/bots/my_bot.py --fast") == "my_bot"
    assert external_name("./example_player holdem.game") == "example_player"
    assert external_name("java -jar bot.jar") == "bot"
    assert external_name("'/opt/x y/run.sh'") == "run"


def test_a_strategy_in_two_seats_gets_seat_suffixes():
    entries = make_entries([(None, "call", None), (None, "raise:size=pot", None), (None, "call", None)])
    assert [e.name for e in entries] == ["call-1", "raise-size-pot", "call-3"]
    named = make_entries([("bob", "call", None), (None, "call", None)])
    assert [e.name for e in named] == ["bob", "call"]
    with pytest.raises(RecipeError, match="'x' is used twice"):
        make_entries([("x", "call", None), ("x", "fold", None)])
    with pytest.raises(RecipeError, match="may only hold"):
        make_entries([("a:b", "call", None)])


def test_duplicate_jobs_swap_seats_and_share_the_seed():
    a, b, c = Entry("a", "call"), Entry("b", "fold"), Entry("c", "raise")
    jobs = plan_jobs([(a, b)], seed=7, hands=100, duplicate=True)
    assert [(j.seats, j.seed) for j in jobs] == [((a, b), 7), ((b, a), 7)]
    three = plan_jobs([(a, b, c), (a, b, Entry("d", "call"))], seed=5, hands=10, duplicate=True)
    assert [tuple(e.name for e in j.seats) for j in three[:3]] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert [j.seed for j in three] == [5, 5, 5, 6, 6, 6]  # every table its own seed
    assert [j.label for j in three] == [f"match-{i:03d}" for i in range(6)]


def test_strategy_seed_depends_on_player_not_seat():
    assert strategy_seed(7, "call") == strategy_seed(7, "call")
    assert strategy_seed(7, "call") != strategy_seed(8, "call")
    assert strategy_seed(7, "call") != strategy_seed(7, "fold")


BASE = {"game": "hunl", "hands": 100}


def plan(**data):
    return recipe_plan({**BASE, **data}, "r.toml")


def test_a_round_robin_recipe():
    p = plan(players=["call", "fold", {"strategy": "raise:size=pot", "name": "potter"}], seed=3, duplicate=True)
    assert p.mode == "tournament" and [e.name for e in p.entries] == ["call", "fold", "potter"]
    assert len(p.jobs) == 6 and {j.seed for j in p.jobs} == {3, 4, 5}


def test_hero_against_opponents():
    p = plan(hero="raise:size=pot", opponents=["call", "fold", "random"])
    assert [tuple(e.name for e in j.seats) for j in p.jobs] == [
        ("raise-size-pot", "call"), ("raise-size-pot", "fold"), ("raise-size-pot", "random")]
    p3 = recipe_plan({"game": "kuhn3p", "hands": 10, "hero": "call", "opponents": ["fold", "random", "raise"]}, "k")
    assert len(p3.jobs) == 3 and all(j.seats[0].name == "call" for j in p3.jobs)


def test_one_match_recipe_with_an_external_program():
    p = plan(seats=["call", {"external": "python3 bot.py", "name": "theirs"}])
    assert p.mode == "play" and [e.spec for e in p.jobs[0].seats] == ["call", "external:python3 bot.py"]


@pytest.mark.parametrize("data,message", [
    ({"hands": "ten", "players": ["call", "fold"]}, "key 'hands': must be a whole number, got 'ten'"),
    ({"hands": 0, "players": ["call", "fold"]}, "key 'hands': must be at least 1"),
    ({"hands": 2**32, "players": ["call", "fold"]}, "key 'hands': must be at most 4294967295 (the dealer's limit)"),
    ({"seed": -1, "players": ["call", "fold"]}, "key 'seed': must be 0..4294967295"),
    ({"duplicate": "yes", "players": ["call", "fold"]}, "key 'duplicate': must be true or false"),
    ({"transport": "udp", "players": ["call", "fold"]}, "key 'transport': must be one of tcp, memory"),
    ({"game": "chess", "players": ["call", "fold"]}, "key 'game': no game named 'chess'"),
    ({"players": ["call", "nosuch"]}, "key 'players[1]': unknown strategy 'nosuch'"),
    ({"players": ["call", "raise:size=huge"]}, "key 'players[1]': raise: parameter size='huge' is invalid"),
    ({"players": ["call", 3]}, "key 'players[1]': must be a strategy spec or a table"),
    ({"players": ["call", {"strategy": "fold", "colour": "red"}]}, "key 'players[1].colour': unknown key"),
    ({"players": ["call", {"strategy": "fold", "external": "x"}]}, "key 'players[1]': needs exactly one of"),
    ({"players": ["call", {"strategy": "fold", "name": "a b"}]}, "key 'players[1].name': may only hold"),
    ({"players": ["call"]}, "key 'players': a hunl tournament needs at least 2, got 1"),
    ({"seats": ["call", "fold", "random"]}, "key 'seats': hunl needs 2 players, got 3"),
    ({"players": ["call", "fold"], "seats": ["call", "fold"]}, "give exactly one of 'seats'"),
    ({}, "give exactly one of 'seats'"),
    ({"hero": "call"}, "key 'opponents': is required"),
    ({"players": ["call", "fold"], "opponents": ["call"]}, "key 'opponents': only goes with 'hero'"),
    ({"players": ["call", "fold"], "hand": 5}, "unknown key 'hand'"),
    ({"players": ["call", "fold"], "jobs": 0}, "key 'jobs': must be at least 1"),
    ({"seats": ["call", "external:./bot"], "transport": "memory"}, "key 'transport': an external program"),
    ({"seats": ["call", "external:"]}, "key 'seats[1]': empty external command"),
])
def test_recipe_errors_name_the_key(data, message):
    with pytest.raises(RecipeError) as err:
        recipe_plan({**BASE, **data}, "r.toml")
    assert str(err.value).startswith("r.toml: ")
    assert message in str(err.value)


def test_required_keys(tmp_path):
    with pytest.raises(RecipeError, match="key 'game': is required"):
        recipe_plan({"hands": 5, "players": ["call", "fold"]}, "r.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("game = 'hunl'\nhands = [\n")
    with pytest.raises(RecipeError, match="bad.toml: not valid TOML"):
        load_recipe(bad)
    with pytest.raises(RecipeError, match="cannot read"):
        load_recipe(tmp_path / "missing.toml")


def test_recipe_file_name_is_the_default_run_name(tmp_path):
    path = tmp_path / "my-run.toml"
    path.write_text('game = "leduc"\nhands = 50\nplayers = ["call", "raise"]\n')
    p = load_recipe(path)
    assert p.name == "my-run" and p.game.num_rounds == 2


@pytest.mark.parametrize("recipe", ["hunl-baselines", "hunl-all", "hunl-field", "hulhe-baselines", "kuhn3p", "leduc"])
def test_shipped_recipes_load(recipe):
    from pathlib import Path
    p = load_recipe(Path(__file__).resolve().parents[1] / "matches" / f"{recipe}.toml")
    assert p.jobs and p.hands >= 1


def test_a_blueprint_with_its_own_policy_file_passes_the_check_where_no_policy_is_shipped(monkeypatch, tmp_path):
    # the arena checks a recipe's strategies before any match: a policy file given as a parameter makes a
    # game with a blueprint spec playable even when the shipped files are missing
    from acpcbot.gamedef import load_game
    from acpcbot.strategies import blueprint
    from dealer.arena.recipes import RecipeError, check_strategy

    monkeypatch.setattr(blueprint, "shipped_reason", lambda game: "the shipped blueprint is missing")
    hunl = load_game("hunl")
    with pytest.raises(RecipeError, match="missing"):
        check_strategy("blueprint", hunl, "hero")
    mine = tmp_path / "mine.npz"
    mine.write_bytes(b"")  # the check reads parameters, not the file (the player checks it against the game)
    check_strategy(f"blueprint:policy={mine}", hunl, "hero")
    with pytest.raises(RecipeError, match="blueprint only"):
        check_strategy(f"blueprint:policy={mine}", load_game("leduc"), "hero")
    # the same rule for cfr: a policy file of the user's covers the game it was solved for
    with pytest.raises(RecipeError, match="no shipped policy"):
        check_strategy("cfr", load_game("leducnl"), "hero")
    check_strategy(f"cfr:policy={mine}", load_game("leducnl"), "hero")


def test_the_hunl_recipes_play_adaptive_off_the_floor_by_name_and_the_field_recipe_plays_the_default():
    # the main job measures what adaptive takes from the study players: the model's best response from the first
    # hand, under adaptive's own name (so its seeds, and its committed figures, are the same as before hunl's
    # default stood on the floor); hunl-field plays the default itself, which stands on the floor
    from pathlib import Path

    from acpcbot.gamedef import load_game
    from acpcbot.strategies.registry import create, default_spec

    matches = Path(__file__).resolve().parents[1] / "matches"
    for recipe in ("hunl-baselines", "hunl-all", "hunl-probes"):
        hero = load_recipe(matches / f"{recipe}.toml").jobs[0].seats[0]
        assert (hero.name, hero.strategy) == ("adaptive", "adaptive:blueprint=0"), recipe
    hunl = load_game("hunl")
    field = load_recipe(matches / "hunl-field.toml")
    assert field.hands >= 2000 and field.jobs[0].seats[0].strategy == default_spec(hunl) == "adaptive"
    assert create("adaptive:blueprint=0", hunl, 1).floor is None
