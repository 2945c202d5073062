"""acpcbot.prepare: the caches built once, before any match or test needs them, and bad names refused first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acpcbot import prepare

ROOT = Path(__file__).resolve().parent.parent


def test_each_step_says_what_it_kept_and_a_second_run_builds_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "acpcbot"

    def build() -> None:  # as a cache does: written when absent, read when there
        if not (folder / "table.npz").exists():
            folder.mkdir(exist_ok=True)
            (folder / "table.npz").write_bytes(b"x")

    said: list[str] = []
    assert prepare.prepare([("the table", build)], say=said.append) == ["table.npz"]
    assert prepare.prepare([("the table", build)], say=said.append) == []
    assert "the table" in said[0] and "kept table.npz" in said[0]
    assert "already there" in said[1]


def test_an_unwritable_cache_folder_is_said_once(tmp_path, monkeypatch):
    (tmp_path / "acpcbot").write_text("a file where the folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    said: list[str] = []
    assert prepare.prepare([("nothing", lambda: None)], say=said.append) == []
    assert "cannot be written" in said[0] and len(said) == 2


def test_by_default_the_blueprints_of_every_game_that_ships_one_and_the_board_sample():
    todo = [what for what, _ in prepare.steps(prepare.blueprint_pairs())]
    assert todo == ["hand-ranking tables", "blueprint in hulhe", "blueprint in hunl", "AIVAT's preflop board sample"]
    assert [what for what, _ in prepare.steps([("leduc", "cfr")], aivat=False)] == ["hand-ranking tables",
                                                                                   "cfr in leduc"]


@pytest.mark.parametrize("args, says", [
    (["--game", "hunl"], "go in pairs"),
    (["--game", "nosuch", "--strategy", "call"], "no game named 'nosuch'"),
    (["--game", "hunl", "--strategy", "nosuch"], "unknown strategy 'nosuch'"),
])
def test_a_bad_name_is_refused_before_anything_is_built(args, says, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as exit_:
        prepare.main(args)
    assert exit_.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "acpcbot").exists()


def test_a_strategy_that_cannot_play_its_game_fails_with_its_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(prepare, "_tables", lambda: None)  # the command's own test builds them
    assert prepare.main(["--game", "kuhn2p", "--strategy", "blueprint", "--no-aivat", "--quiet"]) == 1
    assert "cannot play kuhn2p" in capsys.readouterr().err


def test_the_command_builds_the_tables_into_the_cache_folder(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "acpcbot.prepare", "--game", "kuhn2p", "--strategy", "call",
                          "--no-aivat"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert [p.name.split("_")[0] for p in (tmp_path / "acpcbot").iterdir()] == ["rank"]
    assert "hand-ranking tables" in out.stdout and "call in kuhn2p" in out.stdout and "already there" in out.stdout


@pytest.mark.slow
def test_after_the_default_run_the_shipped_players_and_aivat_build_nothing(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-m", "acpcbot.prepare"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "acpcbot"
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert len(before) >= 4  # the tables, each blueprint's expanded files, the board sample
    use = ("import numpy as np\n"
           "from acpcbot.gamedef import load_game\n"
           "from acpcbot.strategies.registry import create\n"
           "from acpcbot.measure.matchup import holdem_matchups\n"
           "for game in ('hulhe', 'hunl'):\n"
           "    create('adaptive', load_game(game), 3)\n"
           "print(holdem_matchups(np.array([[0, 1]]), np.array([[2, 3]]), np.zeros((1, 0), dtype=int)))\n")
    second = subprocess.run([sys.executable, "-c", use], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert second.returncode == 0, second.stderr
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
