"""The HUNL blueprint: the build command on one and two workers, the trainer's inner rate, a decision's lookup.

    .venv/bin/python benchmarks/blueprint_hunl.py [--iterations 4000]

Prints one JSON object:
- ``build``: per worker count (1, then 2: the peer is the other), the
  command ``python -m acpcbot.solve hunl --iterations N --workers W``
  timed start to result (set-up, training, the policy written), the
  training seconds and rate it reports, and the children's peak resident
  memory so far (the driver's; workers share most pages with it);
- ``inner``: iterations per CPU-second of ``MCCFR.run`` in this process
  (iterations 1,000 to 1,000 + N/2), beside the same trainer on Leduc;
- ``decision_ms``: p50/p99 of ``HunlBlueprint.probabilities`` over the
  decisions of random hands with random sizes (the policy just built),
  beside the hulhe ``Blueprint.probabilities`` on random limit hands.
Times on a shared 2-core machine are noisy: the JSON carries the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
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
sys.path.insert(0, str(ROOT))

from acpcbot.engine import CALL, FOLD, ActionType, State, raise_to  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.solve.abstraction import Buckets  # noqa: E402
from acpcbot.solve.blueprint_train import DEFAULT_BUCKETS  # noqa: E402
from acpcbot.solve.hunl.actions import HUNL_DEFAULT, BlueprintTree  # noqa: E402
from acpcbot.solve.hunl.cards import BucketDeals, build_cards  # noqa: E402
from acpcbot.solve.hunl.mccfr import MCCFR, Settings  # noqa: E402
from acpcbot.solve.hunl.policy import HunlBlueprint  # noqa: E402
from acpcbot.solve.hunl.small_games import CardDeals  # noqa: E402
from acpcbot.strategies.blueprint import load_blueprint  # noqa: E402


def build(iterations: int, workers: int, out: Path) -> dict:
    """Run the build command; its wall time and what it reported."""
    cmd = [sys.executable, "-m", "acpcbot.solve", "hunl", "--iterations", str(iterations), "--workers", str(workers),
           "--out", str(out)]
    t = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    done = re.search(r"(\d[\d,]*) iterations in ([\d,.]+) s", run.stderr)
    setup = re.search(r"set up in (\d+) s", run.stderr)
    trained = float(done.group(2).replace(",", "")) if done else None
    return {"workers": workers, "command_s": round(wall, 1), "setup_s": int(setup.group(1)) if setup else None,
            "train_s": trained, "it_per_s": round(iterations / trained) if trained else None,
            "policy_mb": round(out.stat().st_size / 1e6, 2),
            "children_peak_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e3)}


def inner_rate(trainer: MCCFR, iterations: int) -> float:
    """Iterations per CPU-second of ``trainer.run`` after a warm-up of 1,000."""
    trainer.run(1000)
    c = time.process_time()
    trainer.run(iterations)
    return round(iterations / (time.process_time() - c))


def decisions(game_name: str, n: int, seed: int) -> list[State]:
    """Decision states of random hands (random legal actions and sizes) with real cards."""
    game = load_game(game_name)
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        cards = rng.sample(range(52), 9)
        state = State(game, hole=[cards[0:2], cards[2:4]])
        while not state.finished:
            if len(state.board) < game.board_cards_through(state.round):  # a new round's cards, through the engine
                state.deal_board(cards[4 + len(state.board):4 + game.board_cards_through(state.round)])
            out.append(state.copy())
            kind = rng.choice(state.legal_actions())
            if kind == ActionType.RAISE:
                lo, hi = state.raise_bounds()
                state.apply(raise_to(rng.choice([lo, rng.randint(lo, hi)])) if game.is_nolimit else state.raise_or_call())
            else:
                state.apply(CALL if kind == ActionType.CALL else FOLD)
    return out[:n]


def latency_ms(table, states: list[State]) -> dict:
    """p50/p99 milliseconds of ``table.probabilities`` over ``states``."""
    times = []
    for s in states:
        t = time.perf_counter()
        table.probabilities(s)
        times.append(1e3 * (time.perf_counter() - t))
    times.sort()
    return {"p50": round(statistics.median(times), 2), "p99": round(times[int(0.99 * (len(times) - 1))], 2)}


def main() -> None:
    """Measure and print the JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=4000, help="iterations of each build (default 4000)")
    args = ap.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0],
                 "iterations": args.iterations}
    with tempfile.TemporaryDirectory() as tmp:
        policy = Path(tmp) / "hunl.npz"
        out["build"] = [build(args.iterations, w, policy) for w in (1, 2)]
        buckets = Buckets.load(DEFAULT_BUCKETS)
        cards = build_cards(buckets, 64, 48)
        hunl = MCCFR(BlueprintTree(load_game("hunl"), HUNL_DEFAULT, cards.widths), BucketDeals(buckets, cards),
                     Settings())
        leduc_game = load_game("leduc")
        deals = CardDeals(leduc_game)
        leduc = MCCFR(BlueprintTree(leduc_game, None, deals.widths), deals, Settings())
        out["inner"] = {"hunl_it_per_cpu_s": inner_rate(hunl, args.iterations // 2),
                        "leduc_it_per_cpu_s": inner_rate(leduc, args.iterations // 2)}
        table = HunlBlueprint(load_game("hunl"), policy, DEFAULT_BUCKETS)
        out["decision_ms"] = {"hunl": latency_ms(table, decisions("hunl", 300, 1)),
                              "hulhe_peer": latency_ms(load_blueprint(load_game("hulhe")), decisions("hulhe", 300, 1))}
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
