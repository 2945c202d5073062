"""The client's history file (``acpcbot --history FILE``): where it stands, and how a failed write leaves it.

The client appends one JSON record per finished hand and keeps the file's
length after its last whole record; when a write fails it closes the file,
cut back to that length, so that the file holds whole records only.
"""

from __future__ import annotations

import json
import logging
import os
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # hints only
    from .world import MatchHistory

log = logging.getLogger("acpcbot.client")  # the client's log: its history file is the client's


def file_position(stream: Any) -> int | None:
    """Where a file stands (its length, for an append-only file), or None when it cannot say."""
    try:
        return int(stream.tell())
    except (AttributeError, OSError, ValueError):
        return None


def abandon_file(stream: Any, good: int | None) -> None:
    """Close a history file whose write failed, cut back to its last whole record when it is a file.

    Closing here (the buffered rest is lost with the failure) keeps the
    owner's own close from failing again on the same unwritable data.
    """
    try:
        fd = os.dup(stream.fileno())
    except (AttributeError, OSError, ValueError):
        fd = None
    try:
        stream.close()
    except (OSError, ValueError):
        pass  # the buffered rest could not be written either; the file is closed all the same
    if fd is None:
        return
    try:
        if good is not None:
            os.ftruncate(fd, good)
    except OSError:
        pass  # not a regular file: nothing to cut
    finally:
        os.close(fd)


class HistoryWriter:
    """A match's history file, a JSON line per hand; a failed write ends it, cut back to its whole records."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        # the file's length after its last whole record (where a failed write is cut back to)
        self._good = file_position(stream) if stream is not None else None

    def record(self, match: "MatchHistory") -> None:
        """Append the hand ``match`` finished last (nothing when no file is kept)."""
        if self.stream is not None and match.hands:
            self.append(json.dumps(match.hands[-1].to_json(match.total)), match.hands_played - 1)

    def append(self, line: str, hand: int) -> None:
        """Write one hand's record (``hand`` names it in the error when the write fails)."""
        stream = self.stream
        if stream is None:
            return
        try:
            stream.write(line + "\n")
            stream.flush()
            self._good = file_position(stream)
        except (OSError, ValueError) as exc:
            self.stream = None
            log.error("cannot write the history file: %s; history stops at hand %d", exc, hand)
            abandon_file(stream, self._good)
