"""Cards: ACPC text, decks of any game, treys conversion."""

import pytest
from treys import Card

from acpcbot.cards import (
    RANK_CHARS,
    SUIT_CHARS,
    CardError,
    card_to_text,
    cards_to_text,
    dealing_order,
    deck,
    parse_card,
    parse_cards,
    to_treys,
)


def test_card_numbering_is_rank_times_four_plus_suit():
    assert parse_card("2c") == 0 and parse_card("2d") == 1 and parse_card("2s") == 3
    assert parse_card("3c") == 4 and parse_card("As") == 51 and parse_card("Th") == 8 * 4 + 2


def test_text_round_trip_for_every_card():
    for c in range(52):
        assert parse_card(card_to_text(c)) == c
    assert cards_to_text(parse_cards("AsKd7h")) == "AsKd7h"


def test_treys_conversion_matches_treys():
    for r in RANK_CHARS:
        for s in SUIT_CHARS:
            assert to_treys(parse_card(r + s)) == Card.new(r + s)


def test_small_decks_use_the_highest_ranks_and_suits():
    assert cards_to_text(deck(4, 1)) == "JsQsKsAs"  # 3-player Kuhn
    assert cards_to_text(deck(3, 2)) == "QhQsKhKsAhAs"  # Leduc
    assert len(deck()) == 52


def test_dealing_order_is_suit_by_suit():
    assert cards_to_text(dealing_order(3, 2)) == "QhKhAhQsKsAs"


@pytest.mark.parametrize("text,message", [
    ("as", "rank 'a' has the wrong case"),
    ("AS", "suit 'S' has the wrong case"),
    ("1s", "unknown rank character '1'"),
    ("Ax", "unknown suit character 'x'"),
    ("Asd", "odd length"),
    ("AsAs", "appears twice"),
])
def test_bad_card_text(text, message):
    with pytest.raises(CardError, match=message):
        parse_cards(text)


def test_duplicates_can_be_allowed():
    assert parse_cards("AsAs", allow_duplicates=True) == (51, 51)


def test_bad_deck_sizes():
    with pytest.raises(CardError):
        deck(14, 4)
    with pytest.raises(CardError):
        card_to_text(52)
