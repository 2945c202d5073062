"""The holdings each player may have in a subgame, and what the boards do to them: blocking and showdown order.

Each player's holdings are the rows of ``acpcbot.holdings`` with a positive
range weight that the root board does not block; the solver's arrays run
over these compressed lists (167 and 250 on the turn spot, not 1,326).  Per
board group: which holdings the board blocks, and, on complete boards, each
holding's showdown value (higher is better), from the evaluator's batch
ranks for hold'em and from the game's own ranking otherwise (Leduc, Kuhn).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...evaluator.pairs import pair_ranks
from ...gamedef import GameDef
from ...holdings import holdings
from .tree import SubgameError, SubgameTree


@dataclass
class PlayerHands:
    """One player's live holdings: rows into ``holdings(game)``, their cards, and their range weights."""

    rows: np.ndarray  # (H,) int64
    cards: np.ndarray  # (H, k) int64
    weights: np.ndarray  # (H,) float64
    member: np.ndarray  # (H, 52) float32: holding holds card


def player_hands(game: GameDef, range_: np.ndarray, board: tuple[int, ...], who: str) -> PlayerHands:
    """The holdings of one range that can be live on ``board``: positive weight, no card on the board."""
    table = holdings(game)
    r = np.asarray(range_, dtype=np.float64)
    if r.shape != (len(table),):
        raise SubgameError(f"{who}'s range must have one weight per holding ({len(table)}), got shape {r.shape}")
    if not np.all(np.isfinite(r)) or (r < 0).any():
        raise SubgameError(f"{who}'s range has a negative or non-finite weight")
    live = r > 0
    if board:
        live &= ~np.isin(table, np.array(board)).any(axis=1)
    rows = np.flatnonzero(live)
    if not len(rows):
        raise SubgameError(f"{who}'s range has no holding left on this board")
    cards = table[rows]
    member = np.zeros((len(rows), 52), dtype=np.float32)
    member[np.repeat(np.arange(len(rows)), cards.shape[1]), cards.ravel()] = 1.0
    return PlayerHands(rows, cards, r[rows], member)


def board_masks(tree: SubgameTree, hands: PlayerHands) -> list[np.ndarray]:
    """Per board group, a (B, H) float32 array: 1 where the board leaves the holding live."""
    out = []
    for group in tree.groups:
        boards = group.boards
        if boards.shape[1] == 0:
            out.append(np.ones((1, len(hands.rows)), dtype=np.float32))
            continue
        if group.members is not None:  # a class of cards: live while one of its cards is not the holding's
            free = group.members.sum(axis=1)[None, :] - hands.member @ group.members.T  # (H, B)
            blocked_root = hands.member[:, boards[:, :-1]].sum(axis=2)  # the board before the class's card
            out.append(((free.T > 0) & (blocked_root.T == 0)).astype(np.float32))
            continue
        blocked = hands.member[:, boards].sum(axis=2)  # (H, B): cards of the holding on each board
        out.append((blocked.T == 0).astype(np.float32))
    return out


def showdown_values(game: GameDef, boards: np.ndarray, hands: PlayerHands) -> np.ndarray:
    """(B, H) int64 showdown values of each holding on each complete board (higher wins; arbitrary where blocked).

    Hold'em uses the evaluator's batch ranks of all 1,326 pairs per board;
    other games call the game's ranking once per holding and board (their
    decks are tiny).
    """
    k = hands.cards.shape[1]
    if game.ranking is None and k == 2 and boards.shape[1] == 5 and game.deck_size == 52:
        ranks = pair_ranks(boards)  # (B, 1326), treys: lower is better, 0 where blocked
        return -ranks[:, hands.rows].astype(np.int64)
    rank = game.ranking_for_showdown
    out = np.zeros((len(boards), len(hands.rows)), dtype=np.int64)
    for b, board in enumerate(boards.tolist()):
        for h, cards in enumerate(hands.cards.tolist()):
            if not set(cards) & set(board):
                out[b, h] = rank(tuple(cards) + tuple(board))
    return out


def same_holding(a: PlayerHands, b: PlayerHands) -> np.ndarray:
    """For each holding of ``a``, the index of the identical holding in ``b``, or ``len(b.rows)`` (a zero column)."""
    where = {int(r): i for i, r in enumerate(b.rows)}
    return np.array([where.get(int(r), len(b.rows)) for r in a.rows], dtype=np.int64)


def disjoint(a: PlayerHands, b: PlayerHands) -> np.ndarray:
    """(Ha, Hb) float32: 1 where the two holdings share no card."""
    return (a.member @ b.member.T == 0).astype(np.float32)
