"""The dealer's faster message path: the look for a fast reply before sleeping, and the books kept after the next
hand's first request (dealer.server.TcpSeat._spin, SpareProcessor; dealer.match.Match._book, MatchProgress.deal_ahead).

No wall-clock assertion: only what is read, written and counted.
"""

import io
import socket
import time

import pytest

import dealer.server as server
from acpcbot.gamedef import load_game
from dealer.config import MatchConfig
from dealer.logs import Transcript
from dealer.match import Match
from dealer.progress import MatchProgress
from dealer.resume import open_match_files
from dealer.seats import SeatChannel, SeatClosed, SeatTimeout
from dealer.server import SPIN_MISSES, SPIN_PROBE, SpareProcessor, TcpSeat


def _pair():
    ours, theirs = socket.socketpair()
    return TcpSeat(ours), theirs


@pytest.fixture
def spare(monkeypatch):
    """Force the machine's verdict: a processor to spare (True) or not."""
    def force(verdict):
        monkeypatch.setattr(server, "spare_processor", lambda now: verdict)
    force(True)
    return force


def test_a_reply_already_there_is_read_by_the_look(spare):
    seat, player = _pair()
    player.sendall(b"MATCHSTATE:0:0::AsKs|:c\r\n")
    assert seat.read_line(time.monotonic() + 5) == b"MATCHSTATE:0:0::AsKs|:c\r\n"
    assert seat._misses == 0
    seat.close()
    player.close()


def test_missed_looks_stop_looking_until_the_probe(spare):
    seat, player = _pair()
    for k in range(SPIN_MISSES):
        with pytest.raises(SeatTimeout):
            seat.read_line(time.monotonic() + 0.001)
        assert seat._misses == k + 1
    # too many misses: the next reads sleep at once (and still read what comes)
    player.sendall(b"a\n")
    assert seat.read_line(time.monotonic() + 5) == b"a\n"
    assert seat._skipped == 1 and seat._misses == SPIN_MISSES
    seat._skipped = SPIN_PROBE  # the probe's turn: it looks, finds the reply, and looking goes on
    player.sendall(b"b\n")
    assert seat.read_line(time.monotonic() + 5) == b"b\n"
    assert seat._misses == 0 and seat._skipped == 0
    seat.close()
    player.close()


def test_no_look_without_a_spare_processor(spare):
    spare(False)
    seat, player = _pair()
    player.sendall(b"x\r\n")
    assert seat.read_line(time.monotonic() + 5) == b"x\r\n"
    assert seat._skipped == 1 and seat._misses == 0
    seat.close()
    player.close()


def test_the_look_sees_the_end_and_lines_split_as_before(spare):
    seat, player = _pair()
    player.sendall(b"one\r\ntwo\r\nthr")
    deadline = time.monotonic() + 5
    assert seat.read_line(deadline) == b"one\r\n"
    assert seat.read_line(deadline) == b"two\r\n"
    player.sendall(b"ee\n")
    assert seat.read_line(deadline) == b"three\n"
    player.close()
    with pytest.raises(SeatClosed):
        seat.read_line(deadline)
    seat.close()


def test_a_deadline_already_passed_times_out(spare):
    seat, player = _pair()
    with pytest.raises(SeatTimeout):
        seat.read_line(time.monotonic() - 1)
    seat.close()
    player.close()


def test_spare_processor_reads_the_running_tasks(tmp_path):
    f = tmp_path / "loadavg"
    f.write_text("0.50 0.40 0.30 1/90 1234\n")
    spare = SpareProcessor(str(f))
    spare.cpus = 2
    spare._mean = 3.0
    assert spare(0.0)  # 3 + (1 - 3) / 8 < 3
    f.write_text("5.00 4.00 3.00 9/90 1234\n")
    assert spare(0.0)  # not sampled again so soon
    verdicts = [spare(float(k)) for k in range(1, 20)]
    assert not verdicts[-1]
    assert not SpareProcessor(str(tmp_path / "missing"))(0.0)
    f.write_text("garbage\n")
    broken = SpareProcessor(str(f))
    assert broken(0.0) is False


def test_a_hand_dealt_ahead_is_the_hand_dealt_in_turn():
    game = load_game("hunl")
    config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=5, seed=11, names=["a", "b"])
    in_turn, ahead = MatchProgress.fresh(config), MatchProgress.fresh(config)
    for h in range(1, 5):
        dealt = ahead.deal_ahead(config, h)
        assert dealt is not None and ahead.deal_ahead(config, h) is dealt  # dealt once
        in_turn.deal(config, h)
        ahead.deal(config, h)
        assert ahead.state is dealt and ahead.ahead is None
        assert (ahead.state.hand_id, ahead.state.hole, ahead.state.board) == \
            (in_turn.state.hand_id, in_turn.state.hole, in_turn.state.board)
    assert ahead.deal_ahead(config, 5) is None  # past the match's last hand


class _CallSeat(SeatChannel):
    """A player that calls every state it is asked; ``fail`` says which data makes its connection fail."""

    def __init__(self, fail=lambda data: False):
        self.fail = fail
        self.last = b""
        self.replies = [b"VERSION:2.0.0\r\n"]

    def send(self, line):
        if self.fail(line):
            raise SeatClosed
        self.last = line.rstrip(b"\r\n").rsplit(b"\r\n", 1)[-1]

    def drain(self, deadline, idle=None):
        pass

    def take_line(self):
        return self.replies.pop(0) if self.replies else None

    def read_line(self, deadline, idle=None):
        line = self.take_line()
        return line if line is not None else self.last + b":c\r\n"

    def close(self):
        pass


def _play(tmp_path, monkeypatch, name, seats, hands=4):
    monkeypatch.chdir(tmp_path)
    game = load_game("hunl")
    config = MatchConfig(match_name=name, game=game, game_arg="hunl", num_hands=hands, seed=3, names=["a", "b"])
    match = Match(config, Transcript(io.BytesIO()), open_match_files(config, use_log=True))
    result = match.run(seats)
    return result, (tmp_path / f"{name}.log").read_text().splitlines()


def test_a_hand_finished_before_the_match_stops_is_booked(tmp_path, monkeypatch):
    whole, whole_log = _play(tmp_path, monkeypatch, "whole", [_CallSeat(), _CallSeat()])
    assert whole.finished and whole.hands_played == 4
    # the connection fails on hand 2's first request: hands 0 and 1 are in the books, as they were before
    first_of_2 = lambda data: b":2::" in data  # noqa: E731
    cut, cut_log = _play(tmp_path, monkeypatch, "cut", [_CallSeat(first_of_2), _CallSeat(first_of_2)])
    assert not cut.finished and cut.hands_played == 2
    states = [line for line in cut_log if line.startswith("STATE:")]
    assert states == [line for line in whole_log if line.startswith("STATE:")][:2]
    assert not any(line.startswith("SCORE:") for line in cut_log)
    assert sum(cut.totals) == 0 and cut.totals == [sum(v) for v in zip(*_values(states, ["a", "b"]))]


def _values(states, names):
    """Each STATE line's values by seat name order."""
    out = []
    for line in states:
        fields = line.split(":")
        by_name = dict(zip(fields[5].split("|"), (float(v) for v in fields[4].split("|"))))
        out.append([by_name[n] for n in names])
    return out


def test_a_seat_told_not_to_look_sleeps_at_once(spare, monkeypatch):
    ours, player = socket.socketpair()
    seat = TcpSeat(ours, spin_s=0.0)
    monkeypatch.setattr(seat, "_spin", lambda deadline: pytest.fail("a seat with spin_s 0 looked"))
    player.sendall(b"a\n")
    assert seat.read_line(time.monotonic() + 5) == b"a\n"
    seat.close()
    player.close()
