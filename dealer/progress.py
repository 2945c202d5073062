"""Where a match stands (next hand, its dealt state, totals, time used) and how a finished hand is booked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from acpcbot.engine import State
from acpcbot.notation.loglines import format_state_line, state_line

from .config import MatchConfig, SeatClock
from .rng import Dealer


@dataclass
class MatchProgress:
    """Where a match stands: the next hand to play, its state (dealt, maybe partly played), totals and time used."""

    next_hand: int
    state: State | None
    dealer: Dealer
    totals: list[float]
    clock: SeatClock
    #: the next hand, dealt ahead of its turn (deal_ahead); deal takes it
    ahead: State | None = field(default=None, repr=False)

    @classmethod
    def fresh(cls, config: MatchConfig) -> "MatchProgress":
        """A match about to play its first hand."""
        n = config.game.num_players
        clock = SeatClock(n, config.t_response, config.t_hand, config.t_per_hand, config.num_hands)
        progress = cls(0, None, Dealer(config.game, config.seed), [0.0] * n, clock)
        if config.num_hands > 0:
            progress.deal(config, 0)
        return progress

    def deal(self, config: MatchConfig, hand_id: int) -> None:
        """Deal hand ``hand_id`` up front and reset the per-hand time."""
        ahead = self.ahead
        if ahead is not None:
            # dealt already: the generator's next hand whatever its number (hands are dealt in order)
            self.ahead = None
            ahead.hand_id = hand_id
            self.state = ahead
        else:
            hole, board = self.dealer.deal()
            self.state = State(config.game, hand_id, hole, board)
        self.clock.new_hand()

    def deal_ahead(self, config: MatchConfig, hand_id: int) -> State | None:
        """Deal hand ``hand_id``, the one after the hand in play, before its turn (None: the match has no such hand).

        The match deals it while a player thinks, so that the next hand's
        first state goes out sooner; :meth:`deal` takes it.
        """
        if hand_id >= config.num_hands:
            return None
        if self.ahead is None:
            hole, board = self.dealer.deal()
            self.ahead = State(config.game, hand_id, hole, board)
        return self.ahead


@dataclass
class MatchResult:
    """How a match ended."""

    totals: list[float]
    hands_played: int  # hands finished (and logged), resumed ones included
    score_line: str | None  # None when the match did not finish
    error: str | None = None

    @property
    def finished(self) -> bool:
        """Whether every hand was played."""
        return self.error is None


def names_by_position(config: MatchConfig, hand_id: int) -> list[str]:
    """Player names in position order for one hand, as the log lists them."""
    return [config.names[config.seat_of(hand_id, p)] for p in range(config.game.num_players)]


def finish_hand(config: MatchConfig, progress: MatchProgress, state: State, betting: str | None = None,
                cards: str | None = None, names: str | None = None,
                seat_of_position: Sequence[int] | None = None, values: Sequence[float] | None = None) -> str:
    """Book a finished hand: totals, its log line, and the next hand dealt; return the line.

    ``betting``, ``cards`` (every hole card shown) and ``names`` (by
    position, ``|``-joined) are the line's fields when the caller has them
    already; they must be what ``notation.loglines.format_state_line`` would write.
    ``seat_of_position`` is each position's seat in this hand and
    ``values`` its payoffs by position, when the caller has them
    (``config.seat_of``, ``state.payoffs()``).
    """
    line = book_hand(config, progress, state, betting, cards, names, seat_of_position, values)
    next_hand(config, progress, state.hand_id)
    return line


def book_hand(config: MatchConfig, progress: MatchProgress, state: State, betting: str | None = None,
              cards: str | None = None, names: str | None = None,
              seat_of_position: Sequence[int] | None = None, values: Sequence[float] | None = None) -> str:
    """The totals and the log line of a finished hand (:func:`finish_hand` without dealing the next one)."""
    if values is None:
        values = state.payoffs()
    h = state.hand_id
    totals = progress.totals
    if seat_of_position is None:
        seat_of_position = [config.seat_of(h, p) for p in range(len(values))]
    for p, v in enumerate(values):
        totals[seat_of_position[p]] += v
    if betting is None or cards is None or names is None:
        return format_state_line(state, names_by_position(config, h), values)
    return state_line(h, betting, cards, values, names)


def next_hand(config: MatchConfig, progress: MatchProgress, hand_id: int) -> None:
    """Hand ``hand_id`` is over: deal the next one (if the match has one)."""
    progress.next_hand = hand_id + 1
    progress.state = None
    if hand_id + 1 < config.num_hands:
        progress.deal(config, hand_id + 1)

