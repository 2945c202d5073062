"""The README works as written: every command in it parses (and names strategies, games, recipes and modules that
exist), its example bot plays, its links stay inside the repository, its contents list matches its sections."""

from __future__ import annotations

import json
import os
import re
import shlex
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PROGRAMS = ("acpc-match", "acpcbot", "acpc-dealer", "python")
# placeholders the README uses for what only the reader knows
PLACEHOLDERS = {"HOST": "127.0.0.1", "PORT": "9", "RUN_DIR": "/nonexistent/run", "RUN_A": "/nonexistent/a",
                "RUN_B": "/nonexistent/b", "POLICY.json": "policy.json", "GAME": "leduc",
                "matchName.log": "match.log"}


def blocks(kinds: tuple[str, ...]) -> list[str]:
    """The fenced code blocks of the given kinds ("" is a fence with no kind)."""
    return [m.group(2) for m in re.finditer(r"(?ms)^```(\w*)\n(.*?)^```", README) if m.group(1) in kinds]


def commands() -> list[str]:
    """Every command line of the runnable blocks (``` and ```sh), comments cut."""
    out = []
    for block in blocks(("", "sh")):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def test_console_scripts_are_always_called_from_the_venv():
    bare = [c for c in commands() if c.split()[0] in PROGRAMS]
    assert bare == []  # a fresh clone has no acpc-match on PATH: every command says .venv/bin/
    assert "activate" in README


def test_no_reference_outside_the_repository():
    assert "../" not in README
    for target in re.findall(r"\]\(([^)#:]+)\)", README):
        assert (ROOT / target).exists(), target


def test_the_contents_list_names_real_sections():
    def anchor(title: str) -> str:
        return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")

    anchors = {anchor(t) for t in re.findall(r"(?m)^#{1,3} (.*)$", README)}
    linked = re.findall(r"\]\(#([^)]+)\)", README)
    assert len(linked) >= 10 and set(linked) <= anchors
    assert README.index("## Contents") < README.index("## Quick start") < README.index("# Reference")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder like a fresh clone's, with what the README's examples name: mybot.py, a program, a game file."""
    (tmp_path / "mybot.py").write_text(example_bot())
    bot = tmp_path / "example_player"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    from acpcbot.gamedef import load_game

    (tmp_path / "holdem.game").write_text(load_game("hunl").to_text())
    (tmp_path / "my.npz").symlink_to(ROOT / "acpcbot" / "data" / "learner2008_nolimit.npz")  # what 'train' writes
    for name in ("matches", "tools", "benchmarks", "acpcbot", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    import sys
    sys.modules.pop("mybot", None)


def example_bot() -> str:
    """The example bot's source, as the README gives it."""
    start = README.index("Save this as `mybot.py`")
    return blocks(("python",))[[i for i, m in enumerate(re.finditer(r"(?ms)^```python\n", README))
                                if m.start() > start][0]]


def check(command: str) -> None:
    """Parse one README command as its program would, resolving every name it gives; fail with the reason."""
    words = [PLACEHOLDERS.get(w, w) for w in shlex.split(command)]
    for i, w in enumerate(words):
        if w in (">", "<", "|", "&&"):  # the shell's part of the line: redirections, pipes
            words = words[:i]
            break
    program = Path(words[0]).name
    if words[0] in ("make", "git", "cd") or words[0].startswith("git"):
        return
    assert words[0].startswith(".venv/bin/"), command
    args = words[1:]
    if program == "acpc-match":
        from dealer.arena import cli
        from dealer.arena.recipes import load_recipe

        ns = cli.build_parser().parse_args(args)
        if ns.command in ("play", "tournament"):
            cli.plan_from_args(ns)
        elif ns.command == "run":
            load_recipe(ns.recipe)
    elif program == "acpcbot":
        from acpcbot import cli
        from acpcbot.gamedef import load_game
        from acpcbot.strategies.registry import create, with_absolute_paths

        ns = cli.build_parser().parse_args(args)
        if ns.strategy:
            create(with_absolute_paths(ns.strategy, os.getcwd()), load_game(ns.game), 1)
    elif program == "acpc-dealer":
        from dealer.cli import parse_args

        if args != ["--version"]:
            parse_args(args)
    elif program == "python":
        if args[0] == "-m":
            assert find_spec(args[1]) is not None, f"no module {args[1]}"
        else:
            assert Path(args[0]).is_file(), f"no file {args[0]}"
    else:
        raise AssertionError(f"unknown program in {command!r}")


def test_every_command_parses(workdir):
    cmds = commands()
    assert len(cmds) >= 30
    for command in cmds:
        try:
            check(command)
        except SystemExit as exc:
            if exc.code == 0:  # --version and --help print and leave
                continue
            pytest.fail(f"{command!r}: the command line does not parse (exit {exc.code})")


def test_the_example_bot_plays(workdir, capsys):
    from dealer.arena.cli import main

    status = main(["play", "--game", "hunl", "--hands", "200", "--seed", "3", "--duplicate", "--transport", "memory",
                   "mybot:TightBot:bet=0.75", "call", "--runs-dir", str(workdir / "runs"), "--json"])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    bot = doc["results"][0]
    assert bot["player"] == "mybot-TightBot-bet-0.75" and bot["hands"] == 400
    assert 0 < bot["pfr"] < 1  # it raises some hands and not others
    assert len(example_bot().splitlines()) <= 35


def test_the_main_job_time_is_measured_not_guessed():
    # the figure says when, where and under what load it was measured
    assert re.search(r"took \d+ minutes? \d+ s \(\d+ s\) on this machine\s+\(2 cores, \d{4}-\d\d-\d\d", README)
    assert "about a minute" not in README
