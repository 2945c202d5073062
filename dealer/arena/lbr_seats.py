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
import threading
from typing import Callable

from acpcbot.gamedef import GameDef
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.lbr import LBRStrategy, LiveTarget
from acpcbot.strategies.registry import create, parse_spec
from acpcbot.world import MatchInfo

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


def memory_job(job: Job) -> Callable[..., Outcome]:
    """The in-memory job function for ``job``: LBR wired to its live target when both sit, else the plain one."""
    return play_job_lbr if lbr_pair(job) is not None else memory.play_job


def play_job_lbr(job: Job, game_arg: str, run_dir: str, stop: threading.Event | None = None) -> Outcome:
    """Play one job in memory with LBR reading its target's real object (the runner calls this, maybe in a pool).

    The dealer times neither seat: LBR is the measuring instrument, whose decisions (every size of its setting
    valued against the target's range) may outlast the competition's budget on a busy machine, and a match
    it ended by running out of time would lose the measurement; the target still paces itself by its own
    budget (7 s a hand), as in any match."""
    return memory.play_job(job, game_arg, run_dir, seating=lbr_seating, clocked=False, stop=stop)


def lbr_seating(job: Job, game: GameDef) -> tuple[list[tuple[Strategy, MatchInfo]], Callable[[], None]]:
    """The seats of a job seating lbr and its target (``memory.Seating``): the target behind a proxy whose live
    model LBR reads; after the match, a warning when LBR's range ran empty."""
    pair = lbr_pair(job)
    assert pair is not None, "lbr_seating needs a job seating lbr and its target"
    me, them = pair
    names = [e.name for e in job.seats]
    strategies = [create(e.strategy or "", game, strategy_seed(job.seed, e.name)) for e in job.seats]
    live = LiveTarget(strategies[them])
    lbr = strategies[me]
    assert isinstance(lbr, LBRStrategy)
    lbr.attach(live)
    strategies[them] = live.proxy
    players = []
    for seat, strategy in enumerate(strategies):
        opponents = tuple(n for s, n in enumerate(names) if s != seat)
        players.append((strategy, MatchInfo(game=game, name=names[seat], seed=strategy_seed(job.seed, names[seat]),
                                            opponents=opponents, spec=strategy.spec)))

    def after() -> None:
        if lbr.resets:
            logging.getLogger("acpcbot.strategies.lbr").warning(
                "LBR's range ran empty %d times (the target played actions its policy gives no probability)",
                lbr.resets)

    return players, after
