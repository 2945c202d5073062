"""Playing a plan: its matches in parallel over TCP or in memory into a new run folder; merging runs made anywhere."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence, TextIO

from acpcbot.gamedef import GameDefError, load_game

from . import memory
from .folders import RESULTS, RUNS_DIR, Outcome, RunError, job_record, new_run_dir
from .recipes import Job, Plan
from .results import results_document, write_outputs
from .tcp import play_job_tcp
from .watch import Progress


def _game_arg(plan_game: str) -> str:
    """The game as a child process in another folder must be told it (paths made absolute)."""
    return str(Path(plan_game).resolve()) if Path(plan_game).is_file() else plan_game


def job_command(job: Job, plan: Plan) -> str:
    """The ``acpc-match play`` command that plays exactly this job anywhere (for batch schedulers)."""
    words = ["acpc-match", "play", "--game", plan.game_name, "--hands", str(job.hands), "--seed", str(job.seed),
             "--transport", plan.transport, "--name", f"{plan.name}-{job.label}"]
    words += [f"{e.name}={e.spec}" for e in job.seats]
    return " ".join(shlex.quote(w) for w in words)


async def _play_jobs(plan: Plan, run_dir: Path, progress: "Progress | None") -> list[Outcome]:
    """Play every job of ``plan``, as many at once as ``plan.parallel`` (default: the cores)."""
    game_arg = _game_arg(plan.game_name)  # the log header names the game this way, whatever the transport
    parallel = plan.parallel or os.cpu_count() or 1
    parallel = max(1, min(parallel, len(plan.jobs)))
    gate = asyncio.Semaphore(parallel)
    loop = asyncio.get_running_loop()
    executor: Executor | None = None
    if plan.transport == "memory":
        executor = ProcessPoolExecutor(parallel) if parallel > 1 else ThreadPoolExecutor(1)

    async def one(job: Job) -> Outcome:
        async with gate:
            if progress is not None:
                progress.watch(run_dir / f"{job.label}.log")
            start = time.monotonic()
            try:
                if plan.transport == "memory":
                    assert executor is not None
                    return await loop.run_in_executor(executor, memory.play_job, job, game_arg, str(run_dir))
                return await play_job_tcp(job, game_arg, run_dir)
            except Exception as exc:  # noqa: BLE001 - one broken match must not lose the others
                return Outcome(job, False, f"{type(exc).__name__}: {exc}", {"log": f"{job.label}.log"},
                               time.monotonic() - start)

    ticker = asyncio.create_task(progress.run()) if progress is not None else None
    try:
        return list(await asyncio.gather(*(one(job) for job in plan.jobs)))
    finally:
        if ticker is not None:
            ticker.cancel()
            progress.finish()
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def execute(plan: Plan, runs_dir: str | Path = RUNS_DIR, progress_stream: TextIO | None = None) -> dict[str, Any]:
    """Play a plan into a new run folder and return its results document (also written to disk)."""
    run_dir = new_run_dir(runs_dir, plan.name)
    progress = None
    if progress_stream is not None:
        progress = Progress(progress_stream, sum(j.hands for j in plan.jobs), plan.entries[0].name,
                            plan.game.big_blind)
    start = time.monotonic()
    outcomes = asyncio.run(_play_jobs(plan, run_dir, progress))
    seconds = time.monotonic() - start
    records = [job_record(o, plan.game_name) for o in outcomes]
    doc, logs = results_document(
        name=plan.name, mode=plan.mode, game_name=plan.game_name, game=plan.game, hands=plan.hands, seed=plan.seed,
        duplicate=plan.duplicate, transport=plan.transport, run_dir=run_dir,
        players=[{"player": e.name, "strategy": e.spec} for e in plan.entries], records=records, seconds=seconds)
    write_outputs(doc, run_dir, plan.game, logs)
    return doc


def _check_run_doc(path: Path, doc: Any) -> None:
    """Raise RunError naming the file when a results.json lacks what merging reads."""
    def bad(what: str) -> RunError:
        return RunError(f"{path}: not a results.json of acpc-match: {what}")

    if not isinstance(doc, dict) or not isinstance(doc.get("game"), str):
        raise bad("no 'game'")
    for key in ("players", "matches"):
        if not isinstance(doc.get(key), list):
            raise bad(f"no '{key}' list")
    for p in doc["players"]:
        if not isinstance(p, dict) or not {"player", "strategy"} <= set(p):
            raise bad(f"player entry {p!r} lacks 'player' or 'strategy'")
    for i, m in enumerate(doc["matches"]):
        need = {"label", "seed", "hands", "seats", "files", "complete"}
        if not isinstance(m, dict) or not need <= set(m) or not isinstance(m["files"], dict):
            raise bad(f"matches[{i}] lacks one of {', '.join(sorted(need))}")
        if not isinstance(m["seats"], list) or not all(isinstance(x, dict) and "player" in x for x in m["seats"]):
            raise bad(f"matches[{i}].seats is not a list of {{'player': ...}}")


def merge_runs(dirs: Sequence[str | Path], runs_dir: str | Path = RUNS_DIR, name: str = "merge") -> dict[str, Any]:
    """Combine run folders made anywhere into a new run folder (files copied) and return its results."""
    docs = []
    for d in dirs:
        path = Path(d) / RESULTS
        try:
            docs.append((Path(d), json.loads(path.read_text(encoding="utf-8"))))
        except OSError as exc:
            raise RunError(f"{d}: not a run folder: cannot read {RESULTS}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise RunError(f"{path}: not valid JSON: {exc}") from None
        _check_run_doc(path, docs[-1][1])
    if not docs:
        raise RunError("merge needs at least one run folder")
    game_name = docs[0][1].get("game")
    try:
        game = load_game(game_name)
    except (GameDefError, TypeError) as exc:
        raise RunError(f"{docs[0][0]}: cannot load its game {game_name!r}: {exc}") from None
    players: list[dict[str, str]] = []
    seen_players: dict[str, str] = {}
    seen_matches: dict[tuple[Any, ...], Path] = {}
    for d, doc in docs:
        try:
            other = load_game(doc.get("game"))
        except (GameDefError, TypeError) as exc:
            raise RunError(f"{d}: cannot load its game {doc.get('game')!r}: {exc}") from None
        if other != game:
            raise RunError(f"{d}: game {doc.get('game')} differs from {docs[0][0]}'s {game_name}")
        for p in doc["players"]:
            spec = seen_players.setdefault(p["player"], p["strategy"])
            if spec != p["strategy"]:
                raise RunError(f"{d}: player {p['player']} plays {p['strategy']} here but {spec} elsewhere")
            if p not in players:
                players.append(p)
        for m in doc["matches"]:
            key = (m["seed"], m["hands"], tuple(s["player"] for s in m["seats"]))
            if key in seen_matches:
                raise RunError(f"{d}: match {m['label']} (seed {m['seed']}, seats "
                               f"{', '.join(key[2])}) is also in {seen_matches[key]}; it would count twice")
            seen_matches[key] = d
    run_dir = new_run_dir(runs_dir, name)
    records = []
    for d, doc in docs:
        for m in doc["matches"]:
            label = f"match-{len(records):03d}"
            files = {}
            for role, fname in m["files"].items():
                src = d / fname
                new = label + fname[len(m["label"]):] if fname.startswith(m["label"]) else f"{label}.{fname}"
                if src.exists():
                    shutil.copy2(src, run_dir / new)
                    files[role] = new
                elif role == "log":
                    raise RunError(f"{d}: the dealer log {fname} of {m['label']} is missing")
            rec = dict(m, label=label, files=files, merged_from=str(d), original_label=m["label"])
            records.append(rec)
    hands = {m["hands"] for m in records}
    seeds = {m["seed"] for m in records}
    tables = {frozenset(s["player"] for s in m["seats"]) for m in records}
    doc, logs = results_document(
        name=name, mode="tournament" if len(tables) > 1 else "play", game_name=game_name, game=game,
        hands=hands.pop() if len(hands) == 1 else None, seed=min(seeds) if seeds else None,
        duplicate=any(d.get("duplicate") for _, d in docs),
        transport="+".join(sorted({str(d.get("transport")) for _, d in docs})), run_dir=run_dir, players=players,
        records=records, seconds=sum(float(d.get("seconds") or 0) for _, d in docs))
    write_outputs(doc, run_dir, game, logs)
    return doc
