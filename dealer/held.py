"""Views held back from seats that need not act, and the timers a blocked read runs (``seats.Idle``).

A seat's views are written when it is asked to act, joined with the views
it has not been sent yet, and every view waits at most :data:`HOLD_S` once
the match waits for a reply; the transcript lags a waiting match by at most
:data:`FLUSH_S`.  :class:`HeldViews` is the part of
:class:`~dealer.match.Match` that keeps them.
"""

from __future__ import annotations

import time
from typing import Sequence

from .aborted import MatchAborted
from .config import MatchConfig
from .logs import Transcript
from .seats import SeatChannel, SeatClosed, SeatTimeout

#: the longest a view is held back from a seat that does not have to act, once the match waits (seconds)
HOLD_S = 0.002
#: the longest the transcript lags behind a waiting match (seconds)
FLUSH_S = 0.05


class HeldViews:
    """The views not sent yet, per seat, and the match's two timers (the held views, the transcript's flush)."""

    config: MatchConfig
    transcript: Transcript
    _seats: Sequence[SeatChannel]
    # views not sent yet, per seat, and since when the oldest waits
    _held: list[bytes]
    _held_since: float | None
    # the timers a blocked read runs (time.monotonic() values; None: not set)
    _hold_due: float | None
    _flush_due: float | None

    def _send_failed(self, seat: int, where: str) -> MatchAborted:
        return MatchAborted(f"ERROR: could not send state to seat {seat + 1}",
                            f"ERROR: seat {seat + 1} ({self.config.names[seat]}) closed the connection {where}")

    def _send_held(self, where: str) -> None:
        """Send every view held back (MatchAborted naming ``where`` when a seat is gone)."""
        held = self._held
        self._held_since = None
        for s, data in enumerate(held):
            if data:
                held[s] = b""
                try:
                    self._seats[s].send(data)
                except SeatClosed:
                    raise self._send_failed(s, where) from None

    def _hold_or_send(self, hand_id: int) -> None:
        """Before waiting for a reply: send the held views now if they waited long enough, else at their time."""
        since = self._held_since
        if since is None:
            return
        due = since + HOLD_S
        if time.monotonic() >= due:
            self._send_held(f"in hand {hand_id}")
            self._hold_due = None
        else:
            self._hold_due = due

    # -------------------------------------------------------------- timers (seats.Idle)

    def next_due(self) -> float | None:
        """When the next timer is due (the transcript's flush, the held views)."""
        a, b = self._flush_due, self._hold_due
        if a is None:
            return b
        return a if b is None or a < b else b

    def fire(self, now: float) -> None:
        """Run the timers due at ``now``: write the transcript out, send the held views."""
        if self._flush_due is not None and self._flush_due <= now:
            self._flush_due = None
            self.transcript.flush()
        if self._hold_due is not None and self._hold_due <= now:
            self._hold_due = None
            held = self._held
            self._held_since = None
            for s, data in enumerate(held):
                if data:
                    try:
                        self._seats[s].send(data)
                    except SeatClosed:
                        continue  # kept: the match finds the seat gone when it next writes to it
                    held[s] = b""

    def _flush_later(self) -> None:
        """Write the transcript out soon: it may lag a waiting match by at most FLUSH_S."""
        if self._flush_due is None and self.transcript.pending:
            self._flush_due = time.monotonic() + FLUSH_S

    def _drain(self, hand_id: int) -> None:
        """Wait for seats whose unread data piles up (a player that does not read)."""
        for s, channel in enumerate(self._seats):
            if channel.congested:
                self._flush_later()
                deadline = time.monotonic() + self.config.t_response / 1000
                try:
                    channel.drain(deadline, self)
                except (SeatTimeout, SeatClosed):
                    raise MatchAborted(f"ERROR: could not send state to seat {s + 1}",
                                       f"ERROR: seat {s + 1} ({self.config.names[s]}) read nothing for "
                                       f"--t_response {self.config.t_response} ms in hand {hand_id}") from None
