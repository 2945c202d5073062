"""One line framer for every client loop: the same dealer bytes, cut anywhere, give the same lines and replies.

A golden kuhn2p stream (a comment, a blank line, ``\\r\\n`` and bare ``\\n``
line ends, an unfinished last line) is fed in every cut: whole, byte by
byte, one line per chunk, two lines per chunk and split at every single
position.  The framer itself, the asyncio connection, the blocking loop and
the in-memory seat must see exactly the golden lines and send exactly the
golden replies.
"""

from __future__ import annotations

import pytest

from acpcbot.client import Client, ClientError
from acpcbot.connection import Connection
from acpcbot.direct import serve_direct
from acpcbot.framing import LineFramer
from acpcbot.gamedef import load_game
from acpcbot.session import _answer_here
from acpcbot.strategies.registry import create
from acpcbot.world import MatchInfo
from dealer.arena.memory import MemorySeat
from dealer.seats import SeatClosed

GAME = load_game("kuhn2p")

LINES = [b"# a comment\r\n", b"MATCHSTATE:0:0::Ks|\r\n", b"\r\n", b"MATCHSTATE:0:0:c:Ks|\r\n",
         b"MATCHSTATE:0:0:cr:Ks|\r\n", b"MATCHSTATE:0:0:crc:Ks|Qs\r\n", b"MATCHSTATE:1:1:r:|As\r\n",
         b"MATCHSTATE:1:1:rc:Ks|As\n"]
PARTIAL = b"# unfinished"
STREAM = b"".join(LINES) + PARTIAL
#: what ``call`` answers (after the handshake), worked by hand: its turns are hand 0 at the start and after the
#: bet, and hand 1 after the opponent's bet
REPLIES = [b"MATCHSTATE:0:0::Ks|:c\r\n", b"MATCHSTATE:0:0:cr:Ks|:c\r\n", b"MATCHSTATE:1:1:r:|As:c\r\n"]


def _cuts() -> dict[str, list[bytes]]:
    cuts = {"whole": [STREAM], "bytes": [STREAM[i:i + 1] for i in range(len(STREAM))],
            "lines": LINES + [PARTIAL],
            "pairs": [b"".join(LINES[i:i + 2]) for i in range(0, len(LINES), 2)] + [PARTIAL]}
    for at in range(1, len(STREAM)):
        cuts[f"split-{at}"] = [STREAM[:at], STREAM[at:]]
    return cuts


CUTS = _cuts()


class _Recording(Client):
    """A client that keeps every line it is handed."""

    def __init__(self) -> None:
        super().__init__(create("call", GAME, 1), MatchInfo(GAME))
        self.seen: list[bytes] = []

    def handle_line(self, line, received=None, parsed=None):  # noqa: D102
        self.seen.append(line.encode("ascii"))
        return super().handle_line(line, received, parsed)


def test_the_framer_gives_the_golden_lines_in_every_cut():
    for name, chunks in CUTS.items():
        framer = LineFramer()
        lines = [line for chunk in chunks for line in framer.feed(chunk)]
        assert lines == LINES and framer.partial == PARTIAL and framer.count == len(LINES), name


class _Socket:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.sent: list[bytes] = []

    def setsockopt(self, *args) -> None:  # noqa: D102
        pass

    def settimeout(self, timeout) -> None:  # noqa: D102
        pass

    def recv(self, n: int) -> bytes:  # noqa: D102
        return self.chunks.pop(0) if self.chunks else b""

    def sendall(self, data: bytes) -> None:  # noqa: D102
        self.sent.append(data)


def test_the_blocking_loop_sees_the_golden_lines_and_sends_the_golden_replies():
    for name, chunks in CUTS.items():
        client, sock = _Recording(), _Socket(chunks)
        serve_direct(client, sock)  # type: ignore[arg-type]
        assert client.seen == LINES, name
        assert sock.sent == [b"VERSION:2.0.0\r\n"] + REPLIES, name


class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def is_closing(self) -> bool:  # noqa: D102
        return False

    def write(self, data: bytes) -> None:  # noqa: D102
        self.written.append(data)


def test_the_asyncio_connection_sees_the_golden_lines_and_sends_the_golden_replies():
    for name, chunks in CUTS.items():
        # queued for the loop
        conn = Connection()
        for chunk in chunks:
            conn.data_received(chunk)
        conn.eof_received()
        assert [line for line, _ in conn.lines] == LINES and conn.partial == PARTIAL, name
        # answered in the callback (an inline strategy waiting for the dealer)
        client, conn = _Recording(), Connection()
        conn.transport = _Transport()  # type: ignore[assignment]
        conn.direct = _answer_here(client)
        for chunk in chunks:
            conn.data_received(chunk)
        assert conn.error is None and client.seen == LINES, name
        assert conn.transport.written == REPLIES, name  # type: ignore[attr-defined]


def test_the_in_memory_seat_sees_the_golden_lines_and_sends_the_golden_replies():
    for name, chunks in CUTS.items():
        client = _Recording()
        seat = MemorySeat(client)
        for chunk in chunks:
            seat.send(chunk)
        assert client.seen == LINES, name
        replies = []
        while (line := seat.take_line()) is not None:
            replies.append(line)
        assert replies == [b"VERSION:2.0.0\r\n"] + REPLIES, name


OVERLONG = b"0123456789\n" + b"x" * 20 + b"\n"


@pytest.mark.parametrize("stream, lines, message", [
    (OVERLONG, [b"0123456789\n"], "line 2 from the dealer is longer than 16 bytes"),
    (b"0123456789\n" + b"y" * 17, [b"0123456789\n"], "line 2 from the dealer is longer than 16 bytes"),
    (b"z" * 16 + b"\n", [], "line 1 from the dealer is longer than 16 bytes"),
    (b"z" * 15 + b"\n", [b"z" * 15 + b"\n"], None),
])
def test_an_overlong_line_stops_the_framer_after_the_lines_before_it(stream, lines, message):
    for chunks in ([stream], [stream[i:i + 1] for i in range(len(stream))], [stream[:5], stream[5:]]):
        framer = LineFramer(16)
        got = [line for chunk in chunks for line in framer.feed(chunk)]
        assert got == lines and framer.overlong == message
        assert framer.feed(b"more\n") == ([] if message else [b"more\n"])


def test_every_loop_ends_on_an_overlong_line_with_the_same_message():
    stream = b"MATCHSTATE:0:0::Ks|\r\n" + b"#" * 20000 + b"\r\n"
    message = "line 2 from the dealer is longer than 16384 bytes"
    client, sock = _Recording(), _Socket([stream])
    with pytest.raises(ClientError, match=message):
        serve_direct(client, sock)  # type: ignore[arg-type]
    assert sock.sent == [b"VERSION:2.0.0\r\n", REPLIES[0]]
    conn = Connection()
    conn.data_received(stream)
    assert conn.error is not None and str(conn.error) == message and len(conn.lines) == 1
    seat = MemorySeat(_Recording())
    with pytest.raises(SeatClosed):
        seat.send(stream)
    assert seat.error == message
