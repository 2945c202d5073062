"""The strategy interface every player implements."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from ..engine import Action
from ..gamedef import GameDef
from ..policy_types import (  # re-exported
    ActionPolicy as ActionPolicy,
    RaiseSpan as RaiseSpan,
    holding_free_policy as holding_free_policy,
)

if TYPE_CHECKING:  # the world imports nothing from here; hints only
    from ..world import MatchInfo, View


class UnsupportedGame(ValueError):
    """A strategy asked to play a game its rules do not cover."""


class NoPolicy(ValueError):
    """A strategy that does not expose its policy (LBR and AIVAT need one)."""


def reads_turns_only(strategy: "Strategy") -> bool:
    """Whether nothing but its own turns changes what ``strategy`` does: no ``observe`` nor ``end_hand`` of its
    own, and ``reads_match = False`` declared in the class that defines its ``act`` or below (a subclass with an
    ``act`` of its own says so again).  Such a seat may be shown its turns only, and the record of a hand may
    wait until its replies are sent."""
    kind = type(strategy)
    if kind.observe is not Strategy.observe or kind.end_hand is not Strategy.end_hand:
        return False
    for k in kind.__mro__:
        if "reads_match" in vars(k):
            return vars(k)["reads_match"] is False
        if "act" in vars(k):
            return False
    return False


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
    return; the client answers with :meth:`quick_action` if it does not (or
    fails), else with a safe fallback (check when free, else fold).

    Hooks run one at a time and in order, on a worker thread of the client
    (so a slow ``act`` can be abandoned at its deadline), unless ``inline``
    is set: then they run directly on the client's event loop, which saves a
    thread hand-off per state but cannot guard the deadline.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: set for strategies whose hooks take microseconds (no deadline guard needed)
    inline: bool = False  # a class's choice; an instance may set it when its parameters decide (blueprint:resolve)
    #: False when ``act`` reads of its view only the state in front of it (state, position, text, info), never
    #: ``view.match`` (the match so far); an inline strategy that declares this in the class defining its
    #: ``act`` and has no ``observe`` or ``end_hand`` is then asked for its turns only (``Client.decide_state``)
    reads_match: ClassVar[bool] = True
    #: False exempts ``act`` from the client's deadline (a person needs time)
    time_limited: ClassVar[bool] = True
    #: True when :meth:`policy` is implemented (LBR and AIVAT refuse strategies without it)
    has_policy: ClassVar[bool] = False
    #: True when every row of :meth:`policy` is one-hot and ``act`` plays it: AIVAT's corrections of this
    #: player's actions are then all zero, so AIVAT spares replaying its policy.  Per instance: set from
    #: :meth:`deterministic_for` (a strategy deterministic in some games or settings only overrides that)
    deterministic: bool = False

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        label = self.name or type(self).__name__  # a plugin class has no registered name
        reason = self.unsupported_reason(game)
        if reason:
            raise UnsupportedGame(f"strategy {label!r} cannot play {game.name or 'this game'}: {reason}")
        unknown = set(params) - set(self.params)
        if unknown:
            raise TypeError(f"strategy {label!r} has no parameter {', '.join(sorted(unknown))} "
                            f"(parameters: {', '.join(self.params) or 'none'})")
        self.game = game
        self.rng = rng
        #: the spec this strategy was created from (set by the registry)
        self.spec = self.name
        for key, spec in self.params.items():
            setattr(self, key, params.get(key, spec.default))
        self.deterministic = type(self).deterministic_for(game, params)

    @classmethod
    def deterministic_for(cls, game: GameDef, params: dict[str, Any]) -> bool:
        """Whether a strategy of this class made for ``game`` with ``params`` is :attr:`deterministic`.

        ``params`` are the converted parameters given (missing ones take
        their defaults).  The default is the class attribute; AIVAT asks
        this before replaying a player's policy.
        """
        return cls.deterministic

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

    def quick_action(self, view: View) -> Action | None:
        """A sound answer ready within a millisecond: what the client sends if ``act`` misses its deadline or fails.

        The client asks it when this seat is to act, on the strategy's own
        thread just before ``act`` (never while another hook runs), so it may
        read anything the strategy keeps; it must not change what later calls
        return (catching up with ``view`` as ``act`` would is fine).  An
        answer that is not a legal action is ignored.  None (the default):
        the client's own fallback, check when free, else fold.
        """
        return None

    def policy(self, view: View) -> ActionPolicy:
        """The probability of each action for every holding this seat could hold in ``view`` (its turn).

        The contract, relied on by LBR and AIVAT: ``act(view)`` plays the
        row of the actual holding (deterministic strategies: one-hot rows;
        random ones sample it); the array does not depend on ``view.hole``
        (rows are "had the seat held this holding"); calling ``policy``
        never consumes the strategy's generator nor changes what later calls
        return; and it depends only on the view and on what ``start_match``,
        ``observe`` and ``end_hand`` have learnt (never on side effects of
        ``act``), so a fresh copy replayed through a match log gives the
        same arrays.  Set ``has_policy = True`` when overriding.
        """
        raise NoPolicy(f"strategy {self.spec!r} does not expose its policy (the probability of each action for "
                       f"every holding), which LBR and AIVAT need")

    def end_hand(self, view: View) -> None:
        """Called with the final state of each hand (after ``observe`` of it)."""

    def end_match(self) -> None:
        """Called once after the last hand (also when the match ends early)."""
