"""The human player: entry parsing, re-asking on bad entries, and a whole exchange through piped stdin and a pty."""

from __future__ import annotations

import asyncio
import io
import os
import random

import pytest
from client_fakedealer import client_process

from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.strategies import human_screen
from acpcbot.strategies.base import RunMode
from acpcbot.strategies.human import HumanStrategy, parse_entry
from acpcbot.world import MatchInfo, View, World

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
    (FACING, "r", "say how much: r N raises to N chips in this street, from 1500 to 20000"),
    (FACING, "r1000", "between 1500 and 20000 chips in this street, not 1000"),
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


def test_a_huge_amount_is_answered_in_our_words():
    # issue 34 item 10: 5,000 digits used to show Python's sys.set_int_max_str_digits() text
    for view in (FACING, View.parse("MATCHSTATE:0:0:r:TdAs|", HULHE)):
        with pytest.raises(ValueError) as err:
            parse_entry("r " + "9" * 5000, view)
        assert "digits" not in str(err.value) and "more chips than" in str(err.value)


def test_limit_raise():
    assert parse_entry("r", View.parse("MATCHSTATE:0:0:r:TdAs|", HULHE)) == RAISE


def test_a_limit_raise_may_name_the_size_its_option_shows():
    # issue 32: the option reads "r raise to 30", so "r 30" is that raise, not an error
    view = View.parse("MATCHSTATE:0:0:r:TdAs|", HULHE)
    assert "r raise to 30" in human_screen.options(view)
    assert parse_entry("r 30", view) == RAISE and parse_entry("r30", view) == RAISE
    with pytest.raises(ValueError, match=r"fixed size: enter r alone \(or r 30\)"):
        parse_entry("r 40", view)


def test_the_running_total_counts_the_hands_shown_not_the_ones_the_match_already_holds():
    # issue 32: the hook runs on a worker thread, after the client may have read the next hand's end too;
    # hand 2 ends without the player acting (the bot folds its small blind)
    player, out = human("")
    player.start_match(MatchInfo(game=HUNL, name="me", opponents=("bot",)))
    world = World(HUNL)
    first = world.update("MATCHSTATE:1:0:r300f:|JdTc")           # we raise, the big blind folds: +100
    second = world.update("MATCHSTATE:0:1:f:9s8h|")              # the bot folds its small blind: +50
    player.observe(first)
    player.observe(second)
    text = out.getvalue()
    assert "match: you +100 after 1 hand\n" in text
    assert "match: you +150 after 2 hands\n" in text
    assert text.count("match: you") == 2
    player.observe(second)  # the same final state again: no second end of hand
    assert out.getvalue().count("match: you") == 2


def test_a_split_pot_says_so():
    # issue 32: both play the royal flush on the board; nobody wins chips, and the screen still says how it ended
    player, out = human("")
    player.start_match(MatchInfo(game=HUNL, name="me", opponents=("bot",)))
    player.observe(World(HUNL).update("MATCHSTATE:0:3:cc/cc/cc/cc:2c3d|4h5s/AsKsQs/Js/Ts"))
    text = out.getvalue()
    assert "the pot of 200 is split between you, bot; you +0\n" in text
    assert "match: you +0 after 1 hand" in text


def test_chip_totals_are_never_in_scientific_notation():
    assert human_screen.chips(3450040.0) == "+3450040" and human_screen.chips(-0.5) == "-0.5"
    assert human_screen.chips(-12345678901.0) == "-12345678901"


class Keyboard:
    """Standard input typed line by line; ``""`` is a Ctrl-D (end of input for one read, as on a terminal)."""

    def __init__(self, lines):
        self.lines = list(lines)

    def readline(self):
        return self.lines.pop(0) if self.lines else ""


def human(entries, game=HUNL):
    out = io.StringIO()
    stdin = io.StringIO(entries) if isinstance(entries, str) else Keyboard(entries)
    return HumanStrategy(game, random.Random(0), stdin=stdin, stdout=out), out


def test_asks_again_until_the_entry_is_legal():
    player, out = human("hello\nr100\n?\nr1500\n")
    assert player.act(FACING, float("inf")) == raise_to(1500)
    text = out.getvalue()
    assert "Your cards Jd Tc, board -" in text
    assert "Pot 1200; this street: player at position 1 900, you 300; stacks: player at position 1 19100, " \
           "you 19700; to call 600" in text
    assert "Your options: f fold | c call 600 | r N raise to N this street, N from 1500 to 20000 (or: min, allin)" \
        in text
    assert "not valid: cannot read 'hello'" in text
    assert "not valid: a raise must go to between 1500 and 20000 chips in this street" in text
    assert text.count("your action> ") == 4
    assert "Enter f (fold)" in text  # the help


def test_raises_are_chips_in_this_street():
    # hulhe river, 50 chips each in from earlier streets: ACPC says the bet raises to 70; at the table it bets 20
    river = View.parse("MATCHSTATE:1:5:rc/rc/rc/r:|9s8h/8c8d5c/6s/2d", HULHE)
    player, out = human("c\n", HULHE)
    player.observe(river)
    assert player.act(river, 0) == CALL
    text = out.getvalue()
    assert "-- River: 2d  (board 8c 8d 5c 6s 2d)" in text
    assert "player at position 1 bets 20" in text and "70" not in text
    assert "Pot 120; this street: player at position 1 20, you 0; to call 20" in text
    assert "Your options: f fold | c call 20 | r raise to 40" in text
    # no-limit flop, 100 in preflop: "r 300" raises to 300 in this street, 400 for the hand
    flop = View.parse("MATCHSTATE:1:30:cc/r250:|9c6h/8c8d5c", HUNL)  # facing a bet of 150
    assert parse_entry("r300", flop) == raise_to(400)
    assert parse_entry("min", flop) == raise_to(400)
    with pytest.raises(ValueError, match="between 300 and 19900 chips in this street, not 200"):
        parse_entry("r200", flop)


def test_ctrl_d_asks_and_going_on_does_not_fold():
    player, out = human(["", "\n", "c\n"])  # Ctrl-D, then Enter (go on), then a call
    assert player.act(FACING, 0) == CALL
    assert "Leave the match? y to leave, Enter to go on: " in out.getvalue()
    assert not player.left


def test_leaving_closes_the_match_instead_of_folding():
    left = []
    player, out = human(["", "y\n"])
    player.leave = lambda: left.append(True)
    player.act(FACING, 0)
    assert left == [True] and player.left  # the runner cancels the match before this act's answer is sent
    player2, _ = human("")  # input closed for good: two ends of input leave too
    player2.leave = lambda: left.append(2)
    player2.act(FREE, 0)
    assert left == [True, 2]


def test_shows_the_hand_as_it_goes():
    player, out = human("")
    player.start_match(MatchInfo(game=HUNL, name="me", opponents=("bot",)))
    world = World(HUNL)
    for line in ("MATCHSTATE:0:30::9s8h|", "MATCHSTATE:0:30:c:9s8h|", "MATCHSTATE:0:30:cc/:9s8h|/8c8d5c",
                 "MATCHSTATE:0:30:cc/r250c/r500c/r1250c:"
                 "9s8h|9c6h/8c8d5c/6s/2d"):
        player.observe(world.update(line))
    text = out.getvalue()
    assert text.startswith("You (me) play no-limit hunl against bot.")
    # ACPC position 0 of hand 30 is the big blind; the bot (position 1) posts the small blind and has the button
    assert "=== Hand 31: you are big blind 100; bot is small blind 50 and button\nYour cards: 9s 8h" in text
    assert "bot calls 50" in text and "you check" in text and "you bet 150" in text
    assert "bot calls 750" in text
    assert "-- Flop: 8c 8d 5c\n" in text
    assert "you show 9s 8h: Three of a Kind" in text and "bot shows 9c 6h: Two Pair" in text
    assert "you win the pot of 2500; you +1250" in text
    assert "match: you +1250 after 1 hand\n" in text


def test_small_games_name_their_hands_and_rounds():
    leduc = load_game("leduc")
    player, out = human("", leduc)
    player.observe(World(leduc).update("MATCHSTATE:0:2:cc/cc:Ks|Qs/Kh"))
    text = out.getvalue()
    assert "-- Round 2: Kh" in text and "you show Ks: pair of K" in text and "shows Qs: K high" in text


def test_is_exempt_from_the_deadline():
    assert HumanStrategy.run_mode == RunMode("untimed", "every")


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
    assert "not valid: a raise must go to between 200 and 20000 chips in this street, not 10" in out
    assert "player at position 1 raises to 900" in out and "you fold" in out
    assert "you -300" in out
    assert " INFO " not in err  # a person reads the table: the client's progress lines stay off the screen


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
