"""Showdown equity of known hands against each other, the rest of the board rolled out (AIVAT's question).

:func:`matchup_equity`: the share each of several known hands wins.
Equity vectors (one hand against every holding) live in
``acpcbot.equity_vectors``; the names this module once held are
re-exported from there.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..equity_vectors import (  # re-exported: their home was here
    DEFAULT_SAMPLES,
    EXACT_LIMIT,
    BoardSample as BoardSample,
    EquityCache as EquityCache,
    blocked_holdem as blocked_holdem,
    completions,
    equity_vector as equity_vector,
)
from ..evaluator import rank_batch
from ..gamedef import GameDef


def matchup_equity(game: GameDef, holes: Sequence[Sequence[int]], board: Sequence[int],
                   samples: int = DEFAULT_SAMPLES, rng: np.random.Generator | None = None,
                   exact_limit: int = EXACT_LIMIT) -> tuple[np.ndarray, bool]:
    """(shares, exact): each known hand's share of the pot at showdown, the board rolled out; ties split evenly."""
    hands = [tuple(int(c) for c in h) for h in holes]
    board = tuple(int(c) for c in board)
    need = game.total_board_cards - len(board)
    dead = board + tuple(c for h in hands for c in h)
    runs, exact = completions(game, dead, need, samples, rng, exact_limit)
    if game.deals_holdem_cards:
        full = np.hstack([np.broadcast_to(np.array(board, dtype=np.int64), (len(runs), len(board))), runs])
        # higher is better below (negated treys ranks)
        values = np.stack([-rank_batch(np.hstack([np.broadcast_to(np.array(h, dtype=np.int64), (len(full), 2)),
                                                    full]), check=False).astype(np.int64) for h in hands])
    else:
        value = game.ranking_for_showdown
        values = np.array([[value(h + board + tuple(int(c) for c in run)) for run in runs] for h in hands],
                          dtype=np.int64)
    best = values.max(axis=0)
    top = values == best
    shares = (top / top.sum(axis=0)).mean(axis=1)
    return shares, exact


