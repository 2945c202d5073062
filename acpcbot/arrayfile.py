"""Reading ``.npz`` caches without trusting them: every array header checked before a byte is allocated.

A cache file is data anyone (or a full disk, or a crash) may have changed.
``numpy.load`` believes an array's header: a forged shape asks for
terabytes before reading a byte.  :func:`read_npz` reads each member's
header with ``numpy.lib.format``, checks its dtype and shape against what
the caller expects, and requires the member to hold exactly the bytes the
header announces, so nothing larger than the file itself is ever allocated;
object arrays (pickles) are never read.  :func:`arrays_digest` is the
content hash a cache stores beside its arrays, so that an edited or damaged
array is caught and the cache rebuilt (``acpcbot.cachefile`` is the whole
round trip of such a cache file: its key, layout and digest in a JSON
``meta`` member beside the arrays).
"""

from __future__ import annotations

import hashlib
import math
import os
import struct
import zipfile
import zlib
from typing import Mapping, Sequence

import numpy as np
from numpy.lib import format as npy_format


class ArrayFileError(ValueError):
    """An array file that is not what its reader expects (wrong members, dtype, shape or size, damaged)."""


#: what a member must be: a dtype (or a dtype kind letter such as "U") and a shape (None: any shape)
Expected = tuple["np.dtype | str", "tuple[int, ...] | None"]


def _dtype_ok(got: np.dtype, want: "np.dtype | str") -> bool:
    if got.hasobject:
        return False
    if isinstance(want, str) and len(want) == 1:
        return got.kind == want
    return got == np.dtype(want)


def _read_member(zf: zipfile.ZipFile, member: str, name: str, want: Expected) -> np.ndarray:
    info = zf.getinfo(member)
    with zf.open(info) as fp:
        try:
            version = npy_format.read_magic(fp)
            if version == (1, 0):
                shape, fortran, dtype = npy_format.read_array_header_1_0(fp)
            elif version == (2, 0):
                shape, fortran, dtype = npy_format.read_array_header_2_0(fp)
            else:
                raise ArrayFileError(f"{name}: unsupported .npy version {version}")
        except ArrayFileError:
            raise
        except Exception as exc:  # noqa: BLE001 - numpy's header parser raises ValueError, SyntaxError, TokenError...
            raise ArrayFileError(f"{name}: bad array header: {type(exc).__name__}: {str(exc)[:120]}") from None
        header = fp.tell()
        dtype_want, shape_want = want
        if not _dtype_ok(dtype, dtype_want):
            raise ArrayFileError(f"{name}: dtype {dtype.str}, expected {dtype_want}")
        if shape_want is not None and tuple(shape) != tuple(shape_want):
            raise ArrayFileError(f"{name}: shape {shape}, expected {shape_want}")
        nbytes = math.prod(int(n) for n in shape) * dtype.itemsize  # Python ints: a forged shape cannot overflow
        if nbytes != info.file_size - header:
            raise ArrayFileError(f"{name}: the header announces {nbytes} bytes, the file holds "
                                 f"{info.file_size - header}")
        data = fp.read(nbytes)  # at most the member's own size; reading to its end checks the zip CRC
        if len(data) != nbytes or fp.read(1):
            raise ArrayFileError(f"{name}: cut short")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def read_npz(path: str | os.PathLike[str], expected: Mapping[str, Expected], *, exact: bool = True,
             optional: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """The arrays ``expected`` names from the ``.npz`` at ``path``, each checked before it is read.

    Every member must be there except those named in ``optional``;
    ``exact``: the file must hold no member ``expected`` does not name.
    Raises ArrayFileError for anything unexpected (and OSError when the file
    cannot be opened); the arrays returned are read-only views of the bytes read.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            members = {n[:-4]: n for n in zf.namelist() if n.endswith(".npy")}
            if len(members) != len(zf.namelist()) or (exact and not set(members) <= set(expected)) \
                    or not set(expected) - set(optional) <= set(members):
                raise ArrayFileError(f"members {sorted(zf.namelist())[:8]}, expected {sorted(expected)}")
            return {name: _read_member(zf, members[name], name, want) for name, want in expected.items()
                    if name in members}
    except (zipfile.BadZipFile, zlib.error, EOFError, KeyError, NotImplementedError, struct.error, OverflowError,
            UnicodeDecodeError) as exc:
        raise ArrayFileError(f"not a whole .npz file: {str(exc)[:120]}") from None


def arrays_digest(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of named arrays' content (names, dtypes, shapes and bytes, in name order)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        h.update(f"{name} {arr.dtype.str} {arr.shape};".encode())
        h.update(arr.tobytes())
    return h.hexdigest()
