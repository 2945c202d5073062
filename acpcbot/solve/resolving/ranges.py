"""Both players' ranges from a policy along the real history: the product of each one's action probabilities.

A player's weight on a holding is the probability that its policy, holding
it, takes every action the player actually took (its reach), zero where the
board blocks the holding.  The policy is any function from an engine state
(its board through the state's round) to (holdings, 3) fold/call/raise rows
for the player to act, e.g. ``Blueprint.probabilities_all``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...engine import State
from ...holdings import blocked, num_holdings

PolicyRows = Callable[[State], np.ndarray]


def policy_ranges(state: State, rows: PolicyRows, before: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each player's reach over ``holdings(game)`` through the hand's first ``before`` actions (all by default)."""
    game = state.game
    if game.num_players != 2:
        raise ValueError(f"ranges along a history are for two players, {game.name or 'this game'} has "
                         f"{game.num_players}")
    out = [np.ones(num_holdings(game)), np.ones(num_holdings(game))]
    for step in state.steps():
        if before is not None and step.index >= before:
            break
        out[step.player] *= rows(step.before)[:, int(step.action.type)]
    gone = blocked(game, state.board)
    for r in out:
        r[gone] = 0.0
    return out[0], out[1]
