"""Re-solving decisions of a two-player limit game from a blueprint's policy (issue 29's hold'em player).

From ``start_round`` on (the river by default, see docs/resolving-play.md
for why not the turn), the first decision of the hand there builds the
subgame rooted where that round's betting began, with both players'
ranges the blueprint's reach along the real history and the real board,
and re-solves it safely for the player to act (``gadget.resolve``).  Every
later decision of the hand reads the same solution at its node and board,
so the hand is played by one strategy.  In limit games every action of
the opponent is in the subgame's tree; no translation is needed.
Solutions are kept per (betting before the root, board, player), a few at
a time.  A solve the clock cuts short is not used: the caller plays the
blueprint (``rows`` returns None), and so does every later decision of
that subgame.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

from ...engine import State
from ...gamedef import GameDef
from ..subgame import SubgameResult
from ..subgame.tree import DECISION
from .clock import Budget
from .gadget import resolve
from .ranges import policy_ranges

#: solutions remembered (a hand needs one; the others serve policy() and replays)
KEEP = 4

BlueprintRows = Callable[[State], np.ndarray]


def round_start(state: State, round_: int) -> tuple[State, int]:
    """The state where round ``round_``'s betting began, and the number of the hand's actions before it."""
    steps = state.steps()
    for step in steps:
        if step.round >= round_:
            return step.before, step.index
    return state.copy(), len(steps)


class Resolver:
    """Re-solved (holdings, 3) fold/call/raise rows for the player to act, from ``start_round`` on."""

    def __init__(self, game: GameDef, blueprint: BlueprintRows, budget: Budget | None = None,
                 start_round: int | None = None) -> None:
        if game.num_players != 2 or not game.is_limit:
            raise ValueError("re-solving plays two-player limit games")
        self.game = game
        self.blueprint = blueprint
        self.budget = budget or Budget()
        self.start_round = game.num_rounds - 1 if start_round is None else start_round
        self.solutions: OrderedDict[tuple, SubgameResult | None] = OrderedDict()
        self.solves = 0
        self.cut_short = 0
        #: per finished solve, chips a hand of the subgame: how much less the opponent's best response wins
        #: than against the blueprint (weighted by its blueprint reach), and the part of holdings where it wins more
        self.margins: list[tuple[float, float]] = []

    def active(self, state: State) -> bool:
        """Whether decisions in ``state`` are re-solved."""
        return state.round >= self.start_round and not state.finished

    def rows(self, state: State, deadline: float | None = None, cap: bool = True) -> np.ndarray | None:
        """The re-solved rows in ``state``; None when not re-solving here or the clock cut the solve short.

        ``cap`` False solves without the time cap (``policy()``: the rows
        are the iteration count's, whatever the clock).
        """
        if not self.active(state):
            return None
        root, before = round_start(state, self.start_round)
        player = state.current_player
        need = self.game.board_cards_through(self.start_round)
        board = tuple(int(c) for c in state.board[:need])
        key = (tuple(tuple(tuple(a) for a in r) for r in root.actions), board, player)
        if key in self.solutions:
            self.solutions.move_to_end(key)
            result = self.solutions[key]
        else:
            result = self._solve(state, root, before, board, player, self.budget.limit(deadline) if cap else None)
            if result is None and not cap:
                return None
            self.solutions[key] = result
            while len(self.solutions) > KEEP:
                self.solutions.popitem(last=False)
        if result is None:
            return None
        return self._read(result, state, before)

    def _solve(self, state: State, root: State, before: int, board: tuple[int, ...], player: int,
               limit: float | None) -> SubgameResult | None:
        ranges = policy_ranges(state, self.blueprint, before=before)
        if ranges[player].sum() <= 0 or ranges[1 - player].sum() <= 0:
            return None  # a history the blueprint never plays: nothing to re-solve from
        iterations = self.budget.iterations
        result, alternative = resolve(self.game, root, board, ranges, player, self._node_rows,
                                      iterations=iterations, time_limit=limit)
        self.solves += 1
        if result.iterations < iterations:
            self.cut_short += 1
            return None
        prep = result.subgame.prep
        reach = ranges[1 - player][prep.hands[1 - player].rows]
        diff = alternative - result.evaluation.best_cfv[1 - player]
        self.margins.append((float(reach @ diff) / prep.normaliser,
                             float(reach @ np.maximum(-diff, 0)) / prep.normaliser))
        return result

    def _node_rows(self, _i: int, node, state: State, board: tuple[int, ...]) -> np.ndarray:
        s = state.copy()
        s.board = list(board)
        return self.blueprint(s)[:, [int(a.type) for a in node.actions]]

    def _read(self, result: SubgameResult, state: State, before: int) -> np.ndarray:
        sub = result.subgame
        nodes = sub.tree.nodes
        node = 0
        for step in state.steps(before):
            n = nodes[node]
            while n.kind != DECISION:  # a chance node: its one child
                node = n.children[0]
                n = nodes[node]
            kinds = [int(a.type) for a in n.actions]
            node = n.children[kinds.index(int(step.action.type))]
        while nodes[node].kind != DECISION:
            node = nodes[node].children[0]
        n = nodes[node]
        need = self.game.board_cards_through(state.round)
        b = sub.board_index(n.group, state.board[:need])
        out = np.array(self.blueprint(state), dtype=np.float64)
        live = sub.prep.hands[n.player].rows
        out[live] = 0.0
        rows = result.strategy[node]
        assert rows is not None  # a decision node's average strategy
        out[np.ix_(live, np.array([int(a.type) for a in n.actions]))] = rows[:, b, :].T
        return out / out.sum(axis=1, keepdims=True)  # the solver's float32 rows, summing to 1 in float64
