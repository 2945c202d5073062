"""The match loop: deal, send every seat its view, ask the player to act, validate, log.

The loop is independent of sockets: it talks to each seat through a
:class:`SeatChannel` (``server.TcpSeat`` over TCP; the arena's in-memory
transport implements the same few methods).  Everything a player sees and
every file written follow the reference dealer (project_acpc_server
1.0.42), including how it treats bad replies:

* ``#`` and ``;`` lines are skipped;
* every other line is judged by ``replies.interpret_reply``: a bad or
  un-requested state is dropped with a warning, a bad action becomes a call.

With ``strict`` the first such reply ends the match instead.  Time is
charged per line as the reference does (every non-comment line, also an
ignored one, from the request's send time); unlike the reference a read
never waits past the tightest limit left (response, hand or match budget),
and comments, which the reference never charges, cannot hold the match
either: a comment arriving later than that limit ends the match as a
time-out.

The loop is synchronous, as the reference's: it blocks on the acting
seat's reply, and the transport runs the match's two timers meanwhile
(:class:`dealer.seats.Idle`): the transcript is written out at most 50 ms
after a wait starts, and views held back (below) go out.

What a seat does not have to answer may wait a moment: a seat's views are
written when it is asked to act, joined with the views it has not been
sent yet, and every view waits at most :data:`HOLD_S` once the match waits
for a reply, so a player watching the table sees each state within
milliseconds while fast players exchange one write per action instead of
one per seat and state (``dealer.held``).  The transcript lists every line in the
reference's order whatever the moment it leaves.  Reading a seat's lines
is ``dealer.asking``'s; every line's text is ``acpcbot.notation``'s.
"""

from __future__ import annotations

import math
import time
from typing import Sequence

from acpcbot.engine import State
from acpcbot.evaluator.ranking import prepare as prepare_ranking
from acpcbot.notation.actions import action_text
from acpcbot.notation.betting import format_betting, rounds_ended
from acpcbot.notation.cardsfield import CardsText
from acpcbot.notation.loglines import format_score_line, transaction_state
from acpcbot.notation.matchstate import state_head, state_line
from acpcbot.notation.transcript import finished_line, started_line

from .aborted import MatchAborted
from .asking import ReplyReading
from .config import MatchConfig
from .held import FLUSH_S, HOLD_S
from .logs import Transcript, now_us
from .progress import MatchProgress, MatchResult, book_hand, next_hand
from .resume import MatchFiles
from .seats import SeatChannel, SeatClosed

# this module's API: what a match raises, holds and returns
__all__ = ["FLUSH_S", "HOLD_S", "Match", "MatchAborted", "MatchResult"]

#: distinct ends of hands a match remembers (see Match._play_hand), when its game has at most _ENDS_DEALS deals
#: (then each deal's card texts are kept too)
_ENDS_MAX = 1 << 12
_ENDS_DEALS = 1000


class Match(ReplyReading):
    """One match between seats; :meth:`run` plays it to the end or to the first fatal problem."""

    def __init__(self, config: MatchConfig, transcript: Transcript, files: MatchFiles | None = None) -> None:
        self.config = config
        self.transcript = transcript
        if files is None:
            files = MatchFiles(None, None, MatchProgress.fresh(config))
        self.files = files
        self.progress = files.progress
        self._seats: Sequence[SeatChannel] = ()
        self._header_done = False
        # Views not sent yet, per seat (see the module's docstring), and since when the oldest waits.
        self._held: list[bytes] = []
        self._held_since: float | None = None
        # the hand finished last, booked (totals, log line) once the next hand's first request is out (_book)
        self._booking: tuple | None = None
        # the next hand dealt ahead and its texts (_texts_of), made while a player thinks
        self._ahead: tuple[State, tuple[CardsText, list[str], list[str]]] | None = None
        # the timers a blocked read runs (time.monotonic() values; None: not set)
        self._hold_due: float | None = None
        self._flush_due: float | None = None
        # by hand number modulo the players: the seats' positions and who gets which state (_rotation)
        self._rotations: dict[int, tuple[list[int], list[int], list[bool], list[list[int]]]] = {}
        n = config.game.num_players
        self._nolimit = config.game.is_nolimit
        # hands' ends met so far, by betting and cards: (payoffs by position, each position's final cards field),
        # and the card texts of each deal: only a deck of a few cards meets the same deals and ends again
        game = config.game
        dealt = n * game.num_hole_cards + game.total_board_cards
        few = math.perm(game.num_ranks * game.num_suits, dealt) <= _ENDS_DEALS
        self._ends: dict[tuple[str, str], tuple[tuple[float, ...], list[str]]] | None = {} if few else None
        self._texts: dict[tuple, CardsText] | None = {} if few else None
        if config.game.ranking is None:
            prepare_ranking(config.game.num_hole_cards + config.game.total_board_cards)  # not on the match's clock
        # the log's names field for each rotation of the seats
        self._names = ["|".join(config.names[config.seat_of(h, p)] for p in range(n)) for h in range(n)]

    # -------------------------------------------------------------- outline

    def write_header(self) -> None:
        """The header to the transcript and (unless already there) to the log; the server calls it before accepting."""
        if self._header_done:
            return
        self._header_done = True
        lines = self.config.header_lines()
        for line in lines:
            self.transcript.info(line)
        if self.files.log is not None and not self.files.header_written:
            self.files.log.write_lines(lines)
            self.files.header_written = True
        self.transcript.flush()

    def run(self, seats: Sequence[SeatChannel]) -> MatchResult:
        """Check versions, play every remaining hand, print FINISHED and SCORE; never raises for a player's fault."""
        config = self.config
        if len(seats) != config.game.num_players:
            raise ValueError(f"{len(seats)} seats for a {config.game.num_players}-player game")
        self._seats = seats
        self._rotations = {}
        self._held = [b""] * len(seats)
        self.write_header()
        tr = self.transcript
        progress = self.progress
        error = score = None
        try:
            try:
                self._check_versions()
                tr.info(started_line(now_us()))
                play_hand = self._play_hand
                while progress.state is not None:
                    play_hand()
                self._book()
                self._send_held("before the end of the match")
            except MatchAborted as exc:
                error = str(exc)
                for line in exc.lines:
                    tr.problem(line)
            if error is None:
                tr.info(finished_line(now_us()))
                score = format_score_line(progress.totals, config.names)
                tr.score(score)
                if self.files.log is not None and not self.files.score_written:
                    self.files.log.write_lines([score])
        finally:
            self._book()  # a hand finished before the match stopped is booked, as if the next had not begun
            self._flush_due = self._hold_due = None
            tr.flush()
            self.close()
        return MatchResult(progress.totals, progress.next_hand, score, error)

    def close(self) -> None:
        """Close the files and the seats."""
        for f in (self.files.log, self.files.tlog):
            if f is not None:
                f.close()
        for seat in self._seats:
            seat.close()

    # -------------------------------------------------------------- steps

    def _play_hand(self) -> None:
        """Play the pending hand to its end, hold the final views and deal the next one; it is booked later.

        Each state goes first to the seat that must act; what the player does
        not wait for (the other seats' views, the transcript, the reply's
        FROM line, the last hand's payoffs and log line, dealing the next
        hand) is done while it thinks.
        """
        config = self.config
        progress = self.progress
        state = progress.state
        assert state is not None
        n = config.game.num_players
        h = state.hand_id
        seats = self._seats
        tr = self.transcript
        send_all = None if tr.quiet else tr.sent_all
        received = None if tr.quiet else tr.received
        pos_of_seat, seat_of_pos, takes_states, others = self._rotation(h)
        # the transcript lists every seat's view: only in-process seats may be missing from the views held
        fill = send_all is not None and True in takes_states
        ahead = self._ahead
        self._ahead = None
        text, heads, own = ahead[1] if ahead is not None and ahead[0] is state else self._texts_of(state, pos_of_seat)
        ahead_due = True  # the next hand is dealt once this one's first request is out
        boards = text.boards
        # not empty only when resuming inside a hand (or for a hand that starts finished)
        betting = format_betting(state) if state.round or state.actions[0] else ""
        tlog = self.files.tlog
        held = self._held
        ask = self._ask
        nolimit = self._nolimit
        unlogged = None  # the last reply, when its FROM line is still to be written
        while not state.finished:
            acting = state.current_player
            round_ = state.round
            s_act = seat_of_pos[acting]
            board = boards[round_]
            asked = state_line(heads[s_act], betting, own[s_act] + board)
            channel = seats[s_act]
            try:
                if takes_states[s_act]:
                    # an in-process player decides within send_state: its time counts from before it, as over TCP
                    send_us = now_us()
                    asked_b = b""
                    channel.send_state(asked, state, acting, betting)
                else:
                    asked_b = f"{asked}\r\n".encode()
                    if held[s_act]:
                        channel.send(held[s_act] + asked_b)
                        held[s_act] = b""
                    else:
                        channel.send(asked_b)
                    send_us = now_us()
            except SeatClosed:
                if unlogged is not None:
                    received(*unlogged)  # type: ignore[misc]
                raise self._send_failed(s_act, f"in hand {h}") from None
            # the player thinks: the rest of this state's work
            if unlogged is not None:
                received(*unlogged)  # type: ignore[misc]
                unlogged = None
            if self._booking is not None:
                self._book()
            if ahead_due:
                ahead_due = False
                nxt = progress.deal_ahead(config, h + 1)
                if nxt is not None:
                    self._ahead = (nxt, self._texts_of(nxt, self._rotation(h + 1)[0]))
            sent = [b""] * n  # each seat's line, for the transcript
            sent[s_act] = asked_b
            for s in others[s_act]:
                if takes_states[s]:
                    try:
                        seats[s].send_state(state_line(heads[s], betting, own[s] + board), state, pos_of_seat[s],
                                            betting)
                    except SeatClosed:
                        raise self._send_failed(s, f"in hand {h}") from None
                else:
                    data_b = sent[s] = f"{state_line(heads[s], betting, own[s] + board)}\r\n".encode()
                    if self._held_since is None:
                        self._held_since = time.monotonic()
                    held[s] += data_b
            if send_all is not None:
                if fill:
                    for s in range(n):
                        if not sent[s]:
                            sent[s] = f"{state_line(heads[s], betting, own[s] + board)}\r\n".encode()
                send_all(sent, send_us)
            for c in seats:
                if c.congested:
                    self._drain(h)
                    break
            action, recv_us, line = ask(s_act, acting, state, asked, send_us)
            if line is not None and received is not None:
                unlogged = (s_act, line, recv_us)
            act_text = action_text(action, nolimit)
            if tlog is not None:
                tlog.record(transaction_state(h, betting, text.field(state, None)), act_text, send_us, recv_us)
            state.apply_unchecked(action)  # legal: the reply's action as State.fix gives it
            betting += act_text
            if state.round != round_:
                betting += rounds_ended(state.round - round_)
        if unlogged is not None:
            received(*unlogged)  # type: ignore[misc]
        if self._booking is not None:
            self._book()  # a hand that started finished: the one before it first
        cards = text.field(state, None)
        # the betting and every card (through the last round played) fix a hand's end: with a deck of a few
        # cards the same ends come again, their payoffs and views worked out once
        ends = self._ends
        end = ends.get((betting, cards)) if ends is not None else None
        views = end[1] if end is not None else [text.field(state, p) for p in range(n)]
        # the next hand is dealt now and its first request goes out before this one's payoffs and log line
        # (_book): a fast player waits for what it is sent, not for the books
        self._booking = (state, betting, cards, end, views, seat_of_pos)
        next_hand(config, progress, h)
        stamp = now_us()
        sent = []
        for s in range(n):
            data = state_line(heads[s], betting, views[pos_of_seat[s]])
            data_b = f"{data}\r\n".encode()
            sent.append(data_b)
            if takes_states[s]:
                try:
                    seats[s].send_state(data, state, pos_of_seat[s], betting)
                except SeatClosed:
                    raise self._send_failed(s, f"in hand {h}") from None
            else:
                # the seat gets it with its first view of the next hand (or when the hold ends)
                if self._held_since is None:
                    self._held_since = time.monotonic()
                held[s] += data_b
        if send_all is not None:
            send_all(sent, stamp)
        if h % 100 == 0:
            for s, used in enumerate(progress.clock.used_match):
                tr.info(f"Seconds cumulatively spent in match for seat {s}: {used // 1_000_000}")

    def _texts_of(self, state: State, pos_of_seat: Sequence[int]) -> tuple[CardsText, list[str], list[str]]:
        """A hand's card texts, and each seat's line head and own hole cards (as its lines show them while it runs)."""
        h = state.hand_id
        n = len(pos_of_seat)
        heads = [state_head(pos_of_seat[s], h) for s in range(n)]
        texts = self._texts
        text = None
        if texts is not None:
            deal = (*state.hole, *state.board)
            text = texts.get(deal)
        if text is None:
            text = CardsText(state)
            if texts is not None:
                texts[deal] = text
        # while the hand runs a position sees its own hole cards only
        return text, heads, [text.holes((pos_of_seat[s],)) for s in range(n)]

    def _book(self) -> None:
        """Book the finished hand waiting in ``_booking``: the match's totals and the hand's log line."""
        booking = self._booking
        if booking is None:
            return
        self._booking = None
        state, betting, cards, end, views, seat_of_pos = booking
        if end is None:
            end = (tuple(state.payoffs()), views)
            ends = self._ends
            if ends is not None and len(ends) < _ENDS_MAX:
                ends[(betting, cards)] = end
        h = state.hand_id
        line = book_hand(self.config, self.progress, state, betting, cards, self._names[h % len(self._names)],
                         seat_of_pos, end[0])
        if self.files.log is not None:
            self.files.log.write_lines([line])

    def _rotation(self, hand_id: int) -> tuple[list[int], list[int], list[bool], list[list[int]]]:
        """Each seat's position and each position's seat in ``hand_id``, which seats take states, and the seats
        each acting seat's state also goes to (not in-process players that only act): the same every N hands,
        so kept by the hand number modulo N."""
        seats = self._seats
        n = len(seats)
        got = self._rotations.get(hand_id % n)
        if got is not None:
            return got
        config = self.config
        takes_states = [channel.takes_states for channel in seats]
        others = [[t for t in range(n) if t != s and (seats[t].wants_every_state or not takes_states[t])]
                  for s in range(n)]
        got = self._rotations[hand_id % n] = ([config.position_of(hand_id, s) for s in range(n)],
                                               [config.seat_of(hand_id, p) for p in range(n)], takes_states, others)
        return got
