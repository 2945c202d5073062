"""The tree laid out for batched passes: per board group, nodes numbered level by level, edges per level.

Within a board group (one street, the same boards) nodes are numbered
breadth-first from the group's roots, so the children of one level's
decisions are exactly the next level, contiguous and in edge order.  In a
two-player street the actor alternates, so every decision of a level
belongs to one player: a level's strategy, regrets and summed strategy are
single (edges, boards, holdings) arrays, and a pass is a handful of numpy
calls per level instead of several per node (reach: one gather and one
product; values: one sum over each parent's edges with ``reduceat``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .tree import CHANCE, DECISION, FOLD_END, SHOWDOWN, SubgameError, SubgameTree


@dataclass
class Level:
    """The edges leaving one level's decisions, all one player's, laid out slot by slot.

    Parents are sorted by how many actions they have, most first, so the
    parents with a ``j``-th action are a prefix of them (``counts[j]``): the
    ``j``-th actions of all parents are the rows ``offsets[j]`` to
    ``offsets[j] + counts[j]`` of the level's arrays, and their children the
    same run of local ids from ``child_start``.  Sums over a parent's
    actions are then sums of slices, with no scattering.
    """

    owner: int
    parents: np.ndarray  # (P,) local ids, most actions first
    counts: list[int]  # parents with at least j + 1 actions
    offsets: list[int]  # first edge row of action slot j
    child_start: int
    global_parents: list[int] = field(default_factory=list)
    # derived, for the passes
    num_edges: int = field(init=False)
    slot_rows: list[slice] = field(init=False)  # rows of action slot j
    children: slice = field(init=False)  # local ids of all the edges' children, in row order
    edge_parent: np.ndarray = field(init=False)  # (E,) position of each edge's parent in ``parents``
    edge_source: np.ndarray = field(init=False)  # (E,) local id of each edge's parent
    uniform: np.ndarray = field(init=False)  # (E, 1, 1) float32: 1 / the parent's actions
    parent_uniform: np.ndarray = field(init=False)  # (P, 1, 1) float32: the same per parent

    def __post_init__(self) -> None:
        self.num_edges = self.offsets[-1] + self.counts[-1]
        self.slot_rows = [slice(o, o + n) for o, n in zip(self.offsets, self.counts)]
        self.children = slice(self.child_start, self.child_start + self.num_edges)
        self.edge_parent = np.concatenate([np.arange(n) for n in self.counts]).astype(np.int64)
        self.edge_source = self.parents[self.edge_parent]
        widths = np.zeros(len(self.parents))
        for n in self.counts:
            widths[:n] += 1
        self.uniform = (1.0 / widths[self.edge_parent]).astype(np.float32)[:, None, None]
        self.parent_uniform = (1.0 / widths).astype(np.float32)[:, None, None]

    def rows(self, j: int) -> slice:
        """The rows (and, shifted by ``child_start``, children) of action slot ``j``."""
        return self.slot_rows[j]


@dataclass
class GroupLayout:
    """One board group's nodes (global ids by local id), levels, terminals and links to other groups."""

    nodes: np.ndarray
    levels: list[Level]
    num_roots: int
    parent_group: int
    parent_chance: np.ndarray  # local ids, in the parent group, of the chance node above each root
    folds: np.ndarray
    fold_pay0: np.ndarray
    showdowns: np.ndarray
    showdown_pay0: np.ndarray
    child_groups: list[int] = field(default_factory=list)
    #: per player: its payoff at each fold (F, 1, 1) and showdown win (S, 1, 1), float32, for the batched products
    fold_pay: tuple = ()
    showdown_pay: tuple = ()

    #: per player: the row of its reach buffer that holds each node's reach (by local id; see ``reach_rows``)
    source: tuple = ()
    #: per player: how many reach rows it has (the roots, then the children of its own levels, level by level)
    reach_count: tuple = ()
    #: per level: the rows of its owner's reach buffer that hold the level's children, in edge order
    reach_children: list = field(default_factory=list)
    #: per player: ``source`` at the group's folds, showdowns and (parent group's ids) the chance nodes above its roots
    fold_source: tuple = ()
    showdown_source: tuple = ()
    chance_source: tuple = ()

    def __post_init__(self) -> None:
        rows = [reach_rows(len(self.nodes), self.num_roots, self.levels, x) for x in (0, 1)]
        self.source = tuple(r[0] for r in rows)
        self.reach_count = tuple(r[1] for r in rows)
        self.reach_children = [rows[lv.owner][2][k] for k, lv in enumerate(self.levels)]
        self.fold_source = tuple(src[self.folds] for src in self.source)
        self.showdown_source = tuple(src[self.showdowns] for src in self.source)
        self.fold_pay = tuple((s * self.fold_pay0).astype(np.float32)[:, None, None] for s in (1.0, -1.0))
        self.showdown_pay = tuple((s * self.showdown_pay0).astype(np.float32)[:, None, None] for s in (1.0, -1.0))


def reach_rows(num_nodes: int, num_roots: int, levels: list[Level], player: int) -> tuple[np.ndarray, int, list]:
    """Where ``player``'s reach is kept: (row of each local id, rows in all, per level its children's rows).

    A player's reach changes only at its own actions: below the other's a
    node's reach is its parent's, so it gets no row of its own and reads
    its nearest ancestor's (a root or the child of the player's own
    action).  The rows are the roots, then the children of the player's
    levels, each level's a contiguous run in edge order (about half the
    nodes: half the memory of a row per node).
    """
    src = np.arange(num_nodes, dtype=np.int64)
    src[num_roots:] = -1
    count = num_roots
    blocks: list = []
    for lv in levels:
        if lv.owner != player:
            src[lv.children] = src[lv.edge_source]
            blocks.append(None)
            continue
        src[lv.children] = np.arange(count, count + lv.num_edges)
        blocks.append(slice(count, count + lv.num_edges))
        count += lv.num_edges
    return src, count, blocks


def lay_out(tree: SubgameTree) -> list[GroupLayout]:
    """The per-group, per-level layout of ``tree`` (groups in the tree's order: parents first)."""
    nodes = tree.nodes
    roots: dict[int, list[int]] = {0: [0]}
    chance_above: dict[int, list[int]] = {0: []}
    for i, n in enumerate(nodes):
        if n.kind == CHANCE:
            c = n.children[0]
            roots.setdefault(nodes[c].group, []).append(c)
            chance_above.setdefault(nodes[c].group, []).append(i)
    layouts: list[GroupLayout] = []
    local_of: dict[int, int] = {}
    for g, group in enumerate(tree.groups):
        order = list(roots.get(g, []))
        for k, gid in enumerate(order):
            local_of[gid] = k
        levels: list[Level] = []
        frontier = list(order)
        while frontier:
            deciders = [gid for gid in frontier if nodes[gid].kind == DECISION]
            if not deciders:
                break
            owners = {nodes[gid].player for gid in deciders}
            if len(owners) != 1:
                raise SubgameError("both players act at one depth of a street: not a two-player alternating game")
            deciders.sort(key=lambda gid: -len(nodes[gid].children))  # stable: keeps the level's order
            widths = [len(nodes[gid].children) for gid in deciders]
            counts = [sum(1 for w in widths if w > j) for j in range(widths[0])]
            offsets = [sum(counts[:j]) for j in range(len(counts))]
            start = len(order)
            children = [nodes[gid].children[j] for j in range(len(counts)) for gid in deciders[:counts[j]]]
            order += children
            for k in range(start, len(order)):
                local_of[order[k]] = k
            parents = np.array([local_of[gid] for gid in deciders], dtype=np.int64)
            levels.append(Level(owners.pop(), parents, counts, offsets, start, list(deciders)))
            frontier = children
        kinds = np.array([nodes[gid].kind for gid in order], dtype=np.int64)
        pays = np.array([nodes[gid].payoff0 for gid in order], dtype=np.float64)
        folds = np.flatnonzero(kinds == FOLD_END)
        shows = np.flatnonzero(kinds == SHOWDOWN)
        above = np.array([local_of[c] for c in chance_above.get(g, [])], dtype=np.int64)
        layouts.append(GroupLayout(np.array(order, dtype=np.int64), levels, len(roots.get(g, [])), group.parent,
                                   above, folds, pays[folds], shows, pays[shows]))
        if group.parent >= 0:
            layouts[group.parent].child_groups.append(g)
            up = layouts[group.parent].source
            layouts[-1].chance_source = tuple(up[x][above] for x in (0, 1))
    return layouts
