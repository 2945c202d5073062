"""Child processes that die with the process that started them, however it ends (even SIGKILL).

A dealer, a seat or a kit started in a session of its own (so that a
Ctrl-C at the terminal reaches only its parent, which stops it itself and
keeps what finished) would outlive a parent killed outright.  On Linux
:func:`die_with_parent` gives a ``preexec_fn`` that asks the kernel to send
the child SIGKILL when the thread that started it ends (``PR_SET_PDEATHSIG``),
and ends the child at once if the parent is already gone.  Elsewhere it
gives None: the parent's own clean-up is then all there is.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Callable

_PR_SET_PDEATHSIG = 1


def _prctl() -> "Callable[..., int] | None":
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # looked up here, never in the child after fork
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def die_with_parent() -> "Callable[[], None] | None":
    """A ``preexec_fn`` making the child die with this process (and thread), or None where that is not possible."""
    if _PRCTL is None:
        return None
    parent = os.getpid()
    prctl = _PRCTL

    def arm() -> None:  # runs in the child between fork and exec: nothing here may take a lock
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request was made
            os._exit(1)

    return arm
