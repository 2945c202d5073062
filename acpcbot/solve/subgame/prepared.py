"""Everything a subgame's passes reuse, computed once: the tree, both players' live holdings, masks and matrices.

Per board group: each player's (B, H) live mask and the chance weight of
one deal (1 / the deals left to a pair of holdings, the same for every
pair since each holds the same number of cards).  Per complete-board group
with showdowns: the win/lose matrix of player 0, (boards, own, opponent),
in the two layouts the batched products need (player 1's is its negated
transpose), or, where the ranges are wide, a rank-sorted sweep per player
(``sweep``: no matrix at all).  Terminals are listed by group so that a pass evaluates all
of a group's showdowns in one product.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np

from .hands import PlayerHands, board_masks, disjoint, showdown_values
from .leaves import equity_matrix
from .sweep import ShowdownSweep, sweep_pays
from .terminal import FoldSums, class_counts, class_showdown_matrix, showdown_matrix
from .tree import CHANCE, DECISION, FOLD_END, SHOWDOWN, SubgameError, SubgameTree

DTYPE = np.float32

#: how a complete-board group's showdowns are valued: "auto" (the sweep where ``sweep_pays``), "matrix" or "sweep"
SHOWDOWN_MODES = ("auto", "matrix", "sweep")


@dataclass
class Prepared:
    """A subgame ready for CFR: tree, holdings, masks, chance weights, terminal evaluators."""

    tree: SubgameTree
    hands: tuple[PlayerHands, PlayerHands]
    masks: tuple[list[np.ndarray], list[np.ndarray]]
    chance_weight: list[float]
    fold_sums: tuple[FoldSums, FoldSums]
    #: per group: what player 0's and player 1's values multiply the opponent reach by: m0^T and m0 (negate for 1)
    showdown: dict[int, tuple[np.ndarray, np.ndarray]]
    folds_by_group: dict[int, list[int]] = field(default_factory=dict)
    showdowns_by_group: dict[int, list[int]] = field(default_factory=dict)
    decisions: tuple[list[int], list[int]] = ((), ())  # type: ignore[assignment]
    normaliser: float = 1.0  # sum of w0(h) w1(h') over pairs of holdings sharing no card
    #: per class group (``chance``): its classes' sizes (B, 1) and per player how many of each class's cards each
    #: holding holds (B, H): a fold there weighs a pair by the class's cards neither holds
    class_fold: dict[int, tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    #: per group valued by the rank-sorted sweep instead of a matrix (not in ``showdown``): player 0's and 1's
    showdown_sweep: dict[int, tuple[ShowdownSweep, ShowdownSweep]] = field(default_factory=dict)

    def shape(self, node: int, player: int) -> tuple[int, int]:
        """(boards, holdings) of ``player``'s arrays at ``node``."""
        return len(self.tree.groups[self.tree.nodes[node].group].boards), len(self.hands[player].rows)


def prepare(tree: SubgameTree, hands: tuple[PlayerHands, PlayerHands], showdown_mode: str = "auto") -> Prepared:
    """Masks, chance weights, fold evaluators and showdown evaluators for ``tree`` and the two players' holdings.

    ``showdown_mode``: one of ``SHOWDOWN_MODES``; class groups and depth-limited leaves always take the matrix.
    """
    if showdown_mode not in SHOWDOWN_MODES:
        raise SubgameError(f"showdown mode must be one of {', '.join(SHOWDOWN_MODES)}, got {showdown_mode!r}")
    game = tree.game
    masks = (board_masks(tree, hands[0]), board_masks(tree, hands[1]))
    weights = []
    k = game.num_hole_cards
    for group in tree.groups:
        if group.parent < 0:
            weights.append(1.0)
            continue
        have = tree.groups[group.parent].boards.shape[1]
        dealt = group.boards.shape[1] - have
        left = game.deck_size - have - 2 * k
        weights.append(1.0 / comb(left, dealt))
    folds: dict[int, list[int]] = {}
    shows: dict[int, list[int]] = {}
    decisions: tuple[list[int], list[int]] = ([], [])
    for i, node in enumerate(tree.nodes):
        if node.kind == FOLD_END:
            folds.setdefault(node.group, []).append(i)
        elif node.kind == SHOWDOWN:
            shows.setdefault(node.group, []).append(i)
        elif node.kind == DECISION:
            decisions[node.player].append(i)
    showdown = {}
    sweeps = {}
    for g in shows:
        group = tree.groups[g]
        if tree.depth_limited:  # the leaves: the rest of the board checked down (the root's is the only group)
            m0 = equity_matrix(game, tuple(int(c) for c in group.boards[0]), hands[0], hands[1], dtype=DTYPE)
        elif group.members is not None:
            m0 = class_showdown_matrix(game, group, hands[0], hands[1], DTYPE)
        else:
            v0 = showdown_values(game, group.boards, hands[0])
            v1 = showdown_values(game, group.boards, hands[1])
            if k in (1, 2) and (showdown_mode == "sweep" or (showdown_mode == "auto" and sweep_pays(
                    len(hands[0].rows), len(hands[1].rows), len(shows[g]), len(group.boards)))):
                sweeps[g] = (ShowdownSweep(v0, v1, masks[0][g], masks[1][g], hands[0], hands[1]),
                             ShowdownSweep(v1, v0, masks[1][g], masks[0][g], hands[1], hands[0]))
                continue
            m0 = showdown_matrix(v0, v1, masks[0][g], masks[1][g], hands[0], hands[1], DTYPE)
        # player 1's matrix is -m0 transposed: keep m0 in both layouts the products need, no negated copy;
        # both contiguous, as a product by a strided matrix measured a third slower
        showdown[g] = (np.ascontiguousarray(m0.transpose(0, 2, 1)), np.ascontiguousarray(m0))
    class_fold = {g: (group.members.sum(axis=1)[:, None].astype(DTYPE), (class_counts(group, hands[0]),
                                                                          class_counts(group, hands[1])))
                  for g, group in enumerate(tree.groups) if group.members is not None and g in folds}
    norm = float(hands[0].weights @ disjoint(hands[0], hands[1]).astype(np.float64) @ hands[1].weights)
    assert all(n.kind in (DECISION, FOLD_END, SHOWDOWN, CHANCE) for n in tree.nodes)
    return Prepared(tree, hands, masks, weights, (FoldSums(hands[0], hands[1]), FoldSums(hands[1], hands[0])),
                    showdown, folds, shows, decisions, norm, class_fold, sweeps)
