"""report.svg says what it shows: bars for one against many, a legend on the heat map, the final figure and
seatings on the match chart, and no text over another (estimated text extents) or off the canvas."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from dealer.arena.report import bars_svg, cumulative_svg, heatmap_svg, text_boxes
from dealer.arena.results_svg import one_against_many
from dealer.arena.stats import Estimate

SVG = "{http://www.w3.org/2000/svg}"


def assert_no_overlap(svg: str) -> None:
    width, height, boxes = text_boxes(svg)
    for b in boxes:
        assert b.x0 >= -0.5 and b.x1 <= width + 0.5 and b.y0 >= -0.5 and b.y1 <= height + 0.5, b
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(SVG + "text")]


def test_overlap_check_catches_overlaps():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text x="10" y="20" font-size="11">'
           'band label</text><text x="40" y="22" font-size="11">1000</text></svg>')
    with pytest.raises(AssertionError):
        assert_no_overlap(svg)


def test_a_hero_run_is_recognised_from_its_crosstable():
    # hunl, adaptive against three opponents: only the hero's row and column are played
    names = ["adaptive", "uc3m", "bayes", "call"]
    cells = [[None, 10.0, 20.0, 30.0], [-10.0, None, None, None], [-20.0, None, None, None],
             [-30.0, None, None, None]]
    assert one_against_many({"players": names, "mbb_per_hand": cells}) == "adaptive"
    full = [[None, 1.0, 2.0], [-1.0, None, 3.0], [-2.0, -3.0, None]]
    assert one_against_many({"players": names[:3], "mbb_per_hand": full}) is None
    assert one_against_many({"players": names[:2], "mbb_per_hand": [[None, 1.0], [-1.0, None]]}) is None


def test_bars_with_intervals_for_one_against_many():
    rows = [("uc3m", Estimate(600, 8327.0, 1471.0)), ("rh:t=0.1-with-a-long-name", Estimate(600, -41.0, 20.0)),
            ("never", None)]
    svg = bars_svg("adaptive", rows, "hunl-baselines: hunl, 300 hands per match", ["over all: +1 ± 2"])
    labels = texts(svg)
    assert "vs uc3m" in labels and "+8327 ± 2883" in labels and "-41 ± 39" in labels and "not played" in labels
    root = ET.fromstring(svg)
    bars = [r for r in root.iter(SVG + "rect") if r.get("fill") in ("#2ca02c", "#d62728")]
    assert [r.get("fill") for r in bars] == ["#2ca02c", "#d62728"]  # won against uc3m, lost the other
    whiskers = [el for el in root.iter(SVG + "line") if el.get("stroke") == "#222"]
    assert len(whiskers) == 6  # a line and two caps per interval
    assert_no_overlap(svg)


def test_heat_map_has_a_colour_legend():
    names = ["cfr", "raise", "call", "a-player-with-a-long-name"]
    rng = random.Random(3)
    cells = {(r, c): Estimate(100, rng.uniform(-900, 900), rng.uniform(1, 50)) for r in names for c in names if r != c}
    svg = heatmap_svg(names, cells, "leduc: leduc, 2000 hands per match")
    scale = max(abs(e.mean) for e in cells.values())
    labels = texts(svg)
    assert f"-{scale:.0f}" in labels and f"+{scale:.0f}" in labels and "0" in labels
    assert any("mbb/hand" in t for t in labels)
    assert_no_overlap(svg)


def test_match_chart_states_the_figure_and_the_seatings():
    rng = random.Random(1)
    chips = [rng.choice((-100.0, 50.0, 300.0)) for _ in range(600)]
    svg = cumulative_svg({"adaptive": chips}, 100, "a-vs-b: hunl, 300 hands per match",
                         notes=["adaptive: +123.4 ± 56.7 mbb/hand over 600 hands (95%)",
                                "the 2 seatings are joined in play order (dashed lines)"],
                         joins=[(0, "seats adaptive, uc3m"), (300, "seats uc3m, adaptive")])
    labels = texts(svg)
    assert "adaptive: +123.4 ± 56.7 mbb/hand over 600 hands (95%)" in labels
    assert "seats adaptive, uc3m" in labels and "seats uc3m, adaptive" in labels
    dashed = [el for el in ET.fromstring(svg).iter(SVG + "line") if el.get("stroke-dasharray")]
    assert len(dashed) == 1  # where the second seating starts
    assert_no_overlap(svg)


@pytest.mark.parametrize("hands", [7, 1000, 123457])
def test_axis_labels_never_touch(hands):
    svg = cumulative_svg({"a": [1.0] * hands, "b": [-1.0] * hands}, 1, "t")
    assert_no_overlap(svg)
