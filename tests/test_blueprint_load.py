"""The HUNL blueprint loads from verified caches (its betting tree as arrays, its rows uncompressed), node for node
what growing the tree gives; whether a shipped blueprint plays a game is read from the files' headers (issue 31)."""

from __future__ import annotations

import json
import lzma
import shutil
import zipfile

import numpy as np
import pytest

from acpcbot.arrayfile import arrays_digest
from acpcbot.engine import ActionType
from acpcbot.gamedef import load_game, parse_game
from acpcbot.solve.abstraction import AbstractionError, Buckets
from acpcbot.solve.blueprint_registry import spec_named
from acpcbot.solve.hunl import header as header_module, load_cache as cache
from acpcbot.solve.hunl.actions import HUNL_DEFAULT, ActionAbstraction, BlueprintTree
from acpcbot.solve.hunl.policy import buckets_digest
from acpcbot.strategies import blueprint as blueprint_module
from acpcbot.strategies.blueprint import shipped_reason

HUNL = load_game("hunl")
HUNL_SPEC = spec_named("hunl")
HULHE_SPEC = spec_named("hulhe")
assert HUNL_SPEC is not None and HULHE_SPEC is not None
SHIPPED_WIDTHS = (169, 64, 48, 10)
LEDUCNL = load_game("leducnl")
NL_SIZES = ActionAbstraction(sizes=(((0.5, 1.0), (1.0,)), ((0.5, 1.0, 2.0), (1.0,))), max_raises=(2, 2))
FIELDS = ("actor", "round", "actions", "children", "base", "fold_value", "stake", "size", "widths")
ONLY = "the blueprint plays the games with a blueprint only: hulhe, hunl"
need_hunl = pytest.mark.skipif(not HUNL_SPEC.policy.exists(), reason="the HUNL policy is not shipped here")
need_hulhe = pytest.mark.skipif(not HULHE_SPEC.policy.exists(), reason="the hulhe policy is not shipped here")


def assert_same_tree(got: BlueprintTree, want: BlueprintTree) -> None:
    for name in FIELDS:
        assert getattr(got, name) == getattr(want, name), name
    # the same kinds of objects, not only equal values: the engine's ActionType, None at a showdown
    assert all(type(a[0]) is ActionType for acts in got.actions for a in acts)
    assert [v is None for v in got.fold_value] == [v is None for v in want.fold_value]


@pytest.fixture
def grown(monkeypatch):
    """Counts the trees grown (``BlueprintTree._grow`` calls) from here on."""
    calls: list[int] = []
    real = BlueprintTree._grow

    def counting(self, root):
        calls.append(1)
        real(self, root)
    monkeypatch.setattr(BlueprintTree, "_grow", counting)
    return calls


# ------------------------------------------------------------------ the tree, node for node

@pytest.fixture(scope="module")
def hunl_trees(tmp_path_factory):
    """The shipped abstraction's tree grown (and cached) once, and read back from the cache without growing."""
    folder = tmp_path_factory.mktemp("cache")
    first = cache.load_tree(HUNL, HUNL_DEFAULT, SHIPPED_WIDTHS, folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BlueprintTree, "_grow", lambda self, root: pytest.fail("grown again"))
        second = cache.load_tree(HUNL, HUNL_DEFAULT, SHIPPED_WIDTHS, folder)
    return first, second


def test_the_cached_hunl_tree_is_the_grown_one_node_for_node(hunl_trees):
    first, second = hunl_trees
    assert second is not first
    assert_same_tree(second, first)
    # the shipped policy's header: 4,906,497 entries over this tree
    assert first.size == 4_906_497 and first.num_nodes == 99_888


def test_limit_and_small_no_limit_trees_round_trip(tmp_path, grown):
    leduc = load_game("leduc")
    tree = cache.load_tree(leduc, None, (3, 9), tmp_path)
    # Leduc's betting: 6 decision nodes a round, 5 ways into the second: 36 nodes (x 3 and 9 keys: 288 infosets)
    assert (tree.num_nodes, len(tree.stake), tree.size) == (36, 49, 672)
    assert_same_tree(cache.load_tree(leduc, None, (3, 9), tmp_path), tree)
    nl = cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), tmp_path)
    assert any(a[0] == ActionType.RAISE and a[1] > 0 for acts in nl.actions for a in acts)
    assert_same_tree(cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), tmp_path), nl)
    assert_same_tree(cache.tree_from_arrays(LEDUCNL, NL_SIZES, (3, 6), cache.tree_arrays(nl)), nl)
    assert len(grown) == 2 and len(list(tmp_path.glob("hunl_tree_*.npz"))) == 2


def test_the_key_is_what_the_tree_is_derived_from(monkeypatch):
    key = cache.tree_key(LEDUCNL, NL_SIZES, (3, 6))
    other_sizes = ActionAbstraction(sizes=(((0.5,), (1.0,)), ((0.5, 1.0, 2.0), (1.0,))), max_raises=(2, 2))
    stack = parse_game(LEDUCNL.to_text().replace("stack = 1200 1200", "stack = 1000 1000"))
    others = {cache.tree_key(LEDUCNL, other_sizes, (3, 6)), cache.tree_key(LEDUCNL, NL_SIZES, (3, 7)),
              cache.tree_key(stack, NL_SIZES, (3, 6))}
    monkeypatch.setattr(cache, "_TREE_CODE", cache._TREE_CODE[:-1])  # the code that grows the tree is part of it
    others.add(cache.tree_key(LEDUCNL, NL_SIZES, (3, 6)))
    assert key not in others and len(others) == 4


# ------------------------------------------------------------------ a bad tree cache is rebuilt

@pytest.fixture
def nl_cache(tmp_path, grown):
    """A leducnl tree cached in ``tmp_path``: (the tree, the cache file, the grow counter)."""
    tree = cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), tmp_path)
    (path,) = tmp_path.glob("hunl_tree_*.npz")
    return tree, path, grown


def _reload(tmp_path, want: BlueprintTree, grown: list[int], grows: int) -> None:
    assert_same_tree(cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), tmp_path), want)
    assert len(grown) == grows
    assert_same_tree(cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), tmp_path), want)  # the rebuilt file reads back
    assert len(grown) == grows


def _rewrite(path, edit, redigest: bool) -> None:
    """Rewrite a cache file with ``edit(arrays)`` applied, the stored digest kept or made to match."""
    with np.load(path) as z:
        meta = json.loads(str(z["meta"]))
        arrays = {k: np.array(z[k]) for k in z.files if k != "meta"}
    edit(arrays)
    if redigest:
        meta["digest"] = arrays_digest(arrays)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def test_a_damaged_or_cut_tree_cache_is_rebuilt(tmp_path, nl_cache):
    tree, path, grown = nl_cache
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    _reload(tmp_path, tree, grown, 2)
    path.write_bytes(path.read_bytes()[:500])
    _reload(tmp_path, tree, grown, 3)


def test_an_edited_tree_cache_is_caught_by_its_digest(tmp_path, nl_cache):
    tree, path, grown = nl_cache

    def swap_actors(a):
        a["actor"] = (1 - a["actor"]).astype(np.int8)  # still a well-formed tree: only the digest tells
    _rewrite(path, swap_actors, redigest=False)
    _reload(tmp_path, tree, grown, 2)


def test_a_hashed_cache_that_is_no_tree_is_rebuilt(tmp_path, nl_cache):
    tree, path, grown = nl_cache

    def loop(a):
        a["child"] = a["child"].copy()
        a["child"][3] = len(a["actor"]) + 5  # a child past the last node, digest made to match
    _rewrite(path, loop, redigest=True)
    _reload(tmp_path, tree, grown, 2)

    def shift_rows(a):
        a["base"] = a["base"] + 1
    _rewrite(path, shift_rows, redigest=True)
    _reload(tmp_path, tree, grown, 3)


def test_another_trees_cache_under_this_name_is_rebuilt(tmp_path, nl_cache):
    tree, path, grown = nl_cache
    other = tmp_path / "other"
    short_stacks = parse_game(LEDUCNL.to_text().replace("stack = 1200 1200", "stack = 1000 1000"))
    cache.load_tree(short_stacks, NL_SIZES, (3, 6), other)  # a well-formed tree with its own digest: only the key
    # tells it from this one
    (theirs,) = other.glob("hunl_tree_*.npz")
    shutil.copyfile(theirs, path)
    _reload(tmp_path, tree, grown, 3)


def test_an_unwritable_cache_folder_only_costs_the_growing(tmp_path, grown):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    folder = blocker / "cache"
    tree = cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), folder)
    assert_same_tree(cache.load_tree(LEDUCNL, NL_SIZES, (3, 6), folder), tree)
    assert len(grown) == 2


# ------------------------------------------------------------------ the rows

def test_rows_are_decompressed_once_and_a_bad_rows_cache_is_rebuilt(tmp_path, monkeypatch):
    truth = np.random.default_rng(3).integers(0, 256, size=5000, dtype=np.uint8)
    blob = np.frombuffer(lzma.compress(truth.tobytes()), dtype=np.uint8)
    assert np.array_equal(cache.unpacked_rows(blob, tmp_path), truth)
    (path,) = tmp_path.glob("hunl_rows_*.npz")
    real = lzma.decompress
    calls: list[int] = []
    monkeypatch.setattr(cache.lzma, "decompress", lambda b: calls.append(1) or real(b))
    assert np.array_equal(cache.unpacked_rows(blob, tmp_path), truth) and calls == []

    def raise_all(a):
        a["rows"] = a["rows"].copy()
        a["rows"][:10] = 255
    _rewrite(path, raise_all, redigest=False)
    assert np.array_equal(cache.unpacked_rows(blob, tmp_path), truth) and len(calls) == 1
    path.write_bytes(path.read_bytes()[:300])
    assert np.array_equal(cache.unpacked_rows(blob, tmp_path), truth) and len(calls) == 2
    assert np.array_equal(cache.unpacked_rows(blob, tmp_path), truth) and len(calls) == 2
    damaged = blob.copy()
    damaged[len(damaged) // 2] ^= 0xFF  # another blob, another name: decompressed, and lzma's check refuses it
    with pytest.raises(lzma.LZMAError):
        cache.unpacked_rows(damaged, tmp_path)


# ------------------------------------------------------------------ whether the shipped blueprint plays a game

@need_hulhe
@need_hunl
def test_shipped_reason_answers_as_before():
    assert shipped_reason(load_game("hulhe")) is None
    assert shipped_reason(HUNL) is None
    for name in ("leduc", "kuhn3p", "3pl", "3pnl", "leducnl"):
        assert shipped_reason(load_game(name)) == ONLY


def _variant(game, old: str, new: str):
    text = game.to_text()
    assert old in text
    return parse_game(text.replace(old, new), "variant")


@need_hulhe
@need_hunl
@pytest.mark.parametrize("spec_name, old, new", [("hunl", "stack = 20000 20000", "stack = 40000 40000"),
                                                 ("hulhe", "blind = 10 5", "blind = 20 10")])
def test_a_game_the_files_were_not_trained_for_gets_the_loaders_words(spec_name, old, new):
    spec = spec_named(spec_name)
    game = _variant(load_game(spec_name), old, new)
    assert spec.fits(game)
    with pytest.raises(AbstractionError) as loading:
        spec.load(game, spec.policy, spec.buckets)  # refused before any tree is built
    assert "trained for another game" in str(loading.value)
    assert shipped_reason(game) == f"the shipped blueprint does not fit this game: {loading.value}"


@need_hulhe
@need_hunl
def test_shipped_reason_reads_headers_not_tables(monkeypatch):
    def no_load(*args, **kwargs):
        raise AssertionError("loaded a table")
    monkeypatch.setattr(blueprint_module, "load_blueprint", no_load)
    assert shipped_reason(HUNL) is None and shipped_reason(load_game("hulhe")) is None


@need_hunl
def test_the_header_check_is_the_loaders(tmp_path):
    k_other = tmp_path / "buckets.npz"
    with np.load(HUNL_SPEC.buckets) as z:
        arrays = {k: np.array(z[k]) for k in z.files}
    arrays["river_edges"] = arrays["river_edges"] + 1
    np.savez(k_other, **arrays)
    assert header_module.file_digest(HUNL_SPEC.buckets) == buckets_digest(Buckets.load(HUNL_SPEC.buckets))
    with pytest.raises(AbstractionError, match="other hold'em buckets") as checked:
        HUNL_SPEC.check(HUNL, HUNL_SPEC.policy, k_other)
    with pytest.raises(AbstractionError) as loaded:
        HUNL_SPEC.load(HUNL, HUNL_SPEC.policy, k_other)
    assert str(checked.value) == str(loaded.value)


@need_hunl
def test_a_damaged_policy_passes_the_header_and_is_refused_loudly_at_load(tmp_path):
    damaged = tmp_path / "policy.npz"
    with zipfile.ZipFile(HUNL_SPEC.policy) as src, zipfile.ZipFile(damaged, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "rows.npy":
                data = data[:-1000] + bytes(1000)  # the rows' last bytes zeroed: lzma's check fails
            dst.writestr(name, data)
    HUNL_SPEC.check(HUNL, damaged, None)  # the header is whole
    with pytest.raises(AbstractionError, match="cannot read the HUNL policy"):
        HUNL_SPEC.load(HUNL, damaged, None)
