"""The client on a full disk, against a silent dealer, over a long match, and where its strategy runs (issues 13 and 15)."""

from __future__ import annotations

import asyncio
import errno
import gc
import io
import json
import logging
import os
import random
import resource
import socket
import sys
import tempfile
import types
from pathlib import Path

from client_fakedealer import HULHE_EXCHANGE, DealingDealer, ScriptedDealer, script_of

from acpcbot.client import (
    EXIT_DISCONNECTED,
    EXIT_OK,
    INLINE_BACKOFF_S,
    INLINE_MAX_S,
    PROBE_DECISIONS,
    Client,
    open_connection,
)
from acpcbot.connection import KEEPALIVE_IDLE
from acpcbot.engine import CALL
from acpcbot.gamedef import load_game
from acpcbot.session import run, serve
from acpcbot.strategies.base import RunMode, Strategy
from acpcbot.strategies.simple import RandomStrategy
from acpcbot.world import KEEP_HANDS, MatchInfo
from dealer.arena.memory import play_match
from dealer.config import MatchConfig

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------- --history on a full disk

def _records(path: Path) -> list[dict]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "the history ends in the middle of a record"
    return [json.loads(line) for line in text.splitlines()]


def test_a_history_file_over_the_file_size_limit_keeps_whole_records_and_the_match_ends_well(tmp_path):
    history = tmp_path / "hands.jsonl"
    limit = 400  # one record of the example (~330 bytes) fits, the second does not

    async def main():
        dealer = ScriptedDealer(script_of(HULHE_EXCHANGE))
        port = await dealer.start()

        def small_files():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "acpcbot", "127.0.0.1", str(port), "--game", "hulhe", "--strategy", "call",
            "--seed", "1", "--history", str(history), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            preexec_fn=small_files, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 60)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            await dealer.stop()
        return proc.returncode, err.decode()

    code, err = asyncio.run(main())
    assert code == EXIT_OK, err  # before: the close of the file failed again after a played match (exit 1)
    records = _records(history)
    assert [r["hand"] for r in records] == [0]
    assert history.stat().st_size <= limit
    assert err.count("cannot write the history file") == 1 and "history stops at hand 1" in err
    assert "match over: 3 hands" in err


class FullDisk(io.StringIO):
    """A text file whose device fills after ``room`` characters: the failed rest stays buffered, as in a real file."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room
        self.pending = ""
        self.flushes = 0

    def write(self, text: str) -> int:
        self.pending += text
        return len(text)

    def flush(self) -> None:
        self.flushes += 1
        take = self.pending[:max(0, self.room - len(self.getvalue()))]
        super().write(take)
        self.pending = self.pending[len(take):]
        if self.pending:
            raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        if not self.closed:
            try:
                self.flush()  # the buffered rest fails again
            finally:
                self.saved = self.getvalue()
                super().close()


def test_a_failing_history_object_is_closed_once_and_the_owner_can_close_it_again():
    game = load_game("hulhe")
    history = FullDisk(room=500)

    async def main():
        dealer = ScriptedDealer(script_of(HULHE_EXCHANGE))
        port = await dealer.start()
        try:
            return await run(create_call(game), MatchInfo(game, seed=1), "127.0.0.1", port, history=history)
        finally:
            await dealer.stop()

    assert asyncio.run(main()) == EXIT_OK
    assert history.closed
    history.close()  # what acpcbot's command line does at the end: no second failure
    kept = history.saved
    assert kept.count("\n") >= 1  # whole records up to the failure; a stream cannot be cut back, so the
    assert history.flushes >= 2  # partly written one stays, and nothing was written after the failure


def create_call(game):
    from acpcbot.strategies.registry import create
    return create("call", game, 1)


# ----------------------------------------------------------------- a silent dealer, keepalive

def test_an_idle_limit_ends_a_match_whose_dealer_stalls_with_the_socket_open(caplog):
    game = load_game("hunl")
    script = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("sleep", 5.0), ("close",)]

    async def main():
        dealer = ScriptedDealer(script)
        port = await dealer.start()
        try:
            return await run(create_call(game), MatchInfo(game), "127.0.0.1", port, idle_timeout=0.3)
        finally:
            await dealer.stop()

    code = asyncio.run(asyncio.wait_for(main(), 20))
    assert code == EXIT_DISCONNECTED
    assert "the dealer sent nothing for 0.3 s (idle limit)" in caplog.text


def test_the_connection_has_tcp_keepalive():

    async def main():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            conn = await open_connection("127.0.0.1", port)
            sock = conn.transport.get_extra_info("socket")
            options = (sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                       sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE))
            conn.close()
            return options
        finally:
            server.close()
            await server.wait_closed()

    keepalive, idle = asyncio.run(asyncio.wait_for(main(), 20))
    assert keepalive and idle == KEEPALIVE_IDLE


# ----------------------------------------------------------------- memory over a long match

def _retained_bytes(root, skip=()):
    shared = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType)
    seen, stack, total = set(), [root], 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, shared) or any(obj is s for s in skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


class RandomWatching(RandomStrategy):
    """random with an ``observe``, declared: not lean, so the in-memory dealer gives it every state and it keeps
    the history."""

    run_mode = RunMode("inline", "every")

    def observe(self, view):
        pass


def test_what_a_client_keeps_stops_growing_once_its_history_is_full():
    game = load_game("kuhn2p")

    def after(hands):
        config = MatchConfig("m", game, "kuhn2p", hands, 3, ["a", "b"], quiet=True)
        with tempfile.TemporaryDirectory() as tmp:
            players = [(RandomWatching(game, random.Random(1)), MatchInfo(game, name="a")),
                       (create_call(game), MatchInfo(game, name="b"))]
            played = play_match(config, [("a", "random"), ("b", "call")], Path(tmp) / "m.log", players=players)
        client = played.clients[0]
        assert client.world.match.hands_played == hands and len(client.world.match.hands) == KEEP_HANDS
        assert played.clients[1].world.match.hands_played == 0  # call is lean: asked for its turns only
        return _retained_bytes(client, skip=(game, client.strategy))

    # each hand record is about 1 KB: 1,000 more hands kept would be a megabyte
    assert after(KEEP_HANDS + 1200) - after(KEEP_HANDS + 200) < 20_000


# ----------------------------------------------------------------- where the strategy runs

class Timed(Strategy):
    """Calls; sleeps ``delay(n)`` seconds in its n-th decision; declares nothing about its speed."""

    name = "test-timed"

    def __init__(self, game, delay):
        super().__init__(game, random.Random(0))
        self.delay = delay
        self.decisions = 0

    def act(self, view, deadline):
        pause = self.delay(self.decisions)
        self.decisions += 1
        if pause:
            import time
            time.sleep(pause)
        return CALL


def _serve(strategy, hands=60, deadline_alarm=True, time_per_hand=60.0):
    game = strategy.game

    async def main():
        dealer = DealingDealer(game, hands, seed=4)
        port = await dealer.start()
        client = Client(strategy, MatchInfo(game, time_per_hand=time_per_hand), deadline_alarm=deadline_alarm)
        try:
            conn = await open_connection("127.0.0.1", port, clock=client.clock)
            try:
                await serve(client, conn)
            finally:
                conn.close()
            await asyncio.wait_for(dealer.done.wait(), 5)
        finally:
            await dealer.stop()
        return client, dealer

    return asyncio.run(asyncio.wait_for(main(), 60))


def test_a_strategy_that_proves_fast_moves_inline_after_its_probe(caplog):
    game = load_game("hunl")
    with caplog.at_level(logging.INFO):
        client, dealer = _serve(Timed(game, lambda n: 0.0), deadline_alarm=False)
    assert dealer.problems == [] and client.replies > PROBE_DECISIONS
    assert "took at most" in caplog.text and "it now runs inline" in caplog.text


def test_a_slow_strategy_stays_on_the_thread():
    game = load_game("hunl")
    client, dealer = _serve(Timed(game, lambda n: 3 * INLINE_MAX_S), deadline_alarm=False)
    assert dealer.problems == [] and not client.runs_inline


def test_a_strategy_moved_inline_goes_back_to_the_thread_once_it_is_slow(caplog):
    game = load_game("hunl")
    slow_from = PROBE_DECISIONS + 5
    with caplog.at_level(logging.INFO):
        client, dealer = _serve(Timed(game, lambda n: 2 * INLINE_BACKOFF_S if n == slow_from else 0.0),
                                deadline_alarm=False)
    assert dealer.problems == [] and client.replies > slow_from
    assert "it now runs inline" in caplog.text and "run on the worker thread again" in caplog.text
    assert not client.runs_inline


def test_under_the_deadline_alarm_a_strategy_that_declares_nothing_decides_on_the_clients_thread(caplog):
    """With the alarm to cut it, a strategy too slow for the probe (6 ms a decision) needs no worker thread."""
    import threading

    game = load_game("hunl")
    where = set()

    class Where(Timed):
        def act(self, view, deadline):
            where.add(threading.current_thread().name)
            return super().act(view, deadline)

    with caplog.at_level(logging.INFO):
        client, dealer = _serve(Where(game, lambda n: 3 * INLINE_MAX_S), hands=20)
    assert dealer.problems == [] and client.replies > 10 and client.fallbacks == 0
    assert client.runs_inline and where == {threading.main_thread().name}
    assert "did not answer" not in caplog.text and "worker thread" not in caplog.text
    assert "decides on the client's own thread, cut at its deadline by an alarm" in caplog.text


def test_the_deadline_alarm_answers_at_the_deadline_in_the_middle_of_act(caplog):
    """An overrun is answered while ``act`` still runs (not when it returns); then the strategy moves to the thread."""
    import threading
    import time

    game = load_game("hunl")
    ended = []
    where = []

    class Stall(Timed):
        def act(self, view, deadline):
            where.append(threading.current_thread().name)
            try:
                return super().act(view, deadline)
            finally:
                ended.append(time.monotonic())

    with caplog.at_level(logging.INFO):
        # 40 ms a hand: an allowance of a few ms; the third decision stalls 0.4 s
        client, dealer = _serve(Stall(game, lambda n: 0.4 if n == 2 else 0.0), hands=6, time_per_hand=0.04)
    # one answer by the alarm ("sent the fallback"), at the stall; on a busy machine a later decision on the
    # worker thread may overrun its few ms too ("sending the fallback"), which is not what this test is about
    assert dealer.problems == [] and client.fallbacks >= 1
    assert caplog.text.count("; sent the fallback") == 1 and "worker thread again" in caplog.text
    action, sent = client.alarm_sent
    assert sent < ended[2] - 0.2  # the fallback left while act slept
    assert where[:3] == [threading.main_thread().name] * 3 and set(where[3:]) == {"acpcbot-strategy"}
    assert not client.runs_inline
