"""The report SVG: the band arithmetic and well-formed pictures."""

import math
import xml.etree.ElementTree as ET

import pytest

from dealer.arena.report import cumulative_band, cumulative_svg, heatmap_svg
from dealer.arena.stats import Z95, Estimate

SVG = "{http://www.w3.org/2000/svg}"


def test_band_is_the_95_percent_interval_of_the_running_total():
    cum, half = cumulative_band([1.0, -1.0, 3.0])
    assert cum == [1.0, 0.0, 3.0]
    # sd of (1, -1) is sqrt(2); of (1, -1, 3) is 2; the total's half-width is 1.96 * sd * sqrt(k)
    assert half == pytest.approx([0.0, Z95 * math.sqrt(2) * math.sqrt(2), Z95 * 2 * math.sqrt(3)])


def test_cumulative_picture_has_a_line_and_band_per_player_inside_the_canvas():
    svg = ET.fromstring(cumulative_svg({"a<b": [100.0, -50.0] * 1000, "c": [-100.0, 50.0] * 1000}, 100, "t & t"))
    width, height = float(svg.get("width")), float(svg.get("height"))
    lines = list(svg.iter(SVG + "polyline"))
    assert len(lines) == 2 and len(list(svg.iter(SVG + "polygon"))) == 2
    for el in lines:
        points = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
        assert len(points) <= 602  # long series are sampled
        assert all(0 <= x <= width and 0 <= y <= height for x, y in points)
    assert "a<b" in [t.text for t in svg.iter(SVG + "text")]  # names are escaped, not dropped


def test_empty_series_and_heat_map_draw():
    ET.fromstring(cumulative_svg({"a": [], "b": []}, 1, "nothing played"))
    cells = {("a", "b"): Estimate(10, 250.0, 10.0), ("b", "a"): Estimate(10, -250.0, None)}
    svg = ET.fromstring(heatmap_svg(["a", "b"], cells, "t"))
    texts = [t.text for t in svg.iter(SVG + "text")]
    assert "+250" in texts and "-250" in texts and "± ?" in texts and f"± {Z95 * 10:.0f}" in texts
