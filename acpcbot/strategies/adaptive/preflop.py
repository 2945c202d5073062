"""adaptive before the flop: the boards every preflop search is played on, drawn once per process.

Before the flop adaptive's searches play the later streets out on
PREFLOP_SEARCH_BOARDS boards and value all-ins on ALLIN_RUNOUTS, the same seeded
draw for every match (so a match replays exactly and the boards' tables
are made once); a search is kept per betting history until the opponent's
hands seen grow by a PREFLOP_REFRESH-th.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...evaluator import NUM_PAIRS, pair_ranks
from .runouts import Runouts, runout_boards

#: boards drawn once per match for the searches before the flop (those sharing a card with ours are skipped)
PREFLOP_SEARCH_BOARDS = 48
#: runouts an all-in is valued on before the flop; the first PREFLOP_SEARCH_BOARDS of them are those the later streets are
#: played on
ALLIN_RUNOUTS = 400
#: before the flop a search is kept per betting history until the hands seen grow by this fraction of themselves
PREFLOP_REFRESH = 16


#: every pair's index: the rows of a policy
ALL_PAIRS = np.arange(NUM_PAIRS)


@lru_cache(maxsize=2)
def preflop_pool(size: int) -> Runouts:
    """``size`` full boards drawn once (seeded): the runouts of every search before the flop."""
    runouts = Runouts(pair_ranks(runout_boards((), size, 0x9F1)))
    runouts.bins  # noqa: B018 - made now, at the start of the match, not inside a decision
    return runouts


@lru_cache(maxsize=1)
def preflop_runouts() -> tuple[Runouts, Runouts]:
    """The runouts of every search before the flop: the PREFLOP_SEARCH_BOARDS played on, the ALLIN_RUNOUTS all-ins run on."""
    pool = preflop_pool(ALLIN_RUNOUTS)
    return pool.head(PREFLOP_SEARCH_BOARDS), pool
