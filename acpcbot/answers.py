"""What a client sends when its strategy's own answer will not do: the fallback, and the correction of an illegal one.

The fallback (a missed deadline, a failed ``act``) is the strategy's quick
answer when it is legal, else check when free, else fold; an illegal action
is corrected as the reference dealer would correct it (``State.fix``), and
something that is no action at all gets the fallback.
"""

from __future__ import annotations

import logging
from typing import Any

from .engine import CALL, Action, ActionType
from .world import View


def fallback_action(view: View, quick: Any = None) -> Action:
    """The answer when ``act`` gives none: the strategy's ``quick`` answer when legal, else check when free, else fold."""
    if quick.__class__ is Action and view.state.is_legal(quick):
        return quick
    return view.state.fold_or_check()


def show_action(action: Action, view: View) -> str:
    """``action`` in words for a log line: fold, check, call, raise (to its size in no-limit)."""
    kind = action[0]
    if kind == ActionType.RAISE:
        return f"raise to {action[1]}" if view.game.is_nolimit else "raise"
    return "fold" if kind == ActionType.FOLD else ("call" if view.to_call else "check")


def corrected(view: View, action: Any, spec: str) -> tuple[Action, tuple[int, str] | None]:
    """The legal action to send for the strategy's ``action`` in ``view``, and the (log level, message) saying why
    it was changed (None when it was legal)."""
    state = view.state
    if action.__class__ is Action and state.is_legal(action):
        return action, None
    try:
        wanted = Action(ActionType(action[0]), int(action[1]) if len(action) > 1 else 0)
    except (TypeError, ValueError, IndexError):
        chosen = fallback_action(view)
        return chosen, (logging.ERROR, f"hand {view.hand_id}: strategy {spec} returned {action!r}, not an action; "
                                       f"sending {show_action(chosen, view)}")
    if state.is_legal(wanted):
        return wanted, None
    fixed, warnings = state.fix(wanted)
    if not state.is_legal(fixed):
        fixed = CALL  # calling is always legal for the player to act
    why = "; ".join(w.removeprefix("WARNING: ") for w in warnings) or "corrected"
    return fixed, (logging.WARNING, f"hand {view.hand_id}: strategy {spec} chose {show_action(wanted, view)}, which "
                                    f"is not legal in {view.text!r} ({why}); sending {show_action(fixed, view)}")
