"""A seat's connection as the match loop sees it: the channel interface a transport implements, and its errors.

The match loop is synchronous, like the reference's: it writes a seat its
views and then blocks reading the acting seat's reply, until a deadline.
While a read or a drain blocks, the transport runs the match's timers
through an :class:`Idle` (the transcript's flush, views held back), so the
loop needs no event loop.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from acpcbot.engine import Action, State

#: The reference reads through a 4096-byte buffer: a line is at most 4095 bytes,
#: a longer one arrives in pieces of that size.
MAX_LINE = 4095


class SeatClosed(Exception):
    """The seat's connection is gone (end of file, reset, or a failed send)."""


class SeatTimeout(Exception):
    """Nothing (or not enough) happened on the seat before the deadline."""


class MatchInterrupted(BaseException):
    """Whoever runs the match stopped it (not a player's fault: nothing is reported, the files are closed)."""


class Idle(Protocol):
    """What a blocked read or drain runs meanwhile: the match's timers (times are ``time.monotonic()``)."""

    def next_due(self) -> float | None:
        """When the next timer is due (None: none is set)."""

    def fire(self, now: float) -> None:
        """Run the timers due at ``now``."""


class SeatChannel(ABC):
    """One seat's connection as the match loop sees it; a transport implements these methods.

    Deadlines are ``time.monotonic()`` values.
    """

    #: True while sent data piles up unread; the loop then calls :meth:`drain`.
    congested: bool = False
    #: True for a seat that wants each state as :meth:`send_state` gives it (an in-process player)
    takes_states: bool = False
    #: False for an in-process player that only needs its turns and the ends of hands (see ``takes_states``)
    wants_every_state: bool = True

    @abstractmethod
    def send(self, line: bytes) -> None:
        """Queue one or more lines (CRLF included) for the player; raise SeatClosed if the seat is known gone."""

    def send_state(self, line: str, state: State, viewer: int, betting: str) -> None:
        """Give the player the line ``viewer`` gets of ``state`` (no line end; its betting text is ``betting``).

        Called instead of :meth:`send` when :attr:`takes_states` is set; the
        state is the dealer's own and changes after the call returns.
        """
        self.send(f"{line}\r\n".encode())

    def take_action(self) -> Action | None:
        """An in-process player's decision on the state it was just given, if it made one (else its lines are read)."""
        return None

    def put_line(self, line: bytes) -> None:
        """Queue a line as if the player had sent it (a transport that hands over decisions reads one back)."""
        raise NotImplementedError

    @abstractmethod
    def drain(self, deadline: float, idle: Idle | None = None) -> None:
        """Block until queued data has room again; SeatTimeout at the deadline, SeatClosed if gone."""

    @abstractmethod
    def take_line(self) -> bytes | None:
        """A line already received, or None: at most MAX_LINE bytes, ending in LF unless a piece of a longer line."""

    @abstractmethod
    def read_line(self, deadline: float, idle: Idle | None = None) -> bytes:
        """The next line as :meth:`take_line` returns it, blocking for it; SeatClosed at end of file, SeatTimeout at the deadline."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection (what was queued still goes out)."""
