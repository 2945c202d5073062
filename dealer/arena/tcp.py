"""The TCP transport of the arena: ``python -m dealer`` and one process per seat on 127.0.0.1 ports."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from acpcbot.children import die_with_parent
from acpcbot.connection import EXIT_DISCONNECTED
from acpcbot.notation.loglines import SCORE_PREFIX
from acpcbot.strategies.registry import absolute_plugin_path
from dealer.config import NO_CLOCK_FLAGS

from .folders import Outcome, RunError, add_played_rows, played_rows_name
from .lbr_seats import lbr_pair
from .recipes import Entry, Job, strategy_seed

HOST = "127.0.0.1"
START_TIMEOUT_MS = 60000  # players that do not connect within this time fail the match
DEALER_START_S = 60.0  # the dealer must print its ports within this time
CLIENT_EXIT_S = 10.0  # clients still running this long after the dealer ended are stopped
EXTERNAL_GRACE_S = 3.0  # an external program that exits mid-match: how long the dealer may take to end too


#: the folder, under the run folder, where each external program runs (one per player, kept across matches)
EXTERNALS_DIR = "external"


def python_command(module: str) -> list[str]:
    """``python -P -m MODULE``: -P keeps the working folder off the import path, so a package an external
    program leaves there can never stand in for the dealer or our clients."""
    return [sys.executable, "-P", "-m", module]


def child_env(plugin_dirs: Sequence[str] = ()) -> dict[str, str]:
    """The environment of the dealer and our clients: acpcbot and dealer from where this process has them.

    ``plugin_dirs`` are where strategy plugins (``module:Class`` specs) may
    be found besides the Python path (see ``acpcbot.strategies.registry``).
    """
    env = dict(os.environ)
    roots = [str(Path(__file__).resolve().parents[2])] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(roots)
    # seats run in folders of their own: relative plugin folders are read here, where they were given
    extra = [absolute_plugin_path()] if env.get("ACPCBOT_PLUGIN_PATH") else []
    if plugin_dirs or extra:
        env["ACPCBOT_PLUGIN_PATH"] = os.pathsep.join([*plugin_dirs, *extra])
    return env


def client_command(entry: Entry, job: Job, game_arg: str, port: int, played: Path | None = None) -> list[str]:
    """The command playing ``entry`` at ``port``: an acpcbot client process, or the external program; ``played``:
    where our client keeps the rows it played from (an absolute path: it runs in a folder of its own)."""
    if entry.external is not None:
        return shlex.split(entry.external) + [HOST, str(port)]
    cmd = python_command("acpcbot") + [
        HOST, str(port), "--game", game_arg, "--strategy", entry.strategy or "",
        "--seed", str(strategy_seed(job.seed, entry.name)), "--name", entry.name, "--log-level", "WARNING",
        "--retry", str(DEALER_START_S)]  # it may start before the dealer listens
    if played is not None:
        cmd += ["--played-rows", str(played)]
    for other in job.seats:
        if other.name != entry.name:
            cmd += ["--opponent", other.name]
    return cmd


def external_folder(run_dir: Path, entry: Entry) -> Path:
    """The working folder of an external program: its own, so that nothing it leaves reaches another player."""
    folder = run_dir / EXTERNALS_DIR / entry.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def stop_process(proc: asyncio.subprocess.Process) -> None:
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


async def play_job_tcp(job: Job, game_arg: str, run_dir: Path, plugin_dirs: Sequence[str] = ()) -> Outcome:
    """Play one job over TCP: ``python -m dealer`` in the run folder and one process per seat.

    Our own clients start together with the dealer on ports chosen here (they
    retry until it listens), which hides one interpreter start-up; external
    programs start once the dealer has printed its ports, as they may not
    retry.  A port taken meanwhile by another program is retried with others.
    """
    start = time.monotonic()
    for attempt in range(3):
        complete, error, files, port_clash = await _tcp_attempt(job, game_arg, run_dir, plugin_dirs)
        if not port_clash:
            break
    return Outcome(job, complete, error, files, time.monotonic() - start)


async def _tcp_attempt(job: Job, game_arg: str, run_dir: Path,
                       plugin_dirs: Sequence[str]) -> tuple[bool, str | None, dict[str, str], bool]:
    """One try at a TCP match: (complete, error, files, whether the dealer could not open a port)."""
    ports = free_ports(len(job.seats))
    # our seats work in an empty folder of their own, not the run folder external programs share: a module
    # planted there can never be found by a seat's plugin lookup, which ends in the current folder
    home = tempfile.mkdtemp(prefix=f"acpc-{job.label}-seats-")
    try:
        return await _tcp_match(job, game_arg, run_dir, ports, plugin_dirs, Path(home))
    finally:
        release_ports(ports)
        shutil.rmtree(home, ignore_errors=True)


async def _tcp_match(job: Job, game_arg: str, run_dir: Path, ports: list[int], plugin_dirs: Sequence[str] = (),
                     home: Path | None = None) -> tuple[bool, str | None, dict[str, str], bool]:
    """The dealer on ``ports`` and a process per seat; the result as :func:`_tcp_attempt` gives it.

    Every child starts in a session of its own: a Ctrl-C at the terminal
    reaches only acpc-match, which stops them itself and keeps what finished;
    and every child dies with acpc-match, even when it is killed outright
    (:func:`acpcbot.children.die_with_parent`), so none outlives the run or
    plays beside a later ``resume`` on the same files.
    """
    label = job.label
    files = {"log": f"{label}.log", "transcript": f"{label}.err"}
    dealer_cmd = python_command("dealer") + [
        label, game_arg, str(job.hands), str(job.seed), *[e.name for e in job.seats], "-p", ",".join(map(str, ports)),
        "--start_timeout", str(START_TIMEOUT_MS)]
    if lbr_pair(job) is not None:  # LBR's matches are not timed by the dealer, as in memory (lbr_seats.play_job_lbr)
        dealer_cmd += NO_CLOCK_FLAGS
    env = child_env(plugin_dirs)
    with open(run_dir / files["transcript"], "wb") as transcript:
        dealer = await asyncio.create_subprocess_exec(*dealer_cmd, cwd=run_dir, stdin=asyncio.subprocess.DEVNULL,
                                                      stdout=asyncio.subprocess.PIPE, stderr=transcript, env=env,
                                                      start_new_session=True, preexec_fn=die_with_parent())
    clients: list[tuple[int, Entry, asyncio.subprocess.Process, str]] = []
    error: str | None = None
    stdout = b""

    async def launch(seat: int, entry: Entry, port: int) -> str | None:
        stem = f"{label}.seat{seat}-{entry.name}"
        files[f"seat{seat}-out"], files[f"seat{seat}-err"] = f"{stem}.out", f"{stem}.err"
        cwd = external_folder(run_dir, entry) if entry.external is not None else (home or run_dir)
        with open(run_dir / f"{stem}.out", "wb") as out, open(run_dir / f"{stem}.err", "wb") as err:
            try:
                played = (run_dir / played_rows_name(label, seat, entry.name)).absolute()
                proc = await asyncio.create_subprocess_exec(
                    *client_command(entry, job, game_arg, port, played), cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
                    stdout=out, stderr=err, env=env, start_new_session=True, preexec_fn=die_with_parent())
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
            await stop_process(dealer)
            errs = _transcript_errors(run_dir / files["transcript"])
            clash = any("could not open port" in e for e in errs)
            return False, "the dealer did not start: " + ("; ".join(errs) or repr(first)), files, clash
        for seat, (entry, port) in seats:
            if entry.external is not None and error is None:
                error = await launch(seat, entry, port)
        if error is None:
            stdout, error = await _watch(dealer, clients)
            if error is None:  # the dealer ended: the clients finish their last lines; after a failed seat, stop them
                waits = [asyncio.wait_for(p.wait(), CLIENT_EXIT_S) for _, _, p, _ in clients]
                await asyncio.gather(*waits, return_exceptions=True)
    finally:
        for _, _, proc, _ in clients:
            await stop_process(proc)
        await stop_process(dealer)
    add_played_rows(files, run_dir, job)
    complete = error is None and dealer.returncode == 0 and SCORE_PREFIX.encode() in stdout
    if not complete and error is None:
        problems = _transcript_errors(run_dir / files["transcript"])
        for seat, entry, proc, stem in clients:
            if proc.returncode not in (0, None, -15):
                problems.append(f"seat {seat} ({entry.name}) exited with status {proc.returncode} (see {stem}.err)")
        error = "; ".join(problems) or f"the dealer exited with status {dealer.returncode}"
    return complete, error, files, False


async def _watch(dealer: asyncio.subprocess.Process,
                 clients: Sequence[tuple[int, Entry, asyncio.subprocess.Process, str]]) -> tuple[bytes, str | None]:
    """Wait for the dealer to end; a seat of ours that fails first ends the match at once.

    Without this a client that cannot start (a corrupt model file) would
    leave the dealer waiting out its start time-out for a seat that never comes.
    A seat that exits because the dealer went away (EXIT_DISCONNECTED) did
    not fail on its own: the dealer is ending, and its account says why.
    An external program that exits (with any status) while the dealer still
    runs gets EXTERNAL_GRACE_S for the dealer to end too; if it does not, the
    program left before the match ended (often: it never connected) and the
    match fails now, not after the dealer's start time-out.
    """
    assert dealer.stdout is not None
    reading = asyncio.ensure_future(dealer.stdout.read())
    watched: dict[asyncio.Future[Any], tuple[int, Entry, str]] = {
        asyncio.ensure_future(proc.wait()): (seat, entry, stem) for seat, entry, proc, stem in clients}
    pending = {reading, *watched}
    try:
        while reading in pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for fut in done:
                if fut not in watched:
                    continue
                seat, entry, stem = watched[fut]
                status = fut.result()
                if entry.external is None and status not in (0, EXIT_DISCONNECTED):
                    return b"", f"seat {seat} ({entry.name}) exited with status {status} (see {stem}.err)"
                if entry.external is not None and reading not in done:
                    finished, _ = await asyncio.wait({reading}, timeout=EXTERNAL_GRACE_S)
                    if not finished:
                        return b"", (f"seat {seat} ({entry.name}), an external program, exited with status {status} "
                                     f"before the match ended (see {stem}.err)")
                    pending.discard(reading)  # the dealer ended: the loop ends, as for any finished match
        await dealer.wait()
        return reading.result(), None
    finally:
        for fut in pending:
            fut.cancel()
