"""Every benchmark answers --help with its usage and exit 0, before measuring anything (issue 32, defect 9)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# runner.py, evaluator.py, aivat.py and lbr.py are fixed in other branches (issue 32): add them here once merged
BENCHMARKS = ["engine", "solve", "blueprint", "client", "dealer", "strategies", "runner", "evaluator", "aivat", "lbr",
              "subgame", "resolving_play"]


@pytest.mark.parametrize("name", BENCHMARKS)
def test_help_prints_the_usage_and_measures_nothing(name):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), "--help"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.startswith("usage:") and "{" not in done.stdout.split("\n")[0]
