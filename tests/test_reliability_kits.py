"""Kits carry what they need and no check leaves anything behind (issue 34 items 5, 6, 7; issue 32 items 7, 10):
a plugin module and a policy file are shipped in the kit, a kit that dies at start is reported at once, SIGTERM
ends the check's dealer and seat, a symlinked kit folder or a deeply nested kit.json is one clear error, and a
check in a temporary folder removes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from acpcbot import kit_check
from acpcbot.package import KitError, KitOptions, build_kit, check_kit, main

ROOT = Path(__file__).resolve().parents[1]
CEILING = 120.0  # a hang guard, not a speed claim
#: the grace a kit or external program that exits while the dealer runs is given, in the tests where it exits at
#: start (the dealer cannot end: the wait is all lost) instead of the shipped 3 s, which a normal end needs on a
#: busy machine (the kit's exit seen before the dealer's)
GONE_GRACE_S = 0.5


def _kit(tmp_path, **kw):
    return build_kit(tmp_path / "out", KitOptions(game="kuhn2p", wheels=False, python=sys.executable, **kw))


def test_a_plugin_strategy_is_shipped_in_the_kit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mybot34k.py").write_text("from acpcbot.strategies.simple import CallStrategy\n\n\n"
                                          "class Tight(CallStrategy):\n    pass\n")
    kit = _kit(tmp_path, strategy="mybot34k:Tight")
    assert (kit / "src" / "mybot34k.py").is_file()
    result = check_kit(kit, hands=3, workdir=tmp_path / "work", timeout=CEILING)
    assert result.ok, result.problems


def test_a_policy_file_is_shipped_and_named_inside_the_kit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mypol.json").write_bytes((ROOT / "acpcbot" / "data" / "policy_kuhn2p.json").read_bytes())
    kit = _kit(tmp_path, strategy="cfr:policy=mypol.json")
    shipped = list((kit / "files").glob("*mypol.json"))
    assert len(shipped) == 1
    startme = (kit / "startme.sh").read_text()
    assert f'"cfr:policy=$KIT/files/{shipped[0].name}"' in startme and str(tmp_path) not in startme
    result = check_kit(kit, hands=3, workdir=tmp_path / "work", timeout=CEILING)
    assert result.ok, result.problems


def test_a_strategy_file_that_is_missing_is_refused_before_the_kit_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KitError, match="no such file"):
        _kit(tmp_path, strategy="cfr:policy=missing.json")
    assert not (tmp_path / "out").exists()


def test_a_kit_that_dies_at_start_is_reported_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(kit_check, "KIT_GONE_GRACE", GONE_GRACE_S)
    kit = _kit(tmp_path)
    (kit / "startme.sh").write_text("#!/bin/sh\necho cannot start >&2\nexit 3\n")
    # with a limit of CEILING, only noticing the kit's exit can end the check before it
    result = check_kit(kit, hands=5, workdir=tmp_path / "work", timeout=CEILING)
    assert len(result.problems) == 1
    assert result.problems[0].startswith("startme.sh exited with status 3 before the match ended")
    assert "cannot start" in result.problems[0]


def test_a_symlinked_kit_in_out_is_one_clear_error(tmp_path, capsys):
    kit = _kit(tmp_path)
    (tmp_path / "out2").mkdir()
    (tmp_path / "out2" / kit.name).symlink_to(kit)
    assert main(["--game", "kuhn2p", "--no-wheels", "--python", sys.executable, "--out", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and "Traceback" not in err and (kit / "kit.json").is_file()


def test_a_deeply_nested_kit_json_is_one_clear_error(tmp_path, capsys):
    kit = _kit(tmp_path)
    (kit / "kit.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["check", str(kit)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and len(err.strip().splitlines()) == 1


def test_check_hands_beyond_the_dealers_limit_is_refused_by_the_check(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["check", str(tmp_path), "--hands", "99999999999999999999"])
    err = capsys.readouterr().err
    assert "4294967295" in err and "usage: dealer" not in err


def test_a_check_in_a_temporary_folder_leaves_nothing(tmp_path, monkeypatch):
    kit = _kit(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    result = check_kit(kit, hands=3, timeout=CEILING)
    assert result.ok, result.problems
    assert list(temp.iterdir()) == []
    (kit / "startme.sh").write_text("#!/bin/sh\nexit 3\n")
    monkeypatch.setattr(kit_check, "KIT_GONE_GRACE", GONE_GRACE_S)
    result = check_kit(kit, hands=3, timeout=CEILING)
    assert not result.ok
    (left,) = temp.iterdir()  # a failed check keeps its match files, not the kit copy
    assert not [p for p in left.iterdir() if p.is_dir()] and (left / "check.err").is_file()


def _children(pid: int) -> set[int]:
    """Every process whose parent is ``pid``, from /proc."""
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_gone(pids: set[int], seconds: float = 30.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return {p for p in pids if _alive(p)}


def _kill_all(pids: set[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_to_a_check_ends_its_dealer_and_seat(tmp_path):
    kit = _kit(tmp_path)
    (kit / "startme.sh").write_text("#!/bin/sh\nexec sleep 300\n")  # never connects, never exits
    work = tmp_path / "work"
    proc = subprocess.Popen([sys.executable, "-m", "acpcbot.package", "check", str(kit), "--workdir", str(work)],
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stderr=subprocess.PIPE, text=True)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + CEILING
        while len(children) < 3 and time.monotonic() < deadline:  # the dealer, the kit and the random seat
            children |= _children(proc.pid)
            time.sleep(0.1)
        assert len(children) >= 3
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(CEILING) == 128 + signal.SIGTERM
        assert "interrupted by signal" in proc.stderr.read()
        assert _wait_gone(children) == set()
    finally:
        proc.kill()
        _kill_all(children)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_sigkill_to_acpc_match_over_tcp_ends_its_dealer_and_seats(tmp_path):
    runs = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "dealer.arena", "play", "--game", "kuhn2p", "--hands", "2000000",
                             "--runs-dir", str(runs), "--quiet", "call", "call"],
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + CEILING
        while len(children) < 3 and time.monotonic() < deadline:  # the dealer and two seats
            children |= _children(proc.pid)
            time.sleep(0.1)
        assert len(children) >= 3
        proc.kill()
        proc.wait(CEILING)
        assert _wait_gone(children) == set()
    finally:
        proc.kill()
        _kill_all(children)


def test_an_external_program_that_exits_at_once_fails_the_match_at_once(tmp_path, capsys, monkeypatch):
    from dealer.arena import tcp
    from dealer.arena.cli import main as match_main
    monkeypatch.setattr(tcp, "START_TIMEOUT_MS", 3_600_000)  # only noticing the exit can end the match
    monkeypatch.setattr(tcp, "EXTERNAL_GRACE_S", GONE_GRACE_S)
    runs = tmp_path / "runs"
    assert match_main(["play", "--game", "kuhn2p", "--hands", "5", "--runs-dir", str(runs), "--json",
                       "call", "--external", "true"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "an external program, exited with status 0 before the match ended" in doc["matches"][0]["error"]
