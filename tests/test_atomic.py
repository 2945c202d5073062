"""acpcbot.atomic: a file is replaced whole or not at all, with no temporary file left behind."""

from __future__ import annotations

import os
import stat

import pytest

from acpcbot.atomic import atomic_write


def test_the_new_content_replaces_the_old_only_once_whole(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old")
    with atomic_write(target) as fh:
        fh.write("new")
        assert target.read_text() == "old"  # nobody sees the new file before it is whole
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["results.json"]


def test_an_error_while_writing_keeps_the_old_copy_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "policy.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["policy.json"]


def test_binary_files_and_a_new_target(tmp_path):
    target = tmp_path / "tables.npz"
    with atomic_write(target, "wb", fsync=True) as fh:
        fh.write(b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"


def test_the_file_gets_the_permissions_a_plain_open_gives(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic_write(tmp_path / "a.json") as fh:
            fh.write("{}")
        (tmp_path / "b.json").write_text("{}")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "a.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o640


def test_an_unwritable_folder_is_an_oserror_for_the_caller_to_name(tmp_path):
    with pytest.raises(OSError):
        with atomic_write(tmp_path / "missing" / "x.json") as fh:
            fh.write("x")


def test_a_full_disk_keeps_the_old_copy(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    target = tmp_path / "model.json"
    target.write_text("old")
    real_open = open

    def full_open(path, mode="r", *args, **kwargs):  # the temporary file lands on a full disk
        if "x" in mode:
            fh = real_open(path, mode, *args, **kwargs)
            fh.close()
            os.unlink(path)
            os.symlink("/dev/full", path)
            return real_open(path, mode.replace("x", "w"), *args, **kwargs)
        return real_open(path, mode, *args, **kwargs)

    import builtins
    builtins_open = builtins.open
    builtins.open = full_open
    try:
        with pytest.raises(OSError):
            with atomic_write(target) as fh:
                fh.write("x" * 100_000)
    finally:
        builtins.open = builtins_open
    assert target.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["model.json"]


def test_only_text_or_binary_writing():
    with pytest.raises(ValueError):
        with atomic_write("/tmp/never", "a"):
            pass
