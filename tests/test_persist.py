"""acpcbot.strategies.persist: model files (round trips, merging, atomic writes, clear errors) and opponent keys."""

from __future__ import annotations

import json
import os
import threading

import pytest

from acpcbot.gamedef import load_game
from acpcbot.strategies.persist import (
    FORMAT,
    ModelFile,
    ModelFileError,
    ModelSaver,
    folder_exists,
    opponent_key,
    seat_key,
    table_key,
)
from acpcbot.world import MatchInfo, View


def test_round_trip_keeps_entries_and_writes_the_header(tmp_path):
    path = tmp_path / "m.json"
    store = ModelFile(path, "utility", 1)
    assert store.entries == {} and not path.exists()  # a missing file is an empty model
    store.put("alice", {"R": 0.6, "F": 0.2})
    store.put("seat:2", [1, 2, 3])
    store.save()
    doc = json.loads(path.read_text())
    assert (doc["format"], doc["kind"], doc["version"]) == (FORMAT, "utility", 1) and "saved" in doc
    again = ModelFile(path, "utility", 1)
    assert again.entries == {"alice": {"R": 0.6, "F": 0.2}, "seat:2": [1, 2, 3]}
    assert again.get("alice") == {"R": 0.6, "F": 0.2} and again.get("bob") is None
    assert sorted(os.listdir(tmp_path)) == ["m.json"]  # no temporary file left behind


def test_save_merges_with_what_others_wrote_meanwhile(tmp_path):
    path = tmp_path / "m.json"
    a, b = ModelFile(path, "uc3m", 1), ModelFile(path, "uc3m", 1)
    a.put("alice", 1)
    a.save()
    b.put("bob", 2)
    b.save()  # b never read alice's entry, yet keeps it
    assert ModelFile(path, "uc3m", 1).entries == {"alice": 1, "bob": 2}
    a.put("alice", 3)
    a.save()
    assert ModelFile(path, "uc3m", 1).entries == {"alice": 3, "bob": 2}


@pytest.mark.skipif(os.name != "posix", reason="saves are serialised with POSIX flock")
def test_overlapping_saves_keep_both_entries(tmp_path, monkeypatch):
    # Two processes' seats sharing a file save at once: a has re-read the file
    # and is about to write when b saves.  Without a lock b's entry is lost
    # when a replaces the file with what it read.
    path = tmp_path / "m.json"
    a, b = ModelFile(path, "uc3m", 1), ModelFile(path, "uc3m", 1)
    a.put("alice", 1)
    b.put("bob", 2)
    a_has_read, a_may_write = threading.Event(), threading.Event()
    read = ModelFile._read

    def pausing_read(self):
        out = read(self)
        if self is a:
            a_has_read.set()
            a_may_write.wait(10)
        return out
    monkeypatch.setattr(ModelFile, "_read", pausing_read)
    saving_a = threading.Thread(target=a.save)
    saving_a.start()
    assert a_has_read.wait(10)
    saving_b = threading.Thread(target=b.save)
    saving_b.start()
    saving_b.join(0.5)  # unlocked, b is done by now; locked, it waits for a
    a_may_write.set()
    saving_a.join(10)
    saving_b.join(10)
    assert not saving_a.is_alive() and not saving_b.is_alive()
    assert ModelFile(path, "uc3m", 1).entries == {"alice": 1, "bob": 2}


def test_nothing_to_save_writes_nothing(tmp_path):
    path = tmp_path / "m.json"
    ModelFile(path, "uc3m", 1).save()
    assert not path.exists()


def test_a_failed_save_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "m.json"
    store = ModelFile(path, "uc3m", 1)
    store.put("alice", 1)
    store.save()
    before = path.read_bytes()
    store.put("bob", object())  # not JSON: the write fails half way
    with pytest.raises(TypeError):
        store.save()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.json"]


@pytest.mark.parametrize("content,words", [
    ("{not json", r"m\.json: not valid JSON \(line 1, column 2"),
    ("[1, 2]", r"m\.json: not an acpcbot model file"),
    ('{"format": "other"}', "not an acpcbot model file"),
    ('{"format": "acpcbot-model", "kind": "utility", "version": 1, "entries": {}}',
     "holds a 'utility' model, not a 'uc3m' one"),
    ('{"format": "acpcbot-model", "kind": "uc3m", "version": 9, "entries": {}}',
     "uc3m model version 9 is not supported \\(this acpcbot reads version 1\\)"),
    ('{"format": "acpcbot-model", "kind": "uc3m", "version": 1, "entries": []}', '"entries" must be an object'),
])
def test_bad_files_are_refused_clearly(tmp_path, content, words):
    path = tmp_path / "m.json"
    path.write_text(content)
    with pytest.raises(ModelFileError, match=words):
        ModelFile(path, "uc3m", 1)
    assert path.read_text() == content  # refused, not overwritten


def test_bad_places_are_refused_clearly(tmp_path):
    with pytest.raises(ModelFileError, match="the folder .*nowhere does not exist"):
        ModelFile(tmp_path / "nowhere" / "m.json", "uc3m", 1)
    with pytest.raises(ModelFileError, match="is a folder"):
        ModelFile(tmp_path, "uc3m", 1)


def test_a_file_corrupted_after_loading_is_not_overwritten(tmp_path):
    path = tmp_path / "m.json"
    store = ModelFile(path, "uc3m", 1)
    path.write_text("garbage")
    store.put("alice", 1)
    with pytest.raises(ModelFileError, match="not valid JSON"):
        store.save()
    assert path.read_text() == "garbage"


# ----------------------------------------------------------------- keys

def _view(game_name: str, position: int, hand_id: int) -> View:
    game = load_game(game_name)
    holes = ["AsKd", "2c3c", "7h7d"][:game.num_players]
    cards = "|".join(h if p == position else "" for p, h in enumerate(holes))
    return View.parse(f"MATCHSTATE:{position}:{hand_id}::{cards}", game)


def test_seat_keys_are_one_based():
    assert seat_key([1]) == "seat:2"
    assert seat_key([2, 0]) == "seat:1+3"


def test_keys_by_name_when_the_match_names_the_opponents():
    game = load_game("hunl")
    info = MatchInfo(game, name="me", opponents=("alice",))
    view = _view("hunl", 0, 5)
    assert table_key(info, view) == "alice"
    assert opponent_key(info, view, 1) == "alice"


def test_keys_by_seat_when_names_are_unknown():
    game = load_game("hunl")
    info = MatchInfo(game)
    # position 0 of hand 5 is seat 1 (0-based), so the opponent sits in seat 0: "seat:1"
    view = _view("hunl", 0, 5)
    assert view.seat == 1
    assert table_key(info, view) == "seat:1" == opponent_key(info, view, 1)
    assert table_key(None, _view("hunl", 0, 4)) == "seat:2"


def test_three_handed_keys_map_positions_to_names_by_seat():
    game = load_game("3pnl")
    info = MatchInfo(game, name="b", opponents=("a", "c"))  # seats a=0, b=1 (us), c=2
    view = _view("3pnl", 2, 2)  # position 2 of hand 2 is seat (2 + 2) % 3 = 1: us
    assert view.seat == 1
    assert opponent_key(info, view, 0) == "c"  # seat 2
    assert opponent_key(info, view, 1) == "a"  # seat 0
    assert table_key(info, view) == "a+c"
    assert opponent_key(MatchInfo(game), view, 0) == "seat:3"
    assert table_key(MatchInfo(game), view) == "seat:1+3"


def test_folder_exists_checks_file_parameters(tmp_path):
    assert folder_exists("") and folder_exists(str(tmp_path / "m.json")) and folder_exists("m.json")
    assert not folder_exists(str(tmp_path / "no" / "m.json"))


class Counter:
    """A model whose JSON counts how often it was asked for."""

    def __init__(self) -> None:
        self.asked = 0

    def to_json(self) -> int:
        self.asked += 1
        return self.asked


def test_the_saver_writes_changed_models_every_n_hands_and_at_the_end(tmp_path):
    path = tmp_path / "m.json"
    models = {"alice": Counter(), "bob": Counter()}
    saver = ModelSaver(ModelFile(path, "uc3m", 1), models, "lost: %s", every=3)
    saver.changed("alice")
    saver.hand_done()
    saver.hand_done()
    assert not path.exists()  # not yet: two hands
    saver.hand_done()
    assert ModelFile(path, "uc3m", 1).entries == {"alice": 1}  # bob never changed
    saver.changed("bob")
    saver.save()
    assert ModelFile(path, "uc3m", 1).entries == {"alice": 1, "bob": 1}
    saver.save()  # nothing changed since: nobody is serialised again
    assert (models["alice"].asked, models["bob"].asked) == (1, 1)


def test_the_saver_logs_a_failed_write_and_the_match_goes_on(tmp_path, caplog):
    path = tmp_path / "m.json"
    saver = ModelSaver(ModelFile(path, "uc3m", 1), {"alice": Counter()}, "uc3m: %s; not saved", every=1)
    saver.changed("alice")
    path.mkdir()  # the file's place is taken: the rename fails
    saver.hand_done()
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"][0].startswith("uc3m: model file ")


def test_without_a_file_the_saver_does_nothing():
    models = {"alice": Counter()}
    saver = ModelSaver(None, models, "lost: %s", every=1)
    saver.changed("alice")
    saver.hand_done()
    saver.save()
    assert models["alice"].asked == 0
