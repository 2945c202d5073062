"""The run report as SVG text, drawn with the standard library only.

Two pictures: cumulative winnings over the hands with a 95% band (matches),
and a heat map of the crosstable (tournaments).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence
from xml.sax.saxutils import escape

from .stats import Z95, Estimate

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
MAX_POINTS = 600  # points drawn per line; longer series are sampled evenly
FONT = 'font-family="sans-serif"'


def _svg(width: int, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


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


def cumulative_svg(series: Mapping[str, Sequence[float]], big_blind: float, title: str) -> str:
    """Cumulative winnings in big blinds per player over its hands, each with its 95% band."""
    width, height = 760, 420
    left, right, top, bottom = 70, 170, 40, 50
    pw, ph = width - left - right, height - top - bottom
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

    body = [f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" {FONT}>{escape(title)}</text>']
    for t in _nice_ticks(lo, hi):
        body.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{left + pw}" y2="{y(t):.1f}" stroke="#e5e5e5"/>')
        body.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end" font-size="11" {FONT}>{t:g}</text>')
    for t in _nice_ticks(0, xmax):
        body.append(f'<text x="{x(t):.1f}" y="{top + ph + 16}" text-anchor="middle" font-size="11" {FONT}>{t:g}</text>')
    body.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + pw}" y2="{y(0):.1f}" stroke="#999"/>')
    body.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    body.append(f'<text x="{left + pw / 2}" y="{height - 12}" text-anchor="middle" font-size="12" {FONT}>hands</text>')
    body.append(f'<text x="16" y="{top + ph / 2}" text-anchor="middle" font-size="12" {FONT} '
                f'transform="rotate(-90 16 {top + ph / 2})">cumulative winnings (big blinds)</text>')
    for i, (name, (cum, half)) in enumerate(lines.items()):
        color = PALETTE[i % len(PALETTE)]
        n = len(cum)
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
        ly = top + 14 + 18 * i
        body.append(f'<rect x="{left + pw + 12}" y="{ly - 9}" width="12" height="10" fill="{color}"/>')
        body.append(f'<text x="{left + pw + 30}" y="{ly}" font-size="12" {FONT}>{escape(name)}</text>')
    body.append(f'<text x="{left + pw + 12}" y="{top + ph}" font-size="10" fill="#555" {FONT}>band: 95% of the</text>')
    body.append(f'<text x="{left + pw + 12}" y="{top + ph + 12}" font-size="10" fill="#555" {FONT}>expected total</text>')
    return _svg(width, height, body)


def _cell_color(value: float, scale: float) -> str:
    """Green for winnings, red for losses, white at zero; saturates at ``scale``."""
    t = max(-1.0, min(1.0, value / scale)) if scale > 0 else 0.0
    if t >= 0:
        r, g, b = 255 - int(155 * t), 255 - int(55 * t), 255 - int(155 * t)
    else:
        r, g, b = 255 + int(35 * t), 255 + int(155 * t), 255 + int(155 * t)
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap_svg(players: Sequence[str], cells: Mapping[tuple[str, str], Estimate], title: str) -> str:
    """The crosstable as a heat map: row's mbb/hand against column, with the 95% half-width."""
    n = len(players)
    cw, chh = 110, 44
    label_w = min(260, 14 + 7 * max((len(p) for p in players), default=4))
    top = 70
    width = label_w + cw * n + 20
    height = top + chh * n + 40
    scale = max((abs(e.mean) for e in cells.values()), default=0.0)
    body = [f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" {FONT}>{escape(title)}</text>',
            f'<text x="{width / 2}" y="40" text-anchor="middle" font-size="11" fill="#555" {FONT}>'
            f'row against column, mbb/hand ± 95% half-width</text>']
    for j, col in enumerate(players):
        cx = label_w + cw * j + cw / 2
        body.append(f'<text x="{cx}" y="{top - 8}" text-anchor="middle" font-size="11" {FONT}>{escape(col[:16])}</text>')
    for i, row in enumerate(players):
        ry = top + chh * i
        body.append(f'<text x="{label_w - 8}" y="{ry + chh / 2 + 4}" text-anchor="end" font-size="11" {FONT}>'
                    f'{escape(row)}</text>')
        for j, col in enumerate(players):
            cx = label_w + cw * j
            est = cells.get((row, col))
            fill = "#f0f0f0" if est is None else _cell_color(est.mean, scale)
            body.append(f'<rect x="{cx}" y="{ry}" width="{cw}" height="{chh}" fill="{fill}" stroke="white"/>')
            if est is not None:
                ci = "?" if est.ci95 is None else f"{est.ci95:.0f}"
                body.append(f'<text x="{cx + cw / 2}" y="{ry + chh / 2 - 2}" text-anchor="middle" font-size="12" '
                            f'{FONT}>{est.mean:+.0f}</text>')
                body.append(f'<text x="{cx + cw / 2}" y="{ry + chh / 2 + 13}" text-anchor="middle" font-size="10" '
                            f'fill="#444" {FONT}>± {ci}</text>')
    return _svg(width, height, body)
