"""Check that a run's figures did not move: results.json against the same run analysed again, or against another run.

    .venv/bin/python tools/same_figures.py RUN_DIR [RUN_DIR ...]
        analyses each run folder again from its dealer logs with the code checked out and compares every
        figure with the results.json the folder holds (written by the code of the run, maybe an older one)
    .venv/bin/python tools/same_figures.py --against OTHER_RUN_DIR RUN_DIR
        compares two runs' results.json (the same recipe and seed played twice, e.g. before and after a change)

Compared: every field of results.json but the run's and matches' timing, folder and file names.  Exit
status 0 when every figure is identical, 1 otherwise (each difference printed as PATH: before -> after).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: fields that say when and where, not what: left out of the comparison
IGNORED = {"seconds", "run_dir", "started", "finished", "date", "files", "name", "label"}


def differences(before: Any, after: Any, path: str = "") -> Iterator[str]:
    """PATH: before -> after for every leaf that differs (dict keys compared as sets)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key in IGNORED:
                continue
            if key not in before or key not in after:
                yield f"{path}/{key}: {'missing' if key not in before else before[key]!r} -> " \
                      f"{'missing' if key not in after else after[key]!r}"
                continue
            yield from differences(before[key], after[key], f"{path}/{key}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (b, a) in enumerate(zip(before, after)):
            yield from differences(b, a, f"{path}[{i}]")
    elif before != after:
        yield f"{path or '/'}: {before!r} -> {after!r}"


def reanalysed(run_dir: Path) -> dict[str, Any]:
    """The results document of ``run_dir`` computed again from its logs by the current code."""
    from acpcbot.gamedef import load_game
    from dealer.arena.results import results_document
    from dealer.arena.runner import _game_arg

    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    game = load_game(_game_arg(doc["game"]))
    switched_off = any("--no-aivat" in note for note in (doc.get("aivat") or {}).get("notes", []))
    again = results_document(name=doc["name"], mode=doc["mode"], game_name=doc["game"], game=game,
                             hands=doc["hands"], seed=doc["seed"], duplicate=doc["duplicate"],
                             transport=doc["transport"], run_dir=run_dir, players=doc["players"],
                             records=doc["matches"], seconds=doc["seconds"], with_aivat=not switched_off).doc
    for key in ("partial",):
        if key in doc:
            again[key] = doc[key]
    return again


def main(argv: list[str] | None = None) -> int:
    """Compare and print the differences; 0 when there are none."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--against", type=Path, help="another run folder whose results.json is the reference")
    args = parser.parse_args(argv)
    bad = 0
    for run in args.runs:
        mine = json.loads((run / "results.json").read_text(encoding="utf-8"))
        if args.against is not None:
            before = json.loads((args.against / "results.json").read_text(encoding="utf-8"))
            after = mine
        else:
            before, after = mine, reanalysed(run)
        diffs = list(differences(before, after))
        print(f"{run}: {'identical figures' if not diffs else f'{len(diffs)} differences'}")
        for d in diffs[:20]:
            print("  " + d)
        bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
