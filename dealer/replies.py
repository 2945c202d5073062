"""How the dealer reads a player's reply, exactly as the reference does (state check, action, warnings).

* ``#`` and ``;`` lines are skipped by the match loop before they get here;
* a line whose state cannot be read: ``WARNING: bad state format in response``,
  one whose state is not the one asked about: ``WARNING: ignoring un-requested
  response``; both are dropped and the dealer keeps reading;
* a missing ``:`` before the action, or a no-limit raise whose size cannot be
  read, becomes a call (``WARNING: bad action format in response, changed to
  call``);
* any other character where the action should be (an unknown letter, an
  empty action) is the reference's invalid action: a call, with ``WARNING:
  invalid action, changed to call``, as is an action the engine refuses; a
  no-limit raise out of range is clamped (``State.fix`` gives the texts);
* numbers are read as C's ``sscanf`` reads them: a position wraps into a
  byte, a hand number into 32 bits, a raise size saturates at 64 bits and
  wraps into 32, whatever the length of the digits;
* with ``strict``, text after the action (other than the line end) is a
  problem too (``WARNING: text after the action in response``); the
  reference ignores it.
"""

from __future__ import annotations

import re

from acpcbot.cards import card_to_text
from acpcbot.engine import CALL, WARN_INVALID, Action, ActionType, State
from acpcbot.gamedef import GameDef, bounded_int
from acpcbot.protocol import ACTION_LETTERS, ProtocolError, read_action

WARN_BAD_STATE = "WARNING: bad state format in response"
WARN_UNREQUESTED = "WARNING: ignoring un-requested response"
WARN_BAD_ACTION = "WARNING: bad action format in response, changed to call"
#: not the reference's: only ``--strict`` looks at what follows the action
WARN_TRAILING = "WARNING: text after the action in response"

_C_SPACE = " \t\n\v\f\r"
_CARD = {card_to_text(c): c for c in range(52)}
# sscanf's %u skips white space and takes a sign before the digits
_STATE_HEAD = re.compile(r"MATCHSTATE:[ \t\n\v\f\r]*([+-]?[0-9]+):[ \t\n\v\f\r]*([+-]?[0-9]+):")
_LINE_ENDS = ("", "\n", "\r\n")
ACCEPTED, BAD_STATE, UNREQUESTED = 0, 1, 2


def _c_int32(value: int) -> int:
    """The int that C's ``sscanf("%d")`` stores for ``value`` (glibc: strtol saturates, then the cast wraps)."""
    value = max(-2**63, min(2**63 - 1, value))
    return (value + 2**31) % 2**32 - 2**31


def _c_unsigned(text: str, bits: int) -> int:
    """What ``sscanf("%u")`` into an unsigned field of ``bits`` stores for ``[+-]digits`` of any length.

    glibc's strtoul saturates at 2**64 - 1 (also for a negative number too
    large), negates a negative one modulo 2**64, and the store keeps the low bits.
    """
    magnitude = bounded_int(text.lstrip("+-"), 0, 2**64)
    assert magnitude is not None  # the caller's pattern matched digits
    if magnitude >= 2**64:
        value = 2**64 - 1
    else:
        value = -magnitude % 2**64 if text.startswith("-") else magnitude
    return value % 2**bits


def read_reply_action(text: str, game: GameDef) -> tuple[Action, int] | None:
    """The reference's ``readAction``: protocol.read_action plus ``sscanf``'s leniency for a raise size.

    Returns the action and the characters used, or None when no action can be read.
    """
    if not text:
        return None
    skip = 0
    if game.is_nolimit and text[0] in "rRbB" and len(text) > 1 and text[1] in _C_SPACE:
        rest = text[1:].lstrip(_C_SPACE)  # %d skips white space before the number
        skip = len(text) - 1 - len(rest)
        text = text[0] + rest
    try:
        action, used = read_action(text, game)
    except (ProtocolError, ValueError):
        return None
    if action[0] == ActionType.RAISE and game.is_nolimit:
        action = Action(ActionType.RAISE, _c_int32(action[1]))
    return action, used + skip


def _read_state_prefix(text: str, state: State, position: int) -> int | None:
    """Read a reply's state the reference's lenient way; compare it with ``state`` as seen by ``position``.

    Returns None when no state can be read, -1 when it is not the state
    asked about, else the index just after the state text.  As the
    reference does, ``/`` in the betting is skipped, a player's hole cards
    may be missing, and anything may follow the cards.
    """
    game = state.game
    m = _STATE_HEAD.match(text)
    if not m:
        return None
    pos = _c_unsigned(m.group(1), 8)
    if pos >= game.num_players:
        return None
    theirs = State(game, _c_unsigned(m.group(2), 32))
    i, end = m.end(), len(text)
    while i < end:
        ch = text[i]
        if ch == ":":
            break
        if ch == "/":
            i += 1
            continue
        got = read_reply_action(text[i:], game)
        if got is None or theirs.finished or not theirs.is_legal(got[0]):
            return None
        theirs.apply(got[0])
        i += got[1]
    if i >= end:
        return None
    i += 1
    own: tuple[int, ...] = ()
    for p in range(game.num_players):
        if p:
            if text[i:i + 1] != "|":
                break
            i += 1
        cards: list[int] = []
        while len(cards) < game.num_hole_cards:
            card = _CARD.get(text[i:i + 2])
            if card is None:
                break
            cards.append(card)
            i += 2
        if p == pos:
            own = tuple(cards)
    board = []
    for r in range(theirs.round + 1):
        if r:
            if text[i:i + 1] != "/":
                return None
            i += 1
        for _ in range(game.num_board_cards[r]):
            card = _CARD.get(text[i:i + 2])
            if card is None:
                return None
            board.append(card)
            i += 2
    if (pos != position or theirs.hand_id != state.hand_id or theirs.round != state.round
            or theirs.actions != state.actions or own != tuple(state.hole[position])
            or board != state.visible_board()):
        return -1
    return i


def interpret_reply(line: bytes, expected: bytes, state: State, position: int,
                    strict: bool = False) -> tuple[int, Action, tuple[str, ...]]:
    """Judge one non-comment reply line as the reference does.

    ``expected`` is the state line sent to ``position`` followed by ``:``.
    Returns (ACCEPTED, action to play, warnings) or (BAD_STATE | UNREQUESTED, CALL, (warning,)).
    With ``strict`` a reply with text after its action also gets a warning
    (WARN_TRAILING) the reference would not print.
    """
    game = state.game
    if line.startswith(expected):
        rest = line[len(expected):].decode("latin-1")
    else:
        text = line.decode("latin-1")  # one character per byte: any bytes can be judged
        end = _read_state_prefix(text, state, position)
        if end is None:
            return BAD_STATE, CALL, (WARN_BAD_STATE,)
        if end < 0:
            return UNREQUESTED, CALL, (WARN_UNREQUESTED,)
        if text[end:end + 1] != ":":
            return ACCEPTED, CALL, (WARN_BAD_ACTION,)
        rest = text[end + 1:]
    if rest[:1] not in ACTION_LETTERS:
        # the reference reads any other character (a line end, a NUL, 'x') as its invalid action
        return ACCEPTED, CALL, (WARN_INVALID,)
    got = read_reply_action(rest, game)
    if got is None:
        return ACCEPTED, CALL, (WARN_BAD_ACTION,)
    action, warnings = state.fix(got[0])
    if strict and rest[got[1]:] not in _LINE_ENDS:
        warnings += (WARN_TRAILING,)
    return ACCEPTED, action, warnings


_FOLD = Action(ActionType.FOLD)
_LIMIT_RAISE = Action(ActionType.RAISE)


def plain_action(rest: bytes, nolimit: bool) -> Action | None:
    """The action of a reply's tail when it is exactly ``c``, ``f``, ``r`` or ``r<digits>`` and CRLF, else None.

    These are read here as :func:`interpret_reply` reads them (a size of
    at most nine digits fits any C integer unchanged); the caller still
    lets ``State.fix`` judge the action, and hands anything else, or any
    reply with a warning, to :func:`interpret_reply`.
    """
    if rest[-2:] != b"\r\n":
        return None
    body = rest[:-2]
    if body == b"c":
        return CALL
    if body == b"f":
        return _FOLD
    if body[:1] != b"r":
        return None
    if not nolimit:
        return _LIMIT_RAISE if len(body) == 1 else None
    digits = body[1:]
    if 0 < len(digits) <= 9 and digits.isdigit():
        return Action(ActionType.RAISE, int(digits))
    return None
