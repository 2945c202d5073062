"""Where a strategy's hooks run, decided in one place for every loop: its declared ``RunMode``, the loop, its record.

A strategy declares once how it runs (:class:`~acpcbot.strategies.base.RunMode`);
:class:`Schedule` turns that into where each state's hooks run now, for
the asyncio loop (:func:`acpcbot.session.serve`), the
blocking loop (:mod:`acpcbot.direct`) and the in-memory seats of the arena
alike:

- ``inline``: on the loop's own thread, where the state is read, never cut;
  the only kind the blocking loop plays.
- ``untimed`` (a person): on the worker thread, no deadline.
- ``guarded``: on the loop's thread under a :class:`~acpcbot.pacing.DeadlineAlarm`
  where one can run (the asyncio loop on the main thread, POSIX), which
  sends the quick answer at the deadline from the middle of ``act``; after
  one overrun, or without an alarm, on the worker thread.  Without an alarm
  its first :data:`~acpcbot.pacing.PROBE_DECISIONS` decisions are timed
  there: if every state's hooks took at most ``INLINE_MAX_S`` it moves to
  the loop's thread, and back to the worker for good as soon as one state's
  hooks take longer than ``INLINE_BACKOFF_S``.

The in-memory arena calls the client on its own thread whatever the mode
(its seats have no worker), so there the schedule only records overruns.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from .pacing import INLINE_BACKOFF_S, INLINE_MAX_S, PROBE_DECISIONS, DeadlineAlarm, StrategyThread
from .strategies.base import RunMode

log = logging.getLogger("acpcbot.client")


class Schedule:
    """Where one seat's strategy hooks run now: on the loop's thread (``inline``) or the worker thread."""

    def __init__(self, mode: RunMode, spec: str = "") -> None:
        self.mode = mode
        self.spec = spec
        #: whether the strategy's hooks run on the loop's thread now
        self.inline = mode.inline
        #: whether its decisions are being timed on the worker thread (guarded, no alarm yet)
        self.probing = mode.where == "guarded"
        self.probed = 0
        self.slowest = 0.0
        #: the worker thread, once a loop that has one started it
        self.thread: StrategyThread | None = None
        #: the alarm that cuts ``act`` at its deadline on the loop's thread, when one runs
        self.alarm: DeadlineAlarm | None = None

    @property
    def declared_inline(self) -> bool:
        """Whether the strategy declared hooks of microseconds (it never moves to the worker thread)."""
        return self.mode.inline

    def start_asyncio(self, loop: asyncio.AbstractEventLoop, alarm_allowed: bool = True) -> None:
        """The asyncio loop starts: a worker thread unless declared inline; a guarded strategy under an alarm."""
        if not self.declared_inline and self.thread is None:
            self.thread = StrategyThread(loop)
        if self.probing and alarm_allowed and DeadlineAlarm.available():
            # cut at its deadline by the alarm, it may decide here from its first state: no probe on the thread
            self.alarm = DeadlineAlarm()
            self.probing = False
            self.inline = True
            log.info("strategy %s decides on the client's own thread, cut at its deadline by an alarm", self.spec)

    def stay_on_thread(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run on a worker thread and stay there (no probe): what a strategy gets after an overrun."""
        if self.thread is None:
            self.thread = StrategyThread(loop)
        self.probing = False
        self.inline = False

    def use_alarm(self) -> None:
        """Run on the loop's thread under a deadline alarm (what ``start_asyncio`` picks where one can run)."""
        self.alarm = DeadlineAlarm()
        self.probing = False
        self.inline = True

    def close_alarm(self) -> None:
        """The loop ends: give the alarm's signal back."""
        if self.alarm is not None:
            self.alarm.close()
            self.alarm = None

    @staticmethod
    def blocking_plays(mode: RunMode) -> bool:
        """Whether the blocking loop (no worker thread, no alarm) may play a strategy of ``mode``: inline only."""
        return mode.inline

    def took(self, spent: float) -> None:
        """One state's hooks took ``spent`` s on the loop's thread: a strategy not declared inline that was slow
        goes back to the worker thread, for good."""
        if not self.declared_inline and spent > INLINE_BACKOFF_S:
            self.back_to_thread(spent)

    def back_to_thread(self, spent: float) -> None:
        """Move the hooks to the worker thread (an overrun, or a slow state)."""
        if self.inline:
            self.inline = False
            log.info("strategy %s took %.3f s on one state: its hooks run on the worker thread again, "
                     "where its deadline is guarded", self.spec, spent)

    def overran(self) -> None:
        """``act`` missed its deadline on the worker thread: it stays there."""
        self.probing = False

    def timed(self, hook: Callable[..., Any], *args: Any) -> Any:
        """Run a hook (on the worker thread), keeping the slowest time seen while probing."""
        started = time.perf_counter()
        try:
            return hook(*args)
        finally:
            took = time.perf_counter() - started
            if took > self.slowest:
                self.slowest = took

    def probe_done(self) -> None:
        """One more timed decision (the thread is idle now: every hook submitted so far has run)."""
        self.probed += 1
        if self.slowest > INLINE_MAX_S:
            self.probing = False  # too slow for inline: it stays on the thread
        elif self.probed >= PROBE_DECISIONS:
            self.probing = False
            self.inline = True
            log.info("strategy %s took at most %.1f ms per state over %d decisions: it now runs inline",
                     self.spec, 1000 * self.slowest, self.probed)
