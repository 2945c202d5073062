"""The dealer's TCP side: one listening port per seat, one player per port, bounded per-seat line reading.

``TcpSeat`` is the :class:`dealer.seats.SeatChannel` over a non-blocking
socket: the match writes and then blocks in ``poll`` on the seat it waits
for, as the reference does with ``select``, running the match's timers
meanwhile; a fast player's reply is first looked for a moment without
sleeping, while the machine has a processor to spare (``TcpSeat._spin``).  Input is read only while a line is wanted, so a flooding
player is held back by TCP itself, and lines are split as the reference's
4096-byte read buffer splits them.  ``serve_match`` accepts the players
in an event loop and plays the match on a thread of its own, so that the
loop stays free (tests run players in it).
"""

from __future__ import annotations

import asyncio
import os
import select
import socket
import threading
import time
from collections import deque
from typing import Any, BinaryIO, Sequence, TextIO

from .config import MatchConfig
from .logs import Transcript
from .match import Match, MatchResult
from .resume import MatchFiles
from .seats import MAX_LINE, Idle, MatchInterrupted, SeatChannel, SeatClosed, SeatTimeout

#: Bytes asked of the socket per read.
RECV_SIZE = 1 << 16
#: Unsent output per seat beyond which the match waits for the player to read.
WRITE_HIGH_WATER = 1 << 20
#: How long closing a seat may wait for its last output to leave (seconds).
CLOSE_WAIT_S = 1.0
#: How long a read looks for a fast player's reply before it sleeps (seconds; the dealer's --spin_us); see
#: TcpSeat.read_line.
SPIN_S = MatchConfig.spin_us / 1e6
#: Replies in a row that came too late for the look, after which a seat's reads sleep at once ...
SPIN_MISSES = 8
#: ... but for one read in this many, which looks again (the player may have become fast).
SPIN_PROBE = 64
#: How often the machine's count of running tasks is sampled to decide whether looking is worth it (seconds).
SPARE_EVERY_S = 0.002

_IN, _OUT = select.POLLIN, select.POLLOUT


class SpareProcessor:
    """Whether the machine has a processor to spare, so that a read looking for a reply takes nobody's time.

    The running tasks (``/proc/loadavg``; the caller is one of them) are
    sampled at most every SPARE_EVERY_S and averaged over about eight
    samples: a processor is spare while that stays below the processors
    this process may use plus one (a match's dealer and the player it
    waits for).  Where the count cannot be read there is none to spare.
    """

    def __init__(self, path: str = "/proc/loadavg") -> None:
        self.path = path
        self._fd = -2  # not opened yet; -1: cannot be read
        self._next = 0.0
        self._ok = False
        try:
            self.cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self.cpus = os.cpu_count() or 1
        self._mean = float(self.cpus + 1)

    def __call__(self, now: float) -> bool:
        """The verdict at ``now`` (a ``time.monotonic()`` value), sampled again when the last one is old."""
        if now < self._next:
            return self._ok
        self._next = now + SPARE_EVERY_S
        if self._fd == -2:
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except OSError:
                fd = -1
            if self._fd == -2:
                self._fd = fd
            elif fd >= 0:
                os.close(fd)  # another match's thread opened it meanwhile
        if self._fd < 0:
            return False
        try:
            running = int(os.pread(self._fd, 128, 0).split()[3].split(b"/")[0])
        except (OSError, ValueError, IndexError):
            return self._ok
        self._mean += (running - self._mean) / 8
        self._ok = self._mean < self.cpus + 1
        return self._ok


#: the one sampler of the process's seats
spare_processor = SpareProcessor()


class TcpSeat(SeatChannel):
    """One seat's TCP connection (a connected socket, made non-blocking)."""

    def __init__(self, sock: socket.socket, interrupt_fd: int = -1, spin_s: float = SPIN_S) -> None:
        sock.setblocking(False)
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._fd = sock.fileno()
        self._buf = bytearray()
        self._lines: deque[bytes] = deque()  # lines split off the buffer, not taken yet
        self._out = bytearray()
        self._eof = False
        self._gone = False
        self._closed = False
        self.congested = False
        self.spin_s = spin_s  # how long a read looks for the reply before it sleeps (0: it sleeps at once)
        self._misses = 0  # replies in a row the look before sleeping missed (see read_line)
        self._skipped = 0  # reads that slept at once since the last look
        self._poll = select.poll()
        self._mask = _IN
        self._poll.register(self._fd, _IN)
        self._interrupt = -1
        if interrupt_fd >= 0:
            self.set_interrupt(interrupt_fd)

    def set_interrupt(self, fd: int) -> None:
        """A descriptor that, once readable, stops any wait with MatchInterrupted (a pipe another thread writes)."""
        self._interrupt = fd
        self._poll.register(fd, _IN)

    # --------------------------------------------------------- SeatChannel

    def send(self, line: bytes) -> None:
        """Write what the socket takes now and keep the rest; SeatClosed once the connection is known to be gone."""
        if self._gone or self._closed:
            raise SeatClosed
        if self._out:
            self._out += line
            self._flush_out()
            if self._gone:
                raise SeatClosed
            return
        try:
            n = self.sock.send(line)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError:
            self._gone = True
            raise SeatClosed from None
        if n < len(line):
            self._out += line[n:]
            self.congested = len(self._out) > WRITE_HIGH_WATER

    def _flush_out(self) -> None:
        out = self._out
        try:
            n = self.sock.send(out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._gone = True
            self.congested = False
            out.clear()
            return
        del out[:n]
        self.congested = len(out) > WRITE_HIGH_WATER

    def _recv(self) -> bytes:
        """What one read gives: empty when nothing is there yet, or at the end (which sets ``_eof``)."""
        try:
            data = self.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError:
            self._eof = self._gone = True  # reset by the peer
            return b""
        if not data:
            self._eof = True
        return data

    def _read_some(self) -> None:
        self._buf += self._recv()

    def take_line(self) -> bytes | None:
        """A complete line (or a MAX_LINE piece of a longer one) already received, else None."""
        lines = self._lines
        if lines:
            return lines.popleft()
        buf = self._buf
        size = len(buf)
        if size < MAX_LINE:
            end = buf.find(b"\n")
            if end < 0:
                return None
            if end == size - 1:
                # the usual case: one whole reply
                line = bytes(buf)
                buf.clear()
                return line
        # split all that arrived at once: a flood of lines costs one split, not one search each
        parts = bytes(buf).split(b"\n")
        rest = parts.pop()
        for part in parts:
            line = part + b"\n"
            while len(line) > MAX_LINE:
                lines.append(line[:MAX_LINE])
                line = line[MAX_LINE:]
            lines.append(line)
        while len(rest) >= MAX_LINE:
            lines.append(rest[:MAX_LINE])
            rest = rest[MAX_LINE:]
        self._buf = bytearray(rest)
        return lines.popleft()

    @property
    def buffered(self) -> int:
        """Bytes received and not taken yet."""
        return len(self._buf) + sum(len(line) for line in self._lines)

    def read_line(self, deadline: float, idle: Idle | None = None) -> bytes:
        """The next line, blocking until ``deadline``; a partial line at end of file is dropped."""
        if not (self._lines or self._buf or self._out or self._eof):
            # the usual case, a player answering its turn: one read holding exactly one reply, after a wait
            data = b""
            if self.spin_s > 0 and (self._misses < SPIN_MISSES or self._skipped >= SPIN_PROBE) and \
                    spare_processor(time.monotonic()):
                data = self._spin(deadline)
            else:
                self._skipped += 1
            if not data and not self._eof:
                self._wait(deadline, idle, _IN)
                data = self._recv()
            if data and len(data) <= MAX_LINE and data.find(b"\n") == len(data) - 1:
                return data
            self._buf += data
        while True:
            line = self.take_line()
            if line is not None:
                return line
            if self._eof:
                raise SeatClosed
            self._wait(deadline, idle, _IN | _OUT if self._out else _IN)
            if self._out:
                self._flush_out()
            self._read_some()

    def _spin(self, deadline: float) -> bytes:
        """What arrives within ``spin_s`` (never past ``deadline``), read without sleeping; empty when nothing did.

        A player that answers within microseconds is read as soon as its
        reply lands: sleeping in ``poll`` lets the processor idle, and on a
        virtual machine waking it again costs more than such a reply takes.
        A seat whose replies keep coming later than that is not looked for
        (SPIN_MISSES, SPIN_PROBE), so a slow player costs the match no
        processor time, and nobody looks while the machine has no processor
        to spare (:class:`SpareProcessor`): other matches' players need it.
        """
        self._skipped = 0
        clock = time.monotonic
        until = clock() + self.spin_s
        if until > deadline:
            until = deadline
        while True:
            data = self._recv()
            if data or self._eof:
                self._misses = 0
                return data
            if clock() >= until:
                self._misses += 1
                return b""

    def drain(self, deadline: float, idle: Idle | None = None) -> None:
        """Block until the unsent output falls below the high-water mark."""
        while self.congested:
            if self._gone:
                raise SeatClosed
            self._wait(deadline, idle, _OUT)
            self._flush_out()
        if self._gone:
            raise SeatClosed

    def _wait(self, deadline: float, idle: Idle | None, mask: int) -> None:
        """Block until the socket is ready for ``mask`` (or closed), running ``idle``'s timers; SeatTimeout at the deadline."""
        if mask != self._mask:
            self._poll.modify(self._fd, mask)
            self._mask = mask
        poll = self._poll.poll
        while True:
            now = time.monotonic()
            due = idle.next_due() if idle is not None else None
            if due is not None and due <= now:
                idle.fire(now)  # type: ignore[union-attr]
                continue
            until = deadline if due is None or deadline <= due else due
            events = poll(max(0.0, until - now) * 1000)
            if events:
                if self._interrupt >= 0:
                    for fd, _ in events:
                        if fd == self._interrupt:
                            raise MatchInterrupted
                return
            if until is deadline and time.monotonic() >= deadline:
                raise SeatTimeout

    def close(self) -> None:
        """Close the connection; output still queued here gets up to CLOSE_WAIT_S to leave."""
        if self._closed:
            return
        self._closed = True
        if self._out and not self._gone:
            give_up = time.monotonic() + CLOSE_WAIT_S
            while self._out and not self._gone:
                left = give_up - time.monotonic()
                if left <= 0:
                    break
                select.select([], [self._fd], [], left)
                self._flush_out()
        try:
            self.sock.close()
        except OSError:
            pass


class StartupError(Exception):
    """The match could not start (a port could not be opened, a seat did not connect)."""


def open_listeners(host: str, ports: Sequence[int]) -> list[socket.socket]:
    """One listening socket per seat on ``host``; port 0 picks a free one."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if not infos:
        raise StartupError(f"ERROR: cannot resolve host {host}")
    family, _, _, _, address = infos[0]
    listeners = []
    try:
        for seat, port in enumerate(ports):
            sock = socket.socket(family, socket.SOCK_STREAM)
            listeners.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((address[0], port) + tuple(address[2:]))
                sock.listen(1)
            except OSError as exc:
                raise StartupError(f"ERROR: could not open port {port} for seat {seat + 1} on {host}: "
                                   f"{exc.strerror or exc}") from None
            sock.setblocking(False)
    except BaseException:
        for sock in listeners:
            sock.close()
        raise
    return listeners


async def accept_seats(listeners: Sequence[socket.socket], start_timeout_ms: int,
                       spin_s: float = SPIN_S) -> list[TcpSeat]:
    """Accept one player per listening socket, seat by seat; each listener closes after its player.

    With ``start_timeout_ms >= 0`` all seats must connect within that time
    of the call, as the reference's ``--start_timeout``.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + start_timeout_ms / 1000 if start_timeout_ms >= 0 else None
    seats: list[TcpSeat] = []
    try:
        for seat, listener in enumerate(listeners):
            try:
                try:
                    conn, _ = listener.accept()  # a player already waiting counts even with no time left
                except BlockingIOError:
                    if deadline is None:
                        conn, _ = await loop.sock_accept(listener)
                    else:
                        conn, _ = await asyncio.wait_for(loop.sock_accept(listener), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                raise StartupError(f"ERROR: timed out waiting for seat {seat + 1} to connect") from None
            finally:
                listener.close()
            seats.append(TcpSeat(conn, spin_s=spin_s))
    except BaseException:
        for s in seats:
            s.close()
        for listener in listeners:
            listener.close()
        raise
    return seats


async def serve_match(config: MatchConfig, files: MatchFiles, transcript: Transcript, stdout: TextIO,
                      host: str = "127.0.0.1", ports: Sequence[int] | None = None) -> MatchResult | None:
    """Open the ports, print them, accept the players and play the match.

    Returns None when the match could not start (the error is in the
    transcript); otherwise the match's result, its SCORE line printed on
    ``stdout`` when it finished.
    """
    n = config.game.num_players
    ports = list(ports or []) + [0] * n
    match = Match(config, transcript, files)
    try:
        listeners = open_listeners(host, ports[:n])
    except (StartupError, OSError) as exc:
        transcript.problem(str(exc) if isinstance(exc, StartupError) else f"ERROR: cannot listen on {host}: {exc}")
        transcript.flush()
        match.close()
        return None
    _print(stdout, " ".join(str(s.getsockname()[1]) for s in listeners))
    match.write_header()
    try:
        seats = await accept_seats(listeners, config.start_timeout, config.spin_us / 1e6)
    except (StartupError, OSError) as exc:
        # an OSError here is the system refusing a connection (too many open files...)
        transcript.problem(str(exc) if isinstance(exc, StartupError) else f"ERROR: could not accept a player: {exc}")
        transcript.flush()
        match.close()
        return None
    result = await play_on_thread(match, seats)
    if result.score_line is not None:
        _print(stdout, result.score_line)
    return result


async def play_on_thread(match: Match, seats: Sequence[TcpSeat]) -> MatchResult:
    """Play the match on a thread of its own and await its result, leaving this event loop free.

    Cancelling the wait stops the match where it waits (its files and seats
    are closed, nothing is reported) before the cancellation goes on.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[MatchResult] = loop.create_future()
    stop_r, stop_w = os.pipe()
    for seat in seats:
        seat.set_interrupt(stop_r)

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def play() -> None:
        try:
            result, error = match.run(seats), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop is gone: nobody waits any more

    worker = threading.Thread(target=play, name=f"dealer-{match.config.match_name}", daemon=True)
    worker.start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        os.write(stop_w, b"x")
        try:
            await done
        except MatchInterrupted:
            pass
        except asyncio.CancelledError:
            worker.join(5.0)
        raise
    finally:
        if not worker.is_alive():  # a match still running keeps its pipe (it polls it)
            os.close(stop_r)
            os.close(stop_w)


def _print(stdout: TextIO, line: str) -> None:
    try:
        stdout.write(line + "\n")
        stdout.flush()
    except (OSError, ValueError):
        pass  # whoever started the dealer stopped listening; the log has it all


def binary_stream(stream: TextIO | BinaryIO) -> BinaryIO:
    """The byte stream under a text stream such as sys.stderr (or the stream itself)."""
    if hasattr(stream, "buffer"):
        return stream.buffer
    return stream
