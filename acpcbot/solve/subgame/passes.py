"""The two sweeps of every CFR iteration and best response: reach down the tree, values up it.

Arrays at a node are (boards of its group, holdings of the player).  Reach
goes down in pre-order: a player's own decisions multiply it by the
strategy of each action, chance nodes copy it to every board that extends
the parent's and zero the holdings the new cards block (times the deal's
probability for the opponent's reach, so that values are counterfactual:
opponent reach x chance x payoff).  Values come up in reverse order: the
terminals of a board group all at once, then each decision (the strategy's
mix, or the best action for a best response) and each chance node (the sum
over the cards dealt, the own holdings they block zeroed).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .prepared import Prepared
from .tree import CHANCE, DECISION, FOLD_END

CURRENT, BEST = "current", "best"


def reach(prep: Prepared, sigma: Sequence[np.ndarray | None], player: int, root: np.ndarray,
          chance: bool) -> list[np.ndarray]:
    """``player``'s reach at every node under ``sigma`` (per decision node: (A, B, H)); ``chance`` weighs deals."""
    tree = prep.tree
    nodes = tree.nodes
    masks = prep.masks[player]
    out: list[np.ndarray] = [None] * len(nodes)  # type: ignore[list-item]
    out[0] = root
    for i, node in enumerate(nodes):
        kids = node.children
        if not kids:
            continue
        r = out[i]
        if node.kind == DECISION:
            if node.player == player:
                s = sigma[i]
                for a, c in enumerate(kids):
                    out[c] = r * s[a]
            else:
                for c in kids:
                    out[c] = r
        else:  # chance: one child, in a group of boards extending this node's
            c = kids[0]
            g = nodes[c].group
            child = r[tree.groups[g].parent_board] * masks[g]
            if chance:
                child *= prep.chance_weight[g]
            out[c] = child
    return out


def terminal_values(prep: Prepared, player: int, opp_reach: Sequence[np.ndarray], out: list) -> None:
    """Fill ``out[node]`` for every terminal with ``player``'s counterfactual values."""
    nodes = prep.tree.nodes
    sign = 1.0 if player == 0 else -1.0
    fold = prep.fold_sums[player]
    for _g, idx in prep.folds_by_group.items():
        sums = fold(np.stack([opp_reach[n] for n in idx]))
        for t, n in enumerate(idx):
            sums[t] *= sign * nodes[n].payoff0
            out[n] = sums[t]
    for g, idx in prep.showdowns_by_group.items():
        matrix = prep.showdown[g][player]
        stacked = np.stack([opp_reach[n] for n in idx], axis=-1)  # (B, Ho, T)
        vals = np.matmul(matrix, stacked)  # (B, Hi, T)
        vals *= np.array([nodes[n].payoff0 for n in idx], dtype=vals.dtype)
        vals = np.moveaxis(vals, -1, 0)
        for t, n in enumerate(idx):
            out[n] = vals[t]


def values(prep: Prepared, player: int, opp_reach: Sequence[np.ndarray], sigma: Sequence[np.ndarray | None],
           mode: str = CURRENT) -> list[np.ndarray]:
    """``player``'s counterfactual values at every node: its strategy ``sigma`` (CURRENT) or a best response (BEST)."""
    tree = prep.tree
    nodes = tree.nodes
    masks = prep.masks[player]
    out: list[np.ndarray] = [None] * len(nodes)  # type: ignore[list-item]
    terminal_values(prep, player, opp_reach, out)
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        kids = node.children
        if not kids:
            continue
        if node.kind == DECISION:
            if node.player != player:
                v = out[kids[0]].copy()
                for c in kids[1:]:
                    v += out[c]
            elif mode == BEST:
                v = out[kids[0]].copy()
                for c in kids[1:]:
                    np.maximum(v, out[c], out=v)
            else:
                s = sigma[i]
                v = s[0] * out[kids[0]]
                for a in range(1, len(kids)):
                    v += s[a] * out[kids[a]]
            out[i] = v
        elif node.kind == CHANCE:
            c = kids[0]
            g = nodes[c].group
            group = tree.groups[g]
            child = out[c] * masks[g]
            parent_boards = len(tree.groups[node.group].boards)
            out[i] = child.reshape(parent_boards, group.deal_count, child.shape[-1]).sum(axis=1)
    return out


__all__ = ["BEST", "CURRENT", "FOLD_END", "reach", "terminal_values", "values"]
