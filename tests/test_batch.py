"""Beyond one machine: ``--print-jobs`` commands run by plain ``sh`` two at a time, merged, give the figures of the
run played on one machine; and an external program cannot reach the dealer or our bots through its folder."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dealer.arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
RECIPE = '''game = "leduc"
hands = 60
seed = 12
duplicate = true
transport = "memory"
players = ["cfr", "raise", "random"]
'''


@pytest.mark.slow  # six printed jobs run by sh (a process each), merged, and the run played whole: make soak
def test_printed_jobs_run_apart_and_merged_equal_one_run(tmp_path, capsys):
    recipe = tmp_path / "recipes" / "split.toml"
    recipe.parent.mkdir()
    recipe.write_text(RECIPE)
    assert main(["run", str(recipe), "--print-jobs", "--runs-dir", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr()
    jobs = printed.out.splitlines()
    assert len(jobs) == 6  # 3 tables, each in both seatings
    jobs_dir = tmp_path / "out" / "split-jobs"
    assert f"merge {jobs_dir}/match-*" in printed.err
    for i, job in enumerate(jobs):
        words = shlex.split(job)
        assert words[:3] == ["cd", str(recipe.parent), "&&"]  # a stated root, then absolute paths only
        assert Path(words[3]).is_absolute() and words[4] == "play"
        assert words[words.index("--run-dir") + 1] == str(jobs_dir / f"match-{i:03d}")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    running: list[subprocess.Popen] = []
    for job in jobs:  # plain sh, two at a time, from another folder
        if len(running) == 2:
            assert running.pop(0).wait(120) == 0
        running.append(subprocess.Popen(["sh", "-c", job], cwd="/", env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE))
    for proc in running:
        assert proc.wait(120) == 0, proc.stderr.read() if proc.stderr else ""
    folders = sorted(str(p) for p in jobs_dir.glob("match-*"))
    assert len(folders) == 6
    assert main(["merge", *folders, "--runs-dir", str(tmp_path / "merged"), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert main(["run", str(recipe), "--runs-dir", str(tmp_path / "single"), "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    for key in ("results", "crosstable", "rankings"):
        assert merged[key] == single[key], key


PLANTER = r'''
import os, socket, sys
# a bot that leaves packages named like ours in its working folder
for pkg in ("dealer", "acpcbot"):
    os.makedirs(pkg, exist_ok=True)
    for f in ("__init__.py", "__main__.py"):
        with open(os.path.join(pkg, f), "w") as out:
            out.write("import sys; sys.exit('hijacked by the external bot')\n")
sock = socket.create_connection((sys.argv[-2], int(sys.argv[-1])), timeout=30)
sock.sendall(b"VERSION:2.0.0\r\n")
buf = b""
while True:
    data = sock.recv(65536)
    if not data:
        break
    buf += data
    *lines, buf = buf.split(b"\n")
    for raw in lines:
        line = raw.decode().rstrip("\r")
        if line.startswith("MATCHSTATE"):
            sock.sendall((line + ":c\r\n").encode())
'''


def test_an_external_program_cannot_take_over_later_matches(tmp_path):
    (tmp_path / "planter.py").write_text(PLANTER)
    out = subprocess.run([sys.executable, "-m", "dealer.arena", "play", "--game", "kuhn2p", "--hands", "10",
                          "--duplicate", "--jobs", "1", "call", "--external", f"{sys.executable} planter.py",
                          "--runs-dir", str(tmp_path / "runs"), "--json"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stdout + out.stderr
    doc = json.loads(out.stdout)
    assert [m["complete"] for m in doc["matches"]] == [True, True]
    run_dir = Path(doc["run_dir"])
    assert (run_dir / "external" / "planter" / "dealer" / "__main__.py").exists()  # it did plant, in its own folder
    assert not (run_dir / "dealer").exists() and not (run_dir / "acpcbot").exists()


# An external bot that plants code where later processes start: packages named like ours and a module a
# plugin may import if it is there, in the run folder itself (two folders up from the folder it is given).
PLANT_IN_RUN_FOLDER = r'''
import os, pathlib
run = pathlib.Path.cwd().parents[1]
marker = run / "HIJACKED"
code = f"import pathlib, sys; pathlib.Path({str(marker)!r}).write_text(__name__); sys.exit(99)\n"
for pkg in ("dealer", "acpcbot"):
    os.makedirs(run / pkg, exist_ok=True)
    for f in ("__init__.py", "__main__.py"):
        (run / pkg / f).write_text(code)
(run / "speedups.py").write_text(code)
'''

# A user's plugin (beside the recipe) that uses an optional accelerator module when one can be imported.
PLUGIN = '''
from acpcbot.strategies.simple import CallStrategy


class Careful(CallStrategy):
    name = "careful"

    def start_match(self, info):
        super().start_match(info)
        try:
            import speedups  # noqa: F401  - optional; not installed here
        except ImportError:
            pass
'''


def test_code_planted_in_the_run_folder_never_runs_in_the_dealer_or_our_bots(tmp_path):
    (tmp_path / "planter.py").write_text(PLANT_IN_RUN_FOLDER + PLANTER)
    (tmp_path / "mybots.py").write_text(PLUGIN)
    out = subprocess.run([sys.executable, "-m", "dealer.arena", "play", "--game", "kuhn2p", "--hands", "10",
                          "--duplicate", "--jobs", "1", "mybots:Careful", "--external", f"{sys.executable} planter.py",
                          "--runs-dir", str(tmp_path / "runs"), "--json"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    run_dir = next((tmp_path / "runs").iterdir())
    assert (run_dir / "dealer" / "__main__.py").exists() and (run_dir / "speedups.py").exists()  # it planted
    hijacked = run_dir / "HIJACKED"
    assert not hijacked.exists(), f"planted {hijacked.read_text()} ran"
    assert out.returncode == 0, out.stdout + out.stderr
    assert [m["complete"] for m in json.loads(out.stdout)["matches"]] == [True, True]


def test_a_second_batch_of_the_same_recipe_gets_a_folder_of_its_own(tmp_path, capsys):
    # issue 32: the second batch reused NAME-jobs/, so every one of its jobs found its folder taken
    recipe = tmp_path / "split.toml"
    recipe.write_text(RECIPE)
    folders = []
    for _ in range(2):
        assert main(["run", str(recipe), "--print-jobs", "--runs-dir", str(tmp_path / "out")]) == 0
        jobs = capsys.readouterr().out.splitlines()
        outs = {str(Path(shlex.split(j)[shlex.split(j).index("--run-dir") + 1]).parent) for j in jobs}
        assert len(outs) == 1
        folders.append(outs.pop())
    assert folders == [str(tmp_path / "out" / "split-jobs"), str(tmp_path / "out" / "split-jobs-2")]
    assert all(Path(f).is_dir() for f in folders)  # made when printed: a third batch cannot take them either
