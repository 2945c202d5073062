"""The engine's ``observe``: a line's cards replace the cards a state knows (what a reader of a seat's lines does).

Golden facts: hidden cards become unknown (``reveal`` would keep them), a
line that contradicts the state's cards wins (a parse from scratch gives the
same state), the refusals name what is wrong, and a finished hand's result
is worked again for the new cards.
"""

from __future__ import annotations

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, DealError, State
from acpcbot.gamedef import load_game
from acpcbot.notation.matchstate import parse_match_state


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text)


def on_the_flop() -> State:
    """hulhe: both players dealt, the preflop called and checked, the flop 2c7h9d on the board."""
    st = State(load_game("hulhe")).deal([c("AsKs"), c("QhQd")], ())
    st.apply(CALL).apply(CALL)
    assert st.round == 1
    return st.deal_board(c("2c7h9d"))


def test_hidden_cards_become_unknown_where_reveal_keeps_them():
    kept = on_the_flop().reveal([c("AsKs"), ()], c("2c7h9d"))
    assert kept.hole == [c("AsKs"), c("QhQd")]
    seen = on_the_flop().observe([c("AsKs"), ()], c("2c7h9d"))
    assert seen.hole == [c("AsKs"), ()] and seen.board == list(c("2c7h9d"))


def test_a_line_that_contradicts_the_state_wins():
    st = on_the_flop()
    assert not st.can_reveal([(), c("JcJd")], c("3c4c5c"))
    st.observe([(), c("JcJd")], c("3c4c5c"))
    assert st.hole == [(), c("JcJd")] and st.board == list(c("3c4c5c"))


def test_parsing_after_an_earlier_line_gives_the_parse_from_scratch():
    game = load_game("hulhe")
    first = parse_match_state("MATCHSTATE:0:7:cc/:AsKs|/2c7h9d", game)
    # the same hand, one action more, other hole cards: the line says what the seat sees
    line = "MATCHSTATE:0:7:cc/r:QhQd|/2c7h9d"
    after = parse_match_state(line, game, first).state
    scratch = parse_match_state(line, game).state
    assert after.hole == scratch.hole == [c("QhQd"), ()]
    assert after.board == scratch.board and after.spent == scratch.spent


@pytest.mark.parametrize(("hole", "board", "why"), [
    ([c("AsKs"), ()], c("2c7h9dTc"), "round 2 shows 3 board cards"),
    ([c("AsKs"), ()], c("2c7h"), "round 2 shows 3 board cards"),
    ([c("AsKs"), c("As2d")], c("2c7h9d"), "card As is given twice"),
    ([c("AsKs"), ()], c("2c7hKs"), "card Ks is given twice"),
    ([c("AsKsQs"), ()], c("2c7h9d"), "3 cards, the game deals 2"),
    ([c("AsKs")], c("2c7h9d"), "1 holdings for a 2-player game"),
    ([(51.0, 50), ()], c("2c7h9d"), "card 51.0 is not in the deck"),
])
def test_refused_cards_say_why(hole, board, why):
    st = on_the_flop()
    assert not st.can_observe(hole, board)
    with pytest.raises(DealError, match=why):
        st.observe(hole, board)
    assert st.hole == [c("AsKs"), c("QhQd")]  # a refused line changes nothing


def test_a_card_outside_a_small_deck_is_refused():
    st = State(load_game("leduc"))
    assert st.can_observe([c("Ks"), ()], ())
    with pytest.raises(DealError, match="card 2s is not in the deck"):
        st.observe([c("2s"), ()], ())


def test_numpy_cards_are_taken_as_ints():
    st = on_the_flop().observe([tuple(np.array(c("AsKs"))), ()], np.array(c("2c7h9d")))
    assert st.hole[0] == c("AsKs") and st.board == list(c("2c7h9d"))


def test_cards_checked_once_are_checked_again_in_another_round():
    hole, board = (c("AsKs"), ()), c("2c7h9d")
    flop = on_the_flop()
    flop.observe(hole, board)  # checked for the flop: three board cards
    flop.apply(CALL).apply(CALL)
    assert flop.round == 2
    with pytest.raises(DealError, match="round 3 shows 4 board cards"):
        flop.observe(hole, board)


def test_a_finished_hands_result_is_worked_again_for_the_new_cards():
    st = State(load_game("hulhe")).deal([c("AsAh"), c("KsKh")], c("2c7d9s3h4d"))
    while not st.finished:
        st.apply(CALL)
    assert st.payoffs() == [10.0, -10.0]  # hand-worked: the big blind of 10 called, then checked down
    st.observe([c("KsKh"), c("AsAh")], c("2c7d9s3h4d"))
    assert st.payoffs() == [-10.0, 10.0]


def test_numpy_cards_are_stored_as_ints():
    st = on_the_flop().observe([tuple(np.array(c("AsKs"))), ()], np.array(c("2c7h9d")))
    assert {type(x) for x in st.hole[0] + tuple(st.board)} == {int}
