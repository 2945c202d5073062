"""Every holding ranked on every card the next street can bring: the table a solver's showdown reads, in one call.

A re-solve at the turn needs, for each river card, the treys rank of all
1,326 holdings: 48 boards times 1,326 hands, the same key sums as
``pairs.pair_ranks`` (which ranks them on one board or a list of boards),
laid out by the river card so that a solver indexes it directly.
"""

from __future__ import annotations

import numpy as np

from .pairs import NUM_PAIRS, pair_ranks
from .ranking import CardsLike, as_cards


def river_ranks(turn_board: CardsLike) -> np.ndarray:
    """treys rank of every holding (1326 columns, ``PAIRS`` order) with each river card (52 rows) on a 4-card board.

    Row ``c`` is ``pair_ranks(board + (c,))``; a row of a card on the board
    and a holding sharing a card with the five are 0 (as ``pair_ranks``).
    """
    board = as_cards(turn_board, "turn board")
    if len(board) != 4:
        raise ValueError(f"turn board: river_ranks needs 4 board cards, got {len(board)}")
    rivers = np.array([c for c in range(52) if c not in board], dtype=np.int64)
    boards = np.empty((len(rivers), 5), dtype=np.int64)
    boards[:, :4] = board
    boards[:, 4] = rivers
    out = np.zeros((52, NUM_PAIRS), dtype=np.int16)
    out[rivers] = pair_ranks(boards)
    return out
