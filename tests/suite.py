"""Run the test suite on every core: the test files in chunks, one pytest process per chunk, a chunk per core at a time.

    python tests/suite.py [-m MARKEXPR] [--jobs N] [FILES...]

``make test`` runs ``-m "not slow"``, ``make soak`` runs ``-m slow``.  A
chunk is a list of whole test files (a file's tests share fixtures and
imports): a long file alone, short ones together, the first about half of
a core's share of what is left to deal, the later ones smaller (down to a
twelfth of a core's share of the whole); the chunks go heaviest first to
whichever of the ``--jobs`` workers is free, and the short ones at the end
fill in behind a long one that ran slower than its time said, so the cores
end together even when the times are stale, missing (a fresh checkout, as
in CI) or the machine is busy.  A file's
weight is the time it took last run with the same mark expression
(``make test``'s in ``.pytest_cache/acpcbot-durations.json``, another
expression's in a file named after it, so that ``make soak``'s long
matches never weigh in ``make test``; written by every run; without them,
as in a fresh clone, the copies in ``tests/durations/``; a file never
timed counts as the median).  Each chunk's output goes to stdout in one
piece when it ends, with its time; the exit status is 0 when every chunk
passed (a chunk whose files hold no selected test passes), else the first
failing chunk's.

Each chunk's temporary files (pytest's ``tmp_path`` folders, and through
``TMPDIR`` those of ``tempfile`` and of the processes the tests start)
go to a folder of their own inside the suite's temporary folder, made
in RAM (``/dev/shm``) when the machine has one with room: the tests
write and delete thousands of match logs and run folders, and on a disk
the deletes alone (pytest removing its older numbered folders at each
chunk's end) kept a worker waiting for seconds.  The folder is removed
when the suite ends.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CACHE = ROOT / ".pytest_cache"
#: the times of a run on a 2-core machine, kept with the tests: a fresh clone deals its files out by them
SHIPPED = TESTS / "durations"
QUICK = "not slow"  # make test's mark expression: its times keep the file name they always had
NO_TESTS = 5  # pytest's exit status when nothing was collected


def durations_file(marks: str | None) -> Path:
    """Where the times of runs with mark expression ``marks`` are kept (one file per expression)."""
    if marks == QUICK:
        return CACHE / "acpcbot-durations.json"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", marks).strip("-") if marks else ""
    return CACHE / f"acpcbot-durations-{slug or 'all'}.json"


def chunk_env(temp: Path) -> dict[str, str]:
    """A chunk's environment: its own ``TMPDIR``, and bytecode written even where ``PYTHONDONTWRITEBYTECODE`` is set.

    pytest rewrites every test module's asserts before running it and keeps the result only as bytecode: with
    bytecode off (as on these machines) each run rewrote all of them again, about 7 s of CPU in every run of
    ``make test`` and again in ``make soak``.  The sources' bytecode is already written by the Makefile
    (compileall); the tests' goes beside them in ``tests/__pycache__`` (ignored by git).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TMPDIR"] = str(temp)
    return env


def load_durations(marks: str | None) -> dict[str, float]:
    """Seconds per test file from the last run with ``marks``; without one (a fresh clone, as in CI) the times
    shipped in ``tests/durations/`` for ``make test`` and ``make soak``; empty when neither is readable."""
    for path in (durations_file(marks), SHIPPED / durations_file(marks).name):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return {str(k): float(v) for k, v in data.items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {}


def save_durations(marks: str | None, durations: dict[str, float]) -> None:
    """Keep ``durations`` for the next run with ``marks`` (a cache: a failure to write is not an error)."""
    try:
        CACHE.mkdir(exist_ok=True)
        durations_file(marks).write_text(json.dumps(durations, indent=0, sort_keys=True))
    except OSError:
        pass  # the next run deals the files out less evenly, that is all


CHUNKS_PER_JOB = 2  # the first chunks' share of a core's time; each chunk costs a pytest start (about a second)
#: the smallest share a chunk is packed to, of a core's time: the last chunks are small so that the workers end
#: together even when a long chunk ran slower than its time said (a busy machine)
SMALLEST_SHARE = 12


#: the RAM-backed folder the suite's temporary files go to when it is there, writable and this roomy (bytes free)
RAM_DIR = Path("/dev/shm")
RAM_NEEDED = 2 << 30


def scratch_parent() -> str | None:
    """Where the suite's temporary folder is made: ``RAM_DIR`` when usable, else None (the system's default)."""
    try:
        if RAM_DIR.is_dir() and os.access(RAM_DIR, os.W_OK | os.X_OK) and \
                shutil.disk_usage(RAM_DIR).free >= RAM_NEEDED:
            return str(RAM_DIR)
    except OSError:
        pass
    return None


def weights(files: list[str], durations: dict[str, float]) -> dict[str, float]:
    """Each file's last time; the median of the others for a file never timed (1 s when none was)."""
    known = [durations[f] for f in files if f in durations]
    default = statistics.median(known) if known else 1.0
    return {f: durations.get(f, default) for f in files}


def chunks(files: list[str], durations: dict[str, float], jobs: int) -> list[list[str]]:
    """``files`` in chunks, heaviest first: a file over a chunk's share alone, the lighter ones packed to that share.

    The share shrinks with the time still to be dealt (a 1/CHUNKS_PER_JOB of a core's part of it, down to a
    1/SMALLEST_SHARE of a core's part of the whole): the long chunks start first and the short ones fill in
    behind them, whichever worker ends first taking the next.
    """
    weight = weights(files, durations)
    jobs = max(1, jobs)
    left = sum(weight.values())
    floor = left / (jobs * SMALLEST_SHARE)
    out: list[list[str]] = []
    packed: list[str] = []
    packed_weight = 0.0
    for f in sorted(files, key=lambda f: (-weight[f], f)):
        target = max(floor, left / (jobs * CHUNKS_PER_JOB))
        left -= weight[f]
        if weight[f] >= target:
            out.append([f])
            continue
        if packed and packed_weight + weight[f] > target:  # a chunk ends before it would pass its share
            out.append(packed)
            packed, packed_weight = [], 0.0
        packed.append(f)
        packed_weight += weight[f]
    if packed:
        out.append(packed)
    return sorted(out, key=lambda chunk: -sum(weight[f] for f in chunk))


def file_times(report: Path) -> dict[str, float] | None:
    """Seconds per test file from a JUnit XML report (collection and fixtures included with the tests); None when
    there is no readable report (the chunk's pytest did not get to write one)."""
    try:
        tree = ElementTree.parse(report)
    except (OSError, ElementTree.ParseError):
        return None
    times: dict[str, float] = {}
    for case in tree.iter("testcase"):
        name = case.get("classname", "").split(".")
        module = next((i for i, part in enumerate(name) if part.startswith("test_")), None)
        if module is None:
            continue
        path = "tests/" + name[module] + ".py"
        times[path] = times.get(path, 0.0) + float(case.get("time") or 0.0)
    return times


def chunk_times(report: Path, part: list[str]) -> dict[str, float]:
    """The times of one chunk's files: from its report, and 0 for a file the report shows no test of (it holds
    none the mark expression selects), so that such a file weighs nothing next time instead of the median."""
    times = file_times(report)
    if times is None:
        return {}
    for f in part:
        times.setdefault(f, 0.0)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the chunks and return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-m", dest="marks", default=None, help="pytest's mark expression (e.g. 'not slow')")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="pytest processes at once (default: the cores)")
    ap.add_argument("files", nargs="*", help="test files (default: every tests/test_*.py)")
    args = ap.parse_args(argv)
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in TESTS.glob("test_*.py"))
    durations = load_durations(args.marks)
    parts = chunks(files, durations, args.jobs)
    jobs = max(1, min(args.jobs, len(parts)))
    start = time.monotonic()
    results: list[tuple[int, float, str]] = [(NO_TESTS, 0.0, "")] * len(parts)
    busy = [0.0] * jobs
    todo = list(range(len(parts)))
    lock = threading.Lock()

    with tempfile.TemporaryDirectory(prefix="acpcbot-suite-", dir=scratch_parent()) as tmp:
        def run(i: int, part: list[str], worker: int) -> None:
            report = Path(tmp) / f"chunk{i}.xml"
            temp = Path(tmp) / f"chunk{i}-tmp"  # the chunk's own: tempfile's and its processes' files
            temp.mkdir()
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                       f"--basetemp={Path(tmp) / f'chunk{i}-pytest'}"]
            if args.marks:
                command += ["-m", args.marks]
            began = time.monotonic()
            done = subprocess.run(command + part, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, check=False, env=chunk_env(temp))
            seconds = time.monotonic() - began
            with lock:
                results[i] = (done.returncode, seconds, done.stdout)
                busy[worker] += seconds
                durations.update(chunk_times(report, part))
                tail = done.stdout.strip().splitlines()[-1:] or ["(no output)"]
                print(f"chunk {i + 1}/{len(parts)} ({len(part)} files, worker {worker + 1}) in {seconds:.0f} s: "
                      f"{tail[0]}", flush=True)

        def work(worker: int) -> None:
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop(0)
                run(i, parts[i], worker)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    save_durations(args.marks, durations)
    failed = [(i, code, out) for i, (code, _, out) in enumerate(results) if code not in (0, NO_TESTS)]
    for i, _, out in failed:
        print(f"\n===== chunk {i + 1} output =====\n{out}", flush=True)
    print(f"{len(files)} files in {len(parts)} chunks on {jobs} workers "
          f"({', '.join(f'{b:.0f} s' for b in busy)} busy): {time.monotonic() - start:.0f} s wall, "
          f"{'FAILED' if failed else 'passed'}", flush=True)
    if failed:
        return failed[0][1]
    return NO_TESTS if all(code == NO_TESTS for code, _, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
