"""A cache file's round trip: arrays beside a JSON ``meta`` member naming the key they derive from, their layout
and their content digest; a file read back only when all of it checks out, before a byte is allocated.

Every cache acpcbot keeps in its cache folder is data anyone (or a full
disk, or a crash) may have changed: :func:`read_cache` takes a file back
only when its metadata names the key and layout asked for, each array's
header announces the dtype and shape the metadata gives (``arrayfile.read_npz``:
a forged header never allocates) and the arrays' SHA-256 is the one stored;
anything else is None, and the caller rebuilds and writes the file again
with :func:`write_cache` (atomic replace, an unwritable folder only costing
the rebuild).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .arrayfile import ArrayFileError, Expected, arrays_digest, read_npz
from .atomic import atomic_write

#: what a cache's arrays must be, from its metadata: name -> (dtype, shape)
CacheShapes = Callable[[dict], Mapping[str, Expected]]


def read_cache(path: Path, key: str, fmt: int, shapes: CacheShapes) -> tuple[dict[str, np.ndarray], dict] | None:
    """A cache file's arrays and metadata when its metadata names ``key`` and layout ``fmt``, every array has the
    dtype and shape ``shapes(meta)`` announces (checked before it is read) and their SHA-256 is the digest stored
    beside them; None otherwise: missing, unreadable, cut short, forged, damaged or edited (the caller rebuilds)."""
    try:
        meta = json.loads(str(read_npz(path, {"meta": ("U", ())}, exact=False)["meta"]))
        if not isinstance(meta, dict) or meta.get("key") != key or meta.get("format") != fmt \
                or not isinstance(meta.get("digest"), str):
            return None
        arrays = read_npz(path, {"meta": ("U", ()), **shapes(meta)})
        arrays.pop("meta")
        if arrays_digest(arrays) != meta["digest"]:
            return None
        return arrays, meta
    except (OSError, ArrayFileError, ValueError, KeyError, TypeError, RecursionError):
        return None


def write_cache(path: Path, key: str, fmt: int, arrays: Mapping[str, np.ndarray],
                meta: Mapping[str, Any] | None = None) -> None:
    """Write a cache file that :func:`read_cache` takes back: ``arrays`` and ``meta`` (JSON) with ``key``, ``fmt``
    and the arrays' digest (atomic replace); an unwritable folder only means rebuilding next time."""
    kept = dict(meta or {}, key=key, format=fmt, digest=arrays_digest(arrays))
    members: dict[str, Any] = dict(arrays)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, "wb") as fh:
            np.savez(fh, meta=np.array(json.dumps(kept)), **members)
    except OSError:
        pass
