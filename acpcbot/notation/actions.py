"""Action text: the letters ``f``, ``c``, ``r`` (``r<size>`` in no-limit games) read and written.

Every place that turns an action into text or text into an action calls
this module: the strict reader with the reference's aliases
(:func:`read_action`), the writer (:func:`format_action`, and
:func:`action_text` for a loop that knows whether the game is no-limit),
and the quick readers of the usual one-action texts (:func:`one_action`
for betting text, :func:`plain_action` for a reply's bytes).
"""

from __future__ import annotations

import re

from ..engine import CALL, FOLD, RAISE, Action, ActionType
from ..gamedef import GameDef, bounded_int, clip
from .errors import ProtocolError

_ACTION_CHARS = {"f": ActionType.FOLD, "F": ActionType.FOLD,
                 "c": ActionType.CALL, "C": ActionType.CALL, "k": ActionType.CALL, "K": ActionType.CALL,
                 "r": ActionType.RAISE, "R": ActionType.RAISE, "b": ActionType.RAISE, "B": ActionType.RAISE}
_FIXED = {ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: RAISE}
#: the letters the reference reads as an action (any other character is its invalid action)
ACTION_LETTERS = frozenset(_ACTION_CHARS)
#: the letters that start a raise, in any case or alias
RAISE_LETTERS = "rRbB"
_SIZE = re.compile(r"[+-]?[0-9]+")
#: what a size beyond 64 bits reads as: the C library saturates there
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
_R, _C = ActionType.RAISE, ActionType.CALL


def read_action(text: str, game: GameDef) -> tuple[Action, int]:
    """Read one action at the start of ``text`` with the reference's aliases; return it and its length.

    ``k``/``K`` mean call, ``b``/``B`` raise, upper case is accepted.  A
    no-limit raise must carry a size; anything after the action is left to
    the caller.  A size beyond 64 bits reads as the nearest 64-bit value,
    as C's ``strtol`` saturates (no such raise is ever legal).
    """
    if not text:
        raise ProtocolError("missing action")
    kind = _ACTION_CHARS.get(text[0])
    if kind is None:
        raise ProtocolError(f"unknown action character {text[0]!r} in {clip(text, 40)}")
    if kind == ActionType.RAISE and game.is_nolimit:
        m = _SIZE.match(text, 1)
        if not m:
            raise ProtocolError(f"no-limit raise without a size in {clip(text, 40)}")
        size = bounded_int(m.group(), INT64_MIN, INT64_MAX)
        assert size is not None  # the pattern matched a whole number
        return Action(ActionType.RAISE, size), m.end()
    return _FIXED[kind], 1


def parse_action(text: str, game: GameDef) -> Action:
    """Parse a whole action string (``f``, ``c``, ``r``, ``r500``...); nothing may follow it."""
    action, used = read_action(text, game)
    if used != len(text):
        raise ProtocolError(f"unexpected text {clip(text[used:], 40)} after action {clip(text[:used], 40)}")
    return action


def action_text(action: Action, nolimit: bool) -> str:
    """Protocol text of an action: ``f``, ``c``, ``r`` or, when ``nolimit``, ``r<size>``."""
    kind = action[0]
    if kind == _R:
        return "r%d" % action[1] if nolimit else "r"
    return "c" if kind == _C else "f"


def format_action(action: Action, game: GameDef) -> str:
    """Protocol text of an action in ``game``: ``f``, ``c``, ``r`` or ``r<size>`` in no-limit games."""
    return action_text(action, game.is_nolimit)


def one_action(added: str, nolimit: bool) -> Action | None:
    """The action of betting text holding exactly one action (then only '/'s), else None."""
    body = added.rstrip("/")
    if body == "c":
        return CALL
    if body == "f":
        return FOLD
    if body[:1] != "r":
        return None
    if not nolimit:
        return RAISE if body == "r" else None
    digits = body[1:]
    # a size as the betting writes it: digits only, at most nine (so below 2**31)
    if 0 < len(digits) <= 9 and digits.isdigit() and digits.isascii():
        return Action(_R, int(digits))
    return None


def plain_action(rest: bytes, nolimit: bool) -> Action | None:
    """The action of a reply's tail when it is exactly ``c``, ``f``, ``r`` or ``r<digits>`` and CRLF, else None.

    These are read as the dealer's full reading of a reply reads them (a
    size of at most nine digits fits any C integer unchanged); the caller
    still lets ``State.fix`` judge the action, and hands anything else to
    the full reading.
    """
    if rest[-2:] != b"\r\n":
        return None
    body = rest[:-2]
    if body == b"c":
        return CALL
    if body == b"f":
        return FOLD
    if body[:1] != b"r":
        return None
    if not nolimit:
        return RAISE if len(body) == 1 else None
    digits = body[1:]
    if 0 < len(digits) <= 9 and digits.isdigit():
        return Action(_R, int(digits))
    return None
