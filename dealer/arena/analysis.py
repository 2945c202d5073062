"""A run's analysis: per-player figures, AIVAT, crosstable and rankings from its match logs, as a RunAnalysis."""

from __future__ import annotations

import gc
import itertools
import math
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TextIO

from acpcbot.gamedef import GameDef
from acpcbot.matchlog import MatchLog

from . import aivat
from .folders import RunError
from .handsteps import run_steps
from .memory import take_hands
from .stats import (
    Estimate,
    StatsError,
    bankroll_ranking,
    crosstable,
    instant_runoff_ranking,
    read_log,
    summarize,
    table_results,
)


def _num(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def _grid(cells: Mapping[tuple[str, str], Estimate], names: Sequence[str], figure: Callable[[Estimate], Any],
          missing: Any = None) -> list[list[Any]]:
    """Row against column: ``figure`` of each pairing's estimate, ``missing`` where the two never met."""
    return [[figure(cells[(r, c)]) if (r, c) in cells else missing for c in names] for r in names]


@dataclass
class RunAnalysis:
    """A run's analysed figures (results.json's ``results``, ``aivat``, ``crosstable``, ``rankings``), with the
    parsed logs and per-hand AIVAT values they came from (the report draws from them)."""

    figures: dict[str, Any]
    logs: list[MatchLog]
    aivat: "aivat.RunAIVAT | None" = None


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
            game: GameDef, *, with_aivat: bool = True) -> RunAnalysis:
    """The figures of a run from its dealer logs: per-player results, crosstable and rankings.

    ``records`` are results.json ``matches`` entries and ``logs`` their
    parsed logs (see :func:`load_logs`); ``players`` the run's players in
    order, each ``{"player": NAME, "strategy": SPEC}``.  Matches sharing a
    seed and a table with different seat orders are duplicate seatings of
    one deal sequence and are paired.  ``with_aivat``: False leaves out AIVAT
    and all-in expectation (``--no-aivat``).
    """
    progress = AnalysisProgress(sum(len(m.hands) for m in logs))
    collecting = gc.isenabled()
    # the analysis allocates millions of small objects and frees none until it ends: the collector's passes
    # over them found nothing and took a fifth of its time
    gc.disable()
    try:
        return _analyze(records, logs, players, game, progress, with_aivat)
    finally:
        if collecting:
            gc.enable()
        progress.done()


def find_duplicate_groups(records: Sequence[dict[str, Any]]) -> list[list[int]]:
    """The indices of matches that are duplicate seatings of one deal sequence: the same seed, hands and players,
    seated in different orders."""
    groups: dict[tuple[int, int, frozenset[str]], list[int]] = {}
    for i, rec in enumerate(records):
        names = [s["player"] for s in rec["seats"]]
        groups.setdefault((rec["seed"], rec["hands"], frozenset(names)), []).append(i)
    return [idx for idx in groups.values() if len({tuple(s["player"] for s in records[i]["seats"]) for i in idx}) > 1]


def _analyze(records: Sequence[dict[str, Any]], logs: Sequence[MatchLog], players: Sequence[dict[str, str]],
             game: GameDef, progress: "AnalysisProgress", with_aivat: bool) -> RunAnalysis:
    duplicate_groups = find_duplicate_groups(records)
    progress.say("replaying the hands")
    steps = run_steps([m.hands for m in logs])  # each hand replayed once, for the statistics and AIVAT
    progress.say("statistics")
    summary = summarize(logs, duplicate_groups, steps)
    run_aivat = None
    if with_aivat:
        progress.say("AIVAT and all-in expectation")
        run_aivat = aivat.evaluate_run(records, logs, players, game, steps=steps)
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
    elif not with_aivat and game.num_players == 2:
        out["aivat"] = {"known_players": [], "value_function": None, "mismatches": 0,
                        "notes": ["AIVAT and all-in expectation were switched off (--no-aivat)"]}
    tables = {frozenset(s["player"] for s in rec["seats"]) for rec in records}
    if len(tables) > 1:
        names = [p["player"] for p in players]
        cells = crosstable(logs, duplicate_groups)
        out["crosstable"] = {
            "players": names,
            "mbb_per_hand": _grid(cells, names, lambda e: _num(e.mean)),
            "ci95": _grid(cells, names, lambda e: _num(e.ci95)),
            "hands": _grid(cells, names, lambda e: e.n, 0)}
        luck = aivat.crosstable_cells(run_aivat, logs, duplicate_groups, game) if run_aivat is not None else {}
        if luck:  # each pairing's figure with the luck of the cards (and of known policies) taken out
            out["crosstable"].update({"aivat_mbb_per_hand": _grid(luck, names, lambda e: _num(e.mean)),
                                      "aivat_ci95": _grid(luck, names, lambda e: _num(e.ci95))})
        per_table = table_results(logs)
        present = [n for n in names if any(n in t for t in per_table)]
        rankings: dict[str, Any] = {"total_bankroll": bankroll_ranking(per_table, present)}
        size = game.num_players
        complete = all(frozenset(c) in per_table for c in itertools.combinations(present, size))
        rankings["instant_runoff"] = instant_runoff_ranking(per_table, present) if complete else None
        out["rankings"] = rankings
    return RunAnalysis(out, list(logs), run_aivat)


class AnalysisProgress:
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


def _aivat_summary(run: "aivat.RunAIVAT", players: Sequence[dict[str, str]]) -> dict[str, Any]:
    """The run's "aivat" object: who is known, the value function, mismatches and notes."""
    out: dict[str, Any] = {"known_players": run.known, "value_function": aivat.VALUE_FUNCTION,
                           "mismatches": run.mismatches, "notes": list(run.notes)}
    if not run.known:
        out["notes"].insert(0, "no player exposes its policy (" + ", ".join(p["strategy"] for p in players) +
                            "): AIVAT needs a known policy; only all-in expectation is given")
    return out
