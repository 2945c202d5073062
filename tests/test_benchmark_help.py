"""Every benchmark answers --help with its usage and exit 0, before measuring anything (issue 32, defect 9)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every benchmark, found in the folder: a new one answers --help too
BENCHMARKS = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py"))



def test_the_benchmarks_are_found():
    assert {"engine", "runner", "subgame", "blueprint_load"} <= set(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_help_prints_the_usage_and_measures_nothing(name):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), "--help"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.startswith("usage:")
    assert not any(line.startswith("{") for line in done.stdout.splitlines())  # no JSON result: nothing measured
