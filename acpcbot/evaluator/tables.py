"""The rank tables behind every hold'em ranking: card keys, tables built from treys, a verified disk cache.

A card carries two integer keys.  Key A adds a rank weight (``RANK_WEIGHTS``:
every multiset of up to seven ranks with the same number of cards has its
own sum) and a 4-bit counter per suit; key B is a 52-bit set of the cards
(13 bits per suit).  A hand's keys are the sums of its cards' keys, so the
keys of a board and of a hole pair just add.  Without a flush, treys' rank
depends only on the multiset of ranks: a table indexed by the rank-weight
sum.  With five or more cards of a suit (at most seven cards leave no room
for quads or a full house then) it depends only on the ranks in that suit:
a table indexed by that suit's 13 bits of key B.

Nothing is built or read at import: :func:`lookups` loads the tables on
first use (games that never rank five or more cards never pay for them).
A cached copy is used only when its content digest matches what treys
produces; anything else is rebuilt.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import random
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from treys.lookup import LookupTable as _TreysLookup

from ..arrayfile import ArrayFileError, Expected, arrays_digest, read_npz
from ..atomic import atomic_write
from ..cards import TREYS_INT

WORST_RANK: int = _TreysLookup.MAX_HIGH_CARD  # 7462

# ---------------------------------------------------------------------------
# Card keys
# ---------------------------------------------------------------------------

# Smallest increasing weights (greedy) such that two multisets of k ranks,
# k <= 7 and at most four of a rank, never share a sum; found by
# tools/find_rank_weights.py and re-checked whenever the tables are built.
RANK_WEIGHTS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_SHIFT = 32
LOW = (1 << SUIT_SHIFT) - 1
# Each suit counter starts at 3, so five or more cards of a suit set its top bit.
SUIT_BASE = 0x3333 << SUIT_SHIFT
FLUSH_FLAGS = 0x8888 << SUIT_SHIFT

KEY_A_LIST = [RANK_WEIGHTS[c >> 2] + (1 << (SUIT_SHIFT + 4 * (c & 3))) for c in range(52)]
# The hot path's key list: indices 52..103, which cards -52..-1 wrap to,
# add a weight above every real key so the lookup misses and the checks run
# (cards below -52 wrap to real keys: showdown_value checks their sign).
KEY_A_GUARDED = KEY_A_LIST + [1 << 28] * 52
KEY_B_LIST = [1 << (13 * (c & 3) + (c >> 2)) for c in range(52)]
KEY_A = np.array(KEY_A_LIST, dtype=np.int64)
KEY_B = np.array(KEY_B_LIST, dtype=np.int64)
SUIT_OF_FLAGS = {0x8: 0, 0x80: 1, 0x800: 2, 0x8000: 3}

# ---------------------------------------------------------------------------
# Building and caching
# ---------------------------------------------------------------------------

_TABLE_FORMAT = 1
_SIZES = {5: 6175, 6: 18395, 7: 49205}
#: Content digests of the tables of known treys releases (see table_digest):
#: a cached file must reproduce one exactly; for another release the cache
#: is checked against treys on sample hands instead.
KNOWN_DIGESTS = {"0.1.8": "1892ec2e9740019165db2c69e6688c9b568d7297b2cf3200e6d7cf0f40a3f2b9"}
#: Hands checked against treys when a cache's digest cannot be known in advance.
SPOT_CHECKS = 300


@lru_cache(maxsize=None)
def _treys_version() -> str:
    """The installed treys release: read from its dist-info folder beside the package (a fraction of a millisecond),
    else asked of importlib.metadata (about 40 ms here: its import and a scan of every installed package, which
    every process that ranks a hand paid before)."""
    import importlib.util  # noqa: PLC0415
    spec = importlib.util.find_spec("treys")
    if spec is not None and spec.origin is not None:
        found = list(Path(spec.origin).parent.parent.glob("treys-*.dist-info/METADATA"))
        if len(found) == 1:  # two would be a damaged install: let importlib.metadata choose, as it always did
            try:
                with open(found[0], encoding="utf-8") as f:
                    for line in itertools.islice(f, 20):  # Version is among the first fields of a METADATA file
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
            except OSError:
                pass
    from importlib import metadata  # noqa: PLC0415
    try:
        return metadata.version("treys")
    except metadata.PackageNotFoundError:  # pragma: no cover - vendored treys
        return "unknown"


def table_stamp() -> str:
    """The version stamp a cached table must carry to be used."""
    text = f"format {_TABLE_FORMAT}; treys {_treys_version()}; weights {RANK_WEIGHTS}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def table_digest(tables: dict[str, np.ndarray]) -> str:
    """SHA-256 of the tables' content (names, dtypes, shapes and bytes, in a fixed order)."""
    return arrays_digest(tables)


def cache_dir() -> Path:
    """Directory of acpcbot's caches: $XDG_CACHE_HOME/acpcbot or ~/.cache/acpcbot."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "acpcbot"


@lru_cache(maxsize=1)
def _treys_evaluator():  # type: ignore[no-untyped-def]
    from treys import Evaluator  # noqa: PLC0415 - only the builder and the spot checks need it
    return Evaluator()


def treys_rank(cards: Sequence[int]) -> int:
    """treys' own rank of 5..7 cards (slow; the reference the tables are built from and checked against)."""
    t = [TREYS_INT[c] for c in cards]
    return int(_treys_evaluator().evaluate(t[:2], t[2:]))


def build_tables() -> dict[str, np.ndarray]:
    """Build the rank tables from treys (about half a second); no cache involved."""
    tables: dict[str, np.ndarray] = {}
    weights = np.array(RANK_WEIGHTS, dtype=np.int64)
    for n in (5, 6, 7):
        multisets = [m for m in itertools.combinations_with_replacement(range(13), n)
                     if max(m.count(r) for r in set(m)) <= 4]
        # Suits dealt round-robin over the sorted ranks: copies of a rank get
        # distinct suits and no suit gets five cards, so treys sees no flush.
        ranks = [treys_rank([r * 4 + i % 4 for i, r in enumerate(m)]) for m in multisets]
        keys = weights[np.array(multisets)].sum(axis=1)
        if len(np.unique(keys)) != len(keys):
            raise RuntimeError(f"RANK_WEIGHTS do not separate {n}-card rank multisets")
        tables[f"keys{n}"] = keys.astype(np.int32)
        tables[f"ranks{n}"] = np.array(ranks, dtype=np.int16)
    flush = np.zeros(1 << 13, dtype=np.int16)
    for bits in range(1 << 13):
        if 5 <= bin(bits).count("1") <= 7:
            flush[bits] = treys_rank([r * 4 for r in range(13) if bits >> r & 1])
    tables["flush"] = flush
    return tables


def _shape_ok(tables: dict[str, np.ndarray]) -> bool:
    try:
        return all(tables[f"keys{n}"].shape == (size,) and tables[f"ranks{n}"].shape == (size,)
                   for n, size in _SIZES.items()) and tables["flush"].shape == (1 << 13,)
    except KeyError:
        return False


def _spot_check(tables: dict[str, np.ndarray]) -> bool:
    """Whether the tables rank sample hands (seeded, flushes included) exactly as treys does."""
    rank_by_key = {n: dict(zip(tables[f"keys{n}"].tolist(), tables[f"ranks{n}"].tolist())) for n in (5, 6, 7)}
    flush = tables["flush"]
    gen = random.Random(20261125)
    for i in range(SPOT_CHECKS):
        n = 5 + i % 3
        cards = gen.sample(range(52), n) if i % 4 else [s + 4 * r for s in (gen.randrange(4),)
                                                          for r in gen.sample(range(13), n)]
        key = SUIT_BASE + sum(KEY_A_LIST[c] for c in cards)
        if key & FLUSH_FLAGS:
            suit = SUIT_OF_FLAGS[(key & FLUSH_FLAGS) >> SUIT_SHIFT]
            ours = int(flush[sum(1 << (c >> 2) for c in cards if c & 3 == suit)])
        else:
            ours = rank_by_key[n].get(key & LOW, -1)
        if ours != treys_rank(cards):
            return False
    return True


def tables_valid(tables: dict[str, np.ndarray]) -> bool:
    """Whether tables read from a cache are exactly what treys gives: digest when known, else spot checks."""
    if not _shape_ok(tables):
        return False
    known = KNOWN_DIGESTS.get(_treys_version())
    if known is not None:
        return table_digest(tables) == known
    return _spot_check(tables)


def _expected_members(stamp: str) -> dict[str, Expected]:
    """Every member a cache file holds, with the dtype and shape it must have (checked before reading)."""
    members: dict[str, Expected] = {"stamp": ("U", ()), "digest": ("U", ())}
    for n, size in _SIZES.items():
        members[f"keys{n}"] = (np.dtype(np.int32), (size,))
        members[f"ranks{n}"] = (np.dtype(np.int16), (size,))
    members["flush"] = (np.dtype(np.int16), (1 << 13,))
    return members


def read_cache(path: Path) -> dict[str, np.ndarray] | None:
    """The tables in the cache file ``path`` when it is whole, fresh and verified; None when it must be rebuilt.

    Headers are checked before any array is read (a forged shape never
    allocates); the content must hash to the known digest of this treys
    release, or else to the digest stored beside the tables (a treys release
    without a known digest) and pass spot checks against treys.
    """
    stamp = table_stamp()
    try:
        arrays = read_npz(path, _expected_members(stamp), optional=["digest"])
    except (OSError, ArrayFileError):
        return None  # missing, unreadable, cut short, forged or damaged
    stored = str(arrays.pop("stamp"))
    digest = str(arrays.pop("digest")) if "digest" in arrays else None
    tables = {name: np.array(arr) for name, arr in arrays.items()}  # writable copies, as built ones are
    if stored != stamp:
        return None
    actual = table_digest(tables)
    known = KNOWN_DIGESTS.get(_treys_version())
    if known is not None:
        return tables if actual == known else None
    return tables if digest == actual and _spot_check(tables) else None


def _cache_members(stamp: str, tables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What a cache file holds: the stamp, the tables, and their digest when it is not known in advance."""
    extra = {} if _treys_version() in KNOWN_DIGESTS else {"digest": np.array(table_digest(tables))}
    return {"stamp": np.array(stamp), **extra, **tables}


def load_tables(directory: Path | None = None) -> dict[str, np.ndarray]:
    """The rank tables: from the cache in ``directory`` if fresh and verified, else built (and cached if possible)."""
    directory = cache_dir() if directory is None else Path(directory)
    stamp = table_stamp()
    path = directory / f"rank_tables_{stamp}.npz"
    tables = read_cache(path)
    if tables is not None:
        return tables
    tables = build_tables()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, "wb") as f:
            members: dict[str, Any] = _cache_members(stamp, tables)
            np.savez(f, **members)
        for old in directory.glob("rank_tables_*.npz"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass  # unwritable cache: keep the tables in memory only
    return tables


# ---------------------------------------------------------------------------
# The loaded lookups (on first use)
# ---------------------------------------------------------------------------

class RankByKey(dict[int, dict[int, int]]):
    """Rank by rank-weight sum, per card count (5, 6, 7): each count's dict made at its first use (a process that
    ranks only seven cards, as every hold'em showdown does, never makes the 24,570 entries of five and six)."""

    def __init__(self, tables: dict[str, np.ndarray]) -> None:
        super().__init__()
        self._tables = tables

    def __missing__(self, n: int) -> dict[int, int]:
        if n not in _SIZES:
            raise KeyError(n)
        made = self[n] = dict(zip(self._tables[f"keys{n}"].tolist(), self._tables[f"ranks{n}"].tolist()))
        return made


class Lookups:
    """The tables in the forms the ranking code reads them (the dicts made on first use)."""

    def __init__(self, tables: dict[str, np.ndarray]) -> None:
        #: rank by rank-weight sum, per card count (5, 6, 7)
        self.rank_by_key = RankByKey(tables)
        #: rank by the 13 rank bits of a flush suit, as a list and as an array
        self.flush_rank: list[int] = tables["flush"].tolist()
        self.flush_table = tables["flush"]
        self.tables = tables

    @cached_property
    def value7(self) -> dict[int, int]:
        """Showdown value (7463 - rank) by rank-weight sum of seven cards."""
        return dict(zip(self.tables["keys7"].tolist(), (WORST_RANK + 1 - self.tables["ranks7"].astype(np.int64)).tolist()))


_LOOKUPS: Lookups | None = None


def lookups() -> Lookups:
    """The rank lookups, loaded (from the verified cache, or built) on the first call."""
    global _LOOKUPS
    if _LOOKUPS is None:
        _LOOKUPS = Lookups(load_tables())
    return _LOOKUPS


def loaded() -> bool:
    """Whether the tables have been loaded in this process."""
    return _LOOKUPS is not None


@lru_cache(maxsize=None)
def dense_table(n: int) -> np.ndarray:
    """Rank by rank-weight sum for n cards, as a dense array (a few MB), built on first use."""
    tables = lookups().tables
    keys = tables[f"keys{n}"]
    table = np.zeros(int(keys.max()) + 1, dtype=np.int16)
    table[keys] = tables[f"ranks{n}"]
    return table
