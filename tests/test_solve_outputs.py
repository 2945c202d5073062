"""`python -m acpcbot.solve` checks every file it will write before it trains (issue 32, defect 1): a bad --out or
--checkpoint found after a long build loses the build. And a refused no-limit game gets its size estimate."""

from __future__ import annotations

import pytest

from acpcbot.atomic import check_writable
from acpcbot.solve.__main__ import main


@pytest.mark.parametrize("argv", [
    ["leduc", "--iterations", "1000", "--out", "{missing}/x.json"],
    ["hulhe", "--iterations", "2", "--out", "{missing}/bp.npz"],
    ["hulhe", "--iterations", "2", "--checkpoint", "{missing}/c.npz", "--out", "{tmp}/bp.npz"],
    ["hulhe", "--iterations", "2", "--out", "{tmp}"],
    ["leduc", "--out", "{tmp}"],
])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys, argv):
    argv = [a.format(missing=tmp_path / "no-such-folder", tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    bad = [a for a in argv if "no-such-folder" in a or a == str(tmp_path)][0]
    assert err.startswith("acpcbot.solve: cannot write --") and bad in err and len(err.splitlines()) == 1
    assert "iteration" not in out + err and "information sets" not in out + err  # nothing was trained
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # and nothing left behind


def test_the_check_leaves_the_target_and_the_folder_as_they_were(tmp_path):
    target = tmp_path / "policy.json"
    check_writable(target)
    assert list(tmp_path.iterdir()) == []
    target.write_text("old")
    check_writable(target)
    assert target.read_text() == "old" and list(tmp_path.iterdir()) == [target]


def test_a_no_limit_game_is_refused_with_its_estimated_size(tmp_path, capsys):
    assert main(["hunl", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    # hunl: raise-to 200..20000 (19,801 sizes), fold and call at the first decision; 52P9 ordered deals
    assert "estimated tree size above 2.64e+19 (19,803 actions at the first decision alone x 1.34e+15 deals)" in err
