"""Playing a plan: its matches in parallel over TCP or in memory into a run folder, surviving interruption; merging runs."""

from __future__ import annotations

import asyncio
import functools
import json
import multiprocessing
import os
import shlex
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any, Sequence, TextIO

from acpcbot.gamedef import GameDef, GameDefError, load_game
from acpcbot.logcheck import whole_log_problem
from acpcbot.strategies.registry import add_plugin_dir

from . import prefetch
from .folders import RESULTS, RUNS_DIR, Outcome, RunError, exact_run_dir, job_record, match_command, new_run_dir
from .lbr_results import attach as attach_lbr
from .lbr_seats import memory_job
from .planfile import clear_match_files, finished_records, plugin_players, read_plan, write_plan
from .recipes import Job, Plan
from .results import results_document, write_outputs
from .tcp import play_job_tcp
from .watch import Progress


class RunInterrupted(Exception):
    """A run stopped by SIGINT or SIGTERM: its results.json (marked partial) is written; ``doc`` is it."""

    def __init__(self, doc: dict[str, Any], signum: int) -> None:
        super().__init__(f"interrupted by signal {signum}")
        self.doc = doc
        self.signum = signum


#: the most seconds an interrupted run waits for an in-memory match to stop at the end of its hand
STOP_WAIT = 30.0
NOT_PLAYED = "not played: the run was interrupted (acpc-match resume plays it)"


def _game_arg(plan_game: str) -> str:
    """The game as a child process in another folder must be told it (paths made absolute)."""
    return str(Path(plan_game).resolve()) if Path(plan_game).is_file() else plan_game


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the runner, which stops them itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_thread(loop: asyncio.AbstractEventLoop, fn: Any, *args: Any) -> asyncio.Future[Any]:
    """Run ``fn(*args)`` on a daemon thread: an interrupted run does not wait for it at exit."""
    fut = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if not fut.done():
            fut.set_exception(error) if error is not None else fut.set_result(result)

    def work() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as exc:  # noqa: BLE001 - handed to the loop
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop is closed: the run was interrupted and nobody waits

    threading.Thread(target=work, name="acpc-match-memory", daemon=True).start()
    return fut


async def _on_thread(loop: asyncio.AbstractEventLoop, play: Any, job: Job, game_arg: str, run_dir: str) -> Any:
    """Play an in-memory job on a daemon thread.  Cancelled (Ctrl-C), the match is told to stop before its next
    hand and waited for (at most :data:`STOP_WAIT`): the run clears an unfinished match's files once this returns,
    and a thread still playing would write them again."""
    stop = threading.Event()
    fut = _in_thread(loop, functools.partial(play, stop=stop), job, game_arg, run_dir)
    try:
        return await asyncio.shield(fut)  # cancelled, the task stops waiting; the thread's future lives on
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait([fut], timeout=STOP_WAIT)
        if fut.done():
            fut.exception()  # a match that failed as it stopped: nobody reads its outcome, nothing to report
        raise


def _in_pool(loop: asyncio.AbstractEventLoop, pool: Any, fn: Any, *args: Any) -> asyncio.Future[Any]:
    """Run ``fn(*args)`` in a worker of a multiprocessing pool (which ``terminate`` can stop at once)."""
    fut = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if not fut.done():
            fut.set_exception(error) if error is not None else fut.set_result(result)

    def done(result: Any) -> None:
        try:
            loop.call_soon_threadsafe(settle, result, None)
        except RuntimeError:
            pass

    def failed(error: BaseException) -> None:
        try:
            loop.call_soon_threadsafe(settle, None, error)
        except RuntimeError:
            pass

    pool.apply_async(fn, args, callback=done, error_callback=failed)
    return fut


async def _play_jobs(plan: Plan, jobs: Sequence[Job], run_dir: Path, progress: "Progress | None",
                     plugin_dirs: Sequence[str] = (), with_aivat: bool = True
                     ) -> tuple[list[Outcome | None], int | None]:
    """Play ``jobs``, as many at once as ``plan.parallel`` (default: the cores).

    A lone in-memory match has AIVAT's equities computed beside it on a
    spare core, from its log as it grows (``prefetch``), when AIVAT is on.

    Returns each job's outcome (None for a job that SIGINT or SIGTERM
    stopped or kept from starting) and the signal, if one came.
    """
    game_arg = _game_arg(plan.game_name)  # the log header names the game this way, whatever the transport
    parallel = plan.parallel or os.cpu_count() or 1
    parallel = max(1, min(parallel, len(jobs) or 1))
    gate = asyncio.Semaphore(parallel)
    loop = asyncio.get_running_loop()
    pool = None
    if plan.transport == "memory" and parallel > 1:
        pool = multiprocessing.get_context().Pool(parallel, initializer=_ignore_sigint)

    async def one(job: Job) -> Outcome | None:
        start = time.monotonic()
        try:
            async with gate:
                log = run_dir / f"{job.label}.log"
                if progress is not None:
                    progress.watch(log)
                start = time.monotonic()
                if plan.transport == "memory":
                    play = memory_job(job)  # an lbr seat reads its target's real object when both sit here
                    if pool is not None:
                        return await _in_pool(loop, pool, play, job, game_arg, str(run_dir))
                    if not (with_aivat and len(jobs) == 1 and prefetch.wanted(plan.game, parallel)):
                        return await _on_thread(loop, play, job, game_arg, str(run_dir))
                    follower = prefetch.Follower(log, plan.game)
                    kept = False
                    try:
                        outcome = await _on_thread(loop, play, job, game_arg, str(run_dir))
                        kept = True
                        return outcome
                    finally:
                        await loop.run_in_executor(None, follower.finish, kept)
                return await play_job_tcp(job, game_arg, run_dir, plugin_dirs)
        except asyncio.CancelledError:
            return None  # stopped by a signal: the caller plays it again on resume
        except Exception as exc:  # noqa: BLE001 - one broken match must not lose the others
            return Outcome(job, False, f"{type(exc).__name__}: {exc}", {"log": f"{job.label}.log"},
                           time.monotonic() - start)

    tasks = [asyncio.ensure_future(one(job)) for job in jobs]
    caught: list[int] = []

    def stop(signum: int) -> None:
        if not caught:
            caught.append(signum)
            for t in tasks:
                t.cancel()

    handled = []
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # a closed terminal stops the run as Ctrl-C does
        try:
            loop.add_signal_handler(signum, stop, signum)
            handled.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread: signals stay as they are
    ticker = asyncio.create_task(progress.run()) if progress is not None else None
    try:
        outcomes = list(await asyncio.gather(*tasks))
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        if ticker is not None:
            ticker.cancel()
        if progress is not None:  # set exactly when the ticker is
            progress.finish()
        if pool is not None:
            if caught:
                pool.terminate()
            else:
                pool.close()
            pool.join()
    return outcomes, (caught[0] if caught else None)


def _unplayed_record(job: Job, game_name: str) -> dict[str, Any]:
    """The results.json entry of a match an interrupted run did not finish."""
    return {"label": job.label, "game": game_name, "seed": job.seed, "hands": job.hands, "table": job.table,
            "seats": [{"player": e.name, "strategy": e.spec} for e in job.seats], "complete": False,
            "played": False, "error": NOT_PLAYED, "seconds": 0.0, "files": {}}


def _finish(plan: Plan, run_dir: Path, done: dict[int, dict[str, Any]], todo: Sequence[Job],
            progress_stream: TextIO | None, plugin_dirs: Sequence[str], seconds_before: float,
            with_aivat: bool = True) -> dict[str, Any]:
    """Play ``todo`` into ``run_dir`` beside the finished records ``done``; write and return the results."""
    progress = None
    if progress_stream is not None and todo:
        progress = Progress(progress_stream, sum(j.hands for j in todo), plan.entries[0].name, plan.game.big_blind)
    start = time.monotonic()
    outcomes, signum = asyncio.run(_play_jobs(plan, todo, run_dir, progress, plugin_dirs, with_aivat)) \
        if todo else ([], None)
    seconds = seconds_before + time.monotonic() - start
    records = dict(done)
    for job, outcome in zip(todo, outcomes):
        if outcome is None:
            clear_match_files(run_dir, job)
            records[job.index] = _unplayed_record(job, plan.game_name)
        else:
            records[job.index] = job_record(outcome, plan.game_name)
    ordered = [records[j.index] for j in plan.jobs]
    results = results_document(
        name=plan.name, mode=plan.mode, game_name=plan.game_name, game=plan.game, hands=plan.hands, seed=plan.seed,
        duplicate=plan.duplicate, transport=plan.transport, run_dir=run_dir,
        players=[{"player": e.name, "strategy": e.spec} for e in plan.entries], records=ordered, seconds=seconds,
        with_aivat=with_aivat)
    doc = results.doc
    doc["partial"] = any(r.get("played") is False for r in ordered)
    try:
        write_outputs(results, run_dir, plan.game)
    except RunError as exc:
        raise RunError(f"{exc}{cut_files_note(ordered)}") from None
    if signum is not None:
        raise RunInterrupted(doc, signum)
    return doc


def cut_files_note(records: Sequence[dict[str, Any]]) -> str:
    """``; also cut short: ...`` naming every match whose own files could not be written (a full disk), or ''.

    When results.json cannot be written the disk is usually full, and the
    match logs written before it may be cut too: the user is told of every one.
    """
    cut = [f"{r['label']} ({r['error']})" for r in records
           if not r.get("complete") and isinstance(r.get("error"), str) and "cannot write" in r["error"]]
    return f"; also cut short: {'; '.join(cut)}" if cut else ""


def execute(plan: Plan, runs_dir: str | Path = RUNS_DIR, progress_stream: TextIO | None = None, *,
            run_dir: str | Path | None = None, plugin_dirs: Sequence[str] = (), with_aivat: bool = True) -> dict[str, Any]:
    """Play a plan into a new run folder (or the empty folder ``run_dir``) and return its results document.

    The plan goes into the folder first (plan.json).  SIGINT or SIGTERM stops
    the matches in play, writes results.json for those finished (``partial``:
    true) and raises :class:`RunInterrupted`; :func:`resume` plays the rest.
    ``plugin_dirs`` are searched for ``module:Class`` strategies by the seats' processes; ``with_aivat``
    False leaves AIVAT and all-in expectation out of the results (``--no-aivat``).
    """
    folder = exact_run_dir(run_dir) if run_dir is not None else new_run_dir(runs_dir, plan.name)
    write_plan(folder, plan, list(plugin_dirs))
    return _finish(plan, folder, {}, plan.jobs, progress_stream, plugin_dirs, 0.0, with_aivat)


def resume(run_dir: str | Path, progress_stream: TextIO | None = None,
           plugin_dirs: Sequence[str] = (), with_aivat: bool = True) -> dict[str, Any]:
    """Finish an interrupted run in its folder: keep the matches that finished, play the others again.

    A run folder is data, not code: plugin modules are looked for only in
    ``plugin_dirs`` (the folders named on resume's own command line), never in
    the folders plan.json lists; a plan with plugin players whose folders are
    not named is refused, saying which ``--plugin-dir`` to add.
    """
    folder = Path(run_dir).absolute()  # results.json names the folder absolutely, however it was given
    plan, recorded = read_plan(folder)
    given = [os.path.abspath(d) for d in plugin_dirs]
    plugins = plugin_players(plan)
    missing = [d for d in recorded if os.path.abspath(d) not in given]
    if plugins and missing:
        raise RunError(f"{folder / 'plan.json'}: {', '.join(plugins)} {'is a plugin' if len(plugins) == 1 else 'are plugins'}"
                       f" found in {', '.join(missing)} when the run started; resume loads plugin modules only from "
                       f"folders named on its own command line: {match_command()} resume {shlex.quote(str(folder))} "
                       + " ".join(f"--plugin-dir {shlex.quote(d)}" for d in missing))
    for d in given:  # in-memory seats load plugin modules in this process
        add_plugin_dir(d)
    done = finished_records(folder, plan)
    todo = [j for j in plan.jobs if j.index not in done]
    for job in todo:
        clear_match_files(folder, job)
    try:
        before = float(json.loads((folder / RESULTS).read_text(encoding="utf-8")).get("seconds") or 0.0)
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        before = 0.0
    doc = _finish(plan, folder, done, todo, progress_stream, given, before, with_aivat)
    attach_lbr(doc, folder)  # an acpc-match lbr run keeps its LBR figures when finished this way
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


def merge_runs(dirs: Sequence[str | Path], runs_dir: str | Path = RUNS_DIR, name: str = "merge",
               with_aivat: bool = True) -> dict[str, Any]:
    """Combine run folders made anywhere into a new run folder (files copied) and return its results.

    Matches an interrupted run did not play are left out (a partial run
    merges with the run that played them); the new folder is removed again
    when the merge fails, so a failed merge leaves nothing behind.
    """
    docs = []
    for d in dirs:
        path = Path(d) / RESULTS
        try:
            docs.append((Path(d), json.loads(path.read_text(encoding="utf-8"))))
        except OSError as exc:
            raise RunError(f"{d}: not a run folder: cannot read {RESULTS}: {exc}") from None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError; numbers of thousands of digits; deep nesting
            raise RunError(f"{path}: not valid JSON: {str(exc)[:200]}") from None
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
    unplayed: set[tuple[Any, ...]] = set()
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
            if m.get("played") is False:
                unplayed.add(key)
                continue
            if key in seen_matches:
                raise RunError(f"{d}: match {m['label']} (seed {m['seed']}, seats "
                               f"{', '.join(key[2])}) is also in {seen_matches[key]}; it would count twice")
            seen_matches[key] = d
    sources = _checked_sources(docs, game)  # before the new folder exists: a refused merge leaves nothing
    run_dir = new_run_dir(runs_dir, name)
    copied: dict[str, str] = {}  # copy in the new folder -> its source, so that errors name the source
    try:
        records: list[dict[str, Any]] = []
        for d, doc in docs:
            for m in doc["matches"]:
                if m.get("played") is False:
                    continue
                label = f"match-{len(records):03d}"
                files = {}
                for role, fname in m["files"].items():
                    src = sources.get((d, fname))
                    if src is None:
                        continue
                    new = label + fname[len(m["label"]):] if fname.startswith(m["label"]) else f"{label}.{fname}"
                    try:
                        shutil.copyfile(src, run_dir / new)
                    except OSError as exc:
                        raise RunError(f"cannot copy {src} into {run_dir}: {exc.strerror or exc}") from None
                    copied[str(run_dir / new)] = str(src)
                    files[role] = new
                rec = dict(m, label=label, files=files, merged_from=str(d), original_label=m["label"])
                records.append(rec)
        hands = {m["hands"] for m in records}
        seeds = {m["seed"] for m in records}
        tables = {frozenset(s["player"] for s in m["seats"]) for m in records}
        results = results_document(
            name=name, mode="tournament" if len(tables) > 1 else "play", game_name=game_name, game=game,
            hands=hands.pop() if len(hands) == 1 else None, seed=min(seeds) if seeds else None,
            duplicate=any(d.get("duplicate") for _, d in docs),
            transport="+".join(sorted({str(d.get("transport")) for _, d in docs})), run_dir=run_dir,
            players=players, records=records, seconds=sum(float(d.get("seconds") or 0) for _, d in docs),
            with_aivat=with_aivat)
        doc = results.doc
        doc["partial"] = bool(unplayed - set(seen_matches))
        write_outputs(results, run_dir, game)
    except RunError as exc:
        shutil.rmtree(run_dir, ignore_errors=True)
        message = str(exc)
        for copy, source in copied.items():  # the copy is gone with the folder: name what the user has
            message = message.replace(copy, source)
        raise RunError(message.replace(str(run_dir), "the merged run")) from None
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return doc


def _checked_sources(docs: Sequence[tuple[Path, dict[str, Any]]], game: GameDef) -> dict[tuple[Path, str], Path]:
    """Every file the merge will copy, by (run folder, file name), each checked first; RunError naming the file.

    A finished match's dealer log must pass logcheck whole and hold the
    match's hands (a log cut short or edited is refused, never counted as a
    finished match); a log or any other file that is a folder, a FIFO or a
    device is refused without being opened.
    """
    sources: dict[tuple[Path, str], Path] = {}
    for d, doc in docs:
        for m in doc["matches"]:
            if m.get("played") is False:
                continue
            for role, fname in m["files"].items():
                if not isinstance(fname, str) or not fname or Path(fname).name != fname:
                    raise RunError(f"{d / RESULTS}: match {m['label']}: file {fname!r} is not a file name in the "
                                   f"run folder")
                src = d / fname
                if role == "log" and not src.exists() and not src.is_symlink():
                    raise RunError(f"{d}: the dealer log {fname} of {m['label']} is missing")
                if role == "log":
                    problem = whole_log_problem(src, game, m["hands"]) if m.get("complete") else \
                        _partial_log_problem(src)
                    if problem is not None:
                        state = "finished" if m.get("complete") else "unfinished"
                        raise RunError(f"{src}: the dealer log of {state} match {m['label']} is damaged: {problem}")
                elif not src.exists():
                    continue
                elif not src.is_file():
                    raise RunError(f"{src}: not a regular file (a folder, FIFO or device); not merging it")
                sources[(d, fname)] = src
    return sources


def _partial_log_problem(path: Path) -> str | None:
    """Why the log of a match that did not finish cannot be merged (its hands so far count), or None."""
    if not path.exists():
        return "it is missing"
    if not path.is_file():
        return "it is not a regular file (a folder, FIFO or device)"
    return None
