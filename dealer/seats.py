"""A seat's connection as the match loop sees it: the channel interface a transport implements, and its errors."""

from __future__ import annotations

from abc import ABC, abstractmethod

from acpcbot.engine import State

#: The reference reads through a 4096-byte buffer: a line is at most 4095 bytes,
#: a longer one arrives in pieces of that size.
MAX_LINE = 4095


class SeatClosed(Exception):
    """The seat's connection is gone (end of file, reset, or a failed send)."""


class SeatTimeout(Exception):
    """Nothing (or not enough) happened on the seat before the deadline."""


class SeatChannel(ABC):
    """One seat's connection as the match loop sees it; a transport implements these methods.

    Deadlines are in the running event loop's clock (``loop.time()``).
    """

    #: True while sent data piles up unread; the loop then awaits :meth:`drain`.
    congested: bool = False
    #: True for a seat that wants each state as :meth:`send_state` gives it (an in-process player)
    takes_states: bool = False

    @abstractmethod
    def send(self, line: bytes) -> None:
        """Queue one line (CRLF included) for the player; raise SeatClosed if the seat is known gone."""

    def send_state(self, line: bytes, state: State, viewer: int, betting: str) -> None:
        """Send the line ``viewer`` gets of ``state`` (whose betting text is ``betting``) at once.

        Called instead of :meth:`send` when :attr:`takes_states` is set; the
        state is the dealer's own and changes after the call returns.
        """
        self.send(line)

    @abstractmethod
    async def drain(self, deadline: float) -> None:
        """Wait until queued data has room again; SeatTimeout at the deadline, SeatClosed if gone."""

    @abstractmethod
    def take_line(self) -> bytes | None:
        """A line already received, or None: at most MAX_LINE bytes, ending in LF unless a piece of a longer line."""

    @abstractmethod
    async def read_line(self, deadline: float) -> bytes:
        """The next line as :meth:`take_line` returns it, waiting for it; SeatClosed at end of file, SeatTimeout at the deadline."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""
