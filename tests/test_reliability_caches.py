"""Caches are verified or rebuilt (issue 34 items 2 and 4): a forged array header never allocates, edited blueprint
rows are caught by the content digest stored beside them, and a bounded fuzz of random byte damage never changes
what a cache gives without a rebuild."""

from __future__ import annotations

import io
import random
import zipfile

import numpy as np
import pytest
from numpy.lib import format as npy_format

from acpcbot.arrayfile import ArrayFileError, read_npz
from acpcbot.evaluator import tables as ev_tables
from acpcbot.solve import blueprint as blueprint_module
from acpcbot.solve.blueprint import load_rows


def _forge(path, member: str, shape: tuple[int, ...], descr: str) -> None:
    """Rewrite ``member`` of the .npz at ``path`` with a header announcing ``shape`` over a few real bytes."""
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": shape})
    members[f"{member}.npy"] = header.getvalue() + b"\0" * 64
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_a_forged_huge_header_is_refused_before_anything_is_allocated(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(4, dtype=np.int32))
    _forge(path, "a", (1 << 40,), "<i4")  # 4 TiB announced
    with pytest.raises(ArrayFileError, match="shape"):
        read_npz(path, {"a": (np.int32, (4,))})
    with pytest.raises(ArrayFileError, match="announces"):
        read_npz(path, {"a": (np.int32, None)})  # any shape allowed: still only the bytes the file holds


@pytest.fixture
def live_tables(monkeypatch):
    """The tables this process uses; building them again is replaced by a copy (the real build is slow)."""
    live = ev_tables.lookups().tables
    monkeypatch.setattr(ev_tables, "build_tables", lambda: {k: v.copy() for k, v in live.items()})
    return live


def test_rank_table_cache_with_a_forged_header_is_rebuilt(tmp_path, live_tables):
    ev_tables.load_tables(tmp_path)
    (path,) = tmp_path.glob("rank_tables_*.npz")
    _forge(path, "keys7", (1 << 40,), "<i4")
    assert ev_tables.read_cache(path) is None
    tables = ev_tables.load_tables(tmp_path)  # rebuilt, not "Unable to allocate 4 TiB"
    assert all(np.array_equal(tables[k], live_tables[k]) for k in live_tables)
    assert ev_tables.read_cache(path) is not None  # and written back whole: later runs read it


@pytest.fixture
def small_policy(tmp_path, monkeypatch):
    """A policy file whose rows (small, random) stand in for the shipped ones; ``rebuilt`` counts decompressions."""
    rng0 = np.random.default_rng(7)
    truth = [rng0.integers(0, 256, size=(3, 2, 3, 4), dtype=np.uint8) for _ in range(4)]
    meta = {"k": [2, 2, 2, 2], "game_text": "g", "iterations": 1}
    rebuilt: list[int] = []

    def fake_read_policy(path):
        rebuilt.append(1)
        return [q.copy() for q in truth], dict(meta, k=tuple(meta["k"]))

    monkeypatch.setattr(blueprint_module, "read_policy", fake_read_policy)
    policy = tmp_path / "policy.npz"
    policy.write_bytes(b"a policy file")
    cache = tmp_path / "cache"
    load_rows(policy, cache)
    (path,) = cache.glob("blueprint_rows_*.npz")
    return policy, cache, path, truth, rebuilt


def test_blueprint_cache_with_a_forged_header_is_rebuilt(small_policy):
    policy, cache, path, truth, rebuilt = small_policy
    _forge(path, "round3", (1 << 20, 1 << 20, 3, 4), "|u1")
    rows, _ = load_rows(policy, cache)
    assert all(np.array_equal(a, b) for a, b in zip(rows, truth)) and len(rebuilt) == 2


def test_edited_blueprint_rows_are_caught_and_rebuilt(small_policy):
    policy, cache, path, truth, rebuilt = small_policy
    with np.load(path, allow_pickle=False) as z:
        meta = str(z["meta"])
        rows = [np.array(z[f"round{r}"]) for r in range(4)]
    rows[0][..., 2, :] = 255  # preflop: every row raises, the shapes unchanged
    np.savez(path, meta=np.array(meta), **{f"round{r}": q for r, q in enumerate(rows)})
    got, _ = load_rows(policy, cache)
    assert all(np.array_equal(a, b) for a, b in zip(got, truth)) and len(rebuilt) == 2
    load_rows(policy, cache)
    assert len(rebuilt) == 2  # the rebuilt cache is whole again and read back


def _corrupt(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0:
        return bytes(buf[: rng.randrange(len(buf))])  # cut short
    for _ in range(rng.randint(1, 6)):  # flipped bytes anywhere: zip headers, array headers, data
        i = rng.randrange(len(buf)) if kind != 1 else rng.randrange(min(len(buf), 400))
        buf[i] = rng.randrange(256) if kind != 3 else buf[i] ^ (1 << rng.randrange(8))
    return bytes(buf)


def test_fuzz_rank_table_cache_damage_never_changes_the_tables(tmp_path, live_tables):
    ev_tables.load_tables(tmp_path)
    (path,) = tmp_path.glob("rank_tables_*.npz")
    good = path.read_bytes()
    rng = random.Random(3401)
    for _ in range(100):
        path.write_bytes(_corrupt(good, rng))
        got = ev_tables.read_cache(path)  # None means: rebuild
        assert got is None or all(np.array_equal(got[k], live_tables[k]) for k in live_tables)


def test_fuzz_blueprint_cache_damage_never_changes_the_rows(small_policy):
    policy, cache, path, truth, rebuilt = small_policy
    good = path.read_bytes()
    rng = random.Random(3402)
    for _ in range(150):
        path.write_bytes(_corrupt(good, rng))
        before = len(rebuilt)
        rows, got_meta = load_rows(policy, cache)
        if len(rebuilt) == before:  # read from the damaged file: it must give exactly the truth
            assert all(np.array_equal(a, b) for a, b in zip(rows, truth))
            assert got_meta["k"] == (2, 2, 2, 2) and got_meta["game_text"] == "g"
    assert len(rebuilt) > 100  # most damage was caught and rebuilt
