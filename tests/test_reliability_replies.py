"""Replies the dealer reads the reference's way: unknown action letters, numbers as sscanf reads them, --strict.

Facts from project_acpc_server 1.0.42 (game.c, dealer.c), each also seen
from the built reference dealer (tests/test_reliability_reference.py):
``charToAction`` maps every byte but ``fFcCkKrRbB`` to ``a_invalid``, which
``readAction`` accepts and ``isValidAction`` refuses ("invalid action");
only a missing ':' or an unreadable no-limit size is "bad action format".
The position is read with ``%hhu`` (wraps into a byte), the hand number
with ``%u`` (32 bits), both after optional white space and sign.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from dealerkit import config_for, play_match

from acpcbot.engine import CALL, RAISE, State, raise_to
from acpcbot.gamedef import load_game
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

INVALID = "WARNING: invalid action, changed to call"
HUNL = load_game("hunl")
SENT = "MATCHSTATE:1:0::|9hQd"  # hunl, seed 0, hand 0: position 1 acts first


def _first_state(game=HUNL):
    hole, board = Dealer(game, 0).deal()
    return State(game, 0, hole, board)


def judge(reply: bytes, sent: str = SENT, game=HUNL, **options):
    return interpret_reply(reply, sent.encode() + b":", _first_state(game), 1, **options)


@pytest.mark.parametrize("action", [b"x", b"", b"\r\n", b"\n", b"\x00", b"\xff", b" c", b"?", b"0", b":c", b"/"])
def test_any_other_character_is_the_references_invalid_action(action):
    assert judge(SENT.encode() + b":" + action) == (ACCEPTED, CALL, (INVALID,))


@pytest.mark.parametrize("reply", [SENT.encode() + b"\r\n", SENT.encode() + b":r\r\n", SENT.encode() + b":rx\r\n",
                                   SENT.encode() + b":r-\r\n", SENT.encode() + b"junk:c\r\n"])
def test_only_a_missing_colon_or_an_unreadable_size_is_bad_action_format(reply):
    assert judge(reply) == (ACCEPTED, CALL, (WARN_BAD_ACTION,))


def test_a_limit_raise_needs_no_size():
    hulhe = load_game("hulhe")
    state = _first_state(hulhe)
    from acpcbot.protocol import format_match_state
    sent = format_match_state(state, 1)
    assert judge(sent.encode() + b":r\r\n", sent, hulhe) == (ACCEPTED, RAISE, ())


@pytest.mark.parametrize("head,status", [
    ("MATCHSTATE:257:0", ACCEPTED),            # 257 wraps to 1 in the reference's byte
    ("MATCHSTATE:-255:0", ACCEPTED),           # strtoul negates modulo 2**64: ...01 in the low byte
    ("MATCHSTATE: 1:0", ACCEPTED),             # %u skips white space
    ("MATCHSTATE:+1:+0", ACCEPTED),
    ("MATCHSTATE:1:4294967296", ACCEPTED),     # 2**32 wraps to hand 0
    ("MATCHSTATE:1:4294967295", UNREQUESTED),  # another hand
    ("MATCHSTATE:256:0", UNREQUESTED),         # position 0: not the one asked
    ("MATCHSTATE:255:0", BAD_STATE),           # no such position
    ("MATCHSTATE:" + "9" * 5000 + ":0", BAD_STATE),   # saturates to 255
    ("MATCHSTATE:1:" + "9" * 5000, UNREQUESTED),      # saturates to 4294967295
])
def test_numbers_in_a_reply_are_read_as_sscanf_reads_them(head, status):
    got = judge(f"{head}::|9hQd:r300\r\n".encode())
    assert got[0] == status
    if status == ACCEPTED:
        assert got[1:] == (raise_to(300), ())
    else:
        assert got[2] == ((WARN_BAD_STATE,) if status == BAD_STATE else (WARN_UNREQUESTED,))


@pytest.mark.parametrize("tail,warned", [(b"c\r\n", False), (b"c\n", False), (b"c", False), (b"cjunk\r\n", True),
                                         (b"c \r\n", True), (b"r300xyz\r\n", True), (b"c\r\r\n", True)])
def test_strict_sees_text_after_the_action(tail, warned):
    reply = SENT.encode() + b":" + tail
    plain = judge(reply)
    assert plain[0] == ACCEPTED and plain[2] == ()  # the reference ignores what follows the action
    strict = judge(reply, strict=True)
    assert strict[:2] == plain[:2]
    assert strict[2] == (("WARNING: text after the action in response",) if warned else ())


def test_strict_ends_the_match_at_trailing_junk_after_the_action():
    async def junk_then_call(player, line, ms):
        player.write(f"{line}:cjunk\r\n".encode() if (ms.hand_id, format_betting(ms.state)) == (0, "") else
                     f"{line}:c\r\n".encode())

    config = config_for("hunl", 2, 0, strict=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, [junk_then_call] * 2, Path(tmp)))
    assert not out.result.finished
    assert out.problems() == ["ERROR: seat 2 (p2) sent a bad reply in hand 0: text after the action in response: "
                              "'MATCHSTATE:1:0::|9hQd:cjunk'; match ended (--strict)"]
