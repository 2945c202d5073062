"""Numbers of any length from the network or a file: a clear error of the parser's own type, never a crash.

Python refuses to convert a decimal text of more than 4,300 digits
(``sys.int_info.default_max_str_digits``); every reader of hand numbers,
positions, raise sizes, stacks, time stamps and header counts bounds the
digits it converts (issue 13, item 1), and stacks above 2**31 - 1, which
the reference refuses, are refused (item 10).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from client_fakedealer import client_process
from dealerkit import config_for, logcheck_logs

from acpcbot.engine import State
from acpcbot.gamedef import INT32_MAX, GameDefError, load_game, parse_game
from acpcbot.logcheck import LogCheckError, check_log
from acpcbot.matchlog import LogError, parse_header_line, parse_state_line, read_match_log
from acpcbot.protocol import ProtocolError, parse_action, parse_match_state, read_action
from dealer.logs import TransactionFileError, parse_stamp, read_transactions
from dealer.replies import BAD_STATE, UNREQUESTED, interpret_reply
from dealer.resume import ResumeError, replay_transactions

HUGE = "9" * 5000  # beyond Python's 4,300-digit conversion limit
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_limit_this_file_is_about_exists():
    with pytest.raises(ValueError, match="4300"):
        int(HUGE)


def test_bounded_int_reads_any_length():
    from acpcbot.gamedef import bounded_int

    assert bounded_int("123", 0, 1000) == 123
    assert bounded_int("-0042", -100, 100) == -42
    assert bounded_int("0" * 6000 + "7", 0, 10) == 7  # leading zeros do not count
    assert bounded_int(HUGE, 0, 2**32) == 2**32  # clamped, not converted
    assert bounded_int("-" + HUGE, -5, 5) == -5
    assert bounded_int("007", 0, 10) == 7 and bounded_int("15", 0, 2) == 2  # the short all-digit path clamps alike
    for bad in ("", "+", "12a", " 1", "1_000", "\u0663", "\u00b2", "0x10"):  # \u00b2: isdigit() but not int()
        assert bounded_int(bad, 0, 10) is None, bad


@pytest.mark.parametrize("line", [
    f"MATCHSTATE:0:{HUGE}::9s8h|",      # hand number
    f"MATCHSTATE:{HUGE}:0::9s8h|",      # position
    f"MATCHSTATE:0:0:r{HUGE}:9s8h|",    # raise size
    f"MATCHSTATE:0:0:cr{HUGE}c/:9s8h|/8c8d5c",
    "MATCHSTATE:0:4294967296::9s8h|",   # one past the reference's 32-bit hand number
])
def test_a_dealer_line_with_a_huge_number_is_a_protocol_error(line):
    with pytest.raises(ProtocolError) as err:
        parse_match_state(line, load_game("hunl"))
    assert len(str(err.value)) < 400  # the 5,000 digits are not echoed


def test_a_huge_raise_size_in_a_reply_saturates_as_c_does():
    game = load_game("hunl")
    assert read_action("r" + HUGE, game) == ((2, 2**63 - 1), 5001)
    assert read_action("r-" + HUGE, game)[0].size == -2**63
    with pytest.raises(ProtocolError, match="unexpected text"):
        parse_action("r1x", game)


def test_the_client_exits_4_on_a_huge_hand_number():
    # documented: 4 is a protocol error from the dealer (1 would say the strategy failed to start)
    code, _, err, _ = asyncio.run(client_process([("send", f"MATCHSTATE:0:{HUGE}::9s8h|\r\n"), ("sleep", 0.3)],
                                                 "--strategy", "call"))
    assert code == 4, err[-2000:]
    assert "protocol error on line 1 from the dealer" in err and "Traceback" not in err
    assert len(err) < 3000


def test_the_dealer_reply_reader_takes_huge_numbers_without_a_crash():
    game = load_game("hunl")
    state = State(game, 0, [(0, 1), (2, 3)], [4, 5, 6, 7, 8])
    sent = b"MATCHSTATE:1:0::|2d2h:"
    # a position of 5,000 digits saturates to 255 in the reference's byte: no such position
    assert interpret_reply(f"MATCHSTATE:{HUGE}:0::|2d2h:c\r\n".encode(), sent, state, 1)[0] == BAD_STATE
    # a hand number saturates to 4294967295: another hand
    assert interpret_reply(f"MATCHSTATE:1:{HUGE}::|2d2h:c\r\n".encode(), sent, state, 1)[0] == UNREQUESTED
    assert interpret_reply(f"MATCHSTATE:1:0:r{HUGE}:|2d2h:c\r\n".encode(), sent, state, 1)[0] == BAD_STATE


# ------------------------------------------------------------------------- logs

HEADER = "# name/game/hands/seed m hunl 1 0\n"
GOOD_STATE = "STATE:0:f:9hQd|5d5c:-50|50:a|b\n"


HUGE_LOGS = [
    HEADER + f"STATE:{HUGE}:f:9hQd|5d5c:-50|50:a|b\n",
    HEADER + f"STATE:0:r{HUGE}f:9hQd|5d5c:-50|50:a|b\n",
    HEADER + f"STATE:0:f:9hQd|5d5c:-{HUGE}|50:a|b\n",
    f"# name/game/hands/seed m hunl {HUGE} 0\n" + GOOD_STATE,
    f"# name/game/hands/seed m hunl 1 {HUGE}\n" + GOOD_STATE,
    HEADER + f"#--t_response {HUGE}\n" + GOOD_STATE + f"SCORE:{HUGE}|50:a|b\n",
]


@pytest.fixture(scope="module")
def logcheck_command(tmp_path_factory) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``python -m acpcbot.logcheck`` run once over every log of HUGE_LOGS, in HUGE_LOGS order."""
    return logcheck_logs(tmp_path_factory.mktemp("huge"), HUGE_LOGS)


@pytest.mark.parametrize("text", HUGE_LOGS)
def test_logcheck_names_the_line_of_a_huge_number(tmp_path, text, logcheck_command):
    path = tmp_path / "m.log"
    path.write_text(text)
    with pytest.raises(LogCheckError) as err:
        check_log(path)
    assert len(str(err.value)) < 600
    with pytest.raises(LogError):
        read_match_log(path)  # what `acpc-match merge` and the statistics read logs with
    result, paths = logcheck_command
    case = HUGE_LOGS.index(text)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[case].startswith(f"{paths[case]}: BAD: line")  # one line a file, in order


def test_log_line_readers_refuse_huge_numbers():
    game = load_game("hunl")
    with pytest.raises(LogError, match="not an unsigned 32-bit integer"):
        parse_state_line(f"STATE:{HUGE}:f:9hQd|5d5c:-50|50:a|b", game)
    with pytest.raises(LogError, match="malformed header line"):
        parse_header_line(f"# name/game/hands/seed m hunl {HUGE} 0", None)
    with pytest.raises(LogError, match="not a number"):
        parse_state_line("STATE:0:f:9hQd|5d5c:nan|50:a|b", game)


# ---------------------------------------------------------------- transaction files

@pytest.mark.parametrize("line", [
    f"STATE:{HUGE}::5d5c|9hQd:c 1.000000 1.000001",
    f"c {HUGE} 1.000000 1.000001",
    f"STATE:0::5d5c|9hQd:c {HUGE}.000000 1.000001",
    f"STATE:0::5d5c|9hQd:c 1.{HUGE} 1.000001",
])
def test_the_transaction_reader_refuses_huge_numbers(tmp_path, line):
    path = tmp_path / "m.tlog"
    path.write_text(line + "\n")
    with pytest.raises(TransactionFileError, match=r"m\.tlog line 1"):
        read_transactions(path)


def test_resuming_from_a_huge_raise_is_a_resume_error(tmp_path):
    path = tmp_path / "m.tlog"
    path.write_text(f"STATE:0::5d5c|9hQd:r{HUGE} 1.000000 1.000001\n")
    transactions, _ = read_transactions(path)
    with pytest.raises(ResumeError, match="invalid action"):
        replay_transactions(config_for("hunl", 3), transactions)


def test_time_stamps():
    assert parse_stamp("1.000002") == 1_000_002
    for bad in ("1", "1.", ".5", "1.2345678", "-1.0", HUGE + ".0"):
        with pytest.raises(ValueError, match="malformed time stamp"):
            parse_stamp(bad)


# ---------------------------------------------------------------- game files (item 10)

GAME = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 1
stack = {stack}
blind = 2 1
firstPlayer = 2
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0
END GAMEDEF
"""


def test_the_largest_stack_the_reference_takes_is_taken():
    assert parse_game(GAME.format(stack=f"{INT32_MAX} {INT32_MAX}")).stack == (INT32_MAX, INT32_MAX)


@pytest.mark.parametrize("stack", [f"{INT32_MAX + 1} 100", "100 3000000000", f"{HUGE} 100", f"100 -{HUGE}"])
def test_a_stack_beyond_32_bits_is_refused(stack):
    # the reference reads it into an int32_t: it becomes negative there, below the blind, and the game is refused
    with pytest.raises(GameDefError, match=r"line 5 \(stack\)|stack value") as err:
        parse_game(GAME.format(stack=stack), "big.game")
    assert "big.game" in str(err.value) and len(str(err.value)) < 300


@pytest.mark.parametrize("old,new", [("blind = 2 1", f"blind = {HUGE} 1"), ("numPlayers = 2", f"numPlayers = {HUGE}"),
                                     ("numBoardCards = 0", "numBoardCards = 256"),
                                     ("firstPlayer = 2", "firstPlayer = 257")])
def test_other_huge_values_are_refused(old, new):
    with pytest.raises(GameDefError):
        parse_game(GAME.format(stack="100 100").replace(old, new))


def test_the_dealer_refuses_a_game_with_a_stack_beyond_32_bits(tmp_path):
    game = tmp_path / "big.game"
    game.write_text(GAME.format(stack="3000000000 3000000000"))
    result = subprocess.run([sys.executable, "-m", "dealer", "m", str(game), "10", "0", "a", "b"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=ROOT))
    assert result.returncode == 1 and "could not read game" in result.stderr and "stack" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
