"""The notation layer's own pieces: golden lines the dealer writes, read back and keyed the same way everywhere."""

import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, Action, ActionType, State
from acpcbot.gamedef import load_game
from acpcbot.notation import ProtocolError, info_key, key_of_line, line_of_key
from acpcbot.notation.actions import action_text, one_action, plain_action
from acpcbot.notation.betting import format_betting, replay_betting, rounds_ended
from acpcbot.notation.cardsfield import CardsText
from acpcbot.notation.loglines import (
    LogError,
    parse_state_line,
    split_transaction_state,
    state_line as log_state_line,
    state_line_cards,
    transaction_state,
)
from acpcbot.notation.matchstate import format_match_state, read_version, state_head, state_line
from acpcbot.notation.transcript import (
    finished_line,
    format_stamp,
    from_head,
    parse_stamp,
    stamp_bytes,
    started_line,
    to_head,
    transaction_line,
)
from acpcbot.solve.policy import infoset_key
from acpcbot.world import View


def _leduc(betting: str, hand_id: int = 3) -> State:
    game = load_game("leduc")
    state = State(game, hand_id, [parse_cards("Kh"), parse_cards("Qs")], parse_cards("Ah"))
    return replay_betting(betting, game, state)


def test_action_text_is_the_protocols_letters():
    assert [action_text(a, False) for a in (FOLD, CALL, RAISE)] == ["f", "c", "r"]
    assert action_text(Action(ActionType.RAISE, 650), True) == "r650"
    assert action_text(Action(ActionType.RAISE, 650), False) == "r"  # a limit raise has no size on the wire
    assert rounds_ended(0) == "" and rounds_ended(2) == "//"


def test_one_action_and_plain_action_read_only_the_usual_texts():
    assert one_action("r500/", True) == Action(ActionType.RAISE, 500)
    assert one_action("c//", False) == CALL and one_action("cc", False) is None
    assert one_action("r1234567890", True) is None  # ten digits: the full parse judges it
    assert plain_action(b"f\r\n", True) == FOLD and plain_action(b"r20\r\n", True) == Action(ActionType.RAISE, 20)
    assert plain_action(b"r20\n", True) is None and plain_action(b"r20\r\n", False) is None


def test_the_dealer_loop_pieces_make_the_line_format_match_state_makes():
    # hunl: the pieces a hand loop keeps (head, cards text) joined by state_line are the whole line, byte for byte
    game = load_game("hunl")
    state = State(game, 42, [parse_cards("AsKd"), parse_cards("7c2h")], parse_cards("Qh9s3d4c5c"))
    replay_betting("r300c/", game, state)
    text = CardsText(state)
    for p in range(2):
        pieces = state_line(state_head(p, 42), format_betting(state), text.field(state, p))
        assert pieces == format_match_state(state, p)
    assert format_match_state(state, 1) == "MATCHSTATE:1:42:r300c/:|7c2h/Qh9s3d"


def test_one_information_set_key_for_the_solver_and_the_seat():
    # the shipped Leduc policy's keys: what the acting position receives, without the prefix and hand number
    state = _leduc("rc/", hand_id=3)
    assert info_key(state, 0) == infoset_key(state, 0) == "0:rc/:Kh|/Ah"
    line = format_match_state(state, 0)
    assert View.parse(line, state.game).infoset_key == info_key(state, 0) == key_of_line(line + "\r\n")
    assert line_of_key("0:rc/:Kh|/Ah", 9) == "MATCHSTATE:0:9:rc/:Kh|/Ah"
    with pytest.raises(ProtocolError, match="not a MATCHSTATE line"):
        key_of_line("STATE:0:rc/:Kh|Qs/Ah:1|-1:a|b")
    with pytest.raises(ProtocolError):
        line_of_key("no separator")


def test_info_key_ignores_what_the_position_cannot_see():
    state = _leduc("r")
    other = State(state.game, 99, [parse_cards("Kh"), parse_cards("Js")], parse_cards("Ad"))
    replay_betting("r", state.game, other)
    assert info_key(state, 0) == info_key(other, 0) == "0:r:Kh|"
    assert info_key(state, 1) != info_key(other, 1)


def test_log_and_transaction_lines():
    state = _leduc("rc/rc", hand_id=7)
    cards = CardsText(state).field(state, None)
    assert cards == "Kh|Qs/Ah"
    assert log_state_line(7, "rc/rc", cards, [7.0, -7.0], "a|b") == "STATE:7:rc/rc:Kh|Qs/Ah:7|-7:a|b"
    assert transaction_state(7, "rc/r", cards) == "STATE:7:rc/r:Kh|Qs/Ah"
    assert split_transaction_state("STATE:7:rc/r:Kh|Qs/Ah:c") == ("7", "rc/r", "Kh|Qs/Ah", "c")
    assert split_transaction_state("c 7") is None
    assert split_transaction_state("STATE:7:c") == ("", "", "", "")  # no hand number reads


def test_transcript_pieces():
    assert format_stamp(1471220082_260196) == "1471220082.260196" and parse_stamp("12.000034") == 12_000_034
    assert stamp_bytes(5) == b"0.000005 "
    assert to_head(0) == b"TO 1 at " and from_head(1) == b"FROM 2 at "
    assert to_head(20) == b"TO 21 at " and from_head(20) == b"FROM 21 at "  # past the kept heads
    assert started_line(1_000_000) == "STARTED at 1.000000" and finished_line(2) == "FINISHED at 0.000002"
    assert transaction_line("STATE:0::Kh|Qs", "r", 1, 2) == "STATE:0::Kh|Qs:r 0.000001 0.000002\n"


def test_version_lines():
    assert read_version("VERSION:2.0.0\r\n") == (2, 0, 0)
    assert read_version("VERSION:2.1.7") == (2, 1, 7)
    assert read_version("VERSION 2.0.0") is None and read_version("version:2.0.0") is None


def test_a_transcript_line_carrying_a_state_reads_as_direction_seat_and_line():
    from acpcbot.notation.transcript import read_state_line

    assert read_state_line("TO 2 at 1700000000.123456 MATCHSTATE:1:7:cr300:|9s8h\r\n") == \
        ("TO", 2, "MATCHSTATE:1:7:cr300:|9s8h")
    assert read_state_line("FROM 1 at 1700000000.2 MATCHSTATE:0:7:cr300:AsKd|:c") == \
        ("FROM", 1, "MATCHSTATE:0:7:cr300:AsKd|:c")
    assert read_state_line("STARTED at 1700000000.000001") is None
    assert read_state_line("TO 1 at 1700000000.1 VERSION:2.0.0") is None


def test_a_state_lines_cards_read_without_its_betting_are_the_replayed_hands():
    hunl = load_game("hunl")
    folded = "STATE:3:r300c/cr600f:9hQc|8dAs/7h2c4d:-300|300:a|b"
    shown = "STATE:4:cc/cc/cc/cc:AsAd|KsKd/2c3c4c/5d/6h:100|-100:b|a"
    assert state_line_cards(folded, hunl) == ([tuple(parse_cards("9hQc")), tuple(parse_cards("8dAs"))],
                                              list(parse_cards("7h2c4d")))
    for line in (folded, shown):
        hand = parse_state_line(line, hunl).state
        assert state_line_cards(line, hunl) == ([tuple(h) for h in hand.hole], list(hand.board))
    with pytest.raises(LogError, match="hand 5"):
        state_line_cards("STATE:5:cc/cc:AsAd|AsKd/2c3c4c:0|0:a|b", hunl)  # a card dealt twice
    with pytest.raises(LogError, match="six"):
        state_line_cards("STATE:5:cc:AsAd|KsKd", hunl)
