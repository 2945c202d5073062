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
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_ENC = "utf-8"
_ERRORS = "surrogateescape"


def now_us() -> int:
    """Wall-clock time in whole microseconds (the reference's gettimeofday)."""
    return time.time_ns() // 1000


def format_stamp(stamp_us: int) -> str:
    """A time stamp as the reference prints it: ``<seconds>.<6-digit microseconds>``."""
    sec, usec = divmod(stamp_us, 1_000_000)
    return "%d.%06d" % (sec, usec)


def parse_stamp(text: str) -> int:
    """Microseconds from ``<seconds>.<microseconds>``; ValueError when malformed."""
    sec, dot, usec = text.partition(".")
    if not dot or not sec.isdigit() or not usec.isdigit() or not sec.isascii() or not usec.isascii():
        raise ValueError(f"malformed time stamp {text!r}")
    return int(sec) * 1_000_000 + int(usec)


class Transcript:
    """The dealer's stderr transcript, buffered and written out at quiet moments.

    With ``quiet`` only problems (warnings, errors) and the score are kept,
    as the reference's ``-q``.  The match flushes it before every wait for a
    player and at the end of every hand, so a reader of the stream never
    lags behind a slow player; ``max_buffer`` bounds what is held meanwhile.
    """

    def __init__(self, stream: BinaryIO, quiet: bool = False, max_buffer: int = 1 << 16) -> None:
        self._stream = stream
        self.quiet = quiet
        self._parts: list[bytes] = []
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
            sec, usec = divmod(stamp_us, 1_000_000)
            self._add(b"TO %d at %d.%06d %s" % (seat + 1, sec, usec, line))

    def received(self, seat: int, line: bytes, stamp_us: int) -> None:
        """``FROM <seat 1-based> at <stamp> <line>`` for a line read, as received.

        A piece of an over-long line has no line end; one is added so that
        the next transcript line starts on a line of its own.
        """
        if not self.quiet:
            sec, usec = divmod(stamp_us, 1_000_000)
            end = b"" if line.endswith(b"\n") else b"\n"
            self._add(b"FROM %d at %d.%06d %s%s" % (seat + 1, sec, usec, line, end))

    @property
    def pending(self) -> bool:
        """Whether lines are held that were not written out yet."""
        return bool(self._parts)

    def flush(self) -> None:
        """Write out everything held so far."""
        if self._parts:
            data = b"".join(self._parts)
            self._parts.clear()
            self._size = 0
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                pass  # a closed stderr must not stop the match or lose the log


class LogWriter:
    """The ``<matchName>.log`` file as the dealer writes it: lines are written and flushed at once."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False) -> None:
        self.path = Path(path)
        self._file = open(self.path, "a" if append else "w", encoding=_ENC, errors=_ERRORS, newline="\n")

    def write_lines(self, lines: list[str]) -> None:
        """Append whole lines and flush them to the operating system."""
        self._file.write("".join(line + "\n" for line in lines))
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()


class TransactionLog:
    """The ``<matchName>.tlog`` file: one flushed line per action, written before the action is played."""

    def __init__(self, path: str | os.PathLike[str], append: bool = False) -> None:
        self.path = Path(path)
        self._file = open(self.path, "a" if append else "w", encoding=_ENC, errors=_ERRORS, newline="\n")

    def record(self, state_text: str, action_text: str, send_us: int, recv_us: int) -> None:
        """Write ``<state text>:<action> <send stamp> <receive stamp>`` and flush it."""
        self._file.write(f"{state_text}:{action_text} {format_stamp(send_us)} {format_stamp(recv_us)}\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()


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
    if head.startswith("STATE:"):
        fields = head.split(":")
        if len(fields) != 5 or not fields[1].isdigit() or not fields[1].isascii():
            raise TransactionFileError(f"{where}: expected 'STATE:<hand>:<betting>:<cards>:<action>', "
                                       f"got {head[:120]!r}")
        return Transaction(number, int(fields[1]), fields[2], fields[3], fields[4], send_us, recv_us)
    # the reference's own form: <action> <hand> <send> <receive>
    action_text, _, hand = head.rpartition(" ")
    if not action_text or not hand.isdigit() or not hand.isascii():
        raise TransactionFileError(f"{where}: expected '<action> <hand> <send> <receive>', got {text[:120]!r}")
    return Transaction(number, int(hand), None, None, action_text, send_us, recv_us)


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
