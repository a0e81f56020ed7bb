#!/usr/bin/env python3
"""Draws the reproduction of the paper's Figure 4 as an SVG from escrow-bench's JSON output.

    swift run -c release --package-path Benchmarks escrow-bench --only split --json split.json
    python3 Benchmarks/fig4-chart.py split.json docs/fig4.svg

One panel per picture count (its own scale): run() on the device split into the escrow's own
steps and compute; run() on the compute server split into the escrow's own steps, compute on
the server and transfer; and a raw TLS round trip of the same bytes on the same loopback.
Transfer is a direct call's round trip less the compute time its reply reports (run() does not
report the server's compute time); the server's compute segment is the rest of run()'s RPC
round trip. Medians; standard library only.
"""
import json
import math
import re
import sys
from xml.sax.saxutils import escape

COLORS = {"escrow": "#9e9e9e", "compute": "#4e79a7", "transfer": "#f28e2b", "raw": "#f9c48d"}


def figures(path):
    """{count: {figure suffix: median ms}} from the split figures."""
    by_count = {}
    for figure in json.load(open(path, encoding="utf-8")):
        match = re.match(r"split (\d+) pictures: (.*)", figure["name"])
        if match and figure["unit"] == "ms":
            suffix = re.sub(r" \(.*\)$", "", match.group(2))
            by_count.setdefault(int(match.group(1)), {})[suffix] = figure["median"]
    return dict(sorted(by_count.items()))


def nice_ceiling(value):
    """The smallest round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k) at or above value."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def label(value):
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def bars(values):
    """(bar label, [(segment kind, ms)]) for one picture count."""
    device_compute = values["device compute"]
    server_rpc = values["RPC round trip in run()"]
    transfer = min(values["transfer"], server_rpc)
    return [
        ("device", [("escrow", max(0.0, values["run() on device"] - device_compute)), ("compute", device_compute)]),
        ("server", [("escrow", max(0.0, values["run() on server"] - server_rpc)), ("compute", server_rpc - transfer),
                    ("transfer", transfer)]),
        ("raw TLS", [("raw", values["raw TLS round trip, same bytes"])]),
    ]


def svg(by_count):
    panel_width, panel_height, top, left_pad, bottom = 230, 260, 94, 52, 40
    width = 30 + panel_width * len(by_count)
    height = top + panel_height + bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           '<text x="15" y="20" font-size="14" font-weight="bold">run() on the device vs on a compute server (Fig. 4)</text>',
           '<text x="15" y="37" fill="#444">photos.labels over N pictures of 16 KB; compute server in process, mutual TLS 1.3 '
           'on 127.0.0.1; median ms</text>']
    legend = [("escrow", "escrow steps (identify, access, audit)"), ("compute", "compute"),
              ("transfer", "transfer (round trip − server compute)"), ("raw", "raw TLS round trip, same bytes")]
    for position, (kind, text) in enumerate(legend):
        x, y = 15 + (position % 2) * 300, 48 + (position // 2) * 16
        out.append(f'<rect x="{x}" y="{y}" width="11" height="11" fill="{COLORS[kind]}"/>')
        out.append(f'<text x="{x + 15}" y="{y + 10}">{escape(text)}</text>')
    for index, (count, values) in enumerate(by_count.items()):
        origin_x = 15 + index * panel_width
        plot_left, plot_width = origin_x + left_pad, panel_width - left_pad - 15
        plot_top, plot_bottom = top + 20, top + panel_height - 10
        groups = bars(values)
        scale_max = nice_ceiling(max(sum(ms for _, ms in segments) for _, segments in groups) * 1.08)
        def y_of(ms):
            return plot_bottom - (plot_bottom - plot_top) * ms / scale_max
        out.append(f'<text x="{plot_left + plot_width / 2}" y="{top + 6}" text-anchor="middle" font-size="12" '
                   f'font-weight="bold">{count} pictures</text>')
        for tick in range(6):
            ms = scale_max * tick / 5
            y = y_of(ms)
            out.append(f'<line x1="{plot_left}" y1="{y:.1f}" x2="{plot_left + plot_width}" y2="{y:.1f}" stroke="#e4e4e4"/>')
            out.append(f'<text x="{plot_left - 5}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{ms:g}</text>')
        out.append(f'<line x1="{plot_left}" y1="{plot_top}" x2="{plot_left}" y2="{plot_bottom}" stroke="#888"/>')
        out.append(f'<line x1="{plot_left}" y1="{plot_bottom}" x2="{plot_left + plot_width}" y2="{plot_bottom}" stroke="#888"/>')
        out.append(f'<text x="{origin_x + 12}" y="{(plot_top + plot_bottom) / 2}" text-anchor="middle" fill="#444" '
                   f'transform="rotate(-90 {origin_x + 12} {(plot_top + plot_bottom) / 2})">ms</text>')
        slot = plot_width / len(groups)
        for position, (name, segments) in enumerate(groups):
            bar_width = slot * (0.42 if name == "raw TLS" else 0.6)
            bar_x = plot_left + slot * position + (slot - bar_width) / 2
            base = 0.0
            for kind, ms in segments:
                y_top, y_bottom = y_of(base + ms), y_of(base)
                if y_bottom - y_top > 0.05:
                    out.append(f'<rect x="{bar_x:.1f}" y="{y_top:.1f}" width="{bar_width:.1f}" '
                               f'height="{y_bottom - y_top:.1f}" fill="{COLORS[kind]}"><title>{escape(name)}: {kind} '
                               f'{ms:.3f} ms</title></rect>')
                base += ms
            out.append(f'<text x="{bar_x + bar_width / 2:.1f}" y="{y_of(base) - 4:.1f}" text-anchor="middle">{label(base)}</text>')
            out.append(f'<text x="{bar_x + bar_width / 2:.1f}" y="{plot_bottom + 15}" text-anchor="middle">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fig4-chart.py RESULTS.json OUT.svg")
    by_count = figures(sys.argv[1])
    if not by_count:
        sys.exit(f"{sys.argv[1]} holds no split figures; run escrow-bench --only split --json FILE")
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(svg(by_count))


if __name__ == "__main__":
    main()
