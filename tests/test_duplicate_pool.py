"""Pooling duplicate parts (tools/duplicate_pool.py): hand-worked pooled means and intervals per pairing, and parts
that cannot count or do not belong together refused with the file named."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import duplicate_pool  # noqa: E402
from lbr_pool import Z95 as Z  # noqa: E402


def run(seed: int, opponent: str, pairs: int, mean: float, ci: float, aivat: tuple[float, float] | None = None,
        **extra) -> dict:
    hero = {"player": "blueprint", "strategy": "blueprint", "duplicate_mbb_per_hand": mean, "duplicate_ci95": ci,
            "duplicate_pairs": pairs}
    if aivat is not None:
        hero.update(aivat_duplicate_mbb_per_hand=aivat[0], aivat_duplicate_ci95=aivat[1])
    doc = {"game": "hulhe", "seed": seed, "duplicate": True, "partial": False, "seconds": 10.0,
           "matches": [{"complete": True}, {"complete": True}],
           "results": [hero, {"player": opponent, "strategy": opponent}]}
    doc.update(extra)
    return doc


def write(tmp_path: Path, docs: list[dict]) -> list[str]:
    names = []
    for i, doc in enumerate(docs):
        path = tmp_path / f"part{i}.json"
        path.write_text(json.dumps(doc))
        names.append(str(path))
    return names


def test_parts_of_a_pairing_pool_by_deals_and_pairings_stay_apart(tmp_path, capsys):
    # against call: 100 deals at +10 and 300 at +30, each mean's error 2 and 1: pooled (1000 + 9000) / 400 = 25,
    # error sqrt((1/4)^2 * 4 + (3/4)^2 * 1); against raise one part, its own figures
    names = write(tmp_path, [run(1, "call", 100, 10.0, 2 * Z, (12.0, Z)), run(2, "call", 300, 30.0, Z, (28.0, Z)),
                             run(1, "raise", 50, -5.0, 3 * Z)])
    assert duplicate_pool.main([*names, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    call, raise_ = out["pairings"]
    assert call["opponent"] == "call" and call["pairs"] == 400 and call["seeds"] == [1, 2]
    assert call["mbb_per_hand"] == pytest.approx(25.0)
    assert call["ci95"] == pytest.approx(Z * math.sqrt(0.25 ** 2 * 4 + 0.75 ** 2), abs=1e-3)
    assert call["aivat_mbb_per_hand"] == pytest.approx((12.0 * 100 + 28.0 * 300) / 400)
    assert raise_ == {"opponent": "raise", "parts": 1, "pairs": 50, "seeds": [1], "mbb_per_hand": -5.0,
                      "ci95": pytest.approx(3 * Z, abs=1e-3), "seconds": 10.0}  # no AIVAT figure: none pooled


@pytest.mark.parametrize("bad, says", [
    ({"duplicate": False}, "not a duplicate run"),
    ({"partial": True}, "did not finish"),
    ({"matches": [{"complete": True}, {"complete": False}]}, "did not finish"),
    ({"results": []}, "not a heads-up"),
    ({"game": "hunl"}, "game 'hunl'"),
])
def test_a_part_that_cannot_count_is_refused_with_its_file_named(tmp_path, capsys, bad, says):
    names = write(tmp_path, [run(1, "call", 100, 10.0, 2.0), run(2, "call", 100, 10.0, 2.0, **bad)])
    assert duplicate_pool.main(names) == 2
    err = capsys.readouterr().err
    assert says in err and names[1] in err


def test_a_seed_played_twice_against_one_opponent_is_refused_but_not_against_another(tmp_path, capsys):
    names = write(tmp_path, [run(7, "call", 100, 1.0, 2.0), run(7, "raise", 100, 1.0, 2.0)])
    assert duplicate_pool.main(names) == 0
    names = write(tmp_path, [run(7, "call", 100, 1.0, 2.0), run(7, "call", 100, 1.0, 2.0)])
    capsys.readouterr()
    assert duplicate_pool.main(names) == 2
    assert "seed 7 against call already in" in capsys.readouterr().err
