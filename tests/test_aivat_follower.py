"""A lone in-memory match's AIVAT equities computed beside it (``dealer.arena.prefetch``): the very floats the
analysis computes itself, read instead of computed, and a follower that never holds the analysis up."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import acpcbot.measure.aivat as measure_aivat
import dealer.arena.aivat as arena_aivat
from acpcbot.gamedef import load_game
from acpcbot.matchlog import read_match_log
from acpcbot.measure.aivat import PREFLOP_BOARDS, EquityMemo, Evaluator
from dealer.arena import prefetch
from dealer.arena.cli import main as cli_main
from dealer.arena.memory import play_match
from dealer.config import MatchConfig

HUNL = load_game("hunl")


def _log(tmp_path: Path, seats: list[tuple[str, str]], hands: int) -> Path:
    config = MatchConfig(match_name="m", game=HUNL, game_arg="hunl", num_hands=hands, seed=7, names=["a", "b"],
                         quiet=True)
    played = play_match(config, seats, tmp_path / "m.log")
    assert played.finished, played.error
    return tmp_path / "m.log"


def _batch(evaluator: Evaluator, finals: list) -> list:
    values = evaluator.batch(finals)
    return [values.aivat.tolist(), values.allin.tolist(), values.chance.tolist()]


def test_equities_read_from_a_memo_are_the_computed_ones(tmp_path, monkeypatch):
    log = _log(tmp_path, [("a", "call"), ("b", "raise:size=pot")], 150)
    finals = [h.state for h in read_match_log(log, HUNL).hands]
    want = _batch(Evaluator(HUNL, seed=1, preflop_boards=800), finals)
    memo = EquityMemo(1, 800)
    Evaluator(HUNL, seed=1, preflop_boards=800, memo=memo).fill([(f.hole, f.board) for f in finals[:90]])  # the hands dealt so far, say
    assert 0 < len(memo) < 4 * len(finals)
    assert _batch(Evaluator(HUNL, seed=1, preflop_boards=800, memo=memo), finals) == want
    # every hand remembered: nothing is computed again
    Evaluator(HUNL, seed=1, preflop_boards=800, memo=memo).fill([(f.hole, f.board) for f in finals])

    def computed(*args):
        raise AssertionError(f"computed again: {len(args[0])} rows")

    monkeypatch.setattr(measure_aivat, "_matchups", computed)
    assert _batch(Evaluator(HUNL, seed=1, preflop_boards=800, memo=memo), finals) == want


def test_a_memo_of_another_preflop_sample_is_not_read():
    assert Evaluator(HUNL, seed=1, preflop_boards=800, memo=EquityMemo(1, 800)).memo is not None
    assert Evaluator(HUNL, seed=2, preflop_boards=800, memo=EquityMemo(1, 800)).memo is None
    assert Evaluator(HUNL, seed=1, preflop_boards=900, memo=EquityMemo(1, 800)).memo is None


def test_following_a_log_values_every_hand_the_analysis_reads(tmp_path):
    log = _log(tmp_path, [("a", "call"), ("b", "call")], 120)
    finals = [h.state for h in read_match_log(log, HUNL).hands]
    memo = EquityMemo(prefetch.AIVAT_SEED, PREFLOP_BOARDS)
    stop = threading.Event()
    follower = threading.Thread(target=prefetch.follow_log, args=(log, HUNL, memo, stop))
    follower.start()
    waited = 0.0
    while len(memo) < 4 * len(finals) and waited < 300:  # every showdown's four streets (a bound, not a timing)
        time.sleep(0.05)
        waited += 0.05
    stop.set()
    follower.join()
    assert len(memo) == 4 * len(finals)
    plain = Evaluator(HUNL, seed=prefetch.AIVAT_SEED)
    assert _batch(Evaluator(HUNL, seed=prefetch.AIVAT_SEED, memo=memo), finals) == _batch(plain, finals)


def test_a_follower_without_a_log_or_with_a_broken_one_hands_over_at_once(tmp_path):
    absent = prefetch.Follower(tmp_path / "never.log", HUNL)
    absent.finish()
    memo = prefetch.take_memo(tmp_path / "never.log")
    assert isinstance(memo, EquityMemo) and len(memo) == 0
    assert prefetch.take_memo(tmp_path / "never.log") is None  # taken once
    (tmp_path / "bad.log").write_text("STATE:0:not a betting:AsAd|KsKd:0|0:a|b\n" * 3)
    broken = prefetch.Follower(tmp_path / "bad.log", HUNL)
    broken.finish()
    assert len(prefetch.take_memo(tmp_path / "bad.log")) == 0
    cut = prefetch.Follower(tmp_path / "cut.log", HUNL)
    cut.finish(keep=False)  # an interrupted match: nothing kept
    assert prefetch.take_memo(tmp_path / "cut.log") is None


def test_a_followed_run_gives_the_figures_of_an_unfollowed_one(tmp_path, monkeypatch):
    taken: list[EquityMemo | None] = []

    def take(path):
        memo = prefetch.take_memo(path)
        taken.append(memo)
        return memo

    monkeypatch.setattr(arena_aivat, "take_memo", take)

    def run(name: str) -> dict:
        out = tmp_path / name
        assert cli_main(["play", "--game", "hunl", "--hands", "400", "--transport", "memory", "--run-dir", str(out),
                         "--quiet", "call", "raise:size=pot"]) == 0
        return json.loads((out / "results.json").read_text())

    monkeypatch.setattr(prefetch, "wanted", lambda game, jobs: True)
    followed = run("followed")
    assert taken and isinstance(taken[-1], EquityMemo)  # the follower's memo reached the analysis
    monkeypatch.setattr(prefetch, "wanted", lambda game, jobs: False)
    plain = run("plain")
    assert taken[-1] is None
    assert followed["results"] == plain["results"] and followed["aivat"] == plain["aivat"]
    assert np.isfinite(followed["results"][0]["aivat_mbb_per_hand"])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the follower's state in /proc")
def test_a_follower_whose_run_is_killed_stops_by_itself(tmp_path):
    # the run killed outright (SIGKILL: no stop is ever set): the follower, its grandchild here, must not poll on
    import os
    import signal
    import subprocess
    import sys

    code = ("import sys, time; from acpcbot.gamedef import load_game; from dealer.arena import prefetch; "
            f"f = prefetch.Follower({str(tmp_path / 'm.log')!r}, load_game('hunl')); "
            "print(f._proc.pid, flush=True); time.sleep(600)")
    run = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    follower = int(run.stdout.readline())
    run.kill()
    run.wait()
    waited = 0.0
    while waited < 60:  # a bound on a hang, not a timing: it stops within a poll or two
        try:
            with open(f"/proc/{follower}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break  # exited; nobody reaps a dead run's grandchild here
        except FileNotFoundError:
            break
        time.sleep(0.05)
        waited += 0.05
    else:
        os.kill(follower, signal.SIGKILL)
        raise AssertionError("the follower of a killed run kept polling")
