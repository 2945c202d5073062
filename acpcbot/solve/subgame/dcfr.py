"""Discounted CFR (Brown & Sandholm, arXiv 1809.04040) over a prepared subgame, alternating updates.

Why DCFR and not CFR+: on poker subgames it reaches a given exploitability
in fewer iterations than CFR+ (the paper's figures, and the peer's choice),
and an iteration costs the same.  Accumulated regrets are discounted each
iteration, positive ones by t^alpha / (t^alpha + 1), negative ones by
t^beta / (t^beta + 1); the average strategy weighs what came before by
(t / (t + 1))^gamma.  Defaults are the peer's (alpha 1.5, beta 0, gamma 3).
One iteration updates player 0, then player 1 against player 0's new
strategy.  Nothing is random: runs are bit-exact.  Strategies, regrets and
summed strategies are per level (see ``layout``): (edges, boards, holdings).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .layout import Level
from .passes import CURRENT, LevelArrays, Workspace, backward, by_node, forward
from .prepared import DTYPE


def regret_matching(regrets: np.ndarray, lv: Level, out: np.ndarray | None = None) -> np.ndarray:
    """Strategy (E, B, H) proportional to positive regret among each parent's edges; uniform where none is positive.

    ``out`` (the level's old strategy, say) receives it in place of a new array.
    """
    positive = np.maximum(regrets, 0, out=out)
    rows = lv.slot_rows
    total = positive[rows[0]].copy()
    for j in range(1, len(rows)):
        total[:lv.counts[j]] += positive[rows[j]]
    # each slot scaled by its parents' 1 / total: no per-edge gather of the totals; where a total is 0 its
    # edges are 0 and get 1 / (the parent's actions) instead
    empty = total <= 0
    total[empty] = 1.0
    np.reciprocal(total, out=total)
    for j, n in enumerate(lv.counts):
        positive[rows[j]] *= total[:n]
    if empty.any():
        fill = empty * lv.parent_uniform
        for j, n in enumerate(lv.counts):
            positive[rows[j]] += fill[:n]
    return positive


def uniform_strategy(lv: Level, boards: int, holdings: int) -> np.ndarray:
    """The uniform strategy of a level: 1 / (the parent's actions) on every edge."""
    return regret_matching(np.zeros((lv.num_edges, boards, holdings), DTYPE), lv)


class DCFR:
    """The iterations of a subgame: per level, regrets, the current strategy and the summed strategy."""

    def __init__(self, ws: Workspace, alpha: float = 1.5, beta: float = 0.0, gamma: float = 3.0) -> None:
        self.ws = ws
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.iteration = 0
        self.version = [0, 0]  # strategy updates per player: tags the reach buffers
        self.value_scale = [1.0, 1.0]  # per player: what its latest values (and so its regrets) are multiplied by
        self.regrets: LevelArrays = []
        self.strategy_sum: LevelArrays = []
        self.sigma: LevelArrays = []
        prep = ws.prep
        groups = prep.tree.groups
        for g, lay in enumerate(ws.layouts):
            shapes = [(lv.num_edges, len(groups[g].boards), len(prep.hands[lv.owner].rows)) for lv in lay.levels]
            self.regrets.append([np.zeros(s, DTYPE) for s in shapes])
            self.strategy_sum.append([np.zeros(s, DTYPE) for s in shapes])
            self.sigma.append([uniform_strategy(lv, s[1], s[2]) for lv, s in zip(lay.levels, shapes)])
        self.roots = tuple(prep.hands[p].weights.astype(DTYPE)[None, :] for p in (0, 1))
        #: safe re-solving's hook (acpcbot.solve.resolving): called as gadget(self, player, root values) after
        #: each player's update; it may replace ``self.roots`` (the opponent's reach into the subgame)
        self.gadget: Callable[[DCFR, int, np.ndarray], None] | None = None

    def step(self) -> None:
        """One iteration: player 0 updates, then player 1.

        Reach is computed scaled by the weight of the iteration whose average
        it enters (t^gamma), so a level's summed strategy grows by its reach
        rows as they stand (one pass, no per-parent weighting).  Values are
        linear in the opponent's reach, so they come scaled too, and each
        player's regrets are kept at the scale of its latest values: the
        discount multiplies by the change of scale as well.
        """
        self.iteration += 1
        t = self.iteration
        prev = float(t - 1)
        keep_pos = prev ** self.alpha / (prev ** self.alpha + 1.0)
        keep_neg = 0.0 if prev == 0 and self.beta < 0 else prev ** self.beta / (prev ** self.beta + 1.0)
        ws = self.ws
        for p in (0, 1):
            o = 1 - p
            # the opponent's reach enters its average at its next update: player 1's later in this iteration,
            # player 0's in the next one
            scale = float(t + 1 - o) ** self.gamma
            forward(ws, self.sigma, o, self.roots[o] * DTYPE(scale), chance=True,
                    tag=(id(self), o, self.version[o], scale))
            # The own reach (for the average) is the one the other half-iteration computed as the opponent's,
            # unless something else used the buffer since; its chance factor is the same at every iteration
            # of an information set, so it cancels in the average.
            weight = float(t) ** self.gamma
            if ws.reach_tag[p] != (id(self), p, self.version[p], weight):
                forward(ws, self.sigma, p, self.roots[p] * DTYPE(weight), chance=True,
                        tag=(id(self), p, self.version[p], weight))
            backward(ws, self.sigma, p, CURRENT)
            rescale = scale / self.value_scale[p]
            self.value_scale[p] = scale
            up, down = DTYPE(keep_pos * rescale), DTYPE(keep_neg * rescale)
            for g, lay in enumerate(ws.layouts):
                own = ws.reach_buf[p][g]
                v = ws.value_buf[p][g]
                for k, lv in enumerate(lay.levels):
                    if lv.owner != p:
                        continue
                    sigma = self.sigma[g][k]
                    regrets = self.regrets[g][k]
                    scratch = ws.scratch[p][g][:lv.num_edges]
                    # r * up where r > 0, r * down elsewhere: the larger (smaller) of the two products when
                    # up >= down (<): three passes, no comparison with 0
                    np.multiply(regrets, down, out=scratch)
                    regrets *= up
                    (np.maximum if up >= down else np.minimum)(regrets, scratch, out=regrets)
                    regrets += v[lv.children]
                    here = v[lv.parents]
                    for rows, n in zip(lv.slot_rows, lv.counts):
                        regrets[rows] -= here[:n]
                    # the own reach at the level's children: its reach at the parents times the strategy, weighted
                    self.strategy_sum[g][k] += own[lay.reach_children[k]]
                    # the new strategy overwrites the old one, which nothing needs any more
                    regret_matching(regrets, lv, out=sigma)
            self.version[p] += 1
            if self.gadget is not None:
                self.gadget(self, p, ws.value_buf[p][0][0] / DTYPE(scale))

    def average_levels(self) -> LevelArrays:
        """The average strategy per level."""
        return [[regret_matching(s, lv) for s, lv in zip(sums, lay.levels)]
                for sums, lay in zip(self.strategy_sum, self.ws.layouts)]

    def average(self) -> list[np.ndarray | None]:
        """The average strategy per decision node (A, B, H); None elsewhere."""
        return by_node(self.ws, self.average_levels())
