"""The ACPC 2.0.0 text protocol: MATCHSTATE lines and actions to and from engine states.

``parse_match_state`` replays the betting string through the engine, so a
parsed state knows whose turn it is, the pot and the legal actions.  Any
malformed or impossible line raises :class:`ProtocolError` saying what and
where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from .cards import CardError, cards_to_text, parse_cards
from .engine import CALL, FOLD, RAISE, Action, ActionType, IllegalAction, State
from .gamedef import INT32_MAX, UINT32_MAX, GameDef, bounded_int, clip

VERSION_LINE = "VERSION:2.0.0\r\n"
MATCHSTATE = "MATCHSTATE"


class ProtocolError(ValueError):
    """A protocol line that cannot be parsed or describes an impossible hand."""


@dataclass
class MatchState:
    """One seat's view of a hand: its position, the hand number and the engine state."""

    position: int
    hand_id: int
    state: State
    #: the betting text the state was replayed from (None: not parsed from text)
    betting: str | None = field(default=None, repr=False, compare=False)

    @property
    def is_my_turn(self) -> bool:
        """Whether this position is the one to act."""
        return self.state.current_player == self.position


# --------------------------------------------------------------------- actions

_ACTION_CHARS = {"f": ActionType.FOLD, "F": ActionType.FOLD,
                 "c": ActionType.CALL, "C": ActionType.CALL, "k": ActionType.CALL, "K": ActionType.CALL,
                 "r": ActionType.RAISE, "R": ActionType.RAISE, "b": ActionType.RAISE, "B": ActionType.RAISE}
_FIXED = {ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: RAISE}
#: the letters the reference reads as an action (any other character is its invalid action)
ACTION_LETTERS = frozenset(_ACTION_CHARS)
_SIZE = re.compile(r"[+-]?[0-9]+")
#: what a size beyond 64 bits reads as: the C library saturates there
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def read_action(text: str, game: GameDef) -> tuple[Action, int]:
    """Read one action at the start of ``text`` with the reference's aliases; return it and its length.

    ``k``/``K`` mean call, ``b``/``B`` raise, upper case is accepted.  A
    no-limit raise must carry a size; anything after the action is left to
    the caller.  A size beyond 64 bits reads as the nearest 64-bit value,
    as C's ``strtol`` saturates (no such raise is ever legal).
    """
    if not text:
        raise ProtocolError("missing action")
    kind = _ACTION_CHARS.get(text[0])
    if kind is None:
        raise ProtocolError(f"unknown action character {text[0]!r} in {clip(text, 40)}")
    if kind == ActionType.RAISE and game.is_nolimit:
        m = _SIZE.match(text, 1)
        if not m:
            raise ProtocolError(f"no-limit raise without a size in {clip(text, 40)}")
        size = bounded_int(m.group(), INT64_MIN, INT64_MAX)
        assert size is not None  # the pattern matched a whole number
        return Action(ActionType.RAISE, size), m.end()
    return _FIXED[kind], 1


def parse_action(text: str, game: GameDef) -> Action:
    """Parse a whole action string (``f``, ``c``, ``r``, ``r500``...); nothing may follow it."""
    action, used = read_action(text, game)
    if used != len(text):
        raise ProtocolError(f"unexpected text {clip(text[used:], 40)} after action {clip(text[:used], 40)}")
    return action


def format_action(action: Action, game: GameDef) -> str:
    """Protocol text of an action: ``f``, ``c``, ``r`` or ``r<size>`` in no-limit games."""
    kind = action[0]
    if kind == ActionType.RAISE:
        return f"r{action[1]}" if game.is_nolimit else "r"
    return "f" if kind == ActionType.FOLD else "c"


# --------------------------------------------------------------------- betting

_NL_TOKEN = re.compile(r"([fc])|r([0-9]+)")


def _actions_of_round(text: str, game: GameDef) -> list[Action]:
    if game.is_limit:
        out = []
        for ch in text:
            if ch == "f":
                out.append(FOLD)
            elif ch == "c":
                out.append(CALL)
            elif ch == "r":
                out.append(RAISE)
            else:
                raise ProtocolError(f"invalid character {ch!r} in limit betting {clip(text)}")
        return out
    out = []
    pos = 0
    for m in _NL_TOKEN.finditer(text):
        if m.start() != pos:
            break
        pos = m.end()
        if m.group(1) == "f":
            out.append(FOLD)
        elif m.group(1) == "c":
            out.append(CALL)
        else:
            size = bounded_int(m.group(2), 0, INT32_MAX + 1)
            if size is None or size > INT32_MAX:
                # no stack is larger: the reference keeps sizes in 32 bits
                raise ProtocolError(f"raise size {clip(m.group(2), 20)} in no-limit betting is above {INT32_MAX}")
            out.append(Action(ActionType.RAISE, size))
    if pos != len(text):
        raise ProtocolError(f"invalid no-limit betting {clip(text)} at character {pos + 1}")
    return out


def replay_betting(betting: str, game: GameDef, state: State, first_round: int = 0) -> State:
    """Apply a betting string (rounds split by ``/``) to a state; errors name the action.

    ``first_round`` is the round the text starts in: 0 for a whole betting
    string on a fresh state, else the round of ``state`` when ``betting`` is
    what a later line adds to an earlier one.
    """
    rounds = betting.split("/")
    if first_round + len(rounds) > game.num_rounds:
        raise ProtocolError(f"betting {clip(betting)} has {first_round + len(rounds)} rounds; "
                            f"the game has {game.num_rounds}")
    for r, text in enumerate(rounds, start=first_round):
        for i, action in enumerate(_actions_of_round(text, game)):
            if state.finished or state.round != r:
                raise ProtocolError(f"betting {clip(betting)}: action {i + 1} of round {r + 1} comes after "
                                    f"{'the hand ended' if state.finished else 'the round ended'}")
            try:
                state.apply(action)
            except IllegalAction as exc:
                raise ProtocolError(f"betting {clip(betting)}: action {i + 1} of round {r + 1} "
                                    f"({format_action(action, game)}) is illegal: {exc}") from None
    last = first_round + len(rounds) - 1
    if state.round != last:
        if state.round > last:
            raise ProtocolError(f"betting {clip(betting)}: round {last + 1} is over but no '/' follows it")
        raise ProtocolError(f"betting {clip(betting)}: '/' before round {state.round + 1} is over")
    return state


def format_betting(state: State) -> str:
    """The betting string of a state, as the reference prints it."""
    game = state.game
    nolimit = game.is_nolimit
    parts = []
    for r in range(state.round + 1):
        acts = state.actions[r] if r < len(state.actions) else ()
        parts.append("".join(
            ("r%d" % a[1] if nolimit else "r") if a[0] == ActionType.RAISE else ("f" if a[0] == ActionType.FOLD else "c")
            for a in acts))
    return "/".join(parts)


# ----------------------------------------------------------------------- cards

def _short_cards() -> dict[str, tuple[int, ...]]:
    """The cards of every text of at most two cards (two different ones): what most groups of a cards field are."""
    one = {cards_to_text((c,)): c for c in range(52)}
    out: dict[str, tuple[int, ...]] = {"": ()}
    for a, x in one.items():
        out[a] = (x,)
        for b, y in one.items():
            if x != y:
                out[a + b] = (x, y)
    return out


#: the cards of a text of at most two (different) cards, looked up (:func:`parse_cards` reads the rest)
_SHORT_CARDS = _short_cards()
#: the cards of a deck of so many ranks and suits, by (ranks, suits)
_DECKS: dict[tuple[int, int], frozenset[int]] = {}


def _deck_of(game: GameDef) -> frozenset[int]:
    key = (game.num_ranks, game.num_suits)
    cards = _DECKS.get(key)
    if cards is None:
        low_rank, low_suit = 13 - game.num_ranks, 4 - game.num_suits
        cards = _DECKS[key] = frozenset(c for c in range(52) if (c >> 2) >= low_rank and (c & 3) >= low_suit)
    return cards


def parse_cards_field(text: str, game: GameDef, round_: int, what: str) -> tuple[list[tuple[int, ...]], list[int]]:
    """Hole cards per position and the board from ``h0|h1|...[/b1/b2...]``.

    A game that deals board cards in the first round writes them right
    after the last hole-card group (``Jd|Kd``: the last position's cards
    hidden, ``Kd`` the board); the game's card counts tell them apart.
    """
    n = game.num_players
    groups = text.split("/")
    holes_text = groups[0].split("|")
    if len(holes_text) != n:
        raise ProtocolError(f"{what}: {len(holes_text)} hole-card groups in {clip(groups[0])}, "
                            f"the game has {n} players")
    if len(groups) != round_ + 1:
        raise ProtocolError(f"{what}: {len(groups) - 1} board groups in {clip(text)}, "
                            f"expected {round_} for round {round_ + 1}")
    k = game.num_hole_cards
    counts = game.num_board_cards
    first_board = counts[0]
    hole: list[tuple[int, ...]] = []
    per_round: list[tuple[int, ...]] = [()]
    short = _SHORT_CARDS.get
    try:
        for p, t in enumerate(holes_text):
            cards = short(t)
            if cards is None:
                cards = parse_cards(t, allow_duplicates=True)
            if p == n - 1 and first_board:
                # the first round's board closes the last group, whether that position's cards are shown or not
                if len(cards) < first_board:
                    raise ProtocolError(f"{what}: round 1 shows {len(cards)} board cards, "
                                        f"the game deals {first_board}")
                cards, per_round[0] = cards[:len(cards) - first_board], cards[len(cards) - first_board:]
            if len(cards) != k and cards:
                raise ProtocolError(f"{what}: position {p} shows {len(cards)} hole cards, the game deals {k}")
            hole.append(cards)
        for t in groups[1:]:
            cards = short(t)
            if cards is None:
                # a flop: two short texts, or whatever parse_cards makes of it
                a, b = short(t[:4]), short(t[4:])
                cards = a + b if a is not None and b is not None and len(t) == 6 else parse_cards(t, True)
            per_round.append(cards)
    except CardError as exc:
        raise ProtocolError(f"{what}: {exc}") from None
    board: list[int] = []
    for r, cards in enumerate(per_round):
        if len(cards) != counts[r]:
            raise ProtocolError(f"{what}: round {r + 1} shows {len(cards)} board cards, "
                                f"the game deals {counts[r]}")
        board += cards
    seen = [c for h in hole for c in h] + board
    if len(set(seen)) != len(seen):
        raise ProtocolError(f"{what}: a card appears twice in {clip(text)}")
    deck = _deck_of(game)
    if not deck.issuperset(seen):
        c = next(c for c in seen if c not in deck)
        raise ProtocolError(f"{what}: card {cards_to_text([c])} is not in this game's deck")
    return hole, board


#: the text of each card, by card number
_CARD_TEXTS = tuple(cards_to_text((c,)) for c in range(52))


class CardsText:
    """The one encoder of a cards field (``h0|h1|...`` then the board by round), for every line of one hand.

    Built once per hand from the state holding its cards; what a position
    may see comes from the engine (:meth:`State.visible_positions`), the
    text of each hole-card group and board prefix is computed once.
    """

    __slots__ = ("hole", "boards", "_groups")

    def __init__(self, state: State) -> None:
        # built for every hand a dealer plays: each card's text is looked up, not formatted
        texts = _CARD_TEXTS
        self.hole = ["".join([texts[c] for c in h]) for h in state.hole]
        game = state.game
        nb = game.num_board_cards
        board = state.board
        text = "".join([texts[c] for c in board[:nb[0]]])
        boards = self.boards = [text]
        start = nb[0]
        for r in range(1, game.num_rounds):
            text += "/" + "".join([texts[c] for c in board[start:start + nb[r]]])
            start += nb[r]
            boards.append(text)
        self._groups: dict[tuple[int, ...], str] = {}

    def holes(self, seen: Sequence[int]) -> str:
        """The hole-card groups with the cards of the positions in ``seen``."""
        key = tuple(seen)
        text = self._groups.get(key)
        if text is None:
            hole = self.hole
            if len(key) == 1:  # a hand in progress: one position's cards, asked for every position of every hand
                p = key[0]
                text = "|" * p + hole[p] + "|" * (len(hole) - 1 - p)
            else:
                text = "|".join([h if p in key else "" for p, h in enumerate(hole)])
            self._groups[key] = text
        return text

    def field(self, state: State, viewer: int | None) -> str:
        """The cards field ``viewer`` gets of ``state`` (this hand, at any point); None: every hole card, as logs write it."""
        return self.holes(state.visible_positions(viewer)) + self.boards[state.round]


def format_cards(state: State, viewer: int | None) -> str:
    """Card text as ``viewer`` sees it (None: every hole card, as in the log)."""
    return CardsText(state).field(state, viewer)


# ------------------------------------------------------------------ matchstate

def _split_match_state(line: str) -> tuple[str, str, str, str, str, str]:
    """Split ``MATCHSTATE:pos:hand:betting:cards[:rest]`` into its fields (rest may be '')."""
    fields = line.split(":", 5)
    if len(fields) < 5 or fields[0] != MATCHSTATE:
        raise ProtocolError(f"not a MATCHSTATE line: {clip(line)}")
    return fields[0], fields[1], fields[2], fields[3], fields[4], fields[5] if len(fields) > 5 else ""


def _uint(text: str, what: str, line: str, limit: int) -> int:
    """An unsigned decimal field of at most ``limit``; ProtocolError naming it otherwise (never a crash on length)."""
    value = bounded_int(text, 0, limit + 1) if text[:1].isdigit() else None
    if value is None:
        raise ProtocolError(f"{what} {clip(text, 40)} is not an unsigned integer in {clip(line)}")
    if value > limit:
        shown = text if len(text) <= 20 else clip(text, 20)
        raise ProtocolError(f"{what} {shown} out of range 0..{limit} in {clip(line)}")
    return value


def parse_match_state(line: str, game: GameDef, previous: MatchState | None = None) -> MatchState:
    """Parse ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (no trailing action).

    ``previous``, the state parsed from the line before in the same hand,
    lets a line that extends it replay only the new actions (each line
    usually adds one); the result is the same as a parse from scratch.
    """
    line = line.rstrip("\r\n")
    _, pos_text, hand_text, betting, cards, rest = _split_match_state(line)
    if rest or line.count(":") > 4:
        raise ProtocolError(f"unexpected text after the cards in {clip(line)}")
    return _build(pos_text, hand_text, betting, cards, game, line, previous)


def parse_reply(line: str, game: GameDef) -> tuple[MatchState, str]:
    """Split a client reply ``<matchstate>:<action>`` into the parsed state and the action text."""
    line = line.rstrip("\r\n")
    _, pos_text, hand_text, betting, cards, rest = _split_match_state(line)
    if line.count(":") < 5:
        raise ProtocolError(f"no ':<action>' after the state in {clip(line)}")
    return _build(pos_text, hand_text, betting, cards, game, line), rest


def _build(pos_text: str, hand_text: str, betting: str, cards: str, game: GameDef, line: str,
           previous: MatchState | None = None) -> MatchState:
    position = _uint(pos_text, "position", line, game.num_players - 1)
    hand_id = _uint(hand_text, "hand number", line, UINT32_MAX)  # the reference's handId is 32 bits
    state = _extend(previous, position, hand_id, betting, game)
    if state is None:
        state = replay_betting(betting, game, State(game, hand_id))
    hole, board = _cards_of(cards, game, state.round, hand_id)
    state.hole = list(hole)
    state.board = list(board)
    if not hole[position]:
        raise ProtocolError(f"hand {hand_id}: position {position} is not shown its own hole cards")
    return MatchState(position, hand_id, state, betting)


def _extend(previous: MatchState | None, position: int, hand_id: int, betting: str, game: GameDef) -> State | None:
    """The previous line's state with only the actions this line adds, or None to replay from scratch."""
    if previous is None or previous.betting is None or previous.position != position \
            or previous.hand_id != hand_id or previous.state.game != game:
        return None
    before = previous.betting
    if not betting.startswith(before):
        return None
    added = betting[len(before):]
    if added[:1].isdigit():
        return None  # the earlier line ended inside what is now a longer raise size
    state = previous.state.copy()
    try:
        return replay_betting(added, game, state, before.count("/"))
    except ProtocolError:
        return None  # replay from scratch for an error message about the whole line


@lru_cache(maxsize=4096)
def _cards_of(cards: str, game: GameDef, round_: int, hand_id: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    # Cached: within a hand most lines repeat the card text of the line before.
    hole, board = parse_cards_field(cards, game, round_, f"hand {hand_id}")
    return tuple(hole), tuple(board)


def format_match_state(state: State, viewer: int) -> str:
    """The MATCHSTATE line (without line end) the dealer sends to position ``viewer``."""
    return f"{MATCHSTATE}:{viewer}:{state.hand_id}:{format_betting(state)}:{format_cards(state, viewer)}"


def format_reply(state_text: str, action: Action, game: GameDef) -> str:
    """The client's reply line: the exact state text received, ``:``, the action and CRLF."""
    return f"{state_text.rstrip(_LINE_END)}:{format_action(action, game)}\r\n"


_LINE_END = "\r\n"
