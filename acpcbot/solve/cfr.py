"""CFR+ and discounted CFR over the public tree, vectorised over hands, with alternating updates.

Arrays are (decision node, action column f/c/r, hand).  One iteration
updates the players in position order, each against the others' current
strategies; the average strategy is weighted by ``t`` (CFR+) or ``t**gamma``
(DCFR).  Nothing is random, so a run is reproducible to the bit.
"""

from __future__ import annotations

import numpy as np

from ..gamedef import GameDef
from .cfr_core import ALGORITHMS as ALGORITHMS, check_algorithm, normalise, regret_matching
from .tree import PublicTree, build_tree


class Solver:
    """Runs CFR+ (default) or DCFR on one game; ``average()`` is the approximate equilibrium."""

    def __init__(self, game_or_tree: GameDef | PublicTree, algorithm: str = "cfr+",
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0) -> None:
        check_algorithm(algorithm)
        self.tree = game_or_tree if isinstance(game_or_tree, PublicTree) else build_tree(game_or_tree)
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        tree = self.tree
        shape = (len(tree.dec_node), 3, tree.num_hands)
        self.iteration = 0
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        self.sigma = tree.uniform()
        self._instant = np.zeros(shape)

    def step(self) -> None:
        """One iteration: each player in turn updates against the others' current strategies."""
        self.iteration += 1
        t = self.iteration
        tree = self.tree
        weight = float(t) if self.algorithm == "cfr+" else float(t) ** self.gamma
        if self.algorithm == "dcfr":
            ta = float(t) ** self.alpha
            tb = float(t) ** self.beta
            keep_pos, keep_neg = ta / (ta + 1.0), tb / (tb + 1.0)
        for p in range(tree.num_players):
            own = tree.dec_of_player[p]
            if not len(own):
                continue
            reach = tree.reach(self.sigma)
            tree.backward(p, reach, self.sigma, regrets=self._instant)
            sigma = self.sigma[own]
            self.strategy_sum[own] += (weight * reach[tree.dec_node[own], p])[:, None, :] * sigma
            regrets = self.regrets[own] + self._instant[own]
            if self.algorithm == "cfr+":
                np.maximum(regrets, 0.0, out=regrets)
            else:
                regrets *= np.where(regrets > 0, keep_pos, keep_neg)
            self.regrets[own] = regrets
            self.sigma[own] = regret_matching(regrets, tree.dec_legal[own])

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        for _ in range(iterations):
            self.step()

    def average(self) -> np.ndarray:
        """The average strategy, (decision node, action, hand); uniform where never reached."""
        return normalise(self.strategy_sum, self.tree.dec_legal)
