"""Complete lines out of what a dealer sends, in chunks cut anywhere: the one line framer of every client loop.

The asyncio connection, the blocking loop and the in-memory seats all feed
what arrives to a :class:`LineFramer` and get the same lines back, each
with its ``\\n`` (a ``\\r`` before it stays: the client strips line ends),
bounded in length; a line not finished when the stream ends is
:attr:`LineFramer.partial`.
"""

from __future__ import annotations

#: the longest line accepted from a dealer; a state of the longest hold'em hand is under 2 KiB
MAX_LINE = 16384


class LineFramer:
    """Splits a byte stream into lines ending in ``\\n``; a line longer than ``limit`` stops it (``overlong``)."""

    __slots__ = ("limit", "count", "overlong", "_rest")

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        #: lines framed so far
        self.count = 0
        #: why framing stopped (a line over the limit), or None
        self.overlong: str | None = None
        self._rest = b""

    def feed(self, data: bytes) -> list[bytes]:
        """The lines ``data`` completes, in order; after an overlong one, those before it and then none."""
        if self.overlong is not None:
            return []
        if self._rest:
            data = self._rest + data
        limit = self.limit
        out: list[bytes] = []
        start = 0
        find = data.find
        while True:
            i = find(b"\n", start)
            if i < 0:
                break
            if i + 1 - start > limit:
                return self._stop(out)
            out.append(data[start:i + 1])
            start = i + 1
        self.count += len(out)
        rest = data[start:] if start else data
        if len(rest) > limit:
            return self._stop(out, counted=True)
        self._rest = rest
        return out

    def _stop(self, out: list[bytes], counted: bool = False) -> list[bytes]:
        if not counted:
            self.count += len(out)
        self.overlong = f"line {self.count + 1} from the dealer is longer than {self.limit} bytes"
        self._rest = b""
        return out

    @property
    def partial(self) -> bytes:
        """The unfinished line kept so far (what is left when the stream ends in the middle of one)."""
        return self._rest
