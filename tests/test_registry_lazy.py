"""The shipped strategies' table (``builtin.BUILTIN``): exactly what their modules register, imported on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

from acpcbot.strategies import builtin
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.registration import register, registered
from acpcbot.strategies.registry import available, known_name, registered_class


def test_the_table_names_every_shipped_strategy_and_the_module_that_registers_it() -> None:
    builtin.load_all()
    shipped = {n: c for n, c in registered().items() if c.__module__.startswith("acpcbot.strategies.")}
    assert set(shipped) == set(builtin.BUILTIN)
    for name, cls in shipped.items():
        module = f"acpcbot.strategies.{builtin.BUILTIN[name]}"
        assert cls.__module__ == module or cls.__module__.startswith(module + "."), name
    assert set(available()) >= set(builtin.BUILTIN)


def test_a_name_is_known_without_an_import_and_an_unknown_one_is_not() -> None:
    assert known_name("adaptive") and known_name("call") and not known_name("no-such-player")
    assert registered_class("no-such-player") is None
    assert registered_class("rock") is registered()["rock"]


def test_playing_call_imports_neither_the_other_strategies_nor_the_solvers() -> None:
    # a fresh interpreter: what a seat playing ``call`` or a user's ``acpc-match ... call call`` loads
    code = ("import sys; from acpcbot.gamedef import load_game; from acpcbot.strategies.registry import create; "
            "create('call', load_game('hunl')); "
            "print(sorted(m for m in sys.modules if m.startswith(('acpcbot.strategies.', 'acpcbot.solve'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)  # noqa: S307 - our own printed list
    assert "acpcbot.strategies.simple" in loaded
    assert not [m for m in loaded if m.startswith(("acpcbot.strategies.adaptive", "acpcbot.strategies.blueprint",
                                                   "acpcbot.solve"))], loaded


def test_a_plugin_cannot_take_a_shipped_name_before_its_module_loads() -> None:
    class Impostor(Strategy):
        name = "station"

    with pytest.raises(ValueError, match="two strategies are named 'station'"):
        register(Impostor)
