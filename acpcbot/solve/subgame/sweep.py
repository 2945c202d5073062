"""Showdown values by a rank-sorted sweep: prefix sums over the opponent's reach in hand-strength order.

For an own holding h of rank r on a board, its showdown value against the
opponent's reach is the weight of the opponent holdings it beats less the
weight of those that beat it, counting only holdings that share no card
with it.  Sorted by rank, "beats" and "is beaten by" are a prefix and a
suffix: W(r) - L(r) = P(lo) + P(hi) - total, with P the prefix sums, lo the
opponent holdings ranked below r and hi those ranked at most r (ties sit in
neither).  Card removal is the same sum restricted to the opponent holdings
that hold each of h's cards (inclusion-exclusion), subtracted; a holding
that shares both cards is h itself, which ties, so nothing is counted twice.

Per board everything is index arithmetic fixed at preparation: one row of
``3 x opponent holdings + 53`` entries, the opponent's reach gathered into
rank order (a "main" segment) and into one segment per card (the holdings
holding that card, by rank), each segment led by a pad entry whose own
value cancels; one cumulative sum of the row; then per own holding six
gathers of the prefix sums and two of the per-segment sums.  The work is
linear in the holdings (the win/lose matrix product is their product), in
a few numpy calls batched over the terminals and boards.
"""

from __future__ import annotations

import numpy as np

from .hands import PlayerHands
from .tree import SubgameError

#: cards a segment per board is kept for (hold'em's deck; smaller decks use the first cards)
CARDS = 52
# The cost model ``sweep_pays`` decides by, fitted to one board's showdowns on this machine (BLAS one thread,
# 2026-11-30; hold'em river boards, 150 to 1,081 holdings a side, 9 and 20 terminals): the sweep costs a fixed
# overhead a call plus, per terminal, about 15.5 ns per opponent holding (its gathers and cumulative sum over three
# entries each) and 4.1 ns per own holding (eight gathers); the product costs each (own, opponent) pair about
# 450 / T ps at T terminals (a thin product runs below BLAS's speed), 20 ps at best.
SWEEP_CALL_US = 15.0
SWEEP_OPP_NS = 15.5
SWEEP_OWN_NS = 4.1
PAIR_PS_THIN = 450.0
PAIR_PS_BEST = 20.0


def sweep_pays(own: int, opp: int, terminals: int, boards: int) -> bool:
    """Whether the sweep is the faster evaluator for a group of ``terminals`` showdowns on ``boards`` boards.

    Only single boards: at 48 boards (a turn subgame's rivers) the sweep
    measured 2.5x (700 x 700 holdings) to 9x (150 x 250) slower than the
    product, its arrays (about 3 x opponent + 8 x own entries per terminal
    and board) no longer held in cache while the product runs at BLAS's
    best speed.
    """
    if boards != 1 or terminals < 1:
        return False
    sweep_us = SWEEP_CALL_US + terminals * (SWEEP_OPP_NS * opp + SWEEP_OWN_NS * own) / 1e3
    product_us = terminals * own * opp * max(PAIR_PS_BEST, PAIR_PS_THIN / terminals) / 1e6
    return sweep_us < product_us


def _board_indices(ranks_own: np.ndarray, ranks_opp: np.ndarray, live: np.ndarray, own_cards: np.ndarray,
                   opp_cards: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One board's row layout: (entry's opponent holding (width,), own gathers (2 + 2k, Hi), segment pads, ends).

    The row: pad, the live opponent holdings by rank (the main segment),
    then per card a pad and the live holdings holding it, by rank.  An own
    holding of rank r reads the prefix sums after the segment's entries
    ranked below r (lo) and at most r (hi): of the main segment, then of
    each of its cards' segments.  Pads and the unused tail read holding 0:
    a pad's value cancels (every sum is a difference from it), the tail is
    never read.
    """
    k = own_cards.shape[1]
    n = len(live)
    # ranks made dense over both players' so that (card, rank) packs into one sortable key
    dense = np.unique(np.concatenate([ranks_opp[live], ranks_own]), return_inverse=True)[1]
    opp_rank, own_rank = dense[:n], dense[n:]
    span = n + len(own_rank) + 1
    take = np.zeros(width, dtype=np.int64)
    order = np.argsort(opp_rank, kind="stable")
    take[1:n + 1] = live[order]
    # every (card, live holding) pair, by card then rank
    entry_card = opp_cards[live].ravel()
    entry_hold = np.repeat(np.arange(n), k)
    keys = entry_card * span + opp_rank[entry_hold]
    by = np.argsort(keys, kind="stable")
    keys, entry_card, entry_hold = keys[by], entry_card[by], entry_hold[by]
    counts = np.bincount(entry_card, minlength=CARDS)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])  # each card's first entry among the sorted pairs
    pads = n + 1 + start + np.arange(CARDS)  # each card segment's pad in the row
    take[pads[entry_card] + 1 + np.arange(len(keys)) - start[entry_card]] = live[entry_hold]
    gathers = np.zeros((2 + 2 * k, len(own_rank)), dtype=np.int64)
    sorted_ranks = opp_rank[order]
    gathers[0] = np.searchsorted(sorted_ranks, own_rank, side="left")
    gathers[1] = np.searchsorted(sorted_ranks, own_rank, side="right")
    for j in range(k):
        c = own_cards[:, j]
        q = c * span + own_rank  # within card c's segment: the entries ranked below (at most) the own rank
        gathers[2 + 2 * j] = pads[c] + np.searchsorted(keys, q, side="left") - start[c]
        gathers[3 + 2 * j] = pads[c] + np.searchsorted(keys, q, side="right") - start[c]
    return take, gathers, np.concatenate([[0], pads]), np.concatenate([[n], pads + counts])


class ShowdownSweep:
    """(T, B, Ho) opponent reach at showdowns -> (T, B, Hi) own win-less-lose weight, as ``showdown_matrix`` gives."""

    def __init__(self, values_own: np.ndarray, values_opp: np.ndarray, mask_own: np.ndarray, mask_opp: np.ndarray,
                 own: PlayerHands, opp: PlayerHands) -> None:
        k = own.cards.shape[1]
        if k not in (1, 2) or opp.cards.shape[1] != k:
            raise SubgameError(f"the sweep's card removal needs one or two hole cards, the game has {k}")
        boards, hi = values_own.shape
        ho = values_opp.shape[1]
        self.shape = (boards, hi, ho)
        live_opp = [np.flatnonzero(mask_opp[b] > 0) for b in range(boards)]
        # a row per board: the main segment (pad + live holdings), a segment (pad + holdings) per card
        self.width = width = (1 + k) * max(len(x) for x in live_opp) + 1 + CARDS
        layouts = [_board_indices(values_own[b], values_opp[b], live_opp[b], own.cards, opp.cards, width)
                   for b in range(boards)]
        # the row buffer: every board's entries, then every board's (CARDS + 1) segment sums (pad + end prefix)
        self.sums_at = boards * width
        rowpos = (np.arange(boards) * width)[:, None]  # (B, 1): where each board's entries start
        segpos = self.sums_at + np.arange(boards) * (CARDS + 1)  # (B,): where each board's segment sums start
        self.take = (np.stack([x[0] for x in layouts]) + (np.arange(boards) * ho)[:, None]).ravel()
        prefix = np.stack([x[1] for x in layouts], axis=1) + rowpos  # (2 + 2k, B, Hi)
        # per own holding, added: the main segment's prefix sums at lo and hi and its cards' segment sums;
        # subtracted: each card's segment prefix sums at lo and hi (the main segment's sums: one per board)
        card_sums = segpos[None, :, None] + 1 + own.cards.T[:, None, :]  # (k, B, Hi)
        gather = np.concatenate([prefix[:2], card_sums, prefix[2:]])
        self.gather = gather.reshape(len(gather), boards * hi)
        self.sign = np.array([1.0] * (2 + k) + [-1.0] * (2 * k))[None, :]
        self.seg_pad = (np.stack([x[2] for x in layouts]) + rowpos).ravel()
        self.seg_end = (np.stack([x[3] for x in layouts]) + rowpos).ravel()
        self.main_sums = segpos - self.sums_at  # each board's main segment sums, within the sums part
        blocked = mask_own <= 0
        self.own_mask = (~blocked).astype(np.float32) if blocked.any() else None
        self._buffers: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, reach: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """(T, B, Ho) opponent reach -> (T, B, Hi): weight of the holdings each own holding beats less those beating it.

        ``out``: a contiguous (T, B, Hi) array to write into (a new one when None).
        """
        boards, hi, ho = self.shape
        t = reach.shape[0]
        bufs = self._buffers.get(t)
        if bufs is None:  # kept per batch size: a fresh array every call pays its page faults again
            bufs = self._buffers[t] = (np.empty((t, self.sums_at), dtype=np.float32),
                                       np.empty((t, self.sums_at + boards * (CARDS + 1)), dtype=np.float64))
        entries, row = bufs
        np.take(reach.reshape(t, boards * ho), self.take, axis=1, out=entries)
        # summed in float64: a float32 running sum over ~3 x Ho entries drifts ~10x further than the product
        np.cumsum(entries.reshape(t, boards, self.width), axis=2, dtype=np.float64,
                  out=row[:, :self.sums_at].reshape(t, boards, self.width))
        sums = row[:, self.sums_at:]
        np.add(np.take(row, self.seg_pad, axis=1), np.take(row, self.seg_end, axis=1), out=sums)
        parts = np.take(row, self.gather, axis=1)  # (t, 2 + 3k, B * Hi)
        # the signed sum of the parts as one thin product: a loop of adds measured 4x slower
        res = np.matmul(self.sign, parts).reshape(t, boards, hi)
        res -= sums[:, self.main_sums][:, :, None]
        if out is None:
            out = np.empty((t, boards, hi), dtype=np.float32)
        out[...] = res
        if self.own_mask is not None:
            out *= self.own_mask
        return out
