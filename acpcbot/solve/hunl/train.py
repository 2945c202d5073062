"""``python -m acpcbot.solve hunl``: build the HUNL blueprint by MCCFR, resumable, and write its policy file.

    python -m acpcbot.solve hunl --minutes 120 --checkpoint hunl.ckpt.npz     # the build (docs/blueprint-hunl.md)
    python -m acpcbot.solve hunl --iterations 2000 --out /tmp/hunl.npz        # a smoke run

The same command with the same ``--checkpoint`` resumes where it stopped
(Ctrl-C or SIGTERM writes the checkpoint first); ``--minutes`` and
``--iterations`` count the whole run, resumes included.  Progress goes to
stderr; the policy file records iterations, seconds and every parameter
of the abstraction and the trainer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import signal
import sys
import time
from pathlib import Path

import numpy as np

from ...atomic import check_writable
from ...gamedef import GameDefError, load_game
from ..abstraction import AbstractionError, Buckets
from ..blueprint_train import DEFAULT_BUCKETS, single_threaded_blas
from .actions import HUNL_DEFAULT, BlueprintTree
from .cards import BucketDeals, HunlCards, build_cards
from .files import DEFAULT_POLICY, fits
from .mccfr import MCCFR, Settings, log
from .parallel import ParallelMCCFR
from .policy import buckets_digest, quantised_rows, write_policy

DEFAULT_K_FLOP = 64
DEFAULT_K_TURN = 48


def parser() -> argparse.ArgumentParser:
    """The command-line parser of the HUNL blueprint build."""
    ap = argparse.ArgumentParser(prog="python -m acpcbot.solve hunl",
                                 description="External-sampling MCCFR blueprint for heads-up no-limit hold'em.")
    ap.add_argument("game", help="hunl, or any 2-player no-limit hold'em .game file")
    ap.add_argument("--buckets", default=str(DEFAULT_BUCKETS), help="hold'em bucket file (default: the shipped one)")
    ap.add_argument("--k-flop", type=int, default=DEFAULT_K_FLOP, help=f"flop keys (default {DEFAULT_K_FLOP})")
    ap.add_argument("--k-turn", type=int, default=DEFAULT_K_TURN, help=f"turn keys (default {DEFAULT_K_TURN})")
    ap.add_argument("--iterations", type=int, help="stop at this many iterations (the whole run)")
    ap.add_argument("--minutes", type=float, help="stop after this many minutes of training (the whole run)")
    ap.add_argument("--seed", type=int, default=0, help="the trainer's seed (default 0)")
    ap.add_argument("--discount-every", type=int, default=20_000, help="iterations between linear discounts")
    ap.add_argument("--linear-until", type=int, default=2_000_000, help="no discount past this iteration")
    ap.add_argument("--prune-after", type=int, default=200_000, help="regret pruning from this iteration on")
    ap.add_argument("--workers", type=int, default=2, help="processes sharing the tables (default 2; 1: bit-exact)")
    ap.add_argument("--checkpoint", help="checkpoint file: resumed from when present, rewritten as training goes")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0, help="minutes between checkpoints")
    ap.add_argument("--out", default=str(DEFAULT_POLICY), help="policy file to write")
    return ap


def _cards_digest(cards: HunlCards) -> str:
    return hashlib.sha256(cards.flop_map.tobytes() + cards.turn_map.tobytes()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    """Run the HUNL blueprint build; returns the exit status."""
    args = parser().parse_args(argv)
    single_threaded_blas()
    if args.workers < 1:
        print("acpcbot.solve: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.iterations is None and args.minutes is None:
        print("acpcbot.solve: give --iterations or --minutes (the build: --minutes 120)", file=sys.stderr)
        return 2
    for option, path in (("--checkpoint", args.checkpoint), ("--out", args.out)):
        if path:
            try:
                check_writable(path)
            except OSError as exc:
                print(f"acpcbot.solve: cannot write {option} {path}: {exc.strerror or exc}", file=sys.stderr)
                return 2
    try:
        game = load_game(args.game)
        if not fits(game):
            raise GameDefError(f"{game.name or args.game} is not 2-player no-limit hold'em")
        buckets = Buckets.load(args.buckets)
    except (GameDefError, AbstractionError, OSError) as exc:
        print(f"acpcbot.solve: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    cards = build_cards(buckets, args.k_flop, args.k_turn, seed=args.seed)
    tree = BlueprintTree(game, HUNL_DEFAULT, cards.widths)
    settings = Settings(seed=args.seed, discount_every=args.discount_every, linear_until=args.linear_until,
                        prune_after=args.prune_after)
    trainer = MCCFR(tree, BucketDeals(buckets, cards), settings)
    log(f"{game.name}: {tree.num_nodes:,} decision nodes, keys per round {cards.widths}, {tree.size:,} entries "
        f"({2 * 4 * tree.size / 1e6:.0f} MB of tables); set up in {time.perf_counter() - t0:.0f} s")
    ident = {"game": game.to_text(), "abstraction": HUNL_DEFAULT.to_json(), "widths": list(cards.widths),
             "buckets": buckets_digest(buckets), "cards": _cards_digest(cards),
             "settings": json.loads(json.dumps(settings.__dict__))}
    spent = 0.0
    saved: dict = {}
    if args.checkpoint and Path(args.checkpoint).exists():
        try:
            saved = trainer.load(args.checkpoint, ident)
        except ValueError as exc:
            print(f"acpcbot.solve: cannot resume: {exc}", file=sys.stderr)
            return 2
        spent = float(saved.get("seconds", 0.0))
        log(f"resumed from {args.checkpoint} at iteration {trainer.iteration:,} ({spent:.0f} s trained before)")
    driver = ParallelMCCFR(trainer, args.workers, saved.get("worker_rngs")) if args.workers > 1 else None
    try:
        return _train(args, trainer, driver, ident, spent, tree, cards)
    finally:
        if driver is not None:
            driver.close()


def _train(args: argparse.Namespace, trainer: MCCFR, driver: ParallelMCCFR | None, ident: dict, spent: float,
           tree: BlueprintTree, cards: HunlCards) -> int:
    """Train to the limits, checkpointing; write the policy. The exit status."""
    stop: list[bool] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(True))
    start = time.perf_counter()

    def elapsed() -> float:
        return spent + time.perf_counter() - start

    def checkpoint() -> None:
        if args.checkpoint:
            t = time.perf_counter()
            extra = {"seconds": elapsed(), "workers": args.workers,
                     "worker_rngs": driver.rngs if driver is not None else None}
            trainer.save(args.checkpoint, ident, extra)
            log(f"checkpoint at iteration {trainer.iteration:,}: {args.checkpoint} "
                f"({Path(args.checkpoint).stat().st_size / 1e6:.1f} MB, {time.perf_counter() - t:.1f} s)")

    last_report = last_ckpt = time.perf_counter()
    at_report = trainer.iteration
    limit = args.iterations if args.iterations is not None else 10**15
    budget = 60 * args.minutes if args.minutes is not None else float("inf")
    while trainer.iteration < limit and elapsed() < budget and not stop:
        if driver is not None:
            driver.run(max(1, min(500, (limit - trainer.iteration) // args.workers)))
        else:
            trainer.run(min(1000, limit - trainer.iteration), should_stop=lambda: bool(stop))
        now = time.perf_counter()
        if now - last_report >= 30 or trainer.iteration >= limit:
            rate = (trainer.iteration - at_report) / (now - last_report)
            log(f"iteration {trainer.iteration:,}  {rate:,.0f} it/s  elapsed {elapsed():,.0f} s  "
                f"peak memory {_peak_mb():,.0f} MB")
            last_report, at_report = now, trainer.iteration
        if args.checkpoint and now - last_ckpt >= 60 * args.checkpoint_minutes:
            checkpoint()
            last_ckpt = time.perf_counter()
    checkpoint()
    if stop:
        log(f"stopped at iteration {trainer.iteration:,}; the same command resumes from {args.checkpoint}")
        return 130
    trained = elapsed()
    t = time.perf_counter()
    rows = quantised_rows(trainer)
    visited = int(np.count_nonzero(np.frombuffer(trainer.strategy, dtype=np.float32)))
    meta = {"iterations": trainer.iteration, "train_seconds": round(trained, 1), "trainer": "es-mccfr",
            "settings": ident["settings"], "buckets": ident["buckets"], "cards": ident["cards"],
            "peak_memory_mb": round(_peak_mb()), "entries_averaged": visited}
    write_policy(args.out, tree, cards, rows, meta)
    log(f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - t:.0f} s: "
        f"{trainer.iteration:,} iterations in {trained:,.0f} s; {visited:,} of {tree.size:,} entries averaged")
    return 0


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
