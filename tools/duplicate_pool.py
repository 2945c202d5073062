"""Pool duplicate matches played in parts (``acpc-match play --duplicate --json``, each its own seed) by pairing.

    .venv/bin/python tools/duplicate_pool.py PART.json [PART.json ...] [--json]

A long duplicate measurement (a re-solving player takes a second or more a
hand; issue 29 asks 5,000 hands a seating against each of 17 players) is
played as runs of a pairing with different seeds, so that no machine has to
stay up for all of it and a finished part is never lost.  The parts of one
pairing (the same two strategies) are independent samples of the same
quantity: its pooled figure is the mean over all their deals (each part's
duplicate mean weighed by its deals) with the interval combined from the
parts' intervals, as ``lbr_pool`` does for LBR; the same for the AIVAT
figure.  The hero is each part's first player (the first strategy the
command names) and must be the same in every part.  A part that is not
duplicate, did not finish, is of another game or repeats a pairing's seed
is refused with the file named.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lbr_pool import pool  # noqa: E402 - the same pooling of independent parts


def part_figures(name: str, doc: dict[str, Any]) -> dict[str, Any]:
    """One part's pairing and its hero's duplicate figures; ValueError naming the file when it cannot count."""
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list) or len(doc["results"]) != 2:
        raise ValueError(f"{name}: not a heads-up acpc-match play --json result")
    if not doc.get("duplicate"):
        raise ValueError(f"{name}: not a duplicate run")
    if doc.get("partial") or not all(m.get("complete") for m in doc.get("matches", [])):
        raise ValueError(f"{name}: a match of it did not finish")
    hero, opp = doc["results"]
    keys = ("duplicate_mbb_per_hand", "duplicate_ci95", "duplicate_pairs")
    missing = [k for k in keys if hero.get(k) is None]
    if missing:
        raise ValueError(f"{name}: no {', '.join(missing)} for {hero.get('player')}")
    out = {"file": name, "game": doc.get("game"), "seed": doc.get("seed"), "hero": hero["strategy"],
           "opponent": opp["strategy"], "pairs": int(hero["duplicate_pairs"]),
           "mean": float(hero["duplicate_mbb_per_hand"]), "ci": float(hero["duplicate_ci95"]),
           "seconds": float(doc.get("seconds") or 0.0)}
    if hero.get("aivat_duplicate_mbb_per_hand") is not None and hero.get("aivat_duplicate_ci95") is not None:
        out.update(aivat_mean=float(hero["aivat_duplicate_mbb_per_hand"]),
                   aivat_ci=float(hero["aivat_duplicate_ci95"]))
    return out


def pool_pairings(parts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per pairing (in first-seen order): its parts pooled; ValueError when parts do not belong together."""
    by_opp: dict[str, list[dict[str, Any]]] = {}
    for p in parts:
        first = parts[0]
        for key in ("game", "hero"):
            if p[key] != first[key]:
                raise ValueError(f"{p['file']}: {key} {p[key]!r}, {first['file']}'s is {first[key]!r}")
        same = by_opp.setdefault(p["opponent"], [])
        seen = [q for q in same if q["seed"] == p["seed"]]
        if seen:
            raise ValueError(f"{p['file']}: seed {p['seed']} against {p['opponent']} already in {seen[0]['file']}")
        same.append(p)
    out = []
    for opponent, group in by_opp.items():
        mean, ci = pool(group, "mean", "ci")
        row: dict[str, Any] = {"opponent": opponent, "parts": len(group), "pairs": sum(p["pairs"] for p in group),
                               "seeds": [p["seed"] for p in group], "mbb_per_hand": round(mean, 3),
                               "ci95": round(ci, 3)}
        if all("aivat_mean" in p for p in group):
            a_mean, a_ci = pool(group, "aivat_mean", "aivat_ci")
            row.update(aivat_mbb_per_hand=round(a_mean, 3), aivat_ci95=round(a_ci, 3))
        row["seconds"] = round(sum(p["seconds"] for p in group), 1)
        out.append(row)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the pooled figures of every pairing (text, or one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", metavar="PART.json", help="acpc-match play --duplicate --json outputs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        parts = []
        for name in args.parts:
            try:
                doc = json.loads(Path(name).read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(f"{name}: cannot read it as JSON ({exc})") from None
            parts.append(part_figures(name, doc))
        rows = pool_pairings(parts)
    except ValueError as exc:
        print(f"duplicate_pool: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"game": parts[0]["game"], "hero": parts[0]["hero"], "pairings": rows}))
        return 0
    for r in rows:
        line = f"{parts[0]['hero']} vs {r['opponent']}: {r['mbb_per_hand']:+.1f} mbb/hand ± {r['ci95']:.1f}"
        if "aivat_mbb_per_hand" in r:
            line += f", AIVAT {r['aivat_mbb_per_hand']:+.1f} ± {r['aivat_ci95']:.1f}"
        print(line + f" over {r['pairs']} deals × 2 seatings in {r['parts']} parts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
