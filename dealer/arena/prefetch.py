"""AIVAT's equities of a match in play, computed on a spare core from its log as the dealer writes it.

AIVAT's value function needs every hand's showdown equity on each street
(``measure.aivat.Evaluator``), about half a second of one core a 20,000-hand
hold'em match, which used to start only once the match was over.  A run
that plays a single in-memory match keeps one core busy and the other idle,
so a forked process follows the match's log instead: it reads the hands the
dealer has written, computes their equities into an ``EquityMemo`` and hands
it over when the match ends; the analysis reads those rows (the same
function of the same cards: the same floats) and computes only the rest.
The follower never delays the analysis: once told the match is over it
sends what it has at once (at most one batch later), and whatever it had
not reached is computed as before.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from acpcbot.gamedef import GameDef
from acpcbot.measure.aivat import PREFLOP_BOARDS, EquityMemo, Evaluator
from acpcbot.measure.matchup import PREFLOP_SEED
from acpcbot.notation.loglines import STATE_PREFIX, state_line_cards

#: the seed of the preflop board sample the run's analysis values hands with (``aivat.evaluate_match``): the default
#: one, which ``make install`` builds (``acpcbot.prepare``)
AIVAT_SEED = PREFLOP_SEED
#: hands valued together by the follower while the log grows: a batch is a tenth of a second or so, so it answers a
#: stop that soon
BATCH_HANDS = 1_000
#: the follower's niceness: on a busy machine the match and the analysis come first, the follower takes what is left
NICENESS = 5
#: how long the follower waits for the log to grow before reading it again (seconds)
POLL_SECONDS = 0.05
#: how long the analysis waits for the follower's memo once the match is over (seconds) before doing without it
HANDOVER_SECONDS = 5.0

#: memos of the matches followed in this process, by log path, until the analysis takes them
_MEMOS: dict[str, EquityMemo] = {}


def wanted(game: GameDef, jobs_in_play: int) -> bool:
    """Whether a match of ``game`` is worth following: heads-up hold'em, a core to spare beside the jobs in play,
    and processes that can be forked (the follower starts at once, sharing what this process has loaded)."""
    return (game.num_players == 2 and game.deals_holdem_cards and (os.cpu_count() or 1) > jobs_in_play
            and "fork" in multiprocessing.get_all_start_methods())


class Follower:
    """A forked process following one match's log (:func:`_follow`); :meth:`finish` keeps its memo for the analysis."""

    def __init__(self, log_path: str | Path, game: GameDef) -> None:
        self.path = str(Path(log_path).absolute())
        ctx = multiprocessing.get_context("fork")
        self._stop = ctx.Event()
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_follow, args=(self.path, game, self._stop, child, os.getpid(), self._conn),
                                 name="acpc-match-aivat-follower", daemon=True)
        self._proc.start()
        child.close()

    def finish(self, keep: bool = True) -> None:
        """Stop following; with ``keep``, hold the memo for :func:`take_memo` (nothing if the follower failed)."""
        self._stop.set()
        if not keep:  # an interrupted match: nothing to analyse, and its memo is not waited for
            self._proc.kill()
        memo = None
        try:
            if keep and self._conn.poll(HANDOVER_SECONDS):
                memo = self._conn.recv()
        except (EOFError, OSError):
            memo = None  # the follower died: the analysis computes every equity itself
        finally:
            self._conn.close()
            self._proc.join(1.0)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        if isinstance(memo, EquityMemo):
            _MEMOS[self.path] = memo


def take_memo(log_path: str | Path | None) -> EquityMemo | None:
    """The equities a follower computed for the match of ``log_path`` in this process (once), else None."""
    if not log_path:
        return None
    return _MEMOS.pop(str(Path(log_path).absolute()), None)


def _follow(path: str, game: GameDef, stop: Any, conn: Connection, parent: int, theirs: Connection) -> None:
    """The follower process: :func:`follow_log` at a lower priority, then the memo sent (whatever it holds) unless
    the run is gone.  ``theirs``, the parent's end of the pipe the fork copied, is closed first: held here, a send
    nobody reads would wait on it forever."""
    theirs.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the run stops us itself
    try:
        os.nice(NICENESS)
    except OSError:
        pass  # not allowed here: the follower runs at the run's priority
    memo = EquityMemo(AIVAT_SEED, PREFLOP_BOARDS)
    # the parent's pid as it gave it: a run killed before the follower got here is seen at once
    orphaned = _Orphaned(stop, parent)
    try:
        follow_log(path, game, memo, orphaned)
    except Exception:  # noqa: BLE001 - a log the follower cannot read is the analysis's to report, not ours
        pass
    if not orphaned.gone():
        try:
            conn.send(memo)
        except OSError:
            pass  # the run stopped listening (interrupted): nothing to hand over
    conn.close()


class _Orphaned:
    """The follower's stop: the run's Event, or the run gone (killed without a word: its follower must not poll on)."""

    def __init__(self, stop: Any, parent: int) -> None:
        self.stop, self.parent = stop, parent

    def gone(self) -> bool:
        """Whether the parent that started the follower is no longer its parent (killed)."""
        return os.getppid() != self.parent

    def is_set(self) -> bool:
        """Whether to stop: told to, or the run gone."""
        return bool(self.stop.is_set()) or self.gone()


def follow_log(path: str | Path, game: GameDef, memo: EquityMemo, stop: Any) -> None:
    """Until ``stop`` (an Event) is set: read the log's whole STATE lines as they come and value their hands into
    ``memo`` (``Evaluator.fill``), a batch at a time while the log grows, what is pending once it stops growing."""
    evaluator = Evaluator(game, seed=memo.seed, preflop_boards=memo.boards, memo=memo)
    prefix = STATE_PREFIX.encode()
    pending: list[tuple[list[tuple[int, ...]], list[int]]] = []
    rest = b""
    log = None  # opened once the match has written it, then read on from where the last read stopped
    try:
        while not stop.is_set():
            if log is None:
                try:
                    log = open(path, "rb")
                except FileNotFoundError:
                    pass  # the match has not written its log yet
            data = log.read(1 << 20) if log is not None else b""
            lines = (rest + data).split(b"\n")
            rest = lines.pop()  # a line not ended yet is read again with what follows it
            pending.extend(state_line_cards(line.decode("utf-8"), game) for line in lines if line.startswith(prefix))
            while pending and (len(pending) >= BATCH_HANDS or not data) and not stop.is_set():
                evaluator.fill(pending[:BATCH_HANDS])
                del pending[:BATCH_HANDS]
            if not data:
                time.sleep(POLL_SECONDS)
    finally:
        if log is not None:
            log.close()
