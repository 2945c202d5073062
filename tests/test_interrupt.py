"""Runs survive interruption: SIGINT or SIGTERM writes a partial results.json, ``resume`` plays the rest to the
figures of an uninterrupted run, merge takes partial runs, and a failed merge leaves no folder."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dealer.arena import runner
from dealer.arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 90.0

# a duplicate round robin of 4 players in leduc: 12 matches, one at a time; 100 hands make a match last about
# 0.05 s of CPU (and its AIVAT as much again), so the nine or more matches left after match-002 starts outlast
# the 20 ms poll by far
ARGS = ["tournament", "--game", "leduc", "--hands", "100", "--seed", "6", "--duplicate", "--transport", "memory",
        "--jobs", "1", "cfr", "raise", "call", "random"]


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dealer.arena", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            start_new_session=True)


def wait_for(path: Path, proc: subprocess.Popen) -> None:
    end = time.monotonic() + LIMIT
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


def run_folder(runs: Path, proc: subprocess.Popen) -> Path:
    """The run's folder in ``runs``, once acpc-match has made it (``runs`` itself comes first)."""
    end = time.monotonic() + LIMIT
    while True:
        found = next(runs.iterdir(), None) if runs.exists() else None
        if found is not None:
            return found
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, f"no run folder in {runs}"
        time.sleep(0.02)


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail("acpc-match did not stop")
    return proc.returncode, out, err


def test_ctrl_c_keeps_the_finished_matches_and_resume_plays_the_rest(tmp_path, capsys):
    proc = start([*ARGS, "--runs-dir", str(tmp_path / "runs"), "--json"], tmp_path)
    runs = tmp_path / "runs"
    wait_for(runs, proc)
    run_dir = None
    end = time.monotonic() + LIMIT
    while run_dir is None or not (run_dir / "match-002.log").exists():  # match-000 and match-001 are done
        assert proc.poll() is None and time.monotonic() < end
        run_dir = next(runs.iterdir(), None)
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    assert code == 130, err
    assert "Traceback" not in err and "Loop is closed" not in err
    assert re.search(rf"to play the rest: \S*acpc-match resume {re.escape(str(run_dir))}", err)
    doc = json.loads((run_dir / "results.json").read_text())
    assert doc == json.loads(out) and doc["partial"] is True
    played = [m for m in doc["matches"] if m.get("played") is not False]
    assert 2 <= len(played) < 12 and all(m["complete"] for m in played)
    for m in doc["matches"]:
        if m.get("played") is False:
            assert m["files"] == {} and not list(run_dir.glob(f"{m['label']}.*"))  # nothing half-written kept
    # merge takes the partial run: only what it played counts
    assert main(["merge", str(run_dir), "--runs-dir", str(tmp_path / "merged"), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["partial"] is True and len(merged["matches"]) == len(played)
    # resume plays the rest; the figures are those of one uninterrupted run
    proc = start(["resume", str(run_dir), "--json"], tmp_path)
    code, out, err = finish(proc)
    assert code == 0, err
    resumed = json.loads(out)
    assert resumed["partial"] is False and all(m["complete"] for m in resumed["matches"])
    assert main([*ARGS, "--runs-dir", str(tmp_path / "whole"), "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    for key in ("results", "crosstable", "rankings"):
        assert resumed[key] == whole[key], key


def test_sigterm_stops_a_tcp_run_and_its_processes(tmp_path):
    proc = start(["play", "--game", "kuhn2p", "--hands", "4000000", "--seed", "1", "call", "fold",
                  "--runs-dir", str(tmp_path / "runs"), "--json"], tmp_path)
    run_dir = run_folder(tmp_path / "runs", proc)
    log = run_dir / "match-000.log"
    end = time.monotonic() + LIMIT
    while not log.exists() or log.read_text().count("STATE:") < 10:
        assert proc.poll() is None and time.monotonic() < end
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    code, out, err = finish(proc)
    assert code == 143 and "Traceback" not in err
    doc = json.loads(out)
    assert doc["partial"] is True and doc["matches"][0]["played"] is False
    assert not log.exists()  # an unfinished match is played again by resume, from its first hand
    # no dealer or client of this run is left: none works in its folder any more
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            assert os.readlink(f"/proc/{pid}/cwd") != str(run_dir), f"process {pid} still runs in {run_dir}"
        except OSError:
            pass


def test_a_failed_merge_leaves_no_folder(tmp_path, capsys):
    assert main(["play", "--game", "kuhn2p", "--hands", "5", "--transport", "memory", "call", "fold",
                 "--runs-dir", str(tmp_path / "runs"), "--json"]) == 0
    run_dir = Path(json.loads(capsys.readouterr().out)["run_dir"])
    (run_dir / "match-000.log").unlink()
    merged = tmp_path / "merged"
    merged.mkdir()
    assert main(["merge", str(run_dir), "--runs-dir", str(merged)]) == 2
    assert "the dealer log match-000.log of match-000 is missing" in capsys.readouterr().err
    assert list(merged.iterdir()) == []


def test_resume_needs_a_run_folder(tmp_path, capsys):
    assert main(["resume", str(tmp_path)]) == 2
    assert f"{tmp_path}: not a run folder acpc-match can resume: cannot read plan.json" in capsys.readouterr().err


def test_an_interrupted_match_on_a_thread_is_stopped_and_waited_for(tmp_path):
    # the run clears an unfinished match's files once its task ends: a thread still playing it wrote them again
    # (a leduc tournament interrupted as its next match started kept that match's .err)
    started, ended = threading.Event(), []

    def play(job, game_arg, run_dir, stop):
        started.set()
        assert stop.wait(LIMIT)  # plays on until told to stop
        time.sleep(0.2)  # the end of its hand, after the stop
        (Path(run_dir) / "match-003.err").write_text("the last hand\n")
        ended.append(True)

    async def interrupt() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(runner._on_thread(loop, play, None, "kuhn2p", str(tmp_path)))
        await loop.run_in_executor(None, started.wait, LIMIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert ended == [True]  # the match had ended when the task did

    asyncio.run(interrupt())
