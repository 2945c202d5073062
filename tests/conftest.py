"""Shared fixtures of the test suite: the reference material (skipped cleanly when absent), fixture files, games.

The test helpers that play matches are modules beside this file, each with
one job: ``matchkit`` (start the bundled dealer), ``dealerkit`` (scripted
players against the dealer), ``client_fakedealer`` (fake dealers against
the client), ``playkit`` (strategies against each other, in memory through
the arena or over TCP).  Test modules import those, never each other.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from acpcbot.gamedef import GameDef, load_game

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: ../shared/reference beside the repository: read when present, never required
REFERENCE = ROOT.parent / "shared" / "reference"

# the helper modules are imported by name from any working directory
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def reference() -> Path:
    """The shared reference material (logs, transcripts, games); the test is skipped when it is not on this machine."""
    if not (REFERENCE / "matchName.log").is_file() or not (REFERENCE / "dealer_logs").is_dir():
        pytest.skip("the shared reference material (../shared/reference) is not on this machine")
    return REFERENCE


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The folder of the suite's own fixture files."""
    return TESTS / "fixtures"


@pytest.fixture(scope="session")
def hunl() -> GameDef:
    """Heads-up no-limit hold'em (the shipped hunl)."""
    return load_game("hunl")


@pytest.fixture(scope="session")
def hulhe() -> GameDef:
    """Heads-up limit hold'em (the shipped hulhe)."""
    return load_game("hulhe")
