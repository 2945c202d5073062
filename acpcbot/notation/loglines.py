"""ACPC match-log lines: the ``#`` header, one ``STATE:`` line per hand, the ``SCORE:`` line, and the
dealer's transaction lines (``STATE:<hand>:<betting>:<cards>``, the state an action answered).

Values are written as the reference dealer writes them: ``%.6f`` with
trailing zeros and a trailing point removed (``100``, ``2.5``, ``-33.333333``).
Reading a whole file is ``acpcbot.matchlog``'s.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from ..engine import DealError, State
from ..gamedef import UINT32_MAX, GameDef, bounded_int, clip
from .betting import format_betting, replay_betting
from .cardsfield import format_cards, parse_cards_field
from .errors import ProtocolError

#: what a hand's line of a log starts with, and the match's result line
STATE_PREFIX = "STATE:"
SCORE_PREFIX = "SCORE:"


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
    return (f"{STATE_PREFIX}{state.hand_id}:{format_betting(state)}:{format_cards(state, None)}:"
            f"{format_values(values)}:{'|'.join(names)}")


def format_score_line(totals: Sequence[float], names: Sequence[str]) -> str:
    """The ``SCORE:`` line; totals and names per seat."""
    return f"{SCORE_PREFIX}{format_values(totals)}:{'|'.join(names)}"


def state_line(hand_id: int, betting: str, cards: str, values: Sequence[float], names: str) -> str:
    """A ``STATE:`` line from its fields as the dealer holds them: betting, every hole card, ``|``-joined names."""
    return f"{STATE_PREFIX}{hand_id}:{betting}:{cards}:{values_text(values)}:{names}"


def transaction_state(hand_id: int, betting: str, cards: str) -> str:
    """The state field of a transaction-file line: ``STATE:<hand>:<betting>:<cards>`` (every hole card)."""
    return f"{STATE_PREFIX}{hand_id}:{betting}:{cards}"


#: what a STATE transaction looks like, for messages about one that does not
TRANSACTION_STATE_FORM = f"{STATE_PREFIX}<hand>:<betting>:<cards>:<action>"


def split_transaction_state(text: str) -> tuple[str, str, str, str] | None:
    """The hand number, betting, cards and action text of ``STATE:<hand>:<betting>:<cards>:<action>``, unchecked;
    None when ``text`` is not a STATE transaction (the reference writes ``<action> <hand>`` instead)."""
    if not text.startswith(STATE_PREFIX):
        return None
    fields = text.split(":")
    if len(fields) != 5:
        return ("", "", "", "")  # a STATE transaction with the wrong number of fields: no hand number reads
    return fields[1], fields[2], fields[3], fields[4]


#: the log's text of the values met so far (a match meets few: each is formatted once), up to _VALUES_MAX of them
_VALUE_TEXT: dict[float, str] = {}
_VALUES_MAX = 1 << 14


def values_text(values: Sequence[float]) -> str:
    """``format_values(values)``, each value's text remembered (a dealer writes the same few again and again)."""
    texts = _VALUE_TEXT
    out = []
    for v in values:
        text = texts.get(v)
        if text is None:
            text = format_value(v)
            # -0.0 equals 0.0 as a key but prints "-0": only other values are remembered
            if v and len(texts) < _VALUES_MAX:
                texts[v] = text
        out.append(text)
    return "|".join(out)


def state_line_cards(line: str, game: GameDef) -> tuple[list[tuple[int, ...]], list[int]]:
    """The hole cards and the board of a ``STATE`` line, read without replaying its betting (for a reader that needs
    the cards alone; :func:`parse_state_line` checks the whole line)."""
    fields = line.rstrip("\r\n").split(":")
    if len(fields) != 6 or fields[0] != STATE_PREFIX[:-1]:
        raise LogError(f"not a STATE line with six ':'-separated fields: {line[:80]!r}")
    try:
        return parse_cards_field(fields[3], game, fields[3].count("/"), f"hand {fields[1]}")
    except ProtocolError as exc:
        raise LogError(str(exc)) from None


def parse_state_line(line: str, game: GameDef) -> LoggedHand:
    """Parse and replay ``STATE:<hand>:<betting>:<cards>:<values>:<names>``."""
    line = line.rstrip("\r\n")
    fields = line.split(":")
    if len(fields) != 6 or fields[0] != STATE_PREFIX[:-1]:
        raise LogError(f"not a STATE line with six ':'-separated fields: {line[:80]!r}")
    _, hand_text, betting, cards, values, names = fields
    hand_id = _uint(hand_text, "hand number")
    try:
        state = replay_betting(betting, game, State(game, hand_id))
        hole, board = parse_cards_field(cards, game, state.round, f"hand {hand_id}")
        state.deal(hole, board)
    except ProtocolError as exc:
        raise LogError(str(exc)) from None
    except DealError as exc:
        raise LogError(f"hand {hand_id}: {exc}") from None
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
    if len(fields) != 3 or fields[0] != SCORE_PREFIX[:-1]:
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


#: the header line that starts a match (a file may hold several matches, concatenated)
MATCH_HEADER = "# name/game/hands/seed "
