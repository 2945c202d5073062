"""River re-solves measured against the blueprint (tools/resolve_spots.py): the blueprint against itself scores
exactly 0, a share compared with itself differs by exactly 0, and bad arguments are refused before any work."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from acpcbot.gamedef import load_game
from acpcbot.solve.resolving.gadget import load_strategy
from acpcbot.strategies.blueprint import load_blueprint, shipped_reason

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import resolve_spots  # noqa: E402

HULHE = load_game("hulhe")
NO_HULHE = pytest.mark.skipif(shipped_reason(HULHE) is not None, reason=str(shipped_reason(HULHE)))


@pytest.mark.parametrize("name", ["hulhe", "hunl"])
def test_the_blueprint_measured_as_its_own_resolve_scores_zero(name: str) -> None:
    game = load_game(name)
    if shipped_reason(game) is not None:
        pytest.skip(str(shipped_reason(game)))
    table = load_blueprint(game)
    resolver = resolve_spots.resolver_for(game, table, 10)
    rng = np.random.default_rng(3)
    state = None
    while state is None:
        state = resolve_spots.river_spot(game, table, rng)
    assert state.round == 3 and not state.finished and len(state.board) == 5
    spot = resolver.spot(state)
    ranges = resolver.ranges(state, spot)
    # the blueprint's own rows as the "re-solved" strategy, over the live holdings and the tree measure uses
    sub = resolve_spots.real_subgame(game, spot.root, spot.board, ranges, spot.player, spot.sizes)
    own = load_strategy(sub, spot.root, resolver.node_rows)
    base = resolve_spots.baseline(game, spot.root, spot.board, ranges, spot.player, resolver.node_rows, spot.sizes)
    figures = resolve_spots.measure(base, spot.player, own)
    assert figures["h2h"] == pytest.approx(0.0, abs=1e-6 * figures["pot"])
    assert figures["br_resolved"] == pytest.approx(figures["br_blueprint"], abs=1e-6 * figures["pot"])
    assert figures["excess_pct"] == pytest.approx(0.0, abs=1e-6)


@NO_HULHE
def test_a_share_against_itself_differs_by_exactly_zero_and_the_figures_are_there() -> None:
    out = resolve_spots.run(2, 5, [0.1, 0.1], iterations=10)
    assert out["spots"] == 2 and out["hands_dealt"] >= 2
    cell = out["shares"]["0.1"]
    assert cell["h2h_minus_first"] == {"mean": 0.0, "ci95": 0.0}
    assert set(cell) >= {"h2h", "br_resolved", "br_blueprint", "excess_pct", "mbb_per_hand", "iterations"}
    assert cell["iterations"]["mean"] == 10.0  # the cap: 10 iterations never pass the stopping rule's second check


@pytest.mark.parametrize("argv,needle", [(["--commit", "2"], "[0, 1]"), (["--commit", "a"], "numbers"),
                                         (["--spots", "1"], "--spots"), (["--iterations", "0"], "--iterations")])
def test_bad_arguments_are_refused_naming_them(argv, needle, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        resolve_spots.main(argv)
    assert exc.value.code == 2 and needle in capsys.readouterr().err
