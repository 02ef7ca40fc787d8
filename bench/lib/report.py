#!/usr/bin/env python3
"""The benchmark report: the rows recorded by bench/lib/measure.sh as a Markdown table and JSON.

Each stage's ratio is this row's throughput over the best peer's throughput on the same stage (for
the same work that is the best peer's seconds over this row's seconds; above 1: faster than every
peer). Stages without a peer on the machine get no ratio.

    report.py --rows rows.tsv [--facts facts.tsv] [--stage STAGE] [--title T]
              [--markdown report.md|-] [--json report.json]
"""
import argparse
import json
import sys

COLUMNS = ["stage", "tool", "role", "seconds", "throughput", "unit", "rss_mb", "gpu_mib", "note"]


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def read_rows(path, stage):
    rows = []
    try:
        with open(path) as lines:
            for line in lines:
                fields = line.rstrip("\n").split("\t")
                if len(fields) != len(COLUMNS):
                    sys.exit(f"report.py: error: {path}: expected {len(COLUMNS)} columns, got: {line.strip()}")
                row = dict(zip(COLUMNS, fields))
                if stage is None or row["stage"] == stage:
                    rows.append(row)
    except FileNotFoundError:
        pass
    best = {}
    for row in rows:
        value = number(row["throughput"])
        if row["role"] == "peer" and value is not None:
            best[row["stage"]] = max(best.get(row["stage"], 0.0), value)
    for row in rows:
        value = number(row["throughput"])
        peer = best.get(row["stage"])
        row["ratio_to_best_peer"] = round(value / peer, 3) if value is not None and peer else None
    return rows


def read_facts(path):
    facts = []
    if path:
        try:
            with open(path) as lines:
                for line in lines:
                    key, _, value = line.rstrip("\n").partition("\t")
                    facts.append({"what": key, "value": value})
        except FileNotFoundError:
            pass
    return facts


def throughput_text(row):
    value = number(row["throughput"])
    if value is None:
        return "-"
    return f"{value:,.0f} {row['unit']}" if value >= 100 else f"{value:.3g} {row['unit']}"


def markdown(rows, facts, title):
    with_gpu = any(row["gpu_mib"] != "-" for row in rows)
    head = ["stage", "tool", "wall s", "throughput", "peak RSS MB"] + (["peak GPU MiB"] if with_gpu else [])
    head += ["ratio to best peer", "note"]
    out = [f"## {title}", ""] if title else []
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        tool = row["tool"].replace("|", "\\|")
        ratio = row["ratio_to_best_peer"]
        cells = [row["stage"], tool if row["role"] == "ours" else tool + " (peer)", row["seconds"],
                 throughput_text(row), row["rss_mb"]] + ([row["gpu_mib"]] if with_gpu else [])
        cells += [f"{ratio:.2f}" if ratio is not None else "-", row["note"].replace("|", "\\|")]
        out.append("| " + " | ".join(cells) + " |")
    if facts:
        out += ["", "| check | result |", "|---|---|"]
        out += [f"| {f['what']} | {f['value']} |".replace("\n", " ") for f in facts]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description="benchmark report from measure.sh rows")
    parser.add_argument("--rows", required=True)
    parser.add_argument("--facts")
    parser.add_argument("--stage")
    parser.add_argument("--title", default="")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--meta", action="append", default=[], help="KEY=VALUE for the JSON's meta object")
    args = parser.parse_args()
    rows = read_rows(args.rows, args.stage)
    facts = read_facts(args.facts)
    if args.markdown:
        text = markdown(rows, facts, args.title)
        if args.markdown == "-":
            sys.stdout.write(text)
        else:
            with open(args.markdown, "w") as out:
                out.write(text)
    if args.json:
        meta = dict(item.partition("=")[::2] for item in args.meta)
        for row in rows:
            for key in ("seconds", "throughput", "rss_mb", "gpu_mib"):
                row[key] = number(row[key])
        with open(args.json, "w") as out:
            json.dump({"meta": meta, "rows": rows, "checks": facts}, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
