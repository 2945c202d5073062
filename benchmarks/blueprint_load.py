"""Loading the HUNL blueprint: cold (empty cache folder) and warm, beside the load that grows the tree from scratch.

    .venv/bin/python benchmarks/blueprint_load.py [--repeats 3]

Each figure is the median over ``--repeats`` fresh processes, the kinds
alternated within each repeat, every process with its own
``XDG_CACHE_HOME`` (the caches of ``acpcbot.solve.hunl.load_cache``).  Prints
one JSON object:

- ``load_cpu_s``: CPU seconds of ``load_blueprint(load_game("hunl"))`` in a
  process that has imported everything already: ``cold`` (an empty cache
  folder: the tree grown and the rows decompressed, both then written),
  ``warm`` (the next process on that folder: both read back), and the peer
  ``uncached`` (the same load with the caches switched off: the tree grown
  through the engine and the rows decompressed, as every process did
  before); ``speedup`` is uncached / warm;
- ``shipped_reason_cpu_s``: ``shipped_reason`` for hunl and hulhe (the
  files' headers only);
- ``commands``: what a user runs, start to result, CPU seconds of the
  child process and wall seconds: ``acpcbot --list-strategies --game
  hunl`` and ``acpc-match play --game hunl --hands 1 --transport memory
  call call``, each with a warm cache folder (one untimed run first).

Times on a shared machine are noisy: the JSON carries the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

#: the measuring child: argv mode (cold/warm/uncached: a load; reason: shipped_reason) and game
CHILD = r"""
import json, lzma, sys, time
import numpy as np
from acpcbot.gamedef import load_game
from acpcbot.solve.hunl import policy
from acpcbot.solve.hunl.actions import BlueprintTree
from acpcbot.strategies.blueprint import load_blueprint, shipped_reason
mode, game = sys.argv[1], load_game(sys.argv[2])
if mode == "uncached":
    policy.load_tree = lambda g, a, w, directory=None: BlueprintTree(g, a, w)
    policy.unpacked_rows = lambda blob, directory=None: np.frombuffer(lzma.decompress(blob.tobytes()), dtype=np.uint8)
t = time.process_time()
if mode == "reason":
    assert shipped_reason(game) is None
else:
    load_blueprint(game)
print(json.dumps({"cpu": time.process_time() - t}))
"""


def child(mode: str, game: str, cache: Path) -> float:
    """CPU seconds the measuring child reports."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONHASHSEED="0")
    run = subprocess.run([sys.executable, "-c", CHILD, mode, game], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True)
    return float(json.loads(run.stdout.strip().splitlines()[-1])["cpu"])


def command(argv: list[str], cache: Path) -> tuple[float, float]:
    """(CPU seconds of the child process, wall seconds) of a command run start to end."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main(argv: list[str] | None = None) -> int:
    """Measure and print the JSON object."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per figure (default: 3)")
    args = p.parse_args(argv)
    load0 = os.getloadavg()
    loads: dict[str, list[float]] = {"cold": [], "warm": [], "uncached": []}
    reasons: dict[str, list[float]] = {"hunl": [], "hulhe": []}
    cmds: dict[str, list[tuple[float, float]]] = {"acpcbot --list-strategies --game hunl": [],
                                                  "acpc-match play --game hunl --hands 1 call call": []}
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm"  # the commands' folder: the evaluator's tables and the blueprint's caches kept
        argvs = {"acpcbot --list-strategies --game hunl": [str(BIN / "acpcbot"), "--list-strategies", "--game", "hunl"],
                 "acpc-match play --game hunl --hands 1 call call": [
                     str(BIN / "acpc-match"), "play", "--game", "hunl", "--hands", "1", "--transport", "memory",
                     "--no-aivat", "--quiet", "--run-dir", "RUN", "call", "call"]}
        child("cold", "hunl", warm)
        for r in range(-1, args.repeats):  # repeat -1 warms the commands' folder (and Python's bytecode), untimed
            for name, argv in argvs.items():
                taken = command([str(Path(tmp) / f"run{r}") if a == "RUN" else a for a in argv], warm)
                if r >= 0:
                    cmds[name].append(taken)
            if r < 0:
                continue
            folder = Path(tmp) / f"cache{r}"
            loads["uncached"].append(child("uncached", "hunl", Path(tmp) / "unused"))
            loads["cold"].append(child("cold", "hunl", folder))
            loads["warm"].append(child("warm", "hunl", folder))
            for game in reasons:
                reasons[game].append(child("reason", game, folder))
    med = {k: round(statistics.median(v), 3) for k, v in loads.items()}
    out = {
        "benchmark": "blueprint_load",
        "repeats": args.repeats,
        "load_cpu_s": {**med, "speedup": round(med["uncached"] / med["warm"], 1) if med["warm"] else None,
                       "all": {k: [round(x, 3) for x in v] for k, v in loads.items()}},
        "shipped_reason_cpu_s": {k: round(statistics.median(v), 4) for k, v in reasons.items()},
        "commands": {k: {"cpu_s": round(statistics.median(c for c, _ in v), 3),
                         "wall_s": round(statistics.median(w for _, w in v), 3)} for k, v in cmds.items()},
        "loadavg": {"start": [round(x, 2) for x in load0], "end": [round(x, 2) for x in os.getloadavg()]},
        "cores": os.cpu_count(),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
