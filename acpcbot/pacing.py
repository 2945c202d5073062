"""When a strategy must answer and where it runs: the per-hand time budget, the deadline, the worker thread.

``TimeBudget`` spreads the average time per hand over the seat's actions;
``strategy_deadline`` is what ``act`` is told; ``DeadlineAlarm`` cuts a
decision made on the client's own thread at its deadline (a signal that
sends the fallback from the middle of ``act``); ``StrategyThread`` runs the
hooks of a strategy that may overrun on a daemon thread, so that the
client can answer with a fallback at the deadline and skip the calls an
overrun left stale.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import signal
import threading
from typing import Any, Callable

log = logging.getLogger("acpcbot.client")

#: decisions of a strategy that does not declare ``inline`` timed on the worker thread first (the client's probe)
PROBE_DECISIONS = 20
#: ... and the most any state's hooks may take in them for the strategy to move inline (seconds)
INLINE_MAX_S = 0.002
#: a strategy moved inline goes back to the thread for good once a state's hooks take longer (seconds)
INLINE_BACKOFF_S = 0.02


class TimeBudget:
    """Spreads the average time per hand over this seat's actions, keeping safety margins.

    Each hand adds ``SAFETY`` of the per-hand budget to a bank; an action may
    use the bank (at most two hands' worth) divided by the actions this seat
    still expects to take in the hand (a running average, starting from one
    per round), minus a reserve for parsing, sending and the network.  Time
    spent is measured from reading the state to sending the reply, so the
    match average stays under the budget whatever the strategy does.
    """

    SAFETY = 0.75
    RESERVE = 0.005
    FLOOR = 0.002
    PRIOR_WEIGHT = 5

    def __init__(self, per_hand: float, prior_actions: float = 4.0) -> None:
        self.quota = max(0.0, per_hand) * self.SAFETY
        self.bank = 0.0
        self.prior = max(1.0, prior_actions)
        self.hands_done = 0
        self.actions_done = 0
        self.acted = 0  # actions in the current hand
        self._started = False

    def new_hand(self) -> None:
        """A hand starts: credit its budget."""
        if self._started:
            self.hands_done += 1
            self.actions_done += self.acted
        self._started = True
        self.acted = 0
        self.bank += self.quota

    def expected_actions(self) -> float:
        """This seat's expected actions per hand (prior blended with the match so far)."""
        k = self.PRIOR_WEIGHT
        return (self.prior * k + self.actions_done) / (k + self.hands_done)

    def allowance(self) -> float:
        """Seconds the next action may take, from reading the state to sending the reply."""
        remaining = max(1.0, self.expected_actions() - self.acted)
        available = min(self.bank, 2 * self.quota)
        return max(self.FLOOR, available / remaining - self.RESERVE)

    def spend(self, seconds: float) -> None:
        """Charge one action's time."""
        self.bank -= seconds
        self.acted += 1


def strategy_deadline(received: float, allowance: float) -> float:
    """The deadline given to ``act``: the hard deadline less a grace (10%, at most 50 ms) to return in."""
    return received + allowance - min(0.1 * allowance, 0.05)


class DeadlineAlarm:
    """Runs a callback at a decision's deadline in the middle of whatever the main thread does (``act``): SIGALRM.

    It lets a strategy decide on the client's own thread, with no hand-off
    to a worker and back (two thread wake-ups and interpreter switches a
    decision), and still be answered for at its deadline.  The callback runs
    between two bytecodes of the interrupted code, so it must not take a
    lock that code may hold (no logging); the interrupted ``act`` goes on
    afterwards and its answer is dropped.  Only where :meth:`available`.
    """

    @staticmethod
    def available() -> bool:
        """Whether an alarm can run here: a platform with ``setitimer``, and the main thread (signals go there)."""
        return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()

    def __init__(self) -> None:
        self._callback: Callable[[], None] | None = None
        self.fired = False
        self._previous = signal.signal(signal.SIGALRM, self._ring)

    def arm(self, seconds: float, callback: Callable[[], None]) -> None:
        """Run ``callback`` in ``seconds`` unless disarmed first."""
        self.fired = False
        self._callback = callback
        # a deadline already past rings at once (a zero would switch the timer off)
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-6))

    def disarm(self) -> bool:
        """Stop the alarm; whether its callback ran."""
        self._callback = None  # first: a ring from here on finds nothing to do
        signal.setitimer(signal.ITIMER_REAL, 0)
        return self.fired

    def close(self) -> None:
        """Stop the alarm and give SIGALRM back its previous handler."""
        self.disarm()
        signal.signal(signal.SIGALRM, signal.SIG_DFL if self._previous is None else self._previous)

    def _ring(self, signum: int, frame: Any) -> None:
        callback, self._callback = self._callback, None
        if callback is not None:
            self.fired = True
            callback()


#: signals Python handles in the main thread only, blocked on the strategy's thread so that the kernel hands them to
#: the main thread: one delivered to this thread waited until the main thread woke (a Ctrl-C at the human player's
#: prompt, read on this thread while the event loop slept, was lost about one time in six)
MAIN_THREAD_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class StrategyThread:
    """Runs a strategy's hooks one at a time, in submission order, on a daemon thread.

    A daemon thread, not an executor: a strategy stuck past its deadline must
    not keep the process alive once the match is over.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # calls whose caller stopped waiting: skipped when their turn comes
        self._abandoned: set[asyncio.Future[Any] | concurrent.futures.Future[Any]] = set()
        self._thread = threading.Thread(target=self._main, name="acpcbot-strategy", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any, want_result: bool = False) -> asyncio.Future[Any] | None:
        """Queue ``fn(*args)``; with ``want_result`` return a future of its outcome, settled on the loop."""
        fut = self._loop.create_future() if want_result else None
        self._jobs.put((fut, fn, args))
        return fut

    def submit_quiet(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        """Queue ``fn(*args)``; a future of its outcome that nobody awaits, settled on the thread itself.

        For an answer kept in case (the quick answer): settling it on the
        loop would wake the loop, which then takes the interpreter from the
        thread while ``act`` runs there, for nothing.
        """
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((fut, fn, args))
        return fut

    def abandon(self, fut: asyncio.Future[Any] | concurrent.futures.Future[Any]) -> None:
        """Skip ``fut``'s call if it has not started: its answer is no longer wanted.

        A call already running cannot be stopped; skipping the stale ones
        queued behind it lets a strategy that overran catch up.
        """
        if not fut.done():
            self._abandoned.add(fut)

    def close(self) -> None:
        """Let the thread end after the queued jobs."""
        self._jobs.put(None)

    def _main(self) -> None:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fut, fn, args = job
            if fut is not None and fut in self._abandoned:
                self._abandoned.discard(fut)
                continue
            try:
                result, error = fn(*args), None
            except BaseException as exc:  # noqa: BLE001 - handed to the loop, which logs it
                result, error = None, exc
            if fut is None:
                continue
            self._abandoned.discard(fut)
            if fut.__class__ is concurrent.futures.Future:
                if error is None:
                    fut.set_result(result)
                else:
                    fut.set_exception(error)
                continue
            try:
                self._loop.call_soon_threadsafe(_settle, fut, result, error)
            except RuntimeError:
                return  # the loop is closed: nobody waits any more


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


def log_late(fut: asyncio.Future[Any]) -> None:
    """Log how a call abandoned at its deadline ended at last (a done-callback of its future)."""
    if not fut.cancelled() and fut.exception() is not None:
        log.error("a strategy call abandoned at its deadline later failed", exc_info=fut.exception())
    else:
        log.info("a strategy call abandoned at its deadline returned at last; its answer was not used")
