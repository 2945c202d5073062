"""Pooling LBR parts (tools/lbr_pool.py): hand-worked pooled means and intervals, and parts that do not belong
together refused with the file named."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import lbr_pool  # noqa: E402

Z = lbr_pool.Z95


def part(seed: int, pairs: int, mean: float, ci: float, **extra) -> dict:
    return {"strategy": "blueprint", "game": "hulhe", "actions": "full", "seed": seed, "pairs": pairs,
            "lbr_mbb_per_hand": mean, "ci95": ci, **extra}


def test_two_equal_parts_pool_to_the_mean_with_the_variances_quartered():
    # means 10 and 30 over 100 pairs each, each mean's standard error 2: pooled 20, error sqrt(4/4 + 4/4)
    mean, ci = lbr_pool.pool([part(1, 100, 10.0, 2 * Z), part(2, 100, 30.0, 2 * Z)], "lbr_mbb_per_hand", "ci95")
    assert mean == pytest.approx(20.0)
    assert ci == pytest.approx(Z * math.sqrt(2.0))


def test_unequal_parts_weigh_by_their_pairs():
    # 300 pairs at 0 (error 1) and 100 pairs at 40 (error 3): mean 10, error sqrt(0.75^2 + 0.25^2 * 9)
    mean, ci = lbr_pool.pool([part(1, 300, 0.0, Z), part(2, 100, 40.0, 3 * Z)], "lbr_mbb_per_hand", "ci95")
    assert mean == pytest.approx(10.0)
    assert ci == pytest.approx(Z * math.sqrt(0.5625 + 0.5625))


def _write(tmp_path: Path, name: str, obj: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


def test_the_command_pools_plain_and_aivat_figures(tmp_path: Path, capsys):
    a = _write(tmp_path, "a.json", part(1, 100, 10.0, 2 * Z, aivat_mbb_per_hand=12.0, aivat_ci95=Z, seconds=5))
    b = _write(tmp_path, "b.json", part(2, 100, 30.0, 2 * Z, aivat_mbb_per_hand=8.0, aivat_ci95=Z, seconds=7))
    assert lbr_pool.main([a, b, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["pairs"], out["parts"], out["seeds"], out["seconds"]) == (200, 2, [1, 2], 12.0)
    assert out["lbr_mbb_per_hand"] == pytest.approx(20.0)
    assert out["aivat_mbb_per_hand"] == pytest.approx(10.0)
    assert out["aivat_ci95"] == pytest.approx(Z * math.sqrt(0.5), abs=1e-3)


@pytest.mark.parametrize("other, words", [
    (part(2, 100, 1.0, 1.0, strategy="call"), "strategy 'call'"),
    (part(2, 100, 1.0, 1.0, actions="S2"), "actions 'S2'"),
    (part(1, 100, 1.0, 1.0), "seed 1 already in"),
    ({"strategy": "blueprint"}, "not an LBR result (no game"),
])
def test_parts_that_do_not_belong_together_are_refused(tmp_path: Path, capsys, other, words):
    a = _write(tmp_path, "a.json", part(1, 100, 10.0, 2.0))
    b = _write(tmp_path, "b.json", other)
    assert lbr_pool.main([a, b]) == 2
    err = capsys.readouterr().err
    assert "b.json" in err and words in err


def test_the_streets_shares_pool_like_the_totals_over_the_parts_that_have_them():
    # preflop: +100 over 100 pairs (error 2) and +300 over 300 (error 1): pooled 250, error sqrt(1/16*4 + 9/16*1);
    # the river only in the second part: its own figure
    a = part(1, 100, 0.0, 1.0, by_street={"first_raise": {"preflop": {"mbb_per_hand": 100.0, "ci95": 2 * Z}},
                                          "chips_in": {}})
    b = part(2, 300, 0.0, 1.0, by_street={"first_raise": {"preflop": {"mbb_per_hand": 300.0, "ci95": Z},
                                                          "river": {"mbb_per_hand": -5.0, "ci95": Z}}})
    shares = lbr_pool.pool_by_street([a, b])
    assert shares["first_raise"]["preflop"]["mbb_per_hand"] == pytest.approx(250.0)
    assert shares["first_raise"]["preflop"]["ci95"] == pytest.approx(Z * math.sqrt(4 / 16 + 9 / 16), abs=1e-3)
    assert shares["first_raise"]["river"] == {"mbb_per_hand": -5.0, "ci95": pytest.approx(Z, abs=1e-3)}
    assert "chips_in" not in shares
