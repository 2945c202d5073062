"""LBR figures and speed: ``acpc-match lbr`` against every strategy with a policy, its action settings, the timing.

    python benchmarks/lbr.py table [--hands N] [--only GAME:SPEC ...]   # LBR mbb/g +- 95% per strategy
    python benchmarks/lbr.py settings [--game G] [--target SPEC] [--settings S ...] [--hands N]
    python benchmarks/lbr.py speed [--hands N]                          # LBR against adaptive in hunl

Prints one JSON object on stdout (progress, one line a row, on stderr).
``settings`` runs LBR under each action setting (``--lbr-actions``; default
full, cc1 and cc2: the limit settings that check/call the first street or
two) against one target on the same deals, each setting the others' peer,
with each run's figures by street (the street of LBR's first raise, and
the street the chips went in).  ``table`` runs LBR in duplicate (memory transport,
two matches at once) against each strategy exposing its policy, in the
games it plays among hunl, hulhe, leduc and kuhn2p (``--hands`` per seating;
default 2,000 in hold'em, 10,000 in Kuhn and Leduc), with the exact best
response beside it where the game is small enough (Kuhn, Leduc).
``speed`` times LBR against adaptive in hunl over ``--hands`` hands per
seating (default 5,000: 10,000 hands in all; the target is 10 minutes on
two cores); the peer in the same run is the plain duplicate match of
adaptive against ``call`` on the same deals, which costs adaptive's own
decisions and the match loop without LBR.  Beside each wall-clock time
(``*_s``) the processor time of this process and its workers (``*_cpu_s``):
on a machine busier than its two cores the wall clock also counts the
waits for one, and the processor time over two is the wall time it would
take alone.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from anywhere without the benchmarks folder shadowing packages

GAMES = ("hunl", "hulhe", "leduc", "kuhn2p")
EXTRA_SPECS = {"raise": ("raise", "raise:size=pot", "raise:size=allin")}
SPEED_TARGET_S = 600.0


def targets(only: list[str]) -> list[tuple[str, str]]:
    """(game, spec) for every strategy with a policy in every game it plays (or the ``only`` ones)."""
    from acpcbot.gamedef import load_game
    from acpcbot.strategies.registry import available

    if only:
        return [tuple(x.split(":", 1)) for x in only]  # type: ignore[misc]
    out = []
    for game in GAMES:
        g = load_game(game)
        for name, cls in available().items():
            if cls.has_policy and name != "lbr" and cls.unsupported_reason(g) is None:
                specs = EXTRA_SPECS.get(name, (name,)) if g.is_nolimit else (name,)  # limit raises have one size
                out.extend((game, spec) for spec in specs)
    return out


def exact(game: str, spec: str) -> dict[str, float] | None:
    """The exact LBR and best-response values (mbb/g) in games small enough for the public tree."""
    if game not in ("kuhn2p", "leduc"):
        return None
    from acpcbot.gamedef import load_game
    from acpcbot.measure.lbr_exact import exact_lbr
    from acpcbot.strategies.lbr import LiveTarget
    from acpcbot.strategies.registry import create

    g = load_game(game)

    def make_lbr(target):
        lbr = create("lbr:target=x", g, 7)
        lbr.attach(LiveTarget(target))
        return lbr

    r = exact_lbr(g, lambda: create(spec, g, 3), make_lbr)
    return {"exact_lbr_mbb": round(r.lbr_mbb, 1), "best_response_mbb": round(r.best_response_mbb, 1)}


def table(hands: int | None, only: list[str]) -> dict[str, object]:
    """LBR against every (game, strategy)."""
    from dealer.arena.lbr import lbr_plan
    from dealer.arena.lbr_results import summary
    from dealer.arena.runner import execute

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game, spec in targets(only):
            n = hands or (10_000 if game in ("kuhn2p", "leduc") else 2_000)
            start = time.perf_counter()
            doc = execute(lbr_plan(spec, game, n, 1, "memory", jobs=2), tmp)
            row = summary(doc, spec, game, n, streets=False)
            row = {k: row[k] for k in ("strategy", "game", "hands", "lbr_mbb_per_hand", "ci95", "pairs")
                   if k in row} | {k: row[k] for k in ("aivat_mbb_per_hand", "aivat_ci95") if k in row}
            row["seconds"] = round(time.perf_counter() - start, 1)
            row.update(exact(game, spec) or {})
            rows.append(row)
            progress(f"{game} {spec}: {row['lbr_mbb_per_hand']} +- {row['ci95']} mbb/g, {row['seconds']} s")
    return {"lbr": rows}


def progress(line: str) -> None:
    """One progress line on stderr (stdout carries only the result)."""
    print(line, file=sys.stderr, flush=True)


def settings(game: str, target: str, names: list[str], hands: int, seed: int) -> dict[str, object]:
    """LBR under each action setting against ``target`` on the same deals, with the figures by street."""
    from dealer.arena.lbr import lbr_plan
    from dealer.arena.lbr_results import by_street, paired_difference, summary
    from dealer.arena.runner import execute

    rows = []
    first: dict[str, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            start, cpu = time.perf_counter(), cpu_seconds()
            doc = execute(lbr_plan(target, game, hands, seed, "memory", jobs=2, actions=name), tmp)
            row = summary(doc, target, game, hands)
            deals = (by_street(doc) or {}).get("per_deal", {})
            if first is None:
                first = deals
            else:
                row[f"minus_{names[0]}"] = paired_difference(deals, first)  # same deals: the paired interval
            row.pop("run_dir", None)
            row["wall_s"] = round(time.perf_counter() - start, 1)
            row["cpu_s"] = round(cpu_seconds() - cpu, 1)
            rows.append(row)
            progress(f"{name}: {row['lbr_mbb_per_hand']} +- {row['ci95']} mbb/g, {row['wall_s']} s")
    return {"game": game, "target": target, "hands_per_seating": hands, "seed": seed, "settings": rows}


def cpu_seconds() -> float:
    """Processor time of this process and of its finished workers so far (user and system)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def speed(hands: int) -> dict[str, object]:
    """LBR against adaptive in hunl, and the plain adaptive-call match on the same deals."""
    from acpcbot.strategies.registry import resolve
    from dealer.arena.lbr import lbr_plan
    from dealer.arena.lbr_results import summary
    from dealer.arena.recipes import build_plan, make_entries
    from dealer.arena.runner import execute

    out: dict[str, object] = {"hands_per_seating": hands, "target_s": SPEED_TARGET_S}
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), cpu_seconds()
        plain = build_plan(name="peer", game="hunl", hands=hands, seed=1, duplicate=True, mode="play",
                           entries=make_entries([(None, "adaptive", None), (None, "call", None)]),
                           transport="memory", parallel=2)
        execute(plain, tmp)
        out["peer_adaptive_vs_call_s"] = round(time.perf_counter() - start, 1)
        out["peer_adaptive_vs_call_cpu_s"] = round(cpu_seconds() - cpu, 1)
        if not resolve("adaptive")[0].has_policy:
            out["lbr"] = "adaptive does not expose its policy yet"
            return out
        start, cpu = time.perf_counter(), cpu_seconds()
        doc = execute(lbr_plan("adaptive", "hunl", hands, 1, "memory", jobs=2), tmp)
        out["lbr_s"] = round(time.perf_counter() - start, 1)
        out["lbr_cpu_s"] = round(cpu_seconds() - cpu, 1)
        out["lbr_play_s"] = doc["seconds"]
        out["lbr"] = summary(doc, "adaptive", "hunl", hands)
        out["lbr_vs_peer"] = round(out["lbr_s"] / out["peer_adaptive_vs_call_s"], 2)
    return out


def main() -> None:
    """Run the chosen benchmark and print its JSON (one object)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[2:6]))
    p.add_argument("what", choices=("table", "settings", "speed"))
    p.add_argument("--hands", type=int, help="hands per seating")
    p.add_argument("--only", nargs="*", default=[], metavar="GAME:SPEC", help="table: only these")
    p.add_argument("--game", default="hulhe", help="settings: the game (default: hulhe)")
    p.add_argument("--target", default="blueprint", help="settings: the strategy measured (default: blueprint)")
    p.add_argument("--settings", nargs="+", default=["full", "cc1", "cc2"], metavar="SETTING",
                   help="settings: LBR's action settings (default: full cc1 cc2)")
    p.add_argument("--seed", type=int, default=1, help="settings: the deal seed (default: 1)")
    args = p.parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if args.what == "table":
        result = table(args.hands, args.only)
    elif args.what == "settings":
        result = settings(args.game, args.target, args.settings, args.hands or 1_000, args.seed)
    else:
        result = speed(args.hands or 5_000)
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S")
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
