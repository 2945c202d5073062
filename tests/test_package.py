"""Competition kit: the layout the ACPC's validation script checks, and short matches through our dealer.

Kits here are built without wheels and run with this test's own interpreter
(``--python``), so no network is needed; the offline venv path is checked by
``make submission`` (see the module docstring of acpcbot.package).
"""

import json
import os
import shlex
import stat
import subprocess
import sys
import tarfile

import pytest

from acpcbot.gamedef import load_game, parse_game
from acpcbot.package import KitError, KitOptions, build_kit, check_kit, kit_folder_name, main, make_tarball

# the validation script's permission mask for startme.sh: rwxr-xr-x at least
STARTME_MASK = stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH


# a kit match of a few hands takes seconds; check_kit's default (300 s + 2 s a hand, for a first start that builds
# the environment) would keep a kit whose bot dies at start waiting almost six minutes before the test fails
CEILING = 120.0

def _kit(tmp_path, game="kuhn2p", **kw):
    return build_kit(tmp_path / "out", KitOptions(game=game, wheels=False, python=sys.executable, **kw))


def test_folder_names_are_the_acpc_submission_labels():
    assert kit_folder_name(load_game("hunl")) == "submission_2pn"
    assert kit_folder_name(load_game("hulhe")) == "submission_2pl"
    assert kit_folder_name(load_game("3pl")) == "submission_3pl"
    assert kit_folder_name(load_game("holdem.nolimit.2p.reverse_blinds.game")) == "submission_2pn"
    assert kit_folder_name(load_game("leduc")) == "submission_leduc"


def test_kit_layout(tmp_path):
    kit = _kit(tmp_path, seed=5)
    assert kit.name == "submission_kuhn2p"
    for name in ("README", "startme.sh", "setup.sh", "kit.json", "game.game", "requirements.txt",
                 "src/acpcbot/__main__.py", "src/acpcbot/games/kuhn2p.game", "src/acpcbot/data/policy_kuhn2p.json"):
        assert (kit / name).is_file(), name
    assert not list(kit.rglob("__pycache__"))
    for script in ("startme.sh", "setup.sh"):
        assert (kit / script).stat().st_mode & STARTME_MASK == STARTME_MASK
    assert parse_game((kit / "game.game").read_text()) == load_game("kuhn2p")
    manifest = json.loads((kit / "kit.json").read_text())
    assert manifest["game"] == "kuhn2p" and manifest["strategy"] == "cfr" and manifest["seed"] == 5
    assert (kit / "requirements.txt").read_text().startswith("numpy==")
    startme = (kit / "startme.sh").read_text()
    assert "--game kuhn2p --strategy cfr --name acpcbot --seed 5" in startme


def test_setup_builds_what_the_strategy_would_build_at_its_first_start(tmp_path):
    # setup.sh's prepare step, run as the kit's setup runs it but with this interpreter for the kit's venv: the
    # kit's own cache gets the hand-ranking tables and the kit strategy's files (here the hulhe blueprint's rows)
    kit = _kit(tmp_path, game="hulhe", strategy="blueprint:resolve=0")
    setup = (kit / "setup.sh").read_text().replace("\\\n", " ")
    (line,) = [ln for ln in setup.splitlines() if "acpcbot.prepare" in ln]
    assert "--game hulhe --strategy blueprint:resolve=0" in line
    line = line.replace('"$KIT/venv/bin/python"', shlex.quote(sys.executable))
    done = subprocess.run(["sh", "-c", line], env={**os.environ, "KIT": str(kit)}, capture_output=True, text=True,
                          timeout=CEILING)
    assert done.returncode == 0, done.stderr
    kept = sorted(p.name.split("_")[0] + "_" + p.name.split("_")[1] for p in (kit / "cache" / "acpcbot").iterdir())
    assert kept == ["blueprint_rows", "rank_tables"]


def test_startme_wants_host_and_port(tmp_path):
    kit = _kit(tmp_path)
    done = subprocess.run(["./startme.sh"], cwd=kit, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "usage" in done.stderr


def test_kit_plays_20_hands_through_our_dealer_without_warnings(tmp_path):
    kit = _kit(tmp_path)
    result = check_kit(kit, hands=20, seed=3, workdir=tmp_path / "work", timeout=CEILING)
    assert result.ok, result.problems
    assert result.hands == 20 and result.score.startswith("SCORE:")
    assert not (kit / "cache").exists()  # the check ran on a copy


# make soak's: the whole hunl kit, whose first start builds the blueprint's cache (about 8 s before the first
# hand, 12 s in all; fewer hands would save little); the kuhn kits above check the same steps in make test
@pytest.mark.slow
def test_hunl_kit_with_the_default_strategy(tmp_path):
    kit = _kit(tmp_path, game="hunl")
    assert kit.name == "submission_2pn"
    assert "--strategy adaptive" in (kit / "startme.sh").read_text()
    result = check_kit(kit, hands=10, seed=1, workdir=tmp_path / "work", timeout=CEILING)
    assert result.ok, result.problems


def test_warnings_fail_the_check(tmp_path):
    # a player that answers every state line with a fold: un-requested and invalid replies make the dealer warn
    kit = _kit(tmp_path)
    (kit / "folder.py").write_text(
        "import socket, sys\n"
        "s = socket.create_connection((sys.argv[1], int(sys.argv[2])))\n"
        "s.sendall(b'VERSION:2.0.0\\r\\n')\n"
        "for line in s.makefile('rb'):\n"
        "    if line.startswith(b'MATCHSTATE'):\n"
        "        s.sendall(line.rstrip(b'\\r\\n') + b':f\\r\\n')\n")
    (kit / "startme.sh").write_text(f'#!/bin/sh\nexec {sys.executable} folder.py "$1" "$2"\n')
    result = check_kit(kit, hands=5, workdir=tmp_path / "work", timeout=CEILING)
    assert not result.ok
    assert any("WARNING/ERROR lines" in p for p in result.problems)


def test_a_kit_that_never_connects_times_out_and_is_cleaned_up(tmp_path):
    kit = _kit(tmp_path)
    (kit / "startme.sh").write_text("#!/bin/sh\nexit 3\n")
    # the time-out starts once the dealer listens and the kit never comes: 1 s is as sure as more
    result = check_kit(kit, hands=5, workdir=tmp_path / "work", timeout=1)
    assert result.problems == ["the match did not end within 1 s; kit.err: (empty)"]


def test_tarball_keeps_modes_and_leaves_out_built_environments(tmp_path):
    kit = _kit(tmp_path)
    (kit / "cache").mkdir()
    (kit / "cache" / "tables.npz").write_text("x")
    with tarfile.open(make_tarball(kit)) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert all(name.split("/")[0] == "submission_kuhn2p" for name in members)
    assert members["submission_kuhn2p/startme.sh"].mode & STARTME_MASK == STARTME_MASK
    # the kit's own cache folder is left out, not any file whose name starts with "cache"
    assert not any(name.split("/")[1:2] == ["cache"] for name in members)
    assert any(name.endswith("/cachefile.py") for name in members)


def test_rebuilding_replaces_a_kit_but_never_another_folder(tmp_path):
    kit = _kit(tmp_path)
    (kit / "stale").write_text("old")
    kit = _kit(tmp_path)
    assert not (kit / "stale").exists()
    (kit / "kit.json").unlink()
    with pytest.raises(KitError, match="is not a kit"):
        _kit(tmp_path)


@pytest.mark.parametrize("args,message", [
    (["--strategy", "nosuch"], "--strategy"),
    (["--game", "nosuchgame"], "--game"),
    (["--no-wheels"], "--no-wheels needs --python"),
    (["--game", "kuhn2p", "--strategy", "adaptive", "--no-wheels", "--python", sys.executable], "--strategy"),
])
def test_cli_bad_input_exits_2(tmp_path, capsys, args, message):
    assert main(["--out", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_check_of_a_missing_kit_exits_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nokit")]) == 2
    assert "not a readable kit" in capsys.readouterr().err
