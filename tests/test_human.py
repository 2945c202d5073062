"""The human player: entry parsing, re-asking on bad entries, and a whole exchange through piped stdin and a pty."""

from __future__ import annotations

import asyncio
import io
import os
import random

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.strategies.human import HumanStrategy, parse_entry
from acpcbot.world import MatchInfo, View, World
from client_fakedealer import client_process

HUNL = load_game("hunl")
HULHE = load_game("hulhe")
FACING = View.parse("MATCHSTATE:1:31:r300r900:|JdTc", HUNL)  # to call 600, raise to 1500..20000
FREE = View.parse("MATCHSTATE:0:30:c:9s8h|", HUNL)


@pytest.mark.parametrize("entry,action", [
    ("f", FOLD), ("FOLD", FOLD), (" c ", CALL), ("call", CALL), ("k", CALL), ("check", CALL),
    ("r1500", raise_to(1500)), ("r 2000", raise_to(2000)), ("raise 20000", raise_to(20000)),
    ("bet 3000", raise_to(3000)), ("min", raise_to(1500)), ("allin", raise_to(20000)), ("all-in", raise_to(20000)),
])
def test_entries_facing_a_bet(entry, action):
    assert parse_entry(entry, FACING) == action


@pytest.mark.parametrize("view,entry,words", [
    (FACING, "", "empty entry"),
    (FACING, "x", "cannot read 'x'"),
    (FACING, "r", "say how much: r<N> raises to a total of N, from 1500 to 20000"),
    (FACING, "r1000", "between 1500 and 20000 chips in total, not 1000"),
    (FACING, "r25000", "not 25000"),
    (FACING, "f 10", "a fold takes no amount"),
    (FACING, "c 600", "a call takes no amount"),
    (FREE, "f", "nothing to call: check \\(c\\) instead of folding"),
    (View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", HUNL), "r5000",
     "no raise is allowed here"),
    (View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", HUNL), "allin",
     "no raise is allowed here"),
    (View.parse("MATCHSTATE:0:0:r:TdAs|", HULHE), "r40", "fixed size: enter r alone"),
])
def test_bad_entries_say_why(view, entry, words):
    with pytest.raises(ValueError, match=words):
        parse_entry(entry, view)


def test_limit_raise():
    assert parse_entry("r", View.parse("MATCHSTATE:0:0:r:TdAs|", HULHE)) == RAISE


def human(entries: str) -> tuple[HumanStrategy, io.StringIO]:
    out = io.StringIO()
    return HumanStrategy(HUNL, random.Random(0), stdin=io.StringIO(entries), stdout=out), out


def test_asks_again_until_the_entry_is_legal():
    player, out = human("hello\nr100\n?\nr1500\n")
    assert player.act(FACING, float("inf")) == raise_to(1500)
    text = out.getvalue()
    assert "your cards Jd Tc" in text and "pot 1200, to call 600" in text
    assert "legal: f(old), c(all 600), r<N> with N from 1500 to 20000" in text
    assert "not valid: cannot read 'hello'" in text
    assert "not valid: a raise must go to between 1500 and 20000" in text
    assert text.count("your action> ") == 4
    assert "Enter f (fold)" in text  # the help


def test_closed_input_checks_or_folds_from_then_on():
    player, out = human("")
    assert player.act(FACING, 0) == FOLD
    assert player.act(FREE, 0) == CALL
    assert "input closed" in out.getvalue()


def test_shows_the_hand_as_it_goes():
    player, out = human("")
    world = World(HUNL)
    for line in ("MATCHSTATE:0:30::9s8h|", "MATCHSTATE:0:30:c:9s8h|", "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c",
                 "MATCHSTATE:0:30:cc/r250c/r500c/r1250c:"
                 "9s8h|9c6h/8c8d5c/6s/2d"):
        player.observe(world.update(line))
    text = out.getvalue()
    assert "=== hand 30: you are position 0 of 2; your cards 9s 8h" in text
    assert "player 1: call 50" in text and "you: check" in text and "you: raise to 250" in text
    assert "player 1: call 750" in text
    assert "round 2, board 8c 8d 5c\n" in text
    assert "player 1 shows 9c 6h" in text
    assert "you +1250; match total +1250 after 1 hands" in text


def test_is_exempt_from_the_deadline():
    assert HumanStrategy.time_limited is False and HumanStrategy.inline is False


# ----------------------------------------------------------------- through the command line

SCRIPT = [("send", "MATCHSTATE:1:31::|JdTc\r\n"), ("recv",), ("send", "MATCHSTATE:1:31:r300r900:|JdTc\r\n"),
          ("recv",), ("send", "MATCHSTATE:1:31:r300r900f:|JdTc\r\n")]


def _cli_game(stdin_fd=None, stdin_data: bytes | None = None, feed=None):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return client_process(SCRIPT, "--strategy", "human", "--game", "hunl", "--time-per-hand", "1",
                          stdin=stdin_fd if stdin_fd is not None else asyncio.subprocess.PIPE, input=stdin_data,
                          env=env, started=feed)


def test_a_person_plays_through_piped_stdin():
    code, out, err, dealer = asyncio.run(_cli_game(stdin_data=b"f 3\nr10\nr300\nf\n"))
    assert code == 0, err
    assert dealer.received[1:] == ["MATCHSTATE:1:31::|JdTc:r300\r\n", "MATCHSTATE:1:31:r300r900:|JdTc:f\r\n"]
    assert "not valid: a fold takes no amount" in out
    assert "not valid: a raise must go to between 200 and 20000 chips in total, not 10" in out
    assert "player 0: raise to 900" in out and "you: fold" in out
    assert "you -300" in out


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_a_person_plays_through_a_pseudo_terminal():
    master, slave = os.openpty()
    try:
        def feed():
            os.write(master, b"bogus\nr300\nf\n")

        code, out, err, dealer = asyncio.run(_cli_game(stdin_fd=slave, feed=feed))
    finally:
        os.close(master)
        os.close(slave)
    assert code == 0, err
    assert dealer.received[1:] == ["MATCHSTATE:1:31::|JdTc:r300\r\n", "MATCHSTATE:1:31:r300r900:|JdTc:f\r\n"]
    assert "not valid: cannot read 'bogus'" in out
