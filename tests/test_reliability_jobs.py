"""Job lines carry no code (issue 34, item 1): every text a ``--print-jobs`` line holds is quoted, a text with a
line break is refused, and the merge hint quotes its folder; a bounded fuzz checks it against shlex."""

from __future__ import annotations

import random
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from dealer.arena import batch
from dealer.arena.batch import acpc_match_program, job_command
from dealer.arena.cli import main
from dealer.arena.recipes import Entry, RecipeError, build_plan


def _plan(spec_a: str = "call", name: str = "x"):
    entries = [Entry("a", spec_a), Entry("b", "call")]
    return build_plan(name=name, game="kuhn2p", hands=3, seed=0, duplicate=False, mode="play", entries=entries,
                      transport="memory", parallel=None)


def test_newline_in_a_parameter_is_refused_not_printed_as_two_lines(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = "lbr:target=call,tname=x\ntouch PWNED #"
    assert main(["play", "--game", "kuhn2p", "--hands", "3", spec, "call", "--print-jobs",
                 "--runs-dir", str(tmp_path / "runs")]) == 2
    out = capsys.readouterr()
    assert out.out == ""  # nothing printed, not even the first half
    assert "line break" in out.err and len(out.err.strip().splitlines()) == 1


def test_newline_in_runs_dir_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--game", "kuhn2p", "--hands", "3", "call", "call", "--print-jobs",
                 "--runs-dir", str(tmp_path / "a\ntouch X #")]) == 2
    assert capsys.readouterr().out == ""


def test_merge_hint_quotes_the_runs_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs dir;$(touch X)"
    assert main(["play", "--game", "kuhn2p", "--hands", "3", "call", "call", "--print-jobs",
                 "--runs-dir", str(runs)]) == 0
    hint = capsys.readouterr().err.strip().splitlines()[-1]
    command = hint.split("when they are done: ", 1)[1]
    words = shlex.split(command)
    assert words[-1] == f"{runs}/call-1-vs-call-2-jobs/match-*"  # one word: the ; and $() are inside it
    assert words[:-1] == [*acpc_match_program(), "merge"]


SHELL = "ab =,:;$()`'\"\\\t#&|<>*?~!{}é-"
BREAKS = "\n\r\x0b\x0c\x1c\x85\u2028\x00"


def _text(rng: random.Random) -> str:
    chars = [rng.choice(SHELL) for _ in range(rng.randint(0, 12))]
    if rng.random() < 0.12:  # now and then a line break (or NUL) somewhere
        chars.insert(rng.randint(0, len(chars)), rng.choice(BREAKS))
    return "".join(chars)


def test_fuzz_every_printed_line_parses_back_to_its_argv_or_is_refused(tmp_path):
    rng = random.Random(34)
    plan = _plan()
    refused = printed = 0
    for _ in range(600):
        spec, root, out = "lbr:tname=" + _text(rng), str(tmp_path / _text(rng)), str(tmp_path / _text(rng))
        name = "n" + _text(rng)
        p = replace(plan, name=name, jobs=[replace(plan.jobs[0], seats=(Entry("a", spec), Entry("b", "call")))])
        try:
            line = job_command(p.jobs[0], p, root, out)
        except RecipeError:
            refused += 1
            assert any(len((t + "x").splitlines()) > 1 or "\0" in t or "\r" in t for t in (spec, root, out, name))
            continue
        printed += 1
        assert len((line + "x").splitlines()) == 1 and "\0" not in line
        words = shlex.split(line)
        assert words[:3] == ["cd", str(Path(root).absolute()), "&&"]
        argv = words[3:]
        assert argv[-2:] == [f"a={spec}", "b=call"]
        assert argv[argv.index("--run-dir") + 1] == str(Path(out).absolute() / "match-000")
        assert argv[argv.index("--name") + 1] == f"{name}-match-000"
        hint = batch.merge_hint(p, out)
        assert shlex.split(hint.split("done: ", 1)[1])[-1] == f"{out}/match-*"
    assert refused > 50 and printed > 50  # both paths were taken


def test_text_with_a_line_break_never_reaches_stdout(tmp_path):
    plan = _plan()
    for bad in ("x\ny", "x\ry", "x\u2028y", "x\x00y"):
        p = replace(plan, jobs=[replace(plan.jobs[0], seats=(Entry("a", f"lbr:tname={bad}"), Entry("b", "call")))])
        with pytest.raises(RecipeError, match="line break"):
            job_command(p.jobs[0], p, tmp_path, tmp_path)
