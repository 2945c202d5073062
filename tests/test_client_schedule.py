"""A strategy declares once how it runs (``Strategy.run_mode``), and every loop schedules it by that alone.

The blocking loop of the ``acpcbot`` command plays the strategies declared
inline; the asyncio loop plays the others, a guarded one on its own thread
under the deadline alarm (or, with no alarm, timed on the worker thread
first), an untimed one (a person) on the worker thread; the in-memory
seats show a strategy the states its declaration asks for, whatever
methods it overrides.
"""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from client_fakedealer import DealingDealer

from acpcbot import cli
from acpcbot.client import Client, open_connection
from acpcbot.direct import can_run_direct
from acpcbot.engine import CALL
from acpcbot.gamedef import load_game
from acpcbot.pacing import DeadlineAlarm
from acpcbot.scheduling import Schedule
from acpcbot.session import serve
from acpcbot.strategies.base import INLINE_TURNS, RunMode, Strategy
from acpcbot.strategies.simple import CallStrategy
from acpcbot.world import MatchInfo
from dealer.arena.memory import MemorySeat, is_lean

GAME = load_game("kuhn2p")


class WhereAmI(Strategy):
    """Calls, recording the thread of every ``act``; its run mode is given per instance."""

    name = "where-am-i"

    def __init__(self, mode: RunMode) -> None:
        super().__init__(GAME, random.Random(0))
        self.run_mode = mode
        self.threads: set[str] = set()
        self.deadlines: list[float] = []

    def act(self, view, deadline):
        self.threads.add(threading.current_thread().name)
        self.deadlines.append(deadline)
        return CALL


def _serve(strategy: Strategy, deadline_alarm: bool = True, hands: int = 12) -> Client:
    async def main() -> Client:
        dealer = DealingDealer(GAME, hands, seed=5)
        port = await dealer.start()
        client = Client(strategy, MatchInfo(GAME, time_per_hand=60.0), deadline_alarm=deadline_alarm)
        try:
            conn = await open_connection("127.0.0.1", port, clock=client.clock)
            try:
                await serve(client, conn)
            finally:
                conn.close()
            await asyncio.wait_for(dealer.done.wait(), 5)
        finally:
            await dealer.stop()
        assert dealer.problems == []
        return client

    return asyncio.run(asyncio.wait_for(main(), 60))


def test_only_a_strategy_declared_inline_is_played_by_the_blocking_loop():
    for where, blocking in (("inline", True), ("guarded", False), ("untimed", False)):
        for sees in ("every", "ends", "turns"):
            assert can_run_direct(WhereAmI(RunMode(where, sees))) is blocking, (where, sees)


def test_the_command_picks_the_loop_from_the_declaration(monkeypatch):
    loops: list[str] = []
    monkeypatch.setattr(cli, "run_direct", lambda *a, **k: loops.append("blocking") or 0)

    async def leavable(*args, **kwargs):
        loops.append("asyncio")
        return 0

    monkeypatch.setattr(cli, "play_leavable", leavable)
    for spec in ("call", "adaptive", "lbr:target=call"):  # inline, guarded, untimed
        assert cli.main(["127.0.0.1", "9", "--game", "hulhe", "--strategy", spec]) == 0
    assert loops == ["blocking", "asyncio", "asyncio"]


def test_an_inline_strategy_runs_on_the_loops_own_thread_with_no_worker():
    strategy = WhereAmI(RunMode("inline", "ends"))
    client = _serve(strategy)
    assert strategy.threads == {threading.main_thread().name}
    assert client.runs_inline and client.schedule.alarm is None


@pytest.mark.skipif(not DeadlineAlarm.available(), reason="no deadline alarm on this system")
def test_a_guarded_strategy_runs_on_the_loops_thread_under_the_alarm():
    strategy = WhereAmI(RunMode("guarded", "ends"))
    client = _serve(strategy)
    assert strategy.threads == {threading.main_thread().name}
    assert client.runs_inline and not client.schedule.probing


def test_a_guarded_strategy_without_an_alarm_starts_on_the_worker_thread():
    strategy = WhereAmI(RunMode("guarded", "ends"))
    client = _serve(strategy, deadline_alarm=False, hands=6)  # fewer decisions than the probe takes
    assert threading.main_thread().name not in strategy.threads and len(strategy.threads) == 1
    assert not client.runs_inline and client.schedule.probing


def test_an_untimed_strategy_runs_on_the_worker_thread_with_no_deadline():
    strategy = WhereAmI(RunMode("untimed", "every"))
    client = _serve(strategy)
    assert threading.main_thread().name not in strategy.threads
    assert not client.runs_inline and not client.schedule.probing
    assert not RunMode("untimed").time_limited and RunMode("guarded").time_limited


def test_a_schedule_moves_a_guarded_strategy_only():
    inline = Schedule(RunMode("inline"))
    inline.took(10.0)  # a declared inline strategy is never moved
    assert inline.inline and not inline.probing
    guarded = Schedule(RunMode("guarded"))
    assert not guarded.inline and guarded.probing
    guarded.use_alarm()
    guarded.took(10.0)  # slow on the loop's thread: back to the worker, for good
    assert not guarded.inline
    guarded.close_alarm()
    assert Schedule(RunMode("untimed")).probing is False


class CallWatching(CallStrategy):
    """call with an ``observe`` of its own that does not declare it: it still runs as call declares."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.observed: list[str] = []

    def observe(self, view):
        self.observed.append(view.text)


def test_nothing_is_inferred_from_the_methods_a_strategy_overrides():
    info = MatchInfo(GAME)
    undeclared = CallWatching(GAME, random.Random(0))
    assert undeclared.run_mode == INLINE_TURNS
    client = Client(undeclared, info)
    assert is_lean(client) and not client.needs_every_state and not MemorySeat(client).wants_every_state
    # the other seat's state: not shown to a strategy that sees its turns only, shown once it declares every state
    line = "MATCHSTATE:1:0::|Qs\r\n"  # kuhn2p: position 0 acts first
    client.decide(line)
    assert undeclared.observed == []
    declared = CallWatching(GAME, random.Random(0))
    declared.run_mode = RunMode("inline", "every")
    client = Client(declared, info)
    assert not is_lean(client) and client.needs_every_state and MemorySeat(client).wants_every_state
    client.decide(line)
    assert declared.observed == [line.rstrip("\r\n")]


def test_a_run_mode_names_only_known_ways():
    with pytest.raises(ValueError, match="where must be inline, guarded or untimed"):
        RunMode("threaded")
    with pytest.raises(ValueError, match="sees must be every, ends or turns"):
        RunMode("inline", "some")
