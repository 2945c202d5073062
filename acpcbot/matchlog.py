"""ACPC match logs (``.log``): the header, one ``STATE:`` line per hand and the ``SCORE:`` line.

Values are written as the reference dealer writes them: ``%.6f`` with
trailing zeros and a trailing point removed (``100``, ``2.5``, ``-33.333333``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence, TextIO

from .engine import State
from .gamedef import GameDef, GameDefError, load_game
from .protocol import ProtocolError, format_betting, format_cards, parse_cards_field, replay_betting


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
    if not hand_text.isdigit():
        raise LogError(f"hand number {hand_text!r} is not an unsigned integer")
    hand_id = int(hand_text)
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
        try:
            float(v)
        except ValueError:
            raise LogError(f"hand {hand_id}: value {v!r} is not a number") from None
    return LoggedHand(hand_id, state, values_text, name_list)


def parse_score_line(line: str) -> tuple[list[str], list[str]]:
    """Values (as written) and names per seat of a ``SCORE:`` line."""
    fields = line.rstrip("\r\n").split(":")
    if len(fields) != 3 or fields[0] != "SCORE":
        raise LogError(f"not a SCORE line: {line[:80]!r}")
    values, names = fields[1].split("|"), fields[2].split("|")
    if len(values) != len(names):
        raise LogError(f"SCORE line has {len(values)} values and {len(names)} names")
    return values, names


def parse_header_line(line: str, header: Header | None) -> Header | None:
    """Fold one ``#`` line into the header read so far (unknown comments are ignored)."""
    text = line.rstrip("\r\n")
    if text.startswith("# name/game/hands/seed "):
        parts = text.split()
        if len(parts) != 6 or not parts[4].isdigit() or not parts[5].isdigit():
            raise LogError(f"malformed header line {text!r}")
        return Header(parts[2], parts[3], int(parts[4]), int(parts[5]))
    for key in ("t_response", "t_hand", "t_per_hand"):
        prefix = f"#--{key} "
        if text.startswith(prefix) and header is not None:
            try:
                setattr(header, key, int(text[len(prefix):]))
            except ValueError:
                raise LogError(f"malformed header line {text!r}") from None
    return header


def header_game(header: Header | None) -> GameDef:
    """The game a log's header names; LogError when no header names one or it does not load."""
    if header is None:
        raise LogError("no '# name/game/hands/seed' header names the game")
    try:
        return load_game(header.game_name)
    except GameDefError as exc:
        raise LogError(f"cannot load the header's game: {exc}") from None


def iter_log(stream: TextIO) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, kind, line) with kind one of 'comment', 'state', 'score', 'blank', 'other'."""
    for number, line in enumerate(stream, start=1):
        if line.startswith("#"):
            kind = "comment"
        elif line.startswith("STATE:"):
            kind = "state"
        elif line.startswith("SCORE:"):
            kind = "score"
        elif not line.strip():
            kind = "blank"
        else:
            kind = "other"
        yield number, kind, line
