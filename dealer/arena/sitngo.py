"""Freezeout tables: stacks carried from hand to hand, eliminations, a button that skips busted seats.

The studies measured their players in tables, not in independent hands: every
player starts with the same stack, each hand is played with the chips left
from the hand before, a player at 0 chips is out, and the table ends when one
player holds every chip or a hand limit is reached (the 2008 study's tie rule:
most chips wins, equal chips the lower seat).

Each hand is played by the one rules engine on a game made for that hand
(:func:`hand_game`): the players still in, in position order, with their own
stacks and the blinds they can afford.  So the engine states each hand's
stacks through the hand's :class:`GameDef` (``stack`` is per position), the
strategies read them from their view (``view.stacks``, ``view.stack``) and no
rule is re-spelled here.  Busted seats are not dealt in at all.

Button rules (:data:`BUTTONS`): ``moving`` (the default; the simplified
"moving button" most online sit-and-go's use): each hand the button moves to
the next seat still in play, the next two live seats after it post the small
and big blind, and heads-up the button posts the small blind and acts first
before the flop; a player who busts can therefore make another miss or repeat
a blind, which the dead-button rule would prevent.  ``random`` (the 2008
study): each hand the button is drawn at random among the live seats.

Chips stay whole: the engine's split pots can leave fractions, and the odd
chips go one each to the tied winners nearest the button's left (position
order), the usual odd-chip rule, so the table's chips are conserved exactly.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Sequence

from acpcbot.cards import dealing_order
from acpcbot.client import Client
from acpcbot.engine import State
from acpcbot.gamedef import GameDef
from acpcbot.protocol import MatchState, format_betting, format_match_state

BUTTONS = ("moving", "random")


@dataclass(frozen=True)
class BlindLevel:
    """One step of a blind schedule: from hand ``start`` (0-based) on, blinds ``small``/``big``."""

    start: int
    small: int
    big: int


@dataclass(frozen=True)
class TableRules:
    """How a freezeout table plays: stacks, blinds (a schedule), button rule, hand limit and stop rule."""

    stack: int = 1000
    levels: tuple[BlindLevel, ...] = (BlindLevel(0, 10, 20),)
    button: str = "moving"
    #: the most hands a table plays (None: until one player holds every chip)
    max_hands: int | None = None
    #: the 2008 study's stop: the table ends when at most one player can still post the big blind
    short_stop: bool = False

    def __post_init__(self) -> None:
        if self.stack < 1:
            raise ValueError(f"starting stack must be >= 1, got {self.stack}")
        if self.button not in BUTTONS:
            raise ValueError(f"button rule must be one of {', '.join(BUTTONS)}, got {self.button!r}")
        if not self.levels or self.levels[0].start != 0:
            raise ValueError("the blind schedule must start at hand 0")
        for a, b in zip(self.levels, self.levels[1:]):
            if b.start <= a.start:
                raise ValueError("the blind schedule's hands must increase")
        for lv in self.levels:
            if not 0 <= lv.small <= lv.big or lv.big < 1:
                raise ValueError(f"blinds {lv.small}/{lv.big}: need 0 <= small <= big and big >= 1")
        if self.max_hands is not None and self.max_hands < 1:
            raise ValueError(f"hand limit must be >= 1, got {self.max_hands}")

    def blinds(self, hand: int) -> tuple[int, int]:
        """(small, big) blind of hand ``hand`` (0-based) of a table."""
        small = big = 0
        for lv in self.levels:
            if lv.start <= hand:
                small, big = lv.small, lv.big
        return small, big


def parse_schedule(text: str) -> tuple[BlindLevel, ...]:
    """``10/20`` or ``10/20,25/50@50,50/100@100`` (blinds from hand N on) as levels; ValueError saying why."""
    levels = []
    for i, part in enumerate(p.strip() for p in text.split(",")):
        blinds, _, start = part.partition("@")
        small, _, big = blinds.partition("/")
        try:
            lv = BlindLevel(int(start) if start else 0, int(small), int(big))
        except ValueError:
            raise ValueError(f"blind level {part!r} is not SMALL/BIG[@HAND]") from None
        if i == 0 and lv.start != 0:
            raise ValueError("the first blind level starts at hand 0 (give it without @)")
        levels.append(lv)
    return tuple(levels)


def hand_game(base: GameDef, stacks: Sequence[int], small: int, big: int) -> GameDef:
    """The game of one hand: ``len(stacks)`` players in position order, their stacks, the blinds they can afford.

    Three or more players: position 0 posts the small blind, 1 the big,
    the last is the button; the first to act is position 2 before the flop
    (the button when three play) and position 0 after it.
    Heads-up (reverse blinds, as the ACPC games): position 1 is the button
    and posts the small blind and acts first before the flop; position 0
    posts the big blind and acts first after it.
    """
    k = len(stacks)
    if k < 2:
        raise ValueError("a hand needs two players")
    if k == 2:
        blind = [big, small]
        first = (1,) + (0,) * (base.num_rounds - 1)
    else:
        blind = [small, big] + [0] * (k - 2)
        first = (2 % k,) + (0,) * (base.num_rounds - 1)
    blind = [min(b, s) for b, s in zip(blind, stacks)]
    return replace(base, num_players=k, stack=tuple(int(s) for s in stacks), blind=tuple(blind),
                   first_player=first)


def whole_chips(payoffs: Sequence[float]) -> list[int]:
    """Payoffs rounded to whole chips summing to 0: fractions cut down, odd chips to the first positions with one."""
    chips = [math.floor(v + 1e-9) for v in payoffs]
    odd = -sum(chips)
    for p, v in enumerate(payoffs):
        if odd <= 0:
            break
        if v - chips[p] > 1e-9:
            chips[p] += 1
            odd -= 1
    return chips


@dataclass
class TableResult:
    """How one table ended: each seat's place (1 = winner), chips at the end, hands played."""

    seed: int
    names: tuple[str, ...]
    places: list[int]
    chips: list[int]
    hands: int
    #: seat of the winner
    winner: int = 0
    #: seats in the order they were eliminated (busted players only)
    eliminated: list[int] = field(default_factory=list)
    #: the table's number in its run
    index: int = 0
    #: what learning players hold after the table, by name (``Strategy.learnt()`` where a strategy has one)
    learnt: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """The table as JSON-ready data."""
        return {"index": self.index, "seed": self.seed, "names": list(self.names), "places": self.places,
                "chips": self.chips, "hands": self.hands, "winner": self.winner, "eliminated": self.eliminated,
                **({"learnt": self.learnt} if self.learnt else {})}


def next_live(seat: int, live: Sequence[int], n: int) -> int:
    """The first seat of ``live`` after ``seat`` going round ``n`` seats (``seat`` itself excluded)."""
    for k in range(1, n + 1):
        s = (seat + k) % n
        if s in live:
            return s
    raise ValueError("no live seat")


def positions(button: int, live: Sequence[int], n: int) -> list[int]:
    """Seats by position for a hand: the seats after the button in order, the button last."""
    order = []
    s = button
    for _ in live:
        s = next_live(s, live, n)
        order.append(s)
    return order


def deal(game: GameDef, rng: random.Random) -> tuple[list[tuple[int, ...]], list[int]]:
    """Hole cards per position and the whole board, drawn from ``rng``."""
    deck = dealing_order(game.num_ranks, game.num_suits)
    k = game.num_hole_cards
    cards = rng.sample(deck, game.num_players * k + game.total_board_cards)
    hole = [tuple(cards[p * k:(p + 1) * k]) for p in range(game.num_players)]
    return hole, cards[game.num_players * k:]


class FreezeoutTable:
    """One freezeout table of in-process clients (one per seat); :meth:`play` runs it to its end.

    ``first_hand_id`` numbers the hands (a series of tables keeps them
    unique for the clients' histories).  ``on_hand`` (tests) is called with
    each hand's finished state and its seats by position.
    """

    def __init__(self, base: GameDef, rules: TableRules, clients: Sequence[Client], names: Sequence[str],
                 seed: int, first_hand_id: int = 0, on_hand=None) -> None:
        if not 2 <= len(clients) <= 10:
            raise ValueError(f"a table seats 2 to 10 players, got {len(clients)}")
        self.base = base
        self.rules = rules
        self.clients = list(clients)
        self.names = tuple(names)
        self.seed = seed
        self.hand_id = first_hand_id
        self.on_hand = on_hand
        n = len(clients)
        self.stacks = [rules.stack] * n
        self.rng = random.Random(seed)
        self.button = self.rng.randrange(n)  # the first button is drawn, as at a real table
        self.hands = 0
        self.eliminated: list[int] = []
        self.places: list[int] = [0] * n

    def live(self) -> list[int]:
        """Seats with chips."""
        return [s for s, c in enumerate(self.stacks) if c > 0]

    def over(self) -> bool:
        """Whether the table has ended (one player left, the hand limit, or the study's short stop)."""
        live = self.live()
        if len(live) <= 1:
            return True
        if self.rules.max_hands is not None and self.hands >= self.rules.max_hands:
            return True
        if self.rules.short_stop:
            big = self.rules.blinds(self.hands)[1]
            return sum(1 for s in live if self.stacks[s] >= big) <= 1
        return False

    def play(self) -> TableResult:
        """Play hands until the table is over; the result with every seat's place."""
        while not self.over():
            self.play_hand()
        survivors = sorted(self.live(), key=lambda s: (-self.stacks[s], s))  # most chips, then the lower seat
        for place, s in enumerate(survivors, start=1):
            self.places[s] = place
        return TableResult(self.seed, self.names, self.places[:], self.stacks[:], self.hands,
                           survivors[0] if survivors else 0, self.eliminated[:])

    def next_button(self, live: list[int]) -> int:
        """This hand's button seat under the table's rule."""
        n = len(self.stacks)
        if self.rules.button == "random":
            return self.rng.choice(live)
        if self.hands == 0:
            return self.button if self.button in live else next_live(self.button, live, n)
        return next_live(self.button, live, n)

    def play_hand(self) -> State:
        """Deal and play one hand; move the chips and eliminate the busted seats."""
        live = self.live()
        n = len(self.stacks)
        self.button = self.next_button(live)
        order = positions(self.button, live, n)
        small, big = self.rules.blinds(self.hands)
        game = hand_game(self.base, [self.stacks[s] for s in order], small, big)
        hole, board = deal(game, self.rng)
        state = State(game, self.hand_id, hole, board)
        self._run(state, order)
        before = {s: self.stacks[s] for s in order}
        for p, delta in enumerate(whole_chips(state.payoffs())):
            self.stacks[order[p]] += delta
        if self.on_hand is not None:
            self.on_hand(state, order)
        busted = sorted((s for s in order if self.stacks[s] == 0), key=lambda s: (-before[s], s))
        left = len(self.live())
        for i, s in enumerate(busted):
            self.places[s] = left + i + 1
            self.eliminated.append(s)
        self.hand_id += 1
        self.hands += 1
        return state

    def _run(self, state: State, order: list[int]) -> None:
        """Play the hand: every seat is shown the states it needs, the one to act answers (corrected if illegal)."""
        clients = [self.clients[s] for s in order]
        every = [c.needs_every_state for c in clients]
        while True:
            finished = state.finished
            actor = state.current_player
            betting = format_betting(state)
            action = None
            for p, client in enumerate(clients):
                if not (finished or p == actor or every[p]):
                    continue
                seen = state.view_of(p)
                got = client.decide(format_match_state(state, p), parsed=MatchState(p, state.hand_id, seen, betting))
                if p == actor:
                    action = got
            if finished:
                return
            if action is None or not state.is_legal(action):
                action = state.fix(action)[0] if action is not None else state.fold_or_check()
            state.apply(action)
