"""``acpc-match``: self-matches and tournaments through the bundled dealer, with honest statistics.

``play`` seats strategies (and external programs) at one table, ``tournament``
plays every table of a round robin, ``run`` does either from a TOML recipe
and ``merge`` combines runs made anywhere.  Every run writes a folder under
``matches/runs/`` holding the dealer logs and transcripts, each seat's
output, ``results.json`` and ``report.svg``; the figures are computed from
the dealer logs alone (``dealer.stats``), so a merged run gives exactly the
figures of one run of the same matches.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import shlex
import shutil
import socket
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence, TextIO

from acpcbot.gamedef import GameDef, GameDefError, load_game

from . import report
from .recipes import (TRANSPORTS, Entry, Job, Plan, RecipeError, build_plan, check_strategy, load_recipe,
                      EXTERNAL_PREFIX, make_entries, parse_player, safe_name, strategy_seed)
from .stats import (Z95, Estimate, MatchLog, StatsError, bankroll_ranking, crosstable, instant_runoff_ranking,
                    player_values, read_log, summarize, table_results)

RUNS_DIR = Path("matches") / "runs"
RESULTS = "results.json"
REPORT = "report.svg"
SCHEMA = 1
HOST = "127.0.0.1"


class RunError(Exception):
    """A run that cannot start or whose results cannot be read, with a message for the user."""


# ------------------------------------------------------------------ run folders

def new_run_dir(runs_dir: str | Path, name: str) -> Path:
    """Create ``runs_dir/NAME-YYYYmmdd-HHMMSS`` (with ``-2``, ``-3``... when taken) and return it."""
    base = Path(runs_dir)
    stem = f"{safe_name(name)}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    try:
        base.mkdir(parents=True, exist_ok=True)
        for k in range(1, 1000):
            path = base / (stem if k == 1 else f"{stem}-{k}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
    except OSError as exc:
        raise RunError(f"cannot create a run folder under {base}: {exc.strerror or exc}") from None
    raise RunError(f"cannot create a run folder under {base}: {stem} and 998 more are taken")


# ------------------------------------------------------------------ playing jobs

@dataclass
class Outcome:
    """How one match went: whether it finished, why not, and the files it left in the run folder."""

    job: Job
    complete: bool
    error: str | None
    files: dict[str, str]  # role -> file name in the run folder ("log", "transcript", "seat1-out"...)
    seconds: float


def job_record(outcome: Outcome, game_name: str) -> dict[str, Any]:
    """The ``matches`` entry of results.json for one played match."""
    job = outcome.job
    return {"label": job.label, "game": game_name, "seed": job.seed, "hands": job.hands, "table": job.table,
            "seats": [{"player": e.name, "strategy": e.spec} for e in job.seats],
            "complete": outcome.complete, "error": outcome.error, "seconds": round(outcome.seconds, 3),
            "files": outcome.files}


def _game_arg(plan_game: str) -> str:
    """The game as a child process in another folder must be told it (paths made absolute)."""
    return str(Path(plan_game).resolve()) if Path(plan_game).is_file() else plan_game


def job_command(job: Job, plan: Plan) -> str:
    """The ``acpc-match play`` command that plays exactly this job anywhere (for batch schedulers)."""
    words = ["acpc-match", "play", "--game", plan.game_name, "--hands", str(job.hands), "--seed", str(job.seed),
             "--transport", plan.transport, "--name", f"{plan.name}-{job.label}"]
    words += [f"{e.name}={e.spec}" for e in job.seats]
    return " ".join(shlex.quote(w) for w in words)


START_TIMEOUT_MS = 60000  # players that do not connect within this time fail the match
DEALER_START_S = 60.0  # the dealer must print its ports within this time
CLIENT_EXIT_S = 10.0  # clients still running this long after the dealer ended are stopped


def client_command(entry: Entry, job: Job, game_arg: str, port: int) -> list[str]:
    """The command playing ``entry`` at ``port``: an acpcbot client process, or the external program."""
    if entry.external is not None:
        return shlex.split(entry.external) + [HOST, str(port)]
    cmd = [sys.executable, "-m", "acpcbot", HOST, str(port), "--game", game_arg, "--strategy", entry.strategy or "",
           "--seed", str(strategy_seed(job.seed, entry.name)), "--name", entry.name, "--log-level", "WARNING",
           "--retry", str(DEALER_START_S)]  # it may start before the dealer listens
    for other in job.seats:
        if other.name != entry.name:
            cmd += ["--opponent", other.name]
    return cmd


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Terminate a child we started, then kill it if it lingers."""
    if proc.returncode is not None:
        return
    try:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 3.0)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
    except ProcessLookupError:
        pass


def _transcript_errors(path: Path, limit: int = 3) -> list[str]:
    """The last ERROR lines of a dealer transcript."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [line for line in lines if line.startswith("ERROR")][-limit:]


#: Ports handed to matches of this process that may not be listening yet: the OS could offer them again.
_in_flight: set[int] = set()


def _unused_ports(count: int) -> list[int]:
    """Ports free on 127.0.0.1 right now, as the OS picks them."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(sock)
            sock.bind((HOST, 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def free_ports(count: int) -> list[int]:
    """Ports free on 127.0.0.1 and not held by another match of this process; give them back with release_ports.

    Another program could still take one before the dealer listens (the
    match is then retried with other ports).
    """
    for _ in range(100):
        ports = _unused_ports(count)
        if not _in_flight.intersection(ports):
            _in_flight.update(ports)
            return ports
    raise RunError(f"no {count} free ports on {HOST} that no other match of this run holds")


def release_ports(ports: Sequence[int]) -> None:
    """Ports of a match that is over (or whose dealer listens): others may have them."""
    _in_flight.difference_update(ports)


async def play_job_tcp(job: Job, game_arg: str, run_dir: Path) -> Outcome:
    """Play one job over TCP: ``python -m dealer`` in the run folder and one process per seat.

    Our own clients start together with the dealer on ports chosen here (they
    retry until it listens), which hides one interpreter start-up; external
    programs start once the dealer has printed its ports, as they may not
    retry.  A port taken meanwhile by another program is retried with others.
    """
    start = time.monotonic()
    for attempt in range(3):
        complete, error, files, port_clash = await _tcp_attempt(job, game_arg, run_dir)
        if not port_clash:
            break
    return Outcome(job, complete, error, files, time.monotonic() - start)


async def _tcp_attempt(job: Job, game_arg: str, run_dir: Path) -> tuple[bool, str | None, dict[str, str], bool]:
    """One try at a TCP match: (complete, error, files, whether the dealer could not open a port)."""
    ports = free_ports(len(job.seats))
    try:
        return await _tcp_match(job, game_arg, run_dir, ports)
    finally:
        release_ports(ports)


async def _tcp_match(job: Job, game_arg: str, run_dir: Path,
                     ports: list[int]) -> tuple[bool, str | None, dict[str, str], bool]:
    """The dealer on ``ports`` and a process per seat; the result as :func:`_tcp_attempt` gives it."""
    label = job.label
    files = {"log": f"{label}.log", "transcript": f"{label}.err"}
    dealer_cmd = [sys.executable, "-m", "dealer", label, game_arg, str(job.hands), str(job.seed),
                  *[e.name for e in job.seats], "-p", ",".join(map(str, ports)),
                  "--start_timeout", str(START_TIMEOUT_MS)]
    env = dict(os.environ)
    # children import acpcbot and dealer from where this process does, whatever their folder
    roots = [str(Path(__file__).resolve().parents[1])] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(roots)
    with open(run_dir / files["transcript"], "wb") as transcript:
        dealer = await asyncio.create_subprocess_exec(*dealer_cmd, cwd=run_dir, stdin=asyncio.subprocess.DEVNULL,
                                                      stdout=asyncio.subprocess.PIPE, stderr=transcript, env=env)
    clients: list[tuple[int, Entry, asyncio.subprocess.Process, str]] = []
    error: str | None = None
    stdout = b""

    async def launch(seat: int, entry: Entry, port: int) -> str | None:
        stem = f"{label}.seat{seat}-{entry.name}"
        files[f"seat{seat}-out"], files[f"seat{seat}-err"] = f"{stem}.out", f"{stem}.err"
        with open(run_dir / f"{stem}.out", "wb") as out, open(run_dir / f"{stem}.err", "wb") as err:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *client_command(entry, job, game_arg, port), cwd=run_dir, stdin=asyncio.subprocess.DEVNULL,
                    stdout=out, stderr=err, env=env)
            except OSError as exc:
                return f"seat {seat} ({entry.name}) could not start: {exc}"
        clients.append((seat, entry, proc, stem))
        return None

    try:
        seats = list(enumerate(zip(job.seats, ports), start=1))
        for seat, (entry, port) in seats:
            if entry.external is None and error is None:
                error = await launch(seat, entry, port)
        assert dealer.stdout is not None
        try:
            first = await asyncio.wait_for(dealer.stdout.readline(), DEALER_START_S)
        except asyncio.TimeoutError:
            first = b""
        if error is None and first.split() != [str(p).encode() for p in ports]:
            await _stop(dealer)
            errs = _transcript_errors(run_dir / files["transcript"])
            clash = any("could not open port" in e for e in errs)
            return False, "the dealer did not start: " + ("; ".join(errs) or repr(first)), files, clash
        for seat, (entry, port) in seats:
            if entry.external is not None and error is None:
                error = await launch(seat, entry, port)
        if error is None:
            stdout = await dealer.stdout.read()
            await dealer.wait()
            waits = [asyncio.wait_for(p.wait(), CLIENT_EXIT_S) for _, _, p, _ in clients]
            await asyncio.gather(*waits, return_exceptions=True)
    finally:
        for _, _, proc, _ in clients:
            await _stop(proc)
        await _stop(dealer)
    complete = error is None and dealer.returncode == 0 and b"SCORE:" in stdout
    if not complete and error is None:
        problems = _transcript_errors(run_dir / files["transcript"])
        for seat, entry, proc, stem in clients:
            if proc.returncode not in (0, None, -15):
                problems.append(f"seat {seat} ({entry.name}) exited with status {proc.returncode} (see {stem}.err)")
        error = "; ".join(problems) or f"the dealer exited with status {dealer.returncode}"
    return complete, error, files, False


async def _play_jobs(plan: Plan, run_dir: Path, progress: "Progress | None") -> list[Outcome]:
    """Play every job of ``plan``, as many at once as ``plan.parallel`` (default: the cores)."""
    from . import memory

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


# ------------------------------------------------------------------ progress

class Progress:
    """A one-line progress report on a terminal: hands done, hands/s, time left, the first player's mbb/hand.

    It reads the dealer logs as they grow (the dealer flushes every hand),
    so it works for any transport and any number of matches at once.
    """

    def __init__(self, stream: TextIO, total_hands: int, player: str, big_blind: int, interval: float = 0.5) -> None:
        self.stream = stream
        self.total = total_hands
        self.player = player
        self.big_blind = big_blind
        self.interval = interval
        self.files: dict[Path, int] = {}
        self.hands = 0
        self.chips = 0.0
        self.player_hands = 0
        self.start = time.monotonic()
        self._partial: dict[Path, bytes] = {}

    def watch(self, path: Path) -> None:
        """Start following a match log."""
        self.files.setdefault(path, 0)

    def poll(self) -> None:
        """Read what the watched logs gained since the last poll."""
        for path, offset in list(self.files.items()):
            try:
                with open(path, "rb") as f:
                    f.seek(offset)
                    data = f.read()
            except OSError:
                continue
            self.files[path] = offset + len(data)
            data = self._partial.pop(path, b"") + data
            lines = data.split(b"\n")
            if lines[-1]:
                self._partial[path] = lines[-1]
            for raw in lines[:-1]:
                if raw.startswith(b"STATE:"):
                    self.hands += 1
                    fields = raw.decode("utf-8", "replace").rstrip("\r").split(":")
                    if len(fields) == 6:
                        names = fields[5].split("|")
                        if self.player in names:
                            try:
                                self.chips += float(fields[4].split("|")[names.index(self.player)])
                                self.player_hands += 1
                            except (ValueError, IndexError):
                                pass

    def line(self) -> str:
        """The current progress text."""
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.hands / elapsed
        left = (self.total - self.hands) / rate if rate > 0 else math.inf
        mbb = 1000.0 * self.chips / self.big_blind / self.player_hands if self.player_hands else 0.0
        eta = "?" if math.isinf(left) else f"{left:.0f}s"
        return (f"{self.hands}/{self.total} hands  {rate:.0f} hands/s  {eta} left  "
                f"{self.player} {mbb:+.1f} mbb/hand")

    async def run(self) -> None:
        """Redraw the line every ``interval`` seconds until cancelled."""
        while True:
            self.poll()
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()
            await asyncio.sleep(self.interval)

    def finish(self) -> None:
        """Draw the final line and end it."""
        self.poll()
        self.stream.write("\r\x1b[K" + self.line() + "\n")
        self.stream.flush()


# ------------------------------------------------------------------ results

def _num(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def load_logs(records: Sequence[dict[str, Any]], run_dir: Path,
              game: GameDef) -> tuple[list[dict[str, Any]], list[MatchLog]]:
    """The matches that left a dealer log, and their parsed logs; a match that never started may have none."""
    kept, logs = [], []
    for rec in records:
        path = run_dir / rec["files"].get("log", "")
        if not path.is_file():
            if rec.get("complete"):
                raise RunError(f"{rec['label']}: the dealer log {path} is missing")
            continue
        try:
            logs.append(read_log(path, game))
        except StatsError as exc:
            raise RunError(str(exc)) from None
        kept.append(rec)
    return kept, logs


def analyze(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
            game: GameDef) -> dict[str, Any]:
    """The figures of a run from its dealer logs: per-player results, crosstable and rankings.

    ``records`` are results.json ``matches`` entries and ``logs`` their
    parsed logs (see :func:`load_logs`); ``players`` the run's players in
    order, each ``{"player": NAME, "strategy": SPEC}``.  Matches sharing a
    seed and a table with different seat orders are duplicate seatings of
    one deal sequence and are paired.
    """
    groups: dict[tuple[int, int, frozenset[str]], list[int]] = {}
    for i, rec in enumerate(records):
        names = [s["player"] for s in rec["seats"]]
        groups.setdefault((rec["seed"], rec["hands"], frozenset(names)), []).append(i)
    duplicate_groups = [idx for idx in groups.values() if len({tuple(s["player"] for s in records[i]["seats"])
                                                                for i in idx}) > 1]
    summary = summarize(logs, duplicate_groups)
    spec_of = {p["player"]: p["strategy"] for p in players}
    results = []
    for p in players:
        s = summary.get(p["player"])
        if s is None:
            results.append({"player": p["player"], "strategy": p["strategy"], "hands": 0, "mbb_per_hand": None,
                            "ci95": None, "se": None})
            continue
        entry: dict[str, Any] = {"player": s.name, "strategy": spec_of[s.name], "hands": s.result.n,
                                 "mbb_per_hand": _num(s.result.mean), "ci95": _num(s.result.ci95),
                                 "se": _num(s.result.se)}
        if s.duplicate is not None:
            entry.update({"duplicate_mbb_per_hand": _num(s.duplicate.mean),
                          "duplicate_ci95": _num(s.duplicate.ci95), "duplicate_pairs": s.duplicate.n})
        entry.update({k: _num(v, 4) for k, v in s.style.as_dict().items()})
        scale = 1000.0 / game.big_blind
        entry["endings"] = {k: {kk: _num(vv, 4) if isinstance(vv, float) else vv
                                for kk, vv in line.as_dict(scale).items()} for k, line in s.endings.items()}
        results.append(entry)
    out: dict[str, Any] = {"results": results}
    tables = {frozenset(s["player"] for s in rec["seats"]) for rec in records}
    if len(tables) > 1:
        names = [p["player"] for p in players]
        cells = crosstable(logs, duplicate_groups)
        out["crosstable"] = {
            "players": names,
            "mbb_per_hand": [[_num(cells[(r, c)].mean) if (r, c) in cells else None for c in names] for r in names],
            "ci95": [[_num(cells[(r, c)].ci95) if (r, c) in cells else None for c in names] for r in names],
            "hands": [[cells[(r, c)].n if (r, c) in cells else 0 for c in names] for r in names]}
        per_table = table_results(logs)
        present = [n for n in names if any(n in t for t in per_table)]
        rankings: dict[str, Any] = {"total_bankroll": bankroll_ranking(per_table, present)}
        size = game.num_players
        complete = all(frozenset(c) in per_table for c in itertools.combinations(present, size))
        rankings["instant_runoff"] = instant_runoff_ranking(per_table, present) if complete else None
        out["rankings"] = rankings
    return out


def results_document(*, name: str, mode: str, game_name: str, game: GameDef, hands: int | None, seed: int | None,
                     duplicate: bool, transport: str, run_dir: Path, players: Sequence[dict[str, str]],
                     records: Sequence[dict[str, Any]], seconds: float) -> tuple[dict[str, Any], list[MatchLog]]:
    """The whole results.json object of a run, and the logs it was computed from."""
    doc: dict[str, Any] = {"schema": SCHEMA, "name": name, "mode": mode, "game": game_name,
                           "big_blind": game.big_blind, "hands": hands, "seed": seed, "duplicate": duplicate,
                           "transport": transport, "run_dir": str(run_dir), "seconds": round(seconds, 3),
                           "players": list(players)}
    played, logs = load_logs(records, run_dir, game)
    doc.update(analyze(played, logs, players, game))
    doc["matches"] = list(records)
    return doc, logs


def write_outputs(doc: dict[str, Any], run_dir: Path, game: GameDef, logs: Sequence[MatchLog]) -> None:
    """Write results.json and report.svg into the run folder."""
    (run_dir / RESULTS).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    names = [p["player"] for p in doc["players"]]
    title = f"{doc['name']}: {doc['game']}, {doc['hands'] or 'various'} hands per match"
    if "crosstable" in doc:
        ct = doc["crosstable"]
        cells = {}
        for i, r in enumerate(ct["players"]):
            for j, c in enumerate(ct["players"]):
                mean = ct["mbb_per_hand"][i][j]
                if mean is not None:
                    ci = ct["ci95"][i][j]
                    cells[(r, c)] = Estimate(ct["hands"][i][j], mean, None if ci is None else ci / Z95)
        svg = report.heatmap_svg(ct["players"], cells, title)
    else:
        series: dict[str, list[float]] = {}
        for log in logs:
            for name, chips in player_values(log.hands).items():
                series.setdefault(name, []).extend(chips)
        svg = report.cumulative_svg({n: series.get(n, []) for n in names}, game.big_blind, title)
    (run_dir / REPORT).write_text(svg, encoding="utf-8")


def format_results(doc: dict[str, Any]) -> str:
    """The human-readable tables printed after a run."""
    dup = any("duplicate_mbb_per_hand" in r for r in doc["results"])
    lines = [f"{doc['name']}: {doc['game']}, {doc['hands'] or 'various'} hands per match, "
             f"{len(doc['matches'])} match{'es' if len(doc['matches']) != 1 else ''}"
             f"{', duplicate' if dup else ''}  ->  {doc['run_dir']}"]
    width = max([6] + [len(r["player"]) for r in doc["results"]])
    head = f"{'player':<{width}}  {'hands':>7}  {'mbb/hand':>9}  {'95% CI':>9}"
    if dup:
        head += f"  {'dup mbb/h':>9}  {'95% CI':>9}  {'pairs':>6}"
    head += f"  {'VPIP':>5}  {'PFR':>5}  {'AF':>5}  strategy"
    lines.append(head)

    def f(x: float | None, fmt: str, prefix: str = "") -> str:
        return "-" if x is None else prefix + format(x, fmt)

    for r in doc["results"]:
        row = (f"{r['player']:<{width}}  {r['hands']:>7}  {f(r['mbb_per_hand'], '+.1f'):>9}  "
               f"{f(r['ci95'], '.1f', '± '):>9}")
        if dup:
            row += (f"  {f(r.get('duplicate_mbb_per_hand'), '+.1f'):>9}  {f(r.get('duplicate_ci95'), '.1f', '± '):>9}"
                    f"  {r.get('duplicate_pairs', 0):>6}")
        row += (f"  {f(r.get('vpip') and 100 * r['vpip'], '.0f'):>5}  {f(r.get('pfr') and 100 * r['pfr'], '.0f'):>5}"
                f"  {f(r.get('aggression'), '.2f'):>5}  {r['strategy']}")
        lines.append(row)
    lines.append("where hands ended (hands, share won, mbb/hand):")
    for r in doc["results"]:
        parts = []
        for street, e in r.get("endings", {}).items():
            if e["hands"]:
                parts.append(f"{street} {e['hands']} {100 * e['win_rate']:.0f}% {e['mbb_per_hand']:+.0f}")
        lines.append(f"  {r['player']:<{width}}  " + ", ".join(parts))
    if "crosstable" in doc:
        ct = doc["crosstable"]
        names = ct["players"]
        cw = max(14, max(len(n) for n in names) + 2)
        lines.append("crosstable: row against column, mbb/hand ± 95% half-width")
        lines.append(" " * (width + 2) + "".join(f"{n[:cw - 2]:>{cw}}" for n in names))
        for i, r in enumerate(names):
            cells = []
            for j in range(len(names)):
                m, c = ct["mbb_per_hand"][i][j], ct["ci95"][i][j]
                cells.append(f"{'' if m is None else f'{m:+.0f}' + ('' if c is None else f' ±{c:.0f}'):>{cw}}")
            lines.append(f"{r:<{width}}  " + "".join(cells))
        rk = doc.get("rankings") or {}
        if rk.get("total_bankroll"):
            lines.append("ranking by total bankroll: " + ", ".join(rk["total_bankroll"]))
        if rk.get("instant_runoff"):
            lines.append("ranking by instant runoff: " + ", ".join(rk["instant_runoff"]))
    failed = [m for m in doc["matches"] if not m["complete"]]
    for m in failed:
        lines.append(f"WARNING: {m['label']} did not finish: {m['error']} (its hands so far are counted)")
    return "\n".join(lines)


# ------------------------------------------------------------------ running a plan

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


# ------------------------------------------------------------------ command line

def _name_and_value(text: str) -> tuple[str | None, str]:
    """Split ``NAME=VALUE`` when the part before the first ``=`` is a safe player name; a spec's ``=`` follows a ``:``."""
    head, eq, rest = text.partition("=")
    if eq and head and ":" not in head and safe_name(head) == head and rest.strip():
        return head, rest.strip()
    return None, text.strip()


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True,
                   help="game: hunl hulhe 3pl 3pnl 6pnl kuhn2p kuhn3p leduc leducnl, or a .game file")
    p.add_argument("--hands", type=int, default=1000, help="hands per match (default: 1000)")
    p.add_argument("--seed", type=int, default=0, help="deal seed of the first table; table i plays seed+i (default: 0)")
    p.add_argument("--duplicate", action="store_true",
                   help="replay each table's seed with the seats swapped (rotated for 3+ players) and pair the deals")
    p.add_argument("--transport", choices=TRANSPORTS, default="tcp",
                   help="tcp: dealer and one client process per seat over sockets; memory: the same match loop "
                        "in one process, no sockets (default: tcp)")
    p.add_argument("--external", action="append", default=[], metavar="[NAME=]CMD",
                   help="seat a program that takes host and port as its last two arguments (repeatable; "
                        "externals take the seats after the strategies)")
    p.add_argument("--name", help="run name (folder matches/runs/NAME-TIMESTAMP)")
    p.add_argument("--jobs", type=int, help="matches played at once (default: one per core)")


def _output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--runs-dir", default=str(RUNS_DIR), help=f"where run folders go (default: {RUNS_DIR})")


def build_parser() -> argparse.ArgumentParser:
    """The ``acpc-match`` command line."""
    parser = argparse.ArgumentParser(
        prog="acpc-match", description="Self-matches and tournaments through the bundled dealer, with honest "
        "statistics (mbb/hand, 95% intervals, duplicate pairing).", epilog="Exit status: 0 every match finished, "
        "1 a match did not finish (its hands so far are counted), 2 bad input.")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="one table: the given strategies in the given seats")
    _common(play)
    _output_options(play)
    play.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="players in seat order: strategy specs (raise:size=pot), or external:CMD for a "
                           "program; NAME= sets the player's log name")
    tour = sub.add_parser("tournament", help="every table of a round robin, in parallel, with a crosstable")
    _common(tour)
    _output_options(tour)
    tour.add_argument("strategies", nargs="*", metavar="[NAME=]STRATEGY",
                      help="the entrants (as for play); every set of as many as the game seats plays a table")
    tour.add_argument("--print-jobs", action="store_true",
                      help="print one 'acpc-match play' command per match instead of playing (to split a run "
                           "over machines; merge the run folders afterwards)")
    run = sub.add_parser("run", help="play a TOML recipe (see matches/*.toml)")
    run.add_argument("recipe", help="the recipe file")
    run.add_argument("--print-jobs", action="store_true", help="print one command per match instead of playing")
    _output_options(run)
    merge = sub.add_parser("merge", help="combine run folders into one (split tournaments, duplicate halves)")
    merge.add_argument("runs", nargs="+", metavar="RUN_DIR")
    merge.add_argument("--name", default="merge", help="name of the merged run (default: merge)")
    _output_options(merge)
    return parser


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The plan a ``play`` or ``tournament`` command line asks for; RecipeError naming the argument."""
    raw: list[tuple[str | None, str | None, str | None]] = []
    for text in args.strategies:
        raw.append(parse_player(*_name_and_value(text), where=f"player {text!r}"))
    for text in args.external:
        name, cmd = _name_and_value(text)
        raw.append(parse_player(name, EXTERNAL_PREFIX + cmd, where="--external"))
    if not raw:
        raise RecipeError("no players: give strategy specs (and/or --external commands)")
    entries = make_entries(raw)
    try:
        game = load_game(args.game)
    except GameDefError as exc:
        raise RecipeError(f"--game: {exc}") from None
    for i, e in enumerate(entries):
        if e.strategy is not None:
            check_strategy(e.strategy, game, f"strategy {i + 1} ({e.strategy})")
    mode = args.command
    if mode == "play" and len(entries) != game.num_players:
        raise RecipeError(f"{game.name} seats {game.num_players} players; got {len(entries)}")
    name = args.name or ("-vs-".join(e.name for e in entries) if mode == "play" and len(entries) <= 3
                         else f"{mode}-{Path(args.game).stem}")
    if safe_name(name) != name:
        name = safe_name(name)
    try:
        return build_plan(name=name, game=args.game, hands=args.hands, seed=args.seed, duplicate=args.duplicate,
                          mode=mode, entries=entries, transport=args.transport, parallel=args.jobs)
    except RecipeError as exc:
        raise RecipeError(f"--{exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 done, 1 a match failed, 2 bad input)."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "merge":
            doc = merge_runs(args.runs, args.runs_dir, safe_name(args.name))
        else:
            plan = load_recipe(args.recipe) if args.command == "run" else plan_from_args(args)
            if getattr(args, "print_jobs", False):
                for job in plan.jobs:
                    print(job_command(job, plan))
                return 0
            stream = sys.stderr if sys.stderr.isatty() else None
            doc = execute(plan, args.runs_dir, stream)
    except (RecipeError, RunError, StatsError) as exc:
        print(f"acpc-match: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("acpc-match: interrupted; the logs written so far are kept in the run folder", file=sys.stderr)
        return 130
    try:
        print(json.dumps(doc) if args.json else format_results(doc), flush=True)
    except BrokenPipeError:
        sys.stdout = None  # type: ignore[assignment]  # the reader left (| head): nothing more to print
    return 0 if all(m["complete"] for m in doc["matches"]) else 1


if __name__ == "__main__":
    sys.exit(main())
