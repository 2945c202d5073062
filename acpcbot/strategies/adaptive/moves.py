"""adaptive's moves in its search (adaptive.search, which names them all too): our actions in the round it decides
in and in the rivers it plays out (the documented sizes and all-in), our answers once we have acted, and what the
search asks of the opponent (``OpponentPolicy``, ``spot_key``)."""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from ...engine import CALL, FOLD, RAISE, Action, State, raise_to
from .stats import spot_and_bet

#: our raise sizes in the round we decide in, as fractions of the pot after calling (plus all-in)
OUR_FRACTIONS = (0.33, 0.5, 0.75, 1.0, 1.5)
#: the same before the flop (about 2, 3 and 4 big blinds opening from the small blind)
PREFLOP_FRACTIONS = (0.5, 1.0, 1.5)
#: our bets when we open the river round of a runout (plus all-in); answering a raise there we fold or call (limit:
#: or raise)
RIVER_FRACTIONS = (1.0,)
#: after this many raises in a betting round we raise no more except all-in (no-limit; limit games have their own
#: cap, which is the one we keep there: a raise war cannot run past it, and the last raise is worth most with the
#: best hands)
RAISE_CAP = 3
#: a size leaving less than this share of the pot behind is replaced by all-in
SHORT_BEHIND = 0.25

#: a won showdown's share, as the engine's terminal value takes it: a numpy scalar, which its array check
#: (np.ndim) reads at once where a Python float costs it a caught exception (the same value either way)
_WON = np.float64(1.0)


class OpponentPolicy(Protocol):
    """What the search needs of the opponent: its action chances by strength bin, and its raise size."""

    def probs(self, state: State, hist: np.ndarray | None) -> np.ndarray:
        """(3, NUM_BINS): P(fold, call, raise | bin) where it acts in ``state``; ``hist`` is its range over the
        bins (None on the river of a runout, where the bins are that river's).  A policy whose chances with
        ``hist`` None depend on the state only through :func:`spot_key` says so by ``spot_keyed = True``."""

    def raise_to(self, state: State) -> Action:
        """The raise it makes where it acts in ``state`` and raises."""

    # optional: ``raise_key(street) -> tuple``, everything raise_to depends on besides the state in a betting round
    # of ``street``: two policies with the same key raise alike at every state of that round (adaptive.policy)


def spot_key(state: State, opp: int) -> tuple:
    """What a spot-keyed policy's chances where ``opp`` acts in ``state`` depend on (its spot, whether it faces a
    bet, the street, the bet over the pot), and which of its actions are legal there."""
    spot, to_call, ratio = spot_and_bet(state, opp)
    return (spot, to_call > 0, state.round, ratio, state.raise_bounds() is None)


# --------------------------------------------------------------------- our actions

def our_raises(state: State, fractions: Sequence[float]) -> list[Action]:
    """Our raises where we act in ``state``: the fractions of the pot after calling (at least the minimum) and all-in.

    Past RAISE_CAP raises in the round: all-in only (no-limit); limit: the raise while the game allows one.
    A size that would leave less than SHORT_BEHIND of the pot behind is all-in.
    """
    bounds = state.raise_bounds()
    if bounds is None:
        return []
    lo, hi = bounds
    if state.game.is_limit:
        return [RAISE]
    if state.num_raises >= RAISE_CAP:
        return [raise_to(hi)]
    sizes = {hi}
    for frac in fractions:
        target = max(state.raise_to_fraction(frac), lo)
        if target < hi:
            after = state.pot_after_raise_called(target)
            sizes.add(hi if hi - target < SHORT_BEHIND * after else target)
    return [raise_to(s) for s in sorted(sizes)]


def quick_raise(state: State) -> Action | None:
    """The quick answer's raise where we act in ``state``, None when it makes none: limit, the raise (while the
    game allows one); no-limit, pot-sized (after calling), all-in where that is all-in or leaves less than SHORT_BEHIND
    of the pot behind, and past RAISE_CAP only such an all-in."""
    bounds = state.raise_bounds()
    if bounds is None:
        return None
    if state.game.is_limit:
        return RAISE
    lo, hi = bounds
    target = min(max(state.raise_to_fraction(1.0), lo), hi)
    after = state.pot_after_raise_called(target)
    if hi - target < SHORT_BEHIND * after:
        return raise_to(hi)
    return raise_to(target) if state.num_raises < RAISE_CAP else None


def our_actions(state: State, fractions: Sequence[float]) -> list[Action]:
    """Fold (when facing a bet), check or call, and :func:`our_raises`."""
    out: list[Action] = [FOLD] if state.to_call() > 0 else []
    return out + [CALL] + our_raises(state, fractions)


def _fold_or_call(state: State) -> list[Action]:
    """``reply_actions(state)[:2]``: facing a bet, fold or call (its raise is not made)."""
    if state.to_call() > 0:
        return [FOLD, CALL]
    raises = our_raises(state, ())
    return [CALL, raises[-1]] if raises else [CALL]


def reply_actions(state: State) -> list[Action]:
    """Our answers inside the search once we have acted in a round: fold, call, or all-in (limit: the raise)."""
    out: list[Action] = [FOLD] if state.to_call() > 0 else []
    out.append(CALL)
    raises = our_raises(state, ())
    if raises:
        out.append(raises[-1])
    return out
