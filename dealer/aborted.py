"""How a match ends early: :class:`MatchAborted`, carrying the ERROR lines the dealer prints."""

from __future__ import annotations


class MatchAborted(Exception):
    """The match ends early; ``lines`` are the ERROR lines to print."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
