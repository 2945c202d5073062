"""The plan a run folder keeps (``plan.json``), so that an interrupted run can be finished: what to play, what is done.

``acpc-match`` writes the plan before the first match starts.  A run cut
short (Ctrl-C, SIGTERM, a lost machine) keeps the logs of the matches that
finished; ``acpc-match resume RUN_DIR`` reads the plan back, keeps every
match that finished and plays the others again from their first hand (the
seeds are in the plan, so the deals are the same).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from acpcbot.gamedef import GameDefError, load_game

from .folders import RESULTS, RunError
from .recipes import Entry, Job, Plan
from .results import write_text_file

PLAN = "plan.json"
SCHEMA = 1


def plan_document(plan: Plan, plugin_dirs: list[str]) -> dict[str, Any]:
    """The JSON form of a plan: settings, players and every match's seats and seed."""
    return {"schema": SCHEMA, "name": plan.name, "mode": plan.mode, "game": plan.game_name, "hands": plan.hands,
            "seed": plan.seed, "duplicate": plan.duplicate, "transport": plan.transport, "jobs": plan.parallel,
            "plugin_dirs": plugin_dirs,
            "players": [{"name": e.name, "strategy": e.strategy, "external": e.external} for e in plan.entries],
            "matches": [{"index": j.index, "table": j.table, "seed": j.seed, "hands": j.hands,
                         "seats": [e.name for e in j.seats]} for j in plan.jobs]}


def write_plan(run_dir: Path, plan: Plan, plugin_dirs: list[str]) -> None:
    """Keep the plan in the run folder; RunError naming plan.json when it cannot be written (no match is played)."""
    try:
        write_text_file(run_dir / PLAN, json.dumps(plan_document(plan, plugin_dirs), indent=1) + "\n")
    except RunError as exc:
        raise RunError(f"{exc}; no match was played") from None


def read_plan(run_dir: Path) -> tuple[Plan, list[str]]:
    """The plan kept in a run folder and its plugin folders; RunError naming the file when it cannot be used."""
    path = run_dir / PLAN
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunError(f"{run_dir}: not a run folder acpc-match can resume: cannot read {PLAN}: "
                       f"{exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise RunError(f"{path}: not valid JSON: {exc}") from None
    try:
        game = load_game(data["game"])
        entries = {p["name"]: Entry(p["name"], p.get("strategy"), p.get("external")) for p in data["players"]}
        jobs = [Job(m["index"], tuple(entries[n] for n in m["seats"]), m["seed"], m["hands"], m["table"])
                for m in data["matches"]]
        plan = Plan(name=data["name"], game_name=data["game"], game=game, hands=data["hands"], seed=data["seed"],
                    duplicate=data["duplicate"], mode=data["mode"], entries=list(entries.values()), jobs=jobs,
                    transport=data["transport"], parallel=data.get("jobs"))
        return plan, list(data.get("plugin_dirs") or [])
    except GameDefError as exc:
        raise RunError(f"{path}: cannot load its game: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise RunError(f"{path}: not a plan written by acpc-match ({type(exc).__name__}: {exc})") from None


def finished_records(run_dir: Path, plan: Plan) -> dict[int, dict[str, Any]]:
    """The results.json records of the plan's matches that finished, by job index.

    From results.json when the run wrote one; otherwise (the process was
    killed) a match counts as finished when its dealer log ends with the
    SCORE line, the dealer's last word.
    """
    by_label = {j.label: j for j in plan.jobs}
    try:
        doc = json.loads((run_dir / RESULTS).read_text(encoding="utf-8"))
        records = {by_label[m["label"]].index: m for m in doc.get("matches", [])
                   if m.get("complete") and m.get("label") in by_label}
        return records
    except (OSError, json.JSONDecodeError, AttributeError, TypeError):
        pass
    out = {}
    for job in plan.jobs:
        log = run_dir / f"{job.label}.log"
        try:
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if lines and lines[-1].startswith("SCORE:"):
            files = {"log": log.name}
            for p in sorted(run_dir.glob(f"{job.label}.*")):
                files[_role(p.name[len(job.label) + 1:])] = p.name
            out[job.index] = {"label": job.label, "game": plan.game_name, "seed": job.seed, "hands": job.hands,
                              "table": job.table, "seats": [{"player": e.name, "strategy": e.spec} for e in job.seats],
                              "complete": True, "error": None, "seconds": None, "files": files}
    return out


def _role(suffix: str) -> str:
    """The results.json role of a match file from what follows its label: ``seat2-bob.out`` -> ``seat2-out``."""
    seat = re.fullmatch(r"(seat\d+)-.*\.(out|err)", suffix)
    if seat:
        return f"{seat.group(1)}-{seat.group(2)}"
    return {"log": "log", "err": "transcript", "clients.err": "clients"}.get(suffix, suffix)


def clear_match_files(run_dir: Path, job: Job) -> None:
    """Remove what an unfinished match left, so that playing it again starts clean."""
    for p in run_dir.glob(f"{job.label}.*"):
        if p.is_file():
            p.unlink()
