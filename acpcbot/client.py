"""The bot client's one decision path: a dealer line in, the legal reply out, the same for every loop.

It sends ``VERSION:2.0.0``, reads every line (bounded in length), skips
comments, turns each MATCHSTATE into a :class:`~acpcbot.world.View`, lets
the strategy observe it, and answers only when this seat is to act, with
the exact state text, ``:`` and an action the engine has checked.  A
strategy's illegal action is corrected the way the reference dealer would
correct it (and logged); an overrun deadline or a crash in ``act`` is
answered with the strategy's quick answer (``Strategy.quick_action``, asked
on the strategy's thread just before ``act``) when it offers one, else with
the safe fallback (check when free, else fold).

Where the strategy's hooks run is :mod:`acpcbot.scheduling`'s one policy
(from the strategy's declared ``run_mode``): on the calling thread, under a
deadline alarm, or on a worker thread.  The loops that feed the client its
lines are :mod:`acpcbot.session` (asyncio), :mod:`acpcbot.direct`
(blocking) and the arena's in-memory seats, all framing lines with
:class:`~acpcbot.framing.LineFramer`; the history file is
:mod:`acpcbot.historyfile`.

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
import logging
import time
from typing import Any, Callable, TextIO

from .answers import corrected, fallback_action, show_action  # noqa: F401  (fallback_action: the client's API)
from .connection import (  # noqa: F401  (connect, open_connection, MAX_LINE, EXIT_*: the client's API)
    EXIT_DISCONNECTED,
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_STRATEGY,
    MAX_LINE,
    ClientError,
    connect,
    open_connection,
)
from .engine import CALL, Action, ActionType, State
from .historyfile import HistoryWriter
from .pacing import (  # noqa: F401  (DeadlineAlarm, StrategyThread, the probe's figures: the client's API)
    INLINE_BACKOFF_S,
    INLINE_MAX_S,
    PROBE_DECISIONS,
    DeadlineAlarm,
    StrategyThread,
    TimeBudget,
    log_late,
    strategy_deadline,
)
from .playedfile import PlayedRowsWriter
from .protocol import MatchState, ProtocolError, format_reply
from .scheduling import Schedule
from .strategies.base import Strategy
from .world import MatchInfo, View, World

log = logging.getLogger(__name__)


class Client:
    """One seat's match: parses lines, drives the strategy, builds replies and writes the history."""

    def __init__(self, strategy: Strategy, info: MatchInfo, history: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, deadline_alarm: bool = True,
                 played: PlayedRowsWriter | None = None) -> None:
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
        #: where the strategy's hooks run now (acpcbot.scheduling), from its declared ``run_mode``
        self.schedule = Schedule(strategy.run_mode, strategy.spec)
        self._declared_inline = self.schedule.declared_inline
        self._lean_hand = -1  # the hand of the last decide_state, and its allowance
        self._lean_allowance = 0.0
        self._answered: Action | None = None  # the action of the reply handle_line made last (for prepare)
        self._reply_ends: dict[int, str] = {}
        self._observes = self.needs_every_state
        self._history = HistoryWriter(history)
        #: whether the asyncio loop may play a guarded strategy on its own thread under a DeadlineAlarm
        self.deadline_alarm = deadline_alarm
        #: where the alarm sends the fallback it answers with (the loop that armed it sets it)
        self.send_now: Callable[[bytes], None] | None = None
        self._rang: tuple[Action, float] = (CALL, 0.0)  # the fallback the alarm sent, and when
        #: where the rows the strategy played from go (``Strategy.played_policy``), when its owner keeps them
        self.played = played

    # ------------------------------------------------------------- lines and decisions

    @property
    def runs_inline(self) -> bool:
        """Whether the strategy's hooks run on the calling thread now (``Schedule.inline``)."""
        return self.schedule.inline

    @property
    def needs_every_state(self) -> bool:
        """Whether the strategy learns from states it does not act in (its ``run_mode`` sees every state).

        When it does not, only its own turns and the ends of hands change
        anything it sees, and an in-process dealer may skip the other states.
        """
        return self.strategy.run_mode.every_state

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

    def call_hook(self, hook: Callable[..., Any], *args: Any) -> None:
        """Run one strategy hook; its failure is logged, never raised (a strategy bug must not lose the match)."""
        try:
            hook(*args)
        except Exception:  # noqa: BLE001 - a strategy bug must not lose the match
            log.exception("strategy %s failed in %s", self.strategy.spec, getattr(hook, "__name__", hook))

    def _quick_answer(self, view: View) -> Any:
        """The strategy's quick answer in ``view``; None when it offers none or fails (logged)."""
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
            assert self.schedule.thread is not None
            self.schedule.thread.abandon(quick)
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
            self.call_hook(strategy.observe, view)
            if not self._declared_inline:
                self.schedule.took(self.clock() - started)
        if view.state.finished and self.world.last is view:  # a new end of hand (not a repeated final state)
            self.call_hook(strategy.end_hand, view)
            if not self.world.defer_records:
                self._history.record(self.world.match)
        return action

    def settle(self) -> None:
        """Record the hands whose final states waited (``World.defer_records``), each written to the history."""
        for _ in self.world.settle():
            self._history.record(self.world.match)

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
        schedule = self.schedule
        alarm = schedule.alarm if schedule.inline else None
        quick = None
        try:
            if self._observes:
                self.call_hook(strategy.observe, view)
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
        if spent > allowance and strategy.run_mode.time_limited:
            log.warning("hand %d: strategy %s took %.3f s, over its %.3f s (it runs inline, so it was not cut)",
                        view.hand_id, strategy.spec, spent, allowance)
        if alarm is None and not self._declared_inline:
            schedule.took(done - started)
        self.replies += 1
        if self.played is not None:
            self._keep_played(view)
        return action

    def _keep_played(self, view: View) -> None:
        """The row the strategy played from in ``view``, to the played-rows file (before the reply leaves: where a
        re-solver keeps its rows this is a read of what it solved, a fraction of a millisecond)."""
        assert self.played is not None
        try:
            policy = self.strategy.played_policy(view)
        except Exception:  # noqa: BLE001 - a failing record must not lose the match: the analysis replays instead
            log.exception("hand %d: strategy %s failed in played_policy", view.hand_id, self.strategy.spec)
            return
        if policy is not None:
            self.played.record(view, policy)

    def _ring(self, view: View, quick: Any) -> None:
        """At the deadline, from the alarm's signal handler in the middle of ``act``: send the fallback now."""
        action = fallback_action(view, quick)
        self._rang = (action, self.clock())
        assert self.send_now is not None
        self.send_now(self.reply(view, action).encode("ascii"))

    def _after_alarm(self, view: View, received: float, allowance: float) -> None:
        """``act`` came back after the alarm answered for it: its answer is dropped, the strategy moves to the thread."""
        action, sent = self._rang
        self.fallbacks += 1
        self.budget.spend(sent - received)
        log.warning("hand %d: strategy %s did not answer within %.3f s; sent the fallback %s",
                    view.hand_id, self.strategy.spec, allowance, show_action(action, view))
        # the thread keeps reading while a stalled act runs on: a strategy that overran once stays there
        self.schedule.back_to_thread(self.clock() - received)

    @property
    def alarm_sent(self) -> tuple[Action, float]:
        """The fallback the deadline alarm sent last, and when."""
        return self._rang

    async def handle_line_threaded(self, line: str, received: float) -> str | None:
        """Process one line with the strategy on its thread, cutting ``act`` at the deadline."""
        view = self.receive(line)
        if view is None:
            return None
        schedule = self.schedule
        thread = schedule.thread
        assert thread is not None
        strategy = self.strategy
        out = None
        probing = schedule.probing
        observe = functools.partial(schedule.timed, self.call_hook) if probing else self.call_hook
        if view.is_my_turn:
            allowance = self.budget.allowance()
            hard = received + allowance
            # observe on its own: a stale act may be skipped, the observation never is
            if self._observes:
                thread.submit(observe, strategy.observe, view)
            # the quick answer first, on the thread (in order, so it never races a hook), for the fallback
            quick = thread.submit_quiet(self._quick_answer, view)
            act = (schedule.timed, strategy.act) if probing else (strategy.act,)
            fut = thread.submit(*act, view, strategy_deadline(received, allowance), want_result=True)
            assert fut is not None
            if strategy.run_mode.time_limited:
                await asyncio.wait((fut,), timeout=max(0.0, hard - self.clock()))
            else:
                await asyncio.wait((fut,))
            if not fut.done():
                fut.add_done_callback(log_late)
                thread.abandon(fut)
                self.fallbacks += 1
                schedule.overran()  # it overran: it stays on the thread
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
                if schedule.probing:
                    schedule.probe_done()
            out = self.reply(view, action)
        elif self._observes:
            thread.submit(observe, strategy.observe, view)
        if self._is_new_final(view):
            thread.submit(observe, strategy.end_hand, view)
            self._history.record(self.world.match)
        return out

    @property
    def history(self) -> TextIO | None:
        """The history file while writes to it succeed (None: none given, or a write failed and ended it)."""
        return self._history.stream

    # ------------------------------------------------------------- the end of the stream, for every loop

    def decode_line(self, raw: bytes) -> str:
        """A complete line from the dealer as text; ClientError when it is not ASCII."""
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError:
            raise ClientError(f"protocol error on line {self.lines + 1} from the dealer: not ASCII text: "
                              f"{raw[:80]!r}", EXIT_PROTOCOL) from None

    def stream_ended(self, lost: Exception | None, partial: bytes) -> None:
        """The dealer's stream ended (``lost``: the failure that ended it; ``partial``: an unfinished last line);
        ClientError when the match was not over."""
        if lost is not None:
            if self.world.last is not None and not self.world.in_hand:
                # a dealer may reset rather than close once the match is over
                log.info("the connection ended between hands: %s", lost)
            else:
                raise self.gone(f"reading failed: {lost}")
        elif partial:
            # the dealer closed in the middle of a line: learn from it, but nobody reads a reply
            self._observe_only(self.decode_line(partial))
        if self.world.last is None:
            raise ClientError("the dealer closed the connection before sending any state", EXIT_DISCONNECTED)
        if self.world.in_hand:
            raise self.gone("the connection was closed")

    def _observe_only(self, line: str) -> None:
        try:
            view = self.receive(line)
        except ClientError:
            return
        if view is None:
            return
        thread = self.schedule.thread if not self.runs_inline else None
        for hook in (self.strategy.observe, self.strategy.end_hand if self._is_new_final(view) else None):
            if hook is not None:
                if thread is not None:
                    thread.submit(self.call_hook, hook, view)
                else:
                    self.call_hook(hook, view)
        if self._is_new_final(view) and not self.world.defer_records:
            self._history.record(self.world.match)

    def _is_new_final(self, view: View) -> bool:
        # a repeated final state is not a new end of hand
        return view.is_final and self.world.last is view

    def gone(self, what: str) -> ClientError:
        """The error that ends a match whose dealer went away (``what``: how it showed)."""
        last = self.world.last
        where = f" in the middle of hand {last.hand_id} (last state {last.text!r})" if last and self.world.in_hand else ""
        return ClientError(f"the dealer went away{where}: {what}", EXIT_DISCONNECTED)

    def end_match(self) -> None:
        """Tell the strategy the match is over, here (a loop with no worker thread); a failure is logged."""
        self.call_hook(self.strategy.end_match)

    def summary(self) -> str:
        """One line about the match so far."""
        match = self.world.match
        bb = self.game.big_blind
        mbb = 1000.0 * match.total / bb / match.hands_played if match.hands_played else 0.0
        return (f"{match.hands_played} hands, {match.total:+.15g} chips ({mbb:+.1f} mbb/hand), {self.replies} actions"
                f", {self.corrections} corrected, {self.fallbacks} fallbacks")
