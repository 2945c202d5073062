"""Facts the engine derives from a hand: steps, what each position sees, board by round, pots, fractions, seats.

Hand-worked examples plus seeded properties over every shipped game.
"""

from __future__ import annotations

import random

import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, Pot, State, position_of, raise_to, seat_of
from acpcbot.gamedef import SHIPPED_GAMES, load_game, parse_game
from acpcbot.protocol import replay_betting
from dealer.rng import Dealer

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def hand(game, betting, holes, board=""):
    st = State(game, 0, [parse_cards(h) for h in holes], parse_cards(board))
    return replay_betting(betting, game, st)


def nl3(stacks):
    return parse_game(f"""GAMEDEF
nolimit
numPlayers = 3
numRounds = 4
stack = {stacks}
blind = 1 2 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF""")


# ----------------------------------------------------------------- steps

def test_steps_of_a_heads_up_no_limit_hand():
    # hunl: the small blind (position 1, 50) acts first preflop, the big blind (position 0, 100) first after.
    g = load_game("hunl")
    st = hand(g, "r300c/r900f", ["AsAd", "KsKd"], "2c7h9d")
    steps = st.steps()
    assert [(s.index, s.round, s.player, s.action, s.added) for s in steps] == [
        (0, 0, 1, raise_to(300), 250), (1, 0, 0, CALL, 200), (2, 1, 0, raise_to(900), 600), (3, 1, 1, FOLD, 0)]
    assert [s.before.pot for s in steps] == [150, 400, 600, 1200]
    assert [s.before.current_player for s in steps] == [1, 0, 0, 1]
    assert steps[3].before.to_call(1) == 600
    # the befores are independent copies carrying the cards
    steps[0].before.apply(FOLD)
    assert st.steps()[0].before.pot == 150 and steps[1].before.hole[0] == tuple(parse_cards("AsAd"))
    assert [s.index for s in st.steps(start=2)] == [2, 3]
    assert st.steps(start=4) == [] and st.num_actions == 4


def test_steps_replay_to_the_same_state_in_every_game():
    gen = random.Random(5)
    for name in sorted(SHIPPED_GAMES):
        game = load_game(name)
        dealer = Dealer(game, 7)
        for h in range(30):
            hole, board = dealer.deal()
            st = State(game, h, hole, board)
            while not st.finished:
                kinds = st.legal_actions()
                kind = gen.choice(kinds)
                if kind == R and game.is_nolimit:
                    lo, hi = st.raise_bounds()
                    st.apply(raise_to(gen.randint(lo, hi)))
                else:
                    st.apply({F: FOLD, C: CALL, R: RAISE}[kind])
            steps = st.steps()
            assert len(steps) == st.num_actions
            replay = State(game, h, hole, board)
            for s in steps:
                assert s.before.spent == replay.spent and s.before.current_player == s.player == replay.current_player
                before = replay.spent[s.player]
                replay.apply(s.action)
                assert s.added == replay.spent[s.player] - before
            assert replay.spent == st.spent and replay.payoffs() == st.payoffs()


# ----------------------------------------------------------------- what a position sees

def test_each_position_sees_its_own_cards_then_the_showdown():
    g = load_game("3pl")
    holes = ["AsAd", "KsKd", "QsQd"]
    st = State(g, 0, [parse_cards(h) for h in holes], parse_cards("2c7h9dTsJh"))
    replay_betting("rcc/", g, st)  # preflop raised and called by both; the flop is out
    assert st.board_by_round() == ((), tuple(parse_cards("2c7h9d")))
    assert st.visible_board() == list(parse_cards("2c7h9d"))
    assert st.visible_holes(1) == [(), tuple(parse_cards("KsKd")), ()]
    assert st.visible_holes(None) == [tuple(parse_cards(h)) for h in holes]
    view = st.view_of(2)
    assert view.hole == [(), (), tuple(parse_cards("QsQd"))] and view.board == list(parse_cards("2c7h9d"))
    assert view.pot == st.pot and view.current_player == st.current_player
    # flop: position 0 checks, 1 bets, 2 (QsQd) folds, 0 calls; then checked down
    replay_betting("crfc/cc/cc", g, st, first_round=1)
    assert st.finished and st.shown_players() == [0, 1]
    assert st.visible_positions(2) == [0, 1, 2]  # the folder sees the two shown hands and its own
    assert st.visible_holes(0) == [tuple(parse_cards("AsAd")), tuple(parse_cards("KsKd")), ()]
    assert st.board_by_round()[2:] == ((parse_cards("Ts")[0],), (parse_cards("Jh")[0],))



def test_view_of_is_what_the_position_may_see_at_every_state_of_every_game():
    """view_of (quick while the hand runs) agrees with visible_holes/visible_board everywhere, and owns its lists."""
    gen = random.Random(11)
    for name in sorted(SHIPPED_GAMES):
        game = load_game(name)
        dealer = Dealer(game, 3)
        for h in range(20):
            hole, board = dealer.deal()
            st = State(game, h, hole, board)
            while True:
                for viewer in range(game.num_players):
                    view = st.view_of(viewer)
                    assert view.hole == st.visible_holes(viewer) and view.board == st.visible_board()
                    assert view.hole[viewer] == tuple(hole[viewer])
                    assert (view.spent, view.actions, view.current_player) == (st.spent, st.actions, st.current_player)
                    view.hole[viewer] = ()
                    view.board.append(-1)
                    assert st.hole[viewer] == tuple(hole[viewer]) and st.board == list(board)
                if st.finished:
                    break
                kind = gen.choice(st.legal_actions())
                if kind == R and game.is_nolimit:
                    lo, hi = st.raise_bounds()
                    st.apply(raise_to(gen.randint(lo, hi)))
                else:
                    st.apply({F: FOLD, C: CALL, R: RAISE}[kind])

def test_nobody_shows_when_everyone_else_folds():
    g = load_game("hunl")
    st = hand(g, "r300f", ["AsAd", "KsKd"])
    assert st.visible_holes(0) == [tuple(parse_cards("AsAd")), ()]
    assert st.visible_holes(1) == [(), tuple(parse_cards("KsKd"))]


# ----------------------------------------------------------------- pots

def test_side_pot_with_a_folded_contributor():
    # Stacks 100 / 1000 / 1000, blinds 1 and 2, position 2 acts first preflop.  Preflop position 2
    # raises to 100, position 0 calls all-in, position 1 calls.  Flop: 1 bets to 300, 2 raises to 600, 1 folds.
    g = nl3("100 1000 1000")
    st = State(g, 0)
    for a in (raise_to(100), CALL, CALL, raise_to(300), raise_to(600), FOLD):
        st.apply(a)
    assert st.finished and st.spent == [100, 300, 600]
    # main pot: 100 from each, for 0 and 2; side pot: 200 of the folder's and 500 of 2's, for 2 alone
    assert st.pots() == [Pot(300, (0, 2)), Pot(700, (2,))]
    assert sum(p.amount for p in st.pots()) == st.pot


def test_three_levels_of_all_in():
    g = nl3("100 300 1000")
    st = State(g, 0)
    for a in (raise_to(1000), CALL, CALL):  # 2 shoves, 0 calls all-in for 100, 1 calls all-in for 300
        st.apply(a)
    assert st.finished and st.spent == [100, 300, 1000]
    assert st.pots() == [Pot(300, (0, 1, 2)), Pot(400, (1, 2)), Pot(700, (2,))]


def test_one_pot_while_everyone_is_level():
    g = load_game("hunl")
    st = hand(g, "r300c/", ["AsAd", "KsKd"], "2c7h9d")
    assert st.pots() == [Pot(600, (0, 1))]


# ----------------------------------------------------------------- fractions and seats

def test_pot_after_call_and_raise_fractions():
    g = load_game("hunl")
    st = hand(g, "r300", ["AsAd", "KsKd"])  # BB faces 200 more; pot 400
    assert st.pot_after_call() == 600
    assert st.raise_to_fraction(1.0) == 900 and st.raise_fraction(900) == pytest.approx(1.0)
    assert st.raise_fraction(600) == pytest.approx(0.5)
    assert st.bet_to_pot() == pytest.approx(200 / 200)
    opening = State(g, 0)
    assert opening.pot_after_call() == 200 and opening.raise_to_fraction(1.0) == 300


def test_pot_after_a_raise_is_called():
    g = load_game("hunl")
    st = hand(g, "r300", ["AsAd", "KsKd"])  # BB (100 in) faces 300: raising to 900 puts in 800, the caller 600 more
    assert st.pot_after_raise_called(900) == 400 + 800 + 600 == 1800
    assert st.pot_after_raise_called(st.raise_to_fraction(1.0)) == 3 * st.pot_after_call()  # pot-sized: the pot triples
    # the raiser named: the opener (50 in, facing the big blind's 100) raising to 300, called by the big blind
    assert State(g, 0).pot_after_raise_called(300, 1) == 150 + 250 + 200


def test_seats_rotate_and_invert():
    for n in (2, 3, 6):
        for h in range(13):
            seats = [seat_of(p, h, n) for p in range(n)]
            assert sorted(seats) == list(range(n))
            assert [position_of(s, h, n) for s in seats] == list(range(n))
            assert seat_of(0, h, n, fixed=True) == 0
    assert seat_of(0, 1, 2) == 1  # position 0 of hand 1 is seat 1 (position p of hand h is seat (p + h) mod N)
    assert State(load_game("3pl"), 5).seat_of(2) == (2 + 5) % 3
