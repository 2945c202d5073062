"""The rules engine: hand-worked payoffs, legality, and seeded property tests."""

import random
import zlib

import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import (
    CALL,
    FOLD,
    RAISE,
    WARN_INVALID,
    WARN_TOO_MANY_ACTIONS,
    Action,
    ActionType,
    IllegalAction,
    State,
    raise_to,
)
from acpcbot.gamedef import SHIPPED_GAMES, load_game, parse_game
from acpcbot.matchlog import format_value
from acpcbot.protocol import replay_betting
from dealer.rng import Dealer

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def hand(game, betting, holes, board=""):
    """A finished-or-not state from betting text and card text ('AsKd', ... per position)."""
    st = State(game, 0, [parse_cards(h) for h in holes], parse_cards(board))
    return replay_betting(betting, game, st)


def nl_game(players, stacks, blinds, first="1 1 1 1"):
    return parse_game(f"""GAMEDEF
nolimit
numPlayers = {players}
numRounds = 4
stack = {stacks}
blind = {blinds}
firstPlayer = {first}
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF""")


# ----------------------------------------------------------------- payoffs

def test_fold_preflop_heads_up_no_limit():
    g = load_game("hunl")
    st = hand(g, "f", ["AsAd", "2c7h"])  # the small blind (position 1) acts first and folds
    assert st.finished and not st.is_showdown
    assert st.payoffs() == [50.0, -50.0]
    assert st.shown_players() == []


def test_check_down_limit_goes_to_the_best_hand():
    g = load_game("hulhe")
    st = hand(g, "cc/cc/cc/cc", ["AsAd", "KsKd"], "2c7h9dTsJh")
    assert st.finished and st.pot == 20
    assert st.payoffs() == [10.0, -10.0]
    assert st.shown_players() == [0, 1]


def test_limit_raises_count_towards_the_pot():
    g = load_game("hulhe")
    # preflop: SB raises to 20, BB re-raises to 30, SB calls; flop bet 10 called; turn and river bet 20 called
    st = hand(g, "rrc/rc/rc/rc", ["2c3d", "KsKd"], "AsAdAhTsJh")
    assert st.spent == [80, 80]  # 30 preflop, 10 on the flop, 20 on the turn and on the river
    assert st.payoffs() == [-80.0, 80.0]


def test_three_player_all_in_side_pots():
    g = nl_game(3, "1000 2000 3000", "50 100 0", "3 1 1 1")
    # position 2 shoves 3000, position 0 calls all-in for 1000, position 1 calls all-in for 2000
    st = hand(g, "r3000cc///", ["AsAd", "KsKd", "QsQd"], "2c7h9d3s4h")
    assert st.finished and st.round == 3
    assert st.spent == [1000, 2000, 3000]
    # main pot 3000 to AA; side pot 2000 (positions 1, 2) to KK; the last 1000 goes back to position 2
    assert st.payoffs() == [2000.0, 0.0, -2000.0]


def test_side_pot_won_by_the_short_stack_only_in_the_main_pot():
    g = nl_game(3, "1000 2000 3000", "50 100 0", "3 1 1 1")
    st = hand(g, "r3000cc///", ["AsAd", "QsQd", "KsKd"], "2c7h9d3s4h")
    # AA wins the main pot, KK (position 2) beats QQ for the side pot
    assert st.payoffs() == [2000.0, -2000.0, 0.0]


def test_three_way_split_with_fractions():
    g = nl_game(4, "20000 20000 20000 20000", "50 100 0 0", "3 1 1 1")
    # positions 2 and 3 call, the small blind folds, the big blind checks; all check down;
    # the board is a royal flush so the three remaining hands tie
    st = hand(g, "ccfc/ccc/ccc/ccc", ["2c3d", "4c5d", "6c7d", "8c9d"], "AsKsQsJsTs")
    pay = st.payoffs()
    assert [format_value(v) for v in pay] == ["-50", "16.666667", "16.666667", "16.666667"]
    assert abs(sum(pay)) < 1e-9


def test_split_pot_heads_up():
    g = load_game("hunl")
    st = hand(g, "cc/cc/cc/cc", ["2c3d", "2d3c"], "AsKsQsJs9h")
    assert st.payoffs() == [0.0, 0.0]


def test_kuhn_three_player_showdown():
    g = load_game("kuhn3p")
    st = hand(g, "ccc", ["Js", "Qs", "As"])
    assert st.payoffs() == [-1.0, -1.0, 2.0]
    st = hand(g, "rcf", ["Ks", "As", "Qs"])  # bet by position 0, call by 1, fold by 2
    assert st.spent == [2, 2, 1]
    assert st.payoffs() == [-2.0, 3.0, -1.0]


def test_leduc_pair_with_the_board_beats_a_higher_card():
    g = load_game("leduc")
    st = hand(g, "rc/rc", ["Qh", "Ah"], "Qs")
    assert st.spent == [7, 7]  # 1 ante + 2 preflop + 4 on the board round
    assert st.payoffs() == [7.0, -7.0]
    st = hand(g, "cc/cc", ["Kh", "Ah"], "Qs")  # no pair: the higher card wins
    assert st.payoffs() == [-1.0, 1.0]


def test_everyone_else_folded_takes_everything():
    g = load_game("3pnl")
    st = hand(g, "r300ff", ["AsAd", "KsKd", "QsQd"])
    assert st.payoffs() == [-50.0, -100.0, 150.0]


# ----------------------------------------------------------------- legality

def test_fold_is_legal_only_when_facing_a_bet():
    g = load_game("hunl")
    st = State(g)
    assert st.current_player == 1 and st.legal_actions() == (F, C, R)
    st.apply(CALL)
    assert st.current_player == 0 and st.legal_actions() == (C, R)
    with pytest.raises(IllegalAction, match="nothing to call"):
        st.apply(FOLD)


def test_no_limit_minimum_raises():
    g = load_game("hunl")
    st = State(g)
    assert st.raise_bounds() == (200, 20000)
    st.apply(raise_to(300))  # a raise by 200
    assert st.raise_bounds() == (500, 20000)
    st.apply(raise_to(1000))  # a raise by 700
    assert st.raise_bounds() == (1700, 20000)
    st.apply(CALL)
    assert st.round == 1 and st.current_player == 0
    assert st.raise_bounds() == (1100, 20000)  # a bet of at least the big blind
    assert st.to_call() == 0


def test_short_stack_may_only_raise_all_in():
    g = nl_game(2, "20000 150", "100 50", "2 1 1 1")
    st = State(g)
    # the minimum raise-to is 200 but the small blind has only 150: all-in is its only raise
    assert st.current_player == 1 and st.raise_bounds() == (150, 150)
    st.apply(raise_to(150))
    assert st.is_all_in(1)
    assert st.raise_bounds() is None  # nobody left to call a raise
    assert st.legal_actions() == (F, C)
    st.apply(CALL)
    assert st.finished and st.round == 3


def test_limit_max_raises_per_round():
    g = load_game("hulhe")
    st = State(g)
    for _ in range(3):
        st.apply(RAISE)
    assert st.legal_actions() == (F, C)
    assert st.fix(RAISE) == (CALL, (WARN_INVALID,))
    st.apply(CALL)
    assert st.round == 1 and st.legal_actions() == (C, R)


def test_the_64_action_cap():
    g = nl_game(2, "1000000 1000000", "1 1", "1 1 1 1")
    st = State(g)
    for i in range(62):
        lo, hi = st.raise_bounds()
        st.apply(raise_to(lo))
    assert len(st.actions[0]) == 62
    assert st.raise_bounds() is not None  # 62 actions + 2 players = 64: still allowed
    st.apply(raise_to(st.raise_bounds()[0]))
    assert st.raise_bounds() is None  # 63 + 2 > 64
    assert st.legal_actions() == (F, C)
    assert st.fix(raise_to(10 ** 5)) == (CALL, (WARN_TOO_MANY_ACTIONS, WARN_INVALID))


def test_fix_clamps_no_limit_raises_like_the_reference():
    g = load_game("hunl")
    st = State(g)
    assert st.fix(raise_to(150)) == (raise_to(200), ("WARNING: raise of 150 increased to 200",))
    assert st.fix(raise_to(99999)) == (raise_to(20000), ("WARNING: raise of 99999 decreased to 20000",))
    assert st.fix(raise_to(5000)) == (raise_to(5000), ())
    st.apply(CALL)
    assert st.fix(FOLD) == (CALL, (WARN_INVALID,))
    assert st.fix(Action(99, 0)) == (CALL, (WARN_INVALID,))


def test_illegal_actions_after_the_hand_ends():
    st = hand(load_game("hunl"), "f", ["AsAd", "2c7h"])
    assert st.current_player == -1 and st.legal_actions() == ()
    with pytest.raises(IllegalAction, match="over"):
        st.apply(CALL)


def test_all_in_players_are_skipped():
    g = nl_game(3, "20000 300 20000", "50 100 0", "3 1 1 1")
    st = State(g)
    st.apply(raise_to(1000))  # position 2
    st.apply(CALL)            # position 0 calls 1000
    st.apply(CALL)            # position 1 all-in for 300
    assert st.round == 1 and st.is_all_in(1)
    assert st.current_player == 0
    st.apply(CALL)
    assert st.current_player == 2  # position 1 cannot act any more


def test_copy_is_independent():
    st = State(load_game("hunl"))
    other = st.copy()
    other.apply(raise_to(500))
    assert st.actions == [[]] and st.spent == [100, 50]
    assert other.spent == [100, 500]


# ----------------------------------------------------------------- properties

def _random_action(st, rng):
    legal = st.legal_actions()
    kind = rng.choice(legal)
    if kind == R and st.game.is_nolimit:
        lo, hi = st.raise_bounds()
        return raise_to(rng.choice([lo, hi, rng.randint(lo, hi)]))
    return Action(kind)


def _probe_actions(st):
    """Candidate actions around every boundary, legal or not."""
    probes = [FOLD, CALL, RAISE, Action(ActionType.CALL, 5)]
    if st.game.is_nolimit:
        probes += [raise_to(v) for v in (0, 1, st.max_spent, st.max_spent + 1, st.min_raise_to - 1,
                                          st.min_raise_to, st.game.stack[st.current_player],
                                          st.game.stack[st.current_player] + 1)]
    return probes


def _expected_legal(st, action):
    legal = st.legal_actions()
    if action.type not in legal:
        return False
    if action.type == R:
        lo, hi = st.raise_bounds()
        return (lo <= action.size <= hi) if st.game.is_nolimit else action.size == 0
    return action.size == 0


#: hands a game of the random-play check in make test; make soak plays the whole run of FUZZ_HANDS (the same deals
#: and actions: these are its first hands), which cost 5.6 s of CPU over the nine games
QUICK_FUZZ_HANDS = 400
FUZZ_HANDS = 1500


@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_random_hands_conserve_chips_and_respect_legality(name):
    _random_hands_conserve_chips_and_respect_legality(name, QUICK_FUZZ_HANDS)


@pytest.mark.slow  # random play of 1,500 hands a game (about 6 s of CPU): make soak
@pytest.mark.parametrize("name", SHIPPED_GAMES)
def test_random_hands_conserve_chips_and_respect_legality_at_length(name):
    _random_hands_conserve_chips_and_respect_legality(name, FUZZ_HANDS)


def _random_hands_conserve_chips_and_respect_legality(name, hands):
    game = load_game(name)
    rng = random.Random(zlib.crc32(name.encode()))  # not hash(): it changes from run to run (PYTHONHASHSEED)
    dealer = Dealer(game, 11)
    for h in range(hands):
        hole, board = dealer.deal()
        st = State(game, h, hole, board)
        while not st.finished:
            p = st.current_player
            assert not st.folded[p] and not st.is_all_in(p)
            for probe in _probe_actions(st):
                ok = _expected_legal(st, probe)
                assert st.is_legal(probe) == ok, (probe, st.actions)
                if not ok:
                    with pytest.raises(IllegalAction):
                        st.copy().apply(probe)
                else:
                    st.copy().apply(probe)
            st.apply(_random_action(st, rng))
            for q in range(game.num_players):
                assert 0 <= st.spent[q] <= game.stack[q]
        pay = st.payoffs()
        assert abs(sum(pay)) < 1e-6
        for q in range(game.num_players):
            assert pay[q] >= -st.spent[q]
            if st.folded[q]:
                assert pay[q] == -st.spent[q]


def test_acting_order_starts_from_the_rounds_first_player():
    g = load_game("3pnl")
    st = State(g)
    assert st.acting_order() == [2, 0, 1]  # preflop the player after the big blind acts first
    replay_betting("r300cf/", g, st)  # position 1 (the big blind) folds
    assert st.round == 1 and st.acting_order() == [0, 2]
    g = nl_game(3, "20000 300 20000", "50 100 0", "3 1 1 1")
    st = replay_betting("r1000cc/", g, State(g))
    assert st.is_all_in(1) and st.acting_order() == [0, 2]


def test_the_heads_up_showdown_shortcut_is_the_general_arithmetic():
    # the matched heads-up pot is paid without building side pots: the same floats as the reference's walk
    game = load_game("hunl")
    gen = random.Random(4)
    for _ in range(300):
        st = State(game, 0, [(0, 1), (2, 3)], [])
        level = gen.choice([100, 250, 20000])
        st.spent = [level, level]
        values = [gen.randrange(3), gen.randrange(3)]
        assert st._showdown_payoffs(values) == [st._showdown_payoff(p, values) for p in range(2)]
