"""What one seat knows: the view of the hand in progress and the history of the match.

Everything here is derived from the MATCHSTATE lines the seat receives and
the rules engine; nothing re-derives a rule.  A :class:`View` is built for
every state line (cheap: the costly parts are computed on first use), and
the :class:`World` threads the views of one match together, recording each
hand's result when its final state arrives.  A line that continues the
hand of the line before is read by replaying only the actions it adds
(:class:`acpcbot.notation.reader.HandReader`).

The history of the match keeps its running figures (hands played, total)
and the last :data:`KEEP_HANDS` hand records: a match of any length holds
a bounded amount of memory (the client streams every record to its
``--history`` file).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, NamedTuple, TypeVar

from .cards import cards_to_text
from .engine import CALL, Action, ActionType, State
from .gamedef import GameDef
from .notation.matchstate import MatchState, betting_field, cards_field, key_of_line, parse_match_state, state_head
from .notation.reader import HandReader

log = logging.getLogger(__name__)

#: hand records a match history keeps (the most recent ones)
KEEP_HANDS = 200


@dataclass(frozen=True)
class MatchInfo:
    """What a strategy is told before the first hand (``Strategy.start_match``)."""

    game: GameDef
    #: this seat's name (the dealer protocol does not tell names)
    name: str = "acpcbot"
    #: the seed of the strategy's generator (None: not reproducible)
    seed: int | None = None
    #: the average time budget per hand, in seconds
    time_per_hand: float = 7.0
    #: opponents' names when the runner knows them (seat order, this seat left out)
    opponents: tuple[str, ...] = ()
    #: the strategy spec being played, for logs and persisted models
    spec: str = ""

    @property
    def opponent_key(self) -> str:
        """A key for per-opponent models: the opponents' names joined by ``+``, or ``""`` when unknown."""
        return "+".join(self.opponents)


class BetAction(NamedTuple):
    """One action of the betting, as a seat sees it."""

    #: the position that acted
    player: int
    type: ActionType
    #: the player's total chips in the hand after the action (a raise's raise-to)
    amount: int
    #: the betting round, 0-based
    round: int
    #: chips the action added to the pot
    added: int
    #: the protocol's size: the raise-to of a no-limit raise, else 0
    size: int = 0

    @property
    def action(self) -> Action:
        """The engine action."""
        return Action(self.type, self.size)


class HandRecord(NamedTuple):
    """One finished hand as this seat saw it."""

    #: the hand's number in the match, 0-based, in the order hands were played
    index: int  # type: ignore[assignment]  # shadows tuple.index, which nobody calls on a HandRecord
    hand_id: int
    position: int
    hole: tuple[int, ...]
    #: board cards per round (round 0 included, usually empty)
    board: tuple[tuple[int, ...], ...]
    betting: str
    #: cards shown by other positions at a showdown, by position
    shown: dict[int, tuple[int, ...]]
    #: chips won (+) or lost (-) by this seat; None when they could not be computed
    value: float | None
    #: the final MATCHSTATE line
    text: str

    def to_json(self, total: float) -> dict[str, Any]:
        """The record as a JSON-ready dict (cards as ACPC text); ``total`` is the cumulated result."""
        return {"index": self.index, "hand": self.hand_id, "position": self.position,
                "hole": cards_to_text(self.hole), "board": [cards_to_text(b) for b in self.board],
                "betting": self.betting,
                "shown": {str(p): cards_to_text(c) for p, c in sorted(self.shown.items())},
                "result": self.value, "total": total, "state": self.text}


@dataclass
class MatchHistory:
    """What the seat has learnt over the match so far: running figures and the most recent hands.

    ``hands`` holds the last ``keep`` records (all of them while fewer were
    played), so memory stays bounded however long the match.
    """

    hands: deque[HandRecord] = field(default_factory=lambda: deque(maxlen=KEEP_HANDS))
    #: this seat's cumulated result in chips
    total: float = 0.0
    #: hands whose final state has been seen
    hands_played: int = 0

    @property
    def results(self) -> list[float | None]:
        """This seat's result per hand, in order, for the hands kept."""
        return [h.value for h in self.hands]

    def shown_cards(self) -> Iterator[tuple[int, int, tuple[int, ...]]]:
        """``(hand_id, position, cards)`` for every hole-card set an opponent showed in the hands kept."""
        for h in self.hands:
            for p, cards in sorted(h.shown.items()):
                yield h.hand_id, p, cards

    def add(self, record: HandRecord) -> None:
        """Append a finished hand (the oldest kept one goes once ``hands`` is full)."""
        self.hands.append(record)
        self.hands_played += 1
        if record.value is not None:
            self.total += record.value


_F, _R = ActionType.FOLD, ActionType.RAISE
_T = TypeVar("_T")


class cached_property(Generic[_T]):  # noqa: N801 - named as the functools one it stands for
    """``functools.cached_property`` without its lock: computed on first use, then an attribute of the instance.

    (Python 3.11's takes one lock for every instance of the class, around each first computation; 3.12 dropped it.)
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value


class View:
    """One state as this seat sees it, with the engine's answers about it.

    ``state`` is the engine state replayed from the line; prefer its methods
    to re-deriving rules.  Amounts are chips; ``amount``/raise-to values are
    totals for the hand, as in the protocol.  ``match`` is the live history
    of the match: a strategy running on the client's worker thread may find
    hands in it that finished after this state.
    """

    def __init__(self, text: str, match_state: MatchState, match: MatchHistory | None = None,
                 info: MatchInfo | None = None) -> None:
        #: the MATCHSTATE line as received, without the line end
        self.text = text
        self.match_state = match_state
        self.state: State = match_state.state
        self.game: GameDef = self.state.game
        self.position: int = match_state.position
        self.hand_id: int = match_state.hand_id
        #: the match so far (hands finished before this state's hand, or including it once final)
        self.match = match if match is not None else MatchHistory()
        self.info = info

    @classmethod
    def parse(cls, line: str, game: GameDef, match: MatchHistory | None = None,
              info: MatchInfo | None = None) -> "View":
        """A view of one MATCHSTATE line (line end optional); raises ProtocolError when malformed."""
        text = line.rstrip("\r\n")
        return cls(text, parse_match_state(text, game), match, info)

    def __repr__(self) -> str:
        return f"View({self.text!r})"

    # ------------------------------------------------------------- the hand

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat is to act now."""
        return self.state.current_player == self.position

    @property
    def is_final(self) -> bool:
        """Whether the hand is over."""
        return self.state.finished

    @property
    def current_player(self) -> int:
        """The position to act, or -1 when the hand is over."""
        return self.state.current_player

    @property
    def round(self) -> int:
        """The current betting round, 0-based."""
        return self.state.round

    @property
    def num_players(self) -> int:
        """Players in the game."""
        return self.game.num_players

    @property
    def seat(self) -> int:
        """This seat's dealer seat, assuming the reference's rotation (position p of hand h is seat (p+h) mod N)."""
        return self.state.seat_of(self.position)

    @property
    def hole(self) -> tuple[int, ...]:
        """This seat's hole cards."""
        return self.state.hole[self.position]

    @property
    def holes(self) -> list[tuple[int, ...]]:
        """Hole cards per position; empty where not visible."""
        return self.state.hole

    @cached_property
    def board(self) -> tuple[tuple[int, ...], ...]:
        """Board cards per round, through the current round (round 0 usually empty)."""
        return self.state.board_by_round()

    @property
    def board_cards(self) -> tuple[int, ...]:
        """All board cards visible now, in dealing order."""
        return tuple(self.state.board)

    @property
    def betting(self) -> str:
        """The betting field of the line (``r300c/r900``...)."""
        betting = self.match_state.betting
        return betting if betting is not None else betting_field(self.text)

    @property
    def head(self) -> str:
        """``MATCHSTATE:<position>:<hand>:``, the start of every line of this hand this seat gets."""
        return state_head(self.position, self.hand_id)

    @property
    def cards_text(self) -> str:
        """The cards field of the line."""
        return cards_field(self.text)

    @property
    def infoset_key(self) -> str:
        """``<position>:<betting>:<cards>``: the line without ``MATCHSTATE:`` and the hand number."""
        return key_of_line(self.text)

    @cached_property
    def actions(self) -> tuple[BetAction, ...]:
        """The betting so far as structured actions, in order."""
        nolimit = self.game.is_nolimit
        return tuple(BetAction(s.player, s.action[0], s.before.spent[s.player] + s.added, s.round, s.added,
                               s.action[1] if nolimit and s.action[0] == _R else 0)
                     for s in self.state.steps())

    def actions_in_round(self, round_: int | None = None) -> tuple[BetAction, ...]:
        """The actions of one round (default: the current one)."""
        r = self.state.round if round_ is None else round_
        return tuple(a for a in self.actions if a.round == r)

    @property
    def pot(self) -> int:
        """All chips put in so far by all players."""
        return self.state.pot

    @property
    def spent(self) -> list[int]:
        """Chips each position has put in this hand."""
        return self.state.spent

    @property
    def to_call(self) -> int:
        """Chips this seat must add to call (0 when it may check)."""
        return self.state.to_call(self.position)

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips each position still has behind (huge in limit games, whose stacks are unlimited)."""
        state = self.state
        return tuple(state.stack_left(p) for p in range(self.game.num_players))

    @property
    def stack(self) -> int:
        """Chips this seat still has behind."""
        return self.state.stack_left(self.position)

    @property
    def folded(self) -> list[bool]:
        """Whether each position has folded."""
        return self.state.folded

    @property
    def in_hand(self) -> list[int]:
        """Positions that have not folded."""
        folded = self.state.folded
        return [p for p in range(self.game.num_players) if not folded[p]]

    @property
    def opponents(self) -> list[int]:
        """The other positions that have not folded."""
        return [p for p in self.in_hand if p != self.position]

    @property
    def num_active(self) -> int:
        """Players who can still act (neither folded nor all-in)."""
        return self.state.num_active

    @property
    def raise_bounds(self) -> tuple[int, int] | None:
        """(min, max) raise-to when this seat is to act and may raise, else None."""
        return self.state.raise_bounds() if self.is_my_turn else None

    @property
    def legal_actions(self) -> tuple[ActionType, ...]:
        """Action types this seat may take now (empty when it is not its turn)."""
        return self.state.legal_actions() if self.is_my_turn else ()

    @property
    def can_fold(self) -> bool:
        """Whether folding is legal now (this seat acts and faces a bet)."""
        return _F in self.legal_actions

    @property
    def can_raise(self) -> bool:
        """Whether raising is legal now."""
        return _R in self.legal_actions

    def is_legal(self, action: Action) -> bool:
        """Whether this seat may take ``action`` now."""
        return self.is_my_turn and self.state.is_legal(action)

    # ------------------------------------------------------------- helpers for strategies

    def fold_or_check(self) -> Action:
        """Fold when facing a bet, else check: a strategy never folds for free."""
        return self.state.fold_or_check() if self.is_my_turn else CALL

    def raise_or_call(self, to: float | None = None) -> Action:
        """A raise to ``to`` clamped into the legal range (default: the minimum), or a call when no raise is allowed.

        In limit games the raise is the fixed ``r`` whatever ``to`` says.
        """
        if not self.is_my_turn:
            return CALL
        return self.state.raise_or_call(to)

    def pot_raise_to(self, fraction: float = 1.0) -> int:
        """The raise-to of a raise by ``fraction`` of the pot after calling (unclamped; 1.0 = a pot-sized raise)."""
        return self.state.raise_to_fraction(fraction, self.position)

    # ------------------------------------------------------------- the end of the hand

    @property
    def shown(self) -> dict[int, tuple[int, ...]]:
        """Hole cards other positions showed (at a showdown), by position."""
        hole = self.state.hole
        return {p: tuple(h) for p, h in enumerate(hole) if h and p != self.position}

    @cached_property
    def payoffs(self) -> list[float] | None:
        """Chips won or lost by each position once the hand is over; None before, or when not computable."""
        if not self.state.finished:
            return None
        try:
            return self.state.payoffs()
        except ValueError as exc:
            log.warning("hand %d: cannot compute the result: %s", self.hand_id, exc)
            return None

    @property
    def result(self) -> float | None:
        """This seat's result once the hand is over, else None."""
        payoffs = self.payoffs
        return None if payoffs is None else payoffs[self.position]


class World:
    """One seat's knowledge over a match: turns lines into views and keeps the history."""

    def __init__(self, game: GameDef, info: MatchInfo | None = None) -> None:
        self.game = game
        self.info = info
        self.match = MatchHistory()
        #: the latest view (None before the first state)
        self.last: View | None = None
        #: whether the latest view started a new hand
        self.new_hand = False
        self._hand_finished = True
        self._reader = HandReader(game)
        #: when set, a final state's record waits in ``unrecorded`` for :meth:`settle` (a reply may leave first)
        self.defer_records = False
        self.unrecorded: list[View] = []

    @property
    def in_hand(self) -> bool:
        """Whether a hand has started and its final state has not arrived yet."""
        return not self._hand_finished

    def update(self, line: str, parsed: MatchState | None = None) -> View:
        """The view of a MATCHSTATE line, recording the hand when it is final; ProtocolError when malformed.

        ``parsed`` is the line already parsed (an in-process dealer hands over
        its state instead of text to parse); it must be what the line says.
        """
        text = line.rstrip("\r\n")
        last = self.last
        reader = self._reader
        if parsed is None:
            if last is not None and not self._hand_finished:
                parsed = reader.step(text, last.match_state)
                if parsed is not None:
                    # the usual line: the last one plus one action (no check below can fail)
                    view = self.last = View(text, parsed, self.match, self.info)
                    self.new_hand = False
                    if parsed.state.finished:
                        self._finish(view)
                    return view
                parsed = reader.extend(text, last.match_state)
            else:
                parsed = reader.first(text)
            if parsed is None:
                previous = last.match_state if last is not None and not self._hand_finished else None
                parsed = parse_match_state(text, self.game, previous)
        view = View(text, parsed, self.match, self.info)
        if last is None or self._hand_finished or view.hand_id != last.hand_id:
            if last is not None and not self._hand_finished:
                log.warning("hand %d ended without a final state; hand %d starts", last.hand_id, view.hand_id)
            elif last is not None and view.hand_id == last.hand_id:
                if text == last.text:
                    # the same final state twice: nothing new to learn or record
                    self.new_hand = False
                    return view
                log.warning("hand number %d is used again (the protocol promises unique numbers)", view.hand_id)
            self.new_hand = True
            reader.start(view.head)
        else:
            self.new_hand = False
            if view.position != last.position or not view.betting.startswith(last.betting):
                log.warning("state %r does not follow %r in the same hand", text, last.text)
        self.last = view
        reader.read(text)
        if view.state.finished:
            self._finish(view)
        else:
            self._hand_finished = False
        return view

    def prepare(self, view: View, action: Action) -> None:
        """This seat answered the latest state, ``view``, with ``action``: the state after it is made now (call once
        the reply is sent), for the line showing the action (:meth:`HandReader.prepare`)."""
        if view is self.last and not self._hand_finished:
            self._reader.prepare(view.match_state, action)

    def _finish(self, view: View) -> None:
        """The hand of ``view`` is over: record it, or keep it for :meth:`settle`."""
        self._hand_finished = True
        if self.defer_records:
            self.unrecorded.append(view)
        else:
            self.match.add(self._record(view))

    def settle(self) -> Iterator[View]:
        """Record the final states left waiting (``defer_records``) in order, yielding each once it is recorded."""
        while self.unrecorded:
            view = self.unrecorded.pop(0)
            self.match.add(self._record(view))
            yield view

    def _record(self, view: View) -> HandRecord:
        position = view.position
        hole = view.state.hole
        return HandRecord(self.match.hands_played, view.hand_id, position, hole[position], view.board, view.betting,
                          {p: tuple(h) for p, h in enumerate(hole) if h and p != position}, view.result, view.text)
