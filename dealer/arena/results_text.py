"""The tables printed after a run (``acpc-match`` without ``--json``), from its results.json object."""

from __future__ import annotations

from typing import Any


def format_results(doc: dict[str, Any]) -> str:
    """The human-readable tables printed after a run."""
    dup = any("duplicate_mbb_per_hand" in r for r in doc["results"])
    lines = [f"{doc['name']}: {doc['game']}, {doc['hands'] or 'various'} hands per match, "
             f"{len(doc['matches'])} match{'es' if len(doc['matches']) != 1 else ''}"
             f"{', duplicate' if dup else ''}  ->  {doc['run_dir']}"]
    width = max([6] + [len(r["player"]) for r in doc["results"]])
    head = f"{'player':<{width}}  {'hands':>7}  {'mbb/hand':>9}  {'95% CI':>9}"
    if dup:
        head += f"  {'dup mbb/h':>9}  {'95% CI':>9}  {'pairs':>6}"
    low = "aivat_duplicate" if dup else "aivat"
    has_aivat = any(r.get(f"{low}_mbb_per_hand") is not None for r in doc["results"])
    allin = "allin_duplicate" if dup else "allin"
    has_allin = any(r.get(f"{allin}_mbb_per_hand") is not None for r in doc["results"])
    if has_aivat:
        head += f"  {'AIVAT':>9}  {'95% CI':>9}"
    if has_allin:
        head += f"  {'all-in EV':>9}  {'95% CI':>9}"
    head += f"  {'VPIP':>5}  {'PFR':>5}  {'AF':>5}  strategy"
    lines.append(head)

    def f(x: float | None, fmt: str, prefix: str = "") -> str:
        return "-" if x is None else prefix + format(x, fmt)

    for r in doc["results"]:
        row = (f"{r['player']:<{width}}  {r['hands']:>7}  {f(r['mbb_per_hand'], '+.1f'):>9}  "
               f"{f(r['ci95'], '.1f', '± '):>9}")
        if dup:
            row += (f"  {f(r.get('duplicate_mbb_per_hand'), '+.1f'):>9}  {f(r.get('duplicate_ci95'), '.1f', '± '):>9}"
                    f"  {r.get('duplicate_pairs', 0):>6}")
        if has_aivat:
            row += f"  {f(r.get(f'{low}_mbb_per_hand'), '+.1f'):>9}  {f(r.get(f'{low}_ci95'), '.1f', '± '):>9}"
        if has_allin:
            row += f"  {f(r.get(f'{allin}_mbb_per_hand'), '+.1f'):>9}  {f(r.get(f'{allin}_ci95'), '.1f', '± '):>9}"
        row += (f"  {f(r.get('vpip') and 100 * r['vpip'], '.0f'):>5}  {f(r.get('pfr') and 100 * r['pfr'], '.0f'):>5}"
                f"  {f(r.get('aggression'), '.2f'):>5}  {r['strategy']}")
        lines.append(row)
    lines.append("where hands ended (hands, share won, mbb/hand):")
    for r in doc["results"]:
        parts = []
        for street, e in r.get("endings", {}).items():
            if e["hands"]:
                parts.append(f"{street} {e['hands']} {100 * e['win_rate']:.0f}% {e['mbb_per_hand']:+.0f}")
        lines.append(f"  {r['player']:<{width}}  " + ", ".join(parts))
    if "crosstable" in doc:
        ct = doc["crosstable"]
        names = ct["players"]
        cw = max(14, max(len(n) for n in names) + 2)
        tables = [("crosstable", "mbb_per_hand", "ci95")]
        if "aivat_mbb_per_hand" in ct:
            tables.append(("crosstable, AIVAT", "aivat_mbb_per_hand", "aivat_ci95"))
        for title, means, halves in tables:
            lines.append(f"{title}: row against column, mbb/hand ± 95% half-width")
            lines.append(" " * (width + 2) + "".join(f"{n[:cw - 2]:>{cw}}" for n in names))
            for i, r in enumerate(names):
                cells = []
                for j in range(len(names)):
                    m, c = ct[means][i][j], ct[halves][i][j]
                    cells.append(f"{'' if m is None else f'{m:+.0f}' + ('' if c is None else f' ±{c:.0f}'):>{cw}}")
                lines.append(f"{r:<{width}}  " + "".join(cells))
        rk = doc.get("rankings") or {}
        if rk.get("total_bankroll"):
            lines.append("ranking by total bankroll: " + ", ".join(rk["total_bankroll"]))
        if rk.get("instant_runoff"):
            lines.append("ranking by instant runoff: " + ", ".join(rk["instant_runoff"]))
    info = doc.get("aivat") or {}
    if has_aivat:
        lines.append(f"AIVAT{' (duplicate)' if dup else ''}: unbiased, variance-reduced winnings; known policies: "
                     f"{', '.join(info.get('known_players', []))}")
    for note in info.get("notes", []):
        lines.append(f"note: {note}")
    failed = [m for m in doc["matches"] if not m["complete"]]
    for m in failed:
        lines.append(f"WARNING: {m['label']} did not finish: {m['error']} (its hands so far are counted)")
    return "\n".join(lines)
