"""Floods of ignored lines (issue 13, item 5): every line is charged as the reference charges it, but judged once.

The reference charges every non-comment line a player sends, from the
request's time to the line's; a flood therefore costs the player the more
time the slower the dealer reads it.  Ours judges each distinct line once
per request (a flood repeats itself), so its cost per ignored line stays
near the reference's.  The comparison with the built reference dealer
(``ACPC_REFERENCE_DIR``) is part of ``make soak``.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path

import pytest
from playkit import slow

import dealer.asking as match_module  # where Match reads replies (interpret_reply, now_us)
from acpcbot.engine import CALL
from acpcbot.gamedef import load_game
from acpcbot.protocol import parse_match_state
from dealer.config import MatchConfig
from dealer.logs import Transcript
from dealer.match import Match
from dealer.replies import WARN_BAD_STATE, WARN_UNREQUESTED
from dealer.seats import SeatChannel

ROOT = Path(__file__).resolve().parents[1]


class _Queued(SeatChannel):
    """A seat whose lines are already there."""

    def __init__(self, lines):
        self.lines = deque(lines)

    def send(self, line):
        pass

    def drain(self, deadline, idle=None):
        pass

    def take_line(self):
        return self.lines.popleft() if self.lines else None

    def read_line(self, deadline, idle=None):
        raise AssertionError("the test queues every line")

    def close(self):
        pass


REQUEST_US = 10**12  # the request's stamp; the fake clock reads each line one microsecond later than the last


def _ask(asked: str, position: int, lines: list[bytes], betting=()):
    """Have the match ask ``position`` of hunl hand 0 (after ``betting``) and read ``lines``.

    Returns the action, the transcript's lines and the time charged to the seat (microseconds).
    """
    game = load_game("hunl")
    out = io.BytesIO()
    match = Match(MatchConfig("m", game, "hunl", 5, 0, ["a", "b"], quiet=True), Transcript(out, quiet=True))
    state = match.progress.state
    for action in betting:
        state.apply(action)
    assert parse_match_state(asked, game).state.current_player == state.current_player == position
    seat = match.config.seat_of(0, position)
    match._seats = [_Queued([]), _Queued([])]
    match._seats[seat] = _Queued([line.replace(b"{line}", asked.encode()) for line in lines])
    action, _, _ = match._ask(seat, position, state, asked, REQUEST_US)
    match.transcript.flush()
    return action, out.getvalue().decode().splitlines(), match.progress.clock.used_hand[seat]


@pytest.fixture
def counting(monkeypatch):
    """The lines interpret_reply judges; the fake clock."""
    calls = []
    real = match_module.interpret_reply

    def judged(line, *args):
        calls.append(line)
        return real(line, *args)

    monkeypatch.setattr(match_module, "interpret_reply", judged)
    stamps = iter(range(REQUEST_US + 1, REQUEST_US + 10**6))
    monkeypatch.setattr(match_module, "now_us", lambda: next(stamps))
    return calls


def test_a_flood_of_the_same_junk_is_judged_once_but_each_line_is_warned_about_and_charged(counting):
    lines = [b"junk\r\n"] * 500 + [b"other junk\r\n"] * 3 + [b"{line}:c\r\n"]
    action, written, used = _ask("MATCHSTATE:1:0::|9hQd", 1, lines)
    assert action == CALL
    assert written == [WARN_BAD_STATE] * 503
    assert counting == [b"junk\r\n", b"other junk\r\n"]
    # the i-th line read is charged i microseconds, the reply too: 1 + 2 + ... + 504, as the reference charges
    assert used == 504 * 505 // 2


def test_copies_of_an_answered_request_are_unrequested_at_the_next_one_and_judged_once(counting):
    old = b"MATCHSTATE:1:0::|9hQd:c\r\n"  # position 1's reply to the hand's first request, sent 200 times
    action, written, used = _ask("MATCHSTATE:0:0:c:5d5c|", 0, [old] * 200 + [b"{line}:c\r\n"], betting=[CALL])
    assert action == CALL
    assert written == [WARN_UNREQUESTED] * 200
    assert counting == [old]
    assert used == 201 * 202 // 2


# ----------------------------------------------------------------- against the built reference dealer

# 300 junk lines: every line is charged from the request's send time, so the player's own latency (about 1.5 ms
# for this Python flooder) is charged once per line; at 1,000 lines a turn and about five turns a hand that alone
# comes to the 7 s a hand the match allows, and whether the reference or we finish 200 hands turned on a few
# percent of machine speed (both stopped between hands 100 and 200 on a quiet machine, 2026-11-26)
FLOODS = {"300 junk lines a turn": ("junk", 300), "a 1 MB line a turn": ("bigline", 1024),
          "200 copies of the reply": ("copies", 200)}

PLAYER = r'''
import socket, sys
from acpcbot.engine import CALL
from acpcbot.gamedef import load_game
from acpcbot.protocol import parse_match_state
port, mode, k, game = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), load_game(sys.argv[4])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"VERSION:2.0.0\r\n")
for raw in s.makefile("rb"):
    line = raw.rstrip(b"\r\n")
    ms = parse_match_state(line.decode(), game)
    if ms.state.finished or ms.state.current_player != ms.position:
        continue
    reply = line + b":c\r\n"
    flood = {"junk": b"junk line\r\n" * k, "bigline": b"x" * (k * 1024) + b"\r\n", "copies": reply * (k - 1)}[mode]
    s.sendall(flood + reply)
'''


@pytest.fixture(scope="module")
def reference_dir() -> Path:
    """The built reference dealer and example player (ACPC_REFERENCE_DIR); skipped without them."""
    folder = os.environ.get("ACPC_REFERENCE_DIR")
    if not folder or not os.access(Path(folder) / "dealer", os.X_OK) or \
            not os.access(Path(folder) / "example_player", os.X_OK):
        pytest.skip("set ACPC_REFERENCE_DIR to a folder holding the built reference dealer and example_player")
    return Path(folder)


def _flooded_match(dealer_cmd, reference_dir, mode, k, hands, workdir):
    """Hands logged when seat 1 floods every turn and seat 2 is the reference example player."""
    game_file = workdir / "hunl.game"
    game_file.write_text(load_game("hunl").to_text())
    (workdir / "flood.py").write_text(PLAYER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    dealer = subprocess.Popen(dealer_cmd + ["fl", str(game_file), str(hands), "3", "a", "b", "-q"], cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        ports = dealer.stdout.readline().split()
        flood = subprocess.Popen([sys.executable, str(workdir / "flood.py"), ports[0], mode, str(k), str(game_file)],
                                 cwd=workdir, env=env, stderr=subprocess.DEVNULL)
        other = subprocess.Popen([str(reference_dir / "example_player"), str(game_file), "127.0.0.1", ports[1]],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dealer.communicate(timeout=600)
    finally:
        for proc in (dealer, locals().get("flood"), locals().get("other")):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    return sum(1 for line in (workdir / "fl.log").read_text().splitlines() if line.startswith("STATE:"))


@slow
@pytest.mark.parametrize("flood", FLOODS)
def test_a_flood_the_reference_lets_finish_finishes_here_too(flood, reference_dir):
    mode, k = FLOODS[flood]
    hands = 200
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        theirs = _flooded_match([str(reference_dir / "dealer")], reference_dir, mode, k, hands, Path(a))
        ours = _flooded_match([sys.executable, "-m", "dealer"], reference_dir, mode, k, hands, Path(b))
    if theirs < hands:
        pytest.skip(f"the machine is too busy: the reference itself stopped at hand {theirs} of {hands}")
    assert ours == hands
