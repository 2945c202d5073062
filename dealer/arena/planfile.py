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
import sys
from pathlib import Path
from typing import Any

from acpcbot.gamedef import GameDefError, clip, load_game
from acpcbot.logcheck import whole_log_problem
from acpcbot.strategies.registry import split_spec

from .folders import RESULTS, RunError
from .recipes import MAX_HANDS, MAX_SEED, TRANSPORTS, Entry, Job, Plan, safe_name
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


def _read_json(path: Path, what: str) -> Any:
    """The JSON document in ``path``; RunError naming it for anything that is not readable JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RunError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError, UnicodeDecodeError, a number past Python's 4,300 digits, nesting past its recursion limit
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise RunError(f"{path}: not valid JSON: {reason[:200]}") from None


def _get(obj: Any, key: str, kinds: tuple[type, ...], where: str) -> Any:
    """``obj[key]`` when ``obj`` is an object and the value one of ``kinds`` (bool is not an int here)."""
    if not isinstance(obj, dict) or key not in obj:
        raise ValueError(f"{where}: no {key!r}")
    value = obj[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{where}.{key}: {clip(str(value), 60)} is not a {' or '.join(k.__name__ for k in kinds)}")
    return value


def _whole(obj: Any, key: str, low: int, high: int, where: str) -> int:
    value = _get(obj, key, (int,), where)
    if not low <= value <= high:
        raise ValueError(f"{where}.{key}: {value} is not in {low}..{high}")
    return value


def _plan_from(data: Any) -> tuple[Plan, list[str]]:
    """Check every field of a plan document (a hand-edited or damaged file is refused); ValueError naming the field."""
    none = type(None)
    game_name = _get(data, "game", (str,), "plan")
    try:
        game = load_game(game_name)
    except GameDefError as exc:
        raise ValueError(f"cannot load its game: {exc}") from None
    entries: dict[str, Entry] = {}
    for i, p in enumerate(_get(data, "players", (list,), "plan")):
        where = f"players[{i}]"
        name = _get(p, "name", (str,), where)
        if safe_name(name) != name or name in entries:
            raise ValueError(f"{where}.name: {clip(name, 60)} is not a player name acpc-match gives "
                             f"(letters, digits, '.', '_', '-'; each once)")
        strategy, external = p.get("strategy"), p.get("external")
        kinds_ok = all(isinstance(x, (str, none)) for x in (strategy, external))
        if not kinds_ok or (strategy is None) == (external is None):
            raise ValueError(f"{where}: needs a 'strategy' or an 'external' command (text), one of them")
        entries[name] = Entry(name, strategy, external)
    jobs = []
    for i, m in enumerate(_get(data, "matches", (list,), "plan")):
        where = f"matches[{i}]"
        seats = _get(m, "seats", (list,), where)
        if len(seats) != game.num_players or not all(isinstance(n, str) and n in entries for n in seats):
            raise ValueError(f"{where}.seats: not {game.num_players} of the plan's players")
        jobs.append(Job(_whole(m, "index", i, i, where), tuple(entries[n] for n in seats),
                        _whole(m, "seed", 0, MAX_SEED, where), _whole(m, "hands", 1, MAX_HANDS, where),
                        _whole(m, "table", 0, len(data["matches"]), where)))
    transport = _get(data, "transport", (str,), "plan")
    if transport not in TRANSPORTS:
        raise ValueError(f"plan.transport: {clip(transport, 60)} is not one of {', '.join(TRANSPORTS)}")
    parallel = _get(data, "jobs", (int, none), "plan") if "jobs" in data else None
    if parallel is not None and parallel < 1:
        raise ValueError(f"plan.jobs: {parallel} is not at least 1")
    plan = Plan(name=_get(data, "name", (str,), "plan"), game_name=game_name, game=game,
                hands=_whole(data, "hands", 1, MAX_HANDS, "plan"),
                seed=_whole(data, "seed", 0, MAX_SEED, "plan"), duplicate=_get(data, "duplicate", (bool,), "plan"),
                mode=_get(data, "mode", (str,), "plan"), entries=list(entries.values()), jobs=jobs,
                transport=transport, parallel=parallel)
    dirs = data.get("plugin_dirs") or []
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise ValueError("plan.plugin_dirs: not a list of folders")
    return plan, dirs


def plugin_players(plan: Plan) -> list[str]:
    """The players of ``plan`` whose strategy is a plugin (``module:Class``), by name."""
    return [e.name for e in plan.entries if e.strategy is not None and ":" in split_spec(e.strategy)[0]]


def read_plan(run_dir: Path) -> tuple[Plan, list[str]]:
    """The plan kept in a run folder and its plugin folders; RunError naming the file when it cannot be used."""
    path = run_dir / PLAN
    try:
        data = _read_json(path, PLAN)
    except FileNotFoundError as exc:
        raise RunError(f"{run_dir}: not a run folder acpc-match can resume: cannot read {PLAN}: "
                       f"{exc.strerror}") from None
    try:
        return _plan_from(data)
    except ValueError as exc:
        raise RunError(f"{path}: not a plan written by acpc-match: {exc}") from None


def finished_records(run_dir: Path, plan: Plan) -> dict[int, dict[str, Any]]:
    """The results.json records of the plan's matches that finished, by job index.

    From results.json when the run wrote one; otherwise (the process was
    killed) a match counts as finished when its dealer log ends with the
    SCORE line, the dealer's last word.  Either way a finished match's log
    must pass logcheck whole (:func:`acpcbot.logcheck.whole_log_problem`): a
    cut or damaged log is never kept as complete; its match is played again
    from its first hand (same seed, same deals), and stderr says why.
    """
    by_label = {j.label: j for j in plan.jobs}
    path = run_dir / RESULTS
    try:
        doc = _read_json(path, RESULTS)
    except FileNotFoundError:
        doc = None
    except RunError as exc:
        raise RunError(f"{exc} (remove it to resume from the dealer logs alone)") from None
    candidates: dict[int, dict[str, Any]] = {}
    if doc is not None:
        matches = doc.get("matches") if isinstance(doc, dict) else None
        if not isinstance(matches, list) or not all(isinstance(m, dict) for m in matches):
            raise RunError(f"{path}: not a results.json of acpc-match: no 'matches' list "
                           f"(remove it to resume from the dealer logs alone)")
        candidates = {by_label[m["label"]].index: m for m in matches
                      if m.get("complete") is True and isinstance(m.get("label"), str) and m["label"] in by_label}
    else:
        for job in plan.jobs:
            log = run_dir / f"{job.label}.log"
            if not log.is_file():
                continue
            files = {"log": log.name}
            for p in sorted(run_dir.glob(f"{job.label}.*")):
                files[_role(p.name[len(job.label) + 1:])] = p.name
            candidates[job.index] = {"label": job.label, "game": plan.game_name, "seed": job.seed, "hands": job.hands,
                                     "table": job.table,
                                     "seats": [{"player": e.name, "strategy": e.spec} for e in job.seats],
                                     "complete": True, "error": None, "seconds": None, "files": files}
    out = {}
    for index, rec in candidates.items():
        job = plan.jobs[index]
        kept = rec.get("files")
        name = kept.get("log") if isinstance(kept, dict) else None
        log = run_dir / (name if isinstance(name, str) and name else f"{job.label}.log")
        problem = whole_log_problem(log, plan.game, job.hands)
        if problem is None:
            out[index] = rec
        elif doc is not None or not problem.startswith("cut short"):  # it claimed to be finished
            print(f"acpc-match: resume: {log}: {problem}; {job.label} is played again from its first hand",
                  file=sys.stderr)
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
