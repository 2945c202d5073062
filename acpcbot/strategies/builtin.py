"""The shipped strategies by name and the module that registers each: imported when a name is first asked for.

A program that plays ``call`` imports ``simple`` alone, not the solvers,
tables and models of every other strategy (a tenth of a second and more of
start-up for each seat, each test that starts one, each ``acpc-match``).
A new shipped strategy adds its line here; ``tests/test_registry_lazy.py``
fails when this table and what the modules register differ.
"""

from __future__ import annotations

import importlib

#: strategy name -> the module (under acpcbot.strategies) whose import registers it
BUILTIN: dict[str, str] = {
    "adaptive": "adaptive",
    "bayes": "bayes",
    "blueprint": "blueprint",
    "call": "simple",
    "cfr": "cfr",
    "constant": "study2008",
    "fold": "simple",
    "human": "human",
    "lbr": "lbr",
    "learner2008": "learner2008",
    "maniac": "patterns",
    "mfs": "study2008",
    "probe": "probes",
    "probe-br": "probes",
    "raise": "simple",
    "random": "simple",
    "random2008": "study2008",
    "rh": "study2008",
    "rock": "patterns",
    "station": "patterns",
    "uc3m": "uc3m",
    "uc3m-simple": "uc3m",
    "utility": "utility",
}


def load(name: str) -> bool:
    """Import the module that registers the shipped strategy ``name``; False when no shipped strategy has it."""
    module = BUILTIN.get(name)
    if module is None:
        return False
    importlib.import_module(f"{__package__}.{module}")
    return True


def load_all() -> None:
    """Import every shipped strategy's module (a listing of them all)."""
    for module in sorted(set(BUILTIN.values())):
        importlib.import_module(f"{__package__}.{module}")
