"""What a player would do in one state for every holding it could hold: the policy types strategies give and solvers read.

:class:`ActionPolicy` (an (H, A) probability array over the game's
holdings) and :class:`RaiseSpan` (every no-limit raise size, made when
asked) sit below both ``acpcbot.strategies`` and ``acpcbot.solve``: a
strategy exposes its policy in them and the measurements (LBR, AIVAT, best
responses) read it, without either package importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Iterator, Sequence, overload

import numpy as np

from .engine import Action, ActionType, raise_to
from .gamedef import GameDef
from .holdings import holding_index, num_holdings


class RaiseSpan(Sequence[Action]):
    """Actions ``before``, then every no-limit raise-to from ``low`` to ``high``, without building them all.

    A policy that raises to any legal size (random's) considers thousands
    of actions; this list makes each one when asked, finds one's column in
    constant time, and gives its types and sizes as arrays at once.
    """

    def __init__(self, before: Sequence[Action], low: int, high: int) -> None:
        self.before = tuple(before)
        self.low, self.high = low, high

    def __len__(self) -> int:
        return len(self.before) + self.high - self.low + 1

    @overload
    def __getitem__(self, i: int) -> Action: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Action, ...]: ...
    def __getitem__(self, i: int | slice) -> Action | tuple[Action, ...]:  # an int or a slice, as a tuple takes
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("RaiseSpan index out of range")
        k = len(self.before)
        return self.before[i] if i < k else raise_to(self.low + i - k)

    def __iter__(self) -> Iterator[Action]:
        yield from self.before
        for size in range(self.low, self.high + 1):
            yield raise_to(size)

    def index(self, action: Action, start: int = 0, stop: int | None = None) -> int:
        """The column of ``action`` (ValueError when absent), in constant time for a raise-to."""
        if action[0] == ActionType.RAISE and self.low <= action[1] <= self.high and start == 0 and stop is None:
            return len(self.before) + action[1] - self.low
        return self.before.index(action)

    def __eq__(self, other: object) -> bool:
        # the same actions in the same order (two spans built alike are equal, as two tuples would be)
        if isinstance(other, RaiseSpan):
            return (self.before, self.low, self.high) == (other.before, other.low, other.high)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.before, self.low, self.high))

    def __contains__(self, action: object) -> bool:
        try:
            self.index(action)  # type: ignore[arg-type]
        except (ValueError, TypeError, IndexError):
            return False
        return True

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(kinds, sizes) of the actions as int64 arrays, as ``ActionPolicy.kinds``/``sizes`` give them."""
        span = np.arange(self.low, self.high + 1, dtype=np.int64)
        kinds = np.concatenate([np.array([int(a[0]) for a in self.before], dtype=np.int64),
                                np.full(len(span), int(ActionType.RAISE), dtype=np.int64)])
        sizes = np.concatenate([np.array([int(a[1]) for a in self.before], dtype=np.int64), span])
        return kinds, sizes


@dataclass(frozen=True, eq=False)  # arrays have no single truth value: policies compare by identity
class ActionPolicy:
    """What a strategy would do in one state for every holding it could hold: an (H, A) probability array.

    ``actions`` are the distinct actions considered, each legal in the
    state (no-limit raises as concrete ``raise_to(size)``).  Row ``i`` of
    ``probs`` holds the probabilities of those actions had the seat held
    holding ``i`` of ``acpcbot.holdings.holdings(game)``, everything else
    (public state, history, model) equal; rows of holdings sharing a card
    with the board are unspecified but finite, non-negative and sum to 1.
    ``probs`` may be a read-only broadcast view (rows that do not depend on
    the holding cost one row of memory): never write to it.  ``actions`` is
    a tuple, or a :class:`RaiseSpan` when every raise size is considered.
    """

    actions: Sequence[Action]
    probs: np.ndarray
    #: the game, for :meth:`row` (holdings are numbered per game)
    game: GameDef | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        p = self.probs
        if p.ndim != 2 or p.shape[1] != len(self.actions):
            raise ValueError(f"ActionPolicy: probs must be (holdings, {len(self.actions)} actions), got {p.shape}")
        if self.game is not None and p.shape[0] != num_holdings(self.game):
            raise ValueError(f"ActionPolicy: {p.shape[0]} rows, but {self.game.name or 'the game'} has "
                             f"{num_holdings(self.game)} holdings")

    @cached_property
    def kinds(self) -> np.ndarray:
        """The action types (0 fold, 1 call, 2 raise) as an int64 array, one per column."""
        if isinstance(self.actions, RaiseSpan):
            return self.actions.arrays()[0]
        return np.fromiter((int(a[0]) for a in self.actions), dtype=np.int64, count=len(self.actions))

    @cached_property
    def sizes(self) -> np.ndarray:
        """The raise-to sizes (0 where the action has none) as an int64 array, one per column."""
        if isinstance(self.actions, RaiseSpan):
            return self.actions.arrays()[1]
        return np.fromiter((int(a[1]) for a in self.actions), dtype=np.int64, count=len(self.actions))

    def index(self, action: Action) -> int:
        """The column of ``action``; ValueError when the policy does not consider it."""
        try:
            return self.actions.index(action)
        except ValueError:
            raise ValueError(f"action {action} is not among the policy's actions") from None

    def prob(self, action: Action) -> np.ndarray:
        """The probability of ``action`` for every holding (zeros when the policy does not consider it)."""
        try:
            return self.probs[:, self.actions.index(action)]
        except ValueError:
            return np.zeros(self.probs.shape[0])

    def row(self, cards: Iterable[int]) -> np.ndarray:
        """The probabilities of the actions for the holding ``cards``."""
        if self.game is None:
            raise ValueError("ActionPolicy.row needs the policy's game (give game= when building it)")
        return self.probs[holding_index(self.game, cards)]


def holding_free_policy(game: GameDef, actions: Sequence[Action], row: Sequence[float] | np.ndarray,
                        kinds: np.ndarray | None = None, sizes: np.ndarray | None = None) -> ActionPolicy:
    """A policy whose rows do not depend on the holding: one row broadcast (read-only) over every holding.

    ``kinds`` and ``sizes``, when the caller has them, spare converting a long action list again.
    """
    one = np.asarray(row, dtype=np.float64)
    listed = actions if isinstance(actions, RaiseSpan) else tuple(actions)
    policy = ActionPolicy(listed, np.broadcast_to(one, (num_holdings(game), len(one))), game)
    if kinds is not None and sizes is not None:
        policy.__dict__["kinds"], policy.__dict__["sizes"] = kinds, sizes  # what the cached properties would compute
    return policy
