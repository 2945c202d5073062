"""A reply's state and action read as the reference dealer reads them: C's ``sscanf`` leniency included.

* numbers are read as C's ``sscanf`` reads them: a position wraps into a
  byte, a hand number into 32 bits, a raise size saturates at 64 bits and
  wraps into 32, whatever the length of the digits;
* ``/`` in the betting is skipped, a player's hole cards may be missing,
  and anything may follow the cards.

What the dealer makes of what is read (warnings, a call instead) is
``dealer.replies``'s.
"""

from __future__ import annotations

import re

from ..cards import card_to_text
from ..engine import Action, ActionType, State
from ..gamedef import GameDef, bounded_int
from .actions import RAISE_LETTERS, read_action
from .errors import ProtocolError
from .matchstate import MATCHSTATE

_C_SPACE = " \t\n\v\f\r"
_CARD = {card_to_text(c): c for c in range(52)}
# sscanf's %u skips white space and takes a sign before the digits
_STATE_HEAD = re.compile(MATCHSTATE + r":[ \t\n\v\f\r]*([+-]?[0-9]+):[ \t\n\v\f\r]*([+-]?[0-9]+):")


def c_int32(value: int) -> int:
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
    return value & ((1 << bits) - 1)  # the store keeps the low bits (value is not negative)


def read_reply_action(text: str, game: GameDef) -> tuple[Action, int] | None:
    """The reference's ``readAction``: :func:`read_action` plus ``sscanf``'s leniency for a raise size.

    Returns the action and the characters used, or None when no action can be read.
    """
    if not text:
        return None
    skip = 0
    if game.is_nolimit and text[0] in RAISE_LETTERS and len(text) > 1 and text[1] in _C_SPACE:
        rest = text[1:].lstrip(_C_SPACE)  # %d skips white space before the number
        skip = len(text) - 1 - len(rest)
        text = text[0] + rest
    try:
        action, used = read_action(text, game)
    except (ProtocolError, ValueError):
        return None
    if action[0] == ActionType.RAISE and game.is_nolimit:
        action = Action(ActionType.RAISE, c_int32(action[1]))
    return action, used + skip


def read_state_prefix(text: str, state: State, position: int) -> int | None:
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
