"""adaptive against two or more opponents: a one-step look-ahead, Monte Carlo equity against their ranges.

Each move (fold, check/call, a raise of a documented size) is valued once:
calling by the equity against the opponents' narrowed ranges times the
pot; raising by the chance every opponent folds (their modelled fold
frequencies multiplied) times the pot, plus the discounted equity against
those who call.  Near-ties are broken at random.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, State, raise_to
from ..evaluator import equity
from ..world import View
from .adaptive_ranges import pairs_with
from .adaptive_search import our_raises
from .adaptive_stats import OpponentStats, spot_of

#: no-limit bet sizes of the multiway look-ahead, as fractions of the pot after calling (plus the minimum and all-in)
BET_FRACTIONS = (0.33, 0.5, 0.75, 1.0, 1.5, 2.5)
#: the multiway value of the pot when betting goes on to a later street: equity x pot x REALIZATION
REALIZATION = 1.0
#: Monte Carlo deals for the equity against two or more opponents
MULTIWAY_SAMPLES = 600
#: equity against the players who call a multiway bet, as a share of the equity against all of them
MULTIWAY_CALLER_DISCOUNT = 0.85
#: moves within this many big blinds of the best are near-ties in the multiway look-ahead, broken at random
TIE_BB = 0.02


def raise_targets(state: State) -> list[int]:
    """Raise-to sizes the multiway look-ahead tries (adaptive_search.our_raises: the cap, all-in for slivers)."""
    return [state.raise_bounds()[0] if state.game.is_limit else a.size  # type: ignore[index]
            for a in our_raises(state, BET_FRACTIONS)]


def multiway_choice(view: View, ranges: dict[int, np.ndarray], cache: dict[tuple, float], opponents: list[int],
                    stats_of: Callable[[int], OpponentStats], gen: np.random.Generator,
                    big_blind: float) -> tuple[Action, dict[Action, float], float]:
    """The move, each move's value (chips from now on) and our equity, against two or more ``opponents``.

    ``ranges`` are their narrowed ranges; ``cache`` keeps the equity per
    street of the hand; ``stats_of(p)`` gives player p's statistics.
    """
    state = view.state
    game = state.game
    me = view.position
    board = tuple(view.board_cards)
    key = (len(board), tuple(opponents))
    e = cache.get(key)
    if e is None:
        live = []
        for p in opponents:
            w = ranges[p]
            live.append(w if w.sum() > 0 else np.where(pairs_with(tuple(view.hole) + board), 0.0, 1.0))
        try:
            e = equity(view.hole, board, len(opponents), live, samples=MULTIWAY_SAMPLES, exact=False,
                       rng=gen).equity
        except ValueError:
            e = equity(view.hole, board, len(opponents), None, samples=MULTIWAY_SAMPLES, exact=False,
                       rng=gen).equity
        cache[key] = e
    last_round = state.round == game.num_rounds - 1
    keep = 1.0 if last_round else REALIZATION
    to_call = view.to_call
    values: dict[Action, float] = {}
    if view.can_fold:
        values[FOLD] = 0.0
    values[CALL] = e * state.pot_after_call(me) * keep - to_call
    for target in raise_targets(state):
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
            # the spot p will be in, classified as its statistics record it (adaptive_stats.spot_of)
            f = float(stats_of(p).predict(spot_of(after, p))[0])
            fold_all *= f
            called += (1 - f) * need
        win_pot = after.pot + called
        ev_called = MULTIWAY_CALLER_DISCOUNT * e * win_pot * keep - added
        values[action] = fold_all * state.pot + (1 - fold_all) * ev_called
    return pick(values, TIE_BB * big_blind, gen), values, e


def pick(values: dict[Action, float], scale: float, gen: np.random.Generator) -> Action:
    """The best move; near-ties (within ``scale`` chips of the best) are broken at random by ``gen``."""
    best = max(values.values())
    near = [a for a, v in values.items() if v >= best - scale]
    return near[int(gen.integers(len(near)))] if len(near) > 1 else max(values, key=values.get)  # type: ignore[arg-type]
