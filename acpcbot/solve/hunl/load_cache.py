"""What a HUNL policy costs to rebuild at load, kept in acpcbot's cache folder: its betting tree as arrays, its rows
uncompressed; each cache verified by content hash or rebuilt.

Growing the shipped abstraction's betting tree through the engine takes
about 3 s of CPU and decompressing the policy's rows 0.3 s, paid by every
process that plays the blueprint.  Both are pure functions of what they
are derived from, so they are computed once and kept:

- the tree (``load_tree``): ``tree_arrays`` flattens a grown
  ``BlueprintTree`` into ten arrays and ``tree_from_arrays`` gives it
  back node for node.  The file is named after the SHA-256 of what the
  tree is derived from: the game's text, the action abstraction, the key
  widths, and the source of the code that grows it and reads it back
  (``engine``, ``gamedef``, ``hunl.actions``, this module: a change to the
  rules or to the abstraction's sizes is a new file, never a stale tree);
- the rows (``unpacked_rows``): named after the SHA-256 of the policy's
  compressed rows, so a damaged policy file never meets a cache and is
  refused when it is decompressed, as without one.

A cache file is used only when its metadata names exactly what is asked
for, every array has the shape the metadata announces before it is read
(a forged header never allocates), and the SHA-256 of its arrays matches
the digest stored beside them; a tree must also pass the structural checks
of ``tree_from_arrays``.  Anything else (missing, cut short, edited,
another version) is rebuilt and written back (atomic replace).  The
folder is ``$XDG_CACHE_HOME/acpcbot`` (``~/.cache/acpcbot``), never the
package's data folder, which may be read-only in an installed package;
where the cache folder cannot be written either, the tree is grown and the
rows decompressed as without a cache.
"""

from __future__ import annotations

import gc
import hashlib
import json
import lzma
import math
from pathlib import Path

import numpy as np

from ... import engine, gamedef
from ...cachefile import read_cache, write_cache
from ...engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from ...evaluator.tables import cache_dir
from ...gamedef import GameDef
from . import actions as actions_module
from .actions import ActionAbstraction, BlueprintTree

#: the layout of a tree cache file (a new layout is a new file name)
TREE_FORMAT = 1
#: the layout of a rows cache file
ROWS_FORMAT = 1
#: the modules whose code decides the tree: their source is part of the tree's key
_TREE_CODE = (engine, gamedef, actions_module)

_TREE_ARRAYS: dict[str, tuple[np.dtype, str]] = {
    # name: (dtype, what its length counts: nodes, nodes + 1, edges, distinct actions or terminals)
    "actor": (np.dtype(np.int8), "nodes"),
    "round": (np.dtype(np.int8), "nodes"),
    "base": (np.dtype(np.int64), "nodes"),
    "offsets": (np.dtype(np.int64), "offsets"),
    "action": (np.dtype(np.int32), "edges"),
    "child": (np.dtype(np.int64), "edges"),
    "kind": (np.dtype(np.int8), "distinct"),
    "size": (np.dtype(np.int64), "distinct"),
    "fold_value": (np.dtype(np.float64), "terminals"),
    "stake": (np.dtype(np.float64), "terminals"),
}


# ------------------------------------------------------------------ the tree as arrays

def tree_arrays(tree: BlueprintTree) -> dict[str, np.ndarray]:
    """The tree as flat arrays: per node actor, round, base and the offset of its edges; per edge the action (an
    index into the distinct actions' kind and size) and the child; per terminal the fold value (NaN at a showdown)
    and the stake."""
    nact = np.fromiter((len(a) for a in tree.actions), dtype=np.int64, count=tree.num_nodes)
    offsets = np.zeros(tree.num_nodes + 1, dtype=np.int64)
    np.cumsum(nact, out=offsets[1:])
    distinct: dict[Action, int] = {}
    edges = [distinct.setdefault(a, len(distinct)) for acts in tree.actions for a in acts]
    return {
        "actor": np.array(tree.actor, dtype=np.int8),
        "round": np.array(tree.round, dtype=np.int8),
        "base": np.array(tree.base, dtype=np.int64),
        "offsets": offsets,
        "action": np.array(edges, dtype=np.int32),
        "kind": np.array([int(a[0]) for a in distinct], dtype=np.int8),
        "size": np.array([a[1] for a in distinct], dtype=np.int64),
        "child": np.array([c for ch in tree.children for c in ch], dtype=np.int64),
        "fold_value": np.array([math.nan if v is None else v for v in tree.fold_value], dtype=np.float64),
        "stake": np.array(tree.stake, dtype=np.float64),
    }


def tree_from_arrays(game: GameDef, abstraction: ActionAbstraction | None, widths: tuple[int, ...],
                     arrays: dict[str, np.ndarray]) -> BlueprintTree:
    """The ``BlueprintTree`` of ``tree_arrays``' output, node for node; ValueError when the arrays are not a tree of
    this game and these widths (a node's edges, children, rounds, actors or row offsets out of place)."""
    tree = BlueprintTree(game, abstraction, widths, grow=False)
    _check_tree(arrays, tree.widths, game.num_rounds)
    offs = arrays["offsets"].tolist()
    # the few distinct actions made once as the engine's own objects, shared by every node that has them
    made = [_action(k, n) for k, n in zip(arrays["kind"].tolist(), arrays["size"].tolist())]
    flat = list(map(made.__getitem__, arrays["action"].tolist()))
    child = arrays["child"].tolist()
    collecting = gc.isenabled()
    gc.disable()  # 200,000 small containers, none cyclic: the collector's passes over them would double the time
    try:
        _fill(tree, arrays, offs, flat, child)
    finally:
        if collecting:
            gc.enable()
    return tree


def _fill(tree: BlueprintTree, arrays: dict[str, np.ndarray], offs: list[int], flat: list[Action],
          child: list[int]) -> None:
    tree.actor = arrays["actor"].tolist()
    tree.round = arrays["round"].tolist()
    tree.base = arrays["base"].tolist()
    tree.actions = [tuple(flat[a:b]) for a, b in zip(offs, offs[1:])]
    tree.children = [child[a:b] for a, b in zip(offs, offs[1:])]
    fold: list[float | None] = arrays["fold_value"].tolist()
    for t in np.flatnonzero(np.isnan(arrays["fold_value"])).tolist():
        fold[t] = None
    tree.fold_value = fold
    tree.stake = arrays["stake"].tolist()
    last = tree.num_nodes - 1
    tree.size = tree.base[last] + tree.widths[tree.round[last]] * len(tree.actions[last]) if last >= 0 else 0


def _action(kind: int, size: int) -> Action:
    if kind == ActionType.FOLD:
        return FOLD
    if kind == ActionType.CALL:
        return CALL
    return raise_to(size) if size else RAISE


def _check_tree(a: dict[str, np.ndarray], widths: tuple[int, ...], num_rounds: int) -> None:
    """ValueError unless the arrays hang together as a tree (what the reader then indexes never falls outside)."""
    n, e, t, d = len(a["actor"]), len(a["action"]), len(a["stake"]), len(a["kind"])
    offs = a["offsets"]
    nact = np.diff(offs)
    if len(offs) != n + 1 or offs[0] != 0 or offs[-1] != e or (n and nact.min() < 1):
        raise ValueError("edge offsets out of place")
    if n and (a["actor"].min() < 0 or a["actor"].max() > 1 or a["round"].min() < 0
              or a["round"].max() >= num_rounds):
        raise ValueError("an actor or a round out of range")
    if e and (a["action"].min() < 0 or a["action"].max() >= d):
        raise ValueError("an action out of range")
    if d and (a["kind"].min() < 0 or a["kind"].max() > 2 or a["size"].min() < 0):
        raise ValueError("an action out of range")
    child = a["child"]
    if e and (child.min() < -t or child.max() >= n or (child == 0).any()):  # node 0 is the root, no one's child
        raise ValueError("a child out of range")
    rows = np.asarray(widths, dtype=np.int64)[a["round"].astype(np.int64)] * nact
    base = np.zeros(n, dtype=np.int64)
    np.cumsum(rows[:-1], out=base[1:])
    if not np.array_equal(base, a["base"]):
        raise ValueError("row offsets out of place")


# ------------------------------------------------------------------ the tree's cache

def tree_key(game: GameDef, abstraction: ActionAbstraction | None, widths: tuple[int, ...]) -> str:
    """The SHA-256 of everything the tree is derived from (OSError when the growing code's source cannot be read)."""
    h = hashlib.sha256()
    h.update(json.dumps({"format": TREE_FORMAT, "game": game.to_text(),
                         "abstraction": None if abstraction is None else abstraction.to_json(),
                         "widths": [int(w) for w in widths]}).encode())
    for module in _TREE_CODE:
        assert module.__file__ is not None
        h.update(Path(module.__file__).read_bytes())
    h.update(Path(__file__).read_bytes())  # and this module's reading of the arrays
    return h.hexdigest()


def load_tree(game: GameDef, abstraction: ActionAbstraction | None, widths: tuple[int, ...],
              directory: Path | None = None) -> BlueprintTree:
    """The betting tree, read from the cache folder when a file there checks out; else grown and written there."""
    try:
        key = tree_key(game, abstraction, widths)
    except OSError:
        return BlueprintTree(game, abstraction, widths)  # no source to hash: no cache to trust
    path = (cache_dir() if directory is None else Path(directory)) / f"hunl_tree_{key[:32]}.npz"
    cached = read_cache(path, key, TREE_FORMAT, _tree_shapes)
    if cached is not None:
        try:
            return tree_from_arrays(game, abstraction, widths, cached[0])
        except ValueError:
            pass  # hashed but not a tree: rebuilt below
    tree = BlueprintTree(game, abstraction, widths)
    arrays = tree_arrays(tree)
    counts = {"nodes": tree.num_nodes, "edges": len(arrays["action"]), "terminals": len(tree.stake),
              "distinct": len(arrays["kind"])}
    write_cache(path, key, TREE_FORMAT, arrays, counts)
    return tree


def _tree_shapes(meta: dict) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
    counts = {k: int(meta[k]) for k in ("nodes", "edges", "terminals", "distinct")}
    if min(counts.values()) < 0:
        raise ValueError("negative counts")
    counts["offsets"] = counts["nodes"] + 1
    return {name: (dtype, (counts[what],)) for name, (dtype, what) in _TREE_ARRAYS.items()}


# ------------------------------------------------------------------ the rows' cache

def unpacked_rows(blob: np.ndarray, directory: Path | None = None) -> np.ndarray:
    """The policy's uint8 rows: lzma-decompressed from ``blob`` (LZMAError when it is damaged), or read from the
    cache file named after ``blob``'s SHA-256 (written the first time)."""
    key = hashlib.sha256(np.ascontiguousarray(blob).tobytes()).hexdigest()
    path = (cache_dir() if directory is None else Path(directory)) / f"hunl_rows_{key[:32]}.npz"
    cached = read_cache(path, key, ROWS_FORMAT, lambda meta: {"rows": (np.dtype(np.uint8), (int(meta["entries"]),))})
    if cached is not None:
        return cached[0]["rows"]
    rows = np.frombuffer(lzma.decompress(blob.tobytes()), dtype=np.uint8)
    write_cache(path, key, ROWS_FORMAT, {"rows": rows}, {"entries": len(rows)})
    return rows
