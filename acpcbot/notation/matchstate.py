"""MATCHSTATE lines: ``MATCHSTATE:<position>:<hand>:<betting>:<cards>``, read into engine states and written.

``parse_match_state`` replays the betting string through the engine, so a
parsed state knows whose turn it is, the pot and the legal actions.  Any
malformed or impossible line raises :class:`ProtocolError` saying what and
where.  A client's reply is the line it answers, ``:`` and an action; the
information-set key of a decision is the line without ``MATCHSTATE:`` and
the hand number (:func:`info_key`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..engine import Action, DealError, State
from ..gamedef import UINT32_MAX, GameDef, bounded_int, clip
from .actions import format_action
from .betting import format_betting, replay_betting
from .cardsfield import format_cards, parse_cards_field
from .errors import ProtocolError

VERSION_LINE = "VERSION:2.0.0\r\n"
MATCHSTATE = "MATCHSTATE"
_LINE_END = "\r\n"
_VERSION = re.compile(r"VERSION:(\d+)\.(\d+)\.(\d+)")


@dataclass
class MatchState:
    """One seat's view of a hand: its position, the hand number and the engine state."""

    position: int
    hand_id: int
    state: State
    #: the betting text the state was replayed from (None: not parsed from text)
    betting: str | None = field(default=None, repr=False, compare=False)

    @property
    def is_my_turn(self) -> bool:
        """Whether this position is the one to act."""
        return self.state.current_player == self.position


# ------------------------------------------------------------------ writing

def state_head(position: int, hand_id: int) -> str:
    """``MATCHSTATE:<position>:<hand>:``, the start of every line of a hand one position gets."""
    return f"{MATCHSTATE}:{position}:{hand_id}:"


def state_line(head: str, betting: str, cards: str) -> str:
    """A MATCHSTATE line (without line end) from its head (:func:`state_head`), betting and cards fields."""
    return f"{head}{betting}:{cards}"


def format_match_state(state: State, viewer: int) -> str:
    """The MATCHSTATE line (without line end) the dealer sends to position ``viewer``."""
    return f"{MATCHSTATE}:{viewer}:{state.hand_id}:{format_betting(state)}:{format_cards(state, viewer)}"


def format_reply(state_text: str, action: Action, game: GameDef) -> str:
    """The client's reply line: the exact state text received, ``:``, the action and CRLF."""
    return f"{state_text.rstrip(_LINE_END)}:{format_action(action, game)}\r\n"


# ------------------------------------------------------------------ reading

def read_version(text: str) -> tuple[int, int, int] | None:
    """The major, minor and revision numbers a ``VERSION:<a>.<b>.<c>`` line starts with; None when it does not."""
    m = _VERSION.match(text)
    return None if m is None else (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def is_state_line(line: str) -> bool:
    """Whether ``line`` starts as a MATCHSTATE line does (the fields are not checked)."""
    return line.startswith(f"{MATCHSTATE}:")


def _split_match_state(line: str) -> tuple[str, str, str, str, str, str]:
    """Split ``MATCHSTATE:pos:hand:betting:cards[:rest]`` into its fields (rest may be '')."""
    fields = line.split(":", 5)
    if len(fields) < 5 or fields[0] != MATCHSTATE:
        raise ProtocolError(f"not a MATCHSTATE line: {clip(line)}")
    return fields[0], fields[1], fields[2], fields[3], fields[4], fields[5] if len(fields) > 5 else ""


def betting_field(line: str) -> str:
    """The betting field of a well-formed MATCHSTATE line."""
    return line.split(":", 4)[3]


def cards_field(line: str) -> str:
    """The cards field of a well-formed MATCHSTATE line."""
    return line.split(":", 4)[4]


def _uint(text: str, what: str, line: str, limit: int) -> int:
    """An unsigned decimal field of at most ``limit``; ProtocolError naming it otherwise (never a crash on length)."""
    value = bounded_int(text, 0, limit + 1) if text[:1].isdigit() else None
    if value is None:
        raise ProtocolError(f"{what} {clip(text, 40)} is not an unsigned integer in {clip(line)}")
    if value > limit:
        shown = text if len(text) <= 20 else clip(text, 20)
        raise ProtocolError(f"{what} {shown} out of range 0..{limit} in {clip(line)}")
    return value


def parse_match_state(line: str, game: GameDef, previous: MatchState | None = None) -> MatchState:
    """Parse ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (no trailing action).

    ``previous``, the state parsed from the line before in the same hand,
    lets a line that extends it replay only the new actions (each line
    usually adds one); the result is the same as a parse from scratch.
    """
    line = line.rstrip("\r\n")
    _, pos_text, hand_text, betting, cards, rest = _split_match_state(line)
    if rest or line.count(":") > 4:
        raise ProtocolError(f"unexpected text after the cards in {clip(line)}")
    return _build(pos_text, hand_text, betting, cards, game, line, previous)


def parse_reply(line: str, game: GameDef) -> tuple[MatchState, str]:
    """Split a client reply ``<matchstate>:<action>`` into the parsed state and the action text."""
    line = line.rstrip("\r\n")
    _, pos_text, hand_text, betting, cards, rest = _split_match_state(line)
    if line.count(":") < 5:
        raise ProtocolError(f"no ':<action>' after the state in {clip(line)}")
    return _build(pos_text, hand_text, betting, cards, game, line), rest


def _build(pos_text: str, hand_text: str, betting: str, cards: str, game: GameDef, line: str,
           previous: MatchState | None = None) -> MatchState:
    position = _uint(pos_text, "position", line, game.num_players - 1)
    hand_id = _uint(hand_text, "hand number", line, UINT32_MAX)  # the reference's handId is 32 bits
    state = _extend(previous, position, hand_id, betting, game)
    if state is None:
        state = replay_betting(betting, game, State(game, hand_id))
    hole, board = _cards_of(cards, game, state.round, hand_id)
    try:
        state.observe(hole, board)  # the line's cards, checked by the engine, replace those of an earlier line
    except DealError as exc:
        parse_cards_field(cards, game, state.round, f"hand {hand_id}")  # the ProtocolError naming what is wrong
        raise ProtocolError(f"hand {hand_id}: {exc}") from None
    if not hole[position]:
        raise ProtocolError(f"hand {hand_id}: position {position} is not shown its own hole cards")
    return MatchState(position, hand_id, state, betting)


def _extend(previous: MatchState | None, position: int, hand_id: int, betting: str, game: GameDef) -> State | None:
    """The previous line's state with only the actions this line adds, or None to replay from scratch."""
    if previous is None or previous.betting is None or previous.position != position \
            or previous.hand_id != hand_id or previous.state.game != game:
        return None
    before = previous.betting
    if not betting.startswith(before):
        return None
    added = betting[len(before):]
    if added[:1].isdigit():
        return None  # the earlier line ended inside what is now a longer raise size
    state = previous.state.copy()
    try:
        return replay_betting(added, game, state, before.count("/"))
    except ProtocolError:
        return None  # replay from scratch for an error message about the whole line


@lru_cache(maxsize=4096)
def _cards_of(cards: str, game: GameDef, round_: int, hand_id: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    # Cached: within a hand most lines repeat the card text of the line before.  Unchecked: State.observe checks
    # the cards (a line refused there is read again, checked, for its error message).
    hole, board = parse_cards_field(cards, game, round_, f"hand {hand_id}", check=False)
    return tuple(hole), tuple(board)


# ------------------------------------------------------------------ information-set keys

def key_of_line(line: str) -> str:
    """The information-set key of a MATCHSTATE line: ``<position>:<betting>:<cards>`` (no prefix, no hand number)."""
    fields = line.rstrip("\r\n").split(":", 3)
    if len(fields) != 4 or fields[0] != MATCHSTATE:
        raise ProtocolError(f"not a MATCHSTATE line: {line[:80]!r}")
    return f"{fields[1]}:{fields[3]}"


def info_key(state: State, position: int) -> str:
    """The information-set key of ``state`` as ``position`` sees it: its own hole cards and the board only."""
    return key_of_line(format_match_state(state.view_of(position), position))


def line_of_key(key: str, hand_id: int = 0) -> str:
    """The MATCHSTATE line an information-set key stands for, with hand number ``hand_id``."""
    position, sep, rest = key.partition(":")
    if not sep:
        raise ProtocolError(f"policy key {key!r} is not '<position>:<betting>:<cards>'")
    return f"{MATCHSTATE}:{position}:{hand_id}:{rest}"
