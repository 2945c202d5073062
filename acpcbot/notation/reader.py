"""Reading one seat's MATCHSTATE lines a hand at a time: each line of a hand from the state of the line before.

A seat's lines within a hand grow: the next one is most often the last one
plus one action, with the same cards, or with the new rounds' board cards
after them, or (at a showdown) with other positions' hole cards shown.
:class:`HandReader` reads such a line by applying what it adds to the last
state, and a hand's first line directly; anything else it leaves to
:func:`~acpcbot.notation.matchstate.parse_match_state` (and to its error messages).
Whatever it reads is what that full parse gives: the tests compare them
line by line, malformed lines included.
"""

from __future__ import annotations

from ..cards import CardError, parse_cards
from ..engine import Action, DealError, IllegalAction, State
from ..gamedef import GameDef
from .actions import format_action, one_action
from .betting import replay_betting
from .cardsfield import SHORT_CARDS, parse_cards_field
from .errors import ProtocolError
from .matchstate import MATCHSTATE, MatchState


class HandReader:
    """What the lines of the current hand said, to read the next line by what it adds.

    :meth:`start` and :meth:`read` tell it each line read otherwise (by the
    full parse); :meth:`step` and :meth:`extend` read a line that continues
    the last one, :meth:`first` a hand's first line; each returns None for a
    line it leaves to the full parse.
    """

    __slots__ = ("game", "head", "prefix", "cards_text", "cards", "_start", "_ahead", "_expected", "_tokens",
                 "_nolimit", "_rounds")

    def __init__(self, game: GameDef) -> None:
        self.game = game
        self.head = ""  # the current hand's "MATCHSTATE:<position>:<hand>:"
        #: the last line without its ':' and cards field (None: not read that way)
        self.prefix: str | None = None
        self.cards_text: str | None = None  # the last line's cards field
        # cards fields of the current hand already read, by (text, round)
        self.cards: dict[tuple[str, int], tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]] = {}
        self._start: State | None = None  # a hand's state before its first action (hand 0)
        # (state, action, the state after the action) made by :meth:`prepare`, and the line it expects when the
        # action leaves the round and the cards as they are, with its state
        self._ahead: tuple[MatchState, Action, State] | None = None
        self._expected: tuple[str, MatchState] | None = None
        # what betting text adding one action reads as: (the action, the rounds it ends), or None
        self._tokens: dict[str, tuple[Action, int] | None] = {}
        self._nolimit = game.is_nolimit
        self._rounds = game.num_rounds

    def start(self, head: str) -> None:
        """A hand starts with lines beginning with ``head``."""
        self.head = head
        self.cards = {}
        self._ahead = self._expected = None

    def read(self, text: str) -> None:
        """The line just read (without its line end), when the full parse or :meth:`first` read it."""
        head = self.head
        if text.startswith(head):
            # the line's cards field, which the next line of the hand most often repeats
            self.cards_text = cards = text[len(head):].partition(":")[2]
            self.prefix = text[:len(text) - len(cards) - 1]
        else:
            self.cards_text = self.prefix = None

    def first(self, text: str) -> MatchState | None:
        """A hand's first line (``MATCHSTATE:<p>:<h>::<cards>``, no betting yet) read directly; None for anything else."""
        parts = text.split(":")
        if len(parts) != 5 or parts[3] or parts[0] != MATCHSTATE:
            return None
        p, h = parts[1], parts[2]
        if not (0 < len(p) <= 2 and 0 < len(h) <= 9 and p.isdigit() and h.isdigit() and (p + h).isascii()):
            return None
        game = self.game
        position, hand_id = int(p), int(h)
        if position >= game.num_players:
            return None
        start = self._start
        if start is None:
            start = self._start = State(game, 0)
        if start.round != 0:
            return None  # a hand that starts past its first round: the full parse judges it
        try:
            hole, board = parse_cards_field(parts[4], game, 0, "", check=False)  # deal checks the cards
        except ProtocolError:
            return None
        if not hole[position]:
            return None
        state = start.copy()
        state.hand_id = hand_id
        try:
            state.deal(hole, board)
        except DealError:
            return None
        return MatchState(position, hand_id, state, "")

    def step(self, text: str, last: MatchState) -> MatchState | None:
        """The usual line of a hand in progress (the last one plus one action); None for anything else.

        The action is in the same round with the same cards, or ends rounds
        with their new board cards after the last cards field, or ends the
        hand with other positions' hole cards shown.
        """
        expected = self._expected
        if expected is not None:
            self._expected = None
            if text == expected[0] and self._ahead is not None and self._ahead[0] is last:
                # this seat's own action, the round going on: the line prepare expected
                self._ahead = None
                self.prefix = text[:len(text) - len(self.cards_text) - 1]  # type: ignore[arg-type]
                return expected[1]
        prefix = self.prefix  # the last line up to the end of its betting
        if prefix is None or not text.startswith(prefix):
            return None
        colon = text.find(":", len(prefix))
        if colon < 0 or text.find(":", colon + 1) >= 0:
            return None
        added = text[len(prefix):colon]
        tokens = self._tokens
        if added in tokens:
            token = tokens[added]
        else:
            action = one_action(added, self._nolimit)
            token = None if action is None else (action, len(added) - len(added.rstrip("/")))
            if len(tokens) < 4096:
                tokens[added] = token
        state = last.state
        if token is None or state.finished:
            return None
        action, rounds = token
        r = state.round
        ahead = self._ahead
        if ahead is not None and ahead[0] is last and ahead[1] == action:
            state = ahead[2]  # this seat's own action, applied while the dealer read it
            self._ahead = None
        else:
            state = state.copy()
            try:
                state.apply(action)
            except IllegalAction:
                return None
        if state.round != r + rounds or r + rounds >= self._rounds:
            return None  # a round over without its '/', or a '/' too many: the full parse says so
        cards = text[colon + 1:]
        known = self.cards_text
        if cards != known:
            if rounds:
                dealt = self._dealt(cards, known, r, state)
                if dealt is None:
                    return None
                try:
                    state.deal_board(dealt)  # the engine checks them as the full parse does
                except DealError:
                    return None
            elif state.finished:
                shown = self._shown(cards, known)  # type: ignore[arg-type]
                if shown is None:
                    return None
                try:
                    for p, h in shown:  # each checked against the cards known, those shown before it included
                        state.show(p, h)
                except DealError:
                    return None  # a state of this reader's own (a copy, or the one prepared): the full parse decides
            else:
                return None
            self.cards_text = cards
        elif rounds:
            return None  # new rounds without their board cards
        self.prefix = text[:colon]
        return MatchState(last.position, last.hand_id, state, text[len(self.head):colon])

    def prepare(self, last: MatchState, action: Action) -> None:
        """This seat answered ``last`` with ``action`` (legal): apply it now, for the line that will show it.

        Called once the reply is sent, while the dealer reads it, so that
        :meth:`step` finds the state of that line made.
        """
        self._ahead = self._expected = None
        state = last.state.copy()
        try:
            state.apply(action)
        except IllegalAction:
            return
        self._ahead = (last, action, state)
        known = self.cards_text
        if state.round == last.state.round and not state.finished and self.prefix is not None and known is not None \
                and last.betting is not None:
            # the line showing the action, as step would read it: the same cards, one action more in the round
            text = format_action(action, self.game)
            self._expected = (f"{self.prefix}{text}:{known}",
                              MatchState(last.position, last.hand_id, state, last.betting + text))

    def extend(self, text: str, last: MatchState) -> MatchState | None:
        """``text`` read as ``last``'s line plus the actions it adds; None when it is not that (the full parse decides).

        The result is what ``parse_match_state`` gives: the same position and
        hand, the previous state with the new actions replayed, the cards of
        the line.
        """
        head = self.head
        if not text.startswith(head):
            return None
        betting, sep, cards = text[len(head):].partition(":")
        before = last.betting
        if not sep or ":" in cards or before is None or not betting.startswith(before):
            return None
        added = betting[len(before):]
        if not added or added[0].isdigit():
            return None  # the same betting (a repeated state), or a raise size that grew
        game = self.game
        state = last.state.copy()
        first_round = state.round
        try:
            action = one_action(added, game.is_nolimit)
            if action is not None and not state.finished:
                # the usual line: one action more, and the '/'s of the rounds it ends
                state.apply(action)
                rounds = len(added) - len(added.rstrip("/"))
                if state.round != first_round + rounds or first_round + rounds >= game.num_rounds:
                    return None
            else:
                replay_betting(added, game, state, before.count("/"))
            known = self.cards_text
            if cards != known or state.round != first_round:
                dealt = self._dealt(cards, known, first_round, state) if state.round > first_round else None
                if dealt is not None and state.can_deal_board(dealt):
                    state.deal_board(dealt)  # checked twice, on this rarer path: a refused deal is parsed whole
                else:
                    got = self.cards.get((cards, state.round))
                    if got is None:
                        hole, board = parse_cards_field(cards, game, state.round, "", check=False)  # observe checks
                        got = self.cards[(cards, state.round)] = (tuple(hole), tuple(board))
                    if not got[0][last.position]:
                        return None
                    state.observe(*got)
        except (ProtocolError, IllegalAction, CardError, DealError):
            return None  # the full parse says what is wrong with the whole line
        return MatchState(last.position, last.hand_id, state, betting)

    def _dealt(self, cards: str, known: str | None, first_round: int, state: State) -> list[int] | None:
        """The board cards a line adds when its cards field is the last one plus the new rounds' groups, else None.

        Each round's count is checked here; the cards themselves (of the
        game's deck, none seen before in the hand) by the engine's
        ``deal_board``, as the full parse checks them.
        """
        if known is None or not cards.startswith(known) or cards[len(known):len(known) + 1] != "/":
            return None
        groups = cards[len(known) + 1:].split("/")
        if len(groups) != state.round - first_round:
            return None
        game = self.game
        counts = game.num_board_cards
        short = SHORT_CARDS.get
        new: list[int] = []
        for k, text in enumerate(groups):
            if len(text) != 2 * counts[first_round + 1 + k]:
                return None
            got = short(text)
            if got is None:
                try:
                    got = parse_cards(text, allow_duplicates=True)
                except CardError:
                    return None
            new += got
        return new

    def _shown(self, cards: str, known: str) -> list[tuple[int, tuple[int, ...]]] | None:
        """(position, cards) shown by a final line whose cards field is the last one with other positions' cards
        shown, else None.

        Whole groups are checked here; the cards (of the game's deck, none
        seen before) by the engine's ``show``, as the full parse checks them.
        """
        game = self.game
        if game.num_board_cards[0]:
            return None  # the first round's board shares the last group: the full parse reads it
        cut = known.find("/")
        board = known[cut:] if cut >= 0 else ""
        if not cards.endswith(board):
            return None
        groups = cards[:len(cards) - len(board)].split("|")
        before = known[:len(known) - len(board)].split("|")
        if len(groups) != len(before) or "/" in groups[-1]:
            return None
        shown: list[tuple[int, tuple[int, ...]]] = []
        short = SHORT_CARDS.get
        k = self.game.num_hole_cards
        for p, t in enumerate(groups):
            if t != before[p]:
                got = short(t)
                if before[p] or got is None or len(got) != k:
                    return None
                shown.append((p, got))
        return shown
