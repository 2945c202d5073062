"""ACPC match logs (``.log``): the header, one ``STATE:`` line per hand and the ``SCORE:`` line.

Values are written as the reference dealer writes them: ``%.6f`` with
trailing zeros and a trailing point removed (``100``, ``2.5``, ``-33.333333``).
"""

from __future__ import annotations

import logging
import math
import os
import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from .engine import State, position_of
from .gamedef import UINT32_MAX, GameDef, GameDefError, bounded_int, clip, load_game
from .protocol import ProtocolError, format_betting, format_cards, parse_cards_field, replay_betting

log = logging.getLogger(__name__)


class LogError(ValueError):
    """A log line that cannot be read."""


def format_value(value: float) -> str:
    """A chip value as the reference prints it: ``%.6f`` without trailing zeros or point."""
    text = "%.6f" % value
    text = text.rstrip("0")
    return text[:-1] if text.endswith(".") else text


def format_values(values: Sequence[float]) -> str:
    """Values joined by ``|``."""
    return "|".join(format_value(v) for v in values)


@dataclass
class LoggedHand:
    """One ``STATE:`` line: the replayed hand, its values as written, and the names per position."""

    hand_id: int
    state: State
    values_text: list[str]
    names: list[str]

    @property
    def values(self) -> list[float]:
        """The logged values as floats."""
        return [float(v) for v in self.values_text]


@dataclass
class Header:
    """The ``#`` lines at the top of a log."""

    match_name: str
    game_name: str
    num_hands: int
    seed: int
    t_response: int | None = None
    t_hand: int | None = None
    t_per_hand: int | None = None


def format_header(match_name: str, game_name: str, num_hands: int, seed: int,
                  t_response: int, t_hand: int, t_per_hand: int) -> list[str]:
    """The reference dealer's four header lines (times in milliseconds)."""
    return [f"# name/game/hands/seed {match_name} {game_name} {num_hands} {seed}",
            f"#--t_response {t_response}", f"#--t_hand {t_hand}", f"#--t_per_hand {t_per_hand}"]


def format_state_line(state: State, names: Sequence[str], values: Sequence[float] | None = None) -> str:
    """The ``STATE:`` line of a finished hand; ``names`` per position."""
    if values is None:
        values = state.payoffs()
    return (f"STATE:{state.hand_id}:{format_betting(state)}:{format_cards(state, None)}:"
            f"{format_values(values)}:{'|'.join(names)}")


def format_score_line(totals: Sequence[float], names: Sequence[str]) -> str:
    """The ``SCORE:`` line; totals and names per seat."""
    return f"SCORE:{format_values(totals)}:{'|'.join(names)}"


def parse_state_line(line: str, game: GameDef) -> LoggedHand:
    """Parse and replay ``STATE:<hand>:<betting>:<cards>:<values>:<names>``."""
    line = line.rstrip("\r\n")
    fields = line.split(":")
    if len(fields) != 6 or fields[0] != "STATE":
        raise LogError(f"not a STATE line with six ':'-separated fields: {line[:80]!r}")
    _, hand_text, betting, cards, values, names = fields
    hand_id = _uint(hand_text, "hand number")
    try:
        state = replay_betting(betting, game, State(game, hand_id))
        hole, board = parse_cards_field(cards, game, state.round, f"hand {hand_id}")
    except ProtocolError as exc:
        raise LogError(str(exc)) from None
    state.hole, state.board = hole, board
    values_text = values.split("|")
    name_list = names.split("|")
    n = game.num_players
    if len(values_text) != n or len(name_list) != n:
        raise LogError(f"hand {hand_id}: {len(values_text)} values and {len(name_list)} names, the game has {n} players")
    for v in values_text:
        if not _VALUE.match(v) or not math.isfinite(float(v)):
            raise LogError(f"hand {hand_id}: value {clip(v, 40)} is not a number as the dealer writes one")
    return LoggedHand(hand_id, state, values_text, name_list)


#: a value as the reference writes it (``%.6f`` trimmed); Python's float() would also take 'nan', '1e5' or '1_0'
_VALUE = re.compile(r"-?[0-9]+(\.[0-9]+)?\Z")


def _uint(text: str, what: str) -> int:
    """A 32-bit unsigned field (hand numbers, the header's hands and seed); LogError otherwise, whatever its length."""
    value = bounded_int(text, 0, UINT32_MAX + 1) if text[:1].isdigit() else None
    if value is None or value > UINT32_MAX:
        raise LogError(f"{what} {clip(text, 40)} is not an unsigned 32-bit integer")
    return value


def parse_score_line(line: str) -> tuple[list[str], list[str]]:
    """Values (as written) and names per seat of a ``SCORE:`` line."""
    fields = line.rstrip("\r\n").split(":")
    if len(fields) != 3 or fields[0] != "SCORE":
        raise LogError(f"not a SCORE line: {clip(line)}")
    values, names = fields[1].split("|"), fields[2].split("|")
    if len(values) != len(names):
        raise LogError(f"SCORE line has {len(values)} values and {len(names)} names")
    for v in values:
        if not _VALUE.match(v) or not math.isfinite(float(v)):
            raise LogError(f"SCORE value {clip(v, 40)} is not a number as the dealer writes one")
    return values, names


def parse_header_line(line: str, header: Header | None) -> Header | None:
    """Fold one ``#`` line into the header read so far (unknown comments are ignored)."""
    text = line.rstrip("\r\n")
    if text.startswith(MATCH_HEADER):
        # name, game, hands, seed: the match name has no space (the dealer refuses one), a game path may have
        parts = text[len(MATCH_HEADER):].split(" ")
        if len(parts) < 4 or not parts[0]:
            raise LogError(f"malformed header line {clip(text)}")
        try:
            return Header(parts[0], " ".join(parts[1:-2]), _uint(parts[-2], "number of hands"),
                          _uint(parts[-1], "seed"))
        except LogError as exc:
            raise LogError(f"malformed header line {clip(text)}: {exc}") from None
    for key in ("t_response", "t_hand", "t_per_hand"):
        prefix = f"#--{key} "
        if text.startswith(prefix) and header is not None:
            value = bounded_int(text[len(prefix):].strip(), -2**63, 2**63 - 1)
            if value is None:
                raise LogError(f"malformed header line {clip(text)}")
            setattr(header, key, value)
    return header


def header_game(header: Header | None) -> GameDef:
    """The game a log's header names; LogError when no header names one or it does not load."""
    if header is None:
        raise LogError("no '# name/game/hands/seed' header names the game")
    try:
        return load_game(header.game_name)
    except GameDefError as exc:
        raise LogError(f"cannot load the header's game: {exc}") from None


#: the header line that starts a match (a file may hold several matches, concatenated)
MATCH_HEADER = "# name/game/hands/seed "


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
                    elif line.startswith("STATE:"):
                        if match_game is None:
                            try:
                                match_game = header_game(header)
                            except LogError as exc:
                                raise LogLineError(number, str(exc), cut=cut, needs_game=True) from None
                        yield LogEntry(number, "state", line, header, hand=parse_state_line(line, match_game))
                    elif line.startswith("SCORE:"):
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
