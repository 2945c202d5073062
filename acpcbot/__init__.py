"""acpcbot: a poker agent, dealer and match runner for the ACPC protocol 2.0.0.

As a library, ``acpcbot.play(host, port, strategy, game="hunl")`` plays one
match at a dealer and returns its exit status; ``acpcbot.play_async`` is the
same for code already in an event loop (see ``acpcbot.library``).  The
names load on first use, so importing any part of acpcbot stays cheap.
"""

from __future__ import annotations

import os
from typing import Any

# numpy's BLAS would start a thread per core for every product: a poker match runs several processes on
# few cores, and the strategies' products are small, so one thread each is faster.  Set before numpy is
# imported; a value the user set wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def play(host: str, port: int, strategy: Any, **options: Any) -> int:
    """Play one match at an ACPC dealer and return the exit status (0: played); see ``acpcbot.library.play``."""
    from .library import play as _play

    return _play(host, port, strategy, **options)


async def play_async(host: str, port: int, strategy: Any, **options: Any) -> int:
    """The awaitable form of :func:`play`; see ``acpcbot.library.play_async``."""
    from .library import play_async as _play_async

    return await _play_async(host, port, strategy, **options)
