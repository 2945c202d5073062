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


@pytest.mark.slow
def test_ctrl_c_while_the_blueprint_is_written_stops_at_once_and_keeps_the_checkpoint(tmp_path):
    # issue 32: after training, the save said nothing for 45 s and Ctrl-C did nothing; now each step is logged and
    # Ctrl-C stops at once, the checkpoint (written before the save) kept for the same command to finish the job
    import re
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    checkpoint, out = tmp_path / "c.npz", tmp_path / "bp.npz"
    command = [sys.executable, "-m", "acpcbot.solve", "hulhe", "--iterations", "1", "--check-every", "1",
               "--compress", "1", "--checkpoint", str(checkpoint), "--out", str(out)]
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=root)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("policy: measuring"):
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.stderr.read()
    assert proc.wait(120) == 130, "".join(seen) + rest
    assert time.monotonic() - sent < 30
    text = "".join(seen) + rest
    assert "(355 MB)" in text and "policy: quantising the average strategy" in text
    assert f"interrupted: {out} not written; the same command with --checkpoint {checkpoint} writes it" in text
    assert checkpoint.is_file() and not out.exists()
    done = subprocess.run(command, capture_output=True, text=True, cwd=root, timeout=600)  # the same command
    assert done.returncode == 0, done.stderr
    assert "resumed from" in done.stderr
    assert not re.search(r"(?m)^iteration \d+  exploitability", done.stderr)  # no training again
    assert out.is_file()
