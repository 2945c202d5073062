"""The in-memory transport: the dealer's match loop talking to in-process clients, no sockets.

Each seat is an :class:`acpcbot.client.Client` (the very object the TCP
client drives, so strategies see the same View objects and replies are
corrected the same way) behind a :class:`MemorySeat`, the
``dealer.seats.SeatChannel`` of this transport.  A line the dealer sends is
handled at once and the client's reply queued for the dealer to take, so a
match is one loop on one core: same deals, same decisions, same log bytes
as over TCP, many times faster.

The match's hands are at hand when it ends: :func:`play_job` leaves them
(the final states, as the log would give them back) for the run's analysis
in this process (:func:`take_hands`), which then need not read the log it
just wrote; a match played in a pool worker, over TCP, cut short or whose
log could not be written is read from its log as before.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from acpcbot.client import EXIT_PROTOCOL, Client, ClientError
from acpcbot.engine import Action, State
from acpcbot.framing import LineFramer
from acpcbot.gamedef import GameDef, load_game
from acpcbot.matchlog import LoggedHand, MatchLog, format_values
from acpcbot.playedfile import PlayedRowsWriter
from acpcbot.protocol import VERSION_LINE, MatchState
from acpcbot.strategies.base import Strategy
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo
from dealer.config import NO_CLOCK_MS, MatchConfig
from dealer.logs import LogWriter, Transcript
from dealer.progress import MatchProgress, names_by_position
from dealer.resume import MatchFiles
from dealer.seats import Idle, SeatChannel, SeatClosed

from .folders import Outcome, add_played_rows, played_rows_name
from .fused import FusedMatch
from .recipes import Job, strategy_seed

log = logging.getLogger(__name__)

_VERSION = VERSION_LINE.encode("ascii")


def is_lean(client: Client) -> bool:
    """Whether the seat may be asked for its turns only (``Client.decide_state``): no other state, no World.

    So it may when its strategy's ``run_mode`` is inline and sees its turns
    only (``RunMode("inline", "turns")``), and no history file is kept:
    nothing but its turns then changes what it does.
    """
    mode = client.strategy.run_mode
    return mode.inline and mode.turns_only and client.history is None


class MemorySeat(SeatChannel):
    """One seat played by an in-process client: a state given to it is decided on at once.

    The client gets the viewer's share of the dealer's state together with
    its line (no parsing) and hands back its action, which the match reads
    as it would read the reply line (``take_action``).
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        # a strategy that only acts needs its turns and the ends of hands, nothing between
        self._every_state = self.wants_every_state = client.needs_every_state
        #: ... and one that keeps no history its turns only: no view of the others' states, no World update
        self.lean = is_lean(client)
        self._replies: deque[bytes] = deque([_VERSION])
        self._framer = LineFramer()
        self._action: Action | None = None
        self.error: str | None = None
        self.closed = False

    takes_states = True

    def send_state(self, line: str, state: State, viewer: int, betting: str) -> None:
        """Hand the client the viewer's share of the dealer's state: the line needs no parsing."""
        if self.closed:
            raise SeatClosed
        if not state.finished and viewer != state.current_player and not self._every_state:
            return
        if self.lean:
            if viewer == state.current_player:  # never at a hand's end: nobody acts then
                self._action = self.client.decide_state(line, state.view_of(viewer), viewer, betting)
            return
        try:
            action = self.client.decide(line, parsed=MatchState(viewer, state.hand_id, state.view_of(viewer), betting))
        except ClientError as exc:
            # the TCP client would exit here: the seat is gone
            self.error = str(exc)
            self.closed = True
            raise SeatClosed from None
        if action is not None:
            self._action = action

    def take_action(self) -> Action | None:
        """The client's answer to the state it was just given."""
        action, self._action = self._action, None
        return action

    def put_line(self, line: bytes) -> None:
        """Read ``line`` next, as if the client had sent it."""
        self._replies.appendleft(line)

    def send(self, line: bytes) -> None:
        """Give the line (or lines) to the client now and keep its replies."""
        if self.closed:
            raise SeatClosed
        client = self.client
        handle, decode = client.handle_line, client.decode_line
        framer = self._framer
        try:
            for raw in framer.feed(line):  # framed as over TCP (acpcbot.framing)
                reply = handle(decode(raw))
                if reply is not None:
                    self._replies.append(reply.encode("ascii"))
            if framer.overlong is not None:
                raise ClientError(framer.overlong, EXIT_PROTOCOL)
        except ClientError as exc:
            # the TCP client would exit here: the seat is gone
            self.error = str(exc)
            self.closed = True
            raise SeatClosed from None

    def drain(self, deadline: float, idle: Idle | None = None) -> None:
        """Nothing piles up in memory."""

    def take_line(self) -> bytes | None:
        """The client's next reply, if it gave one."""
        return self._replies.popleft() if self._replies else None

    def read_line(self, deadline: float, idle: Idle | None = None) -> bytes:
        """A reply that is not there will never come: the seat counts as gone."""
        line = self.take_line()
        if line is None:
            raise SeatClosed
        return line

    def close(self) -> None:
        """End the seat's match (the strategy's ``end_match`` is called by the runner)."""
        self.closed = True


@dataclass
class MemoryMatch:
    """How an in-memory match went: finished or not, why not, and each seat's client (corrections, fallbacks...)."""

    finished: bool
    error: str | None
    clients: list[Client]
    #: every state the match dealt, each played in place to its hand's end (the last may be unfinished)
    dealt: list[State] = field(default_factory=list)
    config: MatchConfig | None = None

    @property
    def hands(self) -> list[LoggedHand] | None:
        """The hands played, as reading the log back would give them; None when the match did not finish."""
        if not self.finished or self.config is None:
            return None
        return _logged_hands(self.config, self.dealt)


class _HoldingProgress(MatchProgress):
    """The match's progress, keeping every state it deals (each is played in place to the hand's end)."""

    def deal(self, config: MatchConfig, hand_id: int) -> None:
        """Deal as ``MatchProgress`` does, and keep the state."""
        super().deal(config, hand_id)
        if self.state is not None:
            self.__dict__.setdefault("dealt", []).append(self.state)


def _logged_hands(config: MatchConfig, dealt: Sequence[State]) -> list[LoggedHand]:
    """The finished hands of ``dealt`` as ``matchlog.read_match_log`` returns them: the board shown up to the
    hand's last round, the values as written.

    The states themselves are handed over (the match is over: nobody plays them again), their boards cut to
    what the log shows; hands with the same payoffs share their values' texts, and hands of one rotation
    their names (both as the log spells them).
    """
    game = config.game
    n = game.num_players
    through = [game.board_cards_through(r) for r in range(game.num_rounds)]
    names = [names_by_position(config, h) for h in range(n)]  # the seats rotate with the hand number, period n
    out = []
    texts: dict[tuple[float, ...], list[str]] = {}  # a match's payoffs repeat: each written once
    for state in dealt:
        if not state.finished:
            break
        shown = through[state.round]
        if len(state.board) > shown:
            state.swap_cards(state.hole, state.board[:shown])  # the log shows the board of the round it ended in
        payoffs = tuple(state.payoffs())
        text = texts.get(payoffs)
        if text is None:
            text = format_values(payoffs).split("|")
            if 0.0 not in payoffs:  # 0.0 and -0.0 are one key but two texts: never remembered
                texts[payoffs] = text
        h = state.hand_id
        out.append(LoggedHand(h, state, text, names[h % n]))
    return out


#: in-memory matches played in this process that finished, by log path, until the analysis takes their hands
_HELD: dict[str, MemoryMatch] = {}


def take_hands(log_path: str | Path, game: GameDef) -> MatchLog | None:
    """The hands of the in-memory match of ``log_path`` played in this process, as its log holds them (once)."""
    held = _HELD.pop(str(Path(log_path).absolute()), None)
    if held is None or held.config is None or held.config.game != game:
        return None
    hands = held.hands
    if hands is None or len(hands) != held.config.num_hands:
        return None
    return MatchLog(game, hands, path=str(log_path))


def seat_players(config: MatchConfig, seats: Sequence[tuple[str, str]],
                 time_per_hand: float = 7.0) -> Iterator[tuple[Strategy, MatchInfo]]:
    """The strategy of each seat (seeded from the match seed and its name, as over TCP) and what it is told.

    Made one seat at a time, so a seat that fails to start comes after the earlier ones started.
    """
    game = config.game
    for seat, (name, spec) in enumerate(seats):
        seed = strategy_seed(config.seed, name)
        strategy = create(spec, game, seed)
        opponents = tuple(n for s, (n, _) in enumerate(seats) if s != seat)
        yield strategy, MatchInfo(game=game, name=name, seed=seed, time_per_hand=time_per_hand,
                                  opponents=opponents, spec=strategy.spec)


def play_match(config: MatchConfig, seats: Sequence[tuple[str, str]], log_path: str | Path,
               transcript_path: str | Path | None = None, time_per_hand: float = 7.0,
               players: Iterable[tuple[Strategy, MatchInfo]] | None = None,
               played_dir: str | Path | None = None, stop: threading.Event | None = None) -> MemoryMatch:
    """Play one match in memory; ``seats`` are (name, strategy spec) in seat order.

    ``players`` gives each seat's strategy and match info ready made
    (default: :func:`seat_players`).  Writes the dealer log to ``log_path``
    (the transcript, problems and score only, to ``transcript_path``);
    with ``played_dir``, the rows each seat played from there too
    (``folders.played_rows_name``), for the strategies that give them.
    ``stop``, once set, ends the match before its next hand.
    """
    clients: list[Client] = []
    channels: list[MemorySeat] = []
    # a file that cannot be written (disk full, file-size limit) does not stop the match, as over TCP:
    # it keeps its whole lines, the failure is said once (in the transcript too) and the match is not finished
    failures: list[str] = []
    transcript: Transcript | None = None

    def report(text: str) -> None:
        failures.append(text)
        if transcript is not None and transcript.failed is None:
            transcript.problem(text)
            transcript.flush()

    try:
        for strategy, info in (players if players is not None else seat_players(config, seats, time_per_hand)):
            strategy.start_match(info)
            played = None
            if played_dir is not None and strategy.keeps_played_rows:
                played = PlayedRowsWriter(Path(played_dir) / played_rows_name(config.match_name, len(clients) + 1,
                                                                              info.name))
            clients.append(Client(strategy, info, played=played))
        target = Path(transcript_path) if transcript_path is not None else Path(os.devnull)
        stream = open(target, "wb")
        try:
            transcript = Transcript(stream, quiet=True, name=target.name)
            transcript.on_failure = failures.append
            progress = _HoldingProgress.fresh(config)
            files = MatchFiles(LogWriter(log_path, on_failure=report), None, progress)
            channels = [MemorySeat(c) for c in clients]
            result = FusedMatch(config, transcript, files, stop=stop).run(channels)
            transcript.flush()
        finally:
            stream.close()
    finally:
        # every strategy that started ends its match, also when a later seat failed to start
        for c in clients:
            try:
                c.strategy.end_match()
            except Exception:  # noqa: BLE001 - a strategy failing at the end must not lose the match
                log.exception("strategy %s failed in end_match", c.strategy.spec)
            if c.played is not None:
                c.played.close()
    errors = [f"seat {s + 1} ({seats[s][0]}): {ch.error}" for s, ch in enumerate(channels) if ch.error]
    problems = ([result.error] if result.error else []) + errors + failures
    finished = result.finished and not failures
    return MemoryMatch(finished, "; ".join(problems) or None, clients, progress.__dict__.get("dealt", []), config)


class _LineHandler(logging.Handler):
    """Log records as whole lines of a file; a write that fails is reported once (``LogWriter``), never a traceback."""

    def __init__(self, path: Path, on_failure: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.sink = LogWriter(path, on_failure=on_failure)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # noqa: BLE001 - logging's own way for a record that cannot be formatted
            self.handleError(record)
            return
        self.sink.write_lines([text])

    def close(self) -> None:
        self.sink.close()
        super().close()


#: how a job's seats are made, when not as :func:`seat_players` makes them: each seat's strategy and match
#: info, and a step to take once the match is played (its warnings go to the job's file); ``lbr_seats`` has one
Seating = Callable[[Job, GameDef], tuple[list[tuple[Strategy, MatchInfo]], Callable[[], None]]]


def play_job(job: Job, game_arg: str, run_dir: str, seating: Seating | None = None, clocked: bool = True,
             stop: threading.Event | None = None) -> Outcome:
    """Play one runner job in memory into ``run_dir`` (the runner's executor calls this, maybe in another process).

    ``seating`` makes the seats (default: :func:`seat_players`).  The
    seats' warnings go to the job's ``.clients.err``; a write to it that
    fails is reported in the outcome, which is then not complete.
    ``clocked`` False: the dealer times no seat (``NO_CLOCK_MS``; the
    seats still pace themselves by the usual 7 s a hand).  ``stop``, once set, ends the match before its
    next hand (the runner's thread, interrupted).
    """
    start = time.monotonic()
    game = load_game(game_arg)
    names = [e.name for e in job.seats]
    config = MatchConfig(match_name=job.label, game=game, game_arg=game_arg, num_hands=job.hands, seed=job.seed,
                         names=names, quiet=True)
    if not clocked:
        config.t_response = config.t_hand = config.t_per_hand = NO_CLOCK_MS
    folder = Path(run_dir)
    files = {"log": f"{job.label}.log", "transcript": f"{job.label}.err", "clients": f"{job.label}.clients.err"}
    failures: list[str] = []
    handler = _LineHandler(folder / files["clients"], failures.append)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("acpcbot")
    root.addHandler(handler)
    saved = root.propagate
    root.propagate = False  # the seats' warnings go to the run folder, not the terminal
    try:
        seats = [(e.name, e.strategy or "") for e in job.seats]
        players, after = seating(job, game) if seating is not None else (None, None)
        played = play_match(config, seats, folder / files["log"], folder / files["transcript"], players=players,
                            played_dir=folder, stop=stop)
        finished, error = played.finished, played.error
        if after is not None:
            after()
        if played.finished and multiprocessing.parent_process() is None:
            # played in the run's own process (a pool worker's hands could not reach its analysis)
            _HELD[str((folder / files["log"]).absolute())] = played
    except Exception as exc:  # noqa: BLE001 - one broken match must not lose the others
        finished, error = False, f"{type(exc).__name__}: {exc}"
    finally:
        root.removeHandler(handler)
        root.propagate = saved
        handler.close()
    if failures:  # the seats' warnings could not all be kept
        finished, error = False, "; ".join(([error] if error else []) + failures)
    warnings = folder / files["clients"]
    if not warnings.is_file() or warnings.stat().st_size == 0:
        warnings.unlink(missing_ok=True)
        del files["clients"]
    add_played_rows(files, folder, job)
    return Outcome(job, finished, error, files, time.monotonic() - start)
