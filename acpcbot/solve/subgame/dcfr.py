"""Discounted CFR (Brown & Sandholm, arXiv 1809.04040) over a prepared subgame, alternating updates.

Why DCFR and not CFR+: on poker subgames it reaches a given exploitability
in fewer iterations than CFR+ (the paper's figures, and the peer's choice),
and an iteration is the same cost.  Accumulated regrets are discounted each
iteration, positive ones by t^alpha / (t^alpha + 1), negative ones by
t^beta / (t^beta + 1); the average strategy weighs iteration t by
(t / (t + 1))^gamma on what came before.  Defaults are the peer's
(alpha 1.5, beta 0, gamma 3).  One iteration updates player 0, then player
1 against player 0's new strategy.  Nothing is random: runs are bit-exact.
"""

from __future__ import annotations

import numpy as np

from .passes import CURRENT, reach, values
from .prepared import DTYPE, Prepared


def regret_matching(regrets: np.ndarray) -> np.ndarray:
    """Strategy (A, B, H) proportional to positive regret; uniform where none is positive."""
    positive = np.maximum(regrets, 0)
    total = positive.sum(axis=0)
    num = regrets.shape[0]
    safe = np.where(total > 0, total, 1)
    out = positive / safe
    out[:, total <= 0] = 1.0 / num
    return out


def normalise(strategy_sum: np.ndarray) -> np.ndarray:
    """Accumulated strategy (A, B, H) as probabilities; uniform where nothing accumulated."""
    return regret_matching(strategy_sum)


class DCFR:
    """The iterations of a subgame: regrets, current and summed strategies per decision node."""

    def __init__(self, prep: Prepared, alpha: float = 1.5, beta: float = 0.0, gamma: float = 3.0) -> None:
        self.prep = prep
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.iteration = 0
        n = len(prep.tree.nodes)
        self.regrets: list[np.ndarray | None] = [None] * n
        self.strategy_sum: list[np.ndarray | None] = [None] * n
        self.sigma: list[np.ndarray | None] = [None] * n
        for p in (0, 1):
            for i in prep.decisions[p]:
                shape = (len(prep.tree.nodes[i].children),) + prep.shape(i, p)
                self.regrets[i] = np.zeros(shape, dtype=DTYPE)
                self.strategy_sum[i] = np.zeros(shape, dtype=DTYPE)
                self.sigma[i] = np.full(shape, 1.0 / shape[0], dtype=DTYPE)
        self.roots = tuple(prep.hands[p].weights.astype(DTYPE)[None, :] for p in (0, 1))
        #: safe re-solving's hook (acpcbot.solve.resolving): called as gadget(self, player, root values) after
        #: each player's update; it may replace ``self.roots`` (the opponent's reach into the subgame)
        self.gadget = None

    def step(self) -> None:
        """One iteration: player 0 updates, then player 1."""
        self.iteration += 1
        t = self.iteration
        prev = float(t - 1)
        keep_pos = prev ** self.alpha / (prev ** self.alpha + 1.0)
        keep_neg = prev ** self.beta / (prev ** self.beta + 1.0) if prev > 0 else 0.0
        keep_avg = (prev / t) ** self.gamma
        prep = self.prep
        nodes = prep.tree.nodes
        for p in (0, 1):
            opp_reach = reach(prep, self.sigma, 1 - p, self.roots[1 - p], chance=True)
            own_reach = reach(prep, self.sigma, p, self.roots[p], chance=False)
            vals = values(prep, p, opp_reach, self.sigma, CURRENT)
            for i in prep.decisions[p]:
                sigma = self.sigma[i]
                ssum = self.strategy_sum[i]
                ssum *= keep_avg
                ssum += own_reach[i] * sigma
                regrets = self.regrets[i]
                regrets *= np.where(regrets > 0, DTYPE(keep_pos), DTYPE(keep_neg))
                v = vals[i]
                for a, c in enumerate(nodes[i].children):
                    regrets[a] += vals[c] - v
                self.sigma[i] = regret_matching(regrets)
            if self.gadget is not None:
                self.gadget(self, p, vals[0])

    def average(self) -> list[np.ndarray | None]:
        """The average strategy per decision node (A, B, H); None elsewhere."""
        return [None if s is None else normalise(s) for s in self.strategy_sum]
