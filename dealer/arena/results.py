"""A run's figures from its dealer logs: results.json, report.svg and the tables printed after a run."""

from __future__ import annotations

import gc
import itertools
import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence, TextIO

from acpcbot.atomic import atomic_write
from acpcbot.gamedef import GameDef
from acpcbot.matchlog import MatchLog

from . import aivat, report
from .folders import REPORT, RESULTS, RunError, match_command
from .handsteps import run_steps
from .memory import take_hands
from .stats import (
    Z95,
    Estimate,
    StatsError,
    bankroll_ranking,
    crosstable,
    instant_runoff_ranking,
    player_values,
    read_log,
    summarize,
    table_results,
)

#: 2: per-player AIVAT and all-in expectation fields (aivat_*, allin_*) and the run's "aivat" object
SCHEMA = 2


def _num(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def load_logs(records: Sequence[dict[str, Any]], run_dir: Path,
              game: GameDef) -> tuple[list[dict[str, Any]], list[MatchLog]]:
    """The matches that left a dealer log, and their parsed logs; a match that never started may have none."""
    kept, logs = [], []
    for rec in records:
        path = run_dir / rec["files"].get("log", "")
        if not path.is_file():
            if rec.get("complete"):
                raise RunError(f"{rec['label']}: the dealer log {path} is missing")
            continue
        held = take_hands(path, game)  # an in-memory match played here: its hands, not its log read back
        if held is not None:
            logs.append(held)
            kept.append(rec)
            continue
        try:
            logs.append(read_log(path, game))
        except StatsError as exc:
            raise RunError(str(exc)) from None
        kept.append(rec)
    return kept, logs


def analyze(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
            game: GameDef) -> dict[str, Any]:
    """The figures of a run from its dealer logs: per-player results, crosstable and rankings.

    ``records`` are results.json ``matches`` entries and ``logs`` their
    parsed logs (see :func:`load_logs`); ``players`` the run's players in
    order, each ``{"player": NAME, "strategy": SPEC}``.  Matches sharing a
    seed and a table with different seat orders are duplicate seatings of
    one deal sequence and are paired.
    """
    progress = _Analysis(sum(len(m.hands) for m in logs))
    collecting = gc.isenabled()
    # the analysis allocates millions of small objects and frees none until it ends: the collector's passes
    # over them found nothing and took a fifth of its time
    gc.disable()
    try:
        return _analyze(records, logs, players, game, progress)
    finally:
        if collecting:
            gc.enable()
        progress.done()


def _analyze(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
             game: GameDef, progress: "_Analysis") -> dict[str, Any]:
    groups: dict[tuple[int, int, frozenset[str]], list[int]] = {}
    for i, rec in enumerate(records):
        names = [s["player"] for s in rec["seats"]]
        groups.setdefault((rec["seed"], rec["hands"], frozenset(names)), []).append(i)
    duplicate_groups = [idx for idx in groups.values() if len({tuple(s["player"] for s in records[i]["seats"])
                                                                for i in idx}) > 1]
    progress.say("replaying the hands")
    steps = run_steps([m.hands for m in logs])  # each hand replayed once, for the statistics and AIVAT
    progress.say("statistics")
    summary = summarize(logs, duplicate_groups, steps)
    run_aivat = None
    if aivat.enabled():
        progress.say("AIVAT and all-in expectation")
        run_aivat = aivat.evaluate_run(records, logs, players, game, steps=steps)
    _remember_aivat(logs, run_aivat)
    lowered = aivat.estimates(run_aivat, logs, duplicate_groups, game) if run_aivat is not None else {}
    spec_of = {p["player"]: p["strategy"] for p in players}
    results = []
    for p in players:
        s = summary.get(p["player"])
        if s is None:
            results.append({"player": p["player"], "strategy": p["strategy"], "hands": 0, "mbb_per_hand": None,
                            "ci95": None, "se": None})
            continue
        entry: dict[str, Any] = {"player": s.name, "strategy": spec_of[s.name], "hands": s.result.n,
                                 "mbb_per_hand": _num(s.result.mean), "ci95": _num(s.result.ci95),
                                 "se": _num(s.result.se)}
        if s.duplicate is not None:
            entry.update({"duplicate_mbb_per_hand": _num(s.duplicate.mean),
                          "duplicate_ci95": _num(s.duplicate.ci95), "duplicate_pairs": s.duplicate.n})
        for kind, est in lowered.get(s.name, {}).items():
            entry.update({f"{kind}_mbb_per_hand": _num(est.mean), f"{kind}_ci95": _num(est.ci95),
                          f"{kind}_se": _num(est.se)})
        entry.update({k: _num(v, 4) for k, v in s.style.as_dict().items()})
        scale = 1000.0 / game.big_blind
        entry["endings"] = {k: {kk: _num(vv, 4) if isinstance(vv, float) else vv
                                for kk, vv in line.as_dict(scale).items()} for k, line in s.endings.items()}
        results.append(entry)
    out: dict[str, Any] = {"results": results}
    if run_aivat is not None:
        out["aivat"] = _aivat_summary(run_aivat, players)
    elif not aivat.enabled() and game.num_players == 2:
        out["aivat"] = {"known_players": [], "value_function": None, "mismatches": 0,
                        "notes": ["AIVAT and all-in expectation were switched off (--no-aivat)"]}
    tables = {frozenset(s["player"] for s in rec["seats"]) for rec in records}
    if len(tables) > 1:
        names = [p["player"] for p in players]
        cells = crosstable(logs, duplicate_groups)
        out["crosstable"] = {
            "players": names,
            "mbb_per_hand": [[_num(cells[(r, c)].mean) if (r, c) in cells else None for c in names] for r in names],
            "ci95": [[_num(cells[(r, c)].ci95) if (r, c) in cells else None for c in names] for r in names],
            "hands": [[cells[(r, c)].n if (r, c) in cells else 0 for c in names] for r in names]}
        per_table = table_results(logs)
        present = [n for n in names if any(n in t for t in per_table)]
        rankings: dict[str, Any] = {"total_bankroll": bankroll_ranking(per_table, present)}
        size = game.num_players
        complete = all(frozenset(c) in per_table for c in itertools.combinations(present, size))
        rankings["instant_runoff"] = instant_runoff_ranking(per_table, present) if complete else None
        out["rankings"] = rankings
    return out


class _Analysis:
    """A one-line progress report of the analysis on a terminal (stderr), shown once it has lasted a second."""

    DELAY = 1.0

    def __init__(self, hands: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else (sys.stderr if sys.stderr.isatty() else None)
        self.hands = hands
        self.start = time.monotonic()
        self.what = ""
        self.shown = False
        self._stop = threading.Event()
        self._thread = None
        if self.stream is not None:
            self._thread = threading.Thread(target=self._tick, name="acpc-match-analysis", daemon=True)
            self._thread.start()

    def say(self, what: str) -> None:
        """The phase starting now."""
        self.what = what

    def _tick(self) -> None:
        if self._stop.wait(self.DELAY):
            return
        while True:
            self._line(f"analysing {self.hands:,} hands: {self.what} ({time.monotonic() - self.start:.0f} s)")
            if self._stop.wait(0.5):
                return

    def _line(self, text: str) -> None:
        try:
            self.stream.write("\r\033[K" + text)  # type: ignore[union-attr]
            self.stream.flush()  # type: ignore[union-attr]
            self.shown = True
        except (OSError, ValueError):
            self._stop.set()

    def done(self) -> None:
        """Stop the line; when one was shown, end it with the time the analysis took."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            self._line(f"analysed {self.hands:,} hands in {time.monotonic() - self.start:.1f} s\n")


#: the per-hand AIVAT values of the last run analysed, for its report (keyed by its list of logs)
_LAST_AIVAT: tuple[Sequence[MatchLog], "aivat.RunAIVAT | None"] | None = None


def _remember_aivat(logs: Sequence[MatchLog], run: "aivat.RunAIVAT | None") -> None:
    global _LAST_AIVAT
    _LAST_AIVAT = (logs, run)


def _aivat_of(logs: Sequence[MatchLog]) -> "aivat.RunAIVAT | None":
    """The AIVAT values computed for exactly these logs, if they were analysed last."""
    return _LAST_AIVAT[1] if _LAST_AIVAT is not None and _LAST_AIVAT[0] is logs else None


def _aivat_summary(run: "aivat.RunAIVAT", players: Sequence[dict[str, str]]) -> dict[str, Any]:
    """The run's "aivat" object: who is known, the value function, mismatches and notes."""
    out: dict[str, Any] = {"known_players": run.known, "value_function": aivat.VALUE_FUNCTION,
                           "mismatches": run.mismatches, "notes": list(run.notes)}
    if not run.known:
        out["notes"].insert(0, "no player exposes its policy (" + ", ".join(p["strategy"] for p in players) +
                            "): AIVAT needs a known policy; only all-in expectation is given")
    return out


def results_document(*, name: str, mode: str, game_name: str, game: GameDef, hands: int | None, seed: int | None,
                     duplicate: bool, transport: str, run_dir: Path, players: Sequence[dict[str, str]],
                     records: Sequence[dict[str, Any]], seconds: float) -> tuple[dict[str, Any], list[MatchLog]]:
    """The whole results.json object of a run, and the logs it was computed from."""
    doc: dict[str, Any] = {"schema": SCHEMA, "name": name, "mode": mode, "game": game_name,
                           "big_blind": game.big_blind, "hands": hands, "seed": seed, "duplicate": duplicate,
                           "transport": transport, "run_dir": str(run_dir), "seconds": round(seconds, 3),
                           "players": list(players)}
    played, logs = load_logs(records, run_dir, game)
    doc.update(analyze(played, logs, players, game))
    doc["matches"] = list(records)
    return doc, logs


def write_text_file(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a full disk leaves the old copy or none); RunError naming it on failure."""
    try:
        with atomic_write(path) as f:
            f.write(text)
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_outputs(doc: dict[str, Any], run_dir: Path, game: GameDef, logs: Sequence[MatchLog]) -> None:
    """Write results.json and report.svg into the run folder; RunError naming the file that cannot be written."""
    for name, text in ((RESULTS, lambda: json.dumps(doc, indent=1) + "\n"),
                       (REPORT, lambda: report_svg(doc, run_dir, game, logs))):
        try:
            write_text_file(run_dir / name, text())
        except RunError as exc:
            # the logs are whole: resume reads them again (keeping every finished match) and writes the rest
            raise RunError(f"{exc} (the match files are kept; {match_command()} resume {run_dir} writes it again)") from None


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


def report_svg(doc: dict[str, Any], run_dir: Path, game: GameDef, logs: Sequence[MatchLog]) -> str:
    """The picture of a run: a bar chart (one against many), a heat map (round robin) or the table's winnings."""
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
    run_aivat = _aivat_of(logs)
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
        lines.append("crosstable: row against column, mbb/hand ± 95% half-width")
        lines.append(" " * (width + 2) + "".join(f"{n[:cw - 2]:>{cw}}" for n in names))
        for i, r in enumerate(names):
            cells = []
            for j in range(len(names)):
                m, c = ct["mbb_per_hand"][i][j], ct["ci95"][i][j]
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
