"""The world model on the protocol's own example exchanges: pot, to-call, stacks, legal actions, results."""

from __future__ import annotations

import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, raise_to
from acpcbot.gamedef import INT32_MAX, load_game
from acpcbot.protocol import ProtocolError
from acpcbot.world import BetAction, MatchInfo, View, World

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
LEGAL = {"": (), "C": (C,), "CR": (C, R), "FC": (F, C), "FCR": (F, C, R)}

# (line, pot, to_call, my turn, legal, raise bounds, my result when final), worked out by hand.
# Heads-up limit hold'em, reverse blinds: position 0 posts 10, position 1 posts 5, raises 10/10/20/20.
HULHE_EXAMPLE = [
    ("MATCHSTATE:0:0::TdAs|", 15, 0, False, "", None, None),
    ("MATCHSTATE:0:0:r:TdAs|", 30, 10, True, "FCR", (30, 30), None),
    ("MATCHSTATE:0:0:rr:TdAs|", 50, 0, False, "", None, None),
    ("MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h", 60, 0, True, "CR", (40, 40), None),
    ("MATCHSTATE:0:0:rrc/r:TdAs|/2c8c3h", 70, 0, False, "", None, None),
    ("MATCHSTATE:0:0:rrc/rc/:TdAs|/2c8c3h/9c", 80, 0, True, "CR", (60, 60), None),
    ("MATCHSTATE:0:0:rrc/rc/c:TdAs|/2c8c3h/9c", 80, 0, False, "", None, None),
    ("MATCHSTATE:0:0:rrc/rc/cr:TdAs|/2c8c3h/9c", 100, 20, True, "FCR", (80, 80), None),
    ("MATCHSTATE:0:0:rrc/rc/crc/:TdAs|/2c8c3h/9c/Kh", 120, 0, True, "CR", (80, 80), None),
    ("MATCHSTATE:0:0:rrc/rc/crc/c:TdAs|/2c8c3h/9c/Kh", 120, 0, False, "", None, None),
    ("MATCHSTATE:0:0:rrc/rc/crc/cr:TdAs|/2c8c3h/9c/Kh", 140, 20, True, "FCR", (100, 100), None),
    # A-high loses to the pair of eights
    ("MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh", 160, 0, False, "", None, -80.0),
    ("MATCHSTATE:1:1::|Qd7c", 15, 5, True, "FCR", (20, 20), None),
    ("MATCHSTATE:1:1:r:|Qd7c", 30, 0, False, "", None, None),
    ("MATCHSTATE:1:1:rr:|Qd7c", 50, 10, True, "FCR", (40, 40), None),
    ("MATCHSTATE:1:1:rrc/:|Qd7c/2h8h5c", 60, 0, False, "", None, None),
    ("MATCHSTATE:1:1:rrc/r:|Qd7c/2h8h5c", 70, 10, True, "FCR", (50, 50), None),
    ("MATCHSTATE:1:1:rrc/rc/:|Qd7c/2h8h5c/Th", 80, 0, False, "", None, None),
    ("MATCHSTATE:1:1:rrc/rc/r:|Qd7c/2h8h5c/Th", 100, 20, True, "FCR", (80, 80), None),
    ("MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th", 100, 20, False, "", None, -40.0),
    ("MATCHSTATE:0:2::9d7s|", 15, 0, False, "", None, None),
    ("MATCHSTATE:0:2:r:9d7s|", 30, 10, True, "FCR", (30, 30), None),
    ("MATCHSTATE:0:2:rc/:9d7s|/5d2cJc", 40, 0, True, "CR", (30, 30), None),
    ("MATCHSTATE:0:2:rc/c:9d7s|/5d2cJc", 40, 0, False, "", None, None),
    ("MATCHSTATE:0:2:rc/cc/:9d7s|/5d2cJc/3d", 40, 0, True, "CR", (40, 40), None),
    ("MATCHSTATE:0:2:rc/cc/c:9d7s|/5d2cJc/3d", 40, 0, False, "", None, None),
    ("MATCHSTATE:0:2:rc/cc/cr:9d7s|/5d2cJc/3d", 60, 20, True, "FCR", (60, 60), None),
    ("MATCHSTATE:0:2:rc/cc/crf:9d7s|/5d2cJc/3d", 60, 20, False, "", None, -20.0),
]

# Heads-up no-limit hold'em: position 0 posts 100, position 1 posts 50, stacks of 20000.
HUNL_EXAMPLE = [
    ("MATCHSTATE:0:30::9s8h|", 150, 0, False, "", None, None),
    ("MATCHSTATE:0:30:c:9s8h|", 200, 0, True, "CR", (200, 20000), None),
    ("MATCHSTATE:0:30:cc/:9s8h|/8c8d5c", 200, 0, True, "CR", (200, 20000), None),
    ("MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c", 350, 0, False, "", None, None),
    ("MATCHSTATE:0:30:cc/r250c/:9s8h|/8c8d5c/6s", 500, 0, True, "CR", (350, 20000), None),
    ("MATCHSTATE:0:30:cc/r250c/r500:9s8h|/8c8d5c/6s", 750, 0, False, "", None, None),
    ("MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d", 1000, 0, True, "CR", (600, 20000), None),
    ("MATCHSTATE:0:30:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d", 1750, 0, False, "", None, None),
    # trip eights beat eights and sixes
    ("MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d", 2500, 0, False, "", None, 1250.0),
    ("MATCHSTATE:1:31::|JdTc", 150, 50, True, "FCR", (200, 20000), None),
    ("MATCHSTATE:1:31:r300:|JdTc", 400, 0, False, "", None, None),
    ("MATCHSTATE:1:31:r300r900:|JdTc", 1200, 600, True, "FCR", (1500, 20000), None),
    ("MATCHSTATE:1:31:r300r900c/:|JdTc/6dJc9c", 1800, 0, False, "", None, None),
    ("MATCHSTATE:1:31:r300r900c/r1800:|JdTc/6dJc9c", 2700, 900, True, "FCR", (2700, 20000), None),
    ("MATCHSTATE:1:31:r300r900c/r1800r3600:|JdTc/6dJc9c", 5400, 0, False, "", None, None),
    ("MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c", 12600, 5400, True, "FCR", (14400, 20000), None),
    ("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/:|JdTc/6dJc9c/Kh", 18000, 0, False, "", None, None),
    # facing an all-in: no raise is left
    ("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", 29000, 11000, True, "FC", None, None),
    # the king-high straight beats kings and jacks
    ("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc", 40000, 0, False, "", None,
     20000.0),
]

# Three-player limit hold'em: blinds 5 and 10, position 2 acts first preflop.
THREE_PLAYER_EXAMPLE = [
    ("MATCHSTATE:2:55::||AsTs", 15, 10, True, "FCR", (20, 20), None),
    ("MATCHSTATE:2:55:r:||AsTs", 35, 0, False, "", None, None),
    ("MATCHSTATE:2:55:rc:||AsTs", 50, 0, False, "", None, None),
    ("MATCHSTATE:2:55:rcc/:||AsTs/4cJh8h", 60, 0, False, "", None, None),
    ("MATCHSTATE:2:55:rcc/r:||AsTs/4cJh8h", 70, 10, False, "", None, None),
    ("MATCHSTATE:2:55:rcc/rf:||AsTs/4cJh8h", 70, 10, True, "FCR", (40, 40), None),
    ("MATCHSTATE:2:55:rcc/rfc/:||AsTs/4cJh8h/Kd", 80, 0, False, "", None, None),
    ("MATCHSTATE:2:55:rcc/rfc/r:||AsTs/4cJh8h/Kd", 100, 20, True, "FCR", (70, 70), None),
    ("MATCHSTATE:2:55:rcc/rfc/rc/:||AsTs/4cJh8h/Kd/8c", 120, 0, False, "", None, None),
    ("MATCHSTATE:2:55:rcc/rfc/rc/r:||AsTs/4cJh8h/Kd/8c", 140, 20, True, "FCR", (90, 90), None),
    ("MATCHSTATE:2:55:rcc/rfc/rc/rf:||AsTs/4cJh8h/Kd/8c", 140, 20, False, "", None, -50.0),
    ("MATCHSTATE:0:90::Ad6h||", 15, 5, False, "", None, None),
    ("MATCHSTATE:0:90:c:Ad6h||", 25, 5, True, "FCR", (20, 20), None),
    ("MATCHSTATE:0:90:cr:Ad6h||", 40, 0, False, "", None, None),
    ("MATCHSTATE:0:90:crf:Ad6h||", 40, 0, False, "", None, None),
    ("MATCHSTATE:0:90:crfc/:Ad6h||/TsKd7h", 50, 0, True, "CR", (30, 30), None),
    ("MATCHSTATE:0:90:crfc/r:Ad6h||/TsKd7h", 60, 0, False, "", None, None),
    ("MATCHSTATE:0:90:crfc/rc/:Ad6h||/TsKd7h/Kh", 70, 0, True, "CR", (50, 50), None),
    ("MATCHSTATE:0:90:crfc/rc/r:Ad6h||/TsKd7h/Kh", 90, 0, False, "", None, None),
    ("MATCHSTATE:0:90:crfc/rc/rc/:Ad6h||/TsKd7h/Kh/6d", 110, 0, True, "CR", (70, 70), None),
    ("MATCHSTATE:0:90:crfc/rc/rc/r:Ad6h||/TsKd7h/Kh/6d", 130, 0, False, "", None, None),
    # kings and tens beat kings and sixes
    ("MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d", 150, 0, False, "", None, -70.0),
]

EXAMPLES = [("hulhe", row) for row in HULHE_EXAMPLE] + [("hunl", row) for row in HUNL_EXAMPLE] + \
    [("3pl", row) for row in THREE_PLAYER_EXAMPLE]


@pytest.mark.parametrize("game_name,row", EXAMPLES, ids=[r[1][0] for r in EXAMPLES])
def test_view_of_each_protocol_example_line(game_name, row):
    line, pot, to_call, my_turn, legal, bounds, result = row
    game = load_game(game_name)
    view = View.parse(line + "\r\n", game)
    assert view.text == line
    assert view.pot == pot
    assert view.is_my_turn is my_turn
    assert view.legal_actions == LEGAL[legal]
    assert view.raise_bounds == bounds
    assert view.is_final is (result is not None)
    assert view.result == result
    assert view.to_call == to_call
    stacks = game.stack
    assert view.stacks == tuple(stacks[p] - view.spent[p] for p in range(game.num_players))
    assert sum(view.spent) == pot


def test_stacks_in_no_limit_are_what_is_left_behind():
    view = View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c", load_game("hunl"))
    assert view.stacks == (11000, 16400)
    assert view.stack == 16400


def test_limit_stacks_are_unlimited():
    view = View.parse("MATCHSTATE:0:0:r:TdAs|", load_game("hulhe"))
    assert view.stacks == (INT32_MAX - 10, INT32_MAX - 20)


def test_structured_actions_with_amounts_and_rounds():
    view = View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", load_game("hunl"))
    assert view.actions == (
        BetAction(1, R, 300, 0, 250, 300), BetAction(0, R, 900, 0, 800, 900), BetAction(1, C, 900, 0, 600, 0),
        BetAction(0, R, 1800, 1, 900, 1800), BetAction(1, R, 3600, 1, 2700, 3600),
        BetAction(0, R, 9000, 1, 7200, 9000), BetAction(1, C, 9000, 1, 5400, 0),
        BetAction(0, R, 20000, 2, 11000, 20000))
    assert view.actions_in_round() == (BetAction(0, R, 20000, 2, 11000, 20000),)
    assert view.actions[0].action == raise_to(300)
    assert view.actions[2].action == CALL


def test_limit_actions_know_the_raise_to():
    view = View.parse("MATCHSTATE:2:55:rcc/rf:||AsTs/4cJh8h", load_game("3pl"))
    assert [(a.player, a.type, a.amount, a.round, a.added) for a in view.actions] == [
        (2, R, 20, 0, 20), (0, C, 20, 0, 15), (1, C, 20, 0, 10), (0, R, 30, 1, 10), (1, F, 20, 1, 0)]
    assert view.actions[0].action == RAISE


def test_cards_board_and_keys():
    view = View.parse("MATCHSTATE:0:30:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d", load_game("hunl"))
    assert view.hole == parse_cards("9s8h")
    assert view.holes[1] == ()
    assert view.board == ((), parse_cards("8c8d5c"), parse_cards("6s"), parse_cards("2d"))
    assert view.board_cards == parse_cards("8c8d5c6s2d")
    assert view.betting == "cc/r250c/r500c/"
    assert view.cards_text == "9s8h|/8c8d5c/6s/2d"
    assert view.infoset_key == "0:cc/r250c/r500c/:9s8h|/8c8d5c/6s/2d"
    assert view.hand_id == 30 and view.position == 0 and view.round == 3
    assert view.seat == 0
    assert View.parse("MATCHSTATE:1:31::|JdTc", load_game("hunl")).seat == 0


def test_showdown_cards_and_fold_hides_them():
    game = load_game("hulhe")
    shown = View.parse("MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh", game)
    assert shown.shown == {1: parse_cards("8hTc")}
    folded = View.parse("MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th", game)
    assert folded.shown == {}
    assert folded.folded == [False, True]
    assert folded.in_hand == [0] and folded.opponents == [0]


def test_three_way_payoffs_per_position():
    view = View.parse("MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d", load_game("3pl"))
    assert view.payoffs == [-70.0, -10.0, 80.0]
    assert view.shown == {2: parse_cards("Td2h")}


def test_helpers_never_fold_for_free_and_clamp_raises():
    game = load_game("hunl")
    free = View.parse("MATCHSTATE:0:30:c:9s8h|", game)
    assert free.fold_or_check() == CALL
    assert free.raise_or_call() == raise_to(200)
    assert free.raise_or_call(10) == raise_to(200)
    assert free.raise_or_call(10 ** 9) == raise_to(20000)
    assert free.pot_raise_to() == 100 + 200  # pot 200, nothing to call
    facing = View.parse("MATCHSTATE:1:31:r300r900:|JdTc", game)
    assert facing.fold_or_check() == FOLD
    assert facing.pot_raise_to() == 900 + 1200 + 600  # call 600 making the pot 1800, raise by it
    allin = View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", game)
    assert allin.raise_or_call(5000) == CALL
    limit = View.parse("MATCHSTATE:0:0:r:TdAs|", load_game("hulhe"))
    assert limit.raise_or_call(12345) == RAISE
    waiting = View.parse("MATCHSTATE:0:0::TdAs|", load_game("hulhe"))
    assert waiting.raise_bounds is None and not waiting.can_fold and not waiting.is_legal(CALL)


def test_match_history_over_the_limit_example():
    world = World(load_game("hulhe"), MatchInfo(load_game("hulhe")))
    new_hands = []
    for line, *_ in HULHE_EXAMPLE:
        world.update(line + "\r\n")
        new_hands.append(world.new_hand)
    assert new_hands.count(True) == 3
    match = world.match
    assert match.hands_played == 3
    assert match.results == [-80.0, -40.0, -20.0]
    assert match.total == -140.0
    assert list(match.shown_cards()) == [(0, 1, parse_cards("8hTc"))]
    first = match.hands[0]
    assert (first.index, first.hand_id, first.position, first.betting) == (0, 0, 0, "rrc/rc/crc/crc")
    assert first.to_json(-80.0)["board"] == ["", "2c8c3h", "9c", "Kh"]
    assert first.to_json(-80.0)["shown"] == {"1": "8hTc"}
    assert not world.in_hand


def test_views_share_the_match_so_far():
    game = load_game("hunl")
    world = World(game)
    for line, *_ in HUNL_EXAMPLE[:9]:
        view = world.update(line)
    assert view.match.hands_played == 1 and view.match.total == 1250.0
    nxt = world.update(HUNL_EXAMPLE[9][0])
    assert nxt.match is view.match and world.new_hand and world.in_hand


def test_duplicate_final_state_is_recorded_once():
    game = load_game("hulhe")
    world = World(game)
    for line, *_ in HULHE_EXAMPLE[:12]:
        world.update(line)
    world.update(HULHE_EXAMPLE[11][0])
    assert world.match.hands_played == 1


def test_a_hand_without_final_state_is_not_recorded(caplog):
    game = load_game("hulhe")
    world = World(game)
    world.update(HULHE_EXAMPLE[0][0])
    world.update(HULHE_EXAMPLE[12][0])
    assert world.match.hands_played == 0
    assert "ended without a final state" in caplog.text


def test_malformed_lines_raise_protocol_errors():
    world = World(load_game("hunl"))
    for bad in ("MATCHSTATE:0:1:cc:9s8h|", "MATCHSTATE:2:1::9s8h|", "hello", "MATCHSTATE:0:1:r50:9s8h|",
                "MATCHSTATE:0:1::|9s8h"):
        with pytest.raises(ProtocolError):
            world.update(bad)
    assert world.last is None
