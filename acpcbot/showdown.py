"""The cards of a hand and what it pays: dealing and showing cards under the rules, showdown values, payoffs.

:class:`CardsAndPayoffs` is part of ``engine.State`` (one of its base
classes).  Cards enter a state through operations that check them first,
each with a ``can_`` twin (a yes/no answer) and a ``verify_`` twin (raises
:class:`DealError` saying what is wrong), as pokerkit does:
:meth:`~CardsAndPayoffs.deal_hole`, :meth:`~CardsAndPayoffs.deal_board`,
:meth:`~CardsAndPayoffs.deal` (every card known at once, as a parsed line
gives them), :meth:`~CardsAndPayoffs.reveal` (a later line's cards joining
those known), :meth:`~CardsAndPayoffs.observe` (a line's cards replacing
those known, as a reader of a seat's lines takes them) and
:meth:`~CardsAndPayoffs.show` (cards shown at the end).

One terminal-value function answers what a hand pays: :meth:`payoffs`
(from the state's own cards, or given showdown values), its form for
given hole cards (:meth:`payoffs_for`), and the heads-up form over many
holdings at once (:meth:`heads_up_value`: a numpy array of showdown shares
in, an array of chips out), which solvers and best responses use instead
of re-deriving the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from .cards import cards_to_text

if TYPE_CHECKING:
    from .gamedef import GameDef


class DealError(ValueError):
    """Cards the rules do not let a hand be dealt or shown (a card dealt twice, not in the deck, too many...)."""


def _allowed(verify: Callable[..., None], *args: Any) -> bool:
    """The ``can_`` twin of a ``verify_`` operation: True unless it raises DealError."""
    try:
        verify(*args)
    except DealError:
        return False
    return True


def _plain_cards(rules: tuple[Any, frozenset[int], int, int, int, tuple[int, ...]], hole: Sequence[Sequence[int]],
                 board: Sequence[int], tuples: bool = False) -> bool:
    """The usual case of a deal, checked on sets: every holding the game's size, ints of the deck, none twice.

    ``tuples``: and tuples all the way down (what :meth:`CardsAndPayoffs.observe` may remember by identity).
    """
    if tuples and (hole.__class__ is not tuple or board.__class__ is not tuple):
        return False
    every = list(board)
    k = rules[3]
    for h in hole:
        if tuples and h.__class__ is not tuple:
            return False
        if h:
            if len(h) != k:
                return False
            every += h
    seen = set(every)
    return len(seen) == len(every) and seen <= rules[1] and sum(every).__class__ is int


#: the cards of a deck of so many ranks and suits, by (ranks, suits)
_DECKS: dict[tuple[int, int], frozenset[int]] = {}


def deck_of(game: GameDef) -> frozenset[int]:
    """The cards of ``game``'s deck."""
    key = (game.num_ranks, game.num_suits)
    cards = _DECKS.get(key)
    if cards is None:
        low_rank, low_suit = 13 - game.num_ranks, 4 - game.num_suits
        cards = _DECKS[key] = frozenset(c for c in range(52) if (c >> 2) >= low_rank and (c & 3) >= low_suit)
    return cards


#: cards :meth:`CardsAndPayoffs.observe` verified, by the identities of (hole, board, game) and the round they were
#: verified for; each entry keeps its tuples (tuples all the way down: they cannot change) and its game alive, so that
#: no other object takes their identity while the entry stands.  A reader passes the same parsed tuples for every
#: line that repeats a cards field (its parse is cached): each checked once.  Emptied when full.
_OBSERVED: dict[tuple[int, int, int, int], tuple[Any, Any, Any]] = {}
_OBSERVED_MAX = 4096
#: per game (by id, the game kept in the entry so that the id stays its own): (game, deck, players, hole cards,
#: board cards, board cards through each round): what the dealing checks' usual case looks up in one step
_RULES: dict[int, tuple[Any, frozenset[int], int, int, int, tuple[int, ...]]] = {}


def _rules_of(game: GameDef) -> None:
    if len(_RULES) >= 256:
        _RULES.clear()  # games made on the fly (tests, tools): keep the table small
    through = tuple(game.board_cards_through(r) for r in range(game.num_rounds))
    _RULES[id(game)] = (game, deck_of(game), game.num_players, game.num_hole_cards, game.total_board_cards, through)


#: what an operation is doing, for its error message: the text, or a function making it (only when it is needed)
What = str | Callable[[], str]


def _said(what: What) -> str:
    return what if isinstance(what, str) else what()


def _text(cards: Sequence[int]) -> str:
    try:
        return cards_to_text(cards)
    except (IndexError, TypeError):
        return repr(list(cards))


class CardsAndPayoffs:
    """Dealing, showing and paying, mixed into ``engine.State``, whose fields they read and set."""

    if TYPE_CHECKING:
        game: GameDef
        hole: list[tuple[int, ...]]
        board: list[int]
        spent: list[int]
        folded: list[bool]
        round: int
        finished: bool
        _n_folded: int
        _payoffs: tuple[float, ...] | None
    else:
        __slots__ = ()  # State lists the slots

    # ----------------------------------------------------------------- dealing

    def _card_problem(self, cards: Sequence[int], what: What, skip: int = -1, fresh: bool = False) -> str | None:
        """Why ``cards`` cannot join the cards this state knows (``skip``: a position whose cards are left out;
        ``fresh``: the cards replace every card the state knows, so none of those counts)."""
        g = self.game
        # the usual case on sets (a reader checks the cards of every line): cards of the deck, none twice, none
        # known; ints all (the sum of ints is an int, numpy's ints or a float make it another class)
        try:
            seen = set(cards)
        except TypeError:
            seen = set()
        if len(seen) == len(cards) and deck_of(g).issuperset(seen) and sum(cards).__class__ is int:
            if fresh:
                return None
            if skip < 0:
                if seen.isdisjoint(chain(self.board, *self.hole)):
                    return None
            elif seen.isdisjoint(self.board) and all(p == skip or seen.isdisjoint(h) for p, h in enumerate(self.hole)):
                return None
        # something is wrong (or the cards are numpy ints): card by card, for the reason
        low_rank, low_suit = 13 - g.num_ranks, 4 - g.num_suits
        known: set[int] = set()
        if not fresh:
            known.update(c for p, h in enumerate(self.hole) if p != skip for c in h)
            known.update(self.board)
        seen = set()
        for c in cards:
            if not isinstance(c, (int, np.integer)) or not 0 <= c < 52 or c >> 2 < low_rank or c & 3 < low_suit:
                name = _text([c]) if isinstance(c, (int, np.integer)) and 0 <= c < 52 else repr(c)
                return f"{_said(what)}: card {name} is not in the deck of {g.name or 'this game'}"
            if c in seen:
                return f"{_said(what)}: card {_text([c])} is given twice"
            if c in known:
                return f"{_said(what)}: card {_text([c])} is dealt already"
            seen.add(c)
        return None

    def _hole_problem(self, position: int, cards: Sequence[int], what: What) -> str | None:
        n = self.game.num_players
        if position.__class__ is not int or not 0 <= position < n:
            return f"{_said(what)}: no position {position!r} in a {n}-player game"
        k = self.game.num_hole_cards
        if len(cards) != k:
            return f"{_said(what)}: {len(cards)} cards ({_text(cards)}) for position {position}, the game deals {k}"
        return None

    def verify_deal_hole(self, position: int, cards: Sequence[int]) -> None:
        """Raise DealError unless ``position``, holding no cards yet, may be dealt ``cards``."""
        def what() -> str:
            return f"dealing {_text(cards)} to position {position}"
        why = self._hole_problem(position, cards, what)
        if why is None and self.hole[position]:
            why = f"{what()}: it holds {_text(self.hole[position])} already"
        why = why or self._card_problem(cards, what)
        if why is not None:
            raise DealError(why)

    def can_deal_hole(self, position: int, cards: Sequence[int]) -> bool:
        """Whether ``position`` may be dealt ``cards`` (see :meth:`verify_deal_hole`)."""
        return _allowed(self.verify_deal_hole, position, cards)

    def deal_hole(self, position: int, cards: Sequence[int]) -> Self:
        """Deal ``cards`` to ``position``, which holds none yet; DealError when the rules refuse them."""
        self.verify_deal_hole(position, cards)
        self.hole[position] = tuple(map(int, cards))
        return self

    def verify_deal_board(self, cards: Sequence[int]) -> None:
        """Raise DealError unless ``cards`` may be the next board cards (never more than the game deals)."""
        r = _RULES.get(id(self.game))
        if r is not None and r[0] is self.game:  # the usual case on sets, as a reader checks every round's cards
            board = self.board
            seen = set(cards)
            if len(board) + len(cards) <= r[4] and len(seen) == len(cards) and seen <= r[1] \
                    and seen.isdisjoint(board) and seen.isdisjoint(chain.from_iterable(self.hole)) \
                    and sum(cards).__class__ is int:
                return
        else:
            _rules_of(self.game)
        def what() -> str:
            return f"dealing {_text(cards)} to the board"
        total = self.game.total_board_cards
        if len(self.board) + len(cards) > total:
            raise DealError(f"{what()}: the board holds {len(self.board)} of the game's {total} cards")
        why = self._card_problem(cards, what)
        if why is not None:
            raise DealError(why)

    def can_deal_board(self, cards: Sequence[int]) -> bool:
        """Whether ``cards`` may be the next board cards (see :meth:`verify_deal_board`)."""
        return _allowed(self.verify_deal_board, cards)

    def deal_board(self, cards: Sequence[int]) -> Self:
        """Deal ``cards`` as the next board cards; DealError when the rules refuse them."""
        self.verify_deal_board(cards)
        self.board.extend(map(int, cards))
        return self

    def _deals_plainly(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> bool:
        """Whether :meth:`deal` may take ``hole`` and ``board`` as they are: the usual case, checked on sets (a reader
        deals every hand's first line): ints of the deck, none twice, counts the game's, the state holding none."""
        r = _RULES.get(id(self.game))
        if r is None or r[0] is not self.game:
            _rules_of(self.game)
            return False
        if len(hole) != r[2] or len(board) > r[4] or self.board:
            return False
        return _plain_cards(r, hole, board) and not any(self.hole)

    def _observes_plainly(self, hole: Sequence[Sequence[int]], board: Sequence[int], tuples: bool = False) -> bool:
        """Whether :meth:`observe` may take ``hole`` and ``board`` as they are (see :meth:`_deals_plainly`); ``tuples``:
        and they are tuples all the way down (a parsed line's cards, which it remembers)."""
        r = _RULES.get(id(self.game))
        if r is None or r[0] is not self.game:
            _rules_of(self.game)
            return False
        if len(hole) != r[2] or len(board) != r[5][self.round]:
            return False
        return _plain_cards(r, hole, board, tuples)

    def verify_deal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> None:
        """Raise DealError unless a state holding no card may be dealt ``hole`` (``()`` where unknown) and ``board``."""
        if self._deals_plainly(hole, board):
            return
        n = self.game.num_players
        if any(self.hole) or self.board:
            raise DealError("dealing a hand's cards: the state holds cards already")
        if len(hole) != n:
            raise DealError(f"dealing a hand's cards: {len(hole)} holdings for a {n}-player game")
        k = self.game.num_hole_cards
        for p, h in enumerate(hole):
            if h and len(h) != k:
                raise DealError(f"dealing {_text(h)} to position {p}: {len(h)} cards, the game deals {k}")
        if len(board) > self.game.total_board_cards:
            raise DealError(f"dealing {_text(board)} to the board: the game deals {self.game.total_board_cards}")
        every = [c for h in hole for c in h] + list(board)
        why = self._card_problem(every, "dealing a hand's cards")
        if why is not None:
            raise DealError(why)

    def can_deal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> bool:
        """Whether a state holding no card may be dealt ``hole`` and ``board`` (see :meth:`verify_deal`)."""
        return _allowed(self.verify_deal, hole, board)

    def deal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> Self:
        """Deal every card known at once into a state holding none: hole cards per position (``()`` where
        unknown) and the board so far, as a parsed line or a deck gives them; DealError when the rules refuse them."""
        if self._deals_plainly(hole, board):
            self.hole = [h if h.__class__ is tuple else tuple(h) for h in hole]
            self.board = list(board)
        else:
            self.verify_deal(hole, board)
            self.hole = [tuple(map(int, h)) for h in hole]  # numpy's ints, say: made ints
            self.board = list(map(int, board))
        return self

    def verify_reveal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> None:
        """Raise DealError unless ``hole`` (``()`` where hidden) and ``board`` may be every card known now: the
        cards this state knows already among them unchanged (a line read after the last one of the same hand)."""
        n = self.game.num_players
        if len(hole) != n:
            raise DealError(f"revealing a hand's cards: {len(hole)} holdings for a {n}-player game")
        known = len(self.board)
        if tuple(board[:known]) != tuple(self.board):
            raise DealError(f"revealing the board {_text(board)}: it was {_text(self.board)}")
        fresh: list[int] = list(board[known:])
        for p, h in enumerate(hole):
            held = self.hole[p]
            if held and h and tuple(h) != held:  # a line hiding cards the state knows leaves them known
                raise DealError(f"revealing {_text(h)} for position {p}: it holds {_text(held)}")
            if h and not held:
                why = self._hole_problem(p, h, f"revealing {_text(h)} for position {p}")
                if why is not None:
                    raise DealError(why)
                fresh.extend(h)
        if len(board) > self.game.total_board_cards:
            raise DealError(f"revealing the board {_text(board)}: the game deals {self.game.total_board_cards}")
        why = self._card_problem(fresh, "revealing a hand's cards")
        if why is not None:
            raise DealError(why)

    def can_reveal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> bool:
        """Whether ``hole`` and ``board`` may be every card known now (see :meth:`verify_reveal`)."""
        return _allowed(self.verify_reveal, hole, board)

    def reveal(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> Self:
        """Take in every card a line shows now, as a reader of MATCHSTATE or STATE lines does: hole cards per
        position (``()`` where hidden) and the board so far.  Those known already must be unchanged; the new
        ones join the state (board cards dealt, hole cards seen).  DealError when the cards cannot be so."""
        self.verify_reveal(hole, board)
        for p, h in enumerate(hole):
            if h and not self.hole[p]:
                self.hole[p] = tuple(map(int, h))
        self.board.extend(map(int, board[len(self.board):]))
        return self

    def verify_observe(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> None:
        """Raise DealError unless ``hole`` (``()`` where hidden) and ``board`` may be every card one line shows of this
        state: a holding per position of the game's count of cards or none, the board of the state's round, cards of
        the game's deck, none twice.  Unlike :meth:`verify_reveal`, the cards the state knows now do not count."""
        g = self.game
        if self._observes_plainly(hole, board):
            return
        n = g.num_players
        if len(hole) != n:
            raise DealError(f"observing a hand's cards: {len(hole)} holdings for a {n}-player game")
        k = g.num_hole_cards
        for p, h in enumerate(hole):
            if h and len(h) != k:
                raise DealError(f"observing {_text(h)} for position {p}: {len(h)} cards, the game deals {k}")
        through = g.board_cards_through(self.round)
        if len(board) != through:
            raise DealError(f"observing the board {_text(board)}: round {self.round + 1} shows {through} board cards")
        every = [c for h in hole for c in h] + list(board)
        why = self._card_problem(every, "observing a hand's cards", fresh=True)
        if why is not None:
            raise DealError(why)

    def can_observe(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> bool:
        """Whether ``hole`` and ``board`` may be every card a line shows of this state (see :meth:`verify_observe`)."""
        return _allowed(self.verify_observe, hole, board)

    def observe(self, hole: Sequence[Sequence[int]], board: Sequence[int]) -> Self:
        """The cards one line shows of this state replace the cards it knows: hole cards per position (``()`` where
        the line hides them: they become unknown) and the board of its round.

        What a reader of a seat's MATCHSTATE lines does with a state carried over from an earlier line (or from
        another seat's view): the line says every card its seat sees now, and the state says no more than the
        line (a parse from scratch of the same line gives the same state).  :meth:`reveal` instead keeps the
        cards the state knows and refuses a line that contradicts them.  DealError when the cards cannot be so.
        """
        game = self.game
        key = (id(hole), id(board), id(game), self.round)
        new: list[tuple[int, ...]]
        if key in _OBSERVED:
            new = list(hole)  # type: ignore[arg-type]  # checked already: tuples of ints all the way down
            cards = list(board)
        elif self._observes_plainly(hole, board, tuples=True):
            new = list(hole)  # type: ignore[arg-type]  # checked: tuples of ints all the way down
            cards = list(board)
            if len(_OBSERVED) >= _OBSERVED_MAX:
                _OBSERVED.clear()
            _OBSERVED[key] = (hole, board, game)
        elif self._observes_plainly(hole, board):
            new = [h if h.__class__ is tuple else tuple(h) for h in hole]
            cards = list(board)
        else:
            self.verify_observe(hole, board)
            new = [tuple(map(int, h)) for h in hole]  # numpy's ints, say: made ints
            cards = list(map(int, board))
        if self._payoffs is not None and new != self.hole:
            self._payoffs = None  # a finished hand's result cached for other cards
        self.hole = new
        self.board = cards
        return self

    def verify_show(self, position: int, cards: Sequence[int]) -> None:
        """Raise DealError unless ``position`` may show ``cards``: the hand is over, the position did not fold,
        and the cards are the ones it holds (or, where this state does not know them, could hold)."""
        r = _RULES.get(id(self.game))
        if r is not None and r[0] is self.game and position.__class__ is int and 0 <= position < r[2] \
                and self.finished and not self.folded[position] and not self.hole[position] and len(cards) == r[3]:
            seen = set(cards)  # the usual case on sets: a hidden holding shown at the end
            if len(seen) == len(cards) and seen <= r[1] and seen.isdisjoint(self.board) \
                    and seen.isdisjoint(chain.from_iterable(self.hole)) and sum(cards).__class__ is int:
                return
        elif r is None or r[0] is not self.game:
            _rules_of(self.game)
        def what() -> str:
            return f"position {position} showing {_text(cards)}"
        why = self._hole_problem(position, cards, what)
        if why is None:
            if not self.finished:
                why = f"{what()}: cards are shown only when the hand is over"
            elif self.folded[position]:
                why = f"{what()}: it folded"
            elif self.hole[position]:
                held = self.hole[position]
                wrong = [c for c in cards if c not in held]
                if wrong:
                    why = f"{what()}: it does not hold {_text(wrong)} (it holds {_text(held)})"
            else:
                why = self._card_problem(cards, what, skip=position)
        if why is not None:
            raise DealError(why)

    def can_show(self, position: int, cards: Sequence[int]) -> bool:
        """Whether ``position`` may show ``cards`` (see :meth:`verify_show`)."""
        return _allowed(self.verify_show, position, cards)

    def show(self, position: int, cards: Sequence[int]) -> Self:
        """``position`` shows ``cards`` at the end of the hand: they become known; DealError when the rules refuse."""
        self.verify_show(position, cards)
        self.hole[position] = tuple(map(int, cards))
        return self

    def swap_cards(self, hole: list[tuple[int, ...]], board: list[int]) -> tuple[list[tuple[int, ...]], list[int]]:
        """Put ``hole`` and ``board`` in place of this state's cards, unchecked, and return the cards they replace.

        The dealer's own fast loops only (``dealer.arena.fused``, ``memory``): they show each seat the view of a
        state whose cards they dealt and checked themselves (the view's cards are a part of them) and put the
        real ones back after the seat's decision; a checked operation there cost about a tenth of the loop.
        """
        old = self.hole, self.board
        self.hole, self.board = hole, board
        return old

    # ----------------------------------------------------------------- results

    @property
    def is_showdown(self) -> bool:
        """Whether the hand ended (or will end) with more than one player left."""
        return self._n_folded + 1 < self.game.num_players

    def shown_players(self) -> list[int]:
        """Positions whose cards every player sees at the end: non-folded players at a showdown."""
        if not self.finished or not self.is_showdown:
            return []
        return [p for p in range(self.game.num_players) if not self.folded[p]]

    def hand_values(self, hole: Sequence[Sequence[int]] | None = None) -> list[int]:
        """Showdown value per position (higher is better; -1 for folded players); ``hole``: other hole cards
        to rank instead of the state's."""
        g = self.game
        through = g.board_cards_through(self.round)
        board = tuple(self.board[:through])
        values = []
        showdown_value = g.ranking_for_showdown
        k = g.num_hole_cards
        holes = self.hole if hole is None else hole
        for p in range(g.num_players):
            if self.folded[p]:
                values.append(-1)
                continue
            h = holes[p]
            if len(h) != k or len(board) != through:
                raise ValueError(f"cannot rank position {p}: its cards are not all known")
            values.append(showdown_value((h if h.__class__ is tuple else tuple(h)) + board))
        return values

    def payoffs(self, values: Sequence[int] | None = None) -> list[float]:
        """Chips won (+) or lost (-) by each position, exactly as the reference computes them.

        ``values`` are showdown values per position (default: from the cards);
        each distinct spending level forms a pot split evenly among its best
        eligible hands, so values can be fractional.
        """
        if not self.finished:
            raise ValueError("the hand is not over")
        if values is None and self._payoffs is not None:
            return list(self._payoffs)
        g = self.game
        n = g.num_players
        spent = self.spent
        if self._n_folded + 1 >= n:
            total = sum(spent)
            result = [float(-spent[p]) if self.folded[p] else float(total - spent[p]) for p in range(n)]
        elif values is None:
            result = self._showdown_payoffs(self.hand_values())
        else:
            return self._showdown_payoffs(values)
        # A finished hand's result never changes; copies (a seat's view of the
        # dealer's state) share it.  Folded players' cards do not matter to it.
        self._payoffs = tuple(result)
        return result

    def payoffs_for(self, hole: Sequence[Sequence[int]]) -> list[float]:
        """What the finished hand pays each position had they held ``hole`` (``()`` for folded positions allowed),
        over this state's board; the state is left as it is."""
        if not self.finished:
            raise ValueError("the hand is not over")
        if self._n_folded + 1 >= self.game.num_players:
            return self.payoffs()
        return self._showdown_payoffs(self.hand_values(hole))

    def heads_up_value(self, me: int, share: Any, called: bool = False, opp: int | None = None) -> Any:
        """Position ``me``'s chips in a heads-up hand played to its end from here with no more chips put in:
        a fold pays what it pays; a showdown pays ``share * 2 * M - M``, ``share`` being ``me``'s share of the
        pot (a win 1, a tie 1/2) and M the bet both have matched (chips above it come back).

        ``share`` is a number, or a numpy array of one share per holding (or board): the result has its shape.
        ``called``: the bet standing now is called first (each player puts in up to its stack).
        ``opp``: the one opponent left (default ``1 - me``; in a multiway game the two players still in, the
        others' chips in the pot left aside as the heads-up searches value them).
        """
        if opp is None:
            opp = 1 - me
        spent = self.spent
        if self.folded[me] or self.folded[opp]:
            value = float(-spent[me] if self.folded[me] else spent[opp])
            return np.full(np.shape(share), value) if np.ndim(share) else value
        if called:
            stack = self.game.stack
            matched = float(min(max(spent[me], spent[opp]), stack[me], stack[opp]))
        else:
            matched = float(min(spent[me], spent[opp]))
        return share * 2 * matched - matched

    def _showdown_payoffs(self, values: Sequence[int]) -> list[float]:
        spent = self.spent
        if len(spent) == 2 and spent[0] == spent[1] > 0 and not (self.folded[0] or self.folded[1]):
            # heads-up with the pot matched: what the general arithmetic gives, without building its pots
            s = float(spent[0])
            if values[0] == values[1]:
                return [0.0, 0.0]
            return [s, -s] if values[0] > values[1] else [-s, s]
        return [self._showdown_payoff(p, values) for p in range(self.game.num_players)]

    def _showdown_payoff(self, player: int, values: Sequence[int]) -> float:
        # Same arithmetic, in the same order, as the reference's valueOfState so
        # that fractional results print identically.
        if self.folded[player]:
            return float(-self.spent[player])
        ranks: list[int] = []
        left: list[int] = []
        idx = -1
        for p in range(self.game.num_players):
            if self.spent[p] == 0:
                continue
            if p == player:
                idx = len(ranks)
            ranks.append(-1 if self.folded[p] else values[p])
            left.append(self.spent[p])
        if idx < 0:
            return 0.0
        value = 0.0
        new_idx = idx
        while True:
            size = min(left)
            win_rank = max(ranks)
            winners = ranks.count(win_rank)
            if ranks[idx] == win_rank:
                value += (size * (len(ranks) - winners)) / winners
            else:
                value -= size
            keep_r: list[int] = []
            keep_l: list[int] = []
            for i, chips in enumerate(left):
                chips -= size
                if chips == 0:
                    if i == idx:
                        return value
                    continue
                if i == idx:
                    new_idx = len(keep_l)
                keep_l.append(chips)
                keep_r.append(ranks[i])
            idx = new_idx
            ranks, left = keep_r, keep_l
