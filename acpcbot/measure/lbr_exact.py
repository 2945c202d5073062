"""LBR's exact value in games small enough for the public tree (Kuhn, Leduc): no sampling, beside the exact best response.

Both LBR and its target are written as (decision, action, hand) strategy
arrays over ``acpcbot.solve.tree.PublicTree``: the target's rows from its
``policy`` at every information set of its seat, LBR's from the action
``LBRStrategy`` takes there (it is deterministic).  The tree then gives
LBR's expected winnings exactly, and the exact best response to the same
target; LBR can never beat the best response, and the gap says how much
LBR's greedy, check/call-to-showdown assumption leaves on the table.

The public tree is for limit games.  :func:`exact_lbr_nolimit` does the same
in small no-limit games (a no-limit Leduc with a few chips in the stacks)
by recursion over the engine's states, every legal raise size its own
branch: the best response there chooses among all of them, LBR among the
few its action setting allows.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, State, raise_to
from ..gamedef import GameDef
from ..holdings import blocked, holdings
from ..protocol import format_match_state, parse_match_state
from ..solve.policy import match_state_of_key, tree_infosets
from ..solve.tree import ACTION_TYPES, PublicTree, build_tree
from ..world import View


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
    from ..solve.best_response import best_response_value

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


# ------------------------------------------------------------------ small no-limit games, by recursion

def _state_view(state: State, position: int, hole: tuple[int, ...], hand_id: int) -> View:
    """``position``'s view of ``state`` holding ``hole``."""
    s = state.view_of(position, holding=hole)
    s.hand_id = hand_id
    line = format_match_state(s, position)
    return View(line, parse_match_state(line, state.game))


class _Walk:
    """One position's exact values against a target's policy: its best response's, or a given player's."""

    def __init__(self, game: GameDef, target: object, me: int, player: object | None) -> None:
        self.game, self.target, self.me, self.player = game, target, me, player
        self.hands = [tuple(int(c) for c in h) for h in holdings(game)]
        self.deck = sorted({c for h in self.hands for c in h})
        self.ids = iter(range(10**6, 10**9))

    def total(self) -> float:
        """The position's expected chips per hand over every deal."""
        game, hands = self.game, self.hands
        out = 0.0
        root = State(game, 0, [()] * 2, [])
        for mine in hands:
            w = (~blocked(game, mine)).astype(np.float64)
            w /= len(hands) * float(w.sum())
            out += self._node(root, mine, w)
        return out

    def _stand_in(self, state: State, mine: tuple[int, ...]) -> tuple[int, ...]:
        free = ~blocked(self.game, list(mine) + list(state.board))
        return self.hands[int(np.flatnonzero(free)[0])]

    def _node(self, state: State, mine: tuple[int, ...], w: np.ndarray) -> float:
        if not w.any():
            return 0.0
        game, me = self.game, self.me
        need = game.total_board_cards if state.finished and state.is_showdown else \
            game.board_cards_through(state.round)
        if len(state.board) < need:
            return self._chance(state, mine, w)
        if state.finished:
            return self._terminal(state, mine, w)
        if state.current_player == me:
            if self.player is not None:
                action = self.player.act(_state_view(state, me, mine, next(self.ids)), math.inf)  # type: ignore[attr-defined]
                return self._node(state.copy().apply(action), mine, w)
            return max(self._node(state.copy().apply(a), mine, w) for a in _all_actions(state))
        view = _state_view(state, 1 - me, self._stand_in(state, mine), next(self.ids))
        policy = self.target.policy(view)  # type: ignore[attr-defined]
        out = 0.0
        for col, action in enumerate(policy.actions):
            p = np.asarray(policy.probs[:, col], dtype=np.float64)
            if (w * p).any():
                out += self._node(state.copy().apply(action), mine, w * p)
        return out

    def _chance(self, state: State, mine: tuple[int, ...], w: np.ndarray) -> float:
        game = self.game
        dead = set(mine) | set(state.board)
        left = len(self.deck) - len(dead) - game.num_hole_cards  # the same for every holding the opponent can hold
        out = 0.0
        for card in self.deck:
            if card in dead:
                continue
            out += self._node(state.copy().deal_board((card,)), mine, w * ~blocked(game, [card]) / left)
        return out

    def _terminal(self, state: State, mine: tuple[int, ...], w: np.ndarray) -> float:
        me = self.me
        if not state.is_showdown:
            return float(w.sum()) * state.payoffs()[me]
        out = 0.0
        hole: list[tuple[int, ...]] = [(), ()]
        hole[me] = mine
        for j in np.flatnonzero(w):
            hole[1 - me] = self.hands[int(j)]
            out += float(w[j]) * state.payoffs_for(hole)[me]
        return out


def _all_actions(state: State) -> list[Action]:
    """Every legal action of ``state``: fold when facing a bet, check/call, every raise size."""
    out = [FOLD] if ActionType.FOLD in state.legal_actions() else []
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is not None and state.game.is_limit:
        out.append(RAISE)
    elif bounds is not None:
        out.extend(raise_to(size) for size in range(bounds[0], bounds[1] + 1))
    return out


def best_response_nolimit(game: GameDef, make_target: object) -> tuple[float, ...]:
    """The exact best response's value (chips per hand) against the target, per position, every raise size weighed."""
    return tuple(_Walk(game, make_target(), me, None).total() for me in range(2))  # type: ignore[operator]


def exact_lbr_nolimit(game: GameDef, make_target: object, make_lbr: object,
                      best_response: tuple[float, ...] | None = None) -> ExactLBR:
    """Exact values of LBR and of the best response (over every raise size) against a target, heads-up.

    For small no-limit games (the tree has a branch per raise size);
    ``make_target()`` and ``make_lbr(target)`` as in :func:`exact_lbr`;
    ``best_response``: :func:`best_response_nolimit`'s values when known (they do not depend on LBR).
    """
    quiet = logging.getLogger("acpcbot.strategies.lbr")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        if best_response is None:
            best_response = best_response_nolimit(game, make_target)
        lbr_values = []
        for me in range(2):
            target = make_target()  # type: ignore[operator]
            lbr_values.append(_Walk(game, target, me, make_lbr(target)).total())  # type: ignore[operator]
    finally:
        quiet.setLevel(level)
    return ExactLBR(tuple(lbr_values), tuple(best_response), game.big_blind)
