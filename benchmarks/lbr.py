"""LBR figures and speed: ``acpc-match lbr`` against every strategy with a policy, and the 10,000-hand timing.

    python benchmarks/lbr.py table [--hands N] [--only GAME:SPEC ...]   # LBR mbb/g +- 95% per strategy
    python benchmarks/lbr.py speed [--hands N]                          # LBR against adaptive in hunl

Prints one JSON object.  ``table`` runs LBR in duplicate (memory transport,
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
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from anywhere without the benchmarks folder shadowing packages

from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.strategies.registry import available, create  # noqa: E402
from dealer.arena.lbr import lbr_plan, summary  # noqa: E402
from dealer.arena.recipes import build_plan, make_entries  # noqa: E402
from dealer.arena.runner import execute  # noqa: E402

GAMES = ("hunl", "hulhe", "leduc", "kuhn2p")
EXTRA_SPECS = {"raise": ("raise", "raise:size=pot", "raise:size=allin")}
SPEED_TARGET_S = 600.0


def targets(only: list[str]) -> list[tuple[str, str]]:
    """(game, spec) for every strategy with a policy in every game it plays (or the ``only`` ones)."""
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
    from acpcbot.solve.lbr_exact import exact_lbr
    from acpcbot.strategies.lbr import LiveTarget

    g = load_game(game)

    def make_lbr(target):
        lbr = create("lbr:target=x", g, 7)
        lbr.attach(LiveTarget(target))
        return lbr

    r = exact_lbr(g, lambda: create(spec, g, 3), make_lbr)
    return {"exact_lbr_mbb": round(r.lbr_mbb, 1), "best_response_mbb": round(r.best_response_mbb, 1)}


def table(hands: int | None, only: list[str]) -> dict[str, object]:
    """LBR against every (game, strategy)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game, spec in targets(only):
            n = hands or (10_000 if game in ("kuhn2p", "leduc") else 2_000)
            start = time.perf_counter()
            doc = execute(lbr_plan(spec, game, n, 1, "memory", jobs=2), tmp)
            row = summary(doc, spec, game, n)
            row = {k: row[k] for k in ("strategy", "game", "hands", "lbr_mbb_per_hand", "ci95", "pairs")
                   if k in row} | {k: row[k] for k in ("aivat_mbb_per_hand", "aivat_ci95") if k in row}
            row["seconds"] = round(time.perf_counter() - start, 1)
            row.update(exact(game, spec) or {})
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return {"lbr": rows}


def cpu_seconds() -> float:
    """Processor time of this process and of its finished workers so far (user and system)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def speed(hands: int) -> dict[str, object]:
    """LBR against adaptive in hunl, and the plain adaptive-call match on the same deals."""
    from acpcbot.strategies.registry import resolve

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
    """Run the chosen benchmark and print its JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("table", "speed"))
    p.add_argument("--hands", type=int)
    p.add_argument("--only", nargs="*", default=[], metavar="GAME:SPEC")
    args = p.parse_args()
    result = table(args.hands, args.only) if args.what == "table" else speed(args.hands or 5_000)
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
