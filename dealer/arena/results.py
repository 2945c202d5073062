"""A run's results: results.json (the analysis beside the run's facts) and report.svg, written whole into its folder.

The analysis is :mod:`dealer.arena.analysis`, the picture
:mod:`dealer.arena.results_svg`, the printed tables :mod:`dealer.arena.results_text`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from acpcbot.atomic import atomic_write
from acpcbot.gamedef import GameDef

from .analysis import RunAnalysis, analyze, load_logs
from .folders import REPORT, RESULTS, RunError, match_command
from .results_svg import report_svg

#: 2: per-player AIVAT and all-in expectation fields (aivat_*, allin_*) and the run's "aivat" object
SCHEMA = 2


@dataclass
class RunResults:
    """What a run's folder gets: ``doc`` is results.json's object, ``analysis`` the figures' sources (logs,
    per-hand AIVAT values) for the report."""

    doc: dict[str, Any]
    analysis: RunAnalysis


def results_document(*, name: str, mode: str, game_name: str, game: GameDef, hands: int | None, seed: int | None,
                     duplicate: bool, transport: str, run_dir: Path, players: Sequence[dict[str, str]],
                     records: Sequence[dict[str, Any]], seconds: float, with_aivat: bool = True) -> RunResults:
    """The whole results.json object of a run, with the analysis it holds (``with_aivat``: see ``analyze``)."""
    doc: dict[str, Any] = {"schema": SCHEMA, "name": name, "mode": mode, "game": game_name,
                           "big_blind": game.big_blind, "hands": hands, "seed": seed, "duplicate": duplicate,
                           "transport": transport, "run_dir": str(run_dir), "seconds": round(seconds, 3),
                           "players": list(players)}
    played, logs = load_logs(records, run_dir, game)
    analysis = analyze(played, logs, players, game, with_aivat=with_aivat)
    doc.update(analysis.figures)
    doc["matches"] = list(records)
    return RunResults(doc, analysis)


def write_text_file(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a full disk leaves the old copy or none); RunError naming it on failure."""
    try:
        with atomic_write(path) as f:
            f.write(text)
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_outputs(results: RunResults, run_dir: Path, game: GameDef) -> None:
    """Write results.json and report.svg into the run folder; RunError naming the file that cannot be written."""
    doc = results.doc
    for name, text in ((RESULTS, lambda: json.dumps(doc, indent=1) + "\n"),
                       (REPORT, lambda: report_svg(doc, run_dir, game, results.analysis.logs, results.analysis.aivat))):
        try:
            write_text_file(run_dir / name, text())
        except RunError as exc:
            # the logs are whole: resume reads them again (keeping every finished match) and writes the rest
            raise RunError(f"{exc} (the match files are kept; {match_command()} resume {run_dir} writes it again)") from None
