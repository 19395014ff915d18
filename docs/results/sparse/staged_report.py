#!/usr/bin/env python3
"""Medians of staged.sh's CSVs: seconds per (where, op, bx, strategy),
before -> after the staging of short runs, every round of a side pooled."""
import csv
import glob
import os
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
t = {}
for path in glob.glob(os.path.join(here, "staged-*-*-*.csv")):
    where, side = os.path.basename(path).split("-")[1:3]
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["workload"] != "sparse":
                continue
            key = (where, row["op"], int(row["bx"]), row["strategy"])
            t.setdefault(key, {}).setdefault(side, []).append(float(row["total_s"]))
for where in ("node", "pfs"):
    for op in ("write", "read"):
        keys = sorted(k for k in t if k[0] == where and k[1] == op)
        strategies = sorted({k[3] for k in keys})
        if not keys:
            continue
        print(f"\n{where}, {op}: seconds, before -> after (medians)\n")
        print("| bx | " + " | ".join(strategies) + " |")
        print("|---|" + "---|" * len(strategies))
        for bx in sorted({k[2] for k in keys}):
            cells = []
            for s in strategies:
                d = t.get((where, op, bx, s), {})
                if "before" in d and "after" in d:
                    cells.append(f"{statistics.median(d['before']):.4g} -> "
                                 f"{statistics.median(d['after']):.4g}")
                else:
                    cells.append("")
            print(f"| {bx} | " + " | ".join(cells) + " |")
