"""A run's AIVAT taken apart: per player, the plain result, AIVAT's, and the two kinds of correction between them.

    .venv/bin/python tools/aivat_terms.py RUN_DIR [RUN_DIR ...] [--player NAME] [--json]

AIVAT's figure is the plain result less two sums of terms, each of mean zero
whatever the value function (``acpcbot.measure.aivat``): the board cards'
luck (``chance``) and the luck of the known players' draws from their
policies (``action``).  This prints, per player and pooled over the run
folders given (duplicate seatings paired per deal, as results.json pairs
them), the mean and 95% interval of: the plain result, AIVAT's figure, each
kind of term, the gap AIVAT minus plain (minus the terms' sum), and the
result with the chance terms alone taken out.  Two uses:

- a check: each term's mean should sit inside its interval; a gap between
  AIVAT and the plain figure is luck unless it is outside the gap's own
  interval (which is as wide as the terms make it, not AIVAT's);
- a choice: where the ``action`` terms add more spread than they take out
  (the value function prices a raise as if it were called, which a
  best-responder's folds make a poor guess), the chance-only figure is the
  narrower unbiased one.

The values are recomputed from each folder's dealer logs and played-rows
files exactly as the run's analysis computes them (``dealer.arena.aivat``);
figures in mbb/hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from dealer.arena import aivat  # noqa: E402
from dealer.arena.analysis import find_duplicate_groups, load_logs  # noqa: E402
from dealer.arena.folders import RunError  # noqa: E402
from dealer.arena.planfile import finished_records, read_plan  # noqa: E402
from dealer.arena.stats import estimate, mbb_scale  # noqa: E402

KINDS = ("plain", "aivat", "chance", "action", "gap", "chance_only")


def run_terms(run_dir: Path) -> tuple[dict[str, dict[str, list[float]]], float, list[str], str]:
    """Per player and kind, the run's samples (a deal per duplicate pair, else a hand), in chips; the game's mbb
    per chip; the analysis' notes; the game's name."""
    plan, _ = read_plan(run_dir)
    game = plan.game
    if game.num_players != 2:
        raise RunError(f"{run_dir}: AIVAT is heads-up only ({plan.game_name} has {game.num_players} players)")
    records = [rec for _, rec in sorted(finished_records(run_dir, plan).items())]
    records, logs = load_logs(records, run_dir, game)
    if not logs:
        raise RunError(f"{run_dir}: no finished match to read")
    players = [{"player": e.name, "strategy": e.spec} for e in plan.entries]
    spec_of = {p["player"]: p["strategy"] for p in players}
    known = [p["player"] for p in players if aivat.known_policy(p["strategy"])]
    per_log: dict[str, list[dict[str, list[float]]]] = {kind: [] for kind in KINDS}
    notes: list[str] = []
    for rec, mlog in zip(records, logs):
        part = aivat.evaluate_match(rec, mlog, spec_of, known, game)
        notes.extend(part.notes)
        if part.mismatches:
            notes.append(f"{rec['label']}: {part.mismatches} decisions took an action their policy gives no "
                         f"probability")
        terms: dict[str, dict[str, list[float]]] = {kind: {} for kind in KINDS}
        for name, values in part.aivat.items():
            chance, action = part.chance[name].tolist(), part.action[name].tolist()
            plain = [v + c + a for v, c, a in zip(values, chance, action)]
            terms["plain"][name] = plain
            terms["aivat"][name] = list(values)
            terms["chance"][name] = chance
            terms["action"][name] = action
            terms["gap"][name] = [v - p for v, p in zip(values, plain)]
            terms["chance_only"][name] = [p - c for p, c in zip(plain, chance)]
        for kind in KINDS:
            per_log[kind].append(terms[kind])
    groups = find_duplicate_groups(records)
    samples: dict[str, dict[str, list[float]]] = {}
    for kind in KINDS:
        for values_of in aivat.deal_samples(per_log[kind], logs, groups):
            for name, values in values_of.items():
                samples.setdefault(name, {}).setdefault(kind, []).extend(values)
    return samples, mbb_scale(game), notes, plan.game_name


def pooled(run_dirs: Sequence[Path], player: str | None) -> dict[str, Any]:
    """Every player's (or ``player``'s) figures over the folders, one game: mean and ci95 per kind, mbb/hand."""
    samples: dict[str, dict[str, list[float]]] = {}
    notes: list[str] = []
    scale = None
    games = set()
    for run_dir in run_dirs:
        part, part_scale, part_notes, game = run_terms(run_dir)
        games.add(game)
        if len(games) > 1:
            raise RunError(f"{run_dir}: another game ({game}) than the folders before it ({sorted(games)[0]})")
        scale = part_scale
        notes.extend(f"{run_dir.name}: {n}" for n in part_notes)
        for name, kinds in part.items():
            for kind, values in kinds.items():
                samples.setdefault(name, {}).setdefault(kind, []).extend(values)
    if player is not None and player not in samples:
        raise RunError(f"no player {player!r} in the folders (players: {', '.join(sorted(samples))})")
    out: dict[str, Any] = {"runs": [str(d) for d in run_dirs], "players": {}, "notes": notes}
    for name in sorted(samples) if player is None else [player]:
        figures: dict[str, Any] = {}
        for kind in KINDS:
            est = estimate(samples[name][kind], scale or 1.0)
            figures[kind] = {"mbb_per_hand": round(est.mean, 1),
                             "ci95": None if est.ci95 is None else round(est.ci95, 1), "samples": est.n}
        out["players"][name] = figures
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: print the terms' table (or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run folders of acpc-match (one game)")
    parser.add_argument("--player", help="only this player's figures")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    dirs = [Path(d) for d in args.run_dirs]
    for d in dirs:
        if not (d / "plan.json").is_file():
            parser.error(f"{d}: not a run folder of acpc-match (no plan.json)")
    try:
        out = pooled(dirs, args.player)
    except RunError as exc:
        print(f"aivat_terms: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out))
        return 0
    for name, figures in out["players"].items():
        print(f"{name}:")
        for kind in KINDS:
            f = figures[kind]
            ci = "n/a" if f["ci95"] is None else f"{f['ci95']:,.1f}"
            print(f"  {kind:<12} {f['mbb_per_hand']:>+12,.1f} +- {ci:>10}  ({f['samples']} samples)")
    for note in out["notes"]:
        print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
