"""No-limit rows between action lists: a subgame's actions onto a table's, and a real bet onto the table's sizes.

A blueprint table answers rows over its own actions at a state (fold,
call, its abstraction's raise sizes, all-in); a re-solved subgame node has
its own list (the same ladder, plus the opponent's real sizes).  Rows move
from one list to the other action by action (``to_columns``): the same
action where both have it, fold onto check where nothing is to call, a
raise onto the raise nearest it in chips.  The opponent's real bet of a
size the table lacks is read, for its range only, by the blueprint's
pseudo-harmonic translation between the table's neighbouring sizes
(``action_weights``); all-in is all-in.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...engine import Action, ActionType, State
from ..hunl.actions import pot_fraction
from ..hunl.translation import read_size


def same_action(a: Action, b: Action) -> bool:
    """Whether two engine actions are the same move (raises: the same raise-to)."""
    return int(a[0]) == int(b[0]) and (int(a[0]) != ActionType.RAISE or int(a[1]) == int(b[1]))


def find(actions: Sequence[Action], action: Action) -> int:
    """The index of ``action`` in ``actions`` (-1 when absent)."""
    for i, a in enumerate(actions):
        if same_action(a, action):
            return i
    return -1


def _kind(actions: Sequence[Action], kind: ActionType) -> int:
    for i, a in enumerate(actions):
        if int(a[0]) == kind:
            return i
    return -1


def nearest(targets: Sequence[Action], action: Action) -> int:
    """The column of ``targets`` that ``action`` lands on (see the module docstring)."""
    i = find(targets, action)
    if i >= 0:
        return i
    kind = int(action[0])
    call = _kind(targets, ActionType.CALL)
    if kind == ActionType.FOLD:
        fold = _kind(targets, ActionType.FOLD)
        return fold if fold >= 0 else call
    raises = [j for j, a in enumerate(targets) if int(a[0]) == ActionType.RAISE]
    if kind == ActionType.CALL or not raises:
        return call if call >= 0 else 0
    return min(raises, key=lambda j: (abs(int(targets[j][1]) - int(action[1])), int(targets[j][1])))


def to_columns(sources: Sequence[Action], targets: Sequence[Action]) -> np.ndarray:
    """(len(sources), len(targets)) 0/1 matrix: rows over ``sources`` @ it = the same rows over ``targets``."""
    out = np.zeros((len(sources), len(targets)))
    for i, a in enumerate(sources):
        out[i, nearest(targets, a)] = 1.0
    return out


def action_weights(before: State, action: Action, columns: Sequence[Action]) -> list[tuple[int, float]]:
    """(column, probability) of reading the real ``action`` taken in ``before`` as the table's ``columns``."""
    i = find(columns, action)
    if i >= 0:
        return [(i, 1.0)]
    kind = int(action[0])
    raises = [j for j, a in enumerate(columns) if int(a[0]) == ActionType.RAISE]
    if kind != ActionType.RAISE or not raises:
        return [(nearest(columns, action), 1.0)]
    bounds = before.raise_bounds()
    hi = bounds[1] if bounds is not None else int(action[1])
    if int(action[1]) >= hi:
        return [(raises[-1], 1.0)]                                  # all-in is all-in
    sized = [j for j in raises if int(columns[j][1]) < hi]
    if not sized:
        return [(raises[-1], 1.0)]
    fractions = [pot_fraction(before, int(columns[j][1])) for j in sized]
    call = [j for j, a in enumerate(columns) if int(a[0]) == ActionType.CALL]
    # the table's own reading (a size below the smallest partly as the call)
    return read_size(pot_fraction(before, int(action[1])), fractions, sized, call[0] if call else None)


__all__ = ["action_weights", "find", "nearest", "same_action", "to_columns"]
