#!/usr/bin/env python3
"""scripts/pfs_report.py -- the tables of docs/pfs.md from scripts/pfs-results.

    scripts/pfs_report.py OUTDIR

For each vector-<fs>-<rate>.csv and mesh-<fs>-<rate>.csv in OUTDIR: the
median write time (total_s: the whole collio_write, max over ranks) per
case (bx, or load for the mesh) and strategy, the file system the file
lived on (fs_type), and the verification verdict. For the networked file
system at each rate, the link floor: the bytes the storage links must
carry -- the file, which the volume keeps whole on one storage host, so
all of it through that host's link -- over the link rate scripts/netrate
measured (netrate-<fs>-<rate>.txt), and each strategy's time over it;
auto (the default strategy, calibrated for that file system and rate by
scripts/pfs-results) is the one the 1.3x target is about. links-*.txt: what the storage links carried in
all (every write of the run, and the verification's reads). Only the
standard library.
"""
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def rate_mb_s(path):
    """MB/s from scripts/netrate's line, or None."""
    try:
        m = re.search(r"([0-9.]+) MB/s", open(path).read())
    except OSError:
        return None
    return float(m.group(1)) if m else None


def table(path):
    rows = [r for r in csv.DictReader(open(path, newline="")) if r["op"] == "write"]
    if not rows:
        return None
    workload = rows[0]["workload"]
    key = "load" if workload == "mesh" else "bx"
    times = defaultdict(list)
    verdict = defaultdict(set)
    strategies, cases = [], []
    for r in rows:
        s, c = r["variant"] or r["strategy"], r[key] or r["bx"]
        if s not in strategies:
            strategies.append(s)
        if c not in cases:
            cases.append(c)
        times[(c, s)].append(float(r["total_s"]))
        verdict[s].add(r["verified"])
    fs = sorted({(r.get("fs_type", ""), r.get("fs_mount", "")) for r in rows})
    nbytes = {c: int(r["nx"]) * int(r["esize"]) for r in rows for c in [r[key] or r["bx"]]}
    return workload, key, strategies, cases, times, verdict, fs, nbytes, rows[0]["ranks"]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/pfs_report.py OUTDIR")
    out = sys.argv[1]
    for path in sorted(glob.glob(os.path.join(out, "*-*-*.csv"))):
        name = os.path.basename(path)[:-4]
        t = table(path)
        if not t:
            continue
        workload, key, strategies, cases, times, verdict, fs, nbytes, ranks = t
        kind, rate = name.split("-")[1], name.split("-")[2]
        print(f"### {workload}, {ranks} ranks, {kind} at {rate} ({name}.csv)\n")
        print("file system: " + "; ".join(f"{a} on {b}" for a, b in fs) + "\n")
        print(f"| write {key} | " + " | ".join(strategies) + " |")
        print("|---" * (len(strategies) + 1) + "|")
        for c in cases:
            cells = []
            for s in strategies:
                v = median(times[(c, s)])
                cells.append("-" if v != v else f"{v:.3f}")
            print(f"| {c} | " + " | ".join(cells) + " |")
        bad = [s for s in strategies if "0" in verdict[s]]
        print("\nmedian total_s (s); verified: " +
              ("every canonical write" if not bad else "FAILED for " + ", ".join(bad)) + "\n")
        mb = rate_mb_s(os.path.join(out, f"netrate-{kind}-{rate}.txt"))
        if kind == "pfs" and mb:
            print(f"link floor ({kind}, {rate}): the file's bytes through one storage link "
                  f"at {mb:.2f} MB/s (scripts/netrate)\n")
            print(f"| {key} | file MB | floor s | " +
                  " | ".join(f"{s} / floor" for s in strategies) + " |")
            print("|---" * (len(strategies) + 3) + "|")
            for c in cases:
                floor = nbytes[c] / 1e6 / mb
                cells = []
                for s in strategies:
                    v = median(times[(c, s)])
                    cells.append("-" if v != v else f"{v / floor:.2f}")
                print(f"| {c} | {nbytes[c] / 1e6:.2f} | {floor:.3f} | " + " | ".join(cells) + " |")
            print()
        lk = os.path.join(out, f"links-{workload}-{kind}-{rate}.txt")
        if kind == "pfs" and os.path.exists(lk):
            print("storage links over the whole run (bytes): " +
                  " ".join(open(lk).read().split()) + "\n")


if __name__ == "__main__":
    main()
