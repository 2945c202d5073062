"""acpc-match resume on a run folder whose plan.json or results.json is damaged: one clear error, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.arena.cli import main
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.runner import execute

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def run_folder(tmp_path) -> Path:
    plan = build_plan(name="bad", game="kuhn2p", hands=10, seed=2, duplicate=False, mode="play",
                      entries=[Entry("a", "call"), Entry("b", "call")], transport="memory", parallel=1)
    return Path(execute(plan, tmp_path / "runs")["run_dir"])


def _resume(folder: Path) -> subprocess.CompletedProcess[str]:
    """``acpc-match resume FOLDER`` as its own process (what a user runs)."""
    return subprocess.run([sys.executable, "-m", "dealer.arena", "resume", str(folder)], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _resume_here(folder: Path, capsys) -> subprocess.CompletedProcess[str]:
    """The same command line run in this process (``acpc-match``'s own ``main``): an exception that escaped it would
    fail the test as a traceback would; one damage of each file is also resumed as its own process below."""
    capsys.readouterr()
    code = main(["resume", str(folder)])
    out = capsys.readouterr()
    return subprocess.CompletedProcess(["acpc-match", "resume", str(folder)], code, out.out, out.err)


DAMAGE = {
    "a 5000-digit number": lambda text: text.replace('"seed": 2', '"seed": ' + "9" * 5000, 1),
    "100,000 levels of nesting": lambda text: "[" * 100_000 + "]" * 100_000,
    "invalid UTF-8": lambda text: text.replace('"a"', '"\udcff"', 1),
    "a player that is a number": lambda text: text.replace('"name": "a"', '"name": 7', 1),
    "a player name that is a path": lambda text: text.replace('"a"', '"../../x"'),
    "a seat that is not a player": lambda text: text.replace('"seats": [\n    "a"', '"seats": [\n    "z"', 1),
    "a match of no hands": lambda text: text.replace('"hands": 10', '"hands": 0'),
    "a players list of strings": lambda text: json.dumps(dict(json.loads(text), players=["a", "b"])),
    "an unknown transport": lambda text: text.replace('"memory"', '"pigeon"'),
}


def _damage_and_resume(run_folder, name: str, damage: str, capsys=None):
    """Damage ``name`` in the run folder, resume it (in this process when given ``capsys``, else as its own
    process), and check the refusal names the file (no traceback)."""
    path = run_folder / name
    text = path.read_text()
    damaged = DAMAGE[damage](text)
    assert damaged != text
    path.write_bytes(damaged.encode("utf-8", "surrogateescape"))
    run = _resume(run_folder) if capsys is None else _resume_here(run_folder, capsys)
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 2 and run.stderr.startswith(f"acpc-match: error: {path}: "), run.stderr[:500]
    assert len(run.stderr) < 1000
    return run


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_plan_is_named_and_refused(run_folder, damage, capsys):
    _damage_and_resume(run_folder, "plan.json", damage, capsys)


@pytest.mark.parametrize("damage", ["a 5000-digit number", "100,000 levels of nesting", "invalid UTF-8"])
def test_a_damaged_results_file_is_named_and_refused(run_folder, damage, capsys):
    run = _damage_and_resume(run_folder, "results.json", damage, capsys)
    assert "remove it" in run.stderr


@pytest.mark.parametrize("name", ["plan.json", "results.json"])
def test_a_damaged_file_is_refused_by_the_command_as_its_own_process(run_folder, name):
    # the deepest damage in a fresh interpreter (its own recursion limit, its own stderr): one line, exit 2
    _damage_and_resume(run_folder, name, "100,000 levels of nesting")


def test_a_run_folder_without_results_resumes_from_its_logs(run_folder):
    (run_folder / "results.json").unlink()
    run = _resume(run_folder)
    assert run.returncode == 0, run.stderr
    assert json.loads((run_folder / "results.json").read_text())["matches"][0]["complete"] is True
