"""The leaves of a depth-limited subgame: where its round's betting ends, the rest of the board checked down.

A subgame solved to the end of the hand pays, on the flop, 47 x 46 / 2
river boards under every betting line of the turn and river: minutes of
CPU here.  A depth-limited one (Brown, Sandholm & Amos, arXiv 1805.08195)
stops where its round's betting ends: each line that goes on to the next
street, and each all-in, is a leaf whose value is what the hand is worth
from there.  The estimate here is the simplest continuation both players
can play, checking it down: a pair of holdings splits the pot by its
expected showdown over the rest of the board, the *equity matrix*
``E[i, j] = mean over runouts of sign(value_i - value_j)`` (runouts that
hold a card of either holding left out, so the mean is per pair).  For an
all-in it is exact; for a line that goes on betting it leaves out what the
later streets' bets win and lose (a weak holding realises less than its
equity, a strong one more), which is why the next street is re-solved at
its start over the real card.

The runouts: every one when they are few (a turn's rivers), else a fixed
stratified sample: each next card with ``per_card`` draws of the cards
still to come after it (any of the others), chosen by a seed made of the
board, so a spot's matrix is the same in play and in a replay.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np

from ...cards import deck
from ...gamedef import GameDef
from .hands import PlayerHands, disjoint, showdown_values

#: runouts enumerated in full up to this many; past it each next card meets RIVERS_PER_CARD of the cards after it
MAX_RUNOUTS = 200
RIVERS_PER_CARD = 3


def runouts(game: GameDef, board: tuple[int, ...], per_card: int = RIVERS_PER_CARD,
            limit: int = MAX_RUNOUTS) -> np.ndarray:
    """(R, cards to come) the rest of the board: all of them up to ``limit``, else a seeded stratified sample."""
    need = game.total_board_cards - len(board)
    if need <= 0:
        return np.zeros((1, 0), dtype=np.int64)
    rest = [c for c in deck(game.num_ranks, game.num_suits) if c not in board]
    if need == 1 or math.comb(len(rest), need) <= limit:
        combos = list(itertools.combinations(rest, need))
        return np.array(combos, dtype=np.int64).reshape(len(combos), need)
    rng = random.Random(",".join(map(str, board)))
    out = []
    for first in rest:
        later = list(itertools.combinations([c for c in rest if c != first], need - 1))
        out += [(first,) + more for more in rng.sample(later, min(per_card, len(later)))]
    return np.array(out, dtype=np.int64).reshape(len(out), need)


def equity_matrix(game: GameDef, board: tuple[int, ...], own: PlayerHands, opp: PlayerHands,
                  cards: np.ndarray | None = None, dtype: type = np.float32) -> np.ndarray:
    """(1, Hi, Ho): each pair's mean showdown sign over the runouts (``cards``, default ``runouts``) that hold
    neither holding's cards; 0 for pairs sharing a card."""
    more = runouts(game, board) if cards is None else cards
    boards = np.concatenate([np.repeat(np.array([board], dtype=np.int64), len(more), axis=0), more], axis=1)
    # which runouts each holding can meet: none of its cards among the cards to come
    hits = [hands.member[:, more].sum(axis=2) == 0 for hands in (own, opp)]          # (H, R) bool
    # a holding a runout blocks has no value there (NaN): it compares neither greater nor less, so it adds nothing
    # and needs no mask (3x faster than masking each runout's rows and columns, the same matrix)
    v = [np.where(hit.T, showdown_values(game, boards, hands).astype(np.float32), np.float32(np.nan))
         for hands, hit in zip((own, opp), hits)]                                     # (R, H)
    acc = np.zeros((len(own.rows), len(opp.rows)), dtype=np.int16 if len(more) < 2 ** 15 else np.int32)
    flag = np.empty(acc.shape, dtype=bool)
    for r in range(len(more)):
        a, o = v[0][r][:, None], v[1][r][None, :]
        np.greater(a, o, out=flag)
        acc += flag
        np.less(a, o, out=flag)
        acc -= flag
    count = hits[0].astype(np.float64) @ hits[1].T.astype(np.float64)               # runouts each pair meets
    out = np.divide(acc, count, out=np.zeros(acc.shape), where=count > 0) * disjoint(own, opp)
    return out.astype(dtype)[None]
