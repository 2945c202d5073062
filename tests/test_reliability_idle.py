"""Comment lines are not activity (issue 34 item 10): a dealer that sends only ``#`` lines is idle."""

from __future__ import annotations

import socket
import threading
import time

import acpcbot

CEILING = 30.0  # a hang guard: without the fix the client waits as long as the comments come


class ChattyDealer:
    """Accepts one seat and sends it a comment line every 0.05 s (never a state) until stopped."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.server.settimeout(CEILING)
        try:
            conn, _ = self.server.accept()
        except OSError:
            return
        with conn:
            while not self.stop.is_set():
                try:
                    conn.sendall(b"# still here\n")
                except OSError:
                    return  # the client gave up
                time.sleep(0.05)


def test_comment_lines_do_not_reset_the_idle_limit():
    dealer = ChattyDealer()
    status: list[int] = []
    client = threading.Thread(target=lambda: status.append(
        acpcbot.play("127.0.0.1", dealer.port, "call", game="kuhn2p", idle_timeout=0.5, retry=0)), daemon=True)
    client.start()
    try:
        client.join(CEILING)
        assert status == [5]  # the idle limit's status, while the comments still came
    finally:
        dealer.stop.set()
        dealer.thread.join(CEILING)
        client.join(CEILING)
        dealer.server.close()
