"""The fused in-memory match loop: every seat a lean in-process player, asked for its turns and nothing else.

When every seat is lean (``memory.is_lean``: an inline strategy that
keeps nothing between its decisions: call, fold, raise, random...), the
transcript is quiet and no transaction file is kept, the only thing a
seat's states change is its answer at its turns.  This loop
plays such a hand without the per-state work of the general one
(``dealer.match``): no view of the states a seat does not act in, no World
update, no reply text.  The acting seat reads the dealer's own state,
masked for the call to what its line shows (its hole cards as
``State.visible_holes`` gives them, the board through the round), and the
hand is booked by the same ``finish_hand``, so the log is byte for byte
the general loop's, and the TCP dealer's (tests/test_speed_memory.py).
"""

from __future__ import annotations

import threading
from time import time_ns
from typing import Sequence

from acpcbot.engine import CALL
from acpcbot.notation.actions import action_text
from acpcbot.notation.betting import format_betting, rounds_ended
from acpcbot.notation.cardsfield import CardsText
from acpcbot.notation.matchstate import state_head, state_line
from dealer.config import MatchConfig
from dealer.logs import Transcript
from dealer.match import Match, MatchAborted, MatchResult
from dealer.progress import finish_hand
from dealer.resume import MatchFiles
from dealer.seats import SeatChannel

#: hands whose log lines are written together (one write per hand was a tenth of a fused hand's time); a
#: reader of the growing log (the progress line) lags by at most that, and the match's last hand, or the
#: hand it stops in, writes out every line held
LOG_BATCH = 64


def fused_ready(match: Match, seats: Sequence[SeatChannel]) -> bool:
    """Whether ``match`` over ``seats`` can be played by :class:`FusedMatch`'s loop, hand after hand."""
    return (match.transcript.quiet and match.files.tlog is None
            and all(getattr(seat, "lean", False) for seat in seats))


class FusedMatch(Match):
    """A :class:`~dealer.match.Match` whose hands are played by the fused loop when :func:`fused_ready` holds.

    Each seat must be a lean :class:`~dealer.arena.memory.MemorySeat`
    (``seat.client.decide_state``); otherwise the general loop plays.  A
    reply that would need a warning (never from a client, which asks the
    engine first) is judged by the general reading (``Match._ask``).
    ``stop``, once set, ends the match before its next hand (an
    interrupted run), every hand played before it logged.
    """

    _fused = False
    _deciders: list = []
    _pending: list[str] = []

    def __init__(self, config: MatchConfig, transcript: Transcript, files: MatchFiles | None = None,
                 stop: threading.Event | None = None) -> None:
        super().__init__(config, transcript, files)
        self._stop = stop

    def run(self, seats: Sequence[SeatChannel]) -> MatchResult:
        """Play the match as :meth:`Match.run` does, with the fused loop when it applies."""
        self._fused = fused_ready(self, seats)
        self._pending = []
        self._deciders = [(client := getattr(seat, "client", None)) and client.decide_state for seat in seats]
        return super().run(seats)

    def _write_log(self) -> None:
        """Write out the hands' lines held back (see :data:`LOG_BATCH`)."""
        if self._pending:
            if self.files.log is not None:
                self.files.log.write_lines(self._pending)
            self._pending = []

    def _play_hand(self) -> None:
        """Play the pending hand to its end (see the module's docstring), log it and deal the next one."""
        if self._stop is not None and self._stop.is_set():
            self._write_log()
            raise MatchAborted(f"ERROR: the run was interrupted before hand {self.progress.next_hand}")
        if not self._fused:
            super()._play_hand()
            return
        config = self.config
        progress = self.progress
        state = progress.state
        assert state is not None
        game = config.game
        nolimit = game.is_nolimit
        n = game.num_players
        h = state.hand_id
        seats = self._seats
        seat_of_pos = self._rotation(h)[1]
        deciders = self._deciders
        decide = [deciders[s] for s in seat_of_pos]
        text = CardsText(state)
        boards = text.boards
        # what each position's line shows of the cards while the hand runs: its own hole cards, the board so far
        heads = [state_head(p, h) for p in range(n)]
        own = [text.holes((p,)) for p in range(n)]
        masked: list[list[tuple[int, ...]] | None] = [None] * n  # State.visible_holes, asked at a first turn
        hole, board = state.hole, state.board
        seen_round = -1
        seen_board = board
        betting = format_betting(state) if state.num_actions else ""  # resuming inside a hand
        clock = progress.clock
        fix = state.fix
        apply = state.apply_unchecked
        try:
            while not state.finished:
                acting = state.current_player
                round_ = state.round
                if round_ != seen_round:
                    seen_round = round_
                    seen_board = state.visible_board()
                asked = state_line(heads[acting], betting, own[acting] + boards[round_])
                seen = masked[acting]
                if seen is None:
                    seen = masked[acting] = state.visible_holes(acting)
                state.swap_cards(seen, seen_board)
                send_us = time_ns() // 1000  # logs.now_us, the call spared
                action = decide[acting](asked, state, acting, betting)
                recv_us = time_ns() // 1000
                state.swap_cards(hole, board)
                seat = seat_of_pos[acting]
                # a call is always what it says (as in Match._ask); anything else the engine judges
                fixed, warnings = (action, ()) if action is CALL else fix(action)
                if warnings:
                    # never from a client that asks the engine first; the general reading says what is wrong
                    seats[seat].put_line(self._reply_line(asked, action))
                    fixed, _, _ = self._ask(seat, acting, state, asked, send_us)
                else:
                    broken = clock.charge(seat, send_us, recv_us)
                    if broken is not None:
                        raise MatchAborted(f"ERROR: seat {seat + 1} ran out of time",
                                           self._limit_text(seat, h, broken))
                apply(fixed)
                betting += action_text(fixed, nolimit)
                if state.round != round_:
                    betting += rounds_ended(state.round - round_)
        except BaseException:
            state.swap_cards(hole, board)
            self._write_log()
            raise
        pending = self._pending
        pending.append(finish_hand(config, progress, state, betting, text.field(state, None), self._names[h % n]))
        if len(pending) >= LOG_BATCH or progress.state is None:
            self._write_log()
        if h % 100 == 0:
            for s, used in enumerate(clock.used_match):
                self.transcript.info(f"Seconds cumulatively spent in match for seat {s}: {used // 1_000_000}")
