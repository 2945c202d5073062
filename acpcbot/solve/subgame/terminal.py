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
cumulative sums (``sweep``), is linear in the holdings but costs about a
hundred times a multiply-add per holding in numpy: it is faster only on a
single board with wide ranges (about 550 holdings a side and more at a
river's 9 terminals; ``sweep.sweep_pays``), and is used there.
"""

from __future__ import annotations

import numpy as np

from ...gamedef import GameDef
from .hands import PlayerHands, disjoint, same_holding, showdown_values
from .tree import BoardGroup, SubgameError

#: the dense product is as fast as the per-card sums up to about this many own x opponent holdings per (own + opponent)
DENSE_FOLD_RATIO = 150


class FoldSums:
    """Opponent weight disjoint from each own holding: inclusion-exclusion over the 52 cards, or one dense product.

    Inclusion-exclusion: for a holding {a, b}, all the opponent's weight,
    less the weight of its holdings that hold a, less those that hold b,
    plus the identical holding (subtracted twice).  The per-card sums are
    one thin product (opponent holdings x 52), read back per own holding by
    two gathers: linear in the holdings.  One dense product by the
    (opponent x own) no-shared-card matrix does more arithmetic but at
    BLAS's full speed; the two measured level at 167 x 250 holdings (the
    turn spot, 11 ms a pass each) and at 300 x 300, the per-card form 1.4x
    and 2.4x faster at 250 x 500 and 400 x 600 (2026-11-28), so ``mode``
    "auto" picks the dense form while own x opponent <= ``DENSE_FOLD_RATIO``
    x (own + opponent).
    """

    def __init__(self, own: PlayerHands, opp: PlayerHands, mode: str = "auto") -> None:
        k = own.cards.shape[1]
        if k not in (1, 2):
            raise SubgameError(f"fold values need one or two hole cards, the game has {k}")
        if mode not in ("auto", "dense", "cards"):
            raise SubgameError(f"fold mode must be auto, dense or cards, got {mode!r}")
        hi, ho = len(own.rows), len(opp.rows)
        self.dense = mode == "dense" or (mode == "auto" and hi * ho <= DENSE_FOLD_RATIO * (hi + ho))
        if self.dense:
            self.matrix = np.ascontiguousarray((opp.member @ own.member.T == 0).astype(own.member.dtype))
            return
        self.opp_member = np.ascontiguousarray(opp.member)  # (Ho, 52)
        self.own_cards = [np.ascontiguousarray(own.cards[:, i]) for i in range(k)]  # each (Hi,): a card of each holding
        same = same_holding(own, opp)
        keep = same < len(opp.rows)
        # one hole card: the identical holding shares its only card and is subtracted once, as it should be
        self.same_own = np.flatnonzero(keep) if k == 2 else np.zeros(0, dtype=np.int64)
        self.same_opp = same[keep] if k == 2 else np.zeros(0, dtype=np.int64)

    def __call__(self, reach: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """(..., Ho) opponent reach -> (..., Hi) the part of it that shares no card with each own holding.

        ``out``: a contiguous (..., Hi) array the dense form writes into (the per-card form makes a new one).
        """
        lead = reach.shape[:-1]
        flat = reach.reshape(-1, reach.shape[-1])
        if self.dense:
            if out is not None:
                return np.matmul(flat, self.matrix, out=out.reshape(flat.shape[0], -1)).reshape(out.shape)
            out = flat @ self.matrix
        else:
            # the per-card sums back per holding by two gathers: a thin (52 x own) product measured slower
            per_card = flat @ self.opp_member
            out = np.take(per_card, self.own_cards[0], axis=1)
            for cards in self.own_cards[1:]:
                out += np.take(per_card, cards, axis=1)
            np.subtract(flat.sum(axis=1, keepdims=True), out, out=out)
            if len(self.same_own):
                out[:, self.same_own] += flat[:, self.same_opp]
        return out.reshape(lead + (out.shape[-1],))


def showdown_matrix(values_own: np.ndarray, values_opp: np.ndarray, mask_own: np.ndarray, mask_opp: np.ndarray,
                    own: PlayerHands, opp: PlayerHands, dtype: type = np.float32) -> np.ndarray:
    """(B, Hi, Ho): +1 where the own holding wins on board b, -1 where it loses, 0 on ties, shared cards or blocked."""
    sign = np.sign(values_own[:, :, None] - values_opp[:, None, :]).astype(dtype)
    sign *= disjoint(own, opp)[None].astype(dtype)
    sign *= mask_own[:, :, None].astype(dtype)
    sign *= mask_opp[:, None, :].astype(dtype)
    return sign



def class_showdown_matrix(game: GameDef, group: BoardGroup, own: PlayerHands, opp: PlayerHands,
                          dtype: type = np.float32) -> np.ndarray:
    """(B, Hi, Ho) for a class group (``chance``): per class, the sum over its cards of the win/lose matrix on the
    board that card completes, each card leaving out the holdings that hold it (so values are exact for a strategy
    that plays the class as one board).

    Summed in int8 (a class has at most 52 cards): two comparisons and two adds a card, 5x faster than the float
    form measured on 1,092 x 1,128 holdings.
    """
    assert group.members is not None
    which, cards = np.nonzero(group.members)  # every (class, card) the class stands for
    full = np.concatenate([group.boards[which, :-1], cards[:, None]], axis=1)
    v = [showdown_values(game, full, hands) for hands in (own, opp)]
    top = max(int(np.abs(x).max(initial=0)) for x in v)
    kind = np.int16 if top < 2 ** 15 else np.int64
    v0, v1 = (x.astype(kind) for x in v)
    out: np.ndarray = np.zeros((len(group.boards), len(own.rows), len(opp.rows)), dtype=dtype)
    acc = np.zeros((len(own.rows), len(opp.rows)), dtype=np.int8)
    step = np.empty_like(acc)
    flag = step.view(bool)
    for b in range(len(group.boards)):
        acc[:] = 0
        for m in np.flatnonzero(which == b).tolist():
            held_own, held_opp = own.member[:, cards[m]] > 0, opp.member[:, cards[m]] > 0
            a, o = v0[m][:, None], v1[m][None, :]
            for compare, add in ((np.greater, np.add), (np.less, np.subtract)):
                compare(a, o, out=flag)
                step[held_own] = 0  # a holding that holds the card never meets it
                step[:, held_opp] = 0
                add(acc, step, out=acc)
        out[b] = acc
    out *= disjoint(own, opp)[None].astype(dtype)
    return out


def class_counts(group: BoardGroup, hands: PlayerHands) -> np.ndarray:
    """(B, H) float32: how many of each class's cards the holding holds (``chance``: its fold weight is the rest)."""
    assert group.members is not None
    return (group.members @ hands.member.T).astype(np.float32)
