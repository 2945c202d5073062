"""The match loop: deal, send every seat its view, ask the player to act, validate, log.

The loop is independent of sockets: it talks to each seat through a
:class:`SeatChannel` (``server.TcpSeat`` over TCP; an in-memory transport
can implement the same few methods).  Everything a player sees and every
file written follow the reference dealer (project_acpc_server 1.0.42),
including how it treats bad replies:

* ``#`` and ``;`` lines are skipped;
* a line whose state cannot be read: ``WARNING: bad state format in response``,
  one whose state is not the one asked about: ``WARNING: ignoring un-requested
  response``; both are dropped and the dealer keeps reading;
* a missing or unreadable action becomes a call (``WARNING: bad action format
  in response, changed to call``); an action the engine refuses becomes a call
  and a no-limit raise out of range is clamped (``State.fix`` gives the texts).

With ``strict`` the first such reply ends the match instead.  Time is
charged per line as the reference does; unlike the reference a read never
waits past the tightest limit left (response, hand or match budget).
"""

from __future__ import annotations

import asyncio
import os
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from acpcbot.cards import card_to_text
from acpcbot.engine import CALL, Action, ActionType, State, position_of, seat_of
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import format_header, format_score_line, format_state_line
from acpcbot.protocol import CardsText, ProtocolError, format_action, format_betting, format_cards, parse_action, read_action

from .logs import (MatchLog, Transaction, TransactionFileError, TransactionLog, Transcript, format_stamp,
                   now_us, read_log_lines, read_transactions, truncate_file)
from .rng import Dealer

#: The reference reads through a 4096-byte buffer: a line is at most 4095 bytes,
#: a longer one arrives in pieces of that size.
MAX_LINE = 4095

WARN_BAD_STATE = "WARNING: bad state format in response"
WARN_UNREQUESTED = "WARNING: ignoring un-requested response"
WARN_BAD_ACTION = "WARNING: bad action format in response, changed to call"

# ------------------------------------------------------------------ transport


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


# ------------------------------------------------------------------ settings


@dataclass
class MatchConfig:
    """What the command line fixes about a match (times in milliseconds, as the reference takes them)."""

    match_name: str
    game: GameDef
    game_arg: str  # the game as given on the command line; the log header repeats it
    num_hands: int
    seed: int
    names: list[str]
    fixed_seats: bool = False
    quiet: bool = False
    strict: bool = False
    t_response: int = 600000
    t_hand: int = 600000
    t_per_hand: int = 7000
    start_timeout: int = -1  # < 0: wait for connections forever

    def seat_of(self, hand_id: int, position: int) -> int:
        """The seat playing ``position`` in hand ``hand_id`` (the engine's rotation, or fixed seats)."""
        return seat_of(position, hand_id, self.game.num_players, self.fixed_seats)

    def position_of(self, hand_id: int, seat: int) -> int:
        """The position ``seat`` plays in hand ``hand_id``."""
        return position_of(seat, hand_id, self.game.num_players, self.fixed_seats)

    def header_lines(self) -> list[str]:
        """The reference's four header lines."""
        return format_header(self.match_name, self.game_arg, self.num_hands, self.seed,
                             self.t_response, self.t_hand, self.t_per_hand)


# ------------------------------------------------------------------ time


class TimeBudget:
    """Time used per seat, charged and checked as the reference's ``checkErrorTimes`` does (microseconds)."""

    LIMITS = ("t_response", "t_hand", "t_per_hand")

    def __init__(self, num_seats: int, t_response_ms: int, t_hand_ms: int, t_per_hand_ms: int, num_hands: int) -> None:
        self.max_response = t_response_ms * 1000
        self.max_hand = t_hand_ms * 1000
        self.max_match = t_per_hand_ms * 1000 * num_hands  # the average is checked as a total
        self.used_hand = [0] * num_seats
        self.used_match = [0] * num_seats

    def new_hand(self) -> None:
        """Start a hand: the per-hand usage goes back to zero."""
        self.used_hand = [0] * len(self.used_hand)

    def charge(self, seat: int, send_us: int, recv_us: int) -> str | None:
        """Charge one line received; return the limit it breaks, if any.

        Every non-comment line is charged from the request's send time, also
        lines that are then ignored, as in the reference.  A clock that went
        backwards charges nothing.
        """
        if recv_us < send_us:
            return None
        response = recv_us - send_us
        self.used_hand[seat] += response
        self.used_match[seat] += response
        if response > self.max_response:
            return "t_response"
        if self.used_hand[seat] > self.max_hand:
            return "t_hand"
        if self.used_match[seat] > self.max_match:
            return "t_per_hand"
        return None

    def allowance(self, seat: int) -> tuple[int, str]:
        """How long after its request a line from ``seat`` may still arrive, and which limit sets that."""
        best, name = self.max_response, "t_response"
        left = self.max_hand - self.used_hand[seat]
        if left < best:
            best, name = left, "t_hand"
        left = self.max_match - self.used_match[seat]
        if left < best:
            best, name = left, "t_per_hand"
        return best, name


# ------------------------------------------------------------------ replies

_C_SPACE = " \t\n\v\f\r"
_CARD = {card_to_text(c): c for c in range(52)}
_STATE_HEAD = re.compile(r"MATCHSTATE:(\d+):(\d+):")
ACCEPTED, BAD_STATE, UNREQUESTED = 0, 1, 2


def _c_int32(value: int) -> int:
    """The int that C's ``sscanf("%d")`` stores for ``value`` (glibc: strtol saturates, then the cast wraps)."""
    value = max(-2**63, min(2**63 - 1, value))
    return (value + 2**31) % 2**32 - 2**31


def read_reply_action(text: str, game: GameDef) -> tuple[Action, int] | None:
    """The reference's ``readAction``: protocol.read_action plus ``sscanf``'s leniency for a raise size.

    Returns the action and the characters used, or None when no action can be read.
    """
    if not text:
        return None
    skip = 0
    if game.is_nolimit and text[0] in "rRbB" and len(text) > 1 and text[1] in _C_SPACE:
        rest = text[1:].lstrip(_C_SPACE)  # %d skips white space before the number
        skip = len(text) - 1 - len(rest)
        text = text[0] + rest
    try:
        action, used = read_action(text, game)
    except (ProtocolError, ValueError):
        return None
    if action[0] == ActionType.RAISE and game.is_nolimit:
        action = Action(ActionType.RAISE, _c_int32(action[1]))
    return action, used + skip


def _read_state_prefix(text: str, state: State, position: int) -> int | None:
    """Read a reply's state the reference's lenient way; compare it with ``state`` as seen by ``position``.

    Returns None when no state can be read, -1 when it is not the state
    asked about, else the index just after the state text.  As the
    reference does, ``/`` in the betting is skipped, a player's hole cards
    may be missing, and anything may follow the cards.
    """
    game = state.game
    m = _STATE_HEAD.match(text)
    if not m:
        return None
    pos = int(m.group(1))
    if pos >= game.num_players:
        return None
    theirs = State(game, int(m.group(2)))
    i, end = m.end(), len(text)
    while i < end:
        ch = text[i]
        if ch == ":":
            break
        if ch == "/":
            i += 1
            continue
        got = read_reply_action(text[i:], game)
        if got is None or theirs.finished or not theirs.is_legal(got[0]):
            return None
        theirs.apply(got[0])
        i += got[1]
    if i >= end:
        return None
    i += 1
    own: tuple[int, ...] = ()
    for p in range(game.num_players):
        if p:
            if text[i:i + 1] != "|":
                break
            i += 1
        cards = []
        while len(cards) < game.num_hole_cards:
            card = _CARD.get(text[i:i + 2])
            if card is None:
                break
            cards.append(card)
            i += 2
        if p == pos:
            own = tuple(cards)
    board = []
    for r in range(theirs.round + 1):
        if r:
            if text[i:i + 1] != "/":
                return None
            i += 1
        for _ in range(game.num_board_cards[r]):
            card = _CARD.get(text[i:i + 2])
            if card is None:
                return None
            board.append(card)
            i += 2
    if (pos != position or theirs.hand_id != state.hand_id or theirs.round != state.round
            or theirs.actions != state.actions or own != tuple(state.hole[position])
            or board != list(state.board[:game.board_cards_through(state.round)])):
        return -1
    return i


def interpret_reply(line: bytes, expected: bytes, state: State, position: int) -> tuple[int, Action, tuple[str, ...]]:
    """Judge one non-comment reply line as the reference does.

    ``expected`` is the state line sent to ``position`` followed by ``:``.
    Returns (ACCEPTED, action to play, warnings) or (BAD_STATE | UNREQUESTED, CALL, (warning,)).
    """
    game = state.game
    if line.startswith(expected):
        rest = line[len(expected):].decode("latin-1")
    else:
        text = line.decode("latin-1")  # one character per byte: any bytes can be judged
        end = _read_state_prefix(text, state, position)
        if end is None:
            return BAD_STATE, CALL, (WARN_BAD_STATE,)
        if end < 0:
            return UNREQUESTED, CALL, (WARN_UNREQUESTED,)
        if text[end:end + 1] != ":":
            return ACCEPTED, CALL, (WARN_BAD_ACTION,)
        rest = text[end + 1:]
    got = read_reply_action(rest, game)
    if got is None:
        return ACCEPTED, CALL, (WARN_BAD_ACTION,)
    action, warnings = state.fix(got[0])
    return ACCEPTED, action, warnings


# ------------------------------------------------------------------ resume


@dataclass
class MatchProgress:
    """Where a match stands: the next hand to play, its state (dealt, maybe partly played), totals and time used."""

    next_hand: int
    state: State | None
    dealer: Dealer
    totals: list[float]
    budget: TimeBudget

    @classmethod
    def fresh(cls, config: MatchConfig) -> "MatchProgress":
        """A match about to play its first hand."""
        n = config.game.num_players
        budget = TimeBudget(n, config.t_response, config.t_hand, config.t_per_hand, config.num_hands)
        progress = cls(0, None, Dealer(config.game, config.seed), [0.0] * n, budget)
        if config.num_hands > 0:
            progress.deal(config, 0)
        return progress

    def deal(self, config: MatchConfig, hand_id: int) -> None:
        """Deal hand ``hand_id`` up front and reset the per-hand time."""
        hole, board = self.dealer.deal()
        self.state = State(config.game, hand_id, hole, board)
        self.budget.new_hand()


class ResumeError(ValueError):
    """A transaction file or log that cannot be resumed from; the message names the file and line."""


def names_by_position(config: MatchConfig, hand_id: int) -> list[str]:
    """Player names in position order for one hand, as the log lists them."""
    return [config.names[config.seat_of(hand_id, p)] for p in range(config.game.num_players)]


def replay_transactions(config: MatchConfig, transactions: Sequence[Transaction],
                        source: str = "transaction file") -> tuple[MatchProgress, list[str]]:
    """Re-play a transaction file: check each line against the deal, re-apply it, re-charge its time.

    Returns where the match stands and the log lines of the hands it
    finished.  Raises ResumeError naming the line for anything the deal or
    the rules do not allow.
    """
    game = config.game
    progress = MatchProgress.fresh(config)
    log_lines = []
    for t in transactions:
        where = f"{source} line {t.line_number}"
        state = progress.state
        if state is None:
            raise ResumeError(f"{where}: an action after the match's last hand ({config.num_hands} hands)")
        if t.hand_id != state.hand_id:
            raise ResumeError(f"{where}: hand {t.hand_id}, but the next action belongs to hand {state.hand_id}")
        if t.betting is not None:
            betting, cards = format_betting(state), format_cards(state, None)
            if t.betting != betting or t.cards != cards:
                raise ResumeError(f"{where}: state {t.betting}:{t.cards} but the deal and the actions before "
                                  f"give {betting}:{cards}")
        try:
            action = parse_action(t.action_text, game)
        except ProtocolError as exc:
            raise ResumeError(f"{where}: cannot read the action: {exc}") from None
        if not state.is_legal(action):
            raise ResumeError(f"{where}: invalid action {t.action_text!r} in hand {state.hand_id}")
        seat = config.seat_of(state.hand_id, state.current_player)
        if progress.budget.charge(seat, t.send_us, t.recv_us):
            raise ResumeError(f"{where}: seat {seat + 1} ran out of time in transaction file")
        state.apply(action)
        if state.finished:
            log_lines.append(_finish_hand(config, progress, state))
    return progress, log_lines


def _finish_hand(config: MatchConfig, progress: MatchProgress, state: State) -> str:
    """Book a finished hand: totals, its log line, and the next hand dealt; return the line."""
    values = state.payoffs()
    h = state.hand_id
    for p, v in enumerate(values):
        progress.totals[config.seat_of(h, p)] += v
    line = format_state_line(state, names_by_position(config, h), values)
    progress.next_hand = h + 1
    progress.state = None
    if h + 1 < config.num_hands:
        progress.deal(config, h + 1)
    return line


@dataclass
class MatchFiles:
    """The files a match writes (each optional) and the progress to start from."""

    log: MatchLog | None
    tlog: TransactionLog | None
    progress: MatchProgress
    header_written: bool = False
    score_written: bool = False  # a resumed match that had already finished


def open_match_files(config: MatchConfig, use_log: bool = True, use_tlog: bool = False,
                     append: bool = False) -> MatchFiles:
    """Open ``<matchName>.log`` / ``.tlog`` as the reference does; with ``append`` resume from the transaction file.

    Resuming re-plays the transaction file, checks that the existing log is a
    prefix of what an uninterrupted match writes, cuts off a half-written last
    line, and appends what is missing (also a hand whose log line was lost),
    so the finished log equals the uninterrupted one.  Raises ResumeError or
    OSError without touching any file when they do not agree.
    """
    log_path = Path(f"{config.match_name}.log")
    tlog_path = Path(f"{config.match_name}.tlog")
    if not append:
        progress = MatchProgress.fresh(config)
        return MatchFiles(MatchLog(log_path) if use_log else None,
                          TransactionLog(tlog_path) if use_tlog else None, progress)
    transactions: list[Transaction] = []
    tlog_length = 0
    if tlog_path.exists():
        try:
            transactions, tlog_length = read_transactions(tlog_path)
        except TransactionFileError as exc:
            raise ResumeError(str(exc)) from None
    progress, log_lines = replay_transactions(config, transactions, os.fspath(tlog_path))
    expected = config.header_lines() + log_lines
    lines: list[str] = []
    keep_log = 0
    finished = False
    if use_log and log_path.exists():
        lines, keep_log = read_log_lines(log_path)
        finished = progress.state is None and lines == expected + [format_score_line(progress.totals, config.names)]
        if not finished:
            for i, line in enumerate(lines):
                if i >= len(expected) or line != expected[i]:
                    want = expected[i] if i < len(expected) else "(nothing: the transaction file ends before it)"
                    raise ResumeError(f"{log_path} line {i + 1}: {line[:120]!r} is not what the transaction file "
                                      f"gives: {want[:120]!r}; not resuming")
    if tlog_path.exists():
        truncate_file(tlog_path, tlog_length)
    log = None
    if use_log:
        if log_path.exists():
            truncate_file(log_path, keep_log)  # the complete lines read above stay
        log = MatchLog(log_path, append=True)
        if len(lines) < len(expected):
            log.write_lines(expected[len(lines):])
    tlog = TransactionLog(tlog_path, append=True) if use_tlog else None
    return MatchFiles(log, tlog, progress, header_written=use_log, score_written=finished)


# ------------------------------------------------------------------ the match


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
        line = _finish_hand(config, progress, state)
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
            for s, used in enumerate(progress.budget.used_match):
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
        budget = self.progress.budget
        expected = asked[:-2] + b":"
        while True:
            line = channel.take_line()
            if line is None:
                allowed, limit = budget.allowance(seat)
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
                                                                      budget.max_response / 1e6),
                        f"ERROR: seat {seat + 1} ({config.names[seat]}) closed the connection in hand {state.hand_id}",
                    ) from None
            recv_us = now_us()
            if b"\0" in line:
                line = line[:line.index(b"\0")]  # the reference sees a C string
            tr.received(seat, line, recv_us)
            if line[:1] in (b"#", b";"):
                allowed, limit = budget.allowance(seat)
                if recv_us - send_us > allowed:  # a stream of comments must not hold the match forever
                    raise self._timed_out(seat, state.hand_id, limit, (recv_us - send_us) / 1e6)
                continue
            broken = budget.charge(seat, send_us, recv_us)
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
