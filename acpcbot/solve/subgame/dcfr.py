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
        self.regrets: LevelArrays = []
        self.strategy_sum: LevelArrays = []
        self.sigma: LevelArrays = []
        self.scratch: LevelArrays = []  # one (edges, boards, holdings) temporary per level, reused every iteration
        prep = ws.prep
        groups = prep.tree.groups
        for g, lay in enumerate(ws.layouts):
            shapes = [(lv.num_edges, len(groups[g].boards), len(prep.hands[lv.owner].rows)) for lv in lay.levels]
            self.regrets.append([np.zeros(s, DTYPE) for s in shapes])
            self.strategy_sum.append([np.zeros(s, DTYPE) for s in shapes])
            self.sigma.append([uniform_strategy(lv, s[1], s[2]) for lv, s in zip(lay.levels, shapes)])
            self.scratch.append([np.zeros(s, DTYPE) for s in shapes])
        self.roots = tuple(prep.hands[p].weights.astype(DTYPE)[None, :] for p in (0, 1))
        #: safe re-solving's hook (acpcbot.solve.resolving): called as gadget(self, player, root values) after
        #: each player's update; it may replace ``self.roots`` (the opponent's reach into the subgame)
        self.gadget: Callable[[DCFR, int, np.ndarray], None] | None = None

    def step(self) -> None:
        """One iteration: player 0 updates, then player 1."""
        self.iteration += 1
        t = self.iteration
        prev = float(t - 1)
        keep_pos = DTYPE(prev ** self.alpha / (prev ** self.alpha + 1.0))
        keep_neg = DTYPE(0.0 if prev == 0 and self.beta < 0 else prev ** self.beta / (prev ** self.beta + 1.0))
        # the average weighs iteration t by t^gamma: the same as discounting the sum by (t-1 / t)^gamma each time
        weight = DTYPE(float(t) ** self.gamma)
        ws = self.ws
        for p in (0, 1):
            o = 1 - p
            forward(ws, self.sigma, o, self.roots[o], chance=True, tag=(id(self), o, self.version[o]))
            # The own reach (for the average) is the one the other half-iteration computed as the opponent's,
            # unless something else used the buffer since; its chance factor is the same at every iteration
            # of an information set, so it cancels in the average.
            if ws.reach_tag[p] != (id(self), p, self.version[p]):
                forward(ws, self.sigma, p, self.roots[p], chance=True, tag=(id(self), p, self.version[p]))
            backward(ws, self.sigma, p, CURRENT)
            for g, lay in enumerate(ws.layouts):
                own = ws.reach_buf[p][g]
                v = ws.value_buf[p][g]
                for k, lv in enumerate(lay.levels):
                    if lv.owner != p:
                        continue
                    sigma = self.sigma[g][k]
                    ssum = self.strategy_sum[g][k]
                    regrets = self.regrets[g][k]
                    # r * keep_neg + max(r, 0) * (keep_pos - keep_neg): both discounts in four plain passes
                    gain = np.maximum(regrets, 0, out=self.scratch[g][k])
                    gain *= keep_pos - keep_neg
                    regrets *= keep_neg
                    regrets += gain
                    regrets += v[lv.children]
                    # per parent (a third of the edges): its reach times the weight, and its value
                    held = own[lv.parents]
                    held *= weight
                    here = v[lv.parents]
                    for j, n in enumerate(lv.counts):
                        rows = lv.slot_rows[j]
                        np.multiply(held[:n], sigma[rows], out=gain[rows])
                        ssum[rows] += gain[rows]
                        regrets[rows] -= here[:n]
                    # the new strategy overwrites the old one, which nothing needs any more
                    regret_matching(regrets, lv, out=sigma)
            self.version[p] += 1
            if self.gadget is not None:
                self.gadget(self, p, ws.value_buf[p][0][0])

    def average_levels(self) -> LevelArrays:
        """The average strategy per level."""
        return [[regret_matching(s, lv) for s, lv in zip(sums, lay.levels)]
                for sums, lay in zip(self.strategy_sum, self.ws.layouts)]

    def average(self) -> list[np.ndarray | None]:
        """The average strategy per decision node (A, B, H); None elsewhere."""
        return by_node(self.ws, self.average_levels())
