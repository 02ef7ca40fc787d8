#!/usr/bin/env python3
"""Reported vs empirical base quality before and after recalibration, from two GATKReport
recalibration tables (the first pass, and a pass over the recalibrated BAM).

Prints RMSE (weighted by observations) of empirical minus reported quality by reported quality
and by cycle as a Markdown table, and draws both views into an SVG file.
    calibration_report.py BEFORE.table AFTER.table OUT.svg
"""
import math
import sys


def read_tables(path):
    """{table name: list of row dicts} for the tables of a GATKReport v1.1 file."""
    tables, name, columns = {}, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#:GATKTable:"):
                parts = line.split(":")
                if len(parts) >= 4 and not parts[2].isdigit():
                    name, columns = parts[2], None
                    tables[name] = []
                continue
            if not line.strip():
                name = None
                continue
            if name is None:
                continue
            fields = line.split()
            if columns is None:
                columns = fields
            else:
                tables[name].append(dict(zip(columns, fields)))
    return tables


def phred(error_rate):
    return -10.0 * math.log10(error_rate)


def empirical(errors, observations):
    return phred((errors + 1.0) / (observations + 2.0))


def by_quality(tables):
    """[(reported Q, empirical Q, observations)] from RecalTable1 (mismatches)."""
    rows = []
    for r in tables["RecalTable1"]:
        if r["EventType"] == "M":
            obs, err = int(r["Observations"]), float(r["Errors"])
            rows.append((int(r["QualityScore"]), empirical(err, obs), obs))
    return sorted(rows)


def by_cycle(tables):
    """[(cycle, reported Q, empirical Q, observations)]: per cycle, the reported quality is the
    Phred value of the expected error rate of its bases."""
    cycles = {}
    for r in tables["RecalTable2"]:
        if r["CovariateName"] != "Cycle" or r["EventType"] != "M":
            continue
        obs, err, q = int(r["Observations"]), float(r["Errors"]), int(r["QualityScore"])
        c = cycles.setdefault(int(r["CovariateValue"]), [0, 0.0, 0.0])
        c[0] += obs
        c[1] += err
        c[2] += obs * 10.0 ** (-q / 10.0)
    return [(cycle, phred(expected / obs), empirical(err, obs), obs)
            for cycle, (obs, err, expected) in sorted(cycles.items()) if obs > 0]


def rmse(pairs):
    """pairs: [(reported, empirical, weight)]"""
    total = sum(w for _, _, w in pairs)
    return math.sqrt(sum(w * (e - r) ** 2 for r, e, w in pairs) / total)


def svg_panel(x0, y0, width, height, title, xlabel, xrange_, series, diagonal=False):
    """One scatter/line panel: series = [(label, colour, [(x, y)], dashed)]."""
    (xmin, xmax), (ymin, ymax) = xrange_, (0.0, 45.0)
    sx = lambda x: x0 + 50 + (x - xmin) / (xmax - xmin) * (width - 70)
    sy = lambda y: y0 + height - 40 - (y - ymin) / (ymax - ymin) * (height - 70)
    out = [f'<text x="{x0 + width / 2}" y="{y0 + 18}" text-anchor="middle" font-size="14">{title}</text>',
           f'<rect x="{sx(xmin)}" y="{sy(ymax)}" width="{sx(xmax) - sx(xmin)}" height="{sy(ymin) - sy(ymax)}" '
           'fill="none" stroke="#444"/>']
    for q in range(0, 46, 10):
        out.append(f'<text x="{sx(xmin) - 6}" y="{sy(q) + 4}" text-anchor="end" font-size="10">{q}</text>')
    step = 50 if xmax - xmin > 100 else 10
    for x in range(int(math.ceil(xmin / step) * step), int(xmax) + 1, step):
        out.append(f'<text x="{sx(x)}" y="{sy(ymin) + 14}" text-anchor="middle" font-size="10">{x}</text>')
    out.append(f'<text x="{x0 + width / 2}" y="{y0 + height - 8}" text-anchor="middle" font-size="11">{xlabel}</text>')
    out.append(f'<text x="{x0 + 14}" y="{y0 + height / 2}" font-size="11" transform="rotate(-90 {x0 + 14} '
               f'{y0 + height / 2})" text-anchor="middle">quality</text>')
    if diagonal:
        out.append(f'<line x1="{sx(xmin)}" y1="{sy(xmin)}" x2="{sx(xmax)}" y2="{sy(min(xmax, ymax))}" '
                   'stroke="#999" stroke-dasharray="3,3"/>')
    for k, (label, colour, points, dashed) in enumerate(series):
        path = " ".join(f"{sx(x):.1f},{sy(max(ymin, min(ymax, y))):.1f}" for x, y in points)
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"{dash}/>')
        if len(points) <= 60:  # few points (a quality table): mark each
            out += [f'<circle cx="{sx(x):.1f}" cy="{sy(max(ymin, min(ymax, y))):.1f}" r="3" fill="{colour}"/>'
                    for x, y in points]
        ly = sy(12) + 14 * k  # legend in the empty band below the data
        out.append(f'<line x1="{x0 + width - 190}" y1="{ly}" x2="{x0 + width - 170}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="1.5"{dash}/>')
        out.append(f'<text x="{x0 + width - 165}" y="{ly + 4}" font-size="10">{label}</text>')
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: calibration_report.py BEFORE.table AFTER.table OUT.svg")
    before, after = read_tables(sys.argv[1]), read_tables(sys.argv[2])
    q_before, q_after = by_quality(before), by_quality(after)
    c_before, c_after = by_cycle(before), by_cycle(after)
    print("| recalibration | bases | RMSE by reported quality | RMSE by cycle |")
    print("|---|---|---|---|")
    for label, q, c in (("before", q_before, c_before), ("after", q_after, c_after)):
        bases = sum(w for _, _, w in q)
        print(f"| {label} | {bases:,} | {rmse(q):.2f} | {rmse([(r, e, w) for _, r, e, w in c]):.2f} |")
    cmin = min(x for x, *_ in c_before + c_after)
    cmax = max(x for x, *_ in c_before + c_after)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="960" height="360" font-family="sans-serif">',
             '<rect width="960" height="360" fill="white"/>']
    parts += svg_panel(0, 0, 560, 360, "Quality by cycle (read 2 negative)", "cycle", (cmin, cmax), [
        # The empirical qualities are those of the same bases in both passes: drawn once.
        ("empirical", "#222222", [(x, e) for x, _, e, _ in c_before], False),
        ("reported, before", "#d62728", [(x, r) for x, r, _, _ in c_before], True),
        ("reported, after", "#1f77b4", [(x, r) for x, r, _, _ in c_after], True)])
    qmax = max(q for q, *_ in q_before + q_after)
    parts += svg_panel(560, 0, 400, 360, "Empirical vs reported quality", "reported quality", (0, max(45, qmax)), [
        ("before", "#d62728", [(q, e) for q, e, _ in q_before], False),
        ("after", "#1f77b4", [(q, e) for q, e, _ in q_after], False)], diagonal=True)
    parts.append("</svg>")
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
