"""The small things a newcomer trips on: versions, unknown games, option names in messages, where runs go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acpcbot.cli import main as bot_main
from dealer.arena.cli import main as match_main
from dealer.arena.folders import default_runs_dir
from dealer.cli import main as dealer_main

ROOT = Path(__file__).resolve().parents[1]


def test_every_command_says_its_version(capsys):
    from importlib import metadata

    expected = metadata.version("acpcbot")
    for main, prog in ((bot_main, "acpcbot"), (match_main, "acpc-match")):
        with pytest.raises(SystemExit) as stop:
            main(["--version"])
        assert stop.value.code == 0
        assert capsys.readouterr().out.strip() == f"{prog}{' (acpcbot)' if prog != 'acpcbot' else ''} {expected}"
    assert dealer_main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"acpc-dealer (acpcbot) {expected}"


def test_listing_strategies_for_an_unknown_game_is_an_error(capsys):
    assert bot_main(["--list-strategies", "--game", "nosuch"]) == 2
    assert "--game: no game named 'nosuch'" in capsys.readouterr().err
    assert bot_main(["--list-strategies", "--game", "leduc"]) == 0
    assert "default for leduc: cfr" in capsys.readouterr().out


def test_a_tournament_error_names_no_option_that_does_not_exist(capsys, tmp_path):
    assert match_main(["tournament", "--game", "hunl", "call", "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--players" not in err and "the players: a hunl tournament needs at least 2, got 1" in err


def test_runs_go_to_the_checkout_wherever_the_command_runs(tmp_path):
    assert default_runs_dir() == ROOT / "matches" / "runs"
    out = subprocess.run([sys.executable, "-m", "dealer.arena", "play", "--help"], cwd=tmp_path, text=True,
                         capture_output=True, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    # argparse wraps help at spaces and after hyphens (a checkout at /tmp/ci-clone comes out as "ci- clone")
    assert out.returncode == 0 and str(ROOT / "matches" / "runs").replace(" ", "") in "".join(out.stdout.split())
    assert not (tmp_path / "matches").exists()


def test_recipe_settings_can_be_overridden_on_the_command_line(capsys, tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('game = "kuhn2p"\nhands = 1000\nseed = 1\ntransport = "memory"\nseats = ["call", "fold"]\n')
    assert match_main(["run", str(recipe), "--hands", "7", "--seed", "5", "--jobs", "1", "--runs-dir", str(tmp_path),
                       "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["hands"] == 7 and doc["seed"] == 5 and doc["results"][0]["hands"] == 7
