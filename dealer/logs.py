"""The dealer's files: the transcript (stderr), the match log (.log) and the transaction file (.tlog).

Formats are the reference dealer's (project_acpc_server 1.0.42):

* transcript: ``TO <seat> at <sec>.<usec> <line as sent>`` and ``FROM ...`` lines
  carrying the exact bytes on the wire (CRLF included), warnings, errors,
  ``STARTED``/``FINISHED`` stamps and the ``SCORE`` line;
* log: the ``#`` header, one ``STATE:`` line per hand (flushed at once) and ``SCORE:``;
* transaction file: one line per action, written before the action is played,
  ``STATE:<hand>:<betting>:<cards>:<action> <send stamp> <receive stamp>``.

Text goes out as UTF-8 with ``surrogateescape`` so that names given on the
command line and bytes received from players are written back unchanged.

A write that fails (disk full, file-size limit, a closed stream) never
stops the match: each file is a :class:`LineSink`, which cuts off the part
of a line that got out, records the failure in ``failed``, reports it once
through ``on_failure`` and writes nothing more, so every file the dealer
leaves holds whole lines only.
"""

from __future__ import annotations

import errno
import io
import os
import select
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable

from acpcbot.gamedef import UINT32_MAX, bounded_int
from acpcbot.notation.loglines import TRANSACTION_STATE_FORM, split_transaction_state
from acpcbot.notation.transcript import (
    format_stamp,
    from_head,
    from_heads,
    parse_stamp,
    stamp_bytes,
    to_head,
    to_heads,
    transaction_line,
)

__all__ = ["LineSink", "LogWriter", "Transaction", "TransactionFileError", "TransactionLog", "Transcript",
           "format_stamp", "now_us", "parse_stamp", "read_log_lines", "read_transactions", "truncate_file"]

_ENC = "utf-8"
_ERRORS = "surrogateescape"


def now_us() -> int:
    """Wall-clock time in whole microseconds (the reference's gettimeofday)."""
    return time.time_ns() // 1000


class LineSink:
    """Whole lines out to a file descriptor or a binary stream; the first failed write ends it, cleanly.

    When a write fails (disk full, file-size limit, a closed pipe) the part
    of a line that got out is cut off (a regular file is truncated back to
    its last line end; elsewhere a line end closes it), ``failed`` says what
    happened, ``on_failure`` is called once with that text, and every later
    write is dropped: the file keeps whole lines, the match goes on.
    """

    def __init__(self, target: BinaryIO | int, name: str, on_failure: Callable[[str], None] | None = None) -> None:
        self.name = name
        self.on_failure = on_failure
        #: why writing stopped (None: every write so far went out)
        self.failed: str | None = None
        self._owns_fd = isinstance(target, int)
        self._stream: BinaryIO | None = None
        self._fd = -1
        if isinstance(target, int):
            self._fd = target
        else:
            try:
                target.flush()
                self._fd = target.fileno()
            except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
                self._stream = target  # no descriptor (an in-memory stream): write through the object
        self._regular = False
        if self._fd >= 0:
            try:
                self._regular = stat.S_ISREG(os.fstat(self._fd).st_mode)
            except OSError:
                pass

    def write(self, data: bytes) -> bool:
        """Write ``data`` (whole lines); False once writing has failed (now or before)."""
        if self.failed is not None:
            return False
        if self._stream is not None:
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError) as exc:
                self._fail(exc)
                return False
            return True
        done = 0
        while done < len(data):
            try:
                # the usual write takes it all: a view of the rest only after a partial one
                n = os.write(self._fd, memoryview(data)[done:] if done else data)
            except BlockingIOError:
                select.select([], [self._fd], [])  # a non-blocking pipe is full: wait as a blocking write would
                continue
            except OSError as exc:
                self._cut(data, done)
                self._fail(exc)
                return False
            if n <= 0:
                self._cut(data, done)
                self._fail(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
                return False
            done += n
        return True

    def _cut(self, data: bytes, done: int) -> None:
        """Remove (or end) the partial line among the ``done`` bytes of ``data`` that got out."""
        partial = done - (data.rfind(b"\n", 0, done) + 1)
        if partial <= 0:
            return
        try:
            if self._regular:
                os.ftruncate(self._fd, os.fstat(self._fd).st_size - partial)
            else:
                os.write(self._fd, b"\n")
        except OSError:
            pass  # nothing more can be done about this file

    def _fail(self, exc: BaseException) -> None:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        self.failed = (f"ERROR: cannot write {self.name}: {reason}; it ends at its last complete line "
                       f"and the match goes on without it")
        if self.on_failure is not None:
            try:
                self.on_failure(self.failed)
            except Exception:  # noqa: BLE001 - a report that cannot be made must not stop the match
                pass

    def close(self) -> None:
        """Close a descriptor this sink opened (a stream given to it stays open)."""
        if self._owns_fd and self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.close(fd)
            except OSError as exc:
                if self.failed is None:
                    self._fail(exc)


class Transcript:
    """The dealer's stderr transcript, buffered and written out at quiet moments.

    With ``quiet`` only problems (warnings, errors) and the score are kept,
    as the reference's ``-q``.  The match flushes it before every wait for a
    player and at the end of every hand, so a reader of the stream never
    lags behind a slow player; ``max_buffer`` bounds what is held meanwhile.
    The ``TO`` and ``FROM`` lines are kept as their parts and formatted when
    written out: they are most of a match's work between two replies.
    """

    def __init__(self, stream: BinaryIO, quiet: bool = False, max_buffer: int = 1 << 16,
                 name: str = "the transcript") -> None:
        self._sink = LineSink(stream, name)
        self.quiet = quiet
        # text as bytes, or the parts of TO lines (stamp, lines) and of a FROM line (stamp, seat, line)
        self._parts: list[bytes | tuple[int, list[bytes]] | tuple[int, int, bytes]] = []
        self._size = 0
        self._max = max_buffer

    def _add(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        if self._size >= self._max:
            self.flush()

    def info(self, text: str) -> None:
        """A progress line (header, STARTED, time summaries, FINISHED); dropped when quiet."""
        if not self.quiet:
            self._add(text.encode(_ENC, _ERRORS) + b"\n")

    def problem(self, text: str) -> None:
        """A WARNING or ERROR line; always written."""
        self._add(text.encode(_ENC, _ERRORS) + b"\n")

    def score(self, text: str) -> None:
        """The final SCORE line; always written."""
        self._add(text.encode(_ENC, _ERRORS) + b"\n")

    def sent(self, seat: int, line: bytes, stamp_us: int) -> None:
        """``TO <seat 1-based> at <stamp> <line>`` for a line sent (CRLF included)."""
        if not self.quiet:
            self.sent_all([line if s == seat else b"" for s in range(seat + 1)], stamp_us)

    def sent_all(self, lines: list[bytes], stamp_us: int) -> None:
        """The ``TO`` lines of one line to each seat (``lines[seat]``; none where empty), all sent at ``stamp_us``.

        ``lines`` is kept until the transcript is written out: the caller must not change it.
        """
        if not self.quiet:
            self._parts.append((stamp_us, lines))
            self._size += _HELD_SIZE
            if self._size >= self._max:
                self.flush()

    def received(self, seat: int, line: bytes, stamp_us: int) -> None:
        """``FROM <seat 1-based> at <stamp> <line>`` for a line read, as received.

        A piece of an over-long line has no line end; one is added so that
        the next transcript line starts on a line of its own.
        """
        if not self.quiet:
            self._parts.append((stamp_us, seat, line))
            self._size += _HELD_SIZE + len(line)
            if self._size >= self._max:
                self.flush()

    @property
    def failed(self) -> str | None:
        """Why the transcript stopped being written (None: it is whole)."""
        return self._sink.failed

    @property
    def on_failure(self) -> Callable[[str], None] | None:
        """Called once with the failure's text when a write fails (the transcript itself cannot carry it)."""
        return self._sink.on_failure

    @on_failure.setter
    def on_failure(self, report: Callable[[str], None] | None) -> None:
        self._sink.on_failure = report

    @property
    def pending(self) -> bool:
        """Whether lines are held that were not written out yet."""
        return bool(self._parts)

    def flush(self) -> None:
        """Write out everything held so far."""
        if self._parts:
            data = b"".join(_rendered(self._parts))
            self._parts.clear()
            self._size = 0
            self._sink.write(data)  # a failure is recorded there: it must not stop the match or lose the log


#: what a held TO or FROM line counts towards the transcript's ``max_buffer`` (besides a FROM line's own bytes)
_HELD_SIZE = 96


def _rendered(parts: list[bytes | tuple[int, list[bytes]] | tuple[int, int, bytes]]) -> list[bytes]:
    """The transcript's held parts as the pieces of the bytes written: text as it is, TO and FROM lines formatted."""
    # pieces joined once by the caller: cheaper than formatting each TO and FROM line as a whole
    out: list[bytes] = []
    add = out.append
    extend = out.extend
    to, from_ = to_heads(), from_heads()
    seats = len(to)
    for part in parts:
        if isinstance(part, bytes):
            add(part)
        elif len(part) == 2:
            stamp_us, lines = part
            at = stamp_bytes(stamp_us)
            for s, line in enumerate(lines):
                if line:
                    extend((to[s] if s < seats else to_head(s), at, line))
        else:
            stamp_us, seat, line = part
            extend((from_[seat] if seat < seats else from_head(seat), stamp_bytes(stamp_us), line))
            if not line.endswith(b"\n"):
                add(b"\n")
    return out


def _open_for_lines(path: Path, append: bool) -> int:
    # unbuffered: every write reaches the system at once, and a failed one is known to the byte
    return os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC), 0o666)


class LogWriter(LineSink):
    """The ``<matchName>.log`` file as the dealer writes it: whole lines, each handed to the system at once."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False,
                 on_failure: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        super().__init__(_open_for_lines(self.path, append), self.path.name, on_failure)

    def write_lines(self, lines: list[str]) -> None:
        """Append whole lines (nothing once a write has failed: see :class:`LineSink`)."""
        self.write("".join(line + "\n" for line in lines).encode(_ENC, _ERRORS))


class TransactionLog(LineSink):
    """The ``<matchName>.tlog`` file: one line per action, written before the action is played."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False,
                 on_failure: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        super().__init__(_open_for_lines(self.path, append), self.path.name, on_failure)

    def record(self, state_text: str, action_text: str, send_us: int, recv_us: int) -> None:
        """Write ``<state text>:<action> <send stamp> <receive stamp>`` (nothing once a write has failed)."""
        self.write(transaction_line(state_text, action_text, send_us, recv_us).encode(_ENC, _ERRORS))


@dataclass(frozen=True)
class Transaction:
    """One line of a transaction file.

    ``betting`` and ``cards`` are None for a line in the reference dealer's
    short form ``<action> <hand> <send> <receive>``, which is read too.
    """

    line_number: int
    hand_id: int
    betting: str | None
    cards: str | None
    action_text: str
    send_us: int
    recv_us: int


class TransactionFileError(ValueError):
    """A transaction file line that cannot be read; the message names the file and line."""


def read_transactions(path: str | os.PathLike[str]) -> tuple[list[Transaction], int]:
    """Every complete line of a transaction file, and the byte length of those lines.

    A last line without its line end (the dealer stopped while writing it)
    is not a transaction; the returned length lets the caller cut it off.
    """
    data = Path(path).read_bytes()
    complete = data.rfind(b"\n") + 1
    out = []
    for number, raw in enumerate(data[:complete].split(b"\n")[:-1], start=1):
        text = raw.decode(_ENC, _ERRORS).rstrip("\r")
        out.append(_parse_transaction(text, number, path))
    return out, complete


def _parse_transaction(text: str, number: int, path: str | os.PathLike[str]) -> Transaction:
    where = f"{os.fspath(path)} line {number}"
    parts = text.rsplit(" ", 2)
    if len(parts) != 3:
        raise TransactionFileError(f"{where}: expected '<state>:<action> <send> <receive>', got {text[:120]!r}")
    head, send, recv = parts
    try:
        send_us, recv_us = parse_stamp(send), parse_stamp(recv)
    except ValueError as exc:
        raise TransactionFileError(f"{where}: {exc}") from None
    fields = split_transaction_state(head)
    if fields is not None:
        hand_id = _hand_number(fields[0])
        if hand_id is None:
            raise TransactionFileError(f"{where}: expected '{TRANSACTION_STATE_FORM}' with a "
                                       f"32-bit hand number, got {head[:120]!r}")
        return Transaction(number, hand_id, fields[1], fields[2], fields[3], send_us, recv_us)
    # the reference's own form: <action> <hand> <send> <receive>
    action_text, _, hand = head.rpartition(" ")
    hand_id = _hand_number(hand)
    if not action_text or hand_id is None:
        raise TransactionFileError(f"{where}: expected '<action> <hand> <send> <receive>' with a 32-bit hand "
                                   f"number, got {text[:120]!r}")
    return Transaction(number, hand_id, None, None, action_text, send_us, recv_us)


def _hand_number(text: str) -> int | None:
    value = bounded_int(text, 0, UINT32_MAX + 1) if text[:1].isdigit() else None
    return value if value is not None and value <= UINT32_MAX else None


def truncate_file(path: str | os.PathLike[str], length: int) -> None:
    """Cut a file to ``length`` bytes (drops a line the dealer did not finish writing)."""
    with open(path, "r+b") as f:
        f.truncate(length)


def read_log_lines(path: str | os.PathLike[str]) -> tuple[list[str], int]:
    """The complete lines of an existing log (without line ends) and their byte length."""
    data = Path(path).read_bytes()
    complete = data.rfind(b"\n") + 1
    lines = data[:complete].decode(_ENC, _ERRORS).split("\n")[:-1]
    return lines, complete
