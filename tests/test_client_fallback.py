"""The client's fallback is the strategy's quick answer (``Strategy.quick_action``) when it offers one.

A strategy whose ``act`` misses its deadline, or fails, gets its quick
answer sent instead of a fold: asked on the strategy's own thread just
before ``act`` (never beside another hook), and only when legal; a
strategy without one gets check-when-free-else-fold as before.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
from test_client import play

from acpcbot.cards import parse_cards
from acpcbot.client import fallback_action
from acpcbot.engine import CALL, FOLD, RAISE, raise_to
from acpcbot.gamedef import load_game
from acpcbot.preflop import hand_class, preflop_equity
from acpcbot.strategies.adaptive import AdaptiveStrategy
from acpcbot.strategies.base import RunMode, Strategy
from acpcbot.world import View

HUNL = load_game("hunl")

#: two decisions facing a bet (a min-raise, a raise to 600), a hand each: folding is the plain fallback; the
#: pause lets the abandoned act finish, so the second quick answer is not queued behind it
FACING_BETS = [("send", "MATCHSTATE:0:40:r200:KdTc|\r\n"), ("recv",), ("send", "MATCHSTATE:0:40:r200f:KdTc|\r\n"),
               ("sleep", 0.6),
               ("send", "MATCHSTATE:0:41:r600:Ah9h|\r\n"), ("recv",), ("send", "MATCHSTATE:0:41:r600f:Ah9h|\r\n"),
               ("sleep", 0.6)]
SENT = ["MATCHSTATE:0:40:r200:KdTc|", "MATCHSTATE:0:41:r600:Ah9h|"]
#: the same decisions without the pauses, for a strategy whose act ends at once (nothing abandoned to wait for)
FACING_BETS_AT_ONCE = [step for step in FACING_BETS if step[0] != "sleep"]


class Slow(Strategy):
    """Its ``act`` overruns (or fails); its quick answer, when it has one, is ``quick``; it records the order and
    the thread of every call, and whether ``quick_action`` ever ran while ``act`` did."""

    name = "slow"

    def __init__(self, game, quick=None, delay: float = 0.5, fail: bool = False, inline: bool = False):
        super().__init__(game, random.Random(0))
        self.quick, self.delay, self.fail = quick, delay, fail
        self.run_mode = RunMode("inline" if inline else "guarded", "every")
        self.calls: list[tuple[str, str]] = []
        self.acting = False
        self.overlap = False

    def act(self, view, deadline):
        self.acting = True
        try:
            self.calls.append(("act", threading.current_thread().name))
            time.sleep(self.delay)
            if self.fail:
                raise RuntimeError("act bug")
            return raise_to(20000)
        finally:
            self.acting = False


class Quick(Slow):
    """A slow strategy offering a quick answer."""

    def quick_action(self, view):
        self.overlap |= self.acting
        self.calls.append(("quick", threading.current_thread().name))
        return self.quick


def _replies(dealer) -> list[str]:
    return [r.rstrip("\r\n") for r in dealer.received[1:]]


@pytest.mark.parametrize("alarm", [True, False], ids=["alarm", "thread"])
def test_a_missed_deadline_sends_the_quick_answer_not_a_fold(alarm, caplog):
    strategy = Quick(HUNL, quick=CALL)
    code, dealer = play(FACING_BETS, strategy, HUNL, time_per_hand=0.4, deadline_alarm=alarm)
    assert code == 0
    # before: both were folds (fold_or_check facing a bet)
    assert _replies(dealer) == [f"{s}:c" for s in SENT]
    assert caplog.text.count("did not answer within") == 2
    # asked before its act, never beside it: under the deadline alarm on the client's own thread until the first
    # overrun, on the strategy's thread after it (and from the start without the alarm)
    assert [k for k, _ in strategy.calls] == ["quick", "act"] * 2
    first = threading.main_thread().name if alarm else "acpcbot-strategy"
    assert [t for _, t in strategy.calls] == [first, first, "acpcbot-strategy", "acpcbot-strategy"]
    assert not strategy.overlap


def test_without_a_quick_answer_the_fallback_still_folds_or_checks(caplog):
    code, dealer = play(FACING_BETS, Slow(HUNL), HUNL, time_per_hand=0.4)
    assert code == 0
    assert _replies(dealer) == [f"{s}:f" for s in SENT]


def test_an_illegal_quick_answer_is_not_sent(caplog):
    # a raise below the minimum is no answer: fold_or_check
    code, dealer = play(FACING_BETS, Quick(HUNL, quick=raise_to(201)), HUNL, time_per_hand=0.4)
    assert code == 0
    assert _replies(dealer) == [f"{s}:f" for s in SENT]


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "threaded"])
def test_a_failing_act_sends_the_quick_answer(inline, caplog):
    strategy = Quick(HUNL, quick=CALL, delay=0.0, fail=True, inline=inline)
    code, dealer = play(FACING_BETS_AT_ONCE, strategy, HUNL)
    assert code == 0
    assert _replies(dealer) == [f"{s}:c" for s in SENT]
    assert "act bug" in caplog.text


def test_a_failing_quick_answer_falls_back_to_fold_or_check(caplog):
    class Broken(Quick):
        def quick_action(self, view):
            raise RuntimeError("quick bug")

    code, dealer = play(FACING_BETS, Broken(HUNL), HUNL, time_per_hand=0.4)
    assert code == 0
    assert _replies(dealer) == [f"{s}:f" for s in SENT]
    assert "quick bug" in caplog.text


def test_fallback_action_takes_a_legal_quick_answer_only():
    view = View.parse("MATCHSTATE:0:40:r200:KdTc|", HUNL)
    assert fallback_action(view) == FOLD
    assert fallback_action(view, CALL) == CALL
    assert fallback_action(view, raise_to(600)) == raise_to(600)
    assert fallback_action(view, raise_to(150)) == FOLD  # below the raise
    assert fallback_action(view, RAISE) == FOLD  # a no-limit raise needs its size
    assert fallback_action(view, "c") == FOLD  # not an action


class SlowAdaptive(AdaptiveStrategy):
    """adaptive whose search never comes back in time (and would fold if it did)."""

    def act(self, view, deadline):
        time.sleep(0.5)
        return FOLD


def test_adaptive_overrunning_calls_a_bet_its_equity_pays_for(caplog):
    # K-T offsuit: ~60% against a random hand, facing a min-raise (it needs 33%): adaptive's quick answer calls
    assert 0.55 < preflop_equity(hand_class(*parse_cards("KdTc"))) < 0.7
    strategy = SlowAdaptive(HUNL, random.Random(1))
    line = "MATCHSTATE:0:41:r200:KdTc|"
    script = [("send", line + "\r\n"), ("recv",), ("send", "MATCHSTATE:0:41:r200f:KdTc|\r\n"), ("sleep", 0.1)]
    code, dealer = play(script, strategy, HUNL, time_per_hand=0.8)
    assert code == 0
    assert _replies(dealer) == [f"{line}:c"]  # before: f (the client's fold_or_check)
    assert "did not answer within" in caplog.text


def test_the_quick_answer_is_settled_on_the_strategy_thread_without_waking_the_loop():
    """The quick answer is kept in case: its future is settled on the thread, the loop never runs for it."""
    import asyncio

    from acpcbot.pacing import StrategyThread

    loop = asyncio.new_event_loop()
    try:
        thread = StrategyThread(loop)
        good = thread.submit_quiet(lambda: CALL)
        bad = thread.submit_quiet(lambda: 1 / 0)
        # the loop is never run: a future settled through it would never be done
        assert good.result(timeout=10) == CALL
        assert isinstance(bad.exception(timeout=10), ZeroDivisionError)
        thread.close()
    finally:
        loop.close()


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="POSIX signal masks")
def test_the_strategy_thread_leaves_ctrl_c_to_the_main_thread():
    # a SIGINT the kernel handed to the strategy's thread (the human player reads the keyboard there) waited for the
    # main thread to wake: the first Ctrl-C at the prompt was lost about one time in six
    import asyncio
    import signal

    from acpcbot.pacing import StrategyThread

    loop = asyncio.new_event_loop()
    try:
        thread = StrategyThread(loop)
        blocked = thread.submit_quiet(lambda: signal.pthread_sigmask(signal.SIG_BLOCK, [])).result(timeout=10)
        thread.close()
    finally:
        loop.close()
    assert {signal.SIGINT, signal.SIGTERM} <= set(blocked)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the main thread's own mask untouched
