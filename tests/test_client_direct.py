"""The blocking loop for inline strategies (acpcbot/direct.py) plays exactly as the asyncio client does.

Each scripted dealer is played once through :func:`acpcbot.session.run` and
once through :func:`acpcbot.direct.run_direct` (on a thread, the scripted
dealer lives on the event loop): the same exit code, the same lines at the
dealer, the same history file and the same client log messages.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re

import pytest
from client_fakedealer import EXCHANGES, HULHE_EXCHANGE, ScriptedDealer, closed_port, script_of

from acpcbot import cli
from acpcbot.direct import can_run_direct, run_direct
from acpcbot.gamedef import load_game
from acpcbot.session import run
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo

HUNL_LINES = [f"MATCHSTATE:1:{h}::|9s8h\r\n" for h in range(3)]  # position 1 acts first


def _scripts() -> dict[str, tuple[str, list[tuple]]]:
    first = script_of(HULHE_EXCHANGE)[:3]
    return {
        **{f"exchange-{g}": (g, script_of(x, eol="\n", comments=True)) for g, x in EXCHANGES.items()},
        "closes-mid-hand": ("hulhe", first + [("close",)]),
        "closes-mid-line": ("hulhe", [("send", "MATCHSTATE:0:30::9s8h|\r\nMATCHSTATE:0:30:c:9s8h|")]),
        "resets-mid-hand": ("hulhe", first + [("reset",)]),
        "resets-between-hands": ("hulhe", script_of(HULHE_EXCHANGE) + [("reset",)]),
        "garbage": ("hulhe", [("send", "MATCHSTATE:0:30:zz:9s8h|\r\n")]),
        "not-ascii": ("hulhe", [("send", b"MATCHSTATE:0:30::9s8h|\xff\r\n")]),
        "overlong": ("hulhe", [("send", "MATCHSTATE:1:30::|9s8h\r\n"), ("recv",),
                               ("send", "#" * 20000 + "\r\n")]),
        "overlong-unfinished": ("hulhe", [("send", "#" * 20000)]),
        "silent": ("hulhe", [("close",)]),
        "several-at-once": ("hunl", [("send", "".join(HUNL_LINES))] + [("recv",)] * 3),
    }


SCRIPTS = _scripts()


async def _play(script: list[tuple], game_name: str, direct: bool, spec: str) -> tuple[int, list[str], str]:
    game = load_game(game_name)
    strategy = create(spec, game, 1)
    info = MatchInfo(game, name="tester", seed=1)
    history = io.StringIO()
    dealer = ScriptedDealer(script)
    port = await dealer.start()
    try:
        if direct:
            code = await asyncio.to_thread(run_direct, strategy, info, "127.0.0.1", port, history=history,
                                           retry_for=1.0)
        else:
            code = await run(strategy, info, "127.0.0.1", port, history=history, retry_for=1.0)
        await asyncio.wait_for(dealer.done.wait(), 30)
    finally:
        await dealer.stop()
    return code, dealer.received, history.getvalue()


def _both(script, game_name, caplog, spec="call"):
    results = []
    for direct in (False, True):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="acpcbot"):
            got = asyncio.run(asyncio.wait_for(_play(script, game_name, direct, spec), 120))
        logged = [(r.levelname, re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", r.getMessage()))
                  for r in caplog.records if r.name.startswith("acpcbot")]
        results.append((*got, logged))
    return results


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_blocking_loop_plays_as_the_asyncio_client(name, caplog):
    game_name, script = SCRIPTS[name]
    asyncio_run, direct_run = _both(script, game_name, caplog)
    assert direct_run == asyncio_run
    assert asyncio_run[1][0] == "VERSION:2.0.0\r\n"


def test_a_correcting_strategy_is_corrected_alike(caplog):
    # raise:size=allin in limit hold'em: the same replies, the same warnings (if any)
    game_name, script = SCRIPTS["exchange-hulhe"]
    asyncio_run, direct_run = _both(script, game_name, caplog, spec="raise")
    assert direct_run == asyncio_run


def test_an_unreachable_dealer_is_exit_3_alike(caplog):
    game = load_game("hulhe")

    async def both() -> list[int]:
        port = await closed_port()
        strategy = create("call", game, 1)
        return [await run(strategy, MatchInfo(game), "127.0.0.1", port, retry_for=0.2),
                await asyncio.to_thread(run_direct, strategy, MatchInfo(game), "127.0.0.1", port, retry_for=0.2)]

    with caplog.at_level(logging.ERROR, logger="acpcbot"):
        assert asyncio.run(both()) == [3, 3]
    messages = [r.getMessage() for r in caplog.records]
    # the reason is the system's words (the event loop's own differ): what, where and how long tried are the same
    assert len(messages) == 2
    for m in messages:
        assert m.startswith("cannot connect to the dealer at 127.0.0.1:") and m.endswith("(retried for 0.2 s)")


def test_the_blocking_loop_keeps_the_idle_limit(caplog):
    game = load_game("hulhe")

    async def main() -> int:
        dealer = ScriptedDealer([("send", "MATCHSTATE:1:0::|9s8h\r\n"), ("sleep", 5)])
        port = await dealer.start()
        try:
            return await asyncio.to_thread(run_direct, create("call", game, 1), MatchInfo(game), "127.0.0.1", port,
                                           idle_timeout=0.3)
        finally:
            await dealer.stop()

    with caplog.at_level(logging.ERROR, logger="acpcbot"):
        assert asyncio.run(asyncio.wait_for(main(), 60)) == 5
    assert "the dealer sent nothing for 0.3 s (idle limit)" in caplog.text


class _Slow(Strategy):
    name = "slowtest"

    def act(self, view, deadline):  # noqa: D102
        return view.fold_or_check()


def test_the_command_plays_declared_inline_strategies_on_the_blocking_loop(monkeypatch):
    game = load_game("hulhe")
    assert can_run_direct(create("call", game, 1))
    assert not can_run_direct(_Slow(game, random.Random(1)))  # undeclared: probed on the worker thread
    assert not can_run_direct(create("human", game, 1))  # a person (untimed) may leave: the asyncio client
    calls = []
    monkeypatch.setattr(cli, "run_direct", lambda *a, **k: calls.append(a) or 0)
    monkeypatch.setattr(cli, "play_leavable", lambda *a, **k: pytest.fail("the asyncio client was used"))
    assert cli.main(["127.0.0.1", "9", "--game", "hulhe", "--strategy", "call"]) == 0
    assert len(calls) == 1


class _FakeSocket:
    """A dealer's side given as reads; what the client sends goes to ``events``."""

    def __init__(self, reads: list[bytes], events: list[str]) -> None:
        self.reads = reads
        self.events = events

    def setsockopt(self, *args) -> None:  # noqa: D102
        pass

    def settimeout(self, timeout) -> None:  # noqa: D102
        pass

    def recv(self, n: int) -> bytes:  # noqa: D102
        return self.reads.pop(0) if self.reads else b""

    def sendall(self, data: bytes) -> None:  # noqa: D102
        self.events.append("sent " + data.decode().strip())


class _History(io.StringIO):
    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def write(self, text: str) -> int:  # noqa: D102
        self.events.append("history hand %d" % json.loads(text)["hand"])
        return super().write(text)


@pytest.mark.parametrize("spec,deferred", [("call", True), ("random", True), ("readsmatch", False)])
def test_a_lean_strategy_answers_the_next_hand_before_recording_the_last(spec, deferred):
    from acpcbot.client import Client
    from acpcbot.direct import serve_direct

    game = load_game("hulhe")
    events: list[str] = []
    reads = [b"MATCHSTATE:0:0::TdAs|\r\n", b"MATCHSTATE:0:0:f:TdAs|\r\nMATCHSTATE:1:1::|9s8h\r\n",
             b"MATCHSTATE:1:1:f:|9s8h\r\n"]
    strategy = _Slow(game, random.Random(1)) if spec == "readsmatch" else create(spec, game, 1)
    client = Client(strategy, MatchInfo(game, seed=1), _History(events))
    serve_direct(client, _FakeSocket(reads, events))
    reply = next(e for e in events if e.startswith("sent MATCHSTATE:1:1"))
    if deferred:  # call and random declare RunMode("inline", "turns"); _Slow (the default mode) sees every state
        assert events == ["sent VERSION:2.0.0", reply, "history hand 0", "history hand 1"]
    else:
        assert events == ["sent VERSION:2.0.0", "history hand 0", reply, "history hand 1"]
    assert client.world.match.hands_played == 2 and not client.world.unrecorded
    assert [h.value for h in client.world.match.hands] == [5.0, -5.0]


def test_a_deferred_record_is_the_record_made_at_once():
    from acpcbot.world import World

    game = load_game("hulhe")
    lines = ["MATCHSTATE:0:0::TdAs|", "MATCHSTATE:0:0:rrc/rc/crc/cc:TdAs|QhQd/2c8c3h/9c/Kh",
             "MATCHSTATE:0:1::KdKs|", "MATCHSTATE:0:1:f:KdKs|"]
    now, later = World(game), World(game)
    later.defer_records = True
    for line in lines:
        now.update(line)
        later.update(line)
    assert later.match.hands_played == 0 and len(later.unrecorded) == 2
    assert [v.hand_id for v in later.settle()] == [0, 1]
    assert list(later.match.hands) == list(now.match.hands) and later.match.total == now.match.total
    assert later.unrecorded == []
