"""Re-solving checked where exact answers exist: every later-round subgame of a small limit game's public tree.

``resolve_rounds(tree, sigma, ...)`` takes a whole-game strategy over
``acpcbot.solve.tree.PublicTree`` (a blueprint: CFR stopped early), and for
every public node where a later round starts and for each player re-solves
that player's part of the subgame through the Resolve gadget, with both
players' ranges the blueprint's reach there.  The result is the strategy a
player re-solving every decision would play (re-solves are deterministic, so
each decision of a round reads the same solve), as one array the exact
best response (``acpcbot.solve.best_response``) measures.  Only games with
one-card holdings (Kuhn, Leduc), whose tree hands are the holdings' rows.
"""

from __future__ import annotations

import numpy as np

from ...engine import ActionType
from ..subgame.tree import DECISION, SubgameTree, build_tree
from ..tree import ACTION_TYPES, PublicTree
from .gadget import COMMIT, resolve

_COLUMN = {kind: i for i, kind in enumerate(ACTION_TYPES)}


def round_roots(tree: PublicTree) -> list[int]:
    """Public nodes where a round after the first starts (a chance node's children still to be played)."""
    out = []
    for children in tree.chance_children:
        for n in children:
            if n < tree.num_nodes and not tree.states[n].finished:
                out.append(int(n))
    return out


def node_map(tree: PublicTree, sub_tree: SubgameTree, root: int) -> dict[int, int]:
    """Subgame decision node -> decision index of ``tree`` (the same betting line from ``root``)."""
    dec_index = {int(n): d for d, n in enumerate(tree.dec_node)}
    nodes = sub_tree.nodes
    out: dict[int, int] = {}
    stack = [(0, root)]
    while stack:
        s, n = stack.pop()
        node = nodes[s]
        if node.kind != DECISION:
            if node.children:
                raise ValueError("exact re-solving covers the last round only (a subgame with chance inside)")
            continue
        d = dec_index[n]
        out[s] = d
        for action, child in zip(node.actions, node.children):
            stack.append((child, int(tree.dec_children[d, _COLUMN[ActionType(action.type)]])))
    return out


def tree_rows(sigma: np.ndarray, mapping: dict[int, int]):
    """The blueprint's fold/call/raise rows at a subgame node (the loader's ``rows``)."""
    def rows(i: int, node, _state, _board) -> np.ndarray:
        return sigma[mapping[i]][[_COLUMN[ActionType(a.type)] for a in node.actions]].T
    return rows


def resolve_rounds(tree: PublicTree, sigma: np.ndarray, iterations: int = 200,
                   players: tuple[int, ...] = (0, 1), target: float | None = None,
                   settle: float | None = None, commit: float = COMMIT) -> np.ndarray:
    """The whole-game strategy with every later-round subgame re-solved safely for ``players`` (a copy).

    ``target`` and ``settle``: the stopping rule of ``gadget.resolve`` (None: ``iterations`` every solve);
    ``commit``: its committed share of the opponent.
    """
    if tree.game.num_hole_cards != 1 or tree.game.num_players != 2:
        raise ValueError("exact re-solving is for two-player games with one hole card (Kuhn, Leduc)")
    out = sigma.copy()
    reach = tree.reach(sigma)
    for root in round_roots(tree):
        state, board = tree.states[root], tree.boards[root]
        ranges = (reach[root, 0] * tree.compat[root], reach[root, 1] * tree.compat[root])
        for player in players:
            if ranges[player].sum() <= 0:
                continue  # the player never gets here: what it would do cannot matter
            sub_tree = build_tree(tree.game, state, board)  # the same tree as the re-solve's, for the mapping
            mapping = node_map(tree, sub_tree, root)
            result, _ = resolve(tree.game, state, board, ranges, player, tree_rows(sigma, mapping),
                                iterations=iterations, target=target, settle=settle, commit=commit)
            sub = result.subgame
            live = sub.prep.hands[player].rows
            for s, d in mapping.items():
                node = sub.tree.nodes[s]
                if node.player != player:
                    continue
                cols = [_COLUMN[ActionType(a.type)] for a in node.actions]
                rows = result.strategy[s]
                assert rows is not None  # a decision node's average strategy
                out[d][np.ix_(np.array(cols), live)] = rows[:, 0, :]
    return out


__all__ = ["node_map", "resolve_rounds", "round_roots", "tree_rows"]
