"""Bad replies are treated exactly as the reference dealer treats them (or end the match with --strict)."""

import asyncio
import tempfile
from pathlib import Path

import pytest
from dealerkit import config_for, play_match

from acpcbot.engine import CALL, FOLD, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.logcheck import check_log
from acpcbot.protocol import format_betting
from dealer.replies import (
    ACCEPTED,
    BAD_STATE,
    UNREQUESTED,
    WARN_BAD_ACTION,
    WARN_BAD_STATE,
    WARN_UNREQUESTED,
    interpret_reply,
)
from dealer.rng import Dealer

BAD_STATE_W = "WARNING: bad state format in response"
UNREQ_W = "WARNING: ignoring un-requested response"
BAD_ACTION_W = "WARNING: bad action format in response, changed to call"
INVALID_W = "WARNING: invalid action, changed to call"


def scripted(script):
    """Always call, except at the (hand, betting) requests in ``script``: send its raw pieces instead.

    ``{line}`` in a piece stands for the state line received.
    """
    async def policy(player, line, ms):
        key = (ms.hand_id, format_betting(ms.state))
        if key in script:
            for piece in script[key]:
                player.write(piece.replace(b"{line}", line.encode()))
        else:
            player.reply(line, "c")
    return policy


def _play(game, hands, script, **options):
    config = config_for(game, hands, 0, **options)
    n = config.game.num_players
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, [scripted(script)] * n, Path(tmp)))
        log_path = Path(tmp) / "m.log"
        if out.result is not None and out.result.finished:
            check_log(log_path)
    return out


def _bettings(out):
    return [ln.split(":")[2] for ln in out.log.splitlines() if ln.startswith("STATE:")]


# In hunl hand 0 position 1 (seat 2) acts first: "MATCHSTATE:1:0::|9hQd"; position 0 (seat 1) checks next.

def test_a_line_longer_than_the_read_buffer_arrives_in_4095_byte_pieces():
    out = _play("hunl", 2, {(0, ""): [b"x" * 5000 + b"\r\n", b"{line}:c\r\n"]})
    assert out.problems() == [BAD_STATE_W, BAD_STATE_W]
    froms = [ln for ln in out.transcript.splitlines() if ln.startswith("FROM 2")]
    assert len(froms[0].split(" ", 4)[4]) == 4095 and len(froms[1].split(" ", 4)[4]) == 5000 - 4095
    assert _bettings(out) == ["cc/cc/cc/cc", "cc/cc/cc/cc"]


def test_a_good_reply_padded_past_the_buffer_counts_and_its_tail_is_dropped_later():
    out = _play("hunl", 2, {(0, ""): [b"{line}:r300" + b" " * 5000 + b"\r\n"]})
    # the first piece is a good raise; the rest is read at seat 2's next request and ignored
    assert out.problems() == [BAD_STATE_W]
    assert _bettings(out) == ["r300c/cc/cc/cc", "cc/cc/cc/cc"]


def test_binary_garbage_is_ignored():
    garbage = bytes(range(1, 256)).replace(b"\n", b"") + b"\r\n"
    out = _play("hunl", 1, {(0, ""): [garbage, b"\x00MATCHSTATE\r\n", b"{line}:c\r\n"]})
    assert out.problems() == [BAD_STATE_W, BAD_STATE_W]
    assert out.result.finished


def test_invalid_utf8_in_the_state_or_the_action():
    out = _play("hunl", 1, {(0, ""): [b"MATCHSTATE:\xc3\x28:0::|9hQd:c\r\n", b"MATCHSTATE:1:0::|9h\xff\xfe:c\r\n",
                                      b"{line}:\xff\xfe\r\n"]})
    # the second line is a readable state (the reference reads cards while it can): a different one;
    # the third one's action starts with a byte that is no action letter: the reference's invalid action
    assert out.problems() == [BAD_STATE_W, UNREQ_W, INVALID_W]
    assert _bettings(out) == ["cc/cc/cc/cc"]
    assert "FROM 2 at " in out.transcript and "\ufffd" in out.transcript  # logged as received


def test_a_reply_to_another_state_is_ignored():
    out = _play("hunl", 1, {(0, ""): [b"MATCHSTATE:1:7::|9hQd:f\r\n", b"MATCHSTATE:0:0::5d5c|:f\r\n",
                                      b"{line}:r250\r\n"]})
    assert out.problems() == [UNREQ_W, UNREQ_W]
    assert _bettings(out) == ["r250c/cc/cc/cc"]


def test_a_stale_second_reply_is_dropped_at_the_next_request():
    # seat 2 answers its first request twice; the copy waits in the socket and
    # is read (and ignored) when seat 2 is asked again on the flop
    out = _play("hunl", 1, {(0, ""): [b"{line}:c\r\n", b"{line}:c\r\n"]})
    assert out.problems() == [UNREQ_W]
    assert _bettings(out) == ["cc/cc/cc/cc"]


def test_comments_are_skipped_silently():
    out = _play("hunl", 1, {(0, ""): [b"# thinking\r\n", b";gui\r\n", b"{line}:c\r\n"]})
    assert out.problems() == []
    assert "FROM 2 at " in out.transcript and "# thinking\r\n" in out.transcript


@pytest.mark.parametrize("reply", [b"{line}\r\n", b"{line}:r\r\n", b"{line}:rx\r\n", b"{line}garbage\r\n"])
def test_a_bad_action_format_becomes_a_call(reply):
    # only a missing ':' or a no-limit raise without a readable size is "bad action format" in the reference
    out = _play("hunl", 1, {(0, ""): [reply]})
    assert out.problems() == [BAD_ACTION_W]
    assert _bettings(out) == ["cc/cc/cc/cc"]


@pytest.mark.parametrize("reply", [b"{line}:x\r\n", b"{line}:\r\n", b"{line}:\n", b"{line}:\x00\r\n",
                                   b"{line}:\xff\r\n", b"{line}: c\r\n", b"{line}:?\r\n"])
def test_an_unknown_or_empty_action_is_the_references_invalid_action(reply):
    # game.c's charToAction maps every other byte to a_invalid, which readAction accepts and
    # isValidAction refuses: "invalid action, changed to call" (checked against the built reference
    # dealer: tests/test_reliability_reference.py)
    out = _play("hunl", 1, {(0, ""): [reply]})
    assert out.problems() == [INVALID_W]
    assert _bettings(out) == ["cc/cc/cc/cc"]


def test_an_invalid_action_becomes_a_call():
    # position 0 may check after the call: folding is not allowed there
    out = _play("hunl", 1, {(0, "c"): [b"{line}:f\r\n"]})
    assert out.problems() == [INVALID_W]
    assert _bettings(out) == ["cc/cc/cc/cc"]


def test_a_raise_over_the_limit_cap_becomes_a_call():
    # 3-player Kuhn allows one raise per round
    out = _play("kuhn3p", 1, {(0, ""): [b"{line}:r\r\n"], (0, "r"): [b"{line}:r\r\n"]}, names=["a", "b", "c"])
    assert out.problems() == [INVALID_W]
    assert _bettings(out) == ["rcc"]


def test_no_limit_raises_out_of_range_are_clamped():
    out = _play("hunl", 2, {(0, ""): [b"{line}:r1\r\n"], (1, ""): [b"{line}:r99999\r\n"]})
    assert out.problems() == ["WARNING: raise of 1 increased to 200", "WARNING: raise of 99999 decreased to 20000"]
    assert _bettings(out) == ["r200c/cc/cc/cc", "r20000c///"]


def test_strict_ends_the_match_at_the_first_bad_reply_naming_seat_hand_and_reply():
    out = _play("hunl", 3, {(1, ""): [b"{line}:x\r\n"]}, strict=True)
    assert not out.result.finished
    assert out.problems() == ["ERROR: seat 1 (p1) sent a bad reply in hand 1: invalid action, "
                              "changed to call: 'MATCHSTATE:1:1::|5dJd:x'; match ended (--strict)"]
    assert _bettings(out) == ["cc/cc/cc/cc"]  # the finished hand stays, nothing after it
    assert "SCORE" not in out.log and "SCORE" not in out.stdout


@pytest.mark.parametrize("script", [{(0, ""): [b"junk\r\n", b"{line}:c\r\n"]},
                                    {(0, ""): [b"MATCHSTATE:1:9::|9hQd:c\r\n", b"{line}:c\r\n"]},
                                    {(0, ""): [b"{line}:r1\r\n"]}])
def test_strict_treats_every_warning_as_fatal(script):
    out = _play("hunl", 2, script, strict=True)
    assert not out.result.finished and _bettings(out) == []
    assert len(out.problems()) == 1 and out.problems()[0].startswith("ERROR: seat 2 (p2) sent a bad reply in hand 0")


def test_strict_allows_comments_and_good_replies():
    out = _play("hunl", 2, {(0, ""): [b"# hello\r\n", b"{line}:c\r\n"]}, strict=True)
    assert out.result.finished and out.problems() == []


# ------------------------------------------------------------------ the reply reader itself

HUNL = load_game("hunl")


def _state(betting_actions=()):
    hole, board = Dealer(HUNL, 0).deal()
    st = State(HUNL, 0, hole, board)
    for a in betting_actions:
        st.apply(a)
    return st


def _judge(line, st, position, sent):
    return interpret_reply(line, sent.encode() + b":", st, position)


SENT_FLOP = "MATCHSTATE:0:0:cc/:5d5c|/8dAs8s"


@pytest.mark.parametrize("reply,action,warnings", [
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:c\r\n", CALL, ()),
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:k\r\n", CALL, ()),  # k is call
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:b500\r\n", raise_to(500), ()),  # b is raise
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:r 500\r\n", raise_to(500), ()),  # sscanf skips the blank
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:r+500junk\n", raise_to(500), ()),
    ("MATCHSTATE:0:0:cc:5d5c|/8dAs8s:c\r\n", CALL, ()),  # the reference skips '/' in the betting
    ("MATCHSTATE:0:0:CK/:5d5c|/8dAs8s:c\r\n", CALL, ()),  # action aliases in the betting too
    ("MATCHSTATE:0:0:cc/:5d5c|9hQd/8dAs8s:c\r\n", CALL, ()),  # others' hole cards are not compared
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:f\r\n", CALL, (WARN_BAD_ACTION.replace("bad action format in response", "invalid action"),)),
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s:r4294967396\r\n", raise_to(200), ("WARNING: raise of 100 increased to 200",)),
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8s/2c:c\r\n", CALL, (WARN_BAD_ACTION,)),  # extra text after the state
])
def test_reply_reader_accepts_what_the_reference_accepts(reply, action, warnings):
    st = _state([CALL, CALL])
    status, got, warns = _judge(reply.encode(), st, 0, SENT_FLOP)
    assert (status, got, warns) == (ACCEPTED, action, warnings)


@pytest.mark.parametrize("reply,status", [
    ("MATCHSTATE:1:0:cc/:5d5c|/8dAs8s:c\r\n", UNREQUESTED),  # wrong position (its hole cards are not shown)
    ("MATCHSTATE:0:1:cc/:5d5c|/8dAs8s:c\r\n", UNREQUESTED),  # wrong hand
    ("MATCHSTATE:0:0:c:5d5c|:c\r\n", UNREQUESTED),  # an earlier state
    ("MATCHSTATE:0:0:cc/:5d5d|/8dAs8s:c\r\n", UNREQUESTED),  # other hole cards
    ("MATCHSTATE:0:0:cc/:5d5c|/8dAs8h:c\r\n", UNREQUESTED),  # other board
    ("MATCHSTATE:0:0:cc/:5d5c|:c\r\n", BAD_STATE),  # the flop is missing
    ("MATCHSTATE:0:0:cf/:5d5c|/8dAs8s:c\r\n", BAD_STATE),  # impossible betting
    ("MATCHSTATE:5:0:cc/:5d5c|/8dAs8s:c\r\n", BAD_STATE),  # no such position
    ("matchstate:0:0:cc/:5d5c|/8dAs8s:c\r\n", BAD_STATE),
    ("\r\n", BAD_STATE),
])
def test_reply_reader_ignores_other_states(reply, status):
    st = _state([CALL, CALL])
    got = _judge(reply.encode(), st, 0, SENT_FLOP)
    assert got[0] == status
    assert got[2] == ((WARN_BAD_STATE,) if status == BAD_STATE else (WARN_UNREQUESTED,))


def test_reply_reader_folds_only_when_facing_a_bet():
    st = _state()
    assert _judge(b"MATCHSTATE:1:0::|9hQd:f\r\n", st, 1, "MATCHSTATE:1:0::|9hQd") == (ACCEPTED, FOLD, ())
