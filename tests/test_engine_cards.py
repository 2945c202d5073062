"""The engine deals, shows and pays: golden deals, refused cards with their reasons, hand-worked payoffs.

The dealing operations come with ``can_``/``verify_`` twins; the payoffs
are worked by hand (heads-up and a three-player all-in with two side pots)
and compared with what the engine computes from the same cards.
"""

from __future__ import annotations

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, DealError, State, raise_to
from acpcbot.gamedef import load_game, parse_game


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text)


def side_pot_game():
    return parse_game("""GAMEDEF
nolimit
numPlayers = 3
numRounds = 4
stack = 100 200 300
blind = 5 10 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
""", "sidepots")


def all_in_three() -> State:
    """Position 2 shoves 300, position 0 calls all-in for 100, position 1 calls all-in for 200."""
    st = State(side_pot_game())
    st.apply(raise_to(300)).apply(CALL).apply(CALL)
    assert st.finished and st.spent == [100, 200, 300]
    return st


def checked_down_hunl() -> State:
    """hunl: position 1 raises to 300, position 0 calls, then three streets checked through."""
    st = State(load_game("hunl"))
    st.apply(raise_to(300)).apply(CALL)
    for _ in range(6):
        st.apply(CALL)
    assert st.finished and st.spent == [300, 300]
    return st


# ------------------------------------------------------------------ dealing


def test_a_known_deal_lands_where_it_was_dealt():
    st = State(load_game("hulhe"))
    st.deal_hole(0, c("AsKs")).deal_hole(1, c("QhQd")).deal_board(c("2c7h9d")).deal_board(c("Tc"))
    assert st.hole == [c("AsKs"), c("QhQd")] and st.board == list(c("2c7h9dTc"))
    assert st.copy().hole == st.hole


def test_deal_all_known_cards_at_once_with_unknown_holdings():
    st = State(load_game("3pl")).deal([(), c("AsKs"), ()], c("2c7h9d"))
    assert st.hole == [(), c("AsKs"), ()] and st.board == list(c("2c7h9d"))
    with pytest.raises(DealError, match="holds cards already"):
        st.deal([(), (), ()], ())


def test_a_card_dealt_twice_is_refused_with_its_name():
    st = State(load_game("hulhe")).deal_hole(0, c("AsKs"))
    assert not st.can_deal_hole(1, c("AsQd"))
    with pytest.raises(DealError, match=r"dealing AsQd to position 1: card As is dealt already"):
        st.deal_hole(1, c("AsQd"))
    with pytest.raises(DealError, match="card Ks is dealt already"):
        st.deal_board(c("2cKs3d"))
    with pytest.raises(DealError, match="card 2c is given twice"):
        st.deal_board(c("2c") + c("2c") + c("3d"))
    assert not State(load_game("hulhe")).can_deal([c("AsKs"), c("KsQd")], ())
    assert st.hole[1] == () and st.board == []  # nothing refused was dealt


def test_other_refused_deals_say_why():
    st = State(load_game("hulhe")).deal_hole(0, c("AsKs"))
    with pytest.raises(DealError, match="holds AsKs already"):
        st.deal_hole(0, c("QhQd"))
    with pytest.raises(DealError, match="3 cards .* the game deals 2"):
        st.deal_hole(1, c("QhQdQc"))
    with pytest.raises(DealError, match="no position 2"):
        st.deal_hole(2, c("QhQd"))
    with pytest.raises(DealError, match="board holds 5 of the game's 5"):
        st.deal_board(c("2c3c4c5c6c")).deal_board(c("7c"))
    leduc = State(load_game("leduc"))
    assert leduc.can_deal_hole(0, c("Ks")) and not leduc.can_deal_hole(0, c("2s"))
    with pytest.raises(DealError, match="card 2s is not in the deck of leduc"):
        leduc.verify_deal_hole(0, c("2s"))


def test_showing_a_card_not_held_is_refused():
    st = checked_down_hunl().deal_hole(0, c("AsAh")).deal_hole(1, c("KsKh"))
    assert st.can_show(0, c("AhAs"))  # the same cards in any order
    with pytest.raises(DealError, match=r"position 0 showing AsQd: it does not hold Qd \(it holds AsAh\)"):
        st.show(0, c("AsQd"))
    assert st.hole[0] == c("AsAh")


def test_a_seat_view_learns_the_shown_cards_only_at_the_end():
    view = checked_down_hunl().deal([c("AsAh"), ()], c("2c7h9d3s4d"))  # a seat's: its own cards and the board
    with pytest.raises(DealError, match="position 1 showing AsQd: card As is dealt already"):
        view.show(1, c("AsQd"))
    view.show(1, c("KsKh"))
    assert view.hole == [c("AsAh"), c("KsKh")] and view.payoffs() == [300.0, -300.0]
    early = State(load_game("hunl")).deal_hole(0, c("AsAh"))
    with pytest.raises(DealError, match="only when the hand is over"):
        early.show(1, c("KsKh"))
    folded = State(load_game("hunl")).apply(FOLD)
    with pytest.raises(DealError, match="it folded"):
        folded.show(1, c("KsKh"))


def test_a_view_holding_a_guess():
    dealt = State(load_game("hunl")).deal([c("AsAh"), c("KsKh")], c("2c7h9d3s4d"))
    guess = dealt.view_of(1, holding=c("QsQh"))
    assert guess.hole == [(), c("QsQh")] and dealt.hole[1] == c("KsKh")
    with pytest.raises(DealError, match="dealt already"):
        checked_down_hunl().deal([c("AsAh"), c("KsKh")], c("2c7h9d3s4d")).view_of(1, holding=c("AsQh"))


# ------------------------------------------------------------------ paying


def test_heads_up_showdown_payoffs_worked_by_hand():
    st = checked_down_hunl().deal_board(c("2c7h9d3s4d"))
    assert st.payoffs_for([c("AsAh"), c("KsKh")]) == [300.0, -300.0]
    assert st.payoffs_for([c("KsKh"), c("AsAh")]) == [-300.0, 300.0]
    royal = checked_down_hunl().deal_board(c("AsKsQsJsTs"))
    assert royal.payoffs_for([c("2c3d"), c("AhAd")]) == [0.0, 0.0]  # the board plays: a split
    assert st.hole == [(), ()]  # asking changes nothing


def test_three_player_side_pots_worked_by_hand():
    # spent 100/200/300: a main pot of 300 (all three), a side pot of 200 (positions 1, 2), 100 back to position 2
    st = all_in_three().deal_board(c("2c7h9d3s4d"))
    assert [(p.amount, p.eligible) for p in st.pots()] == [(300, (0, 1, 2)), (200, (1, 2)), (100, (2,))]
    assert st.payoffs_for([c("AsAh"), c("KsKh"), c("QsQh")]) == [200.0, 0.0, -200.0]
    assert st.payoffs_for([c("QsQh"), c("KsKh"), c("AsAh")]) == [-100.0, -200.0, 300.0]
    # positions 1 and 2 split every pot they share: 150 each of the main pot, 100 each of the side pot
    assert st.payoffs_for([c("TcJh"), c("AsKh"), c("AdKs")]) == [-100.0, 50.0, 50.0]
    dealt = all_in_three().deal([c("AsAh"), c("KsKh"), c("QsQh")], c("2c7h9d3s4d"))
    assert dealt.payoffs() == [200.0, 0.0, -200.0]


def test_heads_up_value_over_many_holdings():
    st = checked_down_hunl()
    shares = np.array([1.0, 0.5, 0.0])
    assert st.heads_up_value(0, shares).tolist() == [300.0, 0.0, -300.0]
    assert st.heads_up_value(1, 0.25) == -150.0
    short = parse_game(load_game("hunl").to_text().replace("stack = 20000 20000", "stack = 200 20000"), "short")
    allin = State(short).apply(raise_to(400)).apply(CALL)  # position 0 calls all-in for 200: 200 come back
    assert allin.finished and allin.heads_up_value(1, shares).tolist() == [200.0, 0.0, -200.0]
    shove = State(short).apply(raise_to(400))  # valued as if called: position 0 can put in only 200
    assert shove.heads_up_value(1, shares, called=True).tolist() == [200.0, 0.0, -200.0]
    assert shove.heads_up_value(1, 1.0) == 100.0  # as it stands: the 100 of the big blind matched
    folded = State(load_game("hunl")).apply(FOLD)  # the small blind folds
    assert folded.heads_up_value(0, shares).tolist() == [50.0, 50.0, 50.0]
    assert folded.heads_up_value(1, 0.9) == -50.0


def test_heads_up_value_between_the_two_left_of_three():
    # 3pnl: the first to act folds, positions 0 and 1 (the blinds 50 and 100) are left; the multiway game's
    # searches value that pair heads-up, the folder's chips aside (the default 1 - me would name the wrong player)
    st = State(load_game("3pnl")).apply(FOLD).apply(raise_to(300))  # position 2 folds; 0 raises to 300
    assert st.spent[:2] == [300, 100] and st.current_player == 1
    assert st.heads_up_value(1, 1.0, opp=0) == 100.0 and st.heads_up_value(0, 0.0, opp=1) == -100.0
    folded = st.copy().apply(FOLD)  # the big blind folds its 100
    assert folded.heads_up_value(1, 0.7, opp=0) == -100.0 and folded.heads_up_value(0, 0.7, opp=1) == 100.0


def test_payoffs_for_asks_a_finished_hand():
    with pytest.raises(ValueError, match="not over"):
        State(load_game("hunl")).payoffs_for([c("AsAh"), c("KsKh")])


def test_the_pot_within_reach_is_the_side_pots_a_player_all_in_is_eligible_for():
    st = State(side_pot_game()).apply(raise_to(150))  # position 2 bets 150; 0 (stack 100) and 1 have not acted
    assert st.spent == [5, 10, 150]
    assert st.pot_within_reach(0) == 5 + 10 + 100 and st.pot_within_reach(1) == 165
    shoved = all_in_three()
    for p in range(3):
        assert shoved.pot_within_reach(p) == sum(pot.amount for pot in shoved.pots() if p in pot.eligible)


def test_a_reader_reveals_the_cards_each_line_shows():
    # MATCHSTATE:0:0:r300c/ccc/:AsAh|/2c7h9d then .../cc/:AsAh|/2c7h9d/3s then the showdown's cards
    st = State(load_game("hunl")).apply(raise_to(300)).apply(CALL).apply(CALL).apply(CALL)
    st.reveal([c("AsAh"), ()], c("2c7h9d"))
    st.apply(CALL).apply(CALL).reveal([c("AsAh"), ()], c("2c7h9d3s"))
    with pytest.raises(DealError, match="revealing the board 2c7h9d4d: it was 2c7h9d3s"):
        st.reveal([c("AsAh"), ()], c("2c7h9d4d"))
    with pytest.raises(DealError, match="revealing KsKh for position 0: it holds AsAh"):
        st.reveal([c("KsKh"), ()], c("2c7h9d3s"))
    with pytest.raises(DealError, match="card As is dealt already"):
        st.reveal([c("AsAh"), c("AsQd")], c("2c7h9d3s"))
    st.apply(CALL).apply(CALL).reveal([c("AsAh"), c("KsKh")], c("2c7h9d3s4d"))
    assert st.hole == [c("AsAh"), c("KsKh")] and st.board == list(c("2c7h9d3s4d"))
    assert st.payoffs() == [300.0, -300.0]
