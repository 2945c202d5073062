"""``python -m acpcbot.solve hulhe ...``: build the buckets, solve the abstract game with checkpoints, ship the policy.

    python -m acpcbot.solve hulhe --build-buckets                 # acpcbot/data/hulhe_buckets.npz
    python -m acpcbot.solve hulhe --iterations 3000 --target-mbb 0.7 --checkpoint /tmp/blueprint.ckpt.npz \\
        --out acpcbot/data/blueprint_hulhe.npz    # builds missing buckets; resumes from the checkpoint if present
    python -m acpcbot.solve hulhe --evaluate acpcbot/data/blueprint_hulhe.npz

The abstract game (``blueprint_game``) is the hold'em betting of the game
file with the chance model of ``abstraction.Buckets``: classes dealt with
exact card removal (169 x 169), each player's bucket history then drawn
from the exact one-player transition tables, independently for the two
players, and a showdown won by the higher river bucket (tied buckets
split).  Progress goes to stderr; the exploitability printed is the exact
best-response gap in that abstract game.
"""

from __future__ import annotations

import argparse
import ctypes
import lzma
import signal
import sys
import time
from pathlib import Path

import numpy as np

from ..atomic import check_writable
from ..gamedef import GameDef, GameDefError, load_game
from .abstract_cfr import AbstractSolver, Report, train
from .abstract_game import NEXT_LEAF, AbstractGame
from .abstraction import AbstractionError, Buckets, build, class_joint
from .blueprint_files import DEFAULT_BUCKETS, DEFAULT_POLICY, is_limit_holdem
from .cfr_core import (  # re-exported: the policy file's names
    ALGORITHMS,
    POLICY_FORMAT as POLICY_FORMAT,
    QUANT,
    read_abstract_policy as read_policy,
    write_abstract_policy as write_policy,
)

#: shipped settings: 8 flop clusters per class, 6 turn clusters per (class, flop bucket), 10 river buckets
DEFAULT_K = (8, 6, 10)
#: river bucket edges in strength bins of 0.025: percentiles .30 .45 .55 .65 .725 .80 .85 .90 .95
DEFAULT_EDGES = (12, 18, 22, 26, 29, 32, 34, 36, 38)


def blueprint_game(game: GameDef, buckets: Buckets) -> AbstractGame:
    """The abstract game of a limit hold'em game under ``buckets`` (see the module docstring)."""
    if not is_limit_holdem(game):
        raise AbstractionError(f"{game.name or 'this game'} is not 2-player limit hold'em with a 52-card deck")
    joint = class_joint()
    k3 = buckets.k[2]
    outcome = np.sign(np.arange(k3)[:, None] - np.arange(k3)[None, :]).astype(np.float64)
    return AbstractGame(game=game, joint=joint, buckets=(169,) + tuple(buckets.k), transitions=buckets.transitions,
                        public=(1, 1, 1, 1), fold_kernel=[joint[None]] * 4, showdown_kernel=None,
                        showdown_outcome=outcome)


def single_threaded_blas() -> bool:
    """Ask OpenBLAS for one thread (our own threads do the parallel work; BLAS threads only contend)."""
    try:
        with open("/proc/self/maps") as fh:
            libs = sorted({line.split()[-1] for line in fh if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return False
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                     "scipy_openblas_set_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn(1)
                return True
    return False


# ------------------------------------------------------------------ policy files

def quantise(sigma: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """(n, D, 3, H) probabilities -> uint8 rows summing to exactly 255 over legal columns (largest remainders)."""
    scaled = sigma * QUANT
    q = np.floor(scaled)
    q[:, ~legal] = 0
    short = np.rint(QUANT - q.sum(2)).astype(np.int64)[:, :, None, :]       # units still to hand out: 0..2
    frac = np.where(legal[None, :, :, None], scaled - q, -1.0)
    # rank of each column by remainder (0 = largest); the `short` best-ranked columns get one more unit
    rank = np.argsort(np.argsort(-frac, axis=2, kind="stable"), axis=2, kind="stable")
    q += rank < short
    return q.astype(np.uint8)


def own_reach(ag: AbstractGame, sigma: list[np.ndarray], player: int) -> list[np.ndarray]:
    """Player's own reach (N_r, D_r, width_r) float32 at every decision node under ``sigma``.

    Chance is left out, except in the last round, whose keys (c, b_last)
    merge histories and carry the chance of the merged buckets.  With
    probabilities of at least 1/255 along a hand, a reachable node never
    underflows to 0 in float32.
    """
    out = []
    entry = np.ones((1, ag.num_classes), dtype=np.float32)
    last = len(ag.rounds) - 1
    for r, tpl in enumerate(ag.rounds):
        n = tpl.num_instances
        if r == 0:
            start = entry
        elif r == last:
            c, k = ag.num_classes, ag.buckets[r]
            t = ag.transitions[r - 1].reshape(c, -1, k).astype(np.float32)
            x = (entry * ag.chain[r - 1].astype(np.float32)).reshape(n, c, -1)
            start = np.einsum("ncm,cmk->nck", x, t).reshape(n, c * k)
        else:
            start = np.repeat(entry, ag.buckets[r], axis=1)
        width = ag.strategy_width(r)
        reach = np.zeros((n, tpl.num_decisions, width), dtype=np.float32)
        reach[:, 0] = start
        nxt = {int(leaf): j for j, leaf in enumerate(np.flatnonzero(tpl.leaf_kind == NEXT_LEAF))}
        entry = np.zeros((n, len(nxt), width), dtype=np.float32)
        for d in range(tpl.num_decisions):
            for col in np.flatnonzero(tpl.legal[d]):
                x = reach[:, d] * sigma[r][:, d, col] if tpl.actor[d] == player else reach[:, d]
                ch = int(tpl.child[d, col])
                if ch >= 0:
                    reach[:, ch] = x
                elif -1 - ch in nxt:
                    entry[:, nxt[-1 - ch]] = x
        out.append(reach)
        entry = entry.reshape(n * len(nxt), width)
    return out


def policy_rows(ag: AbstractGame, solver: AbstractSolver) -> list[np.ndarray]:
    """The shipped rows: the average strategy quantised to 1/255, rows the player never reaches set to check/call."""
    rows = []
    for r, tpl in enumerate(ag.rounds):
        n = tpl.num_instances
        step = max(1, (1 << 22) // (tpl.num_decisions * 3 * ag.strategy_width(r)))     # bounded memory
        rows.append(np.concatenate([quantise(solver.average(r, a, min(a + step, n)), tpl.legal)
                                    for a in range(0, n, step)]))
    decoded = [q.astype(np.float32) / np.float32(QUANT) for q in rows]
    for p in (0, 1):
        reach = own_reach(ag, decoded, p)
        for r, tpl in enumerate(ag.rounds):
            for d in np.flatnonzero(tpl.actor == p):
                dead = reach[r][:, d] == 0                          # (n, H): never reached by p's own play
                block = rows[r][:, d]                               # (n, 3, H) view
                for col in range(3):
                    block[:, col][dead] = QUANT if col == 1 else 0   # check/call: always legal
    return rows


def evaluate_rows(ag: AbstractGame, rows: list[np.ndarray], workers: int = 2):
    """Exact exploitability (Exploitability) in the abstract game of uint8 policy rows."""
    solver = AbstractSolver(ag, workers=workers, evaluate_only=True)
    try:
        for r, q in enumerate(rows):
            if q.shape != solver.strategy_sum[r].shape:
                raise AbstractionError(f"policy round {r + 1} has shape {q.shape}, the game needs "
                                       f"{solver.strategy_sum[r].shape}")
            solver.strategy_sum[r][...] = q
        return solver.exploitability()
    finally:
        solver.close()


def _csv_ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def parser() -> argparse.ArgumentParser:
    """The command-line parser of the hold'em blueprint."""
    ap = argparse.ArgumentParser(
        prog="python -m acpcbot.solve hulhe",
        description="Abstraction-CFR blueprint for 2-player limit hold'em: buckets, CFR+ with checkpoints, policy.")
    ap.add_argument("game", help="hulhe, or any 2-player limit hold'em .game file")
    ap.add_argument("--buckets", default=str(DEFAULT_BUCKETS), help="bucket file (built first if missing)")
    ap.add_argument("--build-buckets", action="store_true", help="(re)build the bucket file and exit")
    ap.add_argument("--k", type=_csv_ints, default=DEFAULT_K, help="flop,turn,river buckets (default 8,6,10)")
    ap.add_argument("--river-edges", type=_csv_ints, default=DEFAULT_EDGES,
                    help="river bucket edges in 0.025 percentile steps (default 12,18,22,26,29,32,34,36,38)")
    ap.add_argument("--iterations", type=int, default=1500, help="total CFR iterations (default 1500)")
    ap.add_argument("--target-mbb", type=float, help="stop once the abstract exploitability is at most this")
    ap.add_argument("--check-every", type=int, default=50, help="measure the exploitability every N iterations")
    ap.add_argument("--algorithm", choices=ALGORITHMS, default="dcfr", help="regret minimiser (default dcfr)")
    ap.add_argument("--workers", type=int, default=2, help="threads (and bucket-build processes); default 2")
    ap.add_argument("--checkpoint", help="checkpoint file: resumed from when present, rewritten as training goes")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0, help="minutes between checkpoints")
    ap.add_argument("--out", default=str(DEFAULT_POLICY), help="policy file to write")
    ap.add_argument("--evaluate", metavar="POLICY", help="report the abstract exploitability of a policy file")
    ap.add_argument("--compress", type=int, default=9, choices=range(10), metavar="0..9",
                    help="lzma level of the policy file (default 9, extreme)")
    return ap


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _load_buckets(args) -> Buckets:
    path = Path(args.buckets)
    if path.exists() and not args.build_buckets:
        return Buckets.load(path)
    _log(f"building buckets k={args.k} river edges={args.river_edges} with {args.workers} processes -> {path}")
    buckets = build(tuple(args.k), tuple(args.river_edges), workers=args.workers, log=_log)
    buckets.save(path)
    _log(f"buckets written to {path} in {buckets.build_seconds:.0f} s ({path.stat().st_size / 1e6:.2f} MB)")
    return buckets


def _digest(buckets: Buckets) -> str:
    import hashlib
    h = hashlib.sha256()
    for a in (buckets.flop_bucket, buckets.turn_centroids, *buckets.transitions, buckets.river_edges):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    """Run the hold'em blueprint command line; returns the exit status."""
    args = parser().parse_args(argv)
    single_threaded_blas()
    bad = unwritable_outputs(args)
    if bad:
        print(f"acpcbot.solve: {bad}", file=sys.stderr)
        return 2
    try:
        game = load_game(args.game)
        buckets = _load_buckets(args)
        if args.build_buckets:
            return 0
        ag = blueprint_game(game, buckets)
    except (GameDefError, AbstractionError, OSError) as exc:
        print(f"acpcbot.solve: {exc}", file=sys.stderr)
        return 2
    if args.evaluate:
        try:
            rows, meta = read_policy(args.evaluate)
            evaluation = evaluate_rows(ag, rows, args.workers)
        except AbstractionError as exc:
            print(f"acpcbot.solve: {exc}", file=sys.stderr)
            return 2
        print(f"{args.evaluate}: abstract exploitability {evaluation.mbb:.4f} mbb/g; position 0 value "
              f"{evaluation.values[0]:.5f} chips; trained {meta.get('iterations')} iterations")
        return 0
    sizes = [ag.strategy_width(r) * tpl.num_decisions * tpl.num_instances for r, tpl in enumerate(ag.rounds)]
    _log(f"{game.name}: buckets {buckets.k}, strategy keys per round {[ag.strategy_width(r) for r in range(4)]}, "
         f"{sum(sizes):,} information sets, {args.algorithm}, {args.workers} threads")
    solver = AbstractSolver(ag, args.algorithm, workers=args.workers)
    ident = {"game": game.to_text(), "buckets": _digest(buckets)}
    curve: list[tuple[int, float, float]] = []
    spent = 0.0
    if args.checkpoint and Path(args.checkpoint).exists():
        try:
            header = solver.load(args.checkpoint, ident)
        except (ValueError, KeyError, OSError) as exc:
            print(f"acpcbot.solve: cannot resume: {exc}", file=sys.stderr)
            return 2
        curve = list(header.get("curve", []))
        spent = float(header.get("seconds", 0.0))
        _log(f"resumed from {args.checkpoint} at iteration {solver.iteration} ({spent:.0f} s spent before)")
    start = time.perf_counter()

    def elapsed() -> float:
        return spent + time.perf_counter() - start

    def checkpoint(s: AbstractSolver) -> None:
        if args.checkpoint:
            t = time.perf_counter()
            s.save(args.checkpoint, {**ident, "curve": curve, "seconds": elapsed()})
            size = Path(args.checkpoint).stat().st_size / 1e6
            _log(f"checkpoint at iteration {s.iteration} written to {args.checkpoint} ({size:,.0f} MB) "
                 f"in {time.perf_counter() - t:.1f} s")

    def report(rep: Report) -> None:
        curve.append((rep.iteration, round(rep.exploitability.mbb, 4), round(elapsed(), 1)))
        _log(f"iteration {rep.iteration}  exploitability {rep.exploitability.mbb:.4f} mbb/g  "
             f"elapsed {elapsed():.1f} s")

    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(True))
    _, stopped = train(solver, args.iterations, args.check_every, args.target_mbb, on_report=report,
                       on_checkpoint=checkpoint, checkpoint_seconds=60 * args.checkpoint_minutes,
                       should_stop=lambda: bool(stop))
    checkpoint(solver)
    if stopped:
        _log(f"stopped at iteration {solver.iteration}; the same command resumes from {args.checkpoint}")
        solver.close()
        return 130
    if not curve or curve[-1][0] != solver.iteration:      # e.g. resumed at or past --iterations
        report(Report(solver.iteration, solver.exploitability(), 0.0))
    # from here on Ctrl-C stops at once: the checkpoint already holds the training, only the policy file is lost
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    try:
        return _ship(args, ag, solver, curve, buckets, elapsed)
    except KeyboardInterrupt:
        kept = f"; the same command with --checkpoint {args.checkpoint} writes it without training again" \
            if args.checkpoint else ""
        _log(f"interrupted: {args.out} not written{kept}")
        return 130


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def unwritable_outputs(args: argparse.Namespace) -> str | None:
    """Why one of the files this command would write cannot be written (None: all can), checked before training."""
    outputs = [("--checkpoint", args.checkpoint)]
    if args.build_buckets or not Path(args.buckets).exists():
        outputs.append(("--buckets", args.buckets))
    if not args.evaluate and not args.build_buckets:
        outputs.append(("--out", args.out))
    for option, path in outputs:
        if path:
            try:
                check_writable(path)
            except OSError as exc:
                return f"cannot write {option} {path}: {exc.strerror or exc}"
    return None


def _ship(args, ag: AbstractGame, solver: AbstractSolver, curve: list, buckets: Buckets, elapsed) -> int:
    """Quantise the average policy, measure it and write it, saying what each step is while it runs."""
    t = time.perf_counter()
    _log("policy: quantising the average strategy")
    rows = policy_rows(ag, solver)
    final = curve[-1] if curve else None
    iterations = solver.iteration
    solver.close()
    del solver
    _log("policy: measuring the quantised policy's exploitability")
    shipped = evaluate_rows(ag, rows, args.workers)
    meta = {"iterations": iterations, "algorithm": args.algorithm, "curve": curve,
            "train_seconds": round(elapsed(), 1), "buckets": _digest(buckets),
            "average_mbb": final[1] if final else None, "shipped_mbb": round(shipped.mbb, 4),
            "value0": round(shipped.values[0], 6)}
    _log(f"policy: compressing (lzma level {args.compress}; under a minute at level 9) and writing {args.out}")
    try:
        write_policy(args.out, ag, rows, meta,
                     preset=args.compress | (lzma.PRESET_EXTREME if args.compress == 9 else 0))
    except OSError as exc:
        kept = f"; the training is kept in {args.checkpoint}" if args.checkpoint else ""
        print(f"acpcbot.solve: cannot write --out {args.out}: {exc.strerror or exc}{kept}", file=sys.stderr)
        return 2
    _log(f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - t:.0f} s; "
         f"shipped (quantised) policy: abstract exploitability {shipped.mbb:.4f} mbb/g")
    return 0

if __name__ == "__main__":
    sys.exit(main())
