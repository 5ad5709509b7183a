"""Small inline-SVG charts (histogram, line chart, horizontal bars): no plotting library, no external resource,
crisp on screen and in print. Every label is escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PALETTE = ("#3565a8", "#d9822b", "#3f8f5f", "#b5485d", "#7a5fa8", "#6b6b6b")
W, H = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 30, 44


def nice_ticks(lo: float, hi: float, n: int = 5, integer: bool = False) -> list[float]:
    """About n round tick values covering [lo, hi] (steps of 1, 2 or 5 × 10^k; at least 1 if ``integer``)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    if integer:
        step = max(step, 1)
    first = math.floor(lo / step) * step
    ticks, t = [], first
    while t < hi + step * 0.999:
        ticks.append(round(t, 10))
        t += step
    return ticks


def fmt(v: float) -> str:
    if v == int(v) and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.3g}"


class _Frame:
    def __init__(self, xlo: float, xhi: float, ylo: float, yhi: float, height: int = H, integer_x: bool = False):
        self.xt, self.yt = nice_ticks(xlo, xhi, integer=integer_x), nice_ticks(ylo, yhi, 4)
        self.x0, self.x1, self.y0, self.y1 = self.xt[0], self.xt[-1], self.yt[0], self.yt[-1]
        self.h = height

    def x(self, v: float) -> float:
        return LEFT + (v - self.x0) / ((self.x1 - self.x0) or 1) * (W - LEFT - RIGHT)

    def y(self, v: float) -> float:
        return self.h - BOTTOM - (v - self.y0) / ((self.y1 - self.y0) or 1) * (self.h - TOP - BOTTOM)

    def axes(self, xlabel: str, ylabel: str) -> list[str]:
        out = []
        for t in self.yt:
            y = self.y(t)
            out.append(
                f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e3e3"/>'
                f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(fmt(t))}</text>'
            )
        for t in self.xt:
            x = self.x(t)
            out.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{self.h - BOTTOM}" y2="{self.h - BOTTOM + 4}" '
                f'stroke="#888"/><text x="{x:.1f}" y="{self.h - BOTTOM + 16}" text-anchor="middle">'
                f"{escape(fmt(t))}</text>"
            )
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{self.h - BOTTOM}" y2="{self.h - BOTTOM}" stroke="#888"/>')
        out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{self.h - 8}" text-anchor="middle">{escape(xlabel)}</text>')
        out.append(
            f'<text transform="translate(14 {(TOP + self.h - BOTTOM) / 2}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>'
        )
        return out


def _svg(title: str, body: Sequence[str], height: int = H, legend: Sequence[str] = ()) -> str:
    items = []
    x = LEFT
    for i, name in enumerate(legend):
        color = PALETTE[i % len(PALETTE)]
        items.append(
            f'<rect x="{x}" y="8" width="12" height="12" fill="{color}"/>'
            f'<text x="{x + 16}" y="18">{escape(name)}</text>'
        )
        x += 28 + 7 * len(name)
    return (
        f'<svg class="chart" viewBox="0 0 {W} {height}" role="img" preserveAspectRatio="xMinYMin meet">'
        f"<title>{escape(title)}</title>{''.join(items)}{''.join(body)}</svg>"
    )


def histogram(
    series: dict[str, Sequence[float]], *, title: str, xlabel: str, share: bool = False, bins: int | None = None
) -> str:
    """Overlaid histograms on common bins (default: about 2·√n, 5 to 30); ``share``: bar height = share of
    the series (to compare sets of different sizes)."""
    values = [v for vs in series.values() for v in vs if not math.isnan(v)]
    if not values:
        return ""
    bins = bins or max(5, min(30, round(2 * math.sqrt(len(values)))))
    lo, hi = min(values), max(values)
    integral = all(float(v).is_integer() for v in values)
    if integral and hi - lo <= 40:  # one bin per integer value (lengths, ranks, tree heights)
        bins, lo, hi = int(hi - lo) + 1, lo - 0.5, hi + 0.5
    elif hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    heights = {}
    for name, vs in series.items():
        counts = [0] * bins
        for v in vs:
            if not math.isnan(v):
                counts[min(int((v - lo) / width), bins - 1)] += 1
        total = sum(counts) or 1
        heights[name] = [c / total if share else c for c in counts]
    top = max(max(h) for h in heights.values()) or 1
    f = _Frame(lo, hi, 0, top)
    body = f.axes(xlabel, "share of texts" if share else "records")
    for i, (name, hs) in enumerate(heights.items()):
        color = PALETTE[i % len(PALETTE)]
        for b, hgt in enumerate(hs):
            if hgt:
                x0, x1 = f.x(lo + b * width), f.x(lo + (b + 1) * width)
                y = f.y(hgt)
                body.append(
                    f'<rect x="{x0 + 0.5:.1f}" y="{y:.1f}" width="{max(x1 - x0 - 1, 1):.1f}" '
                    f'height="{f.y(0) - y:.1f}" fill="{color}" fill-opacity="{0.55 if len(heights) > 1 else 0.85}">'
                    f"<title>{escape(name)}: {escape(fmt(hgt) if not share else f'{hgt:.0%}')} in "
                    f"[{fmt(lo + b * width)}, {fmt(lo + (b + 1) * width)})</title></rect>"
                )
    return _svg(title, body, legend=list(series) if len(series) > 1 else ())


def lines(
    series: dict[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    points: dict[str, Sequence[tuple[float, float]]] | None = None,
) -> str:
    """Line chart with markers; ``points``: extra unconnected series (e.g. every single pull)."""
    points = points or {}
    allp = [p for s in (*series.values(), *points.values()) for p in s if not math.isnan(p[1])]
    if not allp:
        return ""
    xs, ys = [p[0] for p in allp], [p[1] for p in allp]
    f = _Frame(min(xs), max(xs), min(ys), max(ys), integer_x=all(float(x).is_integer() for x in xs))
    body = f.axes(xlabel, ylabel)
    names = list(series) + list(points)
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        pts = [p for p in (series.get(name) or points.get(name) or []) if not math.isnan(p[1])]
        if name in series and len(pts) > 1:
            path = " ".join(f"{f.x(x):.1f},{f.y(y):.1f}" for x, y in pts)
            body.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        r = 3.5 if name in series else 2.5
        for x, y in pts:
            body.append(
                f'<circle cx="{f.x(x):.1f}" cy="{f.y(y):.1f}" r="{r}" fill="{color}">'
                f"<title>{escape(name)}: {escape(fmt(x))}, {y:.2f}</title></circle>"
            )
    return _svg(title, body, legend=names)


def hbars(items: Sequence[tuple[str, float, bool]], *, title: str, xlabel: str) -> str:
    """Horizontal bars (label, value, highlighted), highlighted ones in the first colour, others grey."""
    if not items:
        return ""
    label_w = min(220, 16 + 7 * max(len(lbl) for lbl, _, _ in items))
    row, height = 22, TOP + 22 * len(items) + BOTTOM
    hi = max(v for _, v, _ in items)
    ticks = nice_ticks(min(0.0, min(v for _, v, _ in items)), hi if hi > 0 else 1.0)
    x0, x1 = label_w, W - RIGHT

    def x(v: float) -> float:
        return x0 + (v - ticks[0]) / ((ticks[-1] - ticks[0]) or 1) * (x1 - x0)

    body = []
    for t in ticks:
        body.append(
            f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{TOP - 4}" y2="{height - BOTTOM}" stroke="#e3e3e3"/>'
            f'<text x="{x(t):.1f}" y="{height - BOTTOM + 16}" text-anchor="middle">{escape(fmt(t))}</text>'
        )
    for i, (label, v, hl) in enumerate(items):
        y = TOP + i * row
        short = label if len(label) <= 30 else label[:29] + "…"
        body.append(
            f'<text x="{x0 - 6}" y="{y + 15}" text-anchor="end">{escape(short)}</text>'
            f'<rect x="{x(min(0.0, v)):.1f}" y="{y + 3}" width="{abs(x(v) - x(0.0)):.1f}" height="{row - 6}" '
            f'fill="{PALETTE[0] if hl else "#b9b9b9"}"><title>{escape(label)}: {v:.2f}</title></rect>'
            f'<text x="{x(max(0.0, v)) + 4:.1f}" y="{y + 15}">{escape(f"{v:.1f}")}</text>'
        )
    body.append(f'<text x="{(x0 + x1) / 2}" y="{height - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    return _svg(title, body, height=height)
