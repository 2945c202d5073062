"""Run folders and what a played match leaves in one: the folder, the outcome, its results.json record."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .recipes import Job, safe_name


def default_runs_dir() -> Path:
    """Where run folders go by default: the checkout's ``matches/runs``, wherever the command is run from.

    An installed copy without a checkout uses ``$XDG_DATA_HOME/acpcbot/runs``
    (``~/.local/share/acpcbot/runs``), never the current folder.
    """
    root = Path(__file__).resolve().parents[2]
    if (root / "matches").is_dir() and (root / "pyproject.toml").is_file():
        return root / "matches" / "runs"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "acpcbot" / "runs"


def match_command() -> str:
    """How to call acpc-match again from here, for messages: ``acpc-match`` when it is on PATH, else its path
    (``.venv/bin/acpc-match`` in a fresh clone whose environment is not activated)."""
    found = shutil.which("acpc-match")
    script = Path(sys.executable).parent / "acpc-match"
    if found and Path(found).resolve() == script.resolve() or not script.is_file():
        return "acpc-match"
    here = Path.cwd()
    if here != Path(here.anchor) and script.absolute().is_relative_to(here):
        return str(script.absolute().relative_to(here))
    return str(script.absolute())


RUNS_DIR = default_runs_dir()
RESULTS = "results.json"
REPORT = "report.svg"


class RunError(Exception):
    """A run that cannot start or whose results cannot be read, with a message for the user."""


def first_free_folder(base: Path, stem: str, tries: int) -> Path | None:
    """Create and return the first of ``base/stem``, ``stem-2`` ... ``stem-TRIES`` not taken yet (None: all are).

    ``base`` must exist; mkdir is the test, so two processes never get the same folder.  OSError passes on.
    """
    for k in range(1, tries + 1):
        path = base / (stem if k == 1 else f"{stem}-{k}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    return None


def new_run_dir(runs_dir: str | Path, name: str) -> Path:
    """Create ``runs_dir/NAME-YYYYmmdd-HHMMSS`` (with ``-2``, ``-3``... when taken) and return it."""
    base = Path(runs_dir).absolute()
    stem = f"{safe_name(name, 'run')}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    try:
        base.mkdir(parents=True, exist_ok=True)
        path = first_free_folder(base, stem, 999)
        if path is not None:
            return path
    except OSError as exc:
        raise RunError(f"cannot create a run folder under {base}: {exc.strerror or exc}") from None
    raise RunError(f"cannot create a run folder under {base}: {stem} and 998 more are taken")


def exact_run_dir(path: str | Path) -> Path:
    """Use ``path`` itself as the run folder (a batch job's own folder): created, or taken when it is empty."""
    folder = Path(path).absolute()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"--run-dir: cannot create {folder}: {exc.strerror or exc}") from None
    if any(folder.iterdir()):
        raise RunError(f"--run-dir: {folder} is not empty; a run folder holds one run")
    return folder


@dataclass
class Outcome:
    """How one match went: whether it finished, why not, and the files it left in the run folder."""

    job: Job
    complete: bool
    error: str | None
    files: dict[str, str]  # role -> file name in the run folder ("log", "transcript", "seat1-out"...)
    seconds: float


def played_rows_name(label: str, seat: int, name: str) -> str:
    """The file in the run folder where seat ``seat`` (1-based), player ``name``, of match ``label`` keeps the rows
    it played from (``acpcbot.notation.played``; only a strategy with ``played_policy`` writes one)."""
    return f"{label}.seat{seat}-{name}.played"


def add_played_rows(files: dict[str, str], run_dir: Path, job: Job) -> None:
    """List in ``files`` the played-rows files ``job``'s seats left in ``run_dir`` (role ``seatN-played``): a merge
    copies them with the log, and the analysis of the merged run reads them."""
    for seat, entry in enumerate(job.seats, start=1):
        name = played_rows_name(job.label, seat, entry.name)
        if (run_dir / name).is_file():
            files[f"seat{seat}-played"] = name


def job_record(outcome: Outcome, game_name: str) -> dict[str, Any]:
    """The ``matches`` entry of results.json for one played match."""
    job = outcome.job
    return {"label": job.label, "game": game_name, "seed": job.seed, "hands": job.hands, "table": job.table,
            "seats": [{"player": e.name, "strategy": e.spec} for e in job.seats],
            "complete": outcome.complete, "error": outcome.error, "seconds": round(outcome.seconds, 3),
            "files": outcome.files}
