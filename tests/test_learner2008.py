"""learner2008: discretisation, tables, reading logs and transcripts, training command, play, shipped tables."""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest
from dealerkit import config_for, play_match as play_dealer_match, replay_policy
from playkit import play_memory

from acpcbot.engine import CALL, State
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_match_state
from acpcbot.strategies import UnsupportedGame, create
from acpcbot.strategies.learner2008 import (
    SETTINGS,
    Learner2008,
    Table,
    TrainingError,
    default_table_path,
    discretise,
    load_table_file,
    save_tables,
)
from acpcbot.strategies.learner2008_train import DecisionData, extract, main
from acpcbot.strategies.study2008 import VARIABLES, Situation, situation
from acpcbot.world import View

FIXTURES = Path(__file__).parent / "fixtures"
HUNL = load_game("hunl")
HULHE = load_game("hulhe")
COMMON, GENETIC = SETTINGS["common"], SETTINGS["genetic"]


def values(**kw):
    base = dict(pot=3.0, odds=3.0, raise_=1.0, chance=50.0, round=0, followers=2, ingame=2, nplayers=2, qtyraise=0)
    base.update(kw)
    return Situation(**base).values()


def level(setting, var, value, **kw):
    v = dict(zip(["pot", "odds", "raise_", "chance", "round", "followers", "ingame", "nplayers", "qtyraise"],
                 values(**kw)))
    key = {"POT": "pot", "ODDS": "odds", "RAISE": "raise_", "CHANCE": "chance", "ROUND": "round",
           "FOLLOWERS": "followers", "INGAME": "ingame", "NPLAYERS": "nplayers", "QTYRAISE": "qtyraise"}[var]
    v[key] = value
    return int(discretise([v[k] for k in v], setting)[VARIABLES.index(var)])


# ----------------------------------------------------------------- discretisation

def test_levels_of_the_common_setting():
    assert level(COMMON, "CHANCE", 0) == 1
    assert level(COMMON, "CHANCE", 9.99) == 1
    assert level(COMMON, "CHANCE", 35) == 4
    assert level(COMMON, "CHANCE", 100) == 10  # floor(100/10)+1 = 11, capped at 10 levels
    assert level(COMMON, "ODDS", 0) == 1 and level(COMMON, "ODDS", 3) == 2 and level(COMMON, "ODDS", 50) == 10
    assert level(COMMON, "POT", 3) == 1 and level(COMMON, "POT", 10) == 2 and level(COMMON, "POT", 800) == 10
    assert level(COMMON, "RAISE", 4.9) == 1 and level(COMMON, "RAISE", 5) == 2
    # FOLLOWERS counts the player itself, so with width 1 every state is on level 2 (the study's setting)
    assert level(COMMON, "FOLLOWERS", 1) == 2 and level(COMMON, "FOLLOWERS", 5) == 2
    for var in ("NPLAYERS", "QTYRAISE", "INGAME"):  # off
        assert level(COMMON, var, 0) == 1 and level(COMMON, var, 6) == 1
    assert COMMON.shape == (10, 10, 10, 10, 2, 2, 1, 1, 1, 2, 6)


def test_levels_of_the_genetic_setting():
    assert level(GENETIC, "CHANCE", 23.2) == 1 and level(GENETIC, "CHANCE", 23.3) == 2
    assert level(GENETIC, "CHANCE", 70) == 4 and level(GENETIC, "CHANCE", 100) == 4
    assert level(GENETIC, "POT", 37.3) == 1 and level(GENETIC, "POT", 37.4) == 2
    assert level(GENETIC, "FOLLOWERS", 2) == 1 and level(GENETIC, "FOLLOWERS", 3) == 2
    assert level(GENETIC, "NPLAYERS", 3) == 1 and level(GENETIC, "NPLAYERS", 6) == 2
    assert level(GENETIC, "INGAME", 5) == 1 and level(GENETIC, "INGAME", 6) == 2
    assert level(GENETIC, "QTYRAISE", 3) == 1 and level(GENETIC, "QTYRAISE", 4) == 2
    assert GENETIC.shape == (4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 6)


def test_the_studys_two_bugs_are_not_repeated():
    # CHANCE is cut with its own width (10), not RAISE's (5): 55% is level 6, not 10
    assert level(COMMON, "CHANCE", 55) == 6
    # ROUND: preflop (0) is level 1 and every later round level 2, in training and in play alike
    assert [level(s, "ROUND", r) for s in (COMMON, GENETIC) for r in range(4)] == [1, 2, 2, 2] * 2


def test_discretise_is_vectorised_and_row_identical():
    rng = np.random.default_rng(3)
    rows = np.column_stack([rng.uniform(0, 400, 500), rng.uniform(0, 30, 500), rng.uniform(0, 100, 500),
                            rng.uniform(0, 100, 500), rng.integers(0, 4, 500), rng.integers(1, 7, 500),
                            rng.integers(2, 7, 500), rng.integers(2, 7, 500), rng.integers(0, 9, 500)])
    for setting in (COMMON, GENETIC):
        batch = discretise(rows, setting)
        assert all((discretise(row, setting) == batch[i]).all() for i, row in enumerate(rows))
        assert (batch >= 1).all() and (batch <= np.array(setting.levels)).all()


# ----------------------------------------------------------------- tables

def test_table_average_reward_and_argmax():
    t = Table(COMMON)
    s = values(chance=75)
    rows = np.array([s] * 4)
    # decision 2: +4 and -2 -> (4 - 2) / 2 = 1; decision 3: +3 -> 3; reward 0 counts as a win
    t.add(rows, np.array([2, 2, 3, 5]), np.array([4.0, -2.0, 3.0, 0.0]))
    assert t.scores(s) == {2: 1.0, 3: 3.0, 5: 0.0}
    assert t.best(s) == 3
    idx = tuple(int(x) - 1 for x in discretise(s, COMMON))
    assert t.sums[idx][0, 1] == 4 and t.sums[idx][1, 1] == 2 and t.counts[idx][0, 4] == 1
    assert t.best(values(chance=5)) is None  # never seen
    t.add(np.array([s]), np.array([3]), np.array([-9.0]))
    assert t.best(s) == 2  # decision 3 now averages (3 - 9) / 2 = -3
    assert t.records == 5 and t.states_seen == 1


def test_ties_go_to_the_less_aggressive_decision():
    t = Table(GENETIC)
    s = values()
    t.add(np.array([s, s]), np.array([6, 4]), np.array([2.0, 2.0]))
    assert t.best(s) == 4


def test_tables_round_trip(tmp_path):
    t = Table(COMMON)
    t.add(np.array([values(), values(pot=90)]), np.array([2, 6]), np.array([1.5, -7.25]))
    g = Table(GENETIC)
    g.add(np.array([values()]), np.array([1]), np.array([-1.0]))
    path = tmp_path / "t.npz"
    save_tables(path, {"common": t, "genetic": g}, {"records": 3})
    tables, meta = load_table_file(path)
    assert meta == {"records": 3} and set(tables) == {"common", "genetic"}
    assert np.array_equal(tables["common"].sums, t.sums) and np.array_equal(tables["common"].counts, t.counts)
    assert tables["genetic"].setting == GENETIC
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(TrainingError, match="bad.npz: not a learner2008 table file"):
        load_table_file(tmp_path / "bad.npz")


def test_files_cut_short_are_named_errors(tmp_path, capsys):
    # A cut zip archive raises zipfile's own error, not OSError or ValueError.
    t = Table(COMMON)
    t.add(np.array([values()]), np.array([2]), np.array([1.0]))
    save_tables(tmp_path / "t.npz", {"common": t})
    DecisionData(np.array([values()]), np.array([2], dtype=np.int8), np.array([1.0]), {"hunl": 1}).save(
        tmp_path / "d.npz")
    cut = tmp_path / "runs"
    cut.mkdir()
    for name in ("t.npz", "d.npz"):
        data = (tmp_path / name).read_bytes()
        (cut / name).write_bytes(data[:len(data) // 2])
    with pytest.raises(TrainingError, match="t.npz: not a learner2008 table file"):
        load_table_file(cut / "t.npz")
    with pytest.raises(TrainingError, match="d.npz: not a learner2008 data file"):
        DecisionData.load(cut / "d.npz")
    with pytest.raises(ValueError, match="t.npz"):
        create(f"learner2008:table={cut / 't.npz'}", HUNL, seed=1)
    assert main(["info", str(cut / "t.npz")]) == 2
    assert "not a learner2008 table file" in capsys.readouterr().err
    # in a folder, .npz files that cannot be read as record files are passed over, as tables are
    (cut / "game.log").write_text((FIXTURES / "hunl_3hands.log").read_text())
    assert len(extract([cut])) == 13
    (cut / "empty.npz").write_bytes(b"")
    with pytest.raises(TrainingError, match="empty.npz: not a learner2008 data file"):
        DecisionData.load(cut / "empty.npz")


def test_decision_data_round_trip(tmp_path):
    d = DecisionData(np.array([values(), values(pot=7)]), np.array([1, 4], dtype=np.int8), np.array([-1.0, 2.5]),
                     {"hunl": 2})
    d.save(tmp_path / "d.npz")
    back = DecisionData.load(tmp_path / "d.npz")
    assert np.array_equal(back.values, d.values) and np.array_equal(back.decisions, d.decisions)
    assert np.array_equal(back.rewards, d.rewards) and back.games == {"hunl": 2}


# ----------------------------------------------------------------- reading matches

def test_records_of_a_hand_worked_log():
    data = extract([FIXTURES / "hunl_3hands.log"])
    assert data.games == {"hunl": 3}
    # hand 0 cc/cc/cc/cc: 8 checks and calls; hand 1 f: one fold; hand 2 r300c/r20000c//: 4 actions
    assert len(data) == 13
    assert list(data.decisions) == [2] * 8 + [1] + [3, 2, 6, 2]
    # hand 1: position 1 (small blind) folds 5dJd facing 50 more and loses its 50 = 1 SB
    fold = data.values[8]
    s = dict(zip(VARIABLES, fold))
    assert (s["POT"], s["ODDS"], s["RAISE"], s["ROUND"], s["FOLLOWERS"], s["INGAME"], s["NPLAYERS"],
            s["QTYRAISE"]) == (3, 3, 1, 0, 2, 2, 2, 0)
    assert data.rewards[8] == -1.0
    # hand 0: position 1 lost 100 chips = 2 SB, position 0 won them; each player's every decision carries it
    assert list(data.rewards[:8]) == [-2, 2, 2, -2, 2, -2, 2, -2]
    # hand 2: position 1 raises, position 0 calls, shoves the flop, is called and loses its stack (400 SB)
    assert list(data.rewards[9:]) == [400, -400, -400, 400]


def _transcript_of(log_path: Path, game) -> str:
    """The dealer's transcript (TO/FROM lines) of the hands of a log, replayed through the TCP dealer.

    The log's header names the match, game, hands and seed; its first hand
    seats position p in seat p.  The replay must give back the log itself.
    """
    text = log_path.read_text()
    lines = text.splitlines()
    _, _, name, game_name, hands, seed = lines[0].split()
    names = next(ln for ln in lines if ln.startswith("STATE:")).split(":")[-1].split("|")
    config = config_for(game_name, int(hands), int(seed), names, match_name=name)
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_dealer_match(config, [replay_policy(lines, game_name)] * game.num_players, Path(tmp)))
    assert out.problems() == [] and out.log == text
    return out.transcript


def test_transcript_gives_the_same_records_as_the_log(tmp_path):
    transcript = tmp_path / "fixture.err"
    transcript.write_text(_transcript_of(FIXTURES / "hunl_3hands.log", HUNL))
    a = extract([FIXTURES / "hunl_3hands.log"])
    b = extract([transcript])
    assert np.array_equal(a.values, b.values) and np.array_equal(a.decisions, b.decisions)
    assert np.array_equal(a.rewards, b.rewards) and b.games == {"hunl": 3}


def test_transcript_hand_cut_short_is_left_out(tmp_path):
    text = _transcript_of(FIXTURES / "hunl_3hands.log", HUNL)
    cut = text[:text.index("MATCHSTATE:0:2:r300c/r20000:")]
    cut = cut[:cut.rindex("\n") + 1] + "ERROR: could not get action from seat 2\n"
    path = tmp_path / "cut.err"
    path.write_text(cut)
    data = extract([path])
    assert data.games == {"hunl": 2} and len(data) == 9


def test_log_and_transcript_of_one_match_in_a_folder_count_once(tmp_path):
    (tmp_path / "m.log").write_text((FIXTURES / "hunl_3hands.log").read_text())
    (tmp_path / "m.err").write_text(_transcript_of(FIXTURES / "hunl_3hands.log", HUNL))
    (tmp_path / "quiet.err").write_text("# name/game/hands/seed other hunl 3 0\nSCORE:0|0:a|b\n")
    assert len(extract([tmp_path])) == 13


def test_bad_inputs_are_named(tmp_path):
    with pytest.raises(TrainingError, match="no such file"):
        extract([tmp_path / "missing.log"])
    bad = tmp_path / "bad.log"
    bad.write_text("# name/game/hands/seed x hunl 1 0\nSTATE:0:cq:5d5c|9hQd:0|0:a|b\n")
    with pytest.raises(TrainingError, match=r"bad.log:2"):
        extract([bad])
    nogame = tmp_path / "nogame.log"
    nogame.write_text("STATE:1:f:6sKs|5dJd:50|-50:Bob|Alice\n")
    with pytest.raises(TrainingError, match="pass --game"):
        extract([nogame])
    assert len(extract([nogame], game=HUNL)) == 1
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(TrainingError, match="neither a dealer log"):
        extract([other])
    kuhn = tmp_path / "kuhn.log"
    kuhn.write_text("# name/game/hands/seed k kuhn3p 1 0\nSTATE:0:ccc:Js|Qs|Ks:-1|-1|2:a|b|c\n")
    with pytest.raises(TrainingError, match="not Texas hold'em"):
        extract([kuhn])


# ----------------------------------------------------------------- the same discretisation at training and in play

def _play(game, specs, hands, seed):
    """Play hands in memory through the arena; the dealer's log and every act's (position, situation), in order."""
    seen = []
    result = play_memory(game.name, specs, hands, seed, names=[f"s{i}" for i in range(len(specs))],
                         seeds=[seed + i for i in range(len(specs))],
                         on_act=lambda seat, strategy, view, action: seen.append(strategy.last_situation))
    assert result.warnings == [] and all(c.corrections == 0 and c.fallbacks == 0 for c in result.clients)
    return result.log, seen


@pytest.mark.parametrize("game_name", ["hunl", "hulhe", "3pnl"])
def test_training_sees_exactly_what_the_players_saw(tmp_path, game_name):
    game = load_game(game_name)
    specs = ["mfs:t=1", "learner2008", "mfs:t=5"][:game.num_players]
    log, seen = _play(game, specs, 25, 4)
    path = tmp_path / "m.log"
    path.write_text(log)
    data = extract([path])
    assert len(seen) >= 25 and len(data) == len(seen)  # every hand has a decision
    played = np.array([s.values() for s in seen])
    assert np.array_equal(data.values, played)  # bit for bit, CHANCE included
    for setting in (COMMON, GENETIC):
        assert np.array_equal(discretise(data.values, setting), discretise(played, setting))


# ----------------------------------------------------------------- the training command and play

def test_train_command_and_info(tmp_path, capsys):
    out = tmp_path / "t.npz"
    rec = tmp_path / "rec.npz"
    assert main(["train", str(FIXTURES / "hunl_3hands.log"), "--out", str(out), "--save-data", str(rec),
                 "--quiet"]) == 0
    tables, meta = load_table_file(out)
    assert set(tables) == {"common", "genetic"} and meta["records"] == 13 and meta["games"] == {"hunl": 3}
    assert tables["common"].records == 13
    # records files train again to the same tables
    out2 = tmp_path / "t2.npz"
    assert main(["train", str(rec), "--out", str(out2), "--settings", "genetic", "--quiet"]) == 0
    again, _ = load_table_file(out2)
    assert set(again) == {"genetic"} and np.array_equal(again["genetic"].counts, tables["genetic"].counts)
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["tables"]["common"]["records"] == 13
    assert main(["train", str(tmp_path / "none.log"), "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["train", str(FIXTURES / "hunl_3hands.log"), "--out", str(out), "--settings", "x"]) == 2


def test_learner_plays_its_table_and_random_when_unseen(tmp_path):
    st = State(HUNL, 0, [(0, 1), (50, 51)], [])
    view = View.parse(format_match_state(st, 1), HUNL)
    s = situation(st, 1)
    t = Table(COMMON)
    t.add(np.array([s.values()] * 2), np.array([4, 2]), np.array([5.0, -1.0]))
    path = tmp_path / "t.npz"
    save_tables(path, {"common": t}, {})
    p = create(f"learner2008:table={path}", HUNL, seed=1)
    action = p.act(view, 0.0)
    assert p.last_decision == 4 and p.last_seen and 400 <= action.size <= 1000
    # an unseen state plays random2008's draw: over many tries every decision turns up
    later = State(HUNL, 0, [(0, 1), (50, 51)], [10, 20, 30])
    later.apply(CALL).apply(CALL)
    v2 = View.parse(format_match_state(later, later.current_player), HUNL)
    ds = set()
    for _ in range(300):
        p.act(v2, 0.0)
        assert not p.last_seen
        ds.add(p.last_decision)
    assert ds == {1, 2, 3, 4, 5, 6}
    with pytest.raises(ValueError, match="has no 'genetic' table"):
        create(f"learner2008:table={path},setting=genetic", HUNL, seed=1)
    with pytest.raises(ValueError, match="cannot read table file"):
        create(f"learner2008:table={tmp_path / 'none.npz'}", HUNL, seed=1)


def test_shipped_tables():
    for game in (HUNL, HULHE, load_game("3pnl"), load_game("6pnl"), load_game("3pl")):
        path = default_table_path(game)
        assert path.is_file() and path.stat().st_size < 4_000_000
        tables, meta = load_table_file(path)
        assert set(tables) == {"common", "genetic"}
        assert meta["command"].startswith("python tools/train_learner2008.py")
        assert meta["records"] > 100_000 and tables["common"].records == meta["records"]
        for name in ("common", "genetic"):
            p = create(f"learner2008:setting={name}", game, seed=2)
            assert p.lookup.records == meta["records"]
    with pytest.raises(UnsupportedGame, match="hold'em"):
        Learner2008(load_game("leduc"), random.Random(1))
