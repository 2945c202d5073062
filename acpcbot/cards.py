"""Cards as small ints, in the reference dealer's numbering.

A card is ``rank * 4 + suit`` with ranks 0..12 meaning 2..A and suits 0..3
meaning c, d, h, s.  ACPC text writes a card as rank then suit (``As``).
"""

from __future__ import annotations

from typing import Iterable, Sequence

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_RANKS = 13
NUM_SUITS = 4

_CARD_BY_TEXT = {r + s: ri * 4 + si for ri, r in enumerate(RANK_CHARS) for si, s in enumerate(SUIT_CHARS)}
_TEXT_BY_CARD = [RANK_CHARS[c // 4] + SUIT_CHARS[c % 4] for c in range(52)]


class CardError(ValueError):
    """Card text that is not valid ACPC card text."""


def make_card(rank: int, suit: int) -> int:
    """The card of rank 0..12 (2..A) and suit 0..3 (c d h s)."""
    return rank * 4 + suit


def rank_of(card: int) -> int:
    """Rank index 0..12 (2..A) of a card."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit index 0..3 (c d h s) of a card."""
    return card & 3


def card_to_text(card: int) -> str:
    """Two-character ACPC text of one card (``As``)."""
    if not 0 <= card < 52:
        raise CardError(f"card index {card!r} out of range 0..51")
    return _TEXT_BY_CARD[card]


def cards_to_text(cards: Iterable[int]) -> str:
    """ACPC text of several cards, concatenated (``AsKd``)."""
    return "".join(_TEXT_BY_CARD[c] for c in cards)


def _short(text: str, limit: int = 40) -> str:
    # error messages quote at most ``limit`` characters of card text (a line may be a megabyte long)
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def _describe(ch: str, allowed: str, what: str) -> str:
    if ch.lower() in allowed or ch.upper() in allowed:
        return f"{what} {ch!r} has the wrong case (expected one of {allowed!r})"
    return f"unknown {what} character {ch!r} (expected one of {allowed!r})"


def parse_card(text: str) -> int:
    """Parse one card (``As``); ranks are upper case, suits lower case."""
    card = _CARD_BY_TEXT.get(text)
    if card is not None:
        return card
    if len(text) != 2:
        raise CardError(f"card {_short(text)} must be exactly two characters (rank then suit)")
    if text[0] not in RANK_CHARS:
        raise CardError(f"card {text!r}: " + _describe(text[0], RANK_CHARS, "rank"))
    raise CardError(f"card {text!r}: " + _describe(text[1], SUIT_CHARS, "suit"))


def parse_cards(text: str, allow_duplicates: bool = False) -> tuple[int, ...]:
    """Parse concatenated card text (``AsKd7h``) into a tuple of cards."""
    if len(text) % 2:
        raise CardError(f"card text {_short(text)} has an odd length; every card is two characters")
    get = _CARD_BY_TEXT.get
    cards = tuple(get(text[i:i + 2], -1) for i in range(0, len(text), 2))
    if -1 in cards:
        bad = text[2 * cards.index(-1):2 * cards.index(-1) + 2]
        parse_card(bad)  # raises with the precise reason
    if not allow_duplicates and len(set(cards)) != len(cards):
        seen: set[int] = set()
        for c in cards:
            if c in seen:
                raise CardError(f"card {card_to_text(c)} appears twice in {_short(text)}")
            seen.add(c)
    return cards


def deck(num_ranks: int = NUM_RANKS, num_suits: int = NUM_SUITS) -> tuple[int, ...]:
    """The cards of a game's deck: its highest ranks and highest suits, in card order."""
    if not 1 <= num_ranks <= NUM_RANKS or not 1 <= num_suits <= NUM_SUITS:
        raise CardError(f"no deck has {num_ranks} ranks and {num_suits} suits")
    return tuple(sorted(make_card(r, s) for r in range(NUM_RANKS - num_ranks, NUM_RANKS)
                        for s in range(NUM_SUITS - num_suits, NUM_SUITS)))


def dealing_order(num_ranks: int = NUM_RANKS, num_suits: int = NUM_SUITS) -> list[int]:
    """The deck in the order the reference dealer lays it out before dealing.

    The reference builds its deck suit by suit (all clubs, then diamonds...),
    each suit from low rank to high; the deal vectors depend on this order.
    """
    return [make_card(r, s) for s in range(NUM_SUITS - num_suits, NUM_SUITS)
            for r in range(NUM_RANKS - num_ranks, NUM_RANKS)]


# treys encodes a card as prime | rank bit | suit bit | rank nibble; suits are
# 1 s, 2 h, 4 d, 8 c.  Built here once so conversion is a list lookup.
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_TREYS_SUIT = (8, 4, 2, 1)
TREYS_INT = tuple((_PRIMES[c >> 2]) | ((c >> 2) << 8) | (_TREYS_SUIT[c & 3] << 12) | (1 << (16 + (c >> 2)))
                  for c in range(52))


def to_treys(card: int) -> int:
    """The treys integer of a card."""
    return TREYS_INT[card]


def to_treys_list(cards: Sequence[int]) -> list[int]:
    """treys integers of several cards."""
    t = TREYS_INT
    return [t[c] for c in cards]
