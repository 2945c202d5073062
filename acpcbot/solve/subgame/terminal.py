"""Terminal values over whole ranges: folds with card removal in O(n), showdowns per board by a win/lose matrix.

Both take the opponent's reach (boards x opponent holdings, several
terminals stacked) and give, for every own holding, the opponent weight it
meets: at a fold all opponent holdings that share no card with it
(inclusion-exclusion over cards: all, less those holding either of its
cards, plus the identical holding counted twice), at a showdown those it
beats less those that beat it.  Multiply by the terminal's payoff to get
counterfactual values.

Showdown: a dense (boards, own, opp) matrix of +1/-1/0 with blocked pairs
zeroed, applied to every showdown terminal of a board group in one batched
matrix product.  The alternative, a rank-sorted sweep with per-card
cumulative sums, is O(n) per terminal but needs about ten gathers and
cumulative sums per terminal in numpy; at a few hundred holdings a side the
product (read once per board for all terminals, single-threaded BLAS)
measured faster here, see docs/resolving.md.
"""

from __future__ import annotations

import numpy as np

from .hands import PlayerHands, disjoint, same_holding
from .tree import SubgameError


class FoldSums:
    """Opponent weight disjoint from each own holding, by inclusion-exclusion over the 52 cards."""

    def __init__(self, own: PlayerHands, opp: PlayerHands) -> None:
        k = own.cards.shape[1]
        if k not in (1, 2):
            raise SubgameError(f"fold values need one or two hole cards, the game has {k}")
        self.k = k
        self.opp_member = opp.member  # (Ho, 52)
        self.c0 = own.cards[:, 0]
        self.c1 = own.cards[:, 1] if k == 2 else None
        self.same = same_holding(own, opp)
        self.num_opp = len(opp.rows)

    def __call__(self, reach: np.ndarray) -> np.ndarray:
        """(..., Ho) opponent reach -> (..., Hi) the part of it that shares no card with each own holding."""
        total = reach.sum(axis=-1, keepdims=True)
        per_card = reach @ self.opp_member
        out = total - per_card[..., self.c0]
        if self.k == 2:
            out -= per_card[..., self.c1]
            padded = np.concatenate([reach, np.zeros(reach.shape[:-1] + (1,), dtype=reach.dtype)], axis=-1)
            out += padded[..., self.same]
        return out


def showdown_matrix(values_own: np.ndarray, values_opp: np.ndarray, mask_own: np.ndarray, mask_opp: np.ndarray,
                    own: PlayerHands, opp: PlayerHands, dtype: type = np.float32) -> np.ndarray:
    """(B, Hi, Ho): +1 where the own holding wins on board b, -1 where it loses, 0 on ties, shared cards or blocked."""
    sign = np.sign(values_own[:, :, None] - values_opp[:, None, :]).astype(dtype)
    sign *= disjoint(own, opp)[None].astype(dtype)
    sign *= mask_own[:, :, None].astype(dtype)
    sign *= mask_opp[:, None, :].astype(dtype)
    return sign

