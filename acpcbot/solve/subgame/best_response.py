"""Exact best response inside a subgame, and its exploitability in the peer's convention.

A player's best-response value is the best action at every one of its
information sets (node, board, holding) against the other's fixed strategy,
averaged over the joint deal of the two ranges (pairs sharing a card
excluded).  Exploitability is half the sum of both players' best-response
values (chips, zero-sum hand payoffs), i.e. the mean of their gains over the
strategy's own value; ``SOLVER_SPOTS.md`` quotes it in % of the starting pot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .passes import BEST, CURRENT, LevelArrays, Workspace, backward, forward, root_values
from .prepared import DTYPE


@dataclass(frozen=True)
class Evaluation:
    """Per player: best-response and on-strategy values (chips a hand) and root counterfactual values."""

    best: tuple[float, float]
    value: tuple[float, float] | None
    best_cfv: tuple[np.ndarray, np.ndarray]
    cfv: tuple[np.ndarray, np.ndarray] | None

    @property
    def exploitability(self) -> float:
        """Half the sum of the two best-response values, in chips a hand."""
        return 0.5 * (self.best[0] + self.best[1])


def evaluate(ws: Workspace, sigma: LevelArrays, with_values: bool = True,
             known: Evaluation | None = None) -> Evaluation:
    """Best responses to ``sigma`` (per level) for both players, and the strategy's own values when ``with_values``.

    ``known``: an evaluation of this same ``sigma`` whose best responses are
    reused (only the strategy's own values are computed).
    """
    prep = ws.prep
    best, value, best_cfv, cfv = [], [], [], []
    for p in (0, 1):
        o = 1 - p
        forward(ws, sigma, o, prep.hands[o].weights.astype(DTYPE)[None, :], chance=True)
        w = prep.hands[p].weights
        if known is None:
            backward(ws, sigma, p, BEST)
            br = root_values(ws, p)
        else:
            br = known.best_cfv[p]
        best_cfv.append(br)
        best.append(float(w @ br) / prep.normaliser)
        if with_values:
            backward(ws, sigma, p, CURRENT)
            ev = root_values(ws, p)
            cfv.append(ev)
            value.append(float(w @ ev) / prep.normaliser)
    return Evaluation((best[0], best[1]), (value[0], value[1]) if with_values else None,
                      (best_cfv[0], best_cfv[1]), (cfv[0], cfv[1]) if with_values else None)
