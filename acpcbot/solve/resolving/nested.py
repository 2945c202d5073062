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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import ActionType, State
from ...gamedef import GameDef
from ...holdings import blocked
from ..subgame import BetSizes, Subgame
from ..subgame.best_response import evaluate
from ..subgame.tree import CHANCE, DECISION
from .gadget import by_level, node_states, resolve


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
