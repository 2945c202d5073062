"""LBR's exact value in games small enough for the public tree (Kuhn, Leduc): no sampling, beside the exact best response.

Both LBR and its target are written as (decision, action, hand) strategy
arrays over ``acpcbot.solve.tree.PublicTree``: the target's rows from its
``policy`` at every information set of its seat, LBR's from the action
``LBRStrategy`` takes there (it is deterministic).  The tree then gives
LBR's expected winnings exactly, and the exact best response to the same
target; LBR can never beat the best response, and the gap says how much
LBR's greedy, check/call-to-showdown assumption leaves on the table.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from ..engine import ActionType
from ..gamedef import GameDef
from ..holdings import holdings
from ..protocol import parse_match_state
from ..world import View
from .policy import match_state_of_key, tree_infosets
from .tree import ACTION_TYPES, PublicTree, build_tree


@dataclass(frozen=True)
class ExactLBR:
    """LBR's and the best response's exact value against a target, chips per hand, per position and averaged."""

    lbr: tuple[float, ...]
    best_response: tuple[float, ...]
    big_blind: int

    @property
    def lbr_mbb(self) -> float:
        """LBR's value in mbb/hand averaged over the two positions (what a duplicate match estimates)."""
        return 1000.0 * float(np.mean(self.lbr)) / self.big_blind

    @property
    def best_response_mbb(self) -> float:
        """The best response's value in mbb/hand averaged over the two positions."""
        return 1000.0 * float(np.mean(self.best_response)) / self.big_blind


def _view(game: GameDef, key: str, hand_id: int) -> View:
    line = match_state_of_key(key, hand_id)
    return View(line, parse_match_state(line, game))


def _column(action_type: ActionType) -> int:
    return ACTION_TYPES.index(action_type)


def target_sigma(tree: PublicTree, target: object, position: int) -> np.ndarray:
    """The target's strategy array for the decisions of ``position`` (the other rows uniform)."""
    sigma = tree.uniform()
    game = tree.game
    table = [tuple(int(c) for c in h) for h in holdings(game)]
    for n, (d, i, key) in enumerate(tree_infosets(tree)):
        if int(tree.dec_player[d]) != position:
            continue
        view = _view(game, key, n)
        policy = target.policy(view)  # type: ignore[attr-defined]
        row = policy.probs[table.index(tuple(sorted(tree.hands[i])))]
        sigma[d, :, i] = 0.0
        for action, p in zip(policy.actions, row):
            sigma[d, _column(action[0]), i] += p
    return sigma


def exact_lbr(game: GameDef, make_target: object, make_lbr: object) -> ExactLBR:
    """Exact values of LBR and of the best response against a target, heads-up, for each LBR position.

    ``make_target()`` returns a fresh target strategy (with a policy);
    ``make_lbr(target)`` a fresh ``LBRStrategy`` reading that target.
    """
    from .best_response import best_response_value

    # the tree holds histories the target never plays; LBR's note that its range ran empty there is noise
    quiet = logging.getLogger("acpcbot.strategies.lbr")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        return _exact_lbr(game, make_target, make_lbr, best_response_value)
    finally:
        quiet.setLevel(level)


def _exact_lbr(game: GameDef, make_target: object, make_lbr: object, best_response_value: object) -> ExactLBR:
    tree = build_tree(game)
    lbr_values, br_values = [], []
    for me in range(2):
        target = make_target()  # type: ignore[operator]
        sigma = target_sigma(tree, target, 1 - me)
        br_values.append(best_response_value(tree, sigma, me))  # type: ignore[operator]
        lbr = make_lbr(target)  # type: ignore[operator]
        for n, (d, i, key) in enumerate(tree_infosets(tree)):
            if int(tree.dec_player[d]) != me:
                continue
            action = lbr.act(_view(game, key, 10**6 + n), math.inf)
            sigma[d, :, i] = 0.0
            sigma[d, _column(action[0]), i] = 1.0
        lbr_values.append(tree.value(sigma, me))
    return ExactLBR(tuple(lbr_values), tuple(br_values), game.big_blind)
