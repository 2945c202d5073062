"""Your own bot without editing acpcbot: ``module:Class[:k=v]`` specs on every command, and acpcbot.play as a library."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from matchkit import dealer_process

import acpcbot
from acpcbot.cli import main as bot_main
from acpcbot.engine import CALL, FOLD
from acpcbot.gamedef import load_game
from acpcbot.strategies.registry import StrategySpecError, create, parse_spec, resolve
from dealer.arena.cli import main as match_main

ROOT = Path(__file__).resolve().parents[1]

BOT = textwrap.dedent('''
    from acpcbot.engine import CALL
    from acpcbot.strategies.base import Param, Strategy


    class Folder(Strategy):
        """Checks when free, calls up to ``limit`` chips, folds above: easy to predict from the log."""

        description = "checks, calls small bets, folds big ones"
        params = {"limit": Param(int, 0, "the largest bet it calls")}

        def act(self, view, deadline):
            return CALL if view.to_call <= self.limit else view.fold_or_check()
''')


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A plugin module in a fresh folder that is the current folder; its name is unique to the test."""
    name = f"plug_{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(BOT)
    monkeypatch.chdir(tmp_path)
    yield name
    sys.modules.pop(name, None)


def test_a_spec_names_a_module_and_class(plugin):
    assert parse_spec(f"{plugin}:Folder:limit=3") == (f"{plugin}:Folder", {"limit": "3"})
    assert parse_spec("raise:size=pot") == ("raise", {"size": "pot"})
    cls, values = resolve(f"{plugin}:Folder:limit=3")
    assert cls.__name__ == "Folder" and values == {"limit": 3}
    s = create(f"{plugin}:Folder:limit=3", load_game("kuhn2p"), 1)
    assert s.spec == f"{plugin}:Folder:limit=3" and s.limit == 3


@pytest.mark.parametrize("spec,message", [
    ("nosuchmodule_xyz:Bot", "no module 'nosuchmodule_xyz' on the Python path or in"),
    ("{p}:Missing", "has no 'Missing'"),
    ("{p}:CALL", "CALL is not a subclass of acpcbot.strategies.base.Strategy"),
    ("{p}:Folder:depth=2", "has no parameter 'depth' (parameters: limit)"),
    ("{p}:Folder:limit=many", "parameter limit='many' is invalid"),
    ("os.path", "unknown strategy 'os.path'"),
])
def test_plugin_errors_say_what_is_wrong(plugin, spec, message):
    with pytest.raises(StrategySpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve(spec.format(p=plugin))


def test_a_plugin_plays_in_memory_against_a_shipped_strategy(plugin, capsys, tmp_path):
    status = match_main(["play", "--game", "kuhn2p", "--hands", "60", "--seed", "2", "--transport", "memory",
                         f"{plugin}:Folder", "raise", "--runs-dir", str(tmp_path / "runs"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0
    me = doc["results"][0]
    assert me["strategy"] == f"{plugin}:Folder" and me["hands"] == 60
    assert me["pfr"] == 0  # it never raises; against the always-raiser it folds every hand it is raised
    log = (Path(doc["run_dir"]) / "match-000.log").read_text()
    assert log.count("STATE:") == 60


def test_a_plugin_in_the_folder_of_the_command_plays_over_tcp(tmp_path):
    # the seats run in other folders with -P: they find the plugin through the folder the command was given in
    name = "tcp_plugin_bot"
    (tmp_path / f"{name}.py").write_text(BOT)
    out = subprocess.run([sys.executable, "-m", "dealer.arena", "play", "--game", "kuhn2p", "--hands", "30",
                          f"{name}:Folder:limit=1", "call", "--runs-dir", str(tmp_path / "runs"), "--json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=90,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["matches"][0]["complete"] and doc["results"][0]["hands"] == 30


def test_the_bot_command_takes_a_plugin(plugin, capsys):
    # a port nobody listens on: the spec is accepted and the bot reaches the connection step (exit 3)
    assert bot_main(["127.0.0.1", "9", "--game", "kuhn2p", "--strategy", f"{plugin}:Folder", "--retry", "0"]) == 3
    assert bot_main(["127.0.0.1", "9", "--game", "kuhn2p", "--strategy", f"{plugin}:Nope"]) == 2
    assert "has no 'Nope'" in capsys.readouterr().err


def test_the_library_plays_a_match_at_the_dealer(plugin, tmp_path):
    folder_cls, _ = resolve(f"{plugin}:Folder")  # loaded from the current folder, as the commands do

    async def match():
        async with dealer_process(tmp_path, ["libmatch", "kuhn2p", "40", "5", "mine", "caller", "-q"]) as (proc, ports):
            codes = await asyncio.gather(
                acpcbot.play_async("127.0.0.1", ports[0], folder_cls, game="kuhn2p", name="mine", seed=1,
                                   params={"limit": 0}),
                acpcbot.play_async("127.0.0.1", ports[1], "call", game="kuhn2p", name="caller"))
            await asyncio.wait_for(proc.wait(), 30)
            return codes, proc.returncode

    codes, dealer_status = asyncio.run(match())
    assert codes == [0, 0] and dealer_status == 0
    lines = [line for line in (tmp_path / "libmatch.log").read_text().splitlines() if line.startswith("STATE:")]
    assert len(lines) == 40
    # "mine" never calls a bet and "caller" never bets: every hand is checked down to a showdown
    assert all(line.split(":")[2].startswith("cc") for line in lines)


def test_the_blocking_library_call_returns_the_exit_status():
    # nothing listens on port 9: the blocking form returns what the command would (3: dealer unreachable)
    assert acpcbot.play("127.0.0.1", 9, "call", game="kuhn2p", retry=0) == 3
    with pytest.raises(TypeError, match="not int"):
        acpcbot.play("127.0.0.1", 9, 42, game="kuhn2p")


def test_folding_rule_of_the_fixture_bot(plugin):
    from acpcbot.world import View

    s = create(f"{plugin}:Folder:limit=0", load_game("kuhn2p"), 1)
    assert s.act(View.parse("MATCHSTATE:1:0:r:|Qs", load_game("kuhn2p")), 0) == FOLD
    assert s.act(View.parse("MATCHSTATE:0:0::Ks|", load_game("kuhn2p")), 0) == CALL


def test_a_plugin_beside_a_recipe_is_found_from_another_folder(tmp_path, capsys, monkeypatch):
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "beside_recipe_bot.py").write_text(BOT)
    (recipes / "r.toml").write_text('game = "kuhn2p"\nhands = 20\ntransport = "memory"\n'
                                    'seats = ["beside_recipe_bot:Folder", "call"]\n')
    monkeypatch.chdir(tmp_path)
    try:
        assert match_main(["run", "recipes/r.toml", "--runs-dir", str(tmp_path / "runs"), "--json"]) == 0
    finally:
        sys.modules.pop("beside_recipe_bot", None)
    assert json.loads(capsys.readouterr().out)["results"][0]["hands"] == 20


def test_a_relative_plugin_path_is_read_where_it_is_given_also_over_tcp(tmp_path):
    # issue 32: the seats run in folders of their own, where "bots" named nothing (`module ... (None) has no ...`)
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "relpath_plugin_bot.py").write_text(BOT)
    out = subprocess.run([sys.executable, "-m", "dealer.arena", "play", "--game", "kuhn2p", "--hands", "20",
                          "relpath_plugin_bot:Folder", "call", "--runs-dir", str(tmp_path / "runs"), "--json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=90,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), ACPCBOT_PLUGIN_PATH="bots"))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["matches"][0]["complete"]


def test_a_relative_plugin_path_is_passed_to_the_seats_made_absolute(tmp_path, monkeypatch):
    from dealer.arena.tcp import child_env

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACPCBOT_PLUGIN_PATH", os.pathsep.join(["bots", "", str(tmp_path / "abs")]))
    assert child_env()["ACPCBOT_PLUGIN_PATH"] == os.pathsep.join([str(tmp_path / "bots"), str(tmp_path / "abs")])
    assert child_env(["/recipe"])["ACPCBOT_PLUGIN_PATH"].split(os.pathsep)[:2] == ["/recipe", str(tmp_path / "bots")]


@pytest.fixture
def shadowing_folder(tmp_path, monkeypatch):
    """A folder ``shadowed_bot/`` (no __init__.py) in a folder on the Python path, as the current folder is for
    ``python -m``; yields the folder holding it."""
    (tmp_path / "shadowed_bot").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    yield tmp_path
    sys.modules.pop("shadowed_bot", None)


def test_a_folder_named_like_the_plugin_module_is_named_in_the_error(shadowing_folder):
    # issue 32: it said `module shadowed_bot (None) has no 'Folder'`
    with pytest.raises(StrategySpecError) as err:
        resolve("shadowed_bot:Folder")
    text = str(err.value)
    assert f"'shadowed_bot' is the folder {shadowing_folder / 'shadowed_bot'} (it has no __init__.py)" in text
    assert "a folder named like the module shadows it" in text and "(None)" not in text


def test_the_module_on_the_plugin_path_wins_over_a_folder_of_its_name(shadowing_folder, monkeypatch):
    (shadowing_folder / "bots").mkdir()
    (shadowing_folder / "bots" / "shadowed_bot.py").write_text(BOT)
    monkeypatch.setenv("ACPCBOT_PLUGIN_PATH", "bots")
    cls, values = resolve("shadowed_bot:Folder:limit=2")
    assert cls.__name__ == "Folder" and values == {"limit": 2}


def test_the_library_names_a_plugin_class_in_a_parameter_error(plugin):
    # issue 32: acpcbot.play(..., TightBot, params={"bett": 0.8}) said "strategy '' has no parameter bett"
    from acpcbot.library import build_strategy

    cls, _ = resolve(f"{plugin}:Folder")
    with pytest.raises(TypeError, match=r"strategy 'Folder' has no parameter limt \(parameters: limit\)"):
        build_strategy(cls, load_game("kuhn2p"), 1, {"limt": 1})
