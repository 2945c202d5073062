"""Our dealer's warnings against the built reference dealer's, reply for reply (issue 13, item 6).

Runs only where the reference dealer has been built:
``../shared/reference/build-reference.sh DIR`` then ``ACPC_REFERENCE_DIR=DIR``
(it must hold ``DIR/dealer``); skipped cleanly otherwise.  Both dealers
play the same seed with the same scripted players on 127.0.0.1, each
misbehaving at the same request; their WARNING/ERROR lines and SCORE
lines must be equal.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from acpcbot.gamedef import load_game
from acpcbot.protocol import format_betting, parse_match_state

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def reference_dealer() -> Path:
    """The built reference dealer named by ACPC_REFERENCE_DIR; the test is skipped without it."""
    folder = os.environ.get("ACPC_REFERENCE_DIR")
    dealer = Path(folder) / "dealer" if folder else None
    if dealer is None or not os.access(dealer, os.X_OK):
        pytest.skip("set ACPC_REFERENCE_DIR to a folder holding the built reference dealer "
                    "(../shared/reference/build-reference.sh DIR)")
    return dealer


async def _player(port: int, game, script: dict) -> None:
    """Answer every request with a call, except at (hand, betting) in ``script``: send its pieces instead."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"VERSION:2.0.0\r\n")
    try:
        while raw := await reader.readline():
            line = raw.decode().rstrip("\r\n")
            ms = parse_match_state(line, game)
            if ms.is_my_turn:
                for piece in script.get((ms.hand_id, format_betting(ms.state)), [b"{line}:c\r\n"]):
                    writer.write(piece.replace(b"{line}", line.encode()))
                await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _match(command: list[str], workdir: Path, game, script: dict) -> tuple[list[str], str]:
    proc = await asyncio.create_subprocess_exec(*command, cwd=workdir, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        first = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)
        players = [_player(int(p), game, script) for p in first.split()]
        (out, err), _ = await asyncio.wait_for(asyncio.gather(proc.communicate(), asyncio.gather(*players)), TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    problems = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.startswith(("WARNING", "ERROR"))]
    lines = out.decode().strip().splitlines()
    return problems, lines[-1] if lines else f"(no SCORE; exit status {proc.returncode})"


# hunl, seed 0: in hand 0 position 1 (seat 2) acts first, "MATCHSTATE:1:0::|9hQd"
HUGE = b"9" * 5000
SCRIPTS = {
    "unknown letter": {(0, ""): [b"{line}:x\r\n"]},
    "empty action": {(0, ""): [b"{line}:\r\n"]},
    "NUL action": {(0, ""): [b"{line}:\x00\r\n"]},
    "high byte": {(0, ""): [b"{line}:\xff\r\n"]},
    "blank before the action": {(0, ""): [b"{line}: c\r\n"]},
    "missing colon": {(0, ""): [b"{line}\r\n"]},
    "raise without a size": {(0, ""): [b"{line}:r\r\n"]},
    "raise with a bad size": {(0, ""): [b"{line}:rx\r\n"]},
    "huge raise": {(0, ""): [b"{line}:r" + HUGE + b"\r\n"]},
    "huge negative raise": {(0, ""): [b"{line}:r-" + HUGE + b"\r\n"]},
    "raise wrapping in 32 bits": {(0, ""): [b"{line}:r4294967496\r\n"]},
    "raises out of range": {(0, ""): [b"{line}:r1\r\n"], (1, ""): [b"{line}:r99999\r\n"]},
    "fold when free": {(0, "c"): [b"{line}:f\r\n"]},
    "trailing text": {(0, ""): [b"{line}:cjunk\r\n"]},
    "position wrapping in a byte": {(0, ""): [b"MATCHSTATE:257:0::|9hQd:r300\r\n"]},
    "blank before the position": {(0, ""): [b"MATCHSTATE: 1:0::|9hQd:r300\r\n"]},
    "hand number wrapping in 32 bits": {(0, ""): [b"MATCHSTATE:1:4294967296::|9hQd:r300\r\n", b"{line}:c\r\n"]},
    "huge position": {(0, ""): [b"MATCHSTATE:" + HUGE + b":0::|9hQd:c\r\n", b"{line}:c\r\n"]},
    "another state": {(0, ""): [b"MATCHSTATE:1:7::|9hQd:f\r\n", b"{line}:c\r\n"]},
    "garbage": {(0, ""): [bytes(range(1, 256)).replace(b"\n", b"") + b"\r\n", b"{line}:c\r\n"]},
}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_warnings_match_the_reference_dealer(reference_dealer, tmp_path, name):
    game = load_game("hunl")
    game_file = tmp_path / "hunl.game"
    game_file.write_text(game.to_text())
    (tmp_path / "ref").mkdir()
    (tmp_path / "ours").mkdir()
    common = ["m", str(game_file), "2", "0", "a", "b", "-q"]
    theirs = asyncio.run(_match([str(reference_dealer), *common], tmp_path / "ref", game, SCRIPTS[name]))
    ours = asyncio.run(_match([sys.executable, "-m", "dealer", *common], tmp_path / "ours", game, SCRIPTS[name]))
    assert ours == theirs
    assert (tmp_path / "ours" / "m.log").read_text() == (tmp_path / "ref" / "m.log").read_text()
