"""ACPC match logs (``.log``) read as files: line by line, a match at a time, a cut-off last line forgiven.

What each line says and how it is written (the header, ``STATE:`` and
``SCORE:`` lines, values as the reference prints them) is
``acpcbot.notation.loglines``'s; its names are re-exported here for the
code that reads logs.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Iterator

from .engine import position_of
from .gamedef import GameDef, GameDefError, clip, load_game
from .notation.loglines import (
    MATCH_HEADER,
    SCORE_PREFIX,
    STATE_PREFIX,
    Header,
    LogError,
    LoggedHand,
    format_header,
    format_score_line,
    format_state_line,
    format_value,
    format_values,
    parse_header_line,
    parse_score_line,
    parse_state_line,
)

__all__ = ["MATCH_HEADER", "Header", "LogEntry", "LogError", "LogLineError", "LoggedHand", "MatchLog",
           "format_header", "format_score_line", "format_state_line", "format_value", "format_values",
           "header_game", "parse_header_line", "parse_score_line", "parse_state_line", "read_entries",
           "read_match_log"]

log = logging.getLogger(__name__)


def header_game(header: Header | None) -> GameDef:
    """The game a log's header names; LogError when no header names one or it does not load."""
    if header is None:
        raise LogError("no '# name/game/hands/seed' header names the game")
    try:
        return load_game(header.game_name)
    except GameDefError as exc:
        raise LogError(f"cannot load the header's game: {exc}") from None


class LogLineError(LogError):
    """A log line that cannot be read: ``number`` is its line (0: the file as a whole), ``reason`` says why."""

    def __init__(self, number: int, reason: str, *, cut: bool = False, needs_game: bool = False) -> None:
        super().__init__(reason)
        self.number = number
        self.reason = reason
        #: the line has no line end: the last line of a log whose writer stopped in the middle of it
        self.cut = cut
        #: no game is known for the line (no header names one and none was given)
        self.needs_game = needs_game


@dataclass
class LogEntry:
    """One line of a log, read: its kind and, for STATE and SCORE lines, what it says."""

    number: int
    #: 'comment' (header lines included), 'state', 'score', 'blank' or 'other'
    kind: str
    line: str
    #: the header in force (the match's ``#`` lines read so far)
    header: Header | None
    #: the replayed hand of a STATE line
    hand: LoggedHand | None = None
    #: values and names of a SCORE line
    score: tuple[list[str], list[str]] | None = None
    #: whether the line starts a new match (a ``# name/game/hands/seed`` header)
    new_match: bool = False


def read_entries(path: str | os.PathLike[str], game: GameDef | None = None) -> Iterator[LogEntry]:
    """Every line of a dealer log (ours or the reference's), read; the one reader of ``.log`` files.

    STATE lines are replayed in ``game``, else in the game the header in
    force names (a file of several concatenated matches is read match by
    match).  Raises :class:`LogLineError` at the first line that cannot be
    read (a cut-off last line says so in ``cut``), OSError when the file
    cannot be opened.  'other' lines are yielded, not refused: what they
    mean is the caller's rule.
    """
    header: Header | None = None
    match_game = game
    with open(path, encoding="utf-8", errors="strict", newline="") as stream:
        number = 0
        try:
            for number, line in enumerate(stream, start=1):
                cut = not line.endswith("\n")
                try:
                    if line.startswith("#"):
                        new_match = line.startswith(MATCH_HEADER)
                        header = parse_header_line(line, header)
                        if new_match and game is None:
                            match_game = None
                        yield LogEntry(number, "comment", line, header, new_match=new_match)
                    elif line.startswith(STATE_PREFIX):
                        if match_game is None:
                            try:
                                match_game = header_game(header)
                            except LogError as exc:
                                raise LogLineError(number, str(exc), cut=cut, needs_game=True) from None
                        yield LogEntry(number, "state", line, header, hand=parse_state_line(line, match_game))
                    elif line.startswith(SCORE_PREFIX):
                        yield LogEntry(number, "score", line, header, score=parse_score_line(line))
                    else:
                        yield LogEntry(number, "other" if line.strip() else "blank", line, header)
                except LogLineError:
                    raise
                except LogError as exc:
                    raise LogLineError(number, str(exc), cut=cut) from None
        except UnicodeDecodeError as exc:
            raise LogLineError(0, f"not a text log: {exc}") from None


@dataclass
class MatchLog:
    """A parsed dealer log: the game, its header, its hands in log order and the SCORE line if any."""

    game: GameDef
    hands: list[LoggedHand]
    header: Header | None = None
    score: tuple[list[str], list[str]] | None = None
    path: str = ""

    @property
    def players(self) -> list[str]:
        """Player names in seat order (the SCORE line's, else the first hand's seats)."""
        if self.score is not None:
            return list(self.score[1])
        if not self.hands:
            return []
        first = self.hands[0]
        n = len(first.names)
        return [first.names[position_of(s, first.hand_id, n)] for s in range(n)]


def read_match_log(path: str | os.PathLike[str], game: GameDef | None = None) -> MatchLog:
    """A whole dealer log; a cut-off last line (a dealer stopped while writing it) is left out with a warning.

    Raises LogError naming the file and line (or OSError) for anything else.
    """
    hands: list[LoggedHand] = []
    header: Header | None = None
    score = None
    entries = read_entries(path, game)
    while True:
        try:
            entry = next(entries)
        except StopIteration:
            break
        except LogLineError as exc:
            if exc.cut:
                log.warning("%s, line %d: ignoring the cut-off last line (%s)", path, exc.number, exc.reason)
                break
            where = f"{path}, line {exc.number}" if exc.number else f"{path}"
            raise LogError(f"{where}: {exc.reason}") from None
        header = entry.header
        if entry.kind == "state":
            assert entry.hand is not None
            hands.append(entry.hand)
            if game is None:
                game = entry.hand.state.game
        elif entry.kind == "score":
            score = entry.score
        elif entry.kind == "other":
            raise LogError(f"{path}, line {entry.number}: not a log line: {clip(entry.line.rstrip())}")
    if game is None:
        try:
            game = header_game(header)
        except LogError as exc:
            raise LogError(f"{path}: {exc}") from None
    return MatchLog(game, hands, header, score, os.fspath(path))
