"""The match loop: deal, send every seat its view, ask the player to act, validate, log.

The loop is independent of sockets: it talks to each seat through a
:class:`SeatChannel` (``server.TcpSeat`` over TCP; an in-memory transport
can implement the same few methods).  Everything a player sees and every
file written follow the reference dealer (project_acpc_server 1.0.42),
including how it treats bad replies:

* ``#`` and ``;`` lines are skipped;
* every other line is judged by ``replies.interpret_reply``: a bad or
  un-requested state is dropped with a warning, a bad action becomes a call.

With ``strict`` the first such reply ends the match instead.  Time is
charged per line as the reference does; unlike the reference a read never
waits past the tightest limit left (response, hand or match budget).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Sequence

from acpcbot.engine import Action, State
from acpcbot.matchlog import format_score_line
from acpcbot.protocol import CardsText, format_action, format_betting

from .config import MatchConfig
from .logs import Transcript, format_stamp, now_us
from .progress import MatchProgress, finish_hand
from .replies import ACCEPTED, interpret_reply
from .resume import MatchFiles
from .seats import SeatChannel, SeatClosed, SeatTimeout


class MatchAborted(Exception):
    """The match ends early; ``lines`` are the ERROR lines to print."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass
class MatchResult:
    """How a match ended."""

    totals: list[float]
    hands_played: int  # hands finished (and logged), resumed ones included
    score_line: str | None  # None when the match did not finish
    error: str | None = None

    @property
    def finished(self) -> bool:
        """Whether every hand was played."""
        return self.error is None


_VERSION = re.compile(r"VERSION:(\d+)\.(\d+)\.(\d+)")


class Match:
    """One match between seats; :meth:`run` plays it to the end or to the first fatal problem."""

    def __init__(self, config: MatchConfig, transcript: Transcript, files: MatchFiles | None = None) -> None:
        self.config = config
        self.transcript = transcript
        if files is None:
            files = MatchFiles(None, None, MatchProgress.fresh(config))
        self.files = files
        self.progress = files.progress
        self._seats: Sequence[SeatChannel] = ()
        self._header_done = False
        # Each seat's final view of a hand goes out together with its first
        # view of the next hand: they are microseconds apart, and one write
        # instead of two is a sizeable saving.
        self._pending: list[bytes] = []
        self._flush_timer: asyncio.TimerHandle | None = None

    # -------------------------------------------------------------- outline

    def write_header(self) -> None:
        """The header to the transcript and (unless already there) to the log; the server calls it before accepting."""
        if self._header_done:
            return
        self._header_done = True
        lines = self.config.header_lines()
        for line in lines:
            self.transcript.info(line)
        if self.files.log is not None and not self.files.header_written:
            self.files.log.write_lines(lines)
            self.files.header_written = True
        self.transcript.flush()

    async def run(self, seats: Sequence[SeatChannel]) -> MatchResult:
        """Check versions, play every remaining hand, print FINISHED and SCORE; never raises for a player's fault."""
        config = self.config
        if len(seats) != config.game.num_players:
            raise ValueError(f"{len(seats)} seats for a {config.game.num_players}-player game")
        self._seats = seats
        self._pending = [b""] * len(seats)
        self.write_header()
        tr = self.transcript
        progress = self.progress
        error = score = None
        try:
            try:
                await self._check_versions()
                tr.info(f"STARTED at {format_stamp(now_us())}")
                while progress.state is not None:
                    await self._play_hand()
                self._send_pending()
            except MatchAborted as exc:
                error = str(exc)
                for line in exc.lines:
                    tr.problem(line)
            if error is None:
                tr.info(f"FINISHED at {format_stamp(now_us())}")
                score = format_score_line(progress.totals, config.names)
                tr.score(score)
                if self.files.log is not None and not self.files.score_written:
                    self.files.log.write_lines([score])
        finally:
            if self._flush_timer is not None:
                self._flush_timer.cancel()
                self._flush_timer = None
            tr.flush()
            self.close()
        return MatchResult(progress.totals, progress.next_hand, score, error)

    def close(self) -> None:
        """Close the files and the seats."""
        for f in (self.files.log, self.files.tlog):
            if f is not None:
                f.close()
        for seat in self._seats:
            seat.close()

    # -------------------------------------------------------------- steps

    async def _check_versions(self) -> None:
        """Read each seat's VERSION line in seat order, as the reference does, but never wait forever."""
        config = self.config
        loop = asyncio.get_running_loop()
        wait_ms = config.start_timeout if config.start_timeout >= 0 else config.t_response
        deadline = loop.time() + wait_ms / 1000
        for seat, channel in enumerate(self._seats):
            line = channel.take_line()
            if line is None:
                self.transcript.flush()
                try:
                    line = await channel.read_line(deadline)
                except SeatTimeout:
                    raise MatchAborted(f"ERROR: could not read version string from seat {seat + 1}",
                                       f"ERROR: seat {seat + 1} ({config.names[seat]}) sent no VERSION line "
                                       f"within {wait_ms} ms") from None
                except SeatClosed:
                    raise MatchAborted(f"ERROR: could not read version string from seat {seat + 1}",
                                       f"ERROR: seat {seat + 1} ({config.names[seat]}) closed the connection "
                                       f"before sending its VERSION line") from None
            text = line.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            m = _VERSION.match(text)
            if not m:
                raise MatchAborted(f"ERROR: invalid version string {text.rstrip(chr(13) + chr(10))}")
            if int(m.group(1)) != 2 or int(m.group(2)) > 0:
                # the reference complains and plays on
                self.transcript.problem("ERROR: this server is currently using version 2.0.0")

    async def _play_hand(self) -> None:
        """Play the pending hand to its end, log it, send the final views and deal the next one."""
        config = self.config
        progress = self.progress
        state = progress.state
        assert state is not None
        game = config.game
        n = game.num_players
        h = state.hand_id
        seats = self._seats
        tr = self.transcript
        send_line = tr.sent
        pos_of_seat = [config.position_of(h, s) for s in range(n)]
        heads = [f"MATCHSTATE:{pos_of_seat[s]}:{h}:" for s in range(n)]
        text = CardsText(state)
        field = text.field
        betting = format_betting(state)  # not empty only when resuming inside a hand
        tlog = self.files.tlog
        pending = self._pending
        takes_states = [channel.takes_states for channel in seats]
        while not state.finished:
            acting = state.current_player
            round_ = state.round
            send_us = 0
            asked = b""
            for s in range(n):
                v = pos_of_seat[s]
                data = f"{heads[s]}{betting}:{field(state, v)}\r\n".encode()
                try:
                    if takes_states[s]:
                        seats[s].send_state(data, state, v, betting)
                    elif pending[s]:
                        seats[s].send(pending[s] + data)
                        pending[s] = b""
                    else:
                        seats[s].send(data)
                except SeatClosed:
                    raise MatchAborted(f"ERROR: could not send state to seat {s + 1}",
                                       f"ERROR: seat {s + 1} ({config.names[s]}) closed the connection "
                                       f"in hand {h}") from None
                stamp = now_us()
                send_line(s, data, stamp)
                if v == acting:
                    send_us, asked = stamp, data
            for channel in seats:
                if channel.congested:
                    await self._drain(h)
                    break
            action, recv_us = await self._ask(config.seat_of(h, acting), acting, state, asked, send_us)
            if tlog is not None:
                tlog.record(f"STATE:{h}:{betting}:{field(state, None)}",
                            format_action(action, game), send_us, recv_us)
            state.apply(action)
            betting += format_action(action, game)
            if state.round != round_:
                betting += "/" * (state.round - round_)
        line = finish_hand(config, progress, state)
        if self.files.log is not None:
            self.files.log.write_lines([line])
        for s in range(n):
            data = f"{heads[s]}{betting}:{field(state, pos_of_seat[s])}\r\n".encode()
            if takes_states[s]:
                try:
                    seats[s].send_state(data, state, pos_of_seat[s], betting)
                except SeatClosed:
                    raise MatchAborted(f"ERROR: could not send state to seat {s + 1}",
                                       f"ERROR: seat {s + 1} ({config.names[s]}) closed the connection "
                                       f"in hand {h}") from None
            else:
                pending[s] += data
            send_line(s, data, now_us())
        if h % 100 == 0:
            for s, used in enumerate(progress.clock.used_match):
                tr.info(f"Seconds cumulatively spent in match for seat {s}: {used // 1_000_000}")

    def _send_pending(self) -> None:
        """Send the final views still held back (the match is over)."""
        for s, data in enumerate(self._pending):
            if data:
                self._pending[s] = b""
                try:
                    self._seats[s].send(data)
                except SeatClosed:
                    raise MatchAborted(f"ERROR: could not send state to seat {s + 1}",
                                       f"ERROR: seat {s + 1} ({self.config.names[s]}) closed the connection "
                                       f"before the end of the match") from None

    def _flush_later(self) -> None:
        """Write the transcript out soon: it may lag a waiting match by at most 50 ms."""
        if self._flush_timer is None and self.transcript.pending:
            self._flush_timer = asyncio.get_running_loop().call_later(0.05, self._timed_flush)

    def _timed_flush(self) -> None:
        self._flush_timer = None
        self.transcript.flush()

    async def _drain(self, hand_id: int) -> None:
        """Wait for seats whose unread data piles up (a player that does not read)."""
        for s, channel in enumerate(self._seats):
            if channel.congested:
                self._flush_later()
                deadline = asyncio.get_running_loop().time() + self.config.t_response / 1000
                try:
                    await channel.drain(deadline)
                except (SeatTimeout, SeatClosed):
                    raise MatchAborted(f"ERROR: could not send state to seat {s + 1}",
                                       f"ERROR: seat {s + 1} ({self.config.names[s]}) read nothing for "
                                       f"--t_response {self.config.t_response} ms in hand {hand_id}") from None

    async def _ask(self, seat: int, position: int, state: State, asked: bytes, send_us: int) -> tuple[Action, int]:
        """Read lines from the acting seat until one answers the request; return the action to play and its arrival time."""
        config = self.config
        channel = self._seats[seat]
        tr = self.transcript
        clock = self.progress.clock
        expected = asked[:-2] + b":"
        while True:
            line = channel.take_line()
            if line is None:
                allowed, limit = clock.allowance(seat)
                self._flush_later()
                loop = asyncio.get_running_loop()
                started = loop.time()
                deadline = started + (send_us + allowed - now_us()) / 1e6
                try:
                    line = await channel.read_line(deadline)
                except SeatTimeout:
                    raise self._timed_out(seat, state.hand_id, limit, loop.time() - started) from None
                except SeatClosed:
                    raise MatchAborted(
                        f"ERROR: could not get action from seat {seat + 1}",
                        "%.1f seconds spent waiting; timeout %.1f" % (asyncio.get_running_loop().time() - started,
                                                                      clock.max_response / 1e6),
                        f"ERROR: seat {seat + 1} ({config.names[seat]}) closed the connection in hand {state.hand_id}",
                    ) from None
            recv_us = now_us()
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
            status, action, warnings = interpret_reply(line, expected, state, position)
            if config.strict and warnings:
                reply = line.decode("utf-8", "backslashreplace").rstrip("\r\n")
                raise MatchAborted(f"ERROR: seat {seat + 1} ({config.names[seat]}) sent a bad reply in hand "
                                   f"{state.hand_id}: {warnings[0].removeprefix('WARNING: ')}: {reply[:200]!r}; "
                                   f"match ended (--strict)")
            for w in warnings:
                tr.problem(w)
            if status == ACCEPTED:
                return action, recv_us

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
