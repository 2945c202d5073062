"""tools/aivat_terms.py: a run's AIVAT taken apart into the plain result and the two kinds of correction."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import aivat_terms  # noqa: E402

from dealer.arena.recipes import Entry, build_plan  # noqa: E402
from dealer.arena.runner import execute  # noqa: E402


def _play(where: Path, specs: list[str], hands: int, seed: int, duplicate: bool = True) -> dict:
    entries = [Entry(s.split(":")[0], s) for s in specs]
    plan = build_plan(name="terms", game="hunl", hands=hands, seed=seed, duplicate=duplicate, mode="play",
                      entries=entries, transport="memory", parallel=1)
    return execute(plan, where)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """random (a known mixed policy: its draws are corrected) against station, 30 deals in duplicate."""
    return _play(tmp_path_factory.mktemp("mixed"), ["random", "station"], 30, 5)


def test_the_plain_and_aivat_figures_are_the_runs_own(mixed, capsys):
    assert aivat_terms.main([mixed["run_dir"], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for entry in mixed["results"]:
        figures = out["players"][entry["player"]]
        assert figures["plain"]["mbb_per_hand"] == pytest.approx(entry["duplicate_mbb_per_hand"], abs=0.05)
        assert figures["plain"]["ci95"] == pytest.approx(entry["duplicate_ci95"], abs=0.05)
        assert figures["aivat"]["mbb_per_hand"] == pytest.approx(entry["aivat_duplicate_mbb_per_hand"], abs=0.05)
        assert figures["plain"]["samples"] == 30  # a sample per deal: the two seatings paired


def test_aivat_is_the_plain_result_less_both_kinds_of_term(mixed):
    samples, _, _, _ = aivat_terms.run_terms(Path(mixed["run_dir"]))
    kinds = samples["random"]
    assert any(abs(a) > 0 for a in kinds["action"])  # random's draws are corrected
    for p, v, c, a, g, co in zip(kinds["plain"], kinds["aivat"], kinds["chance"], kinds["action"], kinds["gap"],
                                 kinds["chance_only"]):
        assert v == pytest.approx(p - c - a, abs=1e-6)
        assert g == pytest.approx(-(c + a), abs=1e-6)
        assert co == pytest.approx(p - c, abs=1e-6)
    # heads-up: the other player's every term is the negation
    for kind in aivat_terms.KINDS:
        assert samples["station"][kind] == pytest.approx([-x for x in kinds[kind]], abs=1e-6)


def test_deterministic_players_have_no_action_terms(tmp_path):
    doc = _play(tmp_path, ["call", "raise:size=pot"], 12, 2, duplicate=False)  # duplicate: every deal cancels
    samples, _, _, _ = aivat_terms.run_terms(Path(doc["run_dir"]))
    assert samples["call"]["action"] == [0.0] * 12
    assert samples["call"]["chance_only"] == samples["call"]["aivat"]
    assert any(c != 0 for c in samples["call"]["chance"])


def test_folders_and_players_that_are_not_there_are_named(mixed, tmp_path, capsys):
    with pytest.raises(SystemExit):
        aivat_terms.main([str(tmp_path)])
    assert "no plan.json" in capsys.readouterr().err
    assert aivat_terms.main([mixed["run_dir"], "--player", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "'nobody'" in err and "random" in err and "station" in err


def test_the_table_names_every_kind(mixed, capsys):
    assert aivat_terms.main([mixed["run_dir"], "--player", "random"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("random:") and all(kind in text for kind in aivat_terms.KINDS)
