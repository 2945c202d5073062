"""Nested safe re-solving checked in no-limit Leduc: a blueprint on a coarse abstraction, the game a finer one.

No-limit Leduc has too many raise sizes for an exact best response over
all of them, so the game here is a fine betting abstraction ``fine`` (the
opponent may bet any of its sizes) and the blueprint is solved on a coarse
one ``coarse`` that lacks most of them.  The blueprint plays the fine game
by translation: an off-tree raise is read as the coarse raise nearest in
chips (the history it continues from), and the blueprint's raise
probabilities go to the fine raise nearest each coarse one.  Re-solving
puts the opponent's actual actions in the tree: every round-2 subgame is
rebuilt from the real (fine) history with the fine sizes and re-solved
through the Resolve gadget for the player to act, the blueprint's (translated)
best-response values as the opponent's alternatives.  The whole-game
exploitability of both, in the fine game, is exact (the subgame solver's
best response from the root).

``resolve_in_play`` checks the player's own code path the same way: a
``TreeTable`` makes a whole-tree strategy a blueprint table, and the
no-limit ``Resolver`` (the one HUNL plays with) answers every round-2
decision from it, its ladder the coarse sizes, the opponent's real fine
sizes added as they are bet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import CALL, ActionType, State
from ...gamedef import GameDef
from ...holdings import blocked
from ..hunl.policy import real_action
from ..subgame import BetSizes, Subgame
from ..subgame.best_response import evaluate
from ..subgame.tree import CHANCE, DECISION
from .clock import Budget
from .columns import nearest
from .gadget import by_level, node_states, resolve
from .player import Resolver


@dataclass
class Whole:
    """A whole game from its first action as one subgame tree: the tree, its states and a strategy per node."""

    subgame: Subgame
    states: list

    @classmethod
    def build(cls, game: GameDef, sizes: BetSizes) -> "Whole":
        """The game's tree under ``sizes``, every holding dealt uniformly."""
        sub = Subgame(game, State(game), (), (np.ones(game.deck_size), np.ones(game.deck_size)), sizes)
        return cls(sub, node_states(sub, State(game)))

    def exploitability(self, sigma: list) -> float:
        """Exact exploitability (chips a hand) of ``sigma`` in this tree."""
        ws = self.subgame.workspace
        return evaluate(ws, by_level(ws, sigma), with_values=False).exploitability

    def best(self, sigma: list) -> tuple[float, float]:
        """Each player's best-response value against ``sigma``."""
        ws = self.subgame.workspace
        return evaluate(ws, by_level(ws, sigma), with_values=False).best


def _raise_to(action) -> int:
    return int(action.size)


def translate(coarse: Whole, fine: Whole, sigma: list) -> list:
    """The coarse strategy ``sigma`` played in the fine tree by nearest-chips translation (see the module)."""
    cn, fn = coarse.subgame.tree.nodes, fine.subgame.tree.nodes
    out: list = [None] * len(fn)
    stack = [(0, 0)]
    while stack:
        f, c = stack.pop()
        node, cnode = fn[f], cn[c]
        if node.kind == CHANCE:
            stack.append((node.children[0], cnode.children[0]))
            continue
        if node.kind != DECISION:
            continue
        ctypes = [ActionType(a.type) for a in cnode.actions]
        # each fine action continues from the coarse action it is read as
        read_as = []
        for a in node.actions:
            kind = ActionType(a.type)
            if kind != ActionType.RAISE:
                read_as.append(ctypes.index(kind))
                continue
            raises = [j for j, t in enumerate(ctypes) if t == ActionType.RAISE]
            if not raises:  # the coarse tree stops raising here: read it as a call
                read_as.append(ctypes.index(ActionType.CALL))
                continue
            read_as.append(min(raises, key=lambda j: abs(_raise_to(cnode.actions[j]) - _raise_to(a))))
        # each coarse action's probability goes to the fine action nearest it
        probs = np.zeros((len(node.children),) + sigma[c].shape[1:], dtype=sigma[c].dtype)
        for j, ca in enumerate(cnode.actions):
            kind = ActionType(ca.type)
            if kind != ActionType.RAISE:
                target = [ActionType(a.type) for a in node.actions].index(kind)
            else:
                fine_raises = [k for k, a in enumerate(node.actions) if ActionType(a.type) == ActionType.RAISE]
                target = min(fine_raises, key=lambda k: abs(_raise_to(node.actions[k]) - _raise_to(ca)))
            probs[target] += sigma[c][j]
        out[f] = probs
        for k, child in enumerate(node.children):
            stack.append((child, cnode.children[read_as[k]]))
    return out


def reach(whole: Whole, sigma: list, player: int) -> list:
    """``player``'s own reach per node: (boards, holdings) arrays, chance left out."""
    tree = whole.subgame.tree
    nodes = tree.nodes
    out: list = [None] * len(nodes)
    out[0] = np.ones((1, whole.subgame.game.deck_size))
    for i, node in enumerate(nodes):
        if node.kind == DECISION:
            for a, child in enumerate(node.children):
                out[child] = out[i] * sigma[i][a] if node.player == player else out[i]
        elif node.kind == CHANCE:
            child = node.children[0]
            out[child] = out[i][tree.groups[nodes[child].group].parent_board]
    return out


def resolve_round_two(whole: Whole, sigma: list, sizes: BetSizes, iterations: int = 30) -> list:
    """``sigma`` with every round-2 subgame (each board) re-solved safely for the player to act, in ``whole``'s tree."""
    tree = whole.subgame.tree
    nodes = tree.nodes
    game = whole.subgame.game
    out = [None if s is None else s.copy() for s in sigma]
    reaches = (reach(whole, sigma, 0), reach(whole, sigma, 1))
    for parent in nodes:
        if parent.kind != CHANCE:
            continue
        root = parent.children[0]
        state = whole.states[root]
        if state.finished:
            continue
        size = _subtree_size(nodes, root)
        for b, board in enumerate(tree.groups[nodes[root].group].boards.tolist()):
            ranges = tuple(reaches[q][root][b] * ~blocked(game, board) for q in (0, 1))

            def rows(i: int, _node, _state, _board, root=root, b=b) -> np.ndarray:
                return sigma[root + i][:, b, :].T
            for player in (0, 1):
                if ranges[player].sum() <= 0:
                    continue
                result, _ = resolve(game, state, tuple(board), ranges, player, rows, sizes, iterations=iterations)
                sub = result.subgame
                assert len(sub.tree.nodes) == size
                live = sub.prep.hands[player].rows
                for i, node in enumerate(sub.tree.nodes):
                    if node.kind == DECISION and node.player == player:
                        into, solved = out[root + i], result.strategy[i]
                        assert into is not None and solved is not None  # decision nodes of both
                        into[:, b, live] = solved[:, 0, :]
    return out


def _subtree_size(nodes, root: int) -> int:
    count, stack = 0, [root]
    while stack:
        i = stack.pop()
        count += 1
        stack.extend(nodes[i].children)
    return count


class TreeTable:
    """A strategy over a whole no-limit tree as a blueprint table: actions and every holding's rows at a state.

    What the player sees in play (``HunlBlueprint``'s interface), over a
    small game: a state's betting is walked down the tree (an action the
    node lacks read as the nearest in chips, ``columns.nearest``), the
    node's actions become the state's real ones of the same pot fraction
    (``hunl.policy.real_action``) and its rows are the strategy's there on
    the state's board; a state the walk cannot place is check/call.  The
    no-limit ``Resolver`` then re-solves it as it re-solves HUNL.
    """

    def __init__(self, whole: Whole, sigma: list) -> None:
        self.whole = whole
        self.sigma = sigma
        self.game = whole.subgame.game

    def node(self, state: State) -> int | None:
        """The tree's decision node ``state``'s betting reads as (None: the tree ends before it)."""
        nodes = self.whole.subgame.tree.nodes
        n = 0
        for action in (a for r in state.actions for a in r):
            while nodes[n].kind == CHANCE:
                n = nodes[n].children[0]
            if nodes[n].kind != DECISION:
                return None
            n = nodes[n].children[nearest(nodes[n].actions, action)]
        while nodes[n].kind == CHANCE:
            n = nodes[n].children[0]
        return n if nodes[n].kind == DECISION else None

    def _columns(self, state: State) -> tuple[tuple, int | None, list[int]]:
        i = self.node(state)
        if i is None:
            return (CALL,), None, []
        acts = [real_action(state, self.whole.states[i], a) for a in self.whole.subgame.tree.nodes[i].actions]
        distinct = sorted(set(acts), key=lambda a: (int(a[0]), int(a[1])))
        return tuple(distinct), i, [distinct.index(a) for a in acts]

    def actions(self, state: State) -> tuple:
        """The real actions the rows at ``state`` are over."""
        return self._columns(state)[0]

    def probabilities_all(self, state: State) -> np.ndarray:
        """(holdings, actions) rows at ``state`` on its board (uniform where the board blocks the holding)."""
        actions, i, cols = self._columns(state)
        out = np.zeros((self.game.deck_size, len(actions)))
        if i is None:
            out[:, 0] = 1.0
            return out
        sub = self.whole.subgame
        need = self.game.board_cards_through(state.round)
        b = sub.board_index(sub.tree.nodes[i].group, state.board[:need])
        rows = np.asarray(self.sigma[i][:, b, :].T, dtype=np.float64)
        for j, c in enumerate(cols):
            out[:, c] += rows[:, j]
        total = out.sum(axis=1, keepdims=True)
        return np.divide(out, total, out=np.full(out.shape, 1.0 / len(actions)), where=total > 0)


def resolve_in_play(whole: Whole, sigma: list, ladder: BetSizes, iterations: int = 30,
                    players: tuple[int, ...] = (0, 1)) -> tuple[list, Resolver]:
    """``sigma`` with every round-2 decision of ``players`` answered by the no-limit ``Resolver`` as in play.

    The table is ``sigma`` (``TreeTable``); the re-solves' betting is
    ``ladder`` plus the opponent's real sizes (every fine size ``ladder``
    lacks that was bet before the decision: a new solve each), the ranges
    the table's reach through round 1.  Returns the strategy and the
    resolver (its counts).
    """
    tree = whole.subgame.tree
    game = whole.subgame.game
    table = TreeTable(whole, sigma)
    # the fixed count: the golden figures of the tests were taken with it
    resolver = Resolver(game, table.probabilities_all, Budget(iterations, 1e9, target=None),
                        start_round=game.num_rounds - 1, actions=table.actions, sizes=lambda _root: ladder)
    out = [None if s is None else s.copy() for s in sigma]
    asks = []
    for i, node in enumerate(tree.nodes):
        state = whole.states[i]
        if node.kind != DECISION or node.player not in players or state.round < game.num_rounds - 1:
            continue
        for b, board in enumerate(tree.groups[node.group].boards.tolist()):
            dealt = state.copy().deal_board(board)
            asks.append((repr(resolver.spot(dealt).key), i, b, dealt))
    for _, i, b, dealt in sorted(asks, key=lambda t: t[0]):  # one spot's decisions together: one solve each
        rows = resolver.rows(dealt, None, cap=False)
        if rows is not None:
            into = out[i]
            assert into is not None  # a decision node's strategy
            into[:, b, :] = rows.T
    return out, resolver
