"""The bot client: plays a whole match against any ACPC 2.0.0 dealer over TCP.

It sends ``VERSION:2.0.0``, reads every line (bounded in length), skips
comments, turns each MATCHSTATE into a :class:`~acpcbot.world.View`, lets
the strategy observe it, and answers only when this seat is to act, with
the exact state text, ``:`` and an action the engine has checked.  A
strategy's illegal action is corrected the way the reference dealer would
correct it (and logged); an overrun deadline or a crash in ``act`` is
answered with the strategy's quick answer (``Strategy.quick_action``, asked
on the strategy's thread just before ``act``) when it offers one, else with
the safe fallback (check when free, else fold).

Where the strategy runs: a strategy that declares ``inline`` (its hooks
take microseconds) runs on the connection's own callback, which answers a
state the moment it arrives (the ``acpcbot`` command plays it on
:mod:`acpcbot.direct`'s blocking socket instead); a strategy a person plays
(``time_limited`` False) runs on a worker thread.  Any other strategy runs
on the callback too where a :class:`~acpcbot.pacing.DeadlineAlarm` can cut
it (the main thread, POSIX): at the deadline the alarm sends the quick
answer from the middle of ``act``, and from that overrun on the strategy
runs on the worker thread, which keeps reading while a stalled ``act`` runs
on and can abandon the calls it left stale.  Without an alarm it starts on
the worker thread and its first :data:`PROBE_DECISIONS` decisions are
timed: if every state's hooks took at most :data:`INLINE_MAX_S` it moves
inline, and back to the thread for good as soon as one state's hooks take
longer than :data:`INLINE_BACKOFF_S`.

The connection uses TCP keepalive (a dealer whose machine vanished is
noticed within about two minutes of silence); ``idle_timeout`` (default
None: no limit) ends a match in which the dealer sends nothing that long
while this seat waits for it.

Exit codes: 0 when the dealer closes after a finished hand, 1 when the
strategy cannot start, 3 when the dealer cannot be reached, 4 on a protocol
error (garbage, an overlong line), 5 when the dealer goes away mid-hand or
stays silent past the idle limit.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import logging
import time
from typing import Any, Callable, TextIO

from .answers import corrected, fallback_action, show_action  # noqa: F401  (fallback_action: the client's API)
from .connection import (  # noqa: F401  (connect, open_connection: the client's API)
    EXIT_DISCONNECTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_STRATEGY,
    MAX_LINE,
    ClientError,
    Connection,
    connect,
    open_connection,
)
from .engine import CALL, Action, ActionType, State
from .historyfile import HistoryWriter
from .pacing import (  # noqa: F401  (DeadlineAlarm, StrategyThread: the client's API)
    INLINE_BACKOFF_S,
    INLINE_MAX_S,
    PROBE_DECISIONS,
    DeadlineAlarm,
    StrategyThread,
    TimeBudget,
    log_late,
    strategy_deadline,
)
from .protocol import VERSION_LINE, MatchState, ProtocolError, format_reply
from .strategies.base import Strategy
from .world import MatchInfo, View, World

log = logging.getLogger(__name__)



class Client:
    """One seat's match: parses lines, drives the strategy, builds replies and writes the history."""

    def __init__(self, strategy: Strategy, info: MatchInfo, history: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, deadline_alarm: bool = True) -> None:
        self.strategy = strategy
        self.info = info
        self.game = info.game
        self.world = World(info.game, info)
        self.budget = TimeBudget(info.time_per_hand, prior_actions=info.game.num_rounds)
        self.clock = clock
        self.lines = 0
        self.replies = 0
        self.corrections = 0
        self.fallbacks = 0
        self._thread: StrategyThread | None = None
        #: whether the strategy's hooks run on the calling thread now (see the module's docstring)
        self.runs_inline = bool(strategy.inline)
        self._declared_inline = bool(strategy.inline)
        # a strategy that declares nothing is timed on the thread, then maybe moved inline
        self._probing = not strategy.inline and strategy.time_limited
        self._probed = 0
        self._lean_hand = -1  # the hand of the last decide_state, and its allowance
        self._lean_allowance = 0.0
        self._answered: Action | None = None  # the action of the reply handle_line made last (for prepare)
        self._reply_ends: dict[int, str] = {}
        self._slowest = 0.0
        self._observes = self.needs_every_state
        #: whether the strategy offers a quick answer for the fallback (it overrides ``quick_action``)
        self._offers_quick = type(strategy).quick_action is not Strategy.quick_action
        self._history = HistoryWriter(history)
        #: whether serve() may play the strategy on its own thread under a DeadlineAlarm (where one can run)
        self.deadline_alarm = deadline_alarm
        self._alarm: DeadlineAlarm | None = None
        self._send_now: Callable[[bytes], None] | None = None
        self._rang: tuple[Action, float] = (CALL, 0.0)  # the fallback the alarm sent, and when

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
        fixed, problem = corrected(view, action, self.strategy.spec)
        if problem is not None:
            self.corrections += 1
            log.log(*problem)
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

    def _quick_answer(self, view: View) -> Any:
        """The strategy's quick answer in ``view``; None when it offers none or fails (logged)."""
        if not self._offers_quick:
            return None
        try:
            return self.strategy.quick_action(view)
        except Exception:  # noqa: BLE001 - the fallback must not fail: fold_or_check then
            log.exception("hand %d: strategy %s failed in quick_action", view.hand_id, self.strategy.spec)
            return None

    def _fallback(self, view: View, quick: "concurrent.futures.Future[Any] | None") -> Action:
        """The fallback at a missed deadline or a failed ``act``: the quick answer if it was computed in time."""
        if quick is None:
            return fallback_action(view)
        if not quick.done():  # the thread is still busy with an earlier call: no quick answer this time
            assert self._thread is not None
            self._thread.abandon(quick)
            return fallback_action(view)
        return fallback_action(view, None if quick.cancelled() or quick.exception() else quick.result())

    def handle_line(self, line: str, received: float | None = None, parsed: MatchState | None = None) -> str | None:
        """Process one line on the calling thread (inline strategies): the reply to send, or None."""
        action = self.decide(line, received, parsed)
        if action is None:
            return None
        self._answered = action
        # the reply's ':<action>\r\n' by action (the state text is the line's, its line end stripped)
        kind, size = action
        key = size if kind == ActionType.RAISE else -1 - kind
        end = self._reply_ends.get(key)
        if end is None:
            end = format_reply("", action, self.game)
            if len(self._reply_ends) < 1024:
                self._reply_ends[key] = end
        return self.world.last.text + end  # type: ignore[union-attr]

    def prepare(self) -> None:
        """The reply to the latest state is sent: make the state after it now, while the dealer reads it."""
        if self._answered is not None:
            self.world.prepare(self.world.last, self._answered)  # type: ignore[arg-type]
            self._answered = None

    def decide(self, line: str, received: float | None = None, parsed: MatchState | None = None) -> Action | None:
        """Process one line on the calling thread: the (legal) action to answer with, or None when not asked.

        ``received`` is when the line arrived (default: now); ``parsed``, the
        line's state when an in-process dealer already has it.
        """
        if received is None:
            received = self.clock()
        view = self.receive(line, parsed)
        if view is None:
            return None
        strategy = self.strategy
        action = None
        if view.state.current_player == view.position:
            action = self._act(view, received)
        elif self._observes:
            started = self.clock()
            self._safe(strategy.observe, view)
            if not self._declared_inline and self.clock() - started > INLINE_BACKOFF_S:
                self._back_to_thread(self.clock() - started)
        if view.state.finished and self.world.last is view:  # a new end of hand (not a repeated final state)
            self._safe(strategy.end_hand, view)
            if not self.world.defer_records:
                self._write_history()
        return action

    def settle(self) -> None:
        """Record the hands whose final states waited (``World.defer_records``), each written to the history."""
        for _ in self.world.settle():
            self._write_history()

    def decide_state(self, text: str, seen: State, position: int, betting: str) -> Action | None:
        """The (legal) action at its turn of a seat an in-process dealer asks for its turns only: no World update.

        ``seen`` is the state as the seat's line ``text`` (no line end) shows
        it (``State.view_of``), maybe the dealer's own masked for the call.
        """
        received = self.clock()
        hand_id = seen.hand_id
        if hand_id != self._lean_hand:
            # within a hand of decisions only nothing charges the budget: one allowance serves them all
            self._lean_hand = hand_id
            self.budget.new_hand()
            self._lean_allowance = self.budget.allowance()
        return self._act(View(text, MatchState(position, hand_id, seen, betting), self.world.match, self.info),
                         received, self._lean_allowance)

    def _act(self, view: View, received: float, allowance: float | None = None) -> Action | None:
        """The strategy's action in ``view`` (its turn), corrected when not legal, on the calling thread; None when
        the deadline alarm cut ``act`` and sent the fallback itself."""
        clock = self.clock
        strategy = self.strategy
        if allowance is None:
            allowance = self.budget.allowance()
        started = received if self._declared_inline else clock()
        alarm = self._alarm if self.runs_inline else None
        quick = None
        try:
            if self._observes:
                self._safe(strategy.observe, view)
            if alarm is None:
                action = strategy.act(view, strategy_deadline(received, allowance))
            else:
                quick = self._quick_answer(view)  # asked first, as on the thread: ready for the alarm
                alarm.arm(received + allowance - clock(), functools.partial(self._ring, view, quick))
                try:
                    action = strategy.act(view, strategy_deadline(received, allowance))
                finally:
                    alarm.disarm()
        except Exception:  # noqa: BLE001
            if alarm is None or not alarm.fired:  # when the alarm fired it answered already: see below
                log.exception("hand %d: strategy %s failed in act; sending the fallback", view.hand_id, strategy.spec)
                self.fallbacks += 1
                # inline, the same thread: nothing runs beside the quick answer
                action = fallback_action(view, quick if alarm is not None else self._quick_answer(view))
        if alarm is not None and alarm.fired:
            self._after_alarm(view, received, allowance)
            return None
        if action.__class__ is not Action or not view.state.is_legal(action):
            action = self.correct(view, action)
        done = clock()
        spent = done - received
        if spent > allowance and strategy.time_limited:
            log.warning("hand %d: strategy %s took %.3f s, over its %.3f s (it runs inline, so it was not cut)",
                        view.hand_id, strategy.spec, spent, allowance)
        if alarm is None and not self._declared_inline and done - started > INLINE_BACKOFF_S:
            self._back_to_thread(done - started)
        self.replies += 1
        return action

    def _ring(self, view: View, quick: Any) -> None:
        """At the deadline, from the alarm's signal handler in the middle of ``act``: send the fallback now."""
        action = fallback_action(view, quick)
        self._rang = (action, self.clock())
        assert self._send_now is not None
        self._send_now(self.reply(view, action).encode("ascii"))

    def _after_alarm(self, view: View, received: float, allowance: float) -> None:
        """``act`` came back after the alarm answered for it: its answer is dropped, the strategy moves to the thread."""
        action, sent = self._rang
        self.fallbacks += 1
        self.budget.spend(sent - received)
        log.warning("hand %d: strategy %s did not answer within %.3f s; sent the fallback %s",
                    view.hand_id, self.strategy.spec, allowance, show_action(action, view))
        # the thread keeps reading while a stalled act runs on: a strategy that overran once stays there
        self._back_to_thread(self.clock() - received)

    def _back_to_thread(self, spent: float) -> None:
        if self.runs_inline:
            self.runs_inline = False
            log.info("strategy %s took %.3f s on one state: its hooks run on the worker thread again, "
                     "where its deadline is guarded", self.strategy.spec, spent)

    def _timed(self, hook: Callable[..., Any], *args: Any) -> Any:
        """Run a hook on the worker thread, keeping the slowest time seen while probing."""
        started = time.perf_counter()
        try:
            return hook(*args)
        finally:
            took = time.perf_counter() - started
            if took > self._slowest:
                self._slowest = took

    async def handle_line_threaded(self, line: str, received: float) -> str | None:
        """Process one line with the strategy on its thread, cutting ``act`` at the deadline."""
        view = self.receive(line)
        if view is None:
            return None
        thread = self._thread
        assert thread is not None
        strategy = self.strategy
        out = None
        observe = functools.partial(self._timed, self._safe) if self._probing else self._safe
        if view.is_my_turn:
            allowance = self.budget.allowance()
            hard = received + allowance
            # observe on its own: a stale act may be skipped, the observation never is
            if self._observes:
                thread.submit(observe, strategy.observe, view)
            # the quick answer first, on the thread (in order, so it never races a hook), for the fallback
            quick = thread.submit_quiet(self._quick_answer, view) if self._offers_quick else None
            act = (self._timed, strategy.act) if self._probing else (strategy.act,)
            fut = thread.submit(*act, view, strategy_deadline(received, allowance), want_result=True)
            assert fut is not None
            if strategy.time_limited:
                await asyncio.wait((fut,), timeout=max(0.0, hard - self.clock()))
            else:
                await asyncio.wait((fut,))
            if not fut.done():
                fut.add_done_callback(log_late)
                thread.abandon(fut)
                self.fallbacks += 1
                self._probing = False  # it overran: it stays on the thread
                action = self._fallback(view, quick)
                log.warning("hand %d: strategy %s did not answer within %.3f s; sending the fallback %s",
                            view.hand_id, strategy.spec, allowance, show_action(action, view))
            elif fut.exception() is not None:
                exc = fut.exception()
                log.error("hand %d: strategy %s failed in act; sending the fallback", view.hand_id, strategy.spec,
                          exc_info=exc)
                self.fallbacks += 1
                action = self._fallback(view, quick)
            else:
                action = self.correct(view, fut.result())
                if self._probing:
                    self._probe_done()
            out = self.reply(view, action)
        elif self._observes:
            thread.submit(observe, strategy.observe, view)
        if self._is_new_final(view):
            thread.submit(observe, strategy.end_hand, view)
            self._write_history()
        return out

    def _probe_done(self) -> None:
        """One more timed decision (the thread is idle now: every hook submitted so far has run)."""
        self._probed += 1
        if self._slowest > INLINE_MAX_S:
            self._probing = False  # too slow for inline: it stays on the thread
        elif self._probed >= PROBE_DECISIONS:
            self._probing = False
            self.runs_inline = True
            log.info("strategy %s took at most %.1f ms per state over %d decisions: it now runs inline",
                     self.strategy.spec, 1000 * self._slowest, self._probed)

    @property
    def history(self) -> TextIO | None:
        """The history file while writes to it succeed (None: none given, or a write failed and ended it)."""
        return self._history.stream

    def _write_history(self) -> None:
        """Append the hand just finished to the history file (HistoryWriter)."""
        match = self.world.match
        if match.hands:
            self._history.append(json.dumps(match.hands[-1].to_json(match.total)), match.hands_played - 1)

    # ------------------------------------------------------------- the match

    def decode_line(self, raw: bytes) -> str:
        """A complete line from the dealer as text; ClientError when it is not ASCII."""
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError:
            raise ClientError(f"protocol error on line {self.lines + 1} from the dealer: not ASCII text: "
                              f"{raw[:80]!r}", EXIT_PROTOCOL) from None

    def _start_thread(self) -> None:
        if not self._declared_inline and self._thread is None:
            self._thread = StrategyThread(asyncio.get_running_loop())

    async def play(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Play the match on an open stream pair until the dealer closes it; ClientError on failure.

        (:func:`acpcbot.session.run` plays over its own faster connection; this serves any
        stream pair, e.g. from :func:`connect`.)
        """
        self._start_thread()
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
                line = self.decode_line(raw)
                if not raw.endswith(b"\n"):
                    # the dealer closed in the middle of a line: learn from it, but nobody reads a reply
                    self._observe_only(line)
                    break
                if self.runs_inline:
                    out = self.handle_line(line, received)
                else:
                    out = await self.handle_line_threaded(line, received)
                if out is not None:
                    try:
                        writer.write(out.encode("ascii"))
                        await writer.drain()
                    except OSError as exc:
                        raise self._gone(f"sending failed: {exc}") from None
                    self.budget.spend(self.clock() - received)
            self._check_end()
        finally:
            await self._end_match()

    async def serve(self, conn: "Connection", idle_timeout: float | None = None) -> None:
        """Play the match over a :class:`Connection` until the dealer closes it; ClientError on failure.

        An inline strategy is answered from the connection's callback itself,
        so a reply leaves as soon as its state has been read.
        """
        self._start_thread()
        if self._probing and self.deadline_alarm and DeadlineAlarm.available():
            # cut at its deadline by the alarm, it may decide here from its first state: no probe on the thread
            self._alarm = DeadlineAlarm()
            self._send_now = conn.write
            self._probing = False
            self.runs_inline = True
            log.info("strategy %s decides on the client's own thread, cut at its deadline by an alarm",
                     self.strategy.spec)
        try:
            conn.write(VERSION_LINE.encode("ascii"))
            lines = conn.lines
            while True:
                if lines:
                    raw, received = lines.popleft()
                    line = self.decode_line(raw)
                    if self.runs_inline:
                        out = self.handle_line(line, received)
                    else:
                        out = await self.handle_line_threaded(line, received)
                    if out is not None:
                        conn.write(out.encode("ascii"))
                        self.budget.spend(self.clock() - received)
                    continue
                conn.resume()
                if conn.error is not None:
                    raise conn.error
                if conn.eof:
                    break
                conn.direct = self.runs_inline
                try:
                    await conn.wait(idle_timeout)
                finally:
                    conn.direct = False
            if conn.lost is not None:
                exc = conn.lost
                if self.world.last is not None and not self.world.in_hand:
                    log.info("the connection ended between hands: %s", exc)
                else:
                    raise self._gone(f"reading failed: {exc}")
            elif conn.partial:
                # the dealer closed in the middle of a line: learn from it, but nobody reads a reply
                self._observe_only(self.decode_line(conn.partial))
            self._check_end()
        finally:
            if self._alarm is not None:
                self._alarm.close()
                self._alarm = None
            await self._end_match()

    def _check_end(self) -> None:
        if self.world.last is None:
            raise ClientError("the dealer closed the connection before sending any state", EXIT_DISCONNECTED)
        if self.world.in_hand:
            raise self._gone("the connection was closed")

    def _observe_only(self, line: str) -> None:
        try:
            view = self.receive(line)
        except ClientError:
            return
        if view is None:
            return
        thread = self._thread if not self.runs_inline else None
        for hook in (self.strategy.observe, self.strategy.end_hand if self._is_new_final(view) else None):
            if hook is not None:
                if thread is not None:
                    thread.submit(self._safe, hook, view)
                else:
                    self._safe(hook, view)
        if self._is_new_final(view) and not self.world.defer_records:
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
        return (f"{match.hands_played} hands, {match.total:+.15g} chips ({mbb:+.1f} mbb/hand), {self.replies} actions"
                f", {self.corrections} corrected, {self.fallbacks} fallbacks")
