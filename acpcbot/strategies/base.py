"""The strategy interface every player implements."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from ..engine import Action
from ..gamedef import GameDef

if TYPE_CHECKING:  # the world imports nothing from here; hints only
    from ..world import MatchInfo, View


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
    choices: tuple[Any, ...] = ()  # when given, the only accepted values

    def convert(self, text: str) -> Any:
        """The value of ``text``; ValueError saying why when it is not acceptable."""
        value = self.type(text)
        if self.choices and value not in self.choices:
            raise ValueError(f"expected one of {', '.join(str(c) for c in self.choices)}")
        if self.check is not None and not self.check(value):
            raise ValueError(self.check_help or "out of range")
        return value

    def describe(self) -> str:
        """One line for listings: default, choices and help."""
        # an empty default is said by the help text ("empty: none"); booleans are written as typed: 1/0
        default = int(self.default) if isinstance(self.default, bool) else self.default
        parts = [f"default {default}"] if default != "" else []
        if self.choices:
            parts.append("one of " + "|".join(str(c) for c in self.choices))
        elif self.check_help:
            parts.append(self.check_help)
        text = ", ".join(parts)
        if not text:
            return self.help
        return f"{self.help} ({text})" if self.help else f"({text})"


def parse_bool(text: str) -> bool:
    """``1/0``, ``true/false``, ``yes/no``, ``on/off`` (any case) as a bool."""
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


class Strategy:
    """Base class: override ``act``; the other hooks default to doing nothing.

    Lifecycle: ``start_match`` once, then for every state the seat receives
    ``observe(view)`` (also states where it does not act, so models learn from
    every hand), ``act(view, deadline)`` when it is this seat's turn, and
    ``end_hand(view)`` with the final state of each hand; ``end_match`` last.
    ``deadline`` is a ``time.monotonic()`` value by which ``act`` should
    return; the client answers with a safe fallback if it does not.

    Hooks run one at a time and in order, on a worker thread of the client
    (so a slow ``act`` can be abandoned at its deadline), unless ``inline``
    is set: then they run directly on the client's event loop, which saves a
    thread hand-off per state but cannot guard the deadline.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: set for strategies whose hooks take microseconds (no deadline guard needed)
    inline: ClassVar[bool] = False
    #: False exempts ``act`` from the client's deadline (a person needs time)
    time_limited: ClassVar[bool] = True

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        reason = self.unsupported_reason(game)
        if reason:
            raise UnsupportedGame(f"strategy {self.name!r} cannot play {game.name or 'this game'}: {reason}")
        unknown = set(params) - set(self.params)
        if unknown:
            raise TypeError(f"strategy {self.name!r} has no parameter {', '.join(sorted(unknown))}")
        self.game = game
        self.rng = rng
        #: the spec this strategy was created from (set by the registry)
        self.spec = self.name
        for key, spec in self.params.items():
            setattr(self, key, params.get(key, spec.default))

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Why this strategy cannot play ``game``, or None when it can."""
        return None

    def start_match(self, match: MatchInfo) -> None:
        """Called once before the first state; ``match`` describes the match (game, seat name, seed, opponents)."""

    def observe(self, view: View) -> None:
        """Called with every state this seat receives, before ``act`` when it acts."""

    def act(self, view: View, deadline: float) -> Action:
        """The action to take in ``view`` (this seat is to act)."""
        raise NotImplementedError

    def end_hand(self, view: View) -> None:
        """Called with the final state of each hand (after ``observe`` of it)."""

    def end_match(self) -> None:
        """Called once after the last hand (also when the match ends early)."""
