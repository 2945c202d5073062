"""The dealer's transcript and transaction lines: ``TO``/``FROM`` line heads, time stamps, ``STARTED``/``FINISHED``.

* transcript: ``TO <seat> at <sec>.<usec> <line as sent>`` and ``FROM ...``
  (seats counted from 1), ``STARTED at <stamp>``, ``FINISHED at <stamp>``;
* transaction file: ``<state>:<action> <send stamp> <receive stamp>``, the
  state written by :func:`acpcbot.notation.loglines.transaction_state`.

What is held and when it is written is ``dealer.logs``'s.
"""

from __future__ import annotations

import re

from ..gamedef import bounded_int

#: the seats whose TO and FROM heads are kept formatted (the reference's MAX_PLAYERS is 10)
_SEATS = 16
_TO = [b"TO %d at " % (s + 1) for s in range(_SEATS)]
_FROM = [b"FROM %d at " % (s + 1) for s in range(_SEATS)]


def to_heads() -> list[bytes]:
    """``TO <seat> at `` for the first seats (index: seat from 0); :func:`to_head` for any seat."""
    return _TO


def from_heads() -> list[bytes]:
    """``FROM <seat> at `` for the first seats (index: seat from 0); :func:`from_head` for any seat."""
    return _FROM


def to_head(seat: int) -> bytes:
    """``TO <seat 1-based> at `` for a line sent to ``seat`` (counted from 0)."""
    return _TO[seat] if seat < _SEATS else b"TO %d at " % (seat + 1)


def from_head(seat: int) -> bytes:
    """``FROM <seat 1-based> at `` for a line read from ``seat`` (counted from 0)."""
    return _FROM[seat] if seat < _SEATS else b"FROM %d at " % (seat + 1)


def stamp_bytes(stamp_us: int) -> bytes:
    """A time stamp and the space after it, as a transcript line carries it: ``<seconds>.<6-digit micros> ``."""
    return b"%d.%06d " % divmod(stamp_us, 1_000_000)


def format_stamp(stamp_us: int) -> str:
    """A time stamp as the reference prints it: ``<seconds>.<6-digit microseconds>``."""
    sec, usec = divmod(stamp_us, 1_000_000)
    return "%d.%06d" % (sec, usec)


def parse_stamp(text: str) -> int:
    """Microseconds from ``<seconds>.<microseconds>``; ValueError when malformed (of any length)."""
    sec, dot, usec = text.partition(".")
    seconds = bounded_int(sec, 0, 2**63) if sec[:1].isdigit() else None
    micros = bounded_int(usec, 0, 10**6) if usec[:1].isdigit() else None
    if not dot or seconds is None or micros is None or seconds >= 2**63 or micros >= 10**6:
        shown = text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"
        raise ValueError(f"malformed time stamp {shown!r}")
    return seconds * 1_000_000 + micros


def started_line(stamp_us: int) -> str:
    """``STARTED at <stamp>``: the match's first hand is about to be dealt."""
    return f"STARTED at {format_stamp(stamp_us)}"


def finished_line(stamp_us: int) -> str:
    """``FINISHED at <stamp>``: every hand was played."""
    return f"FINISHED at {format_stamp(stamp_us)}"


def transaction_line(state_text: str, action_text: str, send_us: int, recv_us: int) -> str:
    """One transaction-file line: ``<state text>:<action> <send stamp> <receive stamp>`` and a newline."""
    return f"{state_text}:{action_text} {format_stamp(send_us)} {format_stamp(recv_us)}\n"


_STATE_LINE = re.compile(r"^(TO|FROM) (\d+) at \S+ (MATCHSTATE:\S*)\s*$")


def read_state_line(line: str) -> tuple[str, int, str] | None:
    """A transcript line carrying a MATCHSTATE line, as (``"TO"`` or ``"FROM"``, the seat counted from 1,
    the MATCHSTATE text); None for any other line (STARTED, FINISHED, a reply's action...)."""
    m = _STATE_LINE.match(line)
    return None if m is None else (m.group(1), int(m.group(2)), m.group(3))
