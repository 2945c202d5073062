"""What a HUNL policy file's header says it fits, read without its tables: its format, its buckets, its game.

The loader (``policy.read_policy`` and ``policy.HunlBlueprint``) refuses a
policy for these reasons with these words; ``check_header`` gives the same
answer from the header and the bucket file's arrays alone, in milliseconds,
so that asking whether the shipped blueprint can play a game (a strategy
listing, adaptive's choice of floor) does not build the betting tree or
decompress the rows.  A file whose tables are damaged passes here and is
refused, loudly, when it is loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence

import numpy as np

from ...arrayfile import ArrayFileError, read_npz
from ...gamedef import GameDef
from ..abstraction import AbstractionError

#: the policy file's layout
POLICY_FORMAT = 1


def digest_of(flop_bucket: np.ndarray, turn_centroids: np.ndarray, transitions: Sequence[np.ndarray],
              river_edges: np.ndarray) -> str:
    """A short content hash of hold'em buckets' arrays (what a policy's keys stand on)."""
    h = hashlib.sha256()
    for a in (flop_bucket, turn_centroids, *transitions, river_edges):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def check_format(meta: dict, where: str) -> None:
    """AbstractionError unless the header is of the layout this code reads."""
    if meta.get("format") != POLICY_FORMAT:
        raise AbstractionError(f"{where}: policy format {meta.get('format')}, expected {POLICY_FORMAT}")


def check_buckets(meta: dict, digest: str, where: str) -> None:
    """AbstractionError unless the policy was trained on the buckets of ``digest``."""
    if meta.get("buckets") != digest:
        raise AbstractionError(f"{where}: trained on other hold'em buckets than the ones given")


def check_game(meta: dict, game: GameDef, where: str) -> None:
    """AbstractionError unless the policy was trained for ``game`` itself."""
    if meta.get("game") != game.to_text():
        raise AbstractionError(f"{where} was trained for another game than {game.name}")


def read_meta(policy: str | os.PathLike[str]) -> dict:
    """The JSON header of a policy file (its other members are not read); AbstractionError when it is unreadable."""
    try:
        meta = json.loads(str(read_npz(policy, {"meta": ("U", ())}, exact=False)["meta"]))
        if not isinstance(meta, dict):
            raise ValueError("the header is not a JSON object")
    except (OSError, ArrayFileError, ValueError) as exc:
        raise AbstractionError(f"{os.fspath(policy)}: cannot read the HUNL policy: {exc}") from None
    return meta


def file_digest(buckets: str | os.PathLike[str]) -> str:
    """``digest_of`` a bucket file's arrays, read as ``Buckets.load`` reads them (without its card tables)."""
    try:
        with np.load(buckets) as z:
            return digest_of(z["flop_bucket"], z["turn_centroids"], (z["t1"], z["t2"], z["t3"]), z["river_edges"])
    except (OSError, KeyError, ValueError) as exc:
        raise AbstractionError(f"{os.fspath(buckets)}: cannot read bucket data: {exc}") from None


def check_header(game: GameDef, policy: str | os.PathLike[str], buckets: str | os.PathLike[str]) -> None:
    """The loader's own AbstractionError when the policy's header says it cannot be played in ``game`` with
    ``buckets`` (format, buckets, game, in the loader's order); the rows and the tree are not read."""
    digest = file_digest(buckets)
    where = os.fspath(policy)
    meta = read_meta(policy)
    check_format(meta, where)
    check_buckets(meta, digest, where)
    check_game(meta, game, where)
