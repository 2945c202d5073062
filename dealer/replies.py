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
* numbers are read as C's ``sscanf`` reads them (``acpcbot.notation.lenient``
  reads the reply; this module judges it);
* with ``strict``, text after the action (other than the line end) is a
  problem too (``WARNING: text after the action in response``); the
  reference ignores it.
"""

from __future__ import annotations

from acpcbot.engine import CALL, WARN_INVALID, Action, State
from acpcbot.notation.actions import ACTION_LETTERS, plain_action
from acpcbot.notation.lenient import read_reply_action, read_state_prefix

__all__ = ["ACCEPTED", "BAD_STATE", "UNREQUESTED", "WARN_BAD_ACTION", "WARN_BAD_STATE", "WARN_TRAILING",
           "WARN_UNREQUESTED", "interpret_reply", "plain_action", "read_reply_action"]

WARN_BAD_STATE = "WARNING: bad state format in response"
WARN_UNREQUESTED = "WARNING: ignoring un-requested response"
WARN_BAD_ACTION = "WARNING: bad action format in response, changed to call"
#: not the reference's: only ``--strict`` looks at what follows the action
WARN_TRAILING = "WARNING: text after the action in response"

_LINE_ENDS = ("", "\n", "\r\n")
ACCEPTED, BAD_STATE, UNREQUESTED = 0, 1, 2


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
        end = read_state_prefix(text, state, position)
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
