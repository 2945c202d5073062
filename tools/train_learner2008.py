"""Rebuild learner2008's shipped tables: static players' round robins, then training on their dealer logs.

    .venv/bin/python tools/train_learner2008.py            # writes acpcbot/data/learner2008_{nolimit,limit}.npz

For each betting type it plays a heads-up round robin of the 2008 study's
static players (random2008, constant:d=2..6, mfs:t=1, mfs:t=5, rh:t=0.1,
rh:t=0.001: 45 pairings, table i dealt with seed SEED+i) through the
bundled dealer's in-memory transport (``acpc-match tournament --transport
memory``), then trains both settings on every decision of every player in
the dealer logs (``python -m acpcbot.strategies.learner2008_train train``).
Everything is seeded, so the same code gives the same tables.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import acpcbot.strategies.learner2008_train as learner  # noqa: E402
import acpcbot.strategies.study2008  # noqa: E402,F401  (registers the static players)
from dealer.arena.cli import main as acpc_match  # noqa: E402

POOL = ("random2008", "constant:d=2", "constant:d=3", "constant:d=4", "constant:d=5", "constant:d=6",
        "mfs:t=1", "mfs:t=5", "rh:t=0.1", "rh:t=0.001")
GAMES = {"nolimit": "hunl", "limit": "hulhe"}


def build(kind: str, hands: int, seed: int, jobs: int, out_dir: Path, work: Path) -> dict:
    """Play the round robin of one betting type and train its table; a summary."""
    game = GAMES[kind]
    start = time.monotonic()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = acpc_match(["tournament", "--game", game, "--hands", str(hands), "--seed", str(seed),
                           "--transport", "memory", "--jobs", str(jobs), "--json", "--runs-dir", str(work),
                           "--name", f"learner2008-{kind}", *POOL])
    if code != 0:
        raise SystemExit(f"the {game} round robin failed (acpc-match exit {code}): {buf.getvalue()[-2000:]}")
    run_dir = Path(json.loads(buf.getvalue())["run_dir"])
    played = time.monotonic() - start
    data = learner.extract([run_dir], jobs=jobs)
    tables = learner.train(data)
    out = out_dir / f"learner2008_{kind}.npz"
    meta = {"records": len(data), "games": data.games, "settings": list(tables), "pool": list(POOL),
            "hands_per_pairing": hands, "seed": seed,
            "command": f"python tools/train_learner2008.py --hands {hands} --seed {seed}"}
    learner.save_tables(out, tables, meta)
    return {"table": str(out), "game": game, "hands": sum(data.games.values()), "decisions": len(data),
            "bytes": out.stat().st_size, "play_s": round(played, 1),
            "train_s": round(time.monotonic() - start - played, 1),
            "states_seen": {n: t.states_seen for n, t in tables.items()}}


def main(argv: list[str] | None = None) -> int:
    """Build the shipped tables; print one JSON summary per table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per pairing (default: 2000)")
    parser.add_argument("--seed", type=int, default=2008, help="deal seed of the first table (default: 2008)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default: 2)")
    parser.add_argument("--out-dir", default=str(ROOT / "acpcbot" / "data"), help="where the tables go")
    parser.add_argument("--kinds", default="nolimit,limit", help="betting types to build (default: both)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="learner2008-") as work:
        for kind in args.kinds.split(","):
            print(json.dumps(build(kind, args.hands, args.seed, args.jobs, Path(args.out_dir), Path(work))),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
