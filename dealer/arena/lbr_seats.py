"""In-memory matches where an ``lbr`` seat plays its own target: LBR is wired to the target's real object (exact).

Over TCP, or when its target is not at the table, an ``lbr`` seat best-responds
to a shadow copy of the target it builds itself (``acpcbot.strategies.lbr``).
When the in-memory transport seats both, this module builds the target as
the runner would (same spec, same seed), seats it through a
:class:`~acpcbot.strategies.lbr.TargetProxy` (which records its policy before
each of its actions and changes nothing else) and hands LBR the live model,
so LBR reads the real target's policies and learned state.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable

from acpcbot.gamedef import load_game
from acpcbot.strategies.lbr import LBRStrategy, LiveTarget
from acpcbot.strategies.registry import create, parse_spec
from acpcbot.world import MatchInfo
from dealer.config import MatchConfig

from . import memory
from .folders import Outcome
from .recipes import Entry, Job, strategy_seed


def _normal(spec: str) -> str:
    return spec.strip().replace(";", ",")


def lbr_pair(job: Job) -> tuple[int, int] | None:
    """(LBR's seat, its target's seat) when the job seats an ``lbr`` player and the very target it names, else None."""
    if len(job.seats) != 2:
        return None
    for me, entry in enumerate(job.seats):
        if entry.strategy is None:
            continue
        try:
            name, params = parse_spec(entry.strategy)
        except ValueError:
            continue
        if name != LBRStrategy.name or not params.get("target"):
            continue
        other: Entry = job.seats[1 - me]
        if other.strategy is not None and _normal(other.strategy) == _normal(params["target"]) and \
                params.get("tname", other.name) == other.name:
            return me, 1 - me
    return None


def memory_job(job: Job) -> Callable[[Job, str, str], Outcome]:
    """The in-memory job function for ``job``: LBR wired to its live target when both sit, else the plain one."""
    return play_job_lbr if lbr_pair(job) is not None else memory.play_job


def play_job_lbr(job: Job, game_arg: str, run_dir: str) -> Outcome:
    """Play one job in memory with LBR reading its target's real object (the runner calls this, maybe in a pool)."""
    start = time.monotonic()
    pair = lbr_pair(job)
    assert pair is not None, "play_job_lbr needs a job seating lbr and its target"
    me, them = pair
    game = load_game(game_arg)
    names = [e.name for e in job.seats]
    config = MatchConfig(match_name=job.label, game=game, game_arg=game_arg, num_hands=job.hands, seed=job.seed,
                         names=names, quiet=True)
    folder = Path(run_dir)
    files = {"log": f"{job.label}.log", "transcript": f"{job.label}.err", "clients": f"{job.label}.clients.err"}
    handler = logging.FileHandler(folder / files["clients"], encoding="utf-8")
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("acpcbot")
    root.addHandler(handler)
    saved = root.propagate
    root.propagate = False  # the seats' warnings go to the run folder, not the terminal
    try:
        strategies = [create(e.strategy or "", game, strategy_seed(job.seed, e.name)) for e in job.seats]
        live = LiveTarget(strategies[them])
        lbr = strategies[me]
        assert isinstance(lbr, LBRStrategy)
        lbr.attach(live)
        strategies[them] = live.proxy
        players = []
        for seat, strategy in enumerate(strategies):
            opponents = tuple(n for s, n in enumerate(names) if s != seat)
            players.append((strategy, MatchInfo(game=game, name=names[seat],
                                                seed=strategy_seed(job.seed, names[seat]),
                                                opponents=opponents, spec=strategy.spec)))
        seats = [(e.name, e.strategy or "") for e in job.seats]
        played = memory.play_match(config, seats, folder / files["log"], folder / files["transcript"],
                                   players=players)
        finished, error = played.finished, played.error
        if lbr.resets:
            logging.getLogger("acpcbot.strategies.lbr").warning(
                "LBR's range ran empty %d times (the target played actions its policy gives no probability)",
                lbr.resets)
    except Exception as exc:  # noqa: BLE001 - one broken match must not lose the others
        finished, error = False, f"{type(exc).__name__}: {exc}"
    finally:
        root.removeHandler(handler)
        root.propagate = saved
        handler.close()
    if (folder / files["clients"]).stat().st_size == 0:
        (folder / files["clients"]).unlink()
        del files["clients"]
    return Outcome(job, finished, error, files, time.monotonic() - start)
