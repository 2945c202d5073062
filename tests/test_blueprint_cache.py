"""The blueprint's rows are decompressed once per policy file and read back from acpcbot's cache folder."""

from __future__ import annotations

import os

import numpy as np
import pytest

from acpcbot.gamedef import load_game
from acpcbot.solve import blueprint as blueprint_module
from acpcbot.solve.blueprint import load_rows
from acpcbot.solve.blueprint_train import DEFAULT_POLICY, read_policy, write_policy


@pytest.fixture(scope="module")
def shipped():
    return read_policy(DEFAULT_POLICY)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A policy file of the shipped format with small rows, and what it holds: the cache's handling of a file does not
    depend on its size, and each decompression of the shipped one costs about a second (this file paid six)."""
    class Abstract:  # what the writer reads of an abstract game: its game and bucket counts
        game = load_game("hulhe")
        buckets = (169, 8, 6, 10)

    gen = np.random.default_rng(5)
    # each round a few kilobytes, so that the middle of a cache file falls inside a round's rows
    rows = [gen.integers(0, 256, (4, 8, 3, 40 + 10 * r), dtype=np.uint8) for r in range(4)]
    path = tmp_path_factory.mktemp("policy") / "small.npz"
    write_policy(path, Abstract(), rows, {"iterations": 1})
    return path, read_policy(path)


def _same(got, want):
    rows, meta = got
    assert all(np.array_equal(a, b) for a, b in zip(rows, want[0])) and len(rows) == 4
    assert {k: meta[k] for k in want[1]} == want[1]


def test_the_second_load_reads_the_cache_without_decompressing(tmp_path, monkeypatch):
    # what the second load must give back is the first load's own decompression (a separate read of the shipped
    # file cost another second)
    decompressed = []

    def kept(path):
        decompressed.append(read_policy(path))
        return decompressed[-1]

    monkeypatch.setattr(blueprint_module, "read_policy", kept)
    first = load_rows(DEFAULT_POLICY, tmp_path)
    assert len(decompressed) == 1  # nothing cached yet: decompressed once
    shipped = decompressed[0]
    _same(first, shipped)
    assert len(list(tmp_path.glob("blueprint_rows_*.npz"))) == 1

    def no_decompression(path):
        raise AssertionError("decompressed again")

    monkeypatch.setattr(blueprint_module, "read_policy", no_decompression)
    _same(load_rows(DEFAULT_POLICY, tmp_path), shipped)


def test_a_damaged_cache_is_rebuilt(tmp_path, small):
    policy, want = small
    load_rows(policy, tmp_path)
    (cached,) = tmp_path.glob("blueprint_rows_*.npz")
    data = bytearray(cached.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside a round's rows: the zip checksum catches it
    cached.write_bytes(bytes(data))
    _same(load_rows(policy, tmp_path), want)
    cached.write_bytes(cached.read_bytes()[:1000])  # cut short
    _same(load_rows(policy, tmp_path), want)
    _same(load_rows(policy, tmp_path), want)  # and the rebuilt copy reads back


def test_an_unwritable_cache_folder_only_costs_the_decompression(tmp_path, request):
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who may write anywhere")
        shipped = request.getfixturevalue("shipped")  # read once the test runs: a skip costs no decompression
        _same(load_rows(DEFAULT_POLICY, folder), shipped)
        assert list(folder.iterdir()) == []
    finally:
        os.chmod(folder, 0o700)


def test_another_policy_file_gets_its_own_cache(tmp_path, small):
    policy = small[0]
    copy = tmp_path / "mine.npz"
    copy.write_bytes(policy.read_bytes() + b"")
    cache = tmp_path / "cache"
    load_rows(policy, cache)
    load_rows(copy, cache)
    assert len(list(cache.glob("blueprint_rows_*.npz"))) == 1  # same content, same cache
