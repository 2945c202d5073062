"""``acpc-match human``: one command seats you against a bot; played here through a pseudo-terminal as a person would."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 60.0  # seconds for a whole session

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")


class Terminal:
    """``acpc-match human ARGS`` on a pseudo-terminal: read the screen, type lines, as a person at a keyboard."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "dealer.arena", "human", *args], cwd=cwd, stdin=slave,
                                     stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.screen = ""
        self.end = time.monotonic() + LIMIT

    def read_until(self, *marks: str) -> str:
        """Read the screen until one of ``marks`` shows after what was read before, or the program ends."""
        start = len(self.screen)
        while not any(m in self.screen[start:] for m in marks):
            left = self.end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"nothing of {marks} on the screen within {LIMIT} s:\n{self.screen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], min(left, 1.0))
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the program ended and the terminal closed
                    data = b""
                if not data:
                    break
                self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return next((m for m in marks if m in self.screen[start:]), "")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(max(1.0, self.end - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait()
        finally:
            os.close(self.master)


def test_a_person_plays_three_hands_and_ctrl_d_does_not_fold(tmp_path):
    t = Terminal(["--game", "hunl", "--hands", "3", "--seed", "4", "--bot", "call", "--name", "me",
                  "--runs-dir", str(tmp_path)], tmp_path)
    asked = 0
    try:
        while True:
            seen = t.read_until("your action> ", "Match over", "You left")
            if seen != "your action> ":
                break
            asked += 1
            if asked == 2:
                t.type("\x04")  # Ctrl-D: it must ask, and Enter goes on with the same decision
                assert t.read_until("Leave the match? y to leave, Enter to go on: ")
                t.type("\n")
                continue
            t.type("c\n")
    finally:
        code = t.close()
    screen = t.screen
    assert code == 0, screen[-2000:]
    assert "Match over: SCORE:" in screen
    assert asked >= 3  # the Ctrl-D came in the middle of the match
    assert "You (me) play no-limit hunl against bot." in screen
    assert "=== Hand 1: you are big blind 100; bot is small blind 50 and button" in screen
    assert "Your options: f fold | c call 50 |" in screen
    assert "-- Showdown: board" in screen and "bot shows" in screen and "match: you" in screen
    assert "INFO" not in screen and "WARNING" not in screen  # log lines go to the run folder's files
    run_dir = next(tmp_path.glob("human-hunl-*"))
    log = (run_dir / "match.log").read_text()
    states = [line for line in log.splitlines() if line.startswith("STATE:")]
    assert len(states) == 3 and all(line.endswith(("me|bot", "bot|me")) for line in states)
    assert not any("f" in line.split(":")[2] for line in states)  # nobody folded: the Ctrl-D was not a fold
    assert (run_dir / "you.log").exists() and (run_dir / "bot.err").exists()


def test_leaving_ends_the_match_without_a_fold(tmp_path):
    t = Terminal(["--game", "kuhn2p", "--hands", "50", "--seed", "1", "--bot", "raise", "--runs-dir", str(tmp_path)],
                 tmp_path)
    try:
        assert t.read_until("your action> ") == "your action> "
        t.type("\x04")
        t.read_until("Leave the match? ")
        t.type("y\n")
        assert t.read_until("You left") == "You left"
        t.read_until("hands played: ")
    finally:
        code = t.close()
    assert code == 0, t.screen[-2000:]
    assert t.screen.count("You left") == 1, t.screen[-2000:]  # issue 32: said once, not twice
    log = (next(tmp_path.glob("human-kuhn2p-*")) / "match.log").read_text()
    assert "STATE:0:" not in log  # the first hand was never finished, so never folded for the player


def test_the_first_ctrl_c_ends_the_session(tmp_path):
    # issue 32: the first Ctrl-C was swallowed (asyncio only cancelled the match) and the keyboard reader then held
    # the process; the terminal here is the program's controlling terminal, so ^C is a SIGINT as at a keyboard
    import fcntl
    import termios

    def controlling_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    t = Terminal.__new__(Terminal)
    t.master, slave = os.openpty()
    t.proc = subprocess.Popen([sys.executable, "-m", "dealer.arena", "human", "--game", "kuhn2p", "--hands", "50",
                               "--seed", "1", "--bot", "call", "--runs-dir", str(tmp_path)], cwd=tmp_path,
                              stdin=slave, stdout=slave, stderr=slave, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              preexec_fn=controlling_terminal)
    os.close(slave)
    t.screen, t.end = "", time.monotonic() + LIMIT
    try:
        assert t.read_until("your action> ") == "your action> "
        t.type("\x03")
        assert t.read_until("interrupted") == "interrupted"
    finally:
        code = t.close()
    assert code == 130, t.screen[-2000:]
    assert "the dealer log of the hands played:" in t.screen
