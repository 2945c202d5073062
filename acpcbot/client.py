"""The bot client: plays a whole match against any ACPC 2.0.0 dealer over asyncio streams.

It sends ``VERSION:2.0.0``, reads every line (bounded in length), skips
comments, turns each MATCHSTATE into a :class:`~acpcbot.world.View`, lets
the strategy observe it, and answers only when this seat is to act, with
the exact state text, ``:`` and an action the engine has checked.  A
strategy's illegal action is corrected the way the reference dealer would
correct it (and logged); an overrun deadline or a crash in ``act`` is
answered with the safe fallback (check when free, else fold).

Exit codes: 0 when the dealer closes after a finished hand, 1 when the
strategy cannot start, 3 when the dealer cannot be reached, 4 on a protocol
error (garbage, an overlong line), 5 when the dealer goes away mid-hand.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
import time
from typing import Any, Callable, TextIO

from .engine import CALL, Action, ActionType
from .protocol import VERSION_LINE, MatchState, ProtocolError, format_reply
from .strategies.base import Strategy
from .world import MatchInfo, View, World

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_STRATEGY = 1
EXIT_CONNECT = 3
EXIT_PROTOCOL = 4
EXIT_DISCONNECTED = 5

#: the longest line accepted from a dealer; a state of the longest hold'em hand is under 2 KiB
MAX_LINE = 16384


class ClientError(Exception):
    """A condition that ends the match for this client, with the exit code to report."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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


def fallback_action(view: View) -> Action:
    """The safe answer: check when free, otherwise fold."""
    return view.state.fold_or_check()


class Client:
    """One seat's match: parses lines, drives the strategy, builds replies and writes the history."""

    def __init__(self, strategy: Strategy, info: MatchInfo, history: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.strategy = strategy
        self.info = info
        self.game = info.game
        self.world = World(info.game, info)
        self.budget = TimeBudget(info.time_per_hand, prior_actions=info.game.num_rounds)
        self.history = history
        self.clock = clock
        self.lines = 0
        self.replies = 0
        self.corrections = 0
        self.fallbacks = 0
        self._thread: StrategyThread | None = None

    # ------------------------------------------------------------- lines and decisions

    @property
    def needs_every_state(self) -> bool:
        """Whether the strategy learns from states it does not act in (it overrides ``observe``).

        When it does not, only its own turns and the ends of hands change
        anything it sees, and an in-process dealer may skip the other states.
        """
        return type(self.strategy).observe is not Strategy.observe

    def receive(self, line: str, parsed: MatchState | None = None) -> View | None:
        """The view of one dealer line; None for comments and blank lines; ClientError when malformed.

        ``parsed`` is the line's state when an in-process dealer already has it.
        """
        self.lines += 1
        text = line.rstrip("\r\n")
        if not text or text[0] in "#;":
            return None
        try:
            view = self.world.update(text, parsed)
        except ProtocolError as exc:
            hint = "" if self.world.last else f" (is --game {self.game.name} the dealer's game?)"
            raise ClientError(f"protocol error on line {self.lines} from the dealer: {exc}{hint}",
                              EXIT_PROTOCOL) from None
        if self.world.new_hand:
            self.budget.new_hand()
        return view

    def correct(self, view: View, action: Any) -> Action:
        """The action to send: ``action`` when legal, else the engine's correction (logged)."""
        state = view.state
        if action.__class__ is Action and state.is_legal(action):
            return action
        try:
            wanted = Action(ActionType(action[0]), int(action[1]) if len(action) > 1 else 0)
        except (TypeError, ValueError, IndexError):
            self.corrections += 1
            chosen = fallback_action(view)
            log.error("hand %d: strategy %s returned %r, not an action; sending %s",
                      view.hand_id, self.strategy.spec, action, _show(chosen, view))
            return chosen
        if state.is_legal(wanted):
            return wanted
        fixed, warnings = state.fix(wanted)
        if not state.is_legal(fixed):
            fixed = CALL  # calling is always legal for the player to act
        self.corrections += 1
        log.warning("hand %d: strategy %s chose %s, which is not legal in %r (%s); sending %s",
                    view.hand_id, self.strategy.spec, _show(wanted, view), view.text,
                    "; ".join(w.removeprefix("WARNING: ") for w in warnings) or "corrected", _show(fixed, view))
        return fixed

    def reply(self, view: View, action: Action) -> str:
        """The reply line for ``action`` (already legal) in ``view``."""
        self.replies += 1
        return format_reply(view.text, action, self.game)

    def _safe(self, hook: Callable[..., Any], *args: Any) -> None:
        try:
            hook(*args)
        except Exception:  # noqa: BLE001 - a strategy bug must not lose the match
            log.exception("strategy %s failed in %s", self.strategy.spec, getattr(hook, "__name__", hook))

    def _observe_and_act(self, view: View, deadline: float) -> Any:
        self._safe(self.strategy.observe, view)
        return self.strategy.act(view, deadline)

    def handle_line(self, line: str, received: float | None = None, parsed: MatchState | None = None) -> str | None:
        """Process one line on the calling thread (inline strategies): the reply to send, or None."""
        if received is None:
            received = self.clock()
        view = self.receive(line, parsed)
        if view is None:
            return None
        strategy = self.strategy
        out = None
        if view.is_my_turn:
            allowance = self.budget.allowance()
            try:
                action = self._observe_and_act(view, strategy_deadline(received, allowance))
            except Exception:  # noqa: BLE001
                log.exception("hand %d: strategy %s failed in act; sending the fallback", view.hand_id, strategy.spec)
                self.fallbacks += 1
                action = fallback_action(view)
            action = self.correct(view, action)
            spent = self.clock() - received
            if spent > allowance and strategy.time_limited:
                log.warning("hand %d: strategy %s took %.3f s, over its %.3f s (it runs inline, so it was not cut)",
                            view.hand_id, strategy.spec, spent, allowance)
            out = self.reply(view, action)
        else:
            self._safe(strategy.observe, view)
        if self._is_new_final(view):
            self._safe(strategy.end_hand, view)
            self._write_history()
        return out

    async def handle_line_threaded(self, line: str, received: float) -> str | None:
        """Process one line with the strategy on its thread, cutting ``act`` at the deadline."""
        view = self.receive(line)
        if view is None:
            return None
        thread = self._thread
        assert thread is not None
        strategy = self.strategy
        out = None
        if view.is_my_turn:
            allowance = self.budget.allowance()
            hard = received + allowance
            # observe on its own: a stale act may be skipped, the observation never is
            thread.submit(self._safe, strategy.observe, view)
            fut = thread.submit(strategy.act, view, strategy_deadline(received, allowance), want_result=True)
            assert fut is not None
            if strategy.time_limited:
                await asyncio.wait((fut,), timeout=max(0.0, hard - self.clock()))
            else:
                await asyncio.wait((fut,))
            if not fut.done():
                fut.add_done_callback(_log_late)
                thread.abandon(fut)
                self.fallbacks += 1
                action = fallback_action(view)
                log.warning("hand %d: strategy %s did not answer within %.3f s; sending the fallback %s",
                            view.hand_id, strategy.spec, allowance, _show(action, view))
            elif fut.exception() is not None:
                exc = fut.exception()
                log.error("hand %d: strategy %s failed in act; sending the fallback", view.hand_id, strategy.spec,
                          exc_info=exc)
                self.fallbacks += 1
                action = fallback_action(view)
            else:
                action = self.correct(view, fut.result())
            out = self.reply(view, action)
        else:
            thread.submit(self._safe, strategy.observe, view)
        if self._is_new_final(view):
            thread.submit(self._safe, strategy.end_hand, view)
            self._write_history()
        return out

    def _write_history(self) -> None:
        if self.history is None or not self.world.match.hands:
            return
        record = self.world.match.hands[-1]
        try:
            self.history.write(json.dumps(record.to_json(self.world.match.total)) + "\n")
            self.history.flush()
        except OSError as exc:
            log.error("cannot write the history file: %s; history stops here", exc)
            self.history = None

    # ------------------------------------------------------------- the match

    async def play(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Play the match on an open connection until the dealer closes it; ClientError on failure."""
        threaded = not self.strategy.inline
        if threaded:
            self._thread = StrategyThread(asyncio.get_running_loop())
        try:
            writer.write(VERSION_LINE.encode("ascii"))
            await writer.drain()
            while True:
                try:
                    raw = await reader.readline()
                except ValueError:
                    raise ClientError(f"line {self.lines + 1} from the dealer is longer than {MAX_LINE} bytes",
                                      EXIT_PROTOCOL) from None
                except OSError as exc:
                    if self.world.last is not None and not self.world.in_hand:
                        # a dealer may reset rather than close once the match is over
                        log.info("the connection ended between hands: %s", exc)
                        break
                    raise self._gone(f"reading failed: {exc}") from None
                if not raw:
                    break
                received = self.clock()
                complete = raw.endswith(b"\n")
                try:
                    line = raw.decode("ascii")
                except UnicodeDecodeError:
                    raise ClientError(f"protocol error on line {self.lines + 1} from the dealer: not ASCII text: "
                                      f"{raw[:80]!r}", EXIT_PROTOCOL) from None
                if not complete:
                    # the dealer closed in the middle of a line: learn from it, but nobody reads a reply
                    self._observe_only(line)
                    break
                if threaded:
                    out = await self.handle_line_threaded(line, received)
                else:
                    out = self.handle_line(line, received)
                if out is not None:
                    try:
                        writer.write(out.encode("ascii"))
                        await writer.drain()
                    except OSError as exc:
                        raise self._gone(f"sending failed: {exc}") from None
                    self.budget.spend(self.clock() - received)
            if self.world.last is None:
                raise ClientError("the dealer closed the connection before sending any state", EXIT_DISCONNECTED)
            if self.world.in_hand:
                raise self._gone("the connection was closed")
        finally:
            await self._end_match()

    def _observe_only(self, line: str) -> None:
        try:
            view = self.receive(line)
        except ClientError:
            return
        if view is None:
            return
        thread = self._thread
        for hook in (self.strategy.observe, self.strategy.end_hand if self._is_new_final(view) else None):
            if hook is not None:
                if thread is not None:
                    thread.submit(self._safe, hook, view)
                else:
                    self._safe(hook, view)
        if self._is_new_final(view):
            self._write_history()

    def _is_new_final(self, view: View) -> bool:
        # a repeated final state is not a new end of hand
        return view.is_final and self.world.last is view

    def _gone(self, what: str) -> ClientError:
        last = self.world.last
        where = f" in the middle of hand {last.hand_id} (last state {last.text!r})" if last and self.world.in_hand else ""
        return ClientError(f"the dealer went away{where}: {what}", EXIT_DISCONNECTED)

    async def _end_match(self, wait: float = 30.0) -> None:
        thread = self._thread
        if thread is None:
            self._safe(self.strategy.end_match)
            return
        fut = thread.submit(self._safe, self.strategy.end_match, want_result=True)
        thread.close()
        assert fut is not None
        done, _ = await asyncio.wait((fut,), timeout=wait)
        if not done:
            log.error("strategy %s did not finish end_match within %.0f s; leaving it", self.strategy.spec, wait)
        self._thread = None

    def summary(self) -> str:
        """One line about the match so far."""
        match = self.world.match
        bb = self.game.big_blind
        mbb = 1000.0 * match.total / bb / match.hands_played if match.hands_played else 0.0
        return (f"{match.hands_played} hands, {match.total:+g} chips ({mbb:+.1f} mbb/hand), {self.replies} actions"
                f", {self.corrections} corrected, {self.fallbacks} fallbacks")


def _log_late(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled() and fut.exception() is not None:
        log.error("a strategy call abandoned at its deadline later failed", exc_info=fut.exception())
    else:
        log.info("a strategy call abandoned at its deadline returned at last; its answer was not used")


def _show(action: Action, view: View) -> str:
    kind = action[0]
    if kind == ActionType.RAISE:
        return f"raise to {action[1]}" if view.game.is_nolimit else "raise"
    return "fold" if kind == ActionType.FOLD else ("call" if view.to_call else "check")


async def connect(host: str, port: int, retry_for: float = 5.0,
                  limit: int = MAX_LINE) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open the connection, retrying refused attempts for ``retry_for`` seconds while a dealer starts."""
    give_up = time.monotonic() + retry_for
    delay = 0.05
    while True:
        try:
            return await asyncio.open_connection(host, port, limit=limit)
        except (ConnectionRefusedError, ConnectionResetError, TimeoutError) as exc:
            if time.monotonic() + delay > give_up:
                raise ClientError(f"cannot connect to the dealer at {host}:{port}: {exc.strerror or exc} "
                                  f"(retried for {retry_for:g} s)", EXIT_CONNECT) from None
        except OSError as exc:
            raise ClientError(f"cannot connect to the dealer at {host}:{port}: {exc}", EXIT_CONNECT) from None
        await asyncio.sleep(delay)
        delay = min(0.5, delay * 2)


async def run(strategy: Strategy, info: MatchInfo, host: str, port: int, *, history: TextIO | None = None,
              retry_for: float = 5.0) -> int:
    """Play one match and return the exit code; errors are logged with a clear message."""
    client = Client(strategy, info, history)
    try:
        strategy.start_match(info)
    except Exception as exc:  # noqa: BLE001
        log.exception("strategy %s failed to start: %s", strategy.spec, exc)
        return EXIT_STRATEGY
    try:
        reader, writer = await connect(host, port, retry_for)
    except ClientError as exc:
        log.error("%s", exc)
        client._safe(strategy.end_match)
        return exc.exit_code
    log.info("connected to %s:%d as %s playing %s in %s", host, port, info.name, strategy.spec, info.game.name)
    try:
        await client.play(reader, writer)
    except ClientError as exc:
        log.error("%s (after %s)", exc, client.summary())
        return exc.exit_code
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass
    log.info("match over: %s", client.summary())
    return EXIT_OK
