"""The measured figures of the docs, generated from the committed result files in docs/results/ (`make docs-results`).

    python tools/docs_results.py                     # rewrite the generated parts of README.md and docs/*.md
    python tools/docs_results.py --check             # exit 1 naming each generated part that is out of date
    python tools/docs_results.py record NAME SOURCE [--command CMD] [--svg FILE]
                                                     # keep a run's results.json (SOURCE: a run folder or a JSON
                                                     # file) as docs/results/NAME.json, with date, machine, load

Every figure the docs show is a table between ``<!-- results:NAME -->`` and ``<!-- /results -->`` (or the
README's one-line caption, ``<!-- results:NAME:caption -->``), rendered here from ``docs/results/NAME.json``;
nothing between the markers is written by hand.  A result file is either an ``acpc-match`` results.json (a
``hero`` run: one row per opponent) or a table ``{"title", "unit", "columns", "rows"}``; both carry
``"measured": {"date", "machine", "load", "command"}``.  One unit per table: mbb/hand, the interval the
95% half-width (the duplicate interval where the run is duplicate: over deals, each averaged over its seatings).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
BLOCK = re.compile(r"(<!-- results:([\w.-]+)(:caption)? -->)(.*?)(<!-- /results -->)", re.S)


def load(name: str) -> dict[str, Any]:
    """The committed result file ``docs/results/NAME.json``."""
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise SystemExit(f"docs_results: no result file {path.relative_to(ROOT)} for the block 'results:{name}'")
    return json.loads(path.read_text(encoding="utf-8"))


def signed(x: float | None, digits: int = 0) -> str:
    """``+20,085``; an em dash for no figure."""
    return "—" if x is None else f"{x:+,.{digits}f}"


def interval(x: float | None, digits: int = 0) -> str:
    """``± 2,482``; an em dash for no figure."""
    return "—" if x is None else f"± {x:,.{digits}f}"


def measured_line(doc: dict[str, Any]) -> str:
    """Where a table's figures come from: date, machine, load and the command, in one line."""
    m = doc.get("measured", {})
    parts = [f"measured {m.get('date', 'on an unrecorded date')}", f"on {m.get('machine', 'an unrecorded machine')}",
             f"load average {m.get('load', 'not recorded')}"]
    if isinstance(m.get("seconds"), (int, float)):
        parts.append(f"{m['seconds']:,.0f} s")
    elif m.get("seconds"):  # a time said in words, e.g. a range over several runs
        parts.append(str(m["seconds"]))
    line = "*" + ", ".join(parts) + "*"
    if m.get("command"):
        line += f" — `{m['command']}`"
    if m.get("source"):
        line += f" ({m['source']})"
    return line


def hero_rows(doc: dict[str, Any]) -> tuple[str, list[list[str]]]:
    """A results.json of a hero run: the hero's winnings against each opponent (crosstable row), and overall."""
    hero = doc["results"][0]
    cross = doc.get("crosstable") or {}
    names = cross.get("players", [])
    dup = bool(doc.get("duplicate"))
    rows = []
    if names:
        i = names.index(hero["player"])
        for j, other in enumerate(names):
            if j != i and cross["mbb_per_hand"][i][j] is not None:
                # in a hero run an opponent plays the hero only: its hands are the hands of this pairing
                theirs = next(r for r in doc["results"] if r["player"] == other)
                rows.append([f"`{_strategy(doc, other)}`", signed(cross["mbb_per_hand"][i][j]),
                             interval(cross["ci95"][i][j]), f"{theirs['hands']:,}"])
    key = "duplicate_" if dup else ""
    rows.append(["**all opponents**", signed(hero.get(f"{key}mbb_per_hand")), interval(hero.get(f"{key}ci95")),
                 f"{hero['hands']:,}"])
    if hero.get(f"aivat_{key}mbb_per_hand") is not None:
        rows.append(["all opponents, AIVAT", signed(hero[f"aivat_{key}mbb_per_hand"]),
                     interval(hero.get(f"aivat_{key}ci95")), f"{hero['hands']:,}"])
    title = (f"`{hero['strategy']}` against each opponent, {doc['game']}, {doc['hands']:,} hands a match"
             f"{', duplicate' if dup else ''}, seed {doc['seed']}")
    return title, rows


def _strategy(doc: dict[str, Any], player: str) -> str:
    return next((p["strategy"] for p in doc.get("players", []) if p["player"] == player), player)


def policy_rows(doc: dict[str, Any]) -> list[list[str]]:
    """What a shipped blueprint's files record of how they were made (read from the files themselves)."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from acpcbot.solve.blueprint_train import read_policy

    _, meta = read_policy(ROOT / doc["policy_file"])
    with np.load(ROOT / doc["buckets_file"]) as buckets:
        build = float(buckets["build_seconds"])
    return [["iterations", f"{meta['iterations']:,} ({meta['algorithm'].upper()})"],
            ["training", f"{meta['train_seconds']:,.0f} s"],
            ["abstract exploitability of the average strategy", f"{meta['average_mbb']:.2f}"],
            ["abstract exploitability of the shipped (quantised) policy", f"{meta['shipped_mbb']:.2f}"],
            ["card buckets (flop, turn, river)", ", ".join(map(str, meta["k"]))],
            ["building the buckets", f"{build:,.0f} s"]]


def render_table(name: str) -> str:
    """The Markdown of one result file: the line saying where it comes from, then the table."""
    doc = load(name)
    if "policy_file" in doc:
        title, rows, columns = doc["title"], policy_rows(doc), ["what", "value"]
    elif "results" in doc:
        title, rows = hero_rows(doc)
        dup = "duplicate 95% interval" if doc.get("duplicate") else "95% interval"
        columns = ["opponent", "mbb/hand", dup, "hands"]
    else:
        title, rows, columns = doc["title"], [[str(c) for c in r] for r in doc["rows"]], doc["columns"]
    out = [f"**{title}** (unit: {doc.get('unit', 'mbb/hand')})", "", measured_line(doc), "",
           "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def render_caption(name: str) -> str:
    """The README's one line under the headline picture: the hero's overall figure, its interval and its date."""
    doc = load(name)
    hero = doc["results"][0]
    m = doc.get("measured", {})
    return (f"*`make selfmatch`: `{hero['strategy']}` against the studies' players, heads-up no-limit in duplicate: "
            f"{signed(hero['duplicate_mbb_per_hand'])} mbb/hand, duplicate 95% interval "
            f"{interval(hero['duplicate_ci95'])}, over {hero['hands']:,} hands ({m.get('date', 'undated')}); "
            f"each bar one opponent, the whisker its interval. Every figure: [docs/results.md](docs/results.md).*")


def regenerate(text: str) -> str:
    """``text`` with every results block rendered afresh from its result file."""
    def block(m: re.Match[str]) -> str:
        body = render_caption(m.group(2)) if m.group(3) else render_table(m.group(2))
        return f"{m.group(1)}\n{body}\n{m.group(5)}"
    return BLOCK.sub(block, text)


def documents() -> list[Path]:
    """The files that may hold generated blocks."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def write_all(check: bool) -> int:
    """Rewrite (or, with ``check``, compare) every generated block; 1 when a checked one is out of date."""
    stale = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        fresh = regenerate(text)
        if fresh != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(fresh, encoding="utf-8")
    if check and stale:
        print(f"docs_results: out of date (run make docs-results): {', '.join(map(str, stale))}", file=sys.stderr)
        return 1
    for path in stale:
        print(f"rewrote {path}")
    return 0


def machine() -> str:
    """This machine in a few words: processor count, system and Python."""
    return f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"


def record(name: str, source: Path, command: str | None, svg: Path | None, load_text: str | None) -> int:
    """Keep ``source`` (a run folder's results.json, or a JSON file) as docs/results/NAME.json with its context."""
    path = source / "results.json" if source.is_dir() else source
    doc = json.loads(path.read_text(encoding="utf-8"))
    when = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    doc.pop("run_dir", None)  # a path on the machine that ran it
    for match in doc.get("matches", []):
        match.pop("files", None)
    seconds = doc.get("seconds")
    doc["measured"] = {"date": when, "machine": machine(),
                       "load": load_text or "%.1f %.1f %.1f (when recorded)" % os.getloadavg(),
                       "command": command, "seconds": seconds}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if svg is None and source.is_dir() and (source / "report.svg").is_file():
        svg = source / "report.svg"
    if svg is not None and name == "main-job":
        shutil.copyfile(svg, ROOT / "docs" / "main-job-report.svg")
    print(f"kept {path} as docs/results/{name}.json")
    return write_all(check=False)


def main(argv: list[str] | None = None) -> int:
    """Run the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when a generated part is stale")
    sub = parser.add_subparsers(dest="command")
    rec = sub.add_parser("record", help="keep a run's results as docs/results/NAME.json")
    rec.add_argument("name", help="the result's name (main-job: the headline picture and the README caption)")
    rec.add_argument("source", type=Path, help="a run folder or a JSON file")
    rec.add_argument("--command", dest="run_command", help="the command that made it, as the docs show it")
    rec.add_argument("--svg", type=Path, help="the picture to keep with it (default: the run folder's report.svg)")
    rec.add_argument("--load", help="the load average while it ran (default: now's)")
    args = parser.parse_args(argv)
    if args.command == "record":
        return record(args.name, args.source, args.run_command, args.svg, args.load)
    return write_all(args.check)


if __name__ == "__main__":
    sys.exit(main())
