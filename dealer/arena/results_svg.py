"""report.svg of a run: a bar chart (one against many), a heat map (round robin) or the table's winnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from acpcbot.gamedef import GameDef
from acpcbot.matchlog import MatchLog

from . import aivat, report
from .stats import Z95, Estimate, player_values


def one_against_many(ct: dict[str, Any]) -> str | None:
    """The player every played crosstable cell involves, when there are three or more players (a hero run)."""
    names = ct["players"]
    if len(names) < 3:
        return None
    cells = [(r, c) for i, r in enumerate(names) for j, c in enumerate(names) if ct["mbb_per_hand"][i][j] is not None]
    for hero in names:
        if cells and all(hero in cell for cell in cells):
            return hero
    return None


def _figure(r: dict[str, Any]) -> str:
    """A player's final figure: mbb/hand with its 95% half-width, and the duplicate one when there is one."""
    def pm(mean: float | None, ci: float | None) -> str:
        return "-" if mean is None else f"{mean:+.1f}" + ("" if ci is None else f" ± {ci:.1f}")

    text = f"{r['player']}: {pm(r.get('mbb_per_hand'), r.get('ci95'))} mbb/hand over {r.get('hands', 0)} hands"
    if r.get("duplicate_mbb_per_hand") is not None:
        text += (f"; duplicate {pm(r['duplicate_mbb_per_hand'], r.get('duplicate_ci95'))} over "
                 f"{r.get('duplicate_pairs', 0)} deals")
    return text + " (95%)"


def report_svg(doc: dict[str, Any], run_dir: Path, game: GameDef, logs: Sequence[MatchLog],
               run_aivat: "aivat.RunAIVAT | None" = None) -> str:
    """The picture of a run: a bar chart (one against many), a heat map (round robin) or the table's winnings.

    ``logs`` are the run's parsed logs and ``run_aivat`` their per-hand AIVAT values, when computed.
    """
    names = [p["player"] for p in doc["players"]]
    title = f"{doc['name']}: {doc['game']}, {doc['hands'] or 'various'} hands per match"
    by_player = {r["player"]: r for r in doc["results"]}
    if "crosstable" in doc:
        ct = doc["crosstable"]
        cells = {}
        for i, r in enumerate(ct["players"]):
            for j, c in enumerate(ct["players"]):
                mean = ct["mbb_per_hand"][i][j]
                if mean is not None:
                    ci = ct["ci95"][i][j]
                    cells[(r, c)] = Estimate(ct["hands"][i][j], mean, None if ci is None else ci / Z95)
        hero = one_against_many(ct)
        if hero is not None:
            rows = [(c, cells.get((hero, c))) for c in ct["players"] if c != hero]
            notes = [f"all opponents together: {_figure(by_player[hero])}"]
            r = by_player[hero]
            low = "aivat_duplicate" if r.get("aivat_duplicate_mbb_per_hand") is not None else "aivat"
            if r.get(f"{low}_mbb_per_hand") is not None:
                notes.append(f"AIVAT{' duplicate' if low.endswith('duplicate') else ''}, all opponents: "
                             f"{r[f'{low}_mbb_per_hand']:+.1f} ± {r[f'{low}_ci95'] or 0:.1f} mbb/hand (95%)")
            return report.bars_svg(hero, rows, title, notes)
        return report.heatmap_svg(ct["players"], cells, title)
    played = [m for m in doc["matches"] if (run_dir / m["files"].get("log", "")).is_file()]
    series: dict[str, list[float]] = {n: [] for n in names}
    joins: list[tuple[int, str]] = []
    for m, log in zip(played, logs):
        if len(played) > 1:
            joins.append((len(series[names[0]]), "seats " + ", ".join(s["player"] for s in m["seats"])))
        for name, chips in player_values(log.hands).items():
            series.setdefault(name, []).extend(chips)
    notes = [_figure(by_player[names[0]])] if names and names[0] in by_player else []
    if run_aivat is not None and run_aivat.known and names and names[0] in by_player:
        # the AIVAT line of the first player, beside its plain winnings, each with its 95% band
        series[f"{names[0]} (AIVAT)"] = aivat.series(run_aivat, names[0])
        r = by_player[names[0]]
        low = "aivat_duplicate" if r.get("aivat_duplicate_mbb_per_hand") is not None else "aivat"
        if r.get(f"{low}_mbb_per_hand") is not None:
            notes.append(f"AIVAT{' duplicate' if low.endswith('duplicate') else ''}: "
                         f"{r[f'{low}_mbb_per_hand']:+.1f} ± {r[f'{low}_ci95'] or 0:.1f} mbb/hand (95%)")
    if len(joins) > 1:
        notes.append(f"the {len(joins)} seatings are joined in play order (dashed lines)")
    if len(names) == 2:
        # heads-up winnings sum to zero: the second line would be the mirror image of the first
        notes.append(f"{names[1]}'s line is the mirror image of {names[0]}'s")
        series = {k: v for k, v in series.items() if k != names[1]}
    return report.cumulative_svg(series, game.big_blind, title, notes=notes, joins=joins)
