"""Reproduce the 2008 study's genetic tuning of learner2008 at a chosen budget, in one command.

    .venv/bin/python tools/reproduce_2008_tuning.py --out /tmp/tuning2008     # the small budget of docs/experiments.md

1. Training records: freezeout tables of the study's static pool (random2008, constant:d=2..6, mfs:t=1,
   mfs:t=5, rh:t=0.1, rh:t=0.001) at sizes 4,6,8,10,2, the study's 1,000-hand limit for training data,
   every decision of every player recorded (``acpc-match sitngo --record``).
2. ``acpc-match tune`` of learner2008's ten constants (Table 4 bounds) on those records against the
   study's weighted field (MFS T=1 and T=5 weight 2, Random 4, Constant "continue" and "raise a lot" 1,
   RH T=0.1 and T=0.001 1).
3. The study's head-to-head pairings (tables of 4,6,8,10,2 players, 40-hand limit, duplicate seats) of the
   tuned constants, ``setting=genetic`` (the study's) and ``setting=common``, all three counted from the
   same records, against Random, Constant (continue, raise a lot), MFS T=1 and RH T=0.1.

Prints one JSON object (also written to OUT/summary.json); every step's run folder is under OUT.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer.arena.cli import main as acpc_match  # noqa: E402

POOL = ("random2008", "constant:d=2", "constant:d=3", "constant:d=4", "constant:d=5", "constant:d=6",
        "mfs:t=1", "mfs:t=5", "rh:t=0.1", "rh:t=0.001")
FIELD = ("2*mfs:t=1", "2*mfs:t=5", "4*random2008", "1*constant:d=2", "1*constant:d=5", "1*rh:t=0.1",
         "1*rh:t=0.001")
PAIRINGS = ("random2008", "constant:d=2", "constant:d=5", "mfs:t=1", "rh:t=0.1")
STUDY_TABLES = ("--stack", "1000", "--blinds", "10/20", "--button", "random", "--short-stop")


def run(argv: list[str]) -> dict:
    """``acpc-match ARGV --json`` in this process; its JSON output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = acpc_match(argv + ["--json"])
    if code != 0:
        raise SystemExit(f"acpc-match {' '.join(argv)} failed with exit {code}")
    return json.loads(out.getvalue())


def main() -> int:
    """Run the three steps; print the summary."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="folder for the records, checkpoint and run folders")
    p.add_argument("--data-tables", type=int, default=120, help="tables of the pool recorded (default: 120)")
    p.add_argument("--generations", type=int, default=5, help="generations (default: 5; the study: more)")
    p.add_argument("--tune-tables", type=int, default=4, help="heads-up tables per opponent and individual "
                                                              "(default: 4)")
    p.add_argument("--match-tables", type=int, default=20, help="tables per head-to-head pairing (default: 20)")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = str(out / "runs")
    records = out / "records.npz"
    if not records.is_file():
        run(["sitngo", "--tables", str(args.data_tables), "--size", "4,6,8,10,2", "--max-hands", "1000",
             *STUDY_TABLES, "--seed", "1000", "--runs-dir", runs, "--name", "records", "--record", str(records),
             *POOL])
    tuned = run(["tune", f"learner2008:data={records}", "--size", "2", "--tables", str(args.tune_tables),
                 "--max-hands", "40", *STUDY_TABLES, "--generations", str(args.generations), "--seed", "2008",
                 "--jobs", str(args.jobs), "--checkpoint", str(out / "tune-checkpoint.json"), "--field", *FIELD])
    best = tuned["best"]["spec"]
    learners = {"tuned": best, "genetic": f"learner2008:data={records},setting=genetic",
                "common": f"learner2008:data={records},setting=common"}
    matches: dict[str, dict[str, dict]] = {}
    for label, spec in learners.items():
        for opp in PAIRINGS:
            doc = run(["sitngo", "--tables", str(args.match_tables), "--size", "4,6,8,10,2", "--max-hands", "40",
                       *STUDY_TABLES, "--duplicate", "--seed", "5000", "--jobs", str(args.jobs),
                       "--runs-dir", runs, "--name", f"{label}-vs-{opp.replace(':', '-')}",
                       f"learner={spec}", f"opponent={opp}"])
            s = doc["summary"]["learner"]
            matches.setdefault(label, {})[opp] = {"won": s["won"], "tables": s["tables"], "win_rate": s["win_rate"],
                                                  "win_ci95": s["win_ci95"]}
    summary = {"best": best, "fitness": tuned["best"]["fitness"],
               "generations": [{"best": h["best_fitness"], "mean": h["mean_fitness"]} for h in tuned["history"]],
               "matches": matches}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
