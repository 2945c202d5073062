"""``acpc-match lbr`` interrupted, then finished by ``acpc-match resume``, keeps its LBR figures (issue 32, defect 6:
the resumed results.json had no ``lbr`` object), and ``benchmarks/lbr.py`` answers --help without running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer.arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 90.0


def test_an_interrupted_lbr_run_resumed_keeps_its_lbr_figures(tmp_path, capsys):
    runs = tmp_path / "runs"
    # one match at a time: match-001 (LBR in the other seat) starts once match-000 is done, and is stopped there
    proc = subprocess.Popen([sys.executable, "-m", "dealer.arena", "lbr", "random:fold=1,call=1,raise=1", "--game",
                             "kuhn2p", "--hands", "600", "--seed", "4", "--transport", "memory", "--jobs", "1",
                             "--lbr-actions", "S1", "--runs-dir", str(runs), "--json"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True)
    end = time.monotonic() + LIMIT
    run_dir = None
    while run_dir is None or not (run_dir / "match-001.log").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "match-001 never started"
        run_dir = next(runs.iterdir(), None) if runs.exists() else None
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("acpc-match lbr did not stop")
    assert proc.returncode == 130, err
    partial = json.loads((run_dir / "results.json").read_text())
    assert partial["partial"] is True and "lbr" not in partial

    assert main(["resume", str(run_dir), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    doc = json.loads((run_dir / "results.json").read_text())
    assert doc["partial"] is False and printed["lbr"] == doc["lbr"]
    lbr = doc["lbr"]
    row = next(r for r in doc["results"] if r["player"] == "lbr")
    assert lbr["lbr_mbb_per_hand"] == row["duplicate_mbb_per_hand"] is not None
    assert lbr["ci95"] == row["duplicate_ci95"] and lbr["pairs"] == 600 and lbr["complete"] is True
    assert lbr["strategy"] == "random:fold=1,call=1,raise=1" and lbr["game"] == "kuhn2p"
    # the whole summary beside it: the action setting and the figures by street
    whole = json.loads((run_dir / "lbr.json").read_text())
    assert {k: v for k, v in whole.items() if k in lbr} == lbr and whole["actions"] == "S1"
    streets = whole["by_street"]["first_raise"]
    assert whole["by_street"]["deals"] == 600 and set(streets) == {"none", "round1"}
    # S1 never raises: every hand is LBR's folding and calling
    assert streets["none"]["hands"] == 1200 and streets["none"]["mbb_per_hand"] == pytest.approx(
        lbr["lbr_mbb_per_hand"], abs=1e-3)


def test_an_ordinary_run_resumed_gets_no_lbr_object(tmp_path, capsys):
    assert main(["play", "--game", "kuhn2p", "--hands", "5", "--transport", "memory", "call", "fold",
                 "--runs-dir", str(tmp_path), "--json"]) == 0
    run_dir = json.loads(capsys.readouterr().out)["run_dir"]
    assert main(["resume", run_dir, "--json"]) == 0
    assert "lbr" not in json.loads(capsys.readouterr().out) and not (Path(run_dir) / "lbr.json").exists()


def test_the_benchmark_answers_help_without_running():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lbr.py"), "--help"], capture_output=True,
                         text=True, timeout=LIMIT)
    assert out.returncode == 0 and out.stdout.startswith("usage:") and "{" not in out.stdout.splitlines()[0]
