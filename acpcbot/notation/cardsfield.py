"""The cards field: hole-card groups split by ``|``, then the board round by round split by ``/``.

:func:`parse_cards_field` reads one; :class:`CardsText` writes every
field of one hand, what each position may see coming from the engine.
"""

from __future__ import annotations

from typing import Sequence

from ..cards import CardError, cards_to_text, parse_cards
from ..engine import State
from ..gamedef import GameDef, clip
from ..showdown import deck_of
from .errors import ProtocolError


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
SHORT_CARDS = _short_cards()
def parse_cards_field(text: str, game: GameDef, round_: int, what: str,
                      check: bool = True) -> tuple[list[tuple[int, ...]], list[int]]:
    """Hole cards per position and the board from ``h0|h1|...[/b1/b2...]``.

    A game that deals board cards in the first round writes them right
    after the last hole-card group (``Jd|Kd``: the last position's cards
    hidden, ``Kd`` the board); the game's card counts tell them apart.
    ``check=False`` leaves out the check that no card is given twice and
    every card is of the game's deck, for a caller that hands the cards
    to the engine's dealing operations, which check them.
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
    short = SHORT_CARDS.get
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
    if not check:
        return hole, board
    seen = [c for h in hole for c in h] + board
    if len(set(seen)) != len(seen):
        raise ProtocolError(f"{what}: a card appears twice in {clip(text)}")
    deck = deck_of(game)
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
