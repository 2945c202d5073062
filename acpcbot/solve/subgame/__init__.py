"""A range-vs-range subgame solver for two-player hold'em-like games (issue 29): tree, DCFR, exact best response.

Typical use::

    from acpcbot.solve.subgame import BetSizes, Subgame
    result = Subgame(game, state, board, (range0, range1), BetSizes()).solve(target_pct=0.5, time_limit=2.0)

Modules: ``abstraction`` (raise sizes), ``tree`` (the public tree from the
engine), ``hands`` (live holdings, masks, showdown values), ``terminal``
(fold and showdown values), ``sweep`` (showdown values by a rank-sorted
sweep, for wide ranges), ``prepared`` (what the passes reuse),
``passes`` (reach down, values up), ``dcfr`` (the iterations),
``best_response`` (exploitability), ``api`` (solve), ``spots`` (the two
exact spots of SOLVER_SPOTS.md).
"""

from .abstraction import BetSizes, spot_sizes
from .api import Subgame, SubgameResult, solve
from .best_response import Evaluation
from .tree import SubgameError, SubgameTree, build_tree

__all__ = ["BetSizes", "Evaluation", "Subgame", "SubgameError", "SubgameResult", "SubgameTree", "build_tree",
           "solve", "spot_sizes"]
