"""acpc-match when its files cannot be written: a full disk or a file-size limit (issue 13, items 2 and 13).

An in-memory match whose log cannot be written goes on as the dealer over
TCP does: the log keeps its whole lines, the match is reported as not
finished with an error naming the file and the system's reason, and the
hands that were written are counted.  A results.json, report.svg or
plan.json that cannot be written ends acpc-match with one clear message
and a non-zero status, never a traceback, and never leaves a torn file.
Faults are injected with RLIMIT_FSIZE (the system refuses to grow a file,
as a full disk does) in a child process, /dev/full, and failing writes.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dealerkit import config_for

from acpcbot.logcheck import check_log
from dealer.arena import results as results_module
from dealer.arena.cli import main
from dealer.arena.folders import RunError, match_command
from dealer.arena.memory import play_job, play_match
from dealer.arena.recipes import Entry, Job

resource = pytest.importorskip("resource")  # POSIX only

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120.0
LIMIT = 16384  # the log of 2,000 kuhn hands outgrows it near hand 430; results.json (~2.4 KB) fits

_LIMITED = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))\n"
    "from dealer.arena.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n")


def _acpc_match_limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``acpc-match ARGS`` in a child whose files may grow to ``limit`` bytes."""
    return subprocess.run([sys.executable, "-c", _LIMITED, str(limit), *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _one_run(runs: Path) -> Path:
    (run,) = list(runs.iterdir())
    return run


def test_a_memory_match_whose_log_cannot_be_written_is_reported_and_counted_to_its_last_whole_line(tmp_path):
    runs = tmp_path / "runs"
    run = _acpc_match_limited(LIMIT, "play", "--game", "kuhn2p", "--hands", "2000", "--transport", "memory",
                              "--runs-dir", str(runs), "call", "call")
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode != 0
    folder = _one_run(runs)
    log = folder / "match-000.log"
    data = log.read_bytes()
    assert data.endswith(b"\n") and len(data) <= LIMIT  # no torn line
    hands = sum(1 for line in data.split(b"\n") if line.startswith(b"STATE:"))
    assert 0 < hands < 2000
    assert check_log(log).hands == hands  # logcheck reads what is left
    doc = json.loads((folder / "results.json").read_text())
    (match,) = doc["matches"]
    assert match["complete"] is False
    assert "match-000.log" in match["error"] and "File too large" in match["error"]
    assert [r["hands"] for r in doc["results"]] == [hands, hands]  # the hands written are counted
    # report.svg outgrows the limit too: one clear line naming it, and no torn copy left behind
    errors = [line for line in run.stderr.splitlines() if line.startswith("acpc-match: error")]
    assert len(errors) == 1 and "report.svg" in errors[0] and "File too large" in errors[0], run.stderr
    assert not (folder / "report.svg").exists()
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_the_transcript_of_a_memory_match_names_the_failure_once(tmp_path):
    config = config_for("kuhn2p", 50, 3)
    played = play_match(config, [("a", "call"), ("b", "call")], "/dev/full", tmp_path / "m.err")
    assert not played.finished
    assert played.error == ("ERROR: cannot write full: No space left on device; it ends at its last complete line "
                            "and the match goes on without it")
    lines = (tmp_path / "m.err").read_text().splitlines()
    assert lines[0] == played.error and lines[-1].startswith("SCORE:")  # every hand was still played


def test_a_memory_match_whose_transcript_cannot_be_written_is_not_finished(tmp_path):
    config = config_for("kuhn2p", 20, 3)
    played = play_match(config, [("a", "call"), ("b", "call")], tmp_path / "m.log", "/dev/full")
    assert not played.finished and "cannot write full: No space left on device" in played.error
    assert check_log(tmp_path / "m.log").score_checked  # the log itself is whole


def test_a_seats_warning_file_that_cannot_be_written_is_reported_without_a_traceback(tmp_path, monkeypatch, capsys):
    from dealer.arena import memory

    job = Job(0, (Entry("a", "call"), Entry("b", "call")), 1, 30, 0)
    real = memory.LogWriter

    def clients_to_full(path, *args, **kwargs):  # the seats' warnings go to a full disk
        return real("/dev/full" if str(path).endswith(".clients.err") else path, *args, **kwargs)

    monkeypatch.setattr(memory, "LogWriter", clients_to_full)
    real_play = memory.play_match

    def warn_then_play(*args, **kwargs):
        logging.getLogger("acpcbot.test").warning("a seat's warning")
        return real_play(*args, **kwargs)

    monkeypatch.setattr(memory, "play_match", warn_then_play)
    outcome = play_job(job, "kuhn2p", str(tmp_path))
    assert not outcome.complete and "cannot write full: No space left on device" in outcome.error
    assert "Traceback" not in capsys.readouterr().err


# ------------------------------------------------------------------ acpc-match's own files

def test_results_and_report_that_cannot_be_written_end_acpc_match_with_one_message(tmp_path):
    runs = tmp_path / "runs"
    # plan.json (~500 bytes) fits, results.json does not
    run = _acpc_match_limited(1500, "play", "--game", "kuhn2p", "--hands", "20", "--transport", "memory",
                              "--runs-dir", str(runs), "call", "call")
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2
    folder = _one_run(runs)
    assert run.stderr.strip() == (f"acpc-match: error: cannot write {folder / 'results.json'}: File too large "
                                  f"(the match files are kept; {match_command()} resume {folder} writes it again)")
    assert not (folder / "results.json").exists() and check_log(folder / "match-000.log").score_checked
    # with room again, resume keeps the finished match and writes the results
    assert main(["resume", str(folder), "--json"]) == 0
    assert json.loads((folder / "results.json").read_text())["matches"][0]["complete"] is True


def test_a_plan_that_cannot_be_written_ends_acpc_match_before_any_match(tmp_path):
    runs = tmp_path / "runs"
    run = _acpc_match_limited(100, "play", "--game", "kuhn2p", "--hands", "20", "--transport", "memory",
                              "--runs-dir", str(runs), "call", "call")
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2
    folder = _one_run(runs)
    assert run.stderr.startswith(f"acpc-match: error: cannot write {folder / 'plan.json'}: File too large")
    assert list(folder.iterdir()) == []  # no match was played, no torn plan left


def test_write_outputs_turns_an_os_error_into_a_run_error(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    import acpcbot.atomic

    monkeypatch.setattr(acpcbot.atomic.os, "replace", full)
    with pytest.raises(RunError, match="cannot write .*results.json: No space left on device"):
        results_module.write_text_file(tmp_path / "results.json", "{}\n")
    assert list(tmp_path.iterdir()) == []
