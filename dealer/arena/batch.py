"""A run as one shell command per match, for GNU parallel, Slurm job arrays or any batch system; merged afterwards.

Each command is self-contained: it changes to a stated root folder, runs
this installation's own ``acpc-match`` by its absolute path, names every
file absolutely (strategy files and external programs were resolved when
the plan was made) and writes into its own output folder
(``--run-dir``), so any host that sees the same paths can run it, in any
order.  ``acpc-match merge`` then combines the folders into one run whose
figures equal those of the run played on one machine.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Sequence

from .folders import RunError, first_free_folder
from .recipes import Job, Plan, RecipeError


def _one_line(text: str) -> bool:
    """Whether ``text`` stays on one line of a jobs file: no character any line reader splits at, no NUL."""
    return "\0" not in text and len((text + "x").splitlines()) == 1 and "\r" not in text


def shell_line(words: Sequence[str], what: Sequence[str]) -> str:
    """``words`` as one shell-quoted line; RecipeError naming the text (``what[i]`` says whose) with a line break.

    A line break inside a quoted word would still split the line for
    ``sed -n Np``, GNU parallel or a Slurm array that runs one line per job,
    and the second half would run as a command of its own.
    """
    for word, where in zip(words, what):
        if not _one_line(word):
            raise RecipeError(f"{where}: {word[:60]!r} holds a line break (or NUL); a job line cannot carry it "
                              f"(--print-jobs prints one command per line)")
    return " ".join(shlex.quote(w) for w in words)


def acpc_match_program() -> list[str]:
    """This installation's ``acpc-match``: the console script beside the interpreter, else ``python -m dealer.arena``."""
    python = Path(os.path.abspath(sys.executable))  # not resolved: a venv's python is a link that must stay
    script = python.parent / "acpc-match"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [str(python), "-m", "dealer.arena"]


def jobs_folder(runs_dir: str | Path, plan: Plan) -> Path:
    """A new folder under which the jobs of ``plan`` write their run folders: ``NAME-jobs``, else ``NAME-jobs-2``...

    Made here, when the commands are printed, so that a second batch of the same recipe never writes into the
    folder of the first (its jobs would find their folders taken); RunError when it cannot be made.
    """
    base = Path(runs_dir).absolute()
    try:
        base.mkdir(parents=True, exist_ok=True)
        folder = first_free_folder(base, f"{plan.name}-jobs", 9_999)
    except OSError as exc:
        raise RunError(f"--runs-dir: cannot create a folder under {base}: {exc.strerror or exc}") from None
    if folder is not None:
        return folder
    raise RunError(f"--runs-dir: every {plan.name}-jobs-N folder under {base} is taken")


def job_command(job: Job, plan: Plan, root: str | Path, out_dir: str | Path) -> str:
    """The shell command that plays exactly ``job`` into ``out_dir/LABEL`` from the folder ``root``.

    Every word is quoted; RecipeError naming the text when one holds a line break (see :func:`shell_line`).
    """
    game = str(Path(plan.game_name).absolute()) if Path(plan.game_name).is_file() else plan.game_name
    program = acpc_match_program()
    pairs = [*((w, "the program (acpc-match)") for w in program), ("play", ""), ("--game", ""), (game, "--game"),
             ("--hands", ""), (str(job.hands), "--hands"), ("--seed", ""), (str(job.seed), "--seed"),
             ("--transport", ""), (plan.transport, "--transport"), ("--name", ""),
             (f"{plan.name}-{job.label}", "the run name"), ("--jobs", ""), ("1", ""), ("--run-dir", ""),
             (str(Path(out_dir).absolute() / job.label), "--runs-dir (the jobs' folder)"), ("--quiet", "")]
    pairs += [(f"{e.name}={e.spec}", f"player {e.name}") for e in job.seats]
    cd = shell_line([str(Path(root).absolute())], ["the folder the jobs start in"])
    return f"cd {cd} && " + shell_line([w for w, _ in pairs], [k for _, k in pairs])


def merge_hint(plan: Plan, out_dir: str | Path) -> str:
    """The command that merges the jobs' folders once they are done (the folder quoted, the glob left to the shell)."""
    program = shell_line(acpc_match_program(), ["the program (acpc-match)"])
    folder = shell_line([str(out_dir)], ["--runs-dir (the jobs' folder)"])
    return f"# {len(plan.jobs)} jobs; when they are done: {program} merge {folder}/match-*"


def job_commands(plan: Plan, root: str | Path, out_dir: str | Path) -> list[str]:
    """One command per match of ``plan`` (see :func:`job_command`)."""
    return [job_command(job, plan, root, out_dir) for job in plan.jobs]
