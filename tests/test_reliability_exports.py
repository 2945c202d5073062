"""PHH export never mixes two matches and never leaves a torn file (issue 34 item 8, issue 32 item 2)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from acpcbot.phh import main as phh_main
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.runner import execute

ROOT = Path(__file__).resolve().parents[1]


def _log(tmp_path: Path, seed: int) -> Path:
    """A short hunl match's log, named match-000.log like every run's first match."""
    plan = build_plan(name=f"s{seed}", game="hunl", hands=4, seed=seed, duplicate=False, mode="play",
                      entries=[Entry("a", "random"), Entry("b", "call")], transport="memory", parallel=1)
    return Path(execute(plan, tmp_path / f"runs{seed}")["run_dir"]) / "match-000.log"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("phhs", [False, True])
def test_two_runs_logs_of_the_same_name_are_not_mixed(tmp_path, capsys, phhs):
    a, b = _log(tmp_path, 1), _log(tmp_path, 2)
    out = tmp_path / "phh"
    extra = ["--phhs"] if phhs else []
    assert phh_main([str(a), "--out", str(out), *extra]) == 0
    before = _snapshot(out)
    capsys.readouterr()
    assert phh_main([str(b), "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert "mix two matches" in err and str(b) in err and len(err.strip().splitlines()) == 1
    assert _snapshot(out) == before  # the first export is untouched
    assert phh_main([str(a), "--out", str(out), *extra]) == 0  # the same log again is fine
    assert _snapshot(out) == before


def _export_limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "acpcbot.phh", *args], capture_output=True, text=True, timeout=120,
                          preexec_fn=cap, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("phhs", [False, True])
def test_a_full_disk_leaves_no_torn_phh_file(tmp_path, phhs):
    log = _log(tmp_path, 3)
    out = tmp_path / "phh"
    extra = ["--phhs"] if phhs else []
    run = _export_limited(300, str(log), "--out", str(out), *extra)  # a hand's file is longer than 300 bytes
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "cannot write" in run.stderr
    assert _snapshot(out) == {} if out.exists() else True  # no 0-byte .phh, no .phhs ending mid-record
    assert not out.exists() or not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
