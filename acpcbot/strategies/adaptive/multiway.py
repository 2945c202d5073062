"""adaptive against two or more opponents: a one-step look-ahead valuing each move against all of them together.

Equity comes from Monte Carlo deals against the opponents' narrowed
ranges; a raise is valued by the chance that every opponent folds (their
statistics' fold frequencies multiplied) plus, when someone calls, our
equity against the callers (discounted: callers are stronger than the
ranges they called from) times the pot they make.  Simpler than the
heads-up search but sound: no move is valued on a street it cannot reach.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...engine import CALL, FOLD, RAISE, Action, raise_to
from ...evaluator import equity
from ...world import View
from .ranges import HandTracker, pairs_with
from .stats import Spot, spot_of

#: the multiway value of the pot when betting goes on to a later street: equity x pot x REALIZATION
REALIZATION = 1.0
#: Monte Carlo deals for the equity against two or more opponents
MULTIWAY_SAMPLES = 600
#: equity against the players who call a multiway bet, as a share of the equity against all of them
MULTIWAY_CALLER_DISCOUNT = 0.85


def multiway_values(view: View, hand: HandTracker, opponents: list[int], targets: list[int],
                    fold_chance: Callable[[int, Spot], float],
                    gen: np.random.Generator) -> tuple[dict[Action, float], float]:
    """Each move's value (expected chips from now on) and our equity against ``opponents``' ranges.

    ``targets`` are the raise-tos considered; ``fold_chance(p, spot)`` is
    opponent ``p``'s fold frequency in the spot it would face (its
    statistics' prediction, ``adaptive.stats.spot_of``).
    """
    state = view.state
    game = state.game
    me = view.position
    board = tuple(view.board_cards)
    key = (len(board), tuple(opponents))
    e = hand.multi.get(key)
    if e is None:
        ranges = []
        for p in opponents:
            w = hand.ranges[p]
            ranges.append(w if w.sum() > 0 else np.where(pairs_with(tuple(view.hole) + board), 0.0, 1.0))
        try:
            e = equity(view.hole, board, len(opponents), ranges, samples=MULTIWAY_SAMPLES, exact=False,
                       rng=gen).equity
        except ValueError:
            e = equity(view.hole, board, len(opponents), None, samples=MULTIWAY_SAMPLES, exact=False,
                       rng=gen).equity
        hand.multi[key] = e
    last_round = state.round == game.num_rounds - 1
    keep = 1.0 if last_round else REALIZATION
    values: dict[Action, float] = {}
    if view.can_fold:
        values[FOLD] = 0.0
    values[CALL] = e * state.pot_after_call(me) * keep - view.to_call
    for target in targets:
        action = RAISE if game.is_limit else raise_to(target)
        after = state.copy()
        after.apply_unchecked(action)
        added = after.spent[me] - state.spent[me]
        fold_all = 1.0
        called = 0.0
        for p in opponents:
            if after.is_all_in(p):
                continue
            need = after.to_call(p)
            f = fold_chance(p, spot_of(after, p))
            fold_all *= f
            called += (1 - f) * need
        win_pot = after.pot + called
        ev_called = MULTIWAY_CALLER_DISCOUNT * e * win_pot * keep - added
        values[action] = fold_all * state.pot + (1 - fold_all) * ev_called
    return values, float(e)
