"""Run the test suite on every core: the test files split into shards of about equal time, one pytest process each.

    python tests/suite.py [-m MARKEXPR] [--jobs N] [FILES...]

``make test`` runs ``-m "not slow"``, ``make soak`` runs ``-m slow``.  A
shard is a list of whole test files (a file's tests share fixtures and
imports); files are dealt out longest first by the time each took last run
with the same mark expression (``make test``'s in
``.pytest_cache/acpcbot-durations.json``, another expression's in a file
named after it, so that ``make soak``'s long matches never skew ``make
test``'s shares; written by every run; a file never timed counts as the
median).  Each shard's output goes to
stdout in one piece when it ends, with its time; the exit status is 0 when
every shard passed (a shard whose files hold no selected test passes),
else the first failing shard's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
QUICK = "not slow"  # make test's mark expression: its times keep the file name they always had
NO_TESTS = 5  # pytest's exit status when nothing was collected


def durations_file(marks: str | None) -> Path:
    """Where the times of runs with mark expression ``marks`` are kept (one file per expression)."""
    if marks == QUICK:
        return CACHE / "acpcbot-durations.json"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", marks).strip("-") if marks else ""
    return CACHE / f"acpcbot-durations-{slug or 'all'}.json"


def load_durations(marks: str | None) -> dict[str, float]:
    """Seconds per test file from the last run with ``marks`` (empty when there was none or it is unreadable)."""
    try:
        data = json.loads(durations_file(marks).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def save_durations(marks: str | None, durations: dict[str, float]) -> None:
    """Keep ``durations`` for the next run with ``marks`` (a cache: a failure to write is not an error)."""
    try:
        CACHE.mkdir(exist_ok=True)
        durations_file(marks).write_text(json.dumps(durations, indent=0, sort_keys=True))
    except OSError:
        pass  # the next run deals the files out less evenly, that is all


def shards(files: list[str], durations: dict[str, float], count: int) -> list[list[str]]:
    """``files`` split into ``count`` lists of about equal total time (longest first, each to the lightest shard)."""
    known = [durations[f] for f in files if f in durations]
    default = statistics.median(known) if known else 1.0
    weight = {f: durations.get(f, default) for f in files}
    out: list[list[str]] = [[] for _ in range(max(1, count))]
    totals = [0.0] * len(out)
    for f in sorted(files, key=lambda f: (-weight[f], f)):
        i = totals.index(min(totals))
        out[i].append(f)
        totals[i] += weight[f]
    return [s for s in out if s]


def file_times(report: Path) -> dict[str, float]:
    """Seconds per test file from a JUnit XML report (collection and fixtures included with the tests)."""
    try:
        tree = ElementTree.parse(report)
    except (OSError, ElementTree.ParseError):
        return {}
    times: dict[str, float] = {}
    for case in tree.iter("testcase"):
        name = case.get("classname", "").split(".")
        module = next((i for i, part in enumerate(name) if part.startswith("test_")), None)
        if module is None:
            continue
        path = "tests/" + name[module] + ".py"
        times[path] = times.get(path, 0.0) + float(case.get("time") or 0.0)
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the shards and return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-m", dest="marks", default=None, help="pytest's mark expression (e.g. 'not slow')")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="pytest processes (default: the cores)")
    ap.add_argument("files", nargs="*", help="test files (default: every tests/test_*.py)")
    args = ap.parse_args(argv)
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in TESTS.glob("test_*.py"))
    durations = load_durations(args.marks)
    parts = shards(files, durations, args.jobs)
    start = time.monotonic()
    results: list[tuple[int, float, str]] = [(0, 0.0, "")] * len(parts)
    lock = threading.Lock()

    with tempfile.TemporaryDirectory() as tmp:
        def run(i: int, part: list[str]) -> None:
            report = Path(tmp) / f"shard{i}.xml"
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
            if args.marks:
                command += ["-m", args.marks]
            began = time.monotonic()
            done = subprocess.run(command + part, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, check=False)
            seconds = time.monotonic() - began
            with lock:
                results[i] = (done.returncode, seconds, done.stdout)
                durations.update(file_times(report))
                tail = done.stdout.strip().splitlines()[-1:] or ["(no output)"]
                print(f"shard {i + 1}/{len(parts)} ({len(part)} files) in {seconds:.0f} s: {tail[0]}", flush=True)

        threads = [threading.Thread(target=run, args=(i, part)) for i, part in enumerate(parts)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    save_durations(args.marks, durations)
    failed = [(i, code, out) for i, (code, _, out) in enumerate(results) if code not in (0, NO_TESTS)]
    for i, _, out in failed:
        print(f"\n===== shard {i + 1} output =====\n{out}", flush=True)
    print(f"{len(files)} files in {len(parts)} shards: {time.monotonic() - start:.0f} s wall, "
          f"{'FAILED' if failed else 'passed'}", flush=True)
    if failed:
        return failed[0][1]
    return NO_TESTS if all(code == NO_TESTS for code, _, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
