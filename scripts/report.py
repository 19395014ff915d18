#!/usr/bin/env python3
"""scripts/report.py -- markdown tables from collio-bench CSVs, for docs/.

    scripts/report.py results/X.csv [--op write] [--detail]

Prints, per op, a table of median total_s per case (bx or shape) and
strategy with the ratio to `block`'s median in the same run; --detail adds,
per case, multiphase's per-phase medians, the file time, the inspector time
and the memory the call added (extra_rss_mb) next to the local data size.
Only the standard library is used.
"""
import argparse
import csv
import statistics
from collections import defaultdict


def med(xs):
    xs = [float(x) for x in xs if x not in ("", None)]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--op", action="append")
    ap.add_argument("--detail", action="store_true")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv, newline="")))
    if not rows:
        return
    def name(r):
        if r.get("variant"):  # the bench's label: "multiphase(k=2,r=3)"
            return r["variant"]
        n = r["strategy"]  # CSVs from before the variant column
        if n == "multiphase" and len({x["phases"] for x in rows if x["strategy"] == n}) > 1:
            n += "(k=%s)" % r["phases"]
        return n
    def case(r):
        return r["shape"] if r["workload"] == "array" else int(r["bx"])
    groups = defaultdict(list)
    for r in rows:
        groups[(r["op"], case(r), name(r))].append(r)
    ops = a.op or sorted({r["op"] for r in rows}, key=lambda o: o != "write")
    cases = sorted({case(r) for r in rows}, key=lambda c: (str(type(c)), c))
    strategies = []
    for r in rows:
        if name(r) not in strategies:
            strategies.append(name(r))
    r0 = rows[0]
    print("%s, %s ranks, nx = %s, esize %s; median total_s in s (x block)\n"
          % (r0["workload"], r0["ranks"], r0["nx"], r0["esize"]))
    for op in ops:
        head = "bx" if r0["workload"] == "vector" else "shape"
        print("| %s | %s |" % (op + " " + head, " | ".join(strategies)))
        print("|---|" + "---|" * len(strategies))
        for c in cases:
            blk = med(x["total_s"] for x in groups.get((op, c, "block"), []))
            cells = []
            for s in strategies:
                g = groups.get((op, c, s), [])
                if not g:
                    cells.append("")
                    continue
                m = med(x["total_s"] for x in g)
                bad = any(x["verified"] == "0" for x in g)
                cell = "%.4f" % m if m < 10 else "%.1f" % m
                if blk == blk and s != "block":
                    cell += " (%.1fx)" % (m / blk)
                if bad:
                    cell += " FAIL"
                cells.append(cell)
            print("| %s | %s |" % (c, " | ".join(cells)))
        print()
        if not a.detail:
            continue
        print("| %s %s: multiphase | phases (s, median) | exchange_s | of which copy_s | file_s | inspect_s | work_mb / extra_rss_mb / local_mb | reps |" % (op, head))
        print("|---|---|---|---|---|---|---|---|")
        for c in cases:
            for s in strategies:
                if not s.startswith("multiphase"):
                    continue
                g = groups.get((op, c, s), [])
                if not g:
                    continue
                k = int(g[0]["phases"] or 0)
                ph = " / ".join("%.4f" % med(x["phase%d_s" % i] for x in g) for i in range(min(k, 8)))
                copy = med(x.get("copy_s") or "nan" for x in g)
                work = med(x.get("work_mb") or "nan" for x in g)
                print("| %s %s | %s | %.4f | %.4f | %.4f | %.5f | %.1f / %.1f / %.1f | %d |" % (
                    c, s, ph, med(x["exchange_s"] for x in g), copy, med(x["file_s"] for x in g),
                    med(x["inspect_s"] for x in g), work, med(x["extra_rss_mb"] for x in g),
                    med(x["local_mb"] for x in g), len(g)))
        print()


if __name__ == "__main__":
    main()
