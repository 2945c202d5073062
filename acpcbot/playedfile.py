"""A seat's played-rows file (``acpcbot.notation.played``): written as it plays, read by the arena's AIVAT.

The file is made at the first row a strategy gives (``Strategy.played_policy``),
so a strategy that gives none leaves no file.  Each line is written whole as
the decision is made; a write that fails is said once and ends the file: the
rows already there stay, and the analysis, missing the later decisions,
replays the strategy instead.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TextIO

from .notation.played import format_played_row
from .policy_types import ActionPolicy
from .world import View

log = logging.getLogger("acpcbot.client")  # the client's log: the file is the client's


class PlayedRowsWriter:
    """One seat's played rows for a match, a line per decision, at ``path`` (made, or emptied, at the first)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stream: TextIO | None = None
        #: why the file stopped being written (None while it is written)
        self.failed: str | None = None
        self.rows = 0

    def record(self, view: View, policy: ActionPolicy) -> None:
        """The row of ``view``'s holding under ``policy``, the decision ``view`` is at."""
        if self.failed is not None:
            return
        line = format_played_row(view.hand_id, view.state.num_actions, policy.actions, policy.row(view.hole),
                                 view.state.game.is_nolimit)
        try:
            if self._stream is None:
                self._stream = open(self.path, "w", encoding="ascii", buffering=1)  # a line is written whole
            self._stream.write(line + "\n")
        except OSError as exc:
            self.failed = f"{exc.strerror or exc}"
            log.warning("played rows %s: cannot write (%s); the later decisions are not kept there", self.path,
                        self.failed)
            self.close()
            return
        self.rows += 1

    def close(self) -> None:
        """Close the file (nothing to do when no row was written)."""
        if self._stream is not None:
            try:
                self._stream.close()
            except OSError:
                pass  # a line buffer holds nothing unwritten: the file has its whole lines
            self._stream = None
