#!/usr/bin/env python3
"""report.py DIR -- the tables of docs/mpiio.md's "Never slower than the MPI
library" from commands.sh's CSVs in DIR: per case the median over the
rounds and reps of plain and preloaded runs, and their ratio (collio /
plain: below 1 faster with the interposer for times, above 1 for
bandwidths). IOR: the median over every iteration of every round, the
bandwidth (IOR's: open, the calls and close), the calls' time alone
(collio / plain: below 1 faster), and the first iteration's bandwidth
(where the process pays for its plans and trials)."""
import csv
import statistics
import sys
from collections import defaultdict


def med(v):
    return statistics.median(v) if v else float("nan")


def main():
    d = sys.argv[1]
    peers = defaultdict(list)
    for r in csv.DictReader(open(f"{d}/peers.csv")):
        if r["bx"].isdigit():  # (each run's own header line is in it too)
            peers[(r["api"], int(r["bx"]), r["mode"])].append(float(r["seconds"]))
    print("| API | bx | plain (s) | with collio (s) | collio / plain | plain / collio |")
    print("|---|---|---|---|---|---|")
    for (api, bx) in sorted({(a, b) for a, b, _ in peers}, key=lambda k: (k[0], k[1])):
        p, c = med(peers[(api, bx, "plain")]), med(peers[(api, bx, "collio")])
        print(f"| {api} | {bx} | {p:.4g} | {c:.4g} | {c / p:.2f} | {p / c:.1f}x |")
    hist = defaultdict(list)
    for r in csv.DictReader(open(f"{d}/history.csv")):
        hist[r["mode"]].append((float(r["seconds"]), float(r["open_close_s"])))
    if hist:
        print()
        print("| history file | plain (s) | with collio (s) | collio / plain |")
        print("|---|---|---|---|")
        for i, what in enumerate(("the 20 write calls", "open .. close")):
            p = med([x[i] for x in hist["plain"]])
            c = med([x[i] for x in hist["collio"]])
            print(f"| {what} | {p:.4g} | {c:.4g} | {c / p:.2f} |")
    ior = defaultdict(list)
    for r in csv.DictReader(open(f"{d}/ior.csv")):
        key = (r["mpi"], int(r["np"]), r["layout"], r["op"], r["mode"])
        ior[key].append((float(r["bw_MiBs"]), float(r["wrrd_s"]), int(r["iter"])))
    if ior:
        print()
        print("| IOR 1 KiB | ranks | layout | op | plain MiB/s | with collio MiB/s "
              "| collio / plain | its calls: collio / plain | first iteration: collio / plain |")
        print("|---|---|---|---|---|---|---|---|---|")
        for key in sorted({k[:4] for k in ior}):
            p, c = ior[key + ("plain",)], ior[key + ("collio",)]
            pb, cb = med([x[0] for x in p]), med([x[0] for x in c])
            pt, ct = med([x[1] for x in p]), med([x[1] for x in c])
            p0 = med([x[0] for x in p if x[2] == 0])
            c0 = med([x[0] for x in c if x[2] == 0])
            print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {pb:.0f} | {cb:.0f} "
                  f"| {cb / pb:.3f} | {ct / pt:.3f} | {c0 / p0:.2f} |")


if __name__ == "__main__":
    main()
