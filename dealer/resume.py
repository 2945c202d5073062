"""The files a match writes, and resuming a match from its transaction file as the reference's ``--append`` does."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from acpcbot.gamedef import clip
from acpcbot.matchlog import format_score_line
from acpcbot.protocol import ProtocolError, format_betting, format_cards, parse_action

from .config import MatchConfig
from .logs import (
    LogWriter,
    Transaction,
    TransactionFileError,
    TransactionLog,
    read_log_lines,
    read_transactions,
    truncate_file,
)
from .progress import MatchProgress, finish_hand


class ResumeError(ValueError):
    """A transaction file or log that cannot be resumed from; the message names the file and line."""


def replay_transactions(config: MatchConfig, transactions: Sequence[Transaction],
                        source: str = "transaction file") -> tuple[MatchProgress, list[str]]:
    """Re-play a transaction file: check each line against the deal, re-apply it, re-charge its time.

    Returns where the match stands and the log lines of the hands it
    finished.  Raises ResumeError naming the line for anything the deal or
    the rules do not allow.
    """
    game = config.game
    progress = MatchProgress.fresh(config)
    log_lines = []
    for t in transactions:
        where = f"{source} line {t.line_number}"
        state = progress.state
        if state is None:
            raise ResumeError(f"{where}: an action after the match's last hand ({config.num_hands} hands)")
        if t.hand_id != state.hand_id:
            raise ResumeError(f"{where}: hand {t.hand_id}, but the next action belongs to hand {state.hand_id}")
        if t.betting is not None:
            betting, cards = format_betting(state), format_cards(state, None)
            if t.betting != betting or t.cards != cards:
                theirs = f"{t.betting}:{t.cards}"
                shown = theirs if len(theirs) <= 120 else clip(theirs, 120)
                raise ResumeError(f"{where}: state {shown} but the deal and the actions before give {betting}:{cards}")
        try:
            action = parse_action(t.action_text, game)
        except ProtocolError as exc:
            raise ResumeError(f"{where}: cannot read the action: {exc}") from None
        if not state.is_legal(action):
            raise ResumeError(f"{where}: invalid action {clip(t.action_text, 40)} in hand {state.hand_id}")
        seat = config.seat_of(state.hand_id, state.current_player)
        if progress.clock.charge(seat, t.send_us, t.recv_us):
            raise ResumeError(f"{where}: seat {seat + 1} ran out of time in transaction file")
        state.apply(action)
        if state.finished:
            log_lines.append(finish_hand(config, progress, state))
    return progress, log_lines


@dataclass
class MatchFiles:
    """The files a match writes (each optional) and the progress to start from."""

    log: LogWriter | None
    tlog: TransactionLog | None
    progress: MatchProgress
    header_written: bool = False
    score_written: bool = False  # a resumed match that had already finished

    @property
    def failures(self) -> list[str]:
        """What went wrong writing the files (empty: every line was written)."""
        return [f.failed for f in (self.log, self.tlog) if f is not None and f.failed is not None]


def open_match_files(config: MatchConfig, use_log: bool = True, use_tlog: bool = False,
                     append: bool = False, on_failure: Callable[[str], None] | None = None) -> MatchFiles:
    """Open ``<matchName>.log`` / ``.tlog`` as the reference does; with ``append`` resume from the transaction file.

    Resuming re-plays the transaction file, checks that the existing log is a
    prefix of what an uninterrupted match writes, cuts off a half-written last
    line, and appends what is missing (also a hand whose log line was lost),
    so the finished log equals the uninterrupted one.  Raises ResumeError or
    OSError without touching any file when they do not agree.  A write that
    fails later is reported once through ``on_failure`` (see ``logs.LineSink``).
    """
    log_path = Path(f"{config.match_name}.log")
    tlog_path = Path(f"{config.match_name}.tlog")
    if not append:
        progress = MatchProgress.fresh(config)
        return MatchFiles(LogWriter(log_path, on_failure=on_failure) if use_log else None,
                          TransactionLog(tlog_path, on_failure=on_failure) if use_tlog else None, progress)
    transactions: list[Transaction] = []
    tlog_length = 0
    if tlog_path.exists():
        try:
            transactions, tlog_length = read_transactions(tlog_path)
        except TransactionFileError as exc:
            raise ResumeError(str(exc)) from None
    progress, log_lines = replay_transactions(config, transactions, os.fspath(tlog_path))
    expected = config.header_lines() + log_lines
    lines: list[str] = []
    keep_log = 0
    finished = False
    if use_log and log_path.exists():
        lines, keep_log = read_log_lines(log_path)
        finished = progress.state is None and lines == expected + [format_score_line(progress.totals, config.names)]
        if not finished:
            for i, line in enumerate(lines):
                if i >= len(expected) or line != expected[i]:
                    want = expected[i] if i < len(expected) else "(nothing: the transaction file ends before it)"
                    raise ResumeError(f"{log_path} line {i + 1}: {line[:120]!r} is not what the transaction file "
                                      f"gives: {want[:120]!r}; not resuming")
    if tlog_path.exists():
        truncate_file(tlog_path, tlog_length)
    log = None
    if use_log:
        if log_path.exists():
            truncate_file(log_path, keep_log)  # the complete lines read above stay
        log = LogWriter(log_path, append=True, on_failure=on_failure)
        if len(lines) < len(expected):
            log.write_lines(expected[len(lines):])
    tlog = TransactionLog(tlog_path, append=True, on_failure=on_failure) if use_tlog else None
    return MatchFiles(log, tlog, progress, header_written=use_log, score_written=finished)
