"""When a strategy must answer and where it runs: the per-hand time budget, the deadline, the worker thread.

``TimeBudget`` spreads the average time per hand over the seat's actions;
``strategy_deadline`` is what ``act`` is told; ``StrategyThread`` runs the
hooks of a strategy that may overrun on a daemon thread, so that the
client can answer with a fallback at the deadline and skip the calls an
overrun left stale.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable


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


class StrategyThread:
    """Runs a strategy's hooks one at a time, in submission order, on a daemon thread.

    A daemon thread, not an executor: a strategy stuck past its deadline must
    not keep the process alive once the match is over.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # calls whose caller stopped waiting: skipped when their turn comes
        self._abandoned: set[asyncio.Future[Any]] = set()
        self._thread = threading.Thread(target=self._main, name="acpcbot-strategy", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any, want_result: bool = False) -> asyncio.Future[Any] | None:
        """Queue ``fn(*args)``; with ``want_result`` return a future of its outcome."""
        fut = self._loop.create_future() if want_result else None
        self._jobs.put((fut, fn, args))
        return fut

    def abandon(self, fut: asyncio.Future[Any]) -> None:
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
            if fut is not None:
                self._abandoned.discard(fut)
            if fut is not None:
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
