#!/usr/bin/env python3
"""mesh_report.py -- markdown tables and plots of the mesh workload's runs
(scripts/mesh-report writes the CSVs): seed 003's Table 4 (intervals per
rank and their average length, owner vs IDG), Fig. 9 (replication), Fig. 10
(load balance), the inspector's cost, and the write / read times at 8 ranks.

usage: mesh_report.py DIR   (DIR holds stats-*.csv and time-*.csv)
Plots go to DIR/*.png when matplotlib is there; the tables to stdout.
"""
import csv
import glob
import os
import re
import statistics
import sys

SIZES = ["33k", "47k", "73k", "290k"]
POLICIES = ["owner", "idg", "random", "first", "domain"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def stats_table(d):
    """(mesh, order, parts, policy) -> the plan's figures."""
    out = {}
    for path in glob.glob(os.path.join(d, "stats-*.csv")):
        m = re.match(r"stats-(\w+)-(gmsh|rcm)-p(\d+)\.csv", os.path.basename(path))
        if not m:
            continue
        for r in read(path):
            if r["op"] != "write" or not r["replicas"]:
                continue
            key = (m.group(1), m.group(2), int(m.group(3)), r["replicas"])
            out.setdefault(key, r)
    return out


def fmt(v, nd=1):
    return f"{float(v):.{nd}f}"


def table4(st, order, parts):
    lines = [f"**{order} order** -- intervals per rank / average interval length (nodes)", ""]
    hdr = "| parts | figure | " + " | ".join(f"owner {s}" for s in SIZES) + " | " + \
        " | ".join(f"IDG {s}" for s in SIZES) + " | " + " | ".join(f"ratio {s}" for s in SIZES) + " |"
    lines += [hdr, "|" + "---|" * (2 + 3 * len(SIZES))]
    for p in parts:
        for fig, col in (("intervals", "intervals_per_rank"), ("avg length", "avg_interval")):
            cells = []
            for pol in ("owner", "idg"):
                for s in SIZES:
                    r = st.get((s, order, p, pol))
                    cells.append(fmt(r[col]) if r else "-")
            for s in SIZES:
                a, b = st.get((s, order, p, "owner")), st.get((s, order, p, "idg"))
                if fig == "intervals" and a and b and float(b[col]) > 0:
                    cells.append(fmt(float(a[col]) / float(b[col]), 2) + "x")
                else:
                    cells.append("")
            lines.append(f"| {p} | {fig} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_policy(st, order, parts, col, mesh):
    lines = [f"| parts | " + " | ".join(POLICIES) + " |", "|---|" + "---|" * len(POLICIES)]
    for p in parts:
        cells = []
        for pol in POLICIES:
            r = st.get((mesh, order, p, pol))
            cells.append(fmt(r[col]) if r else "-")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def replication(st, order, parts):
    lines = ["| parts | " + " | ".join(SIZES) + " |", "|---|" + "---|" * len(SIZES)]
    for p in parts:
        cells = []
        for s in SIZES:
            r = st.get((s, order, p, "owner"))
            cells.append(fmt(r["replicated_pct"]) if r else "-")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def time_rows(d):
    """(mesh, order) -> rows of its time CSVs (policy runs + references)."""
    out = {}
    for path in glob.glob(os.path.join(d, "time-*.csv")):
        m = re.match(r"time-(\w+)-(gmsh|rcm)(-ref)?\.csv", os.path.basename(path))
        if m:
            out.setdefault((m.group(1), m.group(2)), []).extend(read(path))
    return out


def label(r):
    if r["strategy"] == "block":
        return "block"
    if r["strategy"] == "two_phase":
        return "two_phase/" + r["replicas"]
    return f"{r['strategy']}/{r['replicas']}"


def medians(rows):
    """(variant, load, op) -> median total_s; also inspector times."""
    acc, insp = {}, {}
    for r in rows:
        key = (label(r), int(r["load"] or 0), r["op"])
        acc.setdefault(key, []).append(float(r["total_s"]))
        if r["classify_s"]:
            insp.setdefault(label(r), (float(r["classify_s"]), float(r["schedule_s"]),
                                       float(r["inspect_s"])))
    return {k: statistics.median(v) for k, v in acc.items()}, insp


def time_table(rows, op):
    med, _ = medians(rows)
    variants = sorted({k[0] for k in med}, key=lambda v: (v.split("/")[0] == "block",
                                                          v.split("/")[0] == "two_phase", v))
    loads = sorted({k[1] for k in med})
    lines = ["| variant | " + " | ".join(f"load {l}" for l in loads) + " |",
             "|---|" + "---|" * len(loads)]
    for v in variants:
        cells = []
        for l in loads:
            t = med.get((v, l, op))
            b = med.get(("block", l, op))
            cells.append("-" if t is None else
                         f"{t * 1e3:.1f} ms" + (f" ({t / b:.2f}x)" if b and v != "block" else ""))
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bytes_moved(rows):
    """Bytes sent between ranks per write, multiphase, by policy and load."""
    acc = {}
    for r in rows:
        if r["op"] == "write" and r["strategy"] == "multiphase" and r["replicas"]:
            acc[(r["replicas"], int(r["load"]))] = (int(r["bytes_sent"]),
                                                    int(r["file_bytes"]))
    loads = sorted({k[1] for k in acc})
    if not loads:
        return ""
    lines = ["| multiphase policy | " + " | ".join(f"load {l}" for l in loads) + " |",
             "|---|" + "---|" * len(loads)]
    for pol in POLICIES:
        cells = []
        for l in loads:
            v = acc.get((pol, l))
            cells.append("-" if v is None else f"{v[0] / 2**20:.2f} MiB ({100.0 * v[0] / v[1]:.0f}%)")
        lines.append(f"| {pol} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plots(d, st, parts):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plots)", file=sys.stderr)
        return
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    for s in SIZES:
        for pol, ls in (("owner", "--"), ("idg", "-")):
            ys = [st.get((s, "rcm", p, pol)) for p in parts]
            if all(ys):
                ax[0].plot(parts, [float(y["intervals_per_rank"]) for y in ys], ls,
                           marker="o", label=f"{s} {pol}")
        ys = [st.get((s, "rcm", p, "owner")) for p in parts]
        if all(ys):
            ax[1].plot(parts, [float(y["replicated_pct"]) for y in ys], marker="o", label=s)
    for pol in POLICIES:
        ys = [st.get(("73k", "rcm", p, pol)) for p in parts]
        if all(ys):
            ax[2].plot(parts, [float(y["lb_pct"]) for y in ys], marker="o", label=pol)
    ax[0].set(title="intervals per rank (RCM order)", xlabel="parts", xscale="log")
    ax[1].set(title="replicated nodes % (Fig. 9)", xlabel="parts", xscale="log")
    ax[2].set(title="load balance % of mesh 73k (Fig. 10)", xlabel="parts", xscale="log")
    for a in ax:
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "mesh-stats.png"), dpi=90)
    print(f"(plot: {os.path.join(d, 'mesh-stats.png')})", file=sys.stderr)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    st = stats_table(d)
    parts = sorted({k[2] for k in st})
    for order in ("rcm", "gmsh"):
        if any(k[1] == order for k in st):
            print(f"\n### Intervals, {order} order (seed 003 Table 4)\n")
            print(table4(st, order, parts))
            print(f"\n### Replicated nodes %, {order} order (Fig. 9)\n")
            print(replication(st, order, parts))
            print(f"\n### Load balance LB %, mesh 73k, {order} order (Fig. 10)\n")
            print(per_policy(st, order, parts, "lb_pct", "73k"))
    tr = time_rows(d)
    for (mesh, order), rows in sorted(tr.items(), key=lambda kv: (SIZES.index(kv[0][0])
                                                                   if kv[0][0] in SIZES else 9,
                                                                   kv[0][1])):
        _, insp = medians(rows)
        print(f"\n### Mesh {mesh}, {order} order, 8 ranks\n")
        for op in ("write", "read"):
            print(f"\n{op} (median, in parentheses x block):\n")
            print(time_table(rows, op))
        bm = bytes_moved(rows)
        if bm:
            print("\nbytes sent between ranks per write (% of the file):\n")
            print(bm)
        if insp:
            print("\ninspector (max over ranks): " + "; ".join(
                f"{v}: classify {c * 1e3:.1f} + schedule {s * 1e3:.1f} ms "
                f"(plan {i * 1e3:.1f} ms)" for v, (c, s, i) in sorted(insp.items())
                if v.startswith("independent/")))
    plots(d, st, parts)


if __name__ == "__main__":
    main()
