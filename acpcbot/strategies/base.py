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


@dataclass(frozen=True)
class RunMode:
    """How the client runs a strategy's hooks, declared once (``Strategy.run_mode``): nothing else is looked at.

    ``where``: ``"inline"`` (hooks take microseconds: run where the state
    is read, never cut; the ``acpcbot`` command plays it on the blocking
    loop), ``"guarded"`` (``act`` may overrun: cut at its deadline, by an
    alarm on the client's thread or on the worker thread) or ``"untimed"``
    (no deadline, a person: the worker thread).  ``sees``: ``"every"``
    (``observe`` gets every state, also those where it does not act),
    ``"ends"`` (its turns and each hand's end: it learns nothing between)
    or ``"turns"`` (its turns only: no ``end_hand``, and ``act`` reads of
    its view only the state in front of it, never ``view.match``; an
    in-process dealer may then skip everything else).
    """

    where: str = "guarded"
    sees: str = "every"

    def __post_init__(self) -> None:
        if self.where not in ("inline", "guarded", "untimed"):
            raise ValueError(f"RunMode: where must be inline, guarded or untimed, not {self.where!r}")
        if self.sees not in ("every", "ends", "turns"):
            raise ValueError(f"RunMode: sees must be every, ends or turns, not {self.sees!r}")

    @property
    def inline(self) -> bool:
        """Whether the hooks take microseconds and run where the state is read."""
        return self.where == "inline"

    @property
    def time_limited(self) -> bool:
        """Whether ``act`` has a deadline (False: a person)."""
        return self.where != "untimed"

    @property
    def every_state(self) -> bool:
        """Whether ``observe`` must see the states where the seat does not act."""
        return self.sees == "every"

    @property
    def turns_only(self) -> bool:
        """Whether nothing but its own turns changes what it does (it may be shown those only)."""
        return self.sees == "turns"


#: fast strategies that look at nothing but the state in front of them (call, fold, raise, random)
INLINE_TURNS = RunMode("inline", "turns")
#: fast strategies that learn nothing between their turns
INLINE_ENDS = RunMode("inline", "ends")


class Strategy:
    """Base class: override ``act``; the other hooks default to doing nothing.

    Lifecycle: ``start_match`` once, then for every state the seat receives
    ``observe(view)`` (also states where it does not act, so models learn from
    every hand), ``act(view, deadline)`` when it is this seat's turn, and
    ``end_hand(view)`` with the final state of each hand; ``end_match`` last.
    ``deadline`` is a ``time.monotonic()`` value by which ``act`` should
    return; the client answers with :meth:`quick_action` if it does not (or
    fails), else with a safe fallback (check when free, else fold).

    Hooks run one at a time and in order, where :attr:`run_mode` says: cut
    at their deadline (the default), directly where the state is read
    (``inline``: no thread hand-off, but no deadline guard either), or on a
    worker thread with no deadline (``untimed``: a person).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: how the client runs the hooks (:class:`RunMode`); the default is safe for any strategy: guarded, shown
    #: every state.  A class's choice; an instance may set its own when its parameters decide (blueprint:resolve)
    run_mode: RunMode = RunMode()
    #: True when :meth:`policy` is implemented (LBR and AIVAT refuse strategies without it)
    has_policy: ClassVar[bool] = False
    #: True when every row of :meth:`policy` is one-hot and ``act`` plays it: AIVAT's corrections of this
    #: player's actions are then all zero, so AIVAT spares replaying its policy.  Per instance: set from
    #: :meth:`deterministic_for` (a strategy deterministic in some games or settings only overrides that)
    deterministic: bool = False

    def __init__(self, game: GameDef, rng: random.Random, **params: Any) -> None:
        label = self.name or type(self).__name__  # a plugin class has no registered name
        reason = self.unsupported_reason_for(game, params)
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

    @classmethod
    def not_default_reason(cls, game: GameDef) -> str | None:
        """Why this strategy, though it may play ``game``, is not to be ``game``'s default; None when it may be."""
        return cls.unsupported_reason(game)

    @classmethod
    def unsupported_reason_for(cls, game: GameDef, params: dict[str, Any]) -> str | None:
        """Why this strategy with ``params`` (as given in a spec) cannot play ``game``; None when it can.

        Checks made before a match starts go through this: a parameter can make a game playable (a
        blueprint's own policy file), which the class alone cannot know."""
        return cls.unsupported_reason(game)

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

    def played_policy(self, view: View) -> ActionPolicy | None:
        """The policy ``act`` just played from in ``view``, when the strategy holds it without new work; else None.

        Asked right after ``act`` when the seat keeps its played rows
        (``acpcbot.notation.played``): AIVAT then reads the row of the
        actual holding from there instead of replaying the strategy through
        the match.  Worth overriding where a replay is dear (a re-solver has
        just solved for every holding; its copy would solve it all again).
        Only the row of the seat's own holding is kept, and it must be the
        one :meth:`policy` gives in ``view`` (a one-row
        ``holding_free_policy`` of it will do).  None (the default): the
        analysis replays the strategy.
        """
        return None

    @property
    def keeps_played_rows(self) -> bool:
        """Whether this strategy's class gives its played rows (overrides :meth:`played_policy`): a seat keeps a
        played-rows file only for such a strategy."""
        return type(self).played_policy is not Strategy.played_policy

    def end_hand(self, view: View) -> None:
        """Called with the final state of each hand (after ``observe`` of it)."""

    def end_match(self) -> None:
        """Called once after the last hand (also when the match ends early)."""
