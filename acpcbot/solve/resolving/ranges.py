"""Both players' ranges from a policy along the real history: the product of each one's action probabilities.

A player's weight on a holding is the probability that its policy, holding
it, takes every action the player actually took (its reach), zero where the
board blocks the holding.  The policy is any function from an engine state
(its board through the state's round) to (holdings, 3) fold/call/raise rows
for the player to act, e.g. ``Blueprint.probabilities_all``.  In no-limit
games the rows are over the table's own actions at the state and
``read(before, action)`` says which columns a real action is read as, with
what probability (``columns.action_weights``: an off-tree size split
between the table's neighbouring sizes by the blueprint's translation).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...engine import Action, State
from ...holdings import blocked, num_holdings

PolicyRows = Callable[[State], np.ndarray]
#: read(state before the action, action) -> [(column of the rows, probability)]
ReadAction = Callable[[State, Action], list[tuple[int, float]]]


def policy_ranges(state: State, rows: PolicyRows, before: int | None = None,
                  read: ReadAction | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each player's reach over ``holdings(game)`` through the hand's first ``before`` actions (all by default).

    ``read`` None: the rows' columns are fold/call/raise (limit games).
    """
    game = state.game
    if game.num_players != 2:
        raise ValueError(f"ranges along a history are for two players, {game.name or 'this game'} has "
                         f"{game.num_players}")
    out = [np.ones(num_holdings(game)), np.ones(num_holdings(game))]
    for step in state.steps():
        if before is not None and step.index >= before:
            break
        if read is None:
            out[step.player] *= rows(step.before)[:, int(step.action.type)]
        else:
            table = rows(step.before)
            out[step.player] *= sum(table[:, col] * p for col, p in read(step.before, step.action))
    gone = blocked(game, state.board)
    for r in out:
        r[gone] = 0.0
    return out[0], out[1]
