"""Opponent ranges: a weight per possible hole pair (1326), narrowed by visible cards and observed actions.

A :class:`HandRange` starts with every pair at weight 1.  Cards that become
visible (our hole cards, the board, another player's shown cards) zero the
pairs holding them; each observed action multiplies every pair's weight by
the probability a model of the player gives that action with that pair
(``observe``).  The same model's chance of the action *before* the update,
``expect(likelihood)``, is the mixture over the range: the likelihood of the
action given everything seen so far in the hand, which is what a Bayesian
posterior over models needs.

Pairs are indexed as in ``evaluator.PAIRS`` (so ``evaluator.pair_index``,
``pair_ranks`` and the equity functions take these weights directly).
Weights are relative: they are rescaled when they shrink towards the
floating point floor, which changes no ratio.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..evaluator import NUM_PAIRS, PAIR_INDEX

_RESCALE_BELOW = 1e-200  # rescale before products of small probabilities underflow


class HandRange:
    """A weight per possible hole pair of one player (1326 weights, ``evaluator.PAIRS`` order)."""

    __slots__ = ("weights",)

    def __init__(self, weights: np.ndarray | None = None) -> None:
        if weights is None:
            self.weights = np.ones(NUM_PAIRS)
        else:
            w = np.array(weights, dtype=np.float64)
            if w.shape != (NUM_PAIRS,) or not np.isfinite(w).all() or (w < 0).any():
                raise ValueError(f"HandRange: expected {NUM_PAIRS} finite weights >= 0, got shape {w.shape}")
            self.weights = w

    def __repr__(self) -> str:
        return f"HandRange(live={self.live}, total={self.total:.4g})"

    def copy(self) -> "HandRange":
        """An independent copy."""
        return HandRange(self.weights)

    def reset(self, dead: Iterable[int] = ()) -> None:
        """Every pair back to weight 1, then the pairs holding a ``dead`` card to 0."""
        self.weights.fill(1.0)
        self.remove_cards(dead)

    def remove_cards(self, cards: Iterable[int]) -> None:
        """Zero every pair that holds one of ``cards`` (visible cards no opponent can hold)."""
        cs = [int(c) for c in cards]
        if not cs:
            return
        if min(cs) < 0 or max(cs) > 51:
            raise ValueError(f"HandRange.remove_cards: cards must be ints 0..51, got {cs}")
        rows = PAIR_INDEX[cs]  # (k, 52): the pairs holding each card (-1 for the card with itself)
        self.weights[rows[rows >= 0]] = 0.0

    @property
    def total(self) -> float:
        """Sum of the weights."""
        return float(self.weights.sum())

    @property
    def live(self) -> int:
        """Pairs with a positive weight."""
        return int(np.count_nonzero(self.weights))

    def probabilities(self) -> np.ndarray:
        """The weights normalised to sum 1 (all zeros when no pair is left)."""
        total = self.weights.sum()
        return self.weights / total if total > 0 else np.zeros(NUM_PAIRS)

    def expect(self, values: np.ndarray) -> float:
        """Range-weighted mean of a per-pair quantity (e.g. a model's chance of an action): Σ w·v / Σ w.

        0.0 when no pair has weight left.
        """
        total = self.weights.sum()
        if total <= 0:
            return 0.0
        return float(np.dot(self.weights, values) / total)

    def observe(self, likelihood: np.ndarray) -> bool:
        """Multiply each pair's weight by the chance of an observed action with that pair.

        An action the model gives chance 0 with every pair left would empty
        the range; it is then ignored (the range is kept, False returned),
        since the model is wrong about this player rather than the cards
        impossible.  Returns True when the update was applied.
        """
        new = self.weights * likelihood
        top = new.max()
        if not top > 0:
            return False
        if top < _RESCALE_BELOW:
            new /= top
        self.weights = new
        return True

    def pair_weight(self, c1: int, c2: int) -> float:
        """The weight of the pair {c1, c2}."""
        i = int(PAIR_INDEX[c1, c2])
        if i < 0:
            raise ValueError(f"HandRange.pair_weight: {c1} and {c2} are the same card")
        return float(self.weights[i])
