"""The client's idle limit from the command line and the library: a dealer that stalls with the socket open.

``acpcbot --idle-timeout SECONDS`` (and ``acpcbot.play(..., idle_timeout=)``)
ends a match whose dealer sends nothing that long with exit status 5 and a
message naming the limit; without it the client waits as the reference's
players do (TCP keepalive still notices a vanished machine).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import acpcbot
from acpcbot.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
CEILING = 60.0  # for hangs only


class SilentDealer:
    """Accepts one seat, reads its VERSION line, then says nothing (the socket stays open) until stopped."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.got = b""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.server.settimeout(0.1)
        while True:
            try:
                conn, _ = self.server.accept()
                break
            except TimeoutError:
                if self.stop.is_set():
                    return
        with conn:
            conn.settimeout(0.1)
            while not self.stop.is_set():
                try:
                    data = conn.recv(4096)
                except TimeoutError:
                    continue
                if not data:
                    return  # the client gave up and closed
                self.got += data

    def close(self) -> None:
        self.stop.set()
        self.thread.join(CEILING)
        self.server.close()


@pytest.fixture()
def silent():
    dealer = SilentDealer()
    yield dealer
    dealer.close()


def test_the_command_ends_a_stalled_match_at_its_idle_limit(silent):
    run = subprocess.run([sys.executable, "-m", "acpcbot", "127.0.0.1", str(silent.port), "--game", "kuhn2p",
                          "--strategy", "call", "--idle-timeout", "0.5"], capture_output=True, text=True,
                         timeout=CEILING, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 5, run.stderr
    assert "the dealer sent nothing for 0.5 s (idle limit)" in run.stderr
    assert "Traceback" not in run.stderr
    assert silent.got.startswith(b"VERSION:2.0.0")


def test_the_library_takes_an_idle_limit(silent):
    assert acpcbot.play("127.0.0.1", silent.port, "call", game="kuhn2p", idle_timeout=0.3, retry=0) == 5


def test_no_idle_limit_by_default():
    args = build_parser().parse_args(["127.0.0.1", "1"])
    assert args.idle_timeout is None


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "nan", "inf"])
def test_an_idle_limit_must_be_a_positive_number(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["127.0.0.1", "1", "--idle-timeout", bad])
    assert stop.value.code == 2 and "--idle-timeout" in capsys.readouterr().err
