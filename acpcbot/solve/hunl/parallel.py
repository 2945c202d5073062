"""Both cores on one MCCFR run: forked workers traversing into shared regret and strategy tables (Hogwild).

External-sampling traversals are independent but for the tables they
read and write, and two traversals rarely touch the same entries (a deal
picks one key per round of a table of thousands), so the workers share
the tables in shared memory without locks, as asynchronous SGD does: a
lost update is one sample's noise.  The driver hands each worker a chunk
of iterations, waits for all, then applies the linear-weighting discounts
the chunk crossed, so discounts never race with updates.  Each worker
has its own random generator, whose state the checkpoint keeps.  With
one worker the run is the plain trainer's, bit for bit; with two it is
not reproducible to the bit (the interleaving of updates is the OS's).
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import random
import signal
from array import array
from dataclasses import replace
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from .mccfr import MCCFR


def _worker(conn: Connection, trainer: MCCFR) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the driver decides when to stop, between chunks
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            conn.close()
            return
        _, start, count = msg
        trainer.iteration = start
        trainer.run(count)
        conn.send(trainer.rng.getstate())


def _state(saved: Any) -> tuple:
    """A generator state as ``random.getstate`` gives it, from its JSON round trip (lists for tuples)."""
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)


class ParallelMCCFR:
    """Runs ``trainer`` on ``workers`` processes sharing its tables; ``iteration`` counts every worker's."""

    def __init__(self, trainer: MCCFR, workers: int, rng_states: list[Any] | None = None) -> None:
        self.trainer = trainer
        self.workers = workers
        size = trainer.tree.size
        self._shm = [SharedMemory(create=True, size=max(4 * size, 4)) for _ in range(2)]
        views = []
        for shm, table in zip(self._shm, (trainer.regret, trainer.strategy)):
            buf = shm.buf
            assert buf is not None
            np.frombuffer(buf, dtype=np.float32, count=size)[:] = np.frombuffer(table, dtype=np.float32)
            views.append(buf[:4 * size].cast("f"))
        trainer.regret, trainer.strategy = views[0], views[1]  # type: ignore[assignment]
        settings = trainer.settings
        local = replace(settings, linear_until=0)            # the driver discounts
        self.rngs = [_state(x) for x in rng_states] if rng_states and len(rng_states) == workers else \
            [random.Random(settings.seed * 1_000_003 + w).getstate() for w in range(workers)]
        ctx = mp.get_context("fork")
        self._conns: list[Connection] = []
        self._procs = []
        for w in range(workers):
            mine, theirs = ctx.Pipe()
            clone = MCCFR.__new__(MCCFR)
            clone.__dict__.update(trainer.__dict__)
            clone.settings = local
            clone.rng = random.Random()
            clone.rng.setstate(self.rngs[w])
            proc = ctx.Process(target=_worker, args=(theirs, clone), daemon=True)
            proc.start()
            theirs.close()
            self._conns.append(mine)
            self._procs.append(proc)

    @property
    def iteration(self) -> int:
        """Iterations done by all workers together."""
        return self.trainer.iteration

    def run(self, per_worker: int) -> int:
        """Each worker runs ``per_worker`` iterations; then the discounts crossed are applied. Returns the total."""
        before = self.trainer.iteration
        for w, conn in enumerate(self._conns):
            conn.send(("run", before + w * per_worker, per_worker))
        self.rngs = [conn.recv() for conn in self._conns]
        after = before + per_worker * self.workers
        s = self.trainer.settings
        for t in range(before + 1, after + 1):
            if t % s.discount_every == 0 and t <= s.linear_until:
                d = t // s.discount_every
                f = np.float32(d / (d + 1))
                for table in (self.trainer.regret, self.trainer.strategy):
                    view = np.frombuffer(table, dtype=np.float32)
                    view *= f
        self.trainer.iteration = after
        return after - before

    def close(self) -> None:
        """Stop the workers and hand the tables back to the trainer as ordinary arrays."""
        for conn in self._conns:
            try:
                conn.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
        self._procs.clear()                                   # their arguments hold views of the shared tables
        self.trainer.regret = array("f", np.frombuffer(self.trainer.regret, dtype=np.float32).tobytes())
        self.trainer.strategy = array("f", np.frombuffer(self.trainer.strategy, dtype=np.float32).tobytes())
        gc.collect()
        for shm in self._shm:
            shm.close()
            shm.unlink()
