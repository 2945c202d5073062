"""Writing a file whole or not at all: a temporary file beside the target, renamed over it once complete.

Every file the project writes for later reading (results, policies,
checkpoints, model files, cached tables) goes through :func:`atomic_write`,
so a reader never sees half a file and a failure (a full disk, an error
while writing, an interrupt) leaves the previous copy, or none, and no
temporary file behind.
"""

from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = None,
                 fsync: bool = False) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; on a clean exit it replaces ``path``, else it is removed.

    ``mode`` is "w" (text, ``encoding`` default UTF-8) or "wb".  The file
    gets the permissions a plain ``open`` would give; ``fsync`` flushes it
    to the disk before the rename.  OSErrors reach the caller,
    who names the file in its own terms.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    # a fresh name beside the target, created as a plain open would (the umask's permissions)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "x" if mode == "w" else "xb", encoding=(encoding or "utf-8") if mode == "w" else None) as fh:
            yield fh
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass  # already renamed or never made: nothing left behind
        raise


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise OSError unless ``atomic_write(path)`` could write there now: checked before long work, not after it.

    A file is made and removed beside the target, as ``atomic_write`` would
    make its temporary one; the target itself is left as it is.
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a folder")
    probe = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.probe")
    with open(probe, "xb"):
        pass
    os.unlink(probe)
