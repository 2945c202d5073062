"""The strategy interface every player implements."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from ..engine import Action
from ..gamedef import GameDef


class UnsupportedGame(ValueError):
    """A strategy asked to play a game its rules do not cover."""


@dataclass(frozen=True)
class Param:
    """A strategy parameter: its type (a callable converting text), default and help."""

    type: Callable[[str], Any]
    default: Any
    help: str = ""
    check: Callable[[Any], bool] | None = None  # extra validation of the converted value
    check_help: str = ""


class Strategy:
    """Base class: override ``act``; the other hooks default to doing nothing.

    Lifecycle: ``start_match`` once, then for every state the seat receives
    ``observe(view)`` (also states where it does not act, so models learn from
    every hand), ``act(view, deadline)`` when it is this seat's turn, and
    ``end_hand(view)`` with the final state of each hand; ``end_match`` last.
    ``deadline`` is a ``time.monotonic()`` value by which ``act`` must return.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        reason = self.unsupported_reason(game)
        if reason:
            raise UnsupportedGame(f"strategy {self.name!r} cannot play {game.name or 'this game'}: {reason}")
        self.game = game
        self.rng = rng
        for key, spec in self.params.items():
            setattr(self, key, params.get(key, spec.default))

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Why this strategy cannot play ``game``, or None when it can."""
        return None

    def start_match(self, match: Any) -> None:
        """Called once before the first state; ``match`` describes the match (game, seat, names)."""

    def observe(self, view: Any) -> None:
        """Called with every state this seat receives, before ``act`` when it acts."""

    def act(self, view: Any, deadline: float) -> Action:
        """The action to take in ``view`` (this seat is to act)."""
        raise NotImplementedError

    def end_hand(self, view: Any) -> None:
        """Called with the final state of each hand."""

    def end_match(self) -> None:
        """Called once after the last hand (also when the match ends early)."""
