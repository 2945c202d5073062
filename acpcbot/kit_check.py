"""Checking a competition kit as the organisers would: a short match through the bundled dealer, every child ended."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .children import die_with_parent
from .gamedef import GameDef, parse_game
from .kit_build import MANIFEST, SHUTDOWN_SECONDS, KitError
from .notation.loglines import SCORE_PREFIX, STATE_PREFIX

KIT_GONE_GRACE = 3.0  # a kit that exits while the dealer still runs: how long the dealer may take to end too
#: the dealer's own wait for the seats outlasts the check's limit by this much, so that a kit that never connects is
#: reported by the check's time-out, not by whichever of the two timers a busy machine lets fire first
START_MARGIN = 10.0

@dataclass
class CheckResult:
    """What a check match showed; ``problems`` is empty when the kit passed."""

    hands: int = 0
    score: str = ""
    seconds: float = 0.0
    workdir: Path | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the kit passed."""
        return not self.problems


class CheckInterrupted(Exception):
    """A check stopped by SIGTERM or SIGHUP (its dealer and seats are ended first); ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum


def _read_manifest(kit: Path) -> tuple[dict, GameDef]:
    """The kit's manifest and game; KitError naming the kit for anything unreadable (never a traceback)."""
    path = kit / MANIFEST
    if not path.is_file():
        raise KitError(f"{kit}: not a readable kit: no {MANIFEST} file")
    try:
        manifest = json.loads(path.read_text())
        game_file = manifest["game_file"] if isinstance(manifest, dict) else None
        if not isinstance(game_file, str) or Path(game_file).name != game_file or not (kit / game_file).is_file():
            raise ValueError(f"game_file {str(game_file)[:60]!r} is not a file of the kit")
        game = parse_game((kit / game_file).read_text(), str(kit / game_file))
    except RecursionError:
        raise KitError(f"{kit}: not a readable kit: {MANIFEST} is nested too deeply") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KitError(f"{kit}: not a readable kit ({MANIFEST} and its game file): {str(exc)[:200]}") from None
    return manifest, game


def check_kit(kit: str | os.PathLike[str], hands: int = 20, seed: int = 0, *, copy: bool = True,
              workdir: str | os.PathLike[str] | None = None, timeout: float | None = None) -> CheckResult:
    """Play ``hands`` hands through the bundled dealer with the kit's startme.sh in seat 1; see the module doc.

    Without ``workdir`` the check works in a temporary folder that it
    removes again (a kit copy with its built environment is some 200 MB):
    all of it when the kit passed, all but the match files when it failed.
    SIGTERM and SIGHUP end the dealer and the seats before
    :class:`CheckInterrupted` is raised; every child also dies with this
    process if it is killed outright.
    """
    kit = Path(kit).resolve()
    _manifest, game = _read_manifest(kit)
    if not (kit / "startme.sh").is_file():
        raise KitError(f"{kit}: no startme.sh")
    if importlib.util.find_spec("dealer") is None:
        raise KitError("the check needs the bundled dealer (python -m dealer): run it from an acpcbot install")
    temporary = workdir is None
    work = Path(tempfile.mkdtemp(prefix="acpcbot-check-")) if workdir is None else Path(workdir)
    result = CheckResult(workdir=work)
    procs: list[subprocess.Popen] = []
    played = False
    restore = _stop_on_signals()
    try:
        work.mkdir(parents=True, exist_ok=True)
        if copy:
            target = work / kit.name
            shutil.copytree(kit, target, symlinks=True, ignore=shutil.ignore_patterns("venv", "venv.lock", "cache"))
            kit = target
        # generous: a first start builds the environment; the hands themselves take seconds
        limit = timeout if timeout is not None else 300.0 + 2.0 * hands
        started = time.monotonic()
        try:
            _play_check_match(kit, game, hands, seed, work, limit, procs, result)
        finally:
            for proc in procs:
                _kill_group(proc)
        result.seconds = time.monotonic() - started
        played = True
    except OSError as exc:
        raise KitError(f"{work}: cannot prepare the check: {exc.strerror or exc}") from None
    finally:
        restore()
        if temporary:
            _tidy(work, keep_match_files=played and not result.ok)
    if temporary and result.ok:
        result.workdir = None
    return result


def _stop_on_signals() -> "Callable[[], None]":
    """Turn SIGTERM and SIGHUP into CheckInterrupted while a check runs (main thread only); return the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum: int, _frame: object) -> None:
        raise CheckInterrupted(signum)

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def undo() -> None:
        for sig, handler in before.items():
            signal.signal(sig, handler)

    return undo


def _tidy(work: Path, keep_match_files: bool) -> None:
    """Remove a temporary check folder: all of it, or all but the match's own files (logs, transcripts, outputs)."""
    if not keep_match_files:
        shutil.rmtree(work, ignore_errors=True)
        return
    for entry in work.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)


def _play_check_match(kit: Path, game: GameDef, hands: int, seed: int, work: Path, limit: float,
                      procs: list[subprocess.Popen], result: CheckResult) -> None:
    n = game.num_players
    names = ["kit"] + [f"random{i}" for i in range(1, n)]
    game_file = str(kit / "game.game")
    transcript = work / "check.err"
    with open(transcript, "wb") as err:
        dealer = subprocess.Popen([sys.executable, "-m", "dealer", "check", game_file, str(hands), str(seed),
                                   *names, "--start_timeout", str(int((limit + START_MARGIN) * 1000))], cwd=work,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                  start_new_session=True, preexec_fn=die_with_parent())
    procs.append(dealer)
    lines: list[str] = []
    first_line = threading.Event()

    def read_stdout() -> None:
        assert dealer.stdout is not None
        for raw in dealer.stdout:
            lines.append(raw.decode("utf-8", "replace").strip())
            first_line.set()
        first_line.set()

    threading.Thread(target=read_stdout, daemon=True).start()
    if not first_line.wait(60.0) or not lines:
        result.problems.append("the dealer printed no ports: " + _tail(transcript))
        return
    try:
        ports = [int(p) for p in lines[0].split()]
    except ValueError:
        result.problems.append(f"the dealer's first line is not its ports: {lines[0]!r}")
        return
    # the kit starts as acpc_play_match.pl starts a player: ./startme.sh HOST PORT in its own folder
    seats = [_start(["./startme.sh", "127.0.0.1", str(ports[0])], kit, work / "kit")]
    procs.extend(seats)
    for i in range(1, n):
        seats.append(_start([sys.executable, "-m", "acpcbot", "127.0.0.1", str(ports[i]), "--game", game_file,
                             "--strategy", "random", "--seed", str(seed + i), "--name", names[i],
                             "--log-level", "WARNING"], work, work / names[i]))
        procs.append(seats[-1])
    ended = _wait_for_dealer(dealer, seats[0], limit)
    if ended == "timeout":
        result.problems.append(f"the match did not end within {limit:.0f} s; kit.err: {_tail(work / 'kit.err')}")
        return
    if ended == "kit":
        result.problems.append(f"startme.sh exited with status {seats[0].returncode} before the match ended: "
                               f"kit.err: {_tail(work / 'kit.err')}")
        return
    for seat in seats:
        try:
            seat.wait(timeout=SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    if seats[0].returncode is None:
        result.problems.append(f"the kit was still running {SHUTDOWN_SECONDS:.0f} s after the match ended")
    elif seats[0].returncode != 0:
        result.problems.append(f"startme.sh exited with status {seats[0].returncode}: {_tail(work / 'kit.err')}")
    if dealer.returncode != 0:
        result.problems.append(f"the dealer exited with status {dealer.returncode}: {_tail(transcript)}")
    text = transcript.read_text(errors="replace")
    warnings = [line for line in text.splitlines() if "WARNING" in line or "ERROR" in line]
    if warnings:
        result.problems.append(f"{len(warnings)} WARNING/ERROR lines in the dealer's transcript, first: {warnings[0]}")
    result.score = next((line for line in reversed(lines) if line.startswith(SCORE_PREFIX)), "")
    log = work / "check.log"
    result.hands = sum(1 for line in log.read_text().splitlines() if line.startswith(STATE_PREFIX)) if log.is_file() else 0
    if result.hands != hands:
        result.problems.append(f"the log holds {result.hands} hands, {hands} were to be played")


def _wait_for_dealer(dealer: subprocess.Popen, kit: subprocess.Popen, limit: float) -> str:
    """Wait for the dealer to end: "dealer"; "kit" when the kit exited and the dealer did not end within
    KIT_GONE_GRACE seconds of it (it died at start: say so now, not after ``limit``); "timeout" after ``limit``."""
    deadline = time.monotonic() + limit
    kit_gone: float | None = None
    while True:
        try:
            dealer.wait(timeout=0.2)
            return "dealer"
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if kit_gone is None and kit.poll() is not None:
            kit_gone = now
        if kit_gone is not None and now - kit_gone > KIT_GONE_GRACE:
            return "kit"
        if now > deadline:
            return "timeout"


def _start(cmd: list[str], cwd: Path, stem: Path) -> subprocess.Popen:
    with open(f"{stem}.out", "wb") as out, open(f"{stem}.err", "wb") as err:
        return subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True, preexec_fn=die_with_parent())


def _kill_group(proc: subprocess.Popen) -> None:
    # each child leads its own session: end it and whatever it started (startme.sh's python), by its id
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _tail(path: Path, lines: int = 3) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:]) or "(empty)"
    except OSError:
        return "(missing)"


