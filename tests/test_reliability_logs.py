"""Merge and resume take in only whole, consistent dealer logs (issue 34 items 3, 7 and 9, issue 32 items 10):
a cut or edited log is refused by merge with one line naming the file and played again by resume, a log that is a
folder or a FIFO is refused without a traceback, and resume never loads plugin folders named by plan.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from dealer.arena.cli import main
from dealer.arena.recipes import Entry, build_plan
from dealer.arena.runner import execute


def _run(tmp_path: Path, name: str = "r", hands: int = 50, seed: int = 4) -> Path:
    plan = build_plan(name=name, game="kuhn2p", hands=hands, seed=seed, duplicate=False, mode="play",
                      entries=[Entry("a", "random"), Entry("b", "call")], transport="memory", parallel=1)
    return Path(execute(plan, tmp_path / "runs")["run_dir"])


def _merge_error(capsys, *folders: Path, runs: Path) -> str:
    assert main(["merge", *map(str, folders), "--runs-dir", str(runs)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not runs.exists() or not any(runs.iterdir())  # nothing left behind
    return err


def _cut(log: Path, keep_states: int) -> None:
    """Keep the header and ``keep_states`` STATE lines, the last one torn in half."""
    lines = log.read_text().splitlines(keepends=True)
    out, states = [], 0
    for line in lines:
        if line.startswith("STATE:"):
            states += 1
            if states == keep_states:
                out.append(line[: len(line) // 2])
                break
        out.append(line)
    log.write_text("".join(out))


def test_merge_refuses_a_log_cut_short(tmp_path, capsys):
    run = _run(tmp_path)
    log = run / "match-000.log"
    _cut(log, 33)
    err = _merge_error(capsys, run, runs=tmp_path / "merged")
    assert str(log) in err and "damaged" in err


def test_merge_refuses_a_log_with_hands_deleted(tmp_path, capsys):
    run = _run(tmp_path)
    log = run / "match-000.log"
    lines = log.read_text().splitlines(keepends=True)
    states = [i for i, line in enumerate(lines) if line.startswith("STATE:")]
    log.write_text("".join(line for i, line in enumerate(lines) if i not in states[5:16]))  # 11 hands gone
    err = _merge_error(capsys, run, runs=tmp_path / "merged")
    assert str(log) in err and "SCORE" in err


def test_merge_refuses_a_log_that_is_a_folder_or_a_fifo(tmp_path, capsys):
    run = _run(tmp_path)
    log = run / "match-000.log"
    log.unlink()
    log.mkdir()
    err = _merge_error(capsys, run, runs=tmp_path / "merged")
    assert str(log) in err and "folder" in err
    log.rmdir()
    os.mkfifo(log)
    err = _merge_error(capsys, run, runs=tmp_path / "merged")  # never opened: a FIFO would block
    assert str(log) in err and "FIFO" in err


def test_merge_refuses_a_file_name_outside_the_run_folder(tmp_path, capsys):
    run = _run(tmp_path)
    doc = json.loads((run / "results.json").read_text())
    doc["matches"][0]["files"]["transcript"] = "../../secret"
    (run / "results.json").write_text(json.dumps(doc))
    err = _merge_error(capsys, run, runs=tmp_path / "merged")
    assert "../../secret" in err


def test_merge_error_names_the_source_not_a_deleted_copy(tmp_path, capsys):
    run = _run(tmp_path)
    doc = json.loads((run / "results.json").read_text())
    doc["matches"][0]["complete"] = False  # an unfinished match: its hands so far would count
    (run / "results.json").write_text(json.dumps(doc))
    (run / "match-000.log").write_text("STATE:0:garbage\n")
    err = _merge_error(capsys, run, runs=tmp_path / "merged")
    assert str(run / "match-000.log") in err and str(tmp_path / "merged") not in err


def test_merge_of_whole_logs_still_works(tmp_path, capsys):
    a, b = _run(tmp_path, "a", seed=1), _run(tmp_path, "b", seed=2)
    assert main(["merge", str(a), str(b), "--runs-dir", str(tmp_path / "merged"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["hands"] for m in doc["matches"]] == [50, 50] and all(m["complete"] for m in doc["matches"])


def test_resume_plays_a_cut_log_again_instead_of_keeping_it(tmp_path, capsys):
    run = _run(tmp_path)
    whole = json.loads((run / "results.json").read_text())["results"]
    _cut(run / "match-000.log", 33)
    assert main(["resume", str(run), "--json"]) == 0
    out = capsys.readouterr()
    assert "match-000.log" in out.err and "played again" in out.err
    doc = json.loads(out.out)
    assert doc["matches"][0]["complete"] and doc["results"] == whole  # same seed: the same 50 hands again
    assert (run / "match-000.log").read_text().count("STATE:") == 50


def test_resume_without_results_plays_an_edited_log_again(tmp_path, capsys):
    run = _run(tmp_path)
    whole = json.loads((run / "results.json").read_text())["results"]
    (run / "results.json").unlink()
    log = run / "match-000.log"
    lines = log.read_text().splitlines(keepends=True)
    states = [i for i, line in enumerate(lines) if line.startswith("STATE:")]
    log.write_text("".join(line for i, line in enumerate(lines) if i not in states[5:16]))  # SCORE stays
    assert main(["resume", str(run), "--json"]) == 0
    out = capsys.readouterr()
    assert "SCORE" in out.err
    assert json.loads(out.out)["results"] == whole


PLANTED = '''
from pathlib import Path
Path(__file__).with_name("PLANTED-RAN").write_text("x")
from acpcbot.strategies.simple import CallStrategy as Bot
'''


def test_resume_never_loads_plugin_folders_named_by_plan_json(tmp_path, capsys, monkeypatch):
    plugins = tmp_path  # the folder the run started in, as the command line records it
    (plugins / "mybot34.py").write_text("from acpcbot.strategies.simple import CallStrategy as Bot\n")
    plan = build_plan(name="p", game="kuhn2p", hands=5, seed=1, duplicate=False, mode="play",
                      entries=[Entry("a", "mybot34:Bot"), Entry("b", "call")], transport="memory", parallel=1)
    monkeypatch.chdir(tmp_path)
    run = Path(execute(plan, tmp_path / "runs", plugin_dirs=[str(plugins)])["run_dir"])
    assert (run / "match-000.log").is_file()
    (run / "results.json").unlink()
    (run / "match-000.log").unlink()
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "evil.py").write_text(PLANTED)
    doc = json.loads((run / "plan.json").read_text())
    doc["plugin_dirs"] = [str(planted)]
    doc["players"][0]["strategy"] = "evil:Bot"
    (run / "plan.json").write_text(json.dumps(doc))
    assert main(["resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "--plugin-dir" in err and str(planted) in err and len(err.strip().splitlines()) == 1
    assert not (planted / "PLANTED-RAN").exists()


_LIMITED = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))\n"
    "from dealer.arena.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n")


def test_a_full_disk_reports_every_cut_file_not_only_results_json(tmp_path):
    import subprocess
    import sys
    runs = tmp_path / "runs"
    root = Path(__file__).resolve().parents[1]
    # 2,000 bytes: plan.json fits; the log is cut near hand 50 and results.json (some 2.4 KB) cannot be written
    run = subprocess.run([sys.executable, "-c", _LIMITED, "2000", "play", "--game", "kuhn2p", "--hands", "2000",
                          "--transport", "memory", "--runs-dir", str(runs), "call", "call"], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(root)))
    assert "Traceback" not in run.stderr and run.returncode == 2, run.stderr[-2000:]
    errors = [line for line in run.stderr.splitlines() if line.startswith("acpc-match: error")]
    assert len(errors) == 1 and "results.json" in errors[0]
    assert "match-000" in errors[0] and "also cut short" in errors[0]


def test_run_names_cannot_climb_or_hide(tmp_path, capsys):
    for name in ("..", "../x", ".hidden"):
        assert main(["play", "--game", "kuhn2p", "--hands", "2", "--transport", "memory", "--name", name,
                     "--runs-dir", str(tmp_path / "runs"), "--quiet", "call", "call"]) == 0
    names = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert all(not n.startswith(".") for n in names) and len(names) == 3
    assert not [p for p in tmp_path.iterdir() if p.name != "runs"]


def test_a_recipe_with_a_huge_number_says_so_in_its_own_words(tmp_path, capsys):
    recipe = tmp_path / "big.toml"
    recipe.write_text(f'game = "kuhn2p"\nhands = {"9" * 5000}\nplayers = ["call", "call"]\n')
    assert main(["run", str(recipe)]) == 2
    err = capsys.readouterr().err
    assert "4,300 digits" in err and "set_int_max_str_digits" not in err
