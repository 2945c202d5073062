"""One ``play_job`` for every in-memory job: a seat's warnings that cannot be written end the job as not complete.

The plain job and the job where LBR reads its target's real object
(``lbr_seats``) are the same function (``memory.play_job``, the LBR one
given its seating); the LBR copy once logged the seats' warnings through a
plain ``logging.FileHandler``, whose failed write printed a traceback and
left the job complete.
"""

from __future__ import annotations

import logging
import threading

import pytest

from dealer.arena import lbr_seats, memory
from dealer.arena.recipes import Entry, Job

JOBS = {"plain": Job(0, (Entry("a", "call"), Entry("b", "call")), 1, 30, 0),
        "lbr": Job(0, (Entry("a", "lbr:target=call"), Entry("b", "call")), 1, 30, 0)}


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_seats_warning_that_cannot_be_written_leaves_the_job_not_complete(kind, tmp_path, monkeypatch, capsys):
    job = JOBS[kind]
    real = memory.LogWriter

    def clients_to_full(path, *args, **kwargs):  # the seats' warnings go to a full disk
        return real("/dev/full" if str(path).endswith(".clients.err") else path, *args, **kwargs)

    monkeypatch.setattr(memory, "LogWriter", clients_to_full)
    real_play = memory.play_match

    def warn_then_play(*args, **kwargs):
        logging.getLogger("acpcbot.test").warning("a seat's warning")
        return real_play(*args, **kwargs)

    monkeypatch.setattr(memory, "play_match", warn_then_play)
    outcome = lbr_seats.memory_job(job)(job, "kuhn2p", str(tmp_path))
    assert not outcome.complete and "cannot write full: No space left on device" in outcome.error
    assert "clients" not in outcome.files  # nothing of it could be kept
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Logging error" not in err


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_job_with_warnings_keeps_them_beside_its_log(kind, tmp_path, monkeypatch):
    job = JOBS[kind]
    real_play = memory.play_match

    def warn_then_play(*args, **kwargs):
        logging.getLogger("acpcbot.test").warning("a seat's warning")
        return real_play(*args, **kwargs)

    monkeypatch.setattr(memory, "play_match", warn_then_play)
    outcome = lbr_seats.memory_job(job)(job, "kuhn2p", str(tmp_path))
    assert outcome.complete and outcome.error is None
    assert (tmp_path / outcome.files["clients"]).read_text() == "WARNING acpcbot.test: a seat's warning\n"
    assert (tmp_path / outcome.files["log"]).is_file()


def test_the_lbr_job_is_the_plain_job_with_its_seating():
    assert lbr_seats.memory_job(JOBS["plain"]) is memory.play_job
    assert lbr_seats.memory_job(JOBS["lbr"]) is lbr_seats.play_job_lbr
    players, after = lbr_seats.lbr_seating(JOBS["lbr"], memory.load_game("kuhn2p"))
    assert [s.spec for s, _ in players] == ["lbr:target=call", "call"] and callable(after)
    assert players[1][0].run_mode.every_state  # the target's proxy sees every state (it keeps the history)


class StopAfter(threading.Event):
    """A stop that reads as set from its ``hands``-th look on (the match looks once before each hand)."""

    def __init__(self, hands: int) -> None:
        super().__init__()
        self.left = hands

    def is_set(self) -> bool:
        self.left -= 1
        return self.left < 0


@pytest.mark.parametrize("kind", sorted(JOBS))
def test_a_job_told_to_stop_ends_before_its_next_hand_with_every_hand_played_logged(kind, tmp_path):
    job = JOBS[kind]
    outcome = lbr_seats.memory_job(job)(job, "kuhn2p", str(tmp_path), stop=StopAfter(5))
    assert not outcome.complete and "the run was interrupted before hand 5" in outcome.error
    hands = [line for line in (tmp_path / outcome.files["log"]).read_text().splitlines()
             if line.startswith("STATE:")]
    assert [line.split(":")[1] for line in hands] == ["0", "1", "2", "3", "4"]
