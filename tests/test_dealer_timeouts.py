"""Time limits, versions, vanishing and flooding players: the match ends cleanly, the log keeps every finished hand."""

import asyncio
import re
import tempfile
from pathlib import Path

from dealerkit import always_call, config_for, play_match

from acpcbot.logcheck import check_log


def _run(config, policies, **kw):
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, policies, Path(tmp), **kw))
        if out.log is not None:
            check_log(Path(tmp) / f"{config.match_name}.log")
    return out


def _hands(out):
    return [int(ln.split(":")[1]) for ln in out.log.splitlines() if ln.startswith("STATE:")]


def _header_only(out):
    return all(ln.startswith("#") for ln in out.log.splitlines())


def at_hand(hand, then, before=always_call):
    """A policy that calls until ``hand`` and then runs ``then``."""
    async def policy(player, line, ms):
        if ms.hand_id >= hand:
            await then(player, line, ms)
        else:
            await before(player, line, ms)
    return policy


async def vanish(player, line, ms):
    player.writer.close()
    raise ConnectionError


def sleep_then_call(seconds):
    async def policy(player, line, ms):
        await asyncio.sleep(seconds)
        player.reply(line, "c")
    return policy


def test_a_player_that_never_sends_its_version_times_out():
    config = config_for("hunl", 3, 0, start_timeout=200)
    out = _run(config, [always_call, always_call], versions=[b"VERSION:2.0.0\r\n", None])
    assert out.problems() == ["ERROR: could not read version string from seat 2",
                              "ERROR: seat 2 (p2) sent no VERSION line within 200 ms"]
    assert out.result.error and _header_only(out) and "SCORE" not in out.stdout


def test_without_a_start_timeout_the_version_waits_at_most_the_response_limit():
    config = config_for("hunl", 3, 0, t_response=150)
    out = _run(config, [always_call, always_call], versions=[None, b"VERSION:2.0.0\r\n"])
    assert out.problems() == ["ERROR: could not read version string from seat 1",
                              "ERROR: seat 1 (p1) sent no VERSION line within 150 ms"]


def test_an_invalid_version_string_ends_the_match():
    out = _run(config_for("hunl", 3, 0), [always_call] * 2, versions=[b"VERSION:2.0.0\r\n", b"HELLO\r\n"])
    assert out.problems() == ["ERROR: invalid version string HELLO"]
    assert _header_only(out)


def test_another_protocol_version_is_reported_and_the_match_goes_on():
    out = _run(config_for("hunl", 2, 0), [always_call] * 2, versions=[b"VERSION:3.0.0\r\n", b"VERSION:2.0.0\r\n"])
    assert out.problems() == ["ERROR: this server is currently using version 2.0.0"]
    assert out.result.finished and _hands(out) == [0, 1]


def test_a_player_that_connects_and_vanishes():
    async def leave(player):
        player.writer.close()
        return False

    out = _run(config_for("hunl", 3, 0), [always_call] * 2, pres=[None, leave])
    assert out.problems() == ["ERROR: could not read version string from seat 2",
                              "ERROR: seat 2 (p2) closed the connection before sending its VERSION line"]


def test_a_player_that_vanishes_mid_match_keeps_the_finished_hands():
    out = _run(config_for("hunl", 5, 0), [always_call, at_hand(2, vanish)])
    assert out.problems() == ["ERROR: could not get action from seat 2",
                              "0.0 seconds spent waiting; timeout 600.0",
                              "ERROR: seat 2 (p2) closed the connection in hand 2"]
    assert _hands(out) == [0, 1] and "SCORE" not in out.log
    assert out.stdout.count("\n") == 1  # the ports line only


def test_a_reply_far_too_late_ends_the_match_at_the_response_limit():
    out = _run(config_for("hunl", 4, 0, t_response=200), [always_call, at_hand(1, sleep_then_call(1))])
    problems = out.problems()
    assert problems[0] == "ERROR: could not get action from seat 2"
    assert re.fullmatch(r"\d+\.\d seconds spent waiting; timeout 0\.2", problems[1])
    assert problems[2] == "ERROR: seat 2 (p2) sent no action within --t_response 200 ms in hand 1"
    assert _hands(out) == [0]


def test_the_hand_limit_counts_every_response_of_the_hand():
    out = _run(config_for("hunl", 4, 0, t_hand=300), [always_call, at_hand(1, sleep_then_call(0.2))])
    assert out.problems() == ["ERROR: seat 2 ran out of time",
                              "ERROR: seat 2 (p2) used more than --t_hand 300 ms in hand 1"]
    assert _hands(out) == [0]


def test_the_match_budget_is_the_average_limit_times_the_hands():
    out = _run(config_for("hunl", 3, 0, t_per_hand=100), [always_call, at_hand(1, sleep_then_call(0.15))])
    assert out.problems() == ["ERROR: seat 2 ran out of time",
                              "ERROR: seat 2 (p2) used up the match budget of --t_per_hand 100 ms x 3 hands in hand 1"]


def test_a_seat_that_does_not_connect_in_time():
    config = config_for("hunl", 3, 0, start_timeout=200)
    out = _run(config, [always_call] * 2, connect=[True, False])
    assert out.result is None
    assert out.problems() == ["ERROR: timed out waiting for seat 2 to connect"]
    assert _header_only(out)


def flood(line_bytes):
    async def policy(player, line, ms):
        while True:
            player.write(line_bytes * 64)
            await player.writer.drain()
            await asyncio.sleep(0)  # the dealer runs in this event loop too
    return policy


def test_a_flood_of_comments_cannot_hold_the_match_past_the_response_limit():
    out = _run(config_for("hunl", 3, 0, t_response=300, quiet=True), [always_call, at_hand(1, flood(b"# zzz\r\n"))])
    assert out.problems()[0] == "ERROR: could not get action from seat 2"
    assert out.problems()[2] == "ERROR: seat 2 (p2) sent no action within --t_response 300 ms in hand 1"
    assert _hands(out) == [0]


def test_a_flood_of_junk_lines_is_warned_about_and_ends_with_the_time_budget():
    out = _run(config_for("hunl", 3, 0, t_response=300, t_hand=400, quiet=True),
               [always_call, at_hand(1, flood(b"junk\r\n"))])
    problems = out.problems()
    assert set(problems[:-2]) == {"WARNING: bad state format in response"} and len(problems) > 10
    assert problems[-2] == "ERROR: seat 2 ran out of time"
    assert _hands(out) == [0]
