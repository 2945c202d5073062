"""The betting field: rounds of action text split by ``/``, replayed through the engine and written back."""

from __future__ import annotations

import re

from ..engine import CALL, FOLD, RAISE, Action, ActionType, IllegalAction, State
from ..gamedef import INT32_MAX, GameDef, bounded_int, clip
from .actions import format_action
from .errors import ProtocolError

_F, _R = ActionType.FOLD, ActionType.RAISE
_NL_TOKEN = re.compile(r"([fc])|r([0-9]+)")


def _actions_of_round(text: str, game: GameDef) -> list[Action]:
    if game.is_limit:
        out = []
        for ch in text:
            if ch == "f":
                out.append(FOLD)
            elif ch == "c":
                out.append(CALL)
            elif ch == "r":
                out.append(RAISE)
            else:
                raise ProtocolError(f"invalid character {ch!r} in limit betting {clip(text)}")
        return out
    out = []
    pos = 0
    for m in _NL_TOKEN.finditer(text):
        if m.start() != pos:
            break
        pos = m.end()
        if m.group(1) == "f":
            out.append(FOLD)
        elif m.group(1) == "c":
            out.append(CALL)
        else:
            size = bounded_int(m.group(2), 0, INT32_MAX + 1)
            if size is None or size > INT32_MAX:
                # no stack is larger: the reference keeps sizes in 32 bits
                raise ProtocolError(f"raise size {clip(m.group(2), 20)} in no-limit betting is above {INT32_MAX}")
            out.append(Action(ActionType.RAISE, size))
    if pos != len(text):
        raise ProtocolError(f"invalid no-limit betting {clip(text)} at character {pos + 1}")
    return out


def replay_betting(betting: str, game: GameDef, state: State, first_round: int = 0) -> State:
    """Apply a betting string (rounds split by ``/``) to a state; errors name the action.

    ``first_round`` is the round the text starts in: 0 for a whole betting
    string on a fresh state, else the round of ``state`` when ``betting`` is
    what a later line adds to an earlier one.
    """
    rounds = betting.split("/")
    if first_round + len(rounds) > game.num_rounds:
        raise ProtocolError(f"betting {clip(betting)} has {first_round + len(rounds)} rounds; "
                            f"the game has {game.num_rounds}")
    for r, text in enumerate(rounds, start=first_round):
        for i, action in enumerate(_actions_of_round(text, game)):
            if state.finished or state.round != r:
                raise ProtocolError(f"betting {clip(betting)}: action {i + 1} of round {r + 1} comes after "
                                    f"{'the hand ended' if state.finished else 'the round ended'}")
            try:
                state.apply(action)
            except IllegalAction as exc:
                raise ProtocolError(f"betting {clip(betting)}: action {i + 1} of round {r + 1} "
                                    f"({format_action(action, game)}) is illegal: {exc}") from None
    last = first_round + len(rounds) - 1
    if state.round != last:
        if state.round > last:
            raise ProtocolError(f"betting {clip(betting)}: round {last + 1} is over but no '/' follows it")
        raise ProtocolError(f"betting {clip(betting)}: '/' before round {state.round + 1} is over")
    return state


def format_betting(state: State) -> str:
    """The betting string of a state, as the reference prints it."""
    nolimit = state.game.is_nolimit
    parts = []
    for r in range(state.round + 1):
        acts = state.actions[r] if r < len(state.actions) else ()
        # inline (not action_text): the log line of every hand a match plays is built from it
        parts.append("".join(
            ("r%d" % a[1] if nolimit else "r") if a[0] == _R else ("f" if a[0] == _F else "c") for a in acts))
    return "/".join(parts)


def rounds_ended(rounds: int) -> str:
    """What the betting adds after an action that ends ``rounds`` rounds (0: nothing)."""
    return "/" * rounds
