"""The dealer's files when writing fails: disk full, a file-size limit, a broken stream (issue 13, item 2).

A match must not be lost to a file it cannot write: the dealer keeps
playing, says so once, leaves no torn line (logcheck reads the log it
leaves: the hands before the failure, whole), and exits 1 at the end.
Faults are injected with a file-size limit (RLIMIT_FSIZE: the system
refuses to grow the file, as a full disk does), /dev/full and failing file
objects.
"""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from dealerkit import always_call, run_player

from acpcbot.logcheck import check_log
from dealer.logs import LogWriter, Transcript

resource = pytest.importorskip("resource")  # POSIX only

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0


class FailingStream(io.RawIOBase):
    """A binary stream that takes ``budget`` bytes, then fails every write as a full disk does."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.data = bytearray()
        self.attempts = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.attempts += 1
        if len(data) > self.budget:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.budget -= len(data)
        self.data += data
        return len(data)


def test_a_transcript_on_a_failing_stream_reports_once_and_writes_nothing_more():
    stream = FailingStream(budget=60)
    reports = []
    tr = Transcript(stream)
    tr.on_failure = reports.append
    tr.problem("WARNING: first")
    tr.flush()
    assert tr.failed is None and stream.data == b"WARNING: first\n"
    tr.problem("WARNING: " + "x" * 100)
    tr.flush()  # fails: must not raise
    assert tr.failed is not None and "No space left on device" in tr.failed
    tr.problem("WARNING: third")
    tr.flush()
    tr.flush()
    assert stream.attempts == 2  # nothing is tried after the failure
    assert reports == [tr.failed] and reports[0].startswith("ERROR: cannot write the transcript")


# Lines of 100 bytes through a writer whose file may grow to LIMIT bytes (not a multiple of 100).
_CHILD = textwrap.dedent("""
    import json, resource, sys
    from dealer.logs import LogWriter, TransactionLog
    limit, kind, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    reports = []
    if kind == "log":
        w = LogWriter(path, on_failure=reports.append)
        results = [w.write(("L%03d" % i).ljust(99, ".").encode() + b"\\n") for i in range(30)]
        w.write_lines(["after the failure"])
    else:
        w = TransactionLog(path, on_failure=reports.append)
        results = []
        for i in range(30):
            w.record("STATE:%03d::5d5c|9hQd" % i, "c".ljust(50, "c"), 1_000_000, 1_000_001)
            results.append(w.failed is None)
    w.close()
    print(json.dumps({"results": results, "reports": reports, "failed": w.failed}))
""")


@pytest.mark.parametrize("kind", ["log", "tlog"])
def test_a_file_size_limit_leaves_whole_lines_and_one_report(tmp_path, kind):
    path = tmp_path / f"m.{kind}"
    limit = 1234
    run = subprocess.run([sys.executable, "-c", _CHILD, str(limit), kind, str(path)], capture_output=True,
                         text=True, timeout=TIMEOUT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    data = path.read_bytes()
    assert 0 < len(data) <= limit and data.endswith(b"\n")
    lines = data.split(b"\n")[:-1]
    assert len({len(line) for line in lines}) == 1  # only whole lines: the one cut by the limit is gone
    assert out["results"].count(True) == len(lines) and not any(out["results"][len(lines):])
    assert len(out["reports"]) == 1 and out["reports"][0] == out["failed"]
    assert out["failed"].startswith(f"ERROR: cannot write m.{kind}: File too large")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_reported_once_without_an_exception():
    reports = []
    log = LogWriter("/dev/full", on_failure=reports.append)
    log.write_lines(["# name/game/hands/seed m hunl 1 0"])
    log.write_lines(["STATE:0:f:9hQd|5d5c:-50|50:a|b"])
    log.close()
    assert len(reports) == 1 and "No space left on device" in reports[0] and log.failed == reports[0]


# ------------------------------------------------------------------ the dealer as a process

async def _dealer_under_limit(workdir: Path, limit: int, args: list[str], stderr_file: Path | None = None):
    """``python -m dealer`` whose files may grow to ``limit`` bytes, against two always-call seats."""
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    err = open(stderr_file, "wb") if stderr_file is not None else None
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "dealer", *args, cwd=workdir, preexec_fn=limit_files,
            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=err if err is not None else asyncio.subprocess.PIPE)
    finally:
        if err is not None:
            err.close()
    try:
        first = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)
        ports = [int(p) for p in first.split()]
        players = [asyncio.create_task(run_player(port, args[1], always_call)) for port in ports]
        rest, errors = await asyncio.wait_for(proc.communicate(), TIMEOUT)
        await asyncio.wait_for(asyncio.gather(*players), TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return proc.returncode, (first + rest).decode(), (errors or b"").decode()


def test_the_dealer_finishes_a_match_whose_log_cannot_be_written(tmp_path):
    code, out, err = asyncio.run(_dealer_under_limit(tmp_path, 3000, ["m", "hunl", "100", "1", "a", "b", "-q"]))
    assert "Traceback" not in err
    assert out.splitlines()[-1].startswith("SCORE:")  # every hand was played
    problems = [ln for ln in err.splitlines() if ln.startswith("ERROR")]
    assert problems == ["ERROR: cannot write m.log: File too large; it ends at its last complete line "
                        "and the match goes on without it"]
    assert code == 1
    summary = check_log(tmp_path / "m.log")  # whole lines only: logcheck reads it
    assert 0 < summary.hands < 100 and not summary.score_checked


def test_the_dealer_finishes_a_match_whose_transcript_and_log_cannot_be_written(tmp_path):
    transcript = tmp_path / "m.err"
    code, out, _ = asyncio.run(_dealer_under_limit(tmp_path, 4000, ["m", "hunl", "100", "1", "a", "b"], transcript))
    lines = out.splitlines()
    # stderr cannot carry the news of its own failure: stdout does, before the SCORE line
    assert lines[-1].startswith("SCORE:")
    assert lines[1:-1] == ["ERROR: cannot write the transcript (stderr): File too large; it ends at its last "
                           "complete line and the match goes on without it",
                           "ERROR: cannot write m.log: File too large; it ends at its last complete line "
                           "and the match goes on without it"]
    assert code == 1
    data = transcript.read_bytes()
    assert data.endswith(b"\n") and b"Traceback" not in data
    check_log(tmp_path / "m.log")


def test_a_transaction_file_that_cannot_be_written_does_not_stop_the_match(tmp_path):
    code, out, err = asyncio.run(_dealer_under_limit(tmp_path, 5000, ["m", "hunl", "60", "1", "a", "b", "-q", "-T"]))
    assert out.splitlines()[-1].startswith("SCORE:") and code == 1
    assert [ln for ln in err.splitlines() if ln.startswith("ERROR")] == [
        "ERROR: cannot write m.tlog: File too large; it ends at its last complete line and the match goes on "
        "without it"]
    assert (tmp_path / "m.tlog").read_bytes().endswith(b"\n")
    assert check_log(tmp_path / "m.log").score_checked  # the log itself was small enough
