"""The baseline players: random (the reference example player), call, raise and fold."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar, Sequence

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from ..world import View
from .base import INLINE_TURNS, ActionPolicy, Param, RaiseSpan, Strategy, holding_free_policy
from .registration import register

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


@lru_cache(maxsize=256)
def _random_actions(kinds: tuple[ActionType, ...],
                    bounds: tuple[int, int] | None) -> tuple[Sequence[Action], np.ndarray, np.ndarray]:
    """The actions of random's policy (the kinds in order, a no-limit raise as every raise-to of ``bounds``:
    a :class:`RaiseSpan`, made one action at a time when asked), with their types and sizes as arrays."""
    plain = {_F: FOLD, _C: CALL, _R: RAISE}
    if bounds is not None and _R in kinds:
        # the engine lists the legal types in order, the raise last
        span = RaiseSpan([plain[k] for k in kinds if k != _R], bounds[0], bounds[1])
        return (span, *span.arrays())
    return (tuple(plain[k] for k in kinds), np.array([int(k) for k in kinds], dtype=np.int64),
            np.zeros(len(kinds), dtype=np.int64))


@register
class RandomStrategy(Strategy):
    """The reference dealer's example player: fold, call or raise at random.

    Fold 0.06, call 0.47, raise 0.47; the actions not legal in the state are
    dropped and the rest renormalised.  A no-limit raise-to is uniform over
    the legal range, like the example player's ``min + rand % (max - min + 1)``.
    """

    name = "random"
    description = "The reference example player: fold .06, call .47, raise .47 among the legal actions."
    params: ClassVar[dict[str, Param]] = {
        "fold": Param(float, 0.06, "weight of folding", lambda v: v >= 0, "must be >= 0"),
        "call": Param(float, 0.47, "weight of checking or calling", lambda v: v >= 0, "must be >= 0"),
        "raise": Param(float, 0.47, "weight of raising", lambda v: v >= 0, "must be >= 0"),
    }
    run_mode = INLINE_TURNS
    has_policy = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # ``raise`` is a keyword, so the weights are read back by name
        self.weights = {_F: getattr(self, "fold"), _C: getattr(self, "call"), _R: getattr(self, "raise")}

    def policy(self, view: View) -> ActionPolicy:
        """The same for every holding: the legal types by weight, a no-limit raise-to uniform over the legal range."""
        legal = view.legal_actions
        weights = self.weights
        total = sum(weights[a] for a in legal)
        if total <= 0:
            return holding_free_policy(self.game, (CALL,), (1.0,))
        kinds = tuple(a for a in legal if weights[a] > 0)
        bounds = view.raise_bounds if _R in kinds and self.game.is_nolimit else None
        actions, types, sizes = _random_actions(kinds, bounds)
        parts = []
        for a in kinds:
            p = weights[a] / total
            if a == _R and bounds is not None:
                n = bounds[1] - bounds[0] + 1
                parts.append(np.full(n, p / n))
            else:
                parts.append(np.array([p]))
        return holding_free_policy(self.game, actions, np.concatenate(parts), types, sizes)

    def act(self, view: View, deadline: float) -> Action:
        """Sample an action type among the legal ones, then a uniform raise size."""
        legal = view.legal_actions
        weights = self.weights
        total = sum(weights[a] for a in legal)
        if total <= 0:
            return CALL
        x = self.rng.random() * total
        choice = legal[-1]
        for a in legal:
            x -= weights[a]
            if x < 0:
                choice = a
                break
        if choice == _F:
            return FOLD
        if choice == _C:
            return CALL
        if self.game.is_limit:
            return RAISE
        lo, hi = view.raise_bounds  # type: ignore[misc]  # raise is legal, so bounds exist
        return raise_to(self.rng.randint(lo, hi))


@register
class CallStrategy(Strategy):
    """Always check or call: the calling station."""

    name = "call"
    description = "Always check or call."
    run_mode = INLINE_TURNS
    has_policy = True
    deterministic = True

    def policy(self, view: View) -> ActionPolicy:
        """Check or call with every holding."""
        return holding_free_policy(self.game, (CALL,), (1.0,))

    def act(self, view: View, deadline: float) -> Action:
        """Check or call."""
        return CALL


_SIZES = ("min", "pot", "allin")


@register
class RaiseStrategy(Strategy):
    """Raise whenever a raise is allowed, else call."""

    name = "raise"
    description = "Raise whenever allowed (size min, pot or allin in no-limit games), else call."
    # the parameters, set from params by Strategy.__init__
    size: str
    params: ClassVar[dict[str, Param]] = {
        "size": Param(str, "min", "the raise-to in no-limit games: the minimum, a pot-sized raise or all-in",
                      choices=_SIZES),
    }
    run_mode = INLINE_TURNS
    has_policy = True
    deterministic = True

    def policy(self, view: View) -> ActionPolicy:
        """The configured raise with every holding (one-hot)."""
        return holding_free_policy(self.game, (self.act(view, 0.0),), (1.0,))

    def act(self, view: View, deadline: float) -> Action:
        """The configured raise, clamped into the legal range; a call when no raise is allowed."""
        bounds = view.raise_bounds
        if bounds is None:
            return CALL
        if self.size == "allin":
            return view.raise_or_call(bounds[1])
        if self.size == "pot":
            return view.raise_or_call(view.pot_raise_to())
        return view.raise_or_call(bounds[0])


@register
class FoldStrategy(Strategy):
    """Check when free, else fold."""

    name = "fold"
    description = "Check when free, else fold."
    run_mode = INLINE_TURNS
    has_policy = True
    deterministic = True

    def policy(self, view: View) -> ActionPolicy:
        """Fold facing a bet, else check, with every holding."""
        return holding_free_policy(self.game, (view.fold_or_check(),), (1.0,))

    def act(self, view: View, deadline: float) -> Action:
        """Fold facing a bet, else check."""
        return view.fold_or_check()

