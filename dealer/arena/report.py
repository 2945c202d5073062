"""The run report as SVG text, drawn with the standard library only.

Three pictures: cumulative winnings over the hands of one table with a 95%
band (its seatings joined in play order, the final figure stated); a bar
chart with 95% intervals for one player against many (a hero run); and a
heat map of the crosstable with a colour legend (round robins).  Every
text is placed in its own slot so that none overlaps another; the test
suite checks this with estimated text extents (:func:`text_boxes`).
"""

from __future__ import annotations

import math
from typing import Mapping, NamedTuple, Sequence

from .stats import Z95, Estimate

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
MAX_POINTS = 600  # points drawn per line; longer series are sampled evenly
FONT = 'font-family="sans-serif"'
CHAR_EM = 0.6  # a generous average sans-serif character width, in ems, for laying out and checking text


def _svg(width: float, height: float, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def escape(text: str) -> str:
    """``text`` safe inside an SVG element: ``&``, ``<`` and ``>`` as entities (xml.sax's escape, whose import
    pulls in urllib and ssl: a tenth of a second of every run's start)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" {FONT}{extra}>'
            f'{escape(text)}</text>')


def text_width(text: str, size: float) -> float:
    """The estimated width of ``text`` at font size ``size`` (generous: layouts built on it leave room)."""
    return len(text) * size * CHAR_EM


def _fit(text: str, size: float, width: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``width``."""
    if text_width(text, size) <= width:
        return text
    keep = max(1, int(width / (size * CHAR_EM)) - 1)
    return text[:keep] + "…"


class Box(NamedTuple):
    """The estimated extent of one text element: left, top, right, bottom."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    def overlaps(self, other: "Box") -> bool:
        """Whether the two boxes share more than a hair of area."""
        eps = 0.5
        return (self.x0 < other.x1 - eps and other.x0 < self.x1 - eps and
                self.y0 < other.y1 - eps and other.y0 < self.y1 - eps)


def text_boxes(svg_text: str) -> tuple[float, float, list[Box]]:
    """The canvas size and every unrotated text's estimated box (for the layout checks of the tests)."""
    import xml.etree.ElementTree as ET  # the tests' reader only

    root = ET.fromstring(svg_text)
    ns = "{http://www.w3.org/2000/svg}"
    boxes = []
    for el in root.iter(ns + "text"):
        if el.get("transform"):
            continue  # rotated axis titles sit in their own margin
        size = float(el.get("font-size", "11"))
        text = el.text or ""
        w = text_width(text, size)
        x, y = float(el.get("x", "0")), float(el.get("y", "0"))
        anchor = el.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        boxes.append(Box(x0, y - 0.8 * size, x0 + w, y + 0.25 * size, text))
    return float(root.get("width", "0")), float(root.get("height", "0")), boxes


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering lo..hi."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    t = first
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def cumulative_band(chips: Sequence[float]) -> tuple[list[float], list[float]]:
    """Cumulative winnings after each hand and the 95% half-width of the expected total so far.

    The half-width after k hands is 1.96 * sd * sqrt(k), with sd the sample
    standard deviation of the first k hands (0 until there are two).
    """
    cum, half = [], []
    total = mean = m2 = 0.0
    for k, x in enumerate(chips, start=1):
        total += x
        delta = x - mean  # Welford's running variance
        mean += delta / k
        m2 += delta * (x - mean)
        cum.append(total)
        half.append(Z95 * math.sqrt(m2 / (k - 1) * k) if k > 1 else 0.0)
    return cum, half


def _title_lines(width: float, title: str, notes: Sequence[str]) -> tuple[list[str], float]:
    """The title and note lines centred at the top; returns the elements and the height they take."""
    body = [_text(width / 2, 22, _fit(title, 15, width - 20), 15, "middle")]
    y = 22.0
    for note in notes:
        y += 16
        body.append(_text(width / 2, y, _fit(note, 11, width - 20), 11, "middle", ' fill="#444"'))
    return body, y + 14


def cumulative_svg(series: Mapping[str, Sequence[float]], big_blind: float, title: str, *,
                   notes: Sequence[str] = (), joins: Sequence[tuple[int, str]] = ()) -> str:
    """Cumulative winnings in big blinds per player over its hands, each with its 95% band.

    ``notes`` are lines printed under the title (the final figure, what a
    line stands for); ``joins`` mark where a new seating starts: (hands
    before it, its label), drawn as dashed lines labelled below the axis.
    """
    width = max([780.0] + [text_width(n, 11) + 40 for n in notes])
    legend_w = max([150.0] + [text_width(n, 12) + 40 for n in series])
    right = min(260.0, legend_w)
    left, bottom = 70, 50 + (18 if joins else 0)
    head, top = _title_lines(width, title, notes)
    ph = 300
    height = top + ph + bottom
    pw = width - left - right
    lines = {}
    for name, chips in series.items():
        cum, half = cumulative_band(chips)
        lines[name] = ([c / big_blind for c in cum], [h / big_blind for h in half])
    n_max = max((len(c) for c, _ in lines.values()), default=0)
    lo = min([0.0] + [c - h for cum, half in lines.values() for c, h in zip(cum, half)])
    hi = max([0.0] + [c + h for cum, half in lines.values() for c, h in zip(cum, half)])
    if hi - lo < 1e-9:
        lo, hi = -1.0, 1.0
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    xmax = max(n_max, 1)

    def x(k: float) -> float:
        return left + pw * k / xmax

    def y(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    body = list(head)
    for t in _nice_ticks(lo, hi):
        body.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{left + pw}" y2="{y(t):.1f}" stroke="#e5e5e5"/>')
        body.append(_text(left - 6, y(t) + 4, f"{t:g}", 11, "end"))
    x_ticks = _nice_ticks(0, xmax)
    last_right = -math.inf
    for t in x_ticks:
        label = f"{t:g}"
        w = text_width(label, 11)
        if x(t) - w / 2 < last_right + 4 or x(t) + w / 2 > width - 2:
            continue  # a tick label that would touch its neighbour or leave the canvas is left out
        last_right = x(t) + w / 2
        body.append(_text(x(t), top + ph + 16, label, 11, "middle"))
    body.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + pw}" y2="{y(0):.1f}" stroke="#999"/>')
    for k, (start, label) in enumerate(joins):
        if start > 0:
            body.append(f'<line x1="{x(start):.1f}" y1="{top}" x2="{x(start):.1f}" y2="{top + ph}" stroke="#555" '
                        f'stroke-dasharray="4,3"/>')
        end = joins[k + 1][0] if k + 1 < len(joins) else xmax
        slot = max(10.0, x(end) - x(start) - 6)
        body.append(_text(x(start) + 3, top + ph + 34, _fit(label, 10, slot), 10, "start", ' fill="#555"'))
    body.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    body.append(_text(left + pw / 2, height - 10, "hands", 12, "middle"))
    body.append(f'<text x="16" y="{top + ph / 2}" text-anchor="middle" font-size="12" {FONT} '
                f'transform="rotate(-90 16 {top + ph / 2})">cumulative winnings (big blinds)</text>')
    ly = top + 14
    for i, (name, (cum, half)) in enumerate(lines.items()):
        color = PALETTE[i % len(PALETTE)]
        n = len(cum)
        body.append(f'<rect x="{left + pw + 12}" y="{ly - 9}" width="12" height="10" fill="{color}"/>')
        body.append(_text(left + pw + 30, ly, _fit(name, 12, right - 34), 12))
        ly += 18
        if n == 0:
            continue
        step = max(1, math.ceil(n / MAX_POINTS))
        idx = list(range(step - 1, n, step))
        if idx[-1] != n - 1:
            idx.append(n - 1)
        upper = " ".join(f"{x(k + 1):.1f},{y(cum[k] + half[k]):.1f}" for k in idx)
        lower = " ".join(f"{x(k + 1):.1f},{y(cum[k] - half[k]):.1f}" for k in reversed(idx))
        body.append(f'<polygon points="{x(0):.1f},{y(0):.1f} {upper} {lower}" fill="{color}" fill-opacity="0.15" '
                    f'stroke="none"/>')
        path = " ".join(f"{x(k + 1):.1f},{y(cum[k]):.1f}" for k in idx)
        body.append(f'<polyline points="{x(0):.1f},{y(0):.1f} {path}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    body.append(_text(left + pw + 12, ly + 8, "shaded: 95% band", 10, "start", ' fill="#555"'))
    body.append(_text(left + pw + 12, ly + 21, "of the expected total", 10, "start", ' fill="#555"'))
    return _svg(width, height, body)


def _cell_color(value: float, scale: float) -> str:
    """Green for winnings, red for losses, white at zero; saturates at ``scale``."""
    t = max(-1.0, min(1.0, value / scale)) if scale > 0 else 0.0
    if t >= 0:
        r, g, b = 255 - int(155 * t), 255 - int(55 * t), 255 - int(155 * t)
    else:
        r, g, b = 255 + int(35 * t), 255 + int(155 * t), 255 + int(155 * t)
    return f"#{r:02x}{g:02x}{b:02x}"


def _legend(x0: float, y0: float, w: float, scale: float) -> list[str]:
    """A colour bar from -scale (red) through 0 (white) to +scale (green), labelled in mbb/hand."""
    steps = 40
    out = []
    for k in range(steps):
        v = -scale + 2 * scale * (k + 0.5) / steps
        out.append(f'<rect x="{x0 + w * k / steps:.1f}" y="{y0}" width="{w / steps + 0.6:.1f}" height="10" '
                   f'fill="{_cell_color(v, scale)}"/>')
    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="10" fill="none" stroke="#999"/>')
    s = f"{scale:.0f}"
    out.append(_text(x0, y0 + 24, f"-{s}", 10, "middle"))
    out.append(_text(x0 + w / 2, y0 + 24, "0", 10, "middle"))
    out.append(_text(x0 + w, y0 + 24, f"+{s}", 10, "middle"))
    out.append(_text(x0 + w + 24, y0 + 9, "mbb/hand (colour saturates)", 10))
    return out


def heatmap_svg(players: Sequence[str], cells: Mapping[tuple[str, str], Estimate], title: str) -> str:
    """The crosstable as a heat map: row's mbb/hand against column, with the 95% half-width, and a colour legend."""
    n = len(players)
    cw, chh = 110, 44
    label_w = min(260, 14 + text_width("m" * max((len(p) for p in players), default=4), 11))
    scale = max((abs(e.mean) for e in cells.values()), default=0.0)
    grid_w = label_w + cw * n + 20
    width = max(grid_w, text_width(title, 15) + 40, 440)
    head, top = _title_lines(width, title, ["row against column, mbb/hand ± 95% half-width"])
    top += 16
    height = top + chh * n + 60
    body = list(head)
    for j, col in enumerate(players):
        cx = label_w + cw * j + cw / 2
        body.append(_text(cx, top - 8, _fit(col, 11, cw - 8), 11, "middle"))
    for i, row in enumerate(players):
        ry = top + chh * i
        body.append(_text(label_w - 8, ry + chh / 2 + 4, _fit(row, 11, label_w - 12), 11, "end"))
        for j, col in enumerate(players):
            cx = label_w + cw * j
            est = cells.get((row, col))
            fill = "#f0f0f0" if est is None else _cell_color(est.mean, scale)
            body.append(f'<rect x="{cx}" y="{ry}" width="{cw}" height="{chh}" fill="{fill}" stroke="white"/>')
            if est is not None:
                ci = "?" if est.ci95 is None else f"{est.ci95:.0f}"
                body.append(_text(cx + cw / 2, ry + chh / 2 - 2, f"{est.mean:+.0f}", 12, "middle"))
                body.append(_text(cx + cw / 2, ry + chh / 2 + 13, f"± {ci}", 10, "middle", ' fill="#444"'))
    body += _legend(label_w, top + chh * n + 18, min(200.0, max(120.0, cw * n - 200)), scale or 1.0)
    return _svg(width, height, body)


def bars_svg(hero: str, rows: Sequence[tuple[str, Estimate | None]], title: str, notes: Sequence[str] = ()) -> str:
    """One player against many: a horizontal bar of its mbb/hand against each opponent, with the 95% interval."""
    label_w = 14 + max([text_width(f"vs {name}", 11) for name, _ in rows] + [40.0])
    value_w = 16 + max([text_width(_bar_value(est), 11) for _, est in rows] + [40.0])
    pw: float = 420
    lines = [f"{hero}'s winnings against each opponent, mbb/hand; whisker: 95% interval", *notes]
    width = max([label_w + pw + value_w + 20, text_width(title, 15) + 40] + [text_width(n, 11) + 40 for n in lines])
    pw = width - label_w - value_w - 20  # the bars take whatever the notes made room for
    head, top = _title_lines(width, title, lines)
    bh = 26
    ph = bh * max(1, len(rows))
    height = top + ph + 46
    known = [e for _, e in rows if e is not None]
    lo = min([0.0] + [e.mean - (e.ci95 or 0) for e in known])
    hi = max([0.0] + [e.mean + (e.ci95 or 0) for e in known])
    if hi - lo < 1e-9:
        lo, hi = -1.0, 1.0
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    left = label_w

    def x(v: float) -> float:
        return left + pw * (v - lo) / (hi - lo)

    body = list(head)
    last_right = -math.inf
    for t in _nice_ticks(lo, hi):
        body.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{top + ph}" stroke="#e5e5e5"/>')
        label = f"{t:g}"
        w = text_width(label, 11)
        if x(t) - w / 2 >= last_right + 4:
            body.append(_text(x(t), top + ph + 16, label, 11, "middle"))
            last_right = x(t) + w / 2
    body.append(f'<line x1="{x(0):.1f}" y1="{top}" x2="{x(0):.1f}" y2="{top + ph}" stroke="#666"/>')
    for i, (name, est) in enumerate(rows):
        cy = top + bh * i + bh / 2
        body.append(_text(left - 8, cy + 4, f"vs {name}", 11, "end"))
        if est is not None:
            color = "#2ca02c" if est.mean >= 0 else "#d62728"
            x0, x1 = sorted((x(0), x(est.mean)))
            body.append(f'<rect x="{x0:.1f}" y="{cy - 8:.1f}" width="{max(x1 - x0, 0.5):.1f}" height="16" '
                        f'fill="{color}" fill-opacity="0.7"/>')
            if est.ci95 is not None:
                a, b = x(est.mean - est.ci95), x(est.mean + est.ci95)
                body.append(f'<line x1="{a:.1f}" y1="{cy:.1f}" x2="{b:.1f}" y2="{cy:.1f}" stroke="#222"/>')
                for end in (a, b):
                    body.append(f'<line x1="{end:.1f}" y1="{cy - 5:.1f}" x2="{end:.1f}" y2="{cy + 5:.1f}" '
                                f'stroke="#222"/>')
        body.append(_text(left + pw + 10, cy + 4, _bar_value(est), 11))
    body.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    body.append(_text(left + pw / 2, height - 10, "mbb/hand", 12, "middle"))
    return _svg(width, height, body)


def _bar_value(est: Estimate | None) -> str:
    if est is None:
        return "not played"
    return f"{est.mean:+.0f}" + ("" if est.ci95 is None else f" ± {est.ci95:.0f}")
