"""The dealer's pieces: the seat reader and its timers, the time budget, fast views, transcript and stamps."""

import asyncio
import gc
import io
import os
import random
import socket
import sys
import threading
import time
import types
from collections import deque

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import SHIPPED_GAMES, load_game
from acpcbot.protocol import CardsText, format_match_state
from dealer.config import MatchConfig, SeatClock
from dealer.logs import Transcript, format_stamp, parse_stamp
from dealer.match import Match
from acpcbot.notation.lenient import c_int32
from dealer.rng import Dealer
from dealer.seats import MAX_LINE, MatchInterrupted, SeatChannel, SeatClosed, SeatTimeout
from dealer.server import RECV_SIZE, TcpSeat


def _pair(**kw):
    """A TcpSeat on one end of a connected socket pair; the other end is the player's."""
    ours, theirs = socket.socketpair()
    return TcpSeat(ours, **kw), theirs


def _later(seconds, fn, *args):
    timer = threading.Timer(seconds, fn, args)
    timer.start()
    return timer


def test_lines_are_split_like_the_reference_4096_byte_buffer():
    seat, player = _pair()
    player.sendall(b"a\r\nb\n" + b"x" * 5000 + b"\n" + b"y" * MAX_LINE + b"z")
    deadline = time.monotonic() + 5
    assert seat.read_line(deadline) == b"a\r\n"
    assert seat.read_line(deadline) == b"b\n"
    assert seat.read_line(deadline) == b"x" * MAX_LINE
    assert seat.read_line(deadline) == b"x" * (5000 - MAX_LINE) + b"\n"
    assert seat.read_line(deadline) == b"y" * MAX_LINE
    assert seat.take_line() is None  # "z" waits for the rest of its line
    player.sendall(b"\r\n" + b"w" * (2 * MAX_LINE + 7))
    assert seat.read_line(deadline) == b"z\r\n"
    assert seat.read_line(deadline) == b"w" * MAX_LINE and seat.read_line(deadline) == b"w" * MAX_LINE
    assert seat.take_line() is None and seat.buffered == 7
    player.sendall(b"\n")
    assert type(seat.read_line(deadline)) is bytes  # lines are hashable bytes, whatever the buffer
    seat.close()
    player.close()


def test_a_first_read_is_split_like_any_other_at_the_line_and_size_limits():
    # a seat with nothing buffered takes a read holding exactly one reply as it came: the limits still hold
    deadline = time.monotonic() + 5
    for sent, lines in ((b"x" * (MAX_LINE - 1) + b"\n", [b"x" * (MAX_LINE - 1) + b"\n"]),
                        (b"x" * MAX_LINE + b"\n", [b"x" * MAX_LINE, b"\n"]),
                        (b"a:c\r\nb:", [b"a:c\r\n"]),
                        (b"a\nb\n", [b"a\n", b"b\n"])):
        seat, player = _pair()
        player.sendall(sent)
        time.sleep(0.01)  # all of it in the seat's one read
        assert [seat.read_line(deadline) for _ in lines] == lines, sent[-12:]
        assert seat.take_line() is None
        seat.close()
        player.close()


def test_a_flooding_player_is_held_back_by_tcp_and_read_only_as_lines_are_wanted():
    seat, player = _pair()
    player.setblocking(False)
    sent = 0
    with pytest.raises(BlockingIOError):
        while True:  # until the system's buffers are full: nobody reads
            sent += player.send(b"# comment\n" * 1000)
    assert seat.read_line(time.monotonic() + 5) == b"# comment\n"
    assert seat.buffered < RECV_SIZE  # one read's worth at most is held here, the rest waits in TCP
    assert sent > 2 * RECV_SIZE
    seat.close()
    player.close()


def test_read_line_waits_for_data_the_deadline_or_the_end():
    seat, player = _pair()
    _later(0.01, player.sendall, b"hel")
    _later(0.03, player.sendall, b"lo\r\nrest")
    assert seat.read_line(time.monotonic() + 5) == b"hello\r\n"
    start = time.monotonic()
    with pytest.raises(SeatTimeout):
        seat.read_line(start + 0.02)
    assert time.monotonic() >= start + 0.02
    _later(0.01, player.close)
    with pytest.raises(SeatClosed):  # a partial line at the end is lost, as in the reference
        seat.read_line(time.monotonic() + 5)
    seat.close()


class _Timers:
    """An Idle with one timer, recording when it ran."""

    def __init__(self, due):
        self.due, self.ran = due, []

    def next_due(self):
        return self.due

    def fire(self, now):
        self.ran.append(now)
        self.due = None


def test_a_blocked_read_runs_the_timers_due_meanwhile_and_an_interrupt_stops_it():
    r, w = os.pipe()
    seat, player = _pair(interrupt_fd=r)
    due = time.monotonic() + 0.02
    timers = _Timers(due)
    _later(0.06, player.sendall, b"late\n")
    assert seat.read_line(time.monotonic() + 5, timers) == b"late\n"
    assert len(timers.ran) == 1 and due <= timers.ran[0] < time.monotonic()
    _later(0.02, os.write, w, b"x")
    with pytest.raises(MatchInterrupted):
        seat.read_line(time.monotonic() + 5, timers)
    seat.close()
    player.close()
    os.close(r)
    os.close(w)


def test_send_fails_once_the_connection_is_gone_and_drain_waits_for_the_reader(monkeypatch):
    import dealer.server as server

    monkeypatch.setattr(server, "WRITE_HIGH_WATER", 1000)
    seat, player = _pair()
    seat.send(b"x\r\n")
    assert player.recv(10) == b"x\r\n"
    chunk = b"y" * 65536
    while not seat.congested:  # the player reads nothing: the system's buffers fill, then ours
        seat.send(chunk)
    with pytest.raises(SeatTimeout):
        seat.drain(time.monotonic() + 0.02)

    def read_all():
        player.settimeout(2)
        try:
            while player.recv(1 << 20):
                pass
        except OSError:
            pass

    reader = threading.Thread(target=read_all)
    reader.start()
    seat.drain(time.monotonic() + 5)
    assert not seat.congested
    seat.close()
    reader.join(5)
    player.close()
    seat2, player2 = _pair()
    player2.close()
    with pytest.raises(SeatClosed):
        for _ in range(100):  # the first write after the player left may still be taken by the system
            seat2.send(b"z\r\n")
            time.sleep(0.001)
    seat2.close()


def test_time_budget_charges_every_line_and_names_the_broken_limit():
    b = SeatClock(2, t_response_ms=100, t_hand_ms=150, t_per_hand_ms=100, num_hands=3)
    assert b.allowance(0) == (100_000, "t_response")
    assert b.charge(0, 1_000_000, 1_080_000) is None
    assert b.allowance(0) == (70_000, "t_hand")
    assert b.charge(0, 1_000_000, 1_080_000) == "t_hand"  # lines of one request are charged again
    b.new_hand()
    assert b.used_hand == [0, 0] and b.used_match == [160_000, 0]
    assert b.charge(1, 5, 4) is None and b.used_match[1] == 0  # a clock going backwards charges nothing
    assert b.charge(1, 0, 100_001) == "t_response"
    b.new_hand()
    assert b.allowance(0) == (100_000, "t_response")
    b.charge(0, 0, 99_000)
    b.new_hand()
    assert b.allowance(0) == (41_000, "t_per_hand")  # 300 ms for the match, 259 used


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_fast_views_equal_the_protocol_codec_in_every_state(game_name):
    game = load_game(game_name)
    dealer = Dealer(game, 11)
    rng = random.Random(game_name)
    for h in range(60):
        hole, board = dealer.deal()
        st = State(game, h, hole, board)
        text = CardsText(st)  # built once per hand, as the dealer does
        betting = ""
        while not st.finished:
            for v in range(game.num_players):
                assert f"MATCHSTATE:{v}:{h}:{betting}:{text.field(st, v)}" == format_match_state(st, v)
            legal = st.legal_actions()
            kind = rng.choice(legal)
            if kind == ActionType.RAISE:
                lo, hi = st.raise_bounds()
                action = raise_to(rng.choice([lo, hi])) if game.is_nolimit else RAISE
            else:
                action = CALL if kind == ActionType.CALL else FOLD
            before = st.round
            st.apply(action)
            betting += ("r%d" % action.size if game.is_nolimit else "r") if kind == ActionType.RAISE else \
                ("c" if kind == ActionType.CALL else "f")
            betting += "/" * (st.round - before)
        for v in range(game.num_players):
            assert f"MATCHSTATE:{v}:{h}:{betting}:{text.field(st, v)}" == format_match_state(st, v)


def test_transcript_lines_and_quiet_mode():
    out = io.BytesIO()
    tr = Transcript(out)
    tr.info("STARTED at " + format_stamp(1471220082_260196))
    tr.sent(0, b"MATCHSTATE:0:0::5d5c|\r\n", 1471220082_260243)
    tr.received(1, b"MATCHSTATE:1:0::|9hQd:c\r\n", 1471220082_000001)
    tr.received(1, b"x" * 3, 1)
    tr.problem("WARNING: w")
    assert tr.pending and out.getvalue() == b""
    tr.flush()
    assert out.getvalue() == (b"STARTED at 1471220082.260196\nTO 1 at 1471220082.260243 MATCHSTATE:0:0::5d5c|\r\n"
                              b"FROM 2 at 1471220082.000001 MATCHSTATE:1:0::|9hQd:c\r\nFROM 2 at 0.000001 xxx\n"
                              b"WARNING: w\n")
    quiet = io.BytesIO()
    tr = Transcript(quiet, quiet=True)
    tr.info("x")
    tr.sent(0, b"y\r\n", 0)
    tr.received(0, b"z\r\n", 0)
    tr.problem("ERROR: e")
    tr.score("SCORE:1|-1:a|b")
    tr.flush()
    assert quiet.getvalue() == b"ERROR: e\nSCORE:1|-1:a|b\n"


def test_stamps_and_c_int_conversion():
    assert format_stamp(5) == "0.000005" and parse_stamp("12.000034") == 12_000_034
    with pytest.raises(ValueError):
        parse_stamp("12")
    assert [c_int32(v) for v in (5, -5, 2**31, 2**32 + 7, 10**30)] == [5, -5, -2**31, 7, -1]


def test_a_player_already_waiting_is_accepted_even_with_no_start_time_left():
    import socket

    from dealer.server import StartupError, accept_seats, open_listeners

    async def run():
        listeners = open_listeners("127.0.0.1", [0, 0])
        client = socket.create_connection(listeners[0].getsockname()[:2])  # completes in the backlog
        try:
            with pytest.raises(StartupError, match="timed out waiting for seat 2 to connect"):
                await accept_seats(listeners, 0)
        finally:
            client.close()
        assert all(sock.fileno() == -1 for sock in listeners)  # every port is closed again

    asyncio.run(asyncio.wait_for(run(), 60))


class _CallingSeat(SeatChannel):
    """An in-process seat that calls whenever it is asked and keeps nothing else."""

    takes_states = True

    def __init__(self):
        self._replies = deque([b"VERSION:2.0.0\r\n"])

    def send(self, line):
        pass

    def send_state(self, line, state, viewer, betting):
        if not state.finished and state.current_player == viewer:
            self._replies.append(line.encode() + b":c\r\n")

    def drain(self, deadline, idle=None):
        pass

    def take_line(self):
        return self._replies.popleft() if self._replies else None

    def read_line(self, deadline, idle=None):
        line = self.take_line()
        if line is None:
            raise SeatClosed
        return line

    def close(self):
        pass


class _Discard(io.RawIOBase):
    def writable(self):
        return True

    def write(self, data):
        return len(data)


def _retained_bytes(root, skip=()):
    """Bytes held by every object reachable from ``root`` (classes, modules, functions and ``skip`` left out)."""
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


def test_what_a_match_keeps_does_not_grow_with_the_hands_played():
    game = load_game("hunl")

    def after(hands):
        config = MatchConfig("m", game, "hunl", hands, 0, ["a", "b"], quiet=True)
        match = Match(config, Transcript(_Discard(), quiet=True))
        assert match.run([_CallingSeat(), _CallingSeat()]).finished
        return _retained_bytes(match, skip=(game,))

    # a long match is fine as long as nothing is kept per hand (the log and transcript are on disk)
    assert after(400) - after(20) < 2000


def test_a_match_loads_the_showdown_tables_before_its_clock_starts(monkeypatch):
    # the reference has its tables built in: loading ours inside the first hand would count against our speed
    from acpcbot.evaluator import ranking
    monkeypatch.setattr(ranking, "_VALUE7", None)
    Match(MatchConfig("m", load_game("hunl"), "hunl", 5, 0, ["a", "b"], quiet=True), Transcript(_Discard(), quiet=True))
    assert ranking._VALUE7 is not None
