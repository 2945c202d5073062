"""Asking a seat to act: its VERSION line, then the lines it sends until one answers the state it was asked.

Time is charged per line as the reference does (every non-comment line,
also an ignored one, from the request's send time); a read never waits
past the tightest limit left (response, hand or match budget), and a
stream of comments cannot hold the match.  What a reply means is judged by
``dealer.replies`` (read by ``acpcbot.notation``); :class:`ReplyReading` is
the part of :class:`~dealer.match.Match` that reads them.
"""

from __future__ import annotations

import time

from acpcbot.engine import CALL, Action, State
from acpcbot.notation.actions import plain_action
from acpcbot.notation.matchstate import format_reply, read_version

from .aborted import MatchAborted
from .held import HeldViews
from .logs import now_us
from .progress import MatchProgress
from .replies import ACCEPTED, interpret_reply
from .seats import SeatClosed, SeatTimeout

#: distinct reply lines whose verdict one request remembers (a flood of the same junk is judged once)
_JUDGED_MAX = 256


class ReplyReading(HeldViews):
    """Reading the seats' VERSION lines and replies, the held views and timers running while a read waits."""

    progress: MatchProgress
    _nolimit: bool

    def _check_versions(self) -> None:
        """Read each seat's VERSION line in seat order, as the reference does, but never wait forever."""
        config = self.config
        wait_ms = config.start_timeout if config.start_timeout >= 0 else config.t_response
        deadline = None
        for seat, channel in enumerate(self._seats):
            line = channel.take_line()
            if line is None:
                self.transcript.flush()
                if deadline is None:
                    deadline = time.monotonic() + wait_ms / 1000
                try:
                    line = channel.read_line(deadline, self)
                except SeatTimeout:
                    raise MatchAborted(f"ERROR: could not read version string from seat {seat + 1}",
                                       f"ERROR: seat {seat + 1} ({config.names[seat]}) sent no VERSION line "
                                       f"within {wait_ms} ms") from None
                except SeatClosed:
                    raise MatchAborted(f"ERROR: could not read version string from seat {seat + 1}",
                                       f"ERROR: seat {seat + 1} ({config.names[seat]}) closed the connection "
                                       f"before sending its VERSION line") from None
            text = line.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            version = read_version(text)
            if version is None:
                raise MatchAborted(f"ERROR: invalid version string {text.rstrip(chr(13) + chr(10))}")
            if version[0] != 2 or version[1] > 0:
                # the reference complains and plays on
                self.transcript.problem("ERROR: this server is currently using version 2.0.0")

    def _ask(self, seat: int, position: int, state: State, asked: str,
             send_us: int) -> tuple[Action, int, bytes | None]:
        """Read lines from the acting seat until one answers the request (``asked``, the state line sent).

        Returns the action to play, the reply's arrival time, and the reply
        itself when its FROM line is left for the caller to write (a plain
        reply with no warning), else None.
        """
        config = self.config
        channel = self._seats[seat]
        tr = self.transcript
        clock = self.progress.clock
        if channel.takes_states:
            action = channel.take_action()
            if action is not None:
                # an in-process player's decision: what its reply line would be read as
                fixed, warnings = state.fix(action)
                if warnings:
                    channel.put_line(self._reply_line(asked, action))  # read below, warnings and all
                else:
                    recv_us = now_us()
                    broken = clock.charge(seat, send_us, recv_us)
                    if broken is not None:
                        tr.received(seat, self._reply_line(asked, action), recv_us)
                        raise MatchAborted(f"ERROR: seat {seat + 1} ran out of time",
                                           self._limit_text(seat, state.hand_id, broken))
                    return fixed, recv_us, (None if tr.quiet else self._reply_line(asked, fixed))
        expected = f"{asked}:".encode()
        judged: dict[bytes, tuple[int, Action, tuple[str, ...]]] | None = None
        while True:
            line = channel.take_line()
            if line is None:
                allowed, limit = clock.allowance(seat)
                # the timers' checks inline: they are set (or nothing is held) at most waits
                if self._flush_due is None:
                    self._flush_later()
                if self._held_since is not None:
                    self._hold_or_send(state.hand_id)
                started = time.monotonic()
                deadline = started + (send_us + allowed - now_us()) / 1e6
                try:
                    line = channel.read_line(deadline, self)
                except SeatTimeout:
                    raise self._timed_out(seat, state.hand_id, limit, time.monotonic() - started) from None
                except SeatClosed:
                    raise MatchAborted(
                        f"ERROR: could not get action from seat {seat + 1}",
                        "%.1f seconds spent waiting; timeout %.1f" % (time.monotonic() - started,
                                                                      clock.max_response / 1e6),
                        f"ERROR: seat {seat + 1} ({config.names[seat]}) closed the connection in hand {state.hand_id}",
                    ) from None
            recv_us = now_us()
            if line.startswith(expected):
                # the usual reply: the state as sent, then c, f, r or r<size> and CRLF
                broken = clock.charge(seat, send_us, recv_us)
                if broken is None:
                    rest = line[len(expected):]
                    if rest == b"c\r\n":
                        return CALL, recv_us, line  # a call is always what it says
                    action = plain_action(rest, self._nolimit)
                    if action is not None:
                        fixed, warnings = state.fix(action)
                        if not warnings:
                            return fixed, recv_us, line
                if b"\0" in line:
                    line = line[:line.index(b"\0")]  # the reference sees a C string
                tr.received(seat, line, recv_us)
                if broken is not None:
                    raise MatchAborted(f"ERROR: seat {seat + 1} ran out of time",
                                       self._limit_text(seat, state.hand_id, broken))
            else:
                if b"\0" in line:
                    line = line[:line.index(b"\0")]  # the reference sees a C string
                tr.received(seat, line, recv_us)
                if line[:1] in (b"#", b";"):
                    allowed, limit = clock.allowance(seat)
                    if recv_us - send_us > allowed:  # a stream of comments must not hold the match forever
                        raise self._timed_out(seat, state.hand_id, limit, (recv_us - send_us) / 1e6)
                    continue
                broken = clock.charge(seat, send_us, recv_us)
                if broken is not None:
                    raise MatchAborted(f"ERROR: seat {seat + 1} ran out of time",
                                       self._limit_text(seat, state.hand_id, broken))
            # a flood repeats itself: each distinct line is judged once per request (the state does not change)
            if judged is None:
                judged = {}
            verdict = judged.get(line)
            if verdict is None:
                verdict = interpret_reply(line, expected, state, position, config.strict)
                if len(judged) < _JUDGED_MAX:
                    judged[line] = verdict
            status, action, warnings = verdict
            if config.strict and warnings:
                reply = line.decode("utf-8", "backslashreplace").rstrip("\r\n")
                raise MatchAborted(f"ERROR: seat {seat + 1} ({config.names[seat]}) sent a bad reply in hand "
                                   f"{state.hand_id}: {warnings[0].removeprefix('WARNING: ')}: {reply[:200]!r}; "
                                   f"match ended (--strict)")
            for w in warnings:
                tr.problem(w)
            if status == ACCEPTED:
                return action, recv_us, None

    def _reply_line(self, asked: str, action: Action) -> bytes:
        return format_reply(asked, action, self.config.game).encode()

    def _limit_text(self, seat: int, hand_id: int, limit: str) -> str:
        config = self.config
        who = f"seat {seat + 1} ({config.names[seat]})"
        if limit == "t_response":
            return f"ERROR: {who} sent no action within --t_response {config.t_response} ms in hand {hand_id}"
        if limit == "t_hand":
            return f"ERROR: {who} used more than --t_hand {config.t_hand} ms in hand {hand_id}"
        return (f"ERROR: {who} used up the match budget of --t_per_hand {config.t_per_hand} ms x "
                f"{config.num_hands} hands in hand {hand_id}")

    def _timed_out(self, seat: int, hand_id: int, limit: str, waited_s: float) -> MatchAborted:
        if limit == "t_response":
            # the reference's read time-out message
            return MatchAborted(f"ERROR: could not get action from seat {seat + 1}",
                                "%.1f seconds spent waiting; timeout %.1f" % (waited_s, self.config.t_response / 1000),
                                self._limit_text(seat, hand_id, limit))
        return MatchAborted(f"ERROR: seat {seat + 1} ran out of time", self._limit_text(seat, hand_id, limit))
