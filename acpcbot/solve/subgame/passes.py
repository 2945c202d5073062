"""The two sweeps of every CFR iteration and best response: reach down the tree, values up it, level by level.

Arrays are (nodes of a board group, its boards, a player's holdings), one
buffer per group and player, reused by every pass (a player's reach has
rows only where it changes: ``layout.reach_rows``).  Reach goes down: a
level's children are its parents' reach, times the strategy where the
player whose reach it is acts; a chance node's child copies it to every
board that extends the parent's and zeroes the holdings the new cards block
(times the deal's probability for the opponent's reach, so that values are
counterfactual: opponent reach x chance x payoff).  Values come up: the
group's terminals at once, chance nodes from their child groups (the sum
over the cards dealt, blocked own holdings zeroed), then each level from
the deepest (the strategy's mix of the children, their best for a best
response, or their plain sum where the opponent acts).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .layout import GroupLayout, Level, lay_out
from .prepared import DTYPE, Prepared

CURRENT, BEST = "current", "best"

#: per group, per level: an (edges, boards, holdings of the level's owner) array
LevelArrays = list[list[np.ndarray]]


class Workspace:
    """The layout of a prepared subgame and its reach and value buffers, per player and group."""

    def __init__(self, prep: Prepared) -> None:
        self.prep = prep
        self.layouts: list[GroupLayout] = lay_out(prep.tree)
        groups = prep.tree.groups
        shapes = [[(len(lay.nodes), len(groups[g].boards), len(prep.hands[p].rows)) for g, lay in enumerate(self.layouts)]
                  for p in (0, 1)]
        self.reach_buf = [[np.zeros((lay.reach_count[p],) + shapes[p][g][1:], DTYPE) for g, lay in enumerate(self.layouts)]
                          for p in (0, 1)]
        # a player's values are read only in its own half of an iteration (or right after its pass): both
        # players' value buffers of a group are views of one block
        blocks = [np.zeros(max(int(np.prod(shapes[p][g])) for p in (0, 1)), DTYPE) for g in range(len(self.layouts))]
        self.value_buf = [[blocks[g][:int(np.prod(shape))].reshape(shape) for g, shape in enumerate(row)]
                          for row in shapes]
        self.reach_tag: list[object] = [None, None]
        # one temporary for every pass, used a step at a time: the fold and showdown products' results, then a
        # level's edges (``level_values``, the regret update)
        rows = [max([len(lay.folds), len(lay.showdowns)] + [lv.num_edges for lv in lay.levels]) for lay in self.layouts]
        temp = np.zeros(max(rows[g] * shapes[p][g][1] * shapes[p][g][2] for g in range(len(rows)) for p in (0, 1)), DTYPE)

        def view(p: int, g: int, n: int) -> np.ndarray:
            b, h = shapes[p][g][1:]
            return temp[:n * b * h].reshape(n, b, h)

        #: per player and group: the (folds, boards, own holdings) buffer the fold products write into
        self.fold_out = [[view(p, g, len(lay.folds)) for g, lay in enumerate(self.layouts)] for p in (0, 1)]
        #: per player and group: the (showdowns, boards, own holdings) buffer the showdown products write into
        self.showdown_out = [[view(p, g, len(lay.showdowns)) for g, lay in enumerate(self.layouts)] for p in (0, 1)]
        #: per player and group: a (most edges of a level, boards, holdings) temporary
        self.scratch = [[view(p, g, rows[g]) for g in range(len(rows))] for p in (0, 1)]
        self.masks = prep.masks

    def level_shapes(self, player: int) -> list[list[tuple[int, int, int] | None]]:
        """Per group and level: the (edges, boards, holdings) of the level's arrays when ``player`` owns it."""
        groups = self.prep.tree.groups
        h = len(self.prep.hands[player].rows)
        return [[(lv.num_edges, len(groups[g].boards), h) if lv.owner == player else None for lv in lay.levels]
                for g, lay in enumerate(self.layouts)]


def forward(ws: Workspace, sigma: LevelArrays, player: int, root: np.ndarray, chance: bool,
            tag: object = None) -> None:
    """Fill ``ws.reach_buf[player]`` with the player's reach under ``sigma``; ``chance`` weighs each deal.

    ``tag`` names what was computed (``ws.reach_tag[player]``), so a caller
    can tell whether the buffer still holds the reach it needs.
    """
    ws.reach_tag[player] = tag
    prep = ws.prep
    bufs = ws.reach_buf[player]
    groups = prep.tree.groups
    for g, lay in enumerate(ws.layouts):
        r = bufs[g]
        if lay.parent_group < 0:
            r[0] = root
        else:
            parent = bufs[lay.parent_group][lay.chance_source[player]]  # (n, Bp, H)
            np.multiply(parent[:, groups[g].parent_board, :], ws.masks[player][g][None], out=r[:lay.num_roots])
            if chance:
                r[:lay.num_roots] *= DTYPE(prep.chance_weight[g])
        source = lay.source[player]
        for k, lv in enumerate(lay.levels):
            # below the other player's actions the reach is the parent's: no row is written (``source``)
            if lv.owner != player:
                continue
            out = r[lay.reach_children[k]]
            # the parents gathered once (a third of the edges), then each action slot from its prefix of them:
            # np.take(..., out=out) measured a third slower than a gather
            above = r[source[lv.parents]]
            s = sigma[g][k]
            for rows, n in zip(lv.slot_rows, lv.counts):
                np.multiply(above[:n], s[rows], out=out[rows])


def _terminals(ws: Workspace, g: int, player: int, values: np.ndarray) -> None:
    prep = ws.prep
    lay = ws.layouts[g]
    opp = ws.reach_buf[1 - player][g]
    if len(lay.folds):
        reach = opp[lay.fold_source[1 - player]]
        sums = prep.fold_sums[player](reach, out=ws.fold_out[player][g])
        if g in prep.class_fold:
            # a class of cards: a pair of holdings meets on the class's cards neither holds (size - a(h) - a(h'))
            size, counts = prep.class_fold[g]
            sums *= size - counts[player]
            sums -= prep.fold_sums[player](reach * counts[1 - player])
        sums *= lay.fold_pay[player]
        values[lay.folds] = sums
    if len(lay.showdowns):
        # (T, B, H) arrays, multiplied board by board as (B, T, H) views: BLAS takes the strided rows as they are,
        # so neither the opponent's reach nor the result is copied into a transposed layout
        stacked = opp[lay.showdown_source[1 - player]]
        vals = ws.showdown_out[player][g]
        sweep = prep.showdown_sweep.get(g)
        if sweep is not None:
            # the sweep counts from the player's own side (beats: +), the matrix from player 0's: pay0 for both
            sweep[player](stacked, out=vals)
            vals *= lay.showdown_pay[0]
        else:
            np.matmul(stacked.transpose(1, 0, 2), prep.showdown[g][player], out=vals.transpose(1, 0, 2))
            vals *= lay.showdown_pay[player]
        values[lay.showdowns] = vals


def backward(ws: Workspace, sigma: LevelArrays, player: int, mode: str = CURRENT) -> None:
    """Fill ``ws.value_buf[player]`` with counterfactual values against the opponent reach in ``ws.reach_buf``."""
    groups = ws.prep.tree.groups
    bufs = ws.value_buf[player]
    for g in range(len(ws.layouts) - 1, -1, -1):
        lay = ws.layouts[g]
        v = bufs[g]
        _terminals(ws, g, player, v)
        for cg in lay.child_groups:
            child = ws.layouts[cg]
            below = bufs[cg][:child.num_roots] * ws.masks[player][cg][None]
            n, _, h = below.shape
            v[child.parent_chance] = below.reshape(n, len(groups[g].boards), groups[cg].deal_count, h).sum(axis=2)
        for k in range(len(lay.levels) - 1, -1, -1):
            lv = lay.levels[k]
            v[lv.parents] = level_values(lv, v, sigma[g][k] if lv.owner == player else None, mode, ws.scratch[player][g])


def level_values(lv: Level, v: np.ndarray, sigma: np.ndarray | None, mode: str = CURRENT,
                 scratch: np.ndarray | None = None) -> np.ndarray:
    """(P, B, H) values at a level's parents from their children's in ``v``: a plain sum (``sigma`` None), mix or max.

    ``scratch``: an (at least edges, B, H) buffer the result is a view of (a new one when None).
    """
    kids = v[lv.children]
    if scratch is None:
        scratch = np.empty_like(kids)
    first = lv.slot_rows[0]
    if sigma is not None and mode != BEST:
        # every edge's share at once, then each slot added onto the first slot's rows: no temporaries
        mixed = np.multiply(kids, sigma, out=scratch[:lv.num_edges])
        acc = mixed[first]
        for rows, n in zip(lv.slot_rows[1:], lv.counts[1:]):
            acc[:n] += mixed[rows]
        return acc
    acc = scratch[:lv.counts[0]]
    np.copyto(acc, kids[first])
    for rows, n in zip(lv.slot_rows[1:], lv.counts[1:]):
        if sigma is None:
            acc[:n] += kids[rows]
        else:
            np.maximum(acc[:n], kids[rows], out=acc[:n])
    return acc


def root_values(ws: Workspace, player: int) -> np.ndarray:
    """The player's counterfactual values at the root, per live holding (after ``backward``)."""
    return ws.value_buf[player][0][0, 0].astype(np.float64)


def by_node(ws: Workspace, arrays: LevelArrays) -> list[np.ndarray | None]:
    """Per-level arrays as one (actions, boards, holdings) array per decision node (None elsewhere)."""
    out: list[np.ndarray | None] = [None] * len(ws.prep.tree.nodes)
    for g, lay in enumerate(ws.layouts):
        for k, lv in enumerate(lay.levels):
            for i, gid in enumerate(lv.global_parents):
                rows = [lv.offsets[j] + i for j in range(len(lv.counts)) if lv.counts[j] > i]
                out[gid] = arrays[g][k][rows]
    return out


__all__: Sequence[str] = ["BEST", "CURRENT", "Workspace", "backward", "by_node", "forward", "root_values"]
