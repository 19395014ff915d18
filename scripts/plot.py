#!/usr/bin/env python3
"""scripts/plot.py -- summarise a collio-bench CSV: prints a table of median
times (strategies x bx, with the ratio to `block`) and draws median time vs
bx, log-log, one line per strategy (one panel per op), into a PNG.

    scripts/plot.py results/vector.csv [-o results/vector.png] [--op write]

Only the standard library is needed for the table; the plot needs
matplotlib (scripts/setup installs it) and is skipped with a note without.
Multiphase runs with different phase counts get one line each.
"""
import argparse
import csv
import statistics
import sys
from collections import defaultdict


def label(row, multi_phases):
    if row.get("variant"):  # the bench's label: "multiphase(k=2,r=3)"
        return row["variant"]
    s = row["strategy"]  # CSVs from before the variant column
    if s in multi_phases and len(multi_phases[s]) > 1:
        return "%s(p=%s)" % (s, row["phases"])
    return s


def load(path, workload):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["workload"] == workload]
    # strategies that ran with several phase counts get one line per count
    phases = defaultdict(set)
    for r in rows:
        phases[r["strategy"]].add(r["phases"])
    data = defaultdict(list)  # (op, label, case) -> [total_s]
    verified = defaultdict(set)
    for r in rows:
        case = r["shape"] if workload == "array" else int(r["bx"])
        key = (r["op"], label(r, phases), case)
        data[key].append(float(r["total_s"]))
        verified[key].add(r["verified"])
    meta = rows[0] if rows else {}
    return data, verified, meta


def labels_of(data, op):
    """Strategy labels of op in order of first appearance (the bench runs
    them in registry order), block last."""
    seen = []
    for k in data:
        if k[0] == op and k[1] not in seen:
            seen.append(k[1])
    return sorted(seen, key=lambda s: (s == "block", seen.index(s)))


def print_table(data, verified, op, out):
    labels = labels_of(data, op)
    cases = []
    for k in data:  # bx ascending; shapes in bench order
        if k[0] == op and k[2] not in cases:
            cases.append(k[2])
    if all(isinstance(c, int) for c in cases):
        cases.sort()
    if not labels:
        return
    med = {k: statistics.median(v) for k, v in data.items() if k[0] == op}
    w = max(len(s) for s in labels) + 2
    out.write("\nmedian %s seconds (ratio to block)\n" % op)
    out.write("%-*s" % (w, "strategy") + "".join("%18s" % (("bx=%s" if isinstance(c, int) else "%s") % c)
                                     for c in cases)
              + "  verified\n")
    for s in labels:
        cells = []
        for c in cases:
            m = med.get((op, s, c))
            b = med.get((op, "block", c))
            if m is None:
                cells.append("%18s" % "-")
            elif b:
                cells.append("%18s" % ("%.4f (%.1fx)" % (m, m / b)))
            else:
                cells.append("%18s" % ("%.4f" % m))
        v = set().union(*(verified.get((op, s, c), set()) for c in cases))
        verdict = "FAIL" if "0" in v else "ok" if v == {"1"} else "-"
        out.write("%-*s" % (w, s) + "".join(cells) + "  " + verdict + "\n")


def plot(data, meta, ops, workload, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: no matplotlib, %s not drawn (scripts/setup installs it)" % png,
              file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(ops), figsize=(6.5 * len(ops), 4.8), squeeze=False)
    for ax, op in zip(axes[0], ops):
        labels = labels_of(data, op)
        for s in labels:
            pts = sorted((c, statistics.median(v)) for (o, l, c), v in data.items()
                         if o == op and l == s)
            if workload == "array":
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=s)
            else:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts],
                          "k--" if s == "block" else "o-", label=s)
        ax.set_xlabel("shape" if workload == "array" else "block size bx (elements)")
        ax.set_ylabel("median %s time (s), max over ranks" % op)
        if workload == "array":
            ax.set_yscale("log")
        ax.set_title("%s %s, %s ranks%s" % (
            workload, op, meta.get("ranks", "?"),
            ", nx=%s" % meta["nx"] if workload == "vector" and meta else ""))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("plot.py: wrote %s" % png, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", help="PNG to write (default: CSV name .png)")
    ap.add_argument("--op", choices=["write", "read", "both"], default="both",
                    help="which operations to show (default: those present)")
    ap.add_argument("--workload", choices=["vector", "array"], default=None)
    a = ap.parse_args()
    workload = a.workload
    if workload is None:
        with open(a.csv, newline="") as f:
            first = next(csv.DictReader(f), None)
        if first is None:
            sys.exit("plot.py: %s has no rows" % a.csv)
        workload = first["workload"]
    data, verified, meta = load(a.csv, workload)
    present = [op for op in ("write", "read") if any(k[0] == op for k in data)]
    ops = present if a.op == "both" else [op for op in present if op == a.op]
    if not ops:
        sys.exit("plot.py: no %s rows in %s" % (a.op, a.csv))
    for op in ops:
        print_table(data, verified, op, sys.stdout)
    png = a.output or (a.csv[:-4] if a.csv.endswith(".csv") else a.csv) + ".png"
    plot(data, meta, ops, workload, png)


if __name__ == "__main__":
    main()
