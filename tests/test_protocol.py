"""MATCHSTATE lines and actions: the specification's examples, aliases and malformed input."""

from pathlib import Path

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from acpcbot.gamedef import load_game
from acpcbot.protocol import (
    ProtocolError,
    format_action,
    format_match_state,
    format_reply,
    parse_action,
    parse_match_state,
    parse_reply,
    read_action,
)

EXAMPLES = Path(__file__).parent / "fixtures" / "protocol_examples.txt"


def _exchanges():
    """(game, server line, client reply or None) for every server line of the examples."""
    game = None
    lines = [ln.rstrip("\n") for ln in EXAMPLES.read_text().splitlines() if ln and not ln.startswith("#")]
    out = []
    for i, line in enumerate(lines):
        if line.startswith("game "):
            game = line.split()[1]
        elif line.startswith("S-> "):
            reply = lines[i + 1][4:] if i + 1 < len(lines) and lines[i + 1].startswith("<-C ") else None
            out.append((game, line[4:], reply))
    return out


EXCHANGES = _exchanges()


def test_examples_cover_the_three_games():
    assert {g for g, _, _ in EXCHANGES} == {"hulhe", "hunl", "3pl"}
    assert len(EXCHANGES) >= 60
    assert sum(1 for _, _, r in EXCHANGES if r) >= 30


@pytest.mark.parametrize("game_name,line,reply", EXCHANGES)
def test_example_parses_formats_back_and_knows_whose_turn(game_name, line, reply):
    game = load_game(game_name)
    ms = parse_match_state(line, game)
    assert format_match_state(ms.state, ms.position) == line
    # the client is asked exactly when the specification shows it replying
    assert ms.is_my_turn == (reply is not None)
    if reply is not None:
        replied, action_text = parse_reply(reply, game)
        assert replied.state.actions == ms.state.actions
        action = parse_action(action_text, game)
        assert ms.state.is_legal(action)
        assert format_reply(line, action, game) == reply + "\r\n"


def test_final_states_show_only_non_folded_cards():
    game = load_game("3pl")
    ms = parse_match_state("MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d", game)
    st = ms.state
    assert st.finished and st.shown_players() == [0, 2]
    assert st.payoffs() == [-70.0, -10.0, 80.0]


def test_nolimit_all_in_runs_out_the_board():
    game = load_game("hunl")
    ms = parse_match_state("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc", game)
    st = ms.state
    assert st.finished and st.round == 3 and st.spent == [20000, 20000]
    assert st.payoffs() == [-20000.0, 20000.0]  # JdTc makes the straight 9-K


def test_crlf_and_lf_are_both_accepted():
    game = load_game("hunl")
    a = parse_match_state("MATCHSTATE:0:30:c:9s8h|\r\n", game)
    b = parse_match_state("MATCHSTATE:0:30:c:9s8h|\n", game)
    assert a.state.actions == b.state.actions and a.position == b.position == 0


@pytest.mark.parametrize("text,game_name,expected", [
    ("f", "hulhe", FOLD), ("F", "hulhe", FOLD), ("c", "hulhe", CALL), ("k", "hulhe", CALL),
    ("K", "hulhe", CALL), ("C", "hulhe", CALL), ("r", "hulhe", RAISE), ("b", "hulhe", RAISE),
    ("B", "hulhe", RAISE), ("R", "hulhe", RAISE), ("r250", "hunl", raise_to(250)), ("b1200", "hunl", raise_to(1200)),
])
def test_action_aliases(text, game_name, expected):
    assert parse_action(text, load_game(game_name)) == expected


def test_action_formatting():
    nl, lim = load_game("hunl"), load_game("hulhe")
    assert format_action(raise_to(300), nl) == "r300"
    assert format_action(RAISE, lim) == "r"
    assert format_action(CALL, nl) == "c" and format_action(FOLD, lim) == "f"


def test_read_action_leaves_trailing_text():
    assert read_action("r500xyz", load_game("hunl")) == (Action(ActionType.RAISE, 500), 4)


@pytest.mark.parametrize("text,game_name,message", [
    ("", "hunl", "missing action"),
    ("x", "hunl", "unknown action character"),
    ("r", "hunl", "without a size"),
    ("rabc", "hunl", "without a size"),
    ("cc", "hulhe", "unexpected text"),
])
def test_bad_actions(text, game_name, message):
    with pytest.raises(ProtocolError, match=message):
        parse_action(text, load_game(game_name))


@pytest.mark.parametrize("line,game_name,message", [
    ("MATCHSTATE:0:0::TdAs", "hulhe", "hole-card groups"),
    ("MATCHSTATE:0:0:TdAs|", "hulhe", "not a MATCHSTATE line"),
    ("MATCHSTAT:0:0::TdAs|", "hulhe", "not a MATCHSTATE line"),
    ("MATCHSTATE:2:0::TdAs|", "hulhe", "position 2 out of range"),
    ("MATCHSTATE:x:0::TdAs|", "hulhe", "position 'x'"),
    ("MATCHSTATE:0:-1::TdAs|", "hulhe", "hand number '-1'"),
    ("MATCHSTATE:0:0:q:TdAs|", "hulhe", "invalid character 'q'"),
    ("MATCHSTATE:0:0:r100:TdAs|", "hulhe", "invalid character '1'"),
    ("MATCHSTATE:0:0:r:TdAs|", "hunl", "invalid no-limit betting"),
    ("MATCHSTATE:0:0:cc:TdAs|", "hunl", "no '/' follows"),
    ("MATCHSTATE:0:0:c/:TdAs|", "hunl", "before round 1 is over"),
    ("MATCHSTATE:0:0:ccc/:TdAs|/2c8c3h", "hunl", "comes after the round ended"),
    ("MATCHSTATE:0:0:cf:TdAs|", "hunl", "illegal"),
    ("MATCHSTATE:0:0:r150:TdAs|", "hunl", "outside the legal range"),
    ("MATCHSTATE:0:0:r20001:TdAs|", "hunl", "outside the legal range"),
    ("MATCHSTATE:0:0:rrrr:TdAs|", "hulhe", "illegal"),
    ("MATCHSTATE:0:0:cc/:TdAs|/2c8c", "hunl", "round 2 shows 2 board cards"),
    ("MATCHSTATE:0:0:cc/:TdAs|", "hunl", "0 board groups"),
    ("MATCHSTATE:0:0::TdTd|", "hunl", "appears twice"),
    ("MATCHSTATE:0:0::Td|", "hunl", "shows 1 hole cards"),
    ("MATCHSTATE:0:0::TdAx|", "hunl", "unknown suit character 'x'"),
    ("MATCHSTATE:0:0::tdAs|", "hunl", "rank 't' has the wrong case"),
    ("MATCHSTATE:0:0::|TdAs", "hunl", "not shown its own hole cards"),
    ("MATCHSTATE:0:0::2s|", "kuhn3p", "hole-card groups"),
    ("MATCHSTATE:0:0::2s||", "kuhn3p", "not in this game's deck"),
    ("MATCHSTATE:0:0::TdAs|:c", "hunl", "unexpected text after the cards"),
])
def test_malformed_match_states(line, game_name, message):
    with pytest.raises(ProtocolError, match=message):
        parse_match_state(line, load_game(game_name))


def test_reply_without_action_is_an_error():
    with pytest.raises(ProtocolError, match="no ':<action>'"):
        parse_reply("MATCHSTATE:0:0::TdAs|", load_game("hunl"))


def test_garbage_never_escapes_as_another_exception():
    import random
    game = load_game("hunl")
    rng = random.Random(7)
    alphabet = "MATCHSTE:0123456789|/rcfAKQJT98765432shdcx\x00\xff "
    for _ in range(3000):
        line = "MATCHSTATE:" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        try:
            parse_match_state(line, game)
        except ProtocolError:
            pass


@pytest.mark.parametrize("game_name", ["hulhe", "hunl", "3pl"])
def test_parsing_from_the_previous_line_equals_parsing_from_scratch(game_name):
    game = load_game(game_name)
    lines = [line for g, line, _ in EXCHANGES if g == game_name]
    previous = None
    for line in lines:
        scratch = parse_match_state(line, game)
        if previous is not None and previous.hand_id != scratch.hand_id:
            previous = None
        chained = parse_match_state(line, game, previous)
        for attr in ("actions", "actors", "spent", "round", "finished", "folded", "hole", "board",
                     "current_player", "min_raise_to", "max_spent"):
            assert getattr(chained.state, attr) == getattr(scratch.state, attr), (attr, line)
        assert chained.state.legal_actions() == scratch.state.legal_actions()
        assert format_match_state(chained.state, chained.position) == line
        previous = chained


def test_the_previous_state_is_not_changed_by_a_later_line():
    game = load_game("hunl")
    first = parse_match_state("MATCHSTATE:0:30:c:9s8h|", game)
    parse_match_state("MATCHSTATE:0:30:cc/:9s8h|/8c8d5c", game, first)
    assert first.state.actions == [[CALL]] and first.state.round == 0


@pytest.mark.parametrize("before,after", [
    ("MATCHSTATE:0:30:cc/r25:9s8h|/8c8d5c", "MATCHSTATE:0:30:cc/r250:9s8h|/8c8d5c"),  # inside a raise size
    ("MATCHSTATE:0:30:c:9s8h|", "MATCHSTATE:0:31:c:9s8h|"),  # another hand
    ("MATCHSTATE:1:30:c:|9s8h", "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c"),  # another position
])
def test_lines_that_do_not_extend_the_previous_one_are_parsed_from_scratch(before, after):
    game = load_game("hunl")
    try:
        previous = parse_match_state(before, game)
    except ProtocolError:
        previous = None
    chained = parse_match_state(after, game, previous)
    assert chained.state.actions == parse_match_state(after, game).state.actions


def test_errors_are_reported_for_the_whole_line_when_chained():
    game = load_game("hunl")
    previous = parse_match_state("MATCHSTATE:0:30:c:9s8h|", game)
    with pytest.raises(ProtocolError, match="betting 'cf'"):
        parse_match_state("MATCHSTATE:0:30:cf:9s8h|", game, previous)
