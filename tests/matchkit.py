"""Shared helpers for tests that play matches through the bundled dealer on 127.0.0.1.

``serve`` starts the TCP dealer (``dealer.server.serve_match``) in the
running event loop and returns once it has printed its ports, or has
failed to start; ``dealer_process`` runs ``python -m dealer`` in a folder
and yields the process with the ports it printed, killing it if it is
still running at the end.  Every wait has a time limit.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Sequence

from dealer.config import MatchConfig
from dealer.logs import Transcript
from dealer.match import MatchResult
from dealer.resume import MatchFiles, open_match_files
from dealer.server import serve_match

TIMEOUT = 120.0  # no helper waits longer than this for the dealer to start or finish (generous: busy machines)
ROOT = Path(__file__).resolve().parents[1]


class PortsOut(io.StringIO):
    """The dealer's stdout: ``ports`` resolves once the first line, the ports, has been printed."""

    def __init__(self) -> None:
        super().__init__()
        self.ports: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()

    def write(self, text: str) -> int:
        n = super().write(text)
        if not self.ports.done() and "\n" in self.getvalue():
            self.ports.set_result([int(p) for p in self.getvalue().split("\n")[0].split()])
        return n


@dataclass
class ServedDealer:
    """A dealer running in this event loop: its task, the ports it listens on, its stdout and transcript."""

    task: asyncio.Task[MatchResult | None]
    ports: list[int]  # empty when it could not start
    stdout: PortsOut
    stderr: io.BytesIO

    @property
    def transcript(self) -> str:
        """The transcript so far (what the dealer writes on stderr)."""
        return self.stderr.getvalue().decode("utf-8", "replace")

    async def result(self, timeout: float = TIMEOUT) -> MatchResult | None:
        """Wait for the match to end; None when it could not start."""
        return await asyncio.wait_for(self.task, timeout)


async def serve(config: MatchConfig, files: MatchFiles | None = None, ports: Sequence[int] | None = None,
                timeout: float = TIMEOUT) -> ServedDealer:
    """Start the TCP dealer in this event loop (no files unless ``files``); return once its ports are known."""
    if files is None:
        files = open_match_files(config, use_log=False)
    out, err = PortsOut(), io.BytesIO()
    task = asyncio.create_task(serve_match(config, files, Transcript(err, quiet=config.quiet), out, ports=ports))
    await asyncio.wait((task, out.ports), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if not out.ports.done() and not task.done():
        task.cancel()
        raise TimeoutError(f"the dealer printed no ports within {timeout} s")
    return ServedDealer(task, out.ports.result() if out.ports.done() else [], out, err)


@asynccontextmanager
async def dealer_process(workdir: str | os.PathLike[str], args: Sequence[str],
                         timeout: float = TIMEOUT) -> AsyncIterator[tuple[asyncio.subprocess.Process, list[int]]]:
    """``python -m dealer ARGS`` in ``workdir``: yields the process and the ports of its first line.

    stdout and stderr are pipes: read them while the match runs
    (``communicate``), or give ``-q``, so that the dealer never blocks on
    a full pipe.  The ports are empty when the dealer could not start.
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "dealer", *args, cwd=workdir, env=env,
                                                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    try:
        assert proc.stdout is not None
        first = await asyncio.wait_for(proc.stdout.readline(), timeout)
        yield proc, [int(p) for p in first.split()]
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
