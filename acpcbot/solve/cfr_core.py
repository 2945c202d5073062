"""The CFR core both solvers stand on: regret matching, averaging, the algorithms, and the abstract policy file.

The small-game solver (``solve/cfr.py``: arrays (decisions, 3, hands)
with a legal mask per decision row) and the abstract-game solver
(``solve/abstract_cfr.py``: arrays (instances, 3, histories) sharing one
legal mask per decision) call the same :func:`regret_matching` and
:func:`normalise`; the shape of ``legal`` says which layout is meant.  The
two layouts keep their own arithmetic (a division for the first, a
reciprocal and masked-free column loops for the big arrays of the second)
so that every figure either solver computed before stays bit-identical.

The abstract game's policy file (``.npz``: uint8 rows per round,
lzma-compressed, with the game text, bucket counts and metadata) is read
and written here (:func:`write_abstract_policy`,
:func:`read_abstract_policy`); the shipped blueprint's file loads with it
unchanged (``POLICY_FORMAT`` 1).
"""

from __future__ import annotations

import json
import lzma
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import atomic_write
from .abstraction import open_abstraction_file

if TYPE_CHECKING:
    from .abstract_game import AbstractGame

#: the regret minimisers: CFR+ (regrets floored at 0, linear averaging) and discounted CFR
ALGORITHMS = ("cfr+", "dcfr")
#: the abstract policy file's format number
POLICY_FORMAT = 1
#: policy probabilities are stored as multiples of 1/QUANT in uint8
QUANT = 255


def match_columns(pos: np.ndarray, out: np.ndarray, cols: np.ndarray) -> None:
    """out[:, col] = pos[:, col] / total, or uniform over ``cols`` where the total is 0 (no masked ops: slow)."""
    total = pos[:, cols[0]].copy()
    for col in cols[1:]:
        total += pos[:, col]
    zero = total == 0
    total += zero
    np.reciprocal(total, out=total)
    uniform = zero * pos.dtype.type(1.0 / len(cols))
    for col in cols:
        np.multiply(pos[:, col], total, out=out[:, col])
        out[:, col] += uniform


def regret_matching(regrets: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Strategy proportional to positive regret, uniform over the legal actions where none is positive.

    ``legal`` (decisions, 3): a mask per row of ``regrets`` (decisions, 3, hands);
    ``legal`` (3,): one mask shared by every row of ``regrets`` (n, 3, ...).
    """
    if legal.ndim == 1:
        pos = np.maximum(regrets, 0)
        out = np.zeros_like(pos)
        match_columns(pos, out, np.flatnonzero(legal))
        return out
    positive = np.maximum(regrets, 0.0)
    total = positive.sum(1, keepdims=True)
    uniform = (legal / legal.sum(1, keepdims=True))[:, :, None]
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)


def normalise(strategy_sum: np.ndarray, legal: np.ndarray, dtype: Any = np.float64) -> np.ndarray:
    """The average strategy: rows of accumulated strategy as probabilities, uniform over the legal actions where
    nothing accumulated (``legal`` as for :func:`regret_matching`; ``dtype``: of the shared-mask layout's result)."""
    if legal.ndim == 1:
        return regret_matching(strategy_sum.astype(dtype), legal)
    total = strategy_sum.sum(1, keepdims=True)
    uniform = (legal / legal.sum(1, keepdims=True))[:, :, None]
    return np.where(total > 0, strategy_sum / np.where(total > 0, total, 1.0), uniform)


def check_algorithm(algorithm: str) -> None:
    """Raise ValueError naming the choices unless ``algorithm`` is one of :data:`ALGORITHMS`."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")


def write_abstract_policy(path: str | os.PathLike[str], ag: AbstractGame, rows: list[np.ndarray], meta: dict,
                          preset: int = 9 | lzma.PRESET_EXTREME) -> None:
    """Write policy rows (lzma-compressed per round, ``preset``) with the game and metadata; atomic replace."""
    blobs: dict[str, Any] = {f"round{r}": np.frombuffer(lzma.compress(q.tobytes(), preset=preset), dtype=np.uint8)
                             for r, q in enumerate(rows)}
    shapes: dict[str, Any] = {f"shape{r}": np.array(q.shape) for r, q in enumerate(rows)}
    with atomic_write(path, "wb") as fh:
        np.savez(fh, format=POLICY_FORMAT, game=np.array(ag.game.to_text()),
                 k=np.array(ag.buckets[1:]), meta=np.array(json.dumps(meta)), **blobs, **shapes)


def _open_policy(path: str | os.PathLike[str]) -> Any:
    """A policy file's arrays, its format checked (:func:`open_abstraction_file`; json errors are ValueErrors)."""
    return open_abstraction_file(path, POLICY_FORMAT, "policy", "the policy", (lzma.LZMAError,))


def read_abstract_policy(path: str | os.PathLike[str]) -> tuple[list[np.ndarray], dict]:
    """The uint8 policy rows per round and the metadata of a file written by :func:`write_abstract_policy`."""
    with _open_policy(path) as z:
        rows = []
        for r in range(4):
            shape = tuple(int(x) for x in z[f"shape{r}"])
            raw = lzma.decompress(z[f"round{r}"].tobytes())
            rows.append(np.frombuffer(raw, dtype=np.uint8).reshape(shape))
        meta = json.loads(str(z["meta"]))
        meta["game_text"] = str(z["game"])
        meta["k"] = tuple(int(x) for x in z["k"])
    return rows, meta


def read_policy_header(path: str | os.PathLike[str]) -> tuple[str, tuple[int, ...]]:
    """The game text and the bucket counts a policy file was trained with, its rows not read."""
    with _open_policy(path) as z:
        return str(z["game"]), tuple(int(x) for x in z["k"])
