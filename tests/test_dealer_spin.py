"""The look for a fast player's reply before the dealer sleeps (dealer.server.TcpSeat._spin, SpareProcessor, --spin_us).

No wall-clock assertion: only what is read, written and counted.
"""

import socket
import time

import pytest

import dealer.server as server
from dealer.seats import SeatClosed, SeatTimeout
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


def test_a_seat_told_not_to_look_sleeps_at_once(spare, monkeypatch):
    ours, player = socket.socketpair()
    seat = TcpSeat(ours, spin_s=0.0)
    monkeypatch.setattr(seat, "_spin", lambda deadline: pytest.fail("a seat with spin_s 0 looked"))
    player.sendall(b"a\n")
    assert seat.read_line(time.monotonic() + 5) == b"a\n"
    seat.close()
    player.close()
