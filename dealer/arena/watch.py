"""The progress line of a run: hands done, hands/s, time left and the first player's mbb/hand, read from the growing logs."""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path
from typing import TextIO

from acpcbot.notation.loglines import STATE_PREFIX


class Progress:
    """A one-line progress report on a terminal: hands done, hands/s, time left, the first player's mbb/hand.

    It reads the dealer logs as they grow (the dealer flushes every hand),
    so it works for any transport and any number of matches at once.
    """

    def __init__(self, stream: TextIO, total_hands: int, player: str, big_blind: int, interval: float = 0.5) -> None:
        self.stream = stream
        self.total = total_hands
        self.player = player
        self.big_blind = big_blind
        self.interval = interval
        self.files: dict[Path, int] = {}
        self.hands = 0
        self.chips = 0.0
        self.player_hands = 0
        self.start = time.monotonic()
        self._partial: dict[Path, bytes] = {}

    def watch(self, path: Path) -> None:
        """Start following a match log."""
        self.files.setdefault(path, 0)

    def poll(self) -> None:
        """Read what the watched logs gained since the last poll."""
        for path, offset in list(self.files.items()):
            try:
                with open(path, "rb") as f:
                    f.seek(offset)
                    data = f.read()
            except OSError:
                continue
            self.files[path] = offset + len(data)
            data = self._partial.pop(path, b"") + data
            lines = data.split(b"\n")
            if lines[-1]:
                self._partial[path] = lines[-1]
            for raw in lines[:-1]:
                if raw.startswith(STATE_PREFIX.encode()):
                    self.hands += 1
                    fields = raw.decode("utf-8", "replace").rstrip("\r").split(":")
                    if len(fields) == 6:
                        names = fields[5].split("|")
                        if self.player in names:
                            try:
                                self.chips += float(fields[4].split("|")[names.index(self.player)])
                                self.player_hands += 1
                            except (ValueError, IndexError):
                                pass

    def line(self) -> str:
        """The current progress text."""
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.hands / elapsed
        left = (self.total - self.hands) / rate if rate > 0 else math.inf
        mbb = 1000.0 * self.chips / self.big_blind / self.player_hands if self.player_hands else 0.0
        eta = "?" if math.isinf(left) else f"{left:.0f}s"
        return (f"{self.hands}/{self.total} hands  {rate:.0f} hands/s  {eta} left  "
                f"{self.player} {mbb:+.1f} mbb/hand")

    async def run(self) -> None:
        """Redraw the line every ``interval`` seconds until cancelled."""
        while True:
            self.poll()
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()
            await asyncio.sleep(self.interval)

    def finish(self) -> None:
        """Draw the final line and end it."""
        self.poll()
        self.stream.write("\r\x1b[K" + self.line() + "\n")
        self.stream.flush()
