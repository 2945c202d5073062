"""Pool LBR runs played in parts (``acpc-match lbr --json``, each part its own seed) into one figure.

    .venv/bin/python tools/lbr_pool.py PART.json [PART.json ...] [--json]

A long LBR measurement (a re-solving target takes seconds a decision) is
played as several runs with different seeds, so that no machine has to stay
up for all of it and a finished part is never lost.  The parts are
independent samples of the same quantity: the pooled figure is the mean
over all their pairs (each part's mean weighed by its pairs), and its 95%
interval comes from each part's interval (the variance of a part's mean is
(ci95 / 1.96)^2; the pooled mean's is the sum of those weighed by the
squared pair shares).  Done for the plain and the AIVAT figures, and for
each street's share of ``by_street`` (the street of LBR's first raise,
the street where the chips won were staked: ``--json``'s ``by_street``).  Parts
must agree on the strategy, game and action setting, and a seed may appear
once: anything else is refused with the file named.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

Z95 = 1.959963984540054


def pool(parts: Sequence[dict[str, Any]], mean_key: str, ci_key: str) -> tuple[float, float]:
    """(mean, ci95) over the pairs of all ``parts``, from each part's pairs, mean and 95% interval."""
    total = sum(int(p["pairs"]) for p in parts)
    if total <= 0:
        raise ValueError("the parts hold no pairs")
    mean = sum(int(p["pairs"]) * float(p[mean_key]) for p in parts) / total
    var = sum((int(p["pairs"]) / total) ** 2 * (float(p[ci_key]) / Z95) ** 2 for p in parts)
    return mean, Z95 * math.sqrt(var)


def pool_by_street(parts: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Each part's ``by_street`` shares (``first_raise``, ``chips_in``: mbb/hand and ci95 per street) pooled as
    :func:`pool` pools the totals; a street a part lacks is pooled over the parts that have it."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for section in ("first_raise", "chips_in"):
        streets = sorted({k for p in parts for k in (p.get("by_street") or {}).get(section, {})})
        for street in streets:
            have = []
            for p in parts:
                cell = (p.get("by_street") or {}).get(section, {}).get(street) or {}
                if cell.get("mbb_per_hand") is not None and cell.get("ci95") is not None:
                    have.append({"pairs": p["pairs"], "mean": cell["mbb_per_hand"], "ci": cell["ci95"]})
            if have:
                mean, ci = pool(have, "mean", "ci")
                out.setdefault(section, {})[street] = {"mbb_per_hand": round(mean, 3), "ci95": round(ci, 3)}
    return out


def read_parts(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The parts' JSON objects, checked to measure one thing (same strategy, game, setting; distinct seeds)."""
    parts: list[dict[str, Any]] = []
    seen: dict[Any, str] = {}
    for name in paths:
        path = Path(name)
        try:
            part = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"{name}: not an LBR result ({exc})") from None
        missing = [k for k in ("strategy", "game", "actions", "seed", "pairs", "lbr_mbb_per_hand", "ci95")
                   if k not in part]
        if missing:
            raise ValueError(f"{name}: not an LBR result (no {', '.join(missing)})")
        if parts:
            for key in ("strategy", "game", "actions"):
                if part[key] != parts[0][key]:
                    raise ValueError(f"{name}: {key} {part[key]!r}, the first part's is {parts[0][key]!r}")
        if part["seed"] in seen:
            raise ValueError(f"{name}: seed {part['seed']} already in {seen[part['seed']]}")
        seen[part["seed"]] = name
        parts.append(part)
    return parts


def main(argv: Sequence[str] | None = None) -> int:
    """Print the pooled figures (text, or one JSON object with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", metavar="PART.json", help="acpc-match lbr --json outputs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        parts = read_parts(args.parts)
    except ValueError as exc:
        print(f"lbr_pool: {exc}", file=sys.stderr)
        return 2
    mean, ci = pool(parts, "lbr_mbb_per_hand", "ci95")
    out: dict[str, Any] = {"strategy": parts[0]["strategy"], "game": parts[0]["game"],
                           "actions": parts[0]["actions"], "parts": len(parts),
                           "pairs": sum(int(p["pairs"]) for p in parts), "seeds": [p["seed"] for p in parts],
                           "lbr_mbb_per_hand": round(mean, 3), "ci95": round(ci, 3)}
    if all("aivat_mbb_per_hand" in p and "aivat_ci95" in p for p in parts):
        a_mean, a_ci = pool(parts, "aivat_mbb_per_hand", "aivat_ci95")
        out.update({"aivat_mbb_per_hand": round(a_mean, 3), "aivat_ci95": round(a_ci, 3)})
    out["seconds"] = round(sum(float(p.get("seconds", 0.0)) for p in parts), 1)
    if any(p.get("by_street") for p in parts):
        out["by_street"] = pool_by_street(parts)
    if args.json:
        print(json.dumps(out))
    else:
        line = f"{out['strategy']} ({out['game']}, {out['actions']}): LBR {mean:+.1f} mbb/hand ± {ci:.1f}"
        if "aivat_mbb_per_hand" in out:
            line += f", AIVAT {out['aivat_mbb_per_hand']:+.1f} ± {out['aivat_ci95']:.1f}"
        print(line + f" over {out['pairs']} deals × 2 seatings in {len(parts)} parts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
