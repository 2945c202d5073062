"""-T writes the transaction file; -a resumes from it and ends with the log an uninterrupted match writes."""

import asyncio
import os
import re
import tempfile
from pathlib import Path

import pytest
from dealerkit import config_for, play_match, replay_policy

from acpcbot.protocol import format_betting
from dealer.resume import ResumeError, open_match_files

FIXTURE = Path(__file__).parent / "fixtures" / "dealer" / "hunl_seed0_random.log"
HANDS = 8


def _config():
    return config_for("hunl", HANDS, 0, ["Alice", "Bob"], match_name="r")


def _policy(stop_at=None):
    """Replay the fixture's actions; at ``stop_at`` = (hand, betting) close the connection instead."""
    replay = replay_policy(FIXTURE.read_text().splitlines(), "hunl")

    async def policy(player, line, ms):
        if stop_at is not None and (ms.hand_id, format_betting(ms.state)) == stop_at:
            player.writer.close()
            raise ConnectionError
        await replay(player, line, ms)
    return policy


def _match(workdir, policies, append=False):
    return asyncio.run(play_match(_config(), policies, workdir, use_tlog=True, append=append))


@pytest.fixture(scope="module")
def uninterrupted():
    with tempfile.TemporaryDirectory() as tmp:
        out = _match(Path(tmp), [_policy(), _policy()])
        assert out.result.finished
        yield out.log, (Path(tmp) / "r.tlog").read_text()


def _interrupted(tmp):
    # hand 3 is cr20000c///: seat 2 (position 0) leaves when asked to raise
    out = _match(tmp, [_policy(), _policy(stop_at=(3, "c"))])
    assert not out.result.finished
    return out


def test_transaction_lines_hold_the_state_before_each_action_and_both_stamps(uninterrupted):
    _, tlog = uninterrupted
    lines = tlog.splitlines()
    assert re.fullmatch(r"STATE:0::5d5c\|9hQd:c \d+\.\d{6} \d+\.\d{6}", lines[0])
    assert re.fullmatch(r"STATE:0:cc/cc/:5d5c\|9hQd/8dAs8s/4h:r13078 \d+\.\d{6} \d+\.\d{6}", lines[4])
    assert len(lines) == sum(len(re.findall(r"r\d+|[fc]", ln.split(":")[2]))
                             for ln in FIXTURE.read_text().splitlines()[4:4 + HANDS])


def test_resume_after_a_player_left_mid_hand_gives_the_uninterrupted_log(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        first = _interrupted(tmp)
        assert [ln.split(":")[1] for ln in first.log.splitlines() if ln.startswith("STATE")] == ["0", "1", "2"]
        assert (tmp / "r.tlog").read_text().splitlines()[-1].startswith("STATE:3::4s8s|6hJd:c ")
        second = _match(tmp, [_policy(), _policy()], append=True)
        assert second.result.finished
        assert (tmp / "r.log").read_text() == uninterrupted[0]
        assert second.stdout.splitlines()[-1] == uninterrupted[0].splitlines()[-1]
        # the players are asked from the middle of hand 3 on
        assert second.players[1].received[0] == "MATCHSTATE:0:3:c:4s8s|"
        resumed_tlog = (tmp / "r.tlog").read_text().splitlines()
        assert [ln.split(" ")[0] for ln in resumed_tlog] == [ln.split(" ")[0] for ln in uninterrupted[1].splitlines()]


def test_resume_restores_a_hand_whose_log_line_was_lost(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _interrupted(tmp)
        log = tmp / "r.log"
        lines = log.read_text().splitlines(keepends=True)
        # the dealer stopped after the transaction of hand 2's last action, before its log line
        log.write_text("".join(lines[:-1]) + lines[-1][:17])
        _match(tmp, [_policy(), _policy()], append=True)
        assert log.read_text() == uninterrupted[0]


def test_resume_cuts_a_half_written_transaction_line(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _interrupted(tmp)
        with open(tmp / "r.tlog", "a") as f:
            f.write("STATE:3:c:4s8s|6hJd:r2")
        _match(tmp, [_policy(), _policy()], append=True)
        assert (tmp / "r.log").read_text() == uninterrupted[0]


def test_resume_without_any_file_plays_the_whole_match(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        _match(Path(tmp), [_policy(), _policy()], append=True)
        assert (Path(tmp) / "r.log").read_text() == uninterrupted[0]


def test_resuming_a_finished_match_changes_nothing(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _match(tmp, [_policy(), _policy()])
        out = _match(tmp, [_policy(), _policy()], append=True)
        assert out.result.finished and (tmp / "r.log").read_text() == uninterrupted[0]
        assert out.stdout.splitlines()[-1] == uninterrupted[0].splitlines()[-1]


def test_the_reference_short_transaction_form_is_read():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "r.tlog").write_text("c 0 100.000001 100.000002\nc 0 100.000003 100.000004\n")
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            files = open_match_files(_config(), use_tlog=True, append=True)
        finally:
            os.chdir(cwd)
        assert files.progress.state.hand_id == 0 and format_betting(files.progress.state) == "cc/"
        assert files.progress.clock.used_match == [1, 1]
        files.log.close()
        files.tlog.close()


@pytest.mark.parametrize("tlog,message", [
    ("STATE:0::5d5c|9hQd:c 1.000000 1.000001\nSTATE:0:c:5d5c|9hQd:r50 1.000000 1.000001\n",
     "r.tlog line 2: invalid action 'r50' in hand 0"),
    ("STATE:0::AsAd|9hQd:c 1.000000 1.000001\n", "r.tlog line 1: state :AsAd|9hQd but the deal and the actions "
                                                 "before give :5d5c|9hQd"),
    ("STATE:1::5d5c|9hQd:c 1.000000 1.000001\n", "r.tlog line 1: hand 1, but the next action belongs to hand 0"),
    ("STATE:0::5d5c|9hQd:c 1.000000\n", "r.tlog line 1: expected '<state>:<action> <send> <receive>'"),
    ("STATE:0::5d5c|9hQd:c 1.000000 999.000000\n", "r.tlog line 1: seat 2 ran out of time in transaction file"),
])
def test_a_transaction_file_that_does_not_fit_is_refused_and_left_alone(tlog, message):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "r.tlog").write_text(tlog)
        (tmp / "r.log").write_text("kept\n")
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            config = _config()
            config.t_response = 600000 if "999" not in tlog else 1000
            with pytest.raises(ResumeError) as err:
                open_match_files(config, use_tlog=True, append=True)
        finally:
            os.chdir(cwd)
        assert str(err.value).startswith(message)
        assert (tmp / "r.tlog").read_text() == tlog and (tmp / "r.log").read_text() == "kept\n"


def test_a_log_that_disagrees_with_the_transaction_file_is_refused(uninterrupted):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _interrupted(tmp)
        log = tmp / "r.log"
        text = log.read_text().replace("Alice|Bob", "Bob|Alice", 1)
        log.write_text(text)
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            with pytest.raises(ResumeError, match=r"r\.log line 5: .* is not what the transaction file gives"):
                open_match_files(_config(), use_tlog=True, append=True)
        finally:
            os.chdir(cwd)
        assert log.read_text() == text
