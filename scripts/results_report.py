#!/usr/bin/env python3
"""scripts/results_report.py -- docs/RESULTS.md, the seeds' experiments
reproduced, from collio-bench CSVs.

    python3 scripts/results_report.py              # docs/RESULTS.md + docs/results/figures/*.png
    python3 scripts/results_report.py --estimate   # run-time estimates of scripts/results-run --plan lines

Reads the bench CSVs of docs/results/ (columns: docs/benchmarks.md),
preferring docs/results/seeds/, which scripts/results-run writes, over the
older runs of the other folders. One section per seed experiment: the
seed's claim, our measurement (tables, and PNG plots drawn by matplotlib with
the Agg backend, each naming its CSV and the command that made it), same or
different, and why (citing docs/*.md). A measurement without data says
"not measured yet" with the scripts/results-run command that measures it.
Then "Predicted against measured": strategy auto's predictions against the
measured medians (scripts/auto_report.py's loader).

The sections are the table SECTIONS below (title, claim, parts; a part:
CSV globs in order of preference, a render function, the experiment that
measures it). The output depends only on the CSVs: rerunning it gives the
same files.
"""
import csv
import glob
import math
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RES = os.path.join(ROOT, "docs", "results")
SEEDS = os.path.join(RES, "seeds")
FIGS = os.path.join(RES, "figures")
OUT = os.path.join(ROOT, "docs", "RESULTS.md")
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import auto_report  # noqa: E402  (the model's error: its loader)
import mesh_report  # noqa: E402  (seed 003's tables)
import pfs_report  # noqa: E402  (the link floor)

plt = None  # matplotlib.pyplot, once main() has loaded it


# ---------------------------------------------------------------- data

_rows = {}


def rows(path):
    """A CSV's runs (rows with a numeric rep), cached."""
    if path not in _rows:
        with open(path, newline="") as f:
            out = []
            for r in csv.DictReader(f):
                try:
                    int(r.get("rep", ""))
                except ValueError:
                    continue
                if "strategy" in r:
                    out.append(r)
            _rows[path] = out
    return _rows[path]


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def find(patterns):
    """CSV files under docs/results matching the globs, sorted; never the
    data of an unfinished run (NAME.partial/)."""
    out = set()
    for p in patterns:
        for f in glob.glob(os.path.join(RES, p), recursive=True):
            if ".partial" + os.sep not in f and os.path.isfile(f):
                out.add(f)
    return sorted(out)


def fnum(x, default=float("nan")):
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def med(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def label(r):
    return r.get("variant") or r["strategy"]


def case_of(r):
    w = r["workload"]
    if w == "array":
        return r["shape"]
    if w == "small":
        return int(r["size"])
    if w == "mesh":
        return int(r["load"] or 0)
    return int(r["bx"])


def medians(rs, key, col="total_s"):
    """key(row) -> median of col over the rows (failed verifications left out)."""
    acc = defaultdict(list)
    for r in rs:
        if r.get("verified") == "0":
            continue
        acc[key(r)].append(fnum(r.get(col)))
    return {k: med(v) for k, v in acc.items()}


def once_per_plan(rs, col):
    """A plan's one-off figure (inspect_s, split_s, ...) is repeated in every
    row of that plan: one value per (case, variant, file)."""
    seen = {}
    for r in rs:
        seen.setdefault((r.get("_file", ""), case_of(r), label(r), r["ranks"], r["nx"]),
                        fnum(r.get(col)))
    return seen


def tagged(paths):
    out = []
    for p in paths:
        for r in rows(p):
            r["_file"] = p
            out.append(r)
    return out


def fmt_t(t):
    """seconds, 3 significant digits"""
    if t != t:
        return "-"
    if t >= 100:
        return "%.0f" % t
    if t >= 10:
        return "%.1f" % t
    return "%.3g" % t


def fmt_ms(t):
    if t != t:
        return "-"
    t *= 1e3
    return "%.0f" % t if t >= 100 else "%.3g" % t


def fmt_x(a, b):
    return "" if not (a == a and b == b and b > 0) else " (%.1fx)" % (a / b)


def rng(xs, f="%.1f"):
    xs = [x for x in xs if x == x]
    if not xs:
        return "-"
    lo, hi = min(xs), max(xs)
    return (f % lo) if f % lo == f % hi else (f % lo) + "-" + (f % hi)


def table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def bxs_of(rs):
    return sorted({case_of(r) for r in rs})


def meta(path):
    """docs/results/seeds/NAME/meta.txt of a seeds CSV, as a dict."""
    m = re.match(re.escape(SEEDS + os.sep) + r"([^/]+)/", path)
    if not m:
        return {}
    d = {}
    try:
        for line in open(os.path.join(SEEDS, m.group(1), "meta.txt")):
            k, _, v = line.partition(":")
            d[k.strip()] = v.strip()
    except OSError:
        pass
    return d


# ------------------------------------------- where each CSV's command is

AUTO_EVAL = ("COLLIO_CALIBRATION=results/auto/calibration.json scripts/mpirun {P} "
             "build/bench/collio-bench {args} --reps 15 --ops write,read --max-time 10 "
             "--dir results/auto/data --csv results/auto/{name}.csv --quiet")
PFS_INNER = ("COLLIO_CALIBRATION=results/{out}/calibration-{fs}-{rate}.json scripts/mpirun 8 "
             "build/bench/collio-bench {args} --reps 3 --ops write --max-time {maxt} "
             "--dir \"$COLLIO_PFS_DIR\" --csv results/{out}/{what}-{fs}-{rate}.csv --quiet")


def pfs_command(m, out, env, bx, maxt):
    """scripts/pfs-results into results/OUT and the bench run it makes for
    the CSV matched as m (what, fs, rate)."""
    return ("%s scripts/pfs-results results/%s, which runs (on 4 hosts x 2 ranks%s%s) " % (
        env, out, ", 2 GlusterFS storage hosts" if m[2] == "pfs" else ", the machine's ext4",
        ", links at 100 Mbit/s" if m[3] == "100mbit" else ", unshaped links")
        + PFS_INNER.format(out=out, fs=m[2], rate=m[3], what=m[1], maxt=maxt, args=(
            "vector --nx 4194304 --bx " + bx if m[1] == "vector" else
            "mesh --mesh results/%s/device-33k.msh --load 1,100" % out)))
MESH_STATS = ("scripts/mpirun {P} build/bench/collio-bench mesh --mesh results/meshes/device-{s}.msh "
              "--order {o} --load 1 --replicas owner,idg,random,first,domain --strategies "
              "independent --reps 1 --warmup 0 --ops write --dir results/mesh --quiet "
              "--csv results/mesh/stats-{s}-{o}-p{P}.csv")
MESH_TIME = ("scripts/mpirun 8 build/bench/collio-bench mesh --mesh results/meshes/device-{s}.msh "
             "--order {o} --load 1,10,100,500 {rest} --reps 3 --ops write,read --max-time 20 "
             "--dir results/mesh --quiet --csv results/mesh/time-{s}-{o}{ref}.csv")

# (regex on the path under docs/results/, command(s) from its groups, where
# the docs record it, the machine where it is not the report's usual one)
KNOWN = [
    (r"current/vector-16MB-p8\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench vector --nx 4194304 --bx 1,16,256,4096,65536 "
               "--reps 5 --ops write,read --max-time 15 --csv docs/results/current/vector-16MB-p8.csv",
     "docs/benchmarks.md, \"Current results: 16 MB, 8 ranks\"", ""),
    (r"current/vector-100MB-p(\d+)\.csv",
     lambda m: "scripts/mpirun %s build/bench/collio-bench vector --nx 26214400 --bx 1,16,256,4096,65536 "
               "--strategies serial,independent,multiphase,subgroup,block --reps 5 --ops write,read "
               "--max-time 20 --csv docs/results/current/vector-100MB-p%s.csv" % (m[1], m[1]),
     "docs/benchmarks.md, \"Current results: 100 MB at 8 and 16 ranks\"", ""),
    (r"current/vector-100MB-p8-multiphase\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench vector --nx 26214400 --bx 1,16,256,4096,65536 "
               "--strategies multiphase,block --reps 5 --csv docs/results/current/vector-100MB-p8-multiphase.csv",
     "docs/benchmarks.md, \"Across nodes (emulated hosts)\" (one node, as a check)", ""),
    (r"current/vector-16MB-p8-bx1\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench vector --nx 4194304 --bx 1 --strategies "
               "multiphase,two_phase,block --reps 3 --max-time 40 --csv docs/results/current/vector-16MB-p8-bx1.csv",
     "docs/benchmarks.md, \"Across nodes (emulated hosts)\" (one node, as a check)", ""),
    (r"current/array-p8\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench array --shape SL1,SL2,SL3 --reps 3 "
               "--ops write,read --max-time 20 --csv docs/results/current/array-p8.csv",
     "docs/benchmarks.md, \"Current results: 100 MB at 8 and 16 ranks, the array and small workloads\"",
     ""),
    (r"current/small-p8\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench small --strategies subgroup,two_phase,independent "
               "--group 2,4 --reps 5 --ops write,read --csv docs/results/current/small-p8.csv",
     "docs/benchmarks.md, \"Current results: 100 MB at 8 and 16 ranks, the array and small workloads\"",
     ""),
    (r"array-p8\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench array --shape SL1,SL2,SL3 "
               "--strategies independent,multiphase,two_phase,serial,block --phases 1,2,3 --reps 5 "
               "--ops write,read --csv docs/results/array-p8.csv",
     "docs/benchmarks.md, \"array, STEM-II SL1-SL3 (seed 001), 8 ranks\"", ""),
    (r"small-p(\d+)\.csv",
     lambda m: "scripts/mpirun %s build/bench/collio-bench small --sizes 1K,4K,16K,64K,256K,1M "
               "--strategies subgroup,two_phase,independent,block --group 2,4 --reps 11 "
               "--ops write,read --csv docs/results/small-p%s.csv" % (m[1], m[1]),
     "docs/subgroup.md, \"The gather goes through MPI messages\"", "measured on a 2-vCPU Intel Xeon VM"),
    (r"vector-100MB-p(\d+)\.csv",
     lambda m: "scripts/mpirun %s build/bench/collio-bench vector --nx 26214400 "
               "--bx 1,4,16,64,256,1024,4096,65536 --reps 7 --ops write,read "
               "--strategies serial,multiphase,block --write-rounds 0,-1 "
               "--csv docs/results/vector-100MB-p%s.csv" % (m[1], m[1]),
     "docs/multiphase.md, \"Memory\" (\"Speed\"); multiphase ran its hypercube transport in "
     "this run -- to repeat it add `--exchange hypercube`", ""),
    (r"vector-100MB-p(\d+)-exchange\.csv",
     lambda m: "scripts/mpirun %s build/bench/collio-bench vector --nx 26214400 "
               "--bx 1,4,16,64,256,1024,4096,65536 --strategies multiphase,block --exchange "
               "auto,hypercube --reps 5 --csv docs/results/vector-100MB-p%s-exchange.csv" % (m[1], m[1]),
     "docs/multiphase.md, \"Direct exchange: all phases merged into one\" (messages only)", ""),
    (r"anchor-fcoll-two_phase-16MB-p8\.csv",
     lambda m: "env OMPI_MCA_fcoll=two_phase scripts/mpirun 8 build/bench/collio-bench vector "
               "--nx 4194304 --bx 1,16,4096,65536 --strategies two_phase,multiphase,block --reps 5 "
               "--max-time 30 --csv docs/results/anchor-fcoll-two_phase-16MB-p8.csv",
     "docs/benchmarks.md, \"Anchors with other MPI-IO settings\"", ""),
    (r"anchor-romio321-16MB-p8\.csv",
     lambda m: "env OMPI_MCA_io=romio321 scripts/mpirun 8 build/bench/collio-bench vector "
               "--nx 4194304 --bx 1,16,4096,65536 --strategies two_phase,multiphase,block --reps 5 "
               "--max-time 30 --csv docs/results/anchor-romio321-16MB-p8.csv",
     "docs/benchmarks.md, \"Anchors with other MPI-IO settings\"", ""),
    (r"auto/vector-100MB-p16\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=16, args="vector --nx 26214400 --bx 1,16,256,4096,65536", name="vector-100MB-p16"),
     "docs/auto.md, \"Measured\" and \"100 MB at 16 ranks\"", ""),
    (r"auto/vector-p(\d+)\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=m[1], args="vector --nx 4194304 --bx 1,16,256,4096,65536", name="vector-p" + m[1]),
     "docs/auto.md, \"Measured\"", ""),
    (r"auto/array-p8\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=8, args="array --shape SL1,SL2,SL3", name="array-p8"),
     "docs/auto.md, \"Measured\"", ""),
    (r"auto/small-p8\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=8, args="small --sizes 1K,64K,1M", name="small-p8"),
     "docs/auto.md, \"Measured\"", ""),
    (r"auto/mesh-p8\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=8, args="mesh --mesh results/auto/device-33k.msh --load 1,10,100,500", name="mesh-p8"),
     "docs/auto.md, \"Measured\"", ""),
    (r"auto/mesh-rcm-p8\.csv",
     lambda m: "scripts/auto-eval results/auto, which runs " + AUTO_EVAL.format(
         P=8, args="mesh --mesh results/auto/device-33k.msh --load 1,10,100,500 --order rcm",
         name="mesh-rcm-p8"),
     "docs/auto.md, \"Measured\"", ""),
    (r"auto/pfs-bytes/(vector|mesh)-(pfs|ext4)-(100mbit|unshaped)\.csv",
     lambda m: pfs_command(m, "pfs-bytes", "COLLIO_PFS_BX=16,256,4096,65536 COLLIO_PFS_REPS=3 "
                           "COLLIO_PFS_MAX_TIME=10", "16,256,4096,65536", 10),
     "docs/auto.md, \"Measured\" (the cluster grid)", ""),
    (r"pfs/(vector|mesh)-(pfs|ext4)-(100mbit|unshaped)\.csv",
     lambda m: pfs_command(m, "pfs", "COLLIO_PFS_REPS=3 COLLIO_PFS_MAX_TIME=20",
                           "1,16,256,4096,65536", 20),
     "docs/pfs.md, \"Results\"", ""),
    (r"hosts/vector-16MB-(4x2-100mbit|2x4)\.csv",
     lambda m: ("COLLIO_HOSTS_RATE=100mbit scripts/hosts 4x2" if m[1].startswith("4x2") else
                "scripts/hosts 2x4")
     + " scripts/mpirun 8 build/bench/collio-bench vector --nx 4194304 --bx 1,16,256,4096,65536 "
       "--strategies multiphase,serial,two_phase,block --exchange auto,node-direct,node-hypercube,"
       "direct,hypercube " + ("--reps 11 --max-time 12" if m[1].startswith("4x2") else
                             "--reps 21 --max-time 8")
     + " --csv docs/results/hosts/vector-16MB-%s.csv" % m[1],
     "docs/multiphase.md, \"Measured on emulated hosts\"", ""),
    (r"mesh/stats-(\w+)-(gmsh|rcm)-p(\d+)\.csv",
     lambda m: "scripts/mesh-report, which runs " + MESH_STATS.format(s=m[1], o=m[2], P=m[3]),
     "docs/replicas.md, \"Results\"", ""),
    (r"mesh/time-(\w+)-(gmsh|rcm)(-ref)?\.csv",
     lambda m: "scripts/mesh-report, which runs " + MESH_TIME.format(
         s=m[1], o=m[2], ref=m[3] or "",
         rest=("--replicas idg --strategies two_phase,block" if m[3] else
               "--replicas owner,idg,random,first,domain --strategies independent,multiphase")),
     "docs/replicas.md, \"Results\"", ""),
    (r"mesh/idg-vs-owner-(\w+)-rcm\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench mesh --mesh device-%s.msh --order rcm "
               "--load 100,500 --replicas owner,idg --strategies independent --reps 7" % m[1],
     "docs/replicas.md, \"Write and read times at 8 ranks\" (load 500)", ""),
    (r"mesh/inspector-290k-rcm\.csv",
     lambda m: "scripts/mpirun 8 build/bench/collio-bench mesh --mesh device-290k.msh --order rcm "
               "--load 10 --replicas owner,idg,domain --strategies independent,multiphase,two_phase,block "
               "--reps 5 --ops write",
     "docs/replicas.md, \"Inspector\"", ""),
]


def provenance(path):
    """(commands, where the docs record them, machine) of a CSV."""
    r = rel(path)
    if path.startswith(SEEDS + os.sep):
        m = re.match(re.escape(SEEDS + os.sep) + r"([^/]+)/", path)
        cmds = []
        try:
            lines = [ln.rstrip("\n") for ln in open(os.path.join(SEEDS, m.group(1), "commands.sh"))]
        except OSError:
            lines = []
        hosts = [ln for ln in lines if "scripts/hosts" in ln]
        mine = [ln for ln in lines if r in ln or "scripts/pfs-results" in ln]
        calib = [ln for ln in lines if "calibrate" in ln and "COLLIO_CALIBRATION" in " ".join(mine)]
        cmds = hosts + (["# inside the emulated cluster:"] if hosts else []) + calib + mine
        md = meta(path)
        where = "%s/commands.sh (scripts/results-run %s)" % (rel(os.path.dirname(path)), m.group(1))
        mach = "measured %s (%s)" % (md.get("started", "?"), md.get("host", "?"))
        return cmds, where, mach
    sub = r[len("docs/results/"):]
    for rx, cmd, where, mach in KNOWN:
        m = re.fullmatch(rx, sub)
        if m:
            return [cmd(m)], where, mach
    return [], "not recorded in docs/", "?"


def _origin(where, mach):
    return "recorded in %s%s" % (where, "; %s" % mach if mach else "")


def data_block(paths, note=""):
    """The Data paragraph: each CSV, the command that made it, where the
    docs record it (and the machine, where it is not the usual one)."""
    out = []
    for p in paths:
        cmds, where, mach = provenance(p)
        out.append("Data: `%s`, %s%s" % (rel(p), _origin(where, mach), ":" if cmds else "."))
        if cmds:
            out.append("\n```sh\n" + "\n".join(cmds) + "\n```\n")
    if note:
        out.append(note)
    return "\n".join(out)


def compact_data_block(paths):
    """Many CSVs of one command family (or of one driver script): how many,
    and one command."""
    byfam = defaultdict(list)
    for p in paths:
        cmds, where, mach = provenance(p)
        driver = cmds[0].split(", which runs ")[0] if cmds and ", which runs " in cmds[0] else None
        fam = driver or re.sub(r"\d+", "N", os.path.basename(p))
        byfam[(os.path.dirname(p), fam, where, mach)].append((p, cmds, driver))
    out = []
    for (d, fam, where, mach), items in sorted(byfam.items()):
        if len(items) == 1 and not items[0][2]:
            out.append(data_block([items[0][0]]))
            continue
        names = [os.path.basename(p) for p, _, _ in items]
        listed = ", ".join(names) if len(names) <= 4 else "%s ... %s" % (names[0], names[-1])
        p0, cmds, driver = items[0]
        if driver:
            inner = cmds[0].split(", which runs ", 1)[1]
            out.append("Data: %d CSV%s in `%s/` (%s), made by `%s`, %s; for `%s` it runs:" % (
                len(items), "s" if len(items) > 1 else "", rel(d), listed, driver, _origin(where, mach),
                names[0]))
            out.append("\n```sh\n" + inner + "\n```\n")
        else:
            out.append("Data: %d CSVs in `%s/` (%s), %s; the command of `%s`%s" % (
                len(items), rel(d), listed, _origin(where, mach), names[0],
                ":" if cmds else ": not recorded."))
            if cmds:
                out.append("\n```sh\n" + "\n".join(cmds) + "\n```\n")
    return "\n".join(out)


# ----------------------------------------------------------- figures


def figure(name, draw, w=10, h=4):
    """Draw with draw(fig) into docs/results/figures/NAME.png; markdown link."""
    fig = plt.figure(figsize=(w, h))
    draw(fig)
    fig.tight_layout()
    os.makedirs(FIGS, exist_ok=True)
    fig.savefig(os.path.join(FIGS, name + ".png"), dpi=80, metadata={"Software": None})
    plt.close(fig)
    return "![%s](results/figures/%s.png)" % (name, name)


STYLE = {"block": ("k", ":"), "independent": ("tab:orange", "-"), "two_phase": ("tab:red", "-"),
         "serial": ("tab:gray", "-"), "subgroup": ("tab:purple", "-"), "auto": ("tab:green", "--")}


def style(lbl):
    if lbl.startswith("subgroup"):
        return ("tab:purple", "--" if "g=4" in lbl else "-")
    if lbl.startswith("multiphase"):
        return ("tab:blue", "--" if "hypercube" in lbl else "-")
    for k, v in STYLE.items():
        if lbl.startswith(k):
            return v
    return (None, "-")


def lines_panel(ax, series, title, xlabel="bx (elements)", ylabel="median time (s)", logx=True):
    for lbl, pts in series:
        pts = [(x, y) for x, y in pts if y == y]
        if not pts:
            continue
        c, ls = style(lbl)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, color=c, marker="o", ms=3, label=lbl)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)


def stacked_panel(ax, cats, parts, title, ylabel="median time (s)"):
    bottom = [0.0] * len(cats)
    xs = list(range(len(cats)))
    for name, vals in parts:
        vals = [v if v == v else 0.0 for v in vals]
        ax.bar(xs, vals, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(xs)
    ax.set_xticklabels([str(c) for c in cats], fontsize=7, rotation=30)
    ax.set(title=title, ylabel=ylabel)
    ax.legend(fontsize=7)


# ------------------------------------------------ shared analyses


def by_case(rs, op="write"):
    """(variant, case) -> median total_s of op."""
    return medians([r for r in rs if r["op"] == op], lambda r: (label(r), case_of(r)))


def variants_in(rs, op="write"):
    seen = []
    for r in rs:
        if r["op"] == op and label(r) not in seen:
            seen.append(label(r))
    return sorted(seen, key=lambda s: (s == "block", s.startswith("auto"), seen.index(s)))


def ratio_table(rs, op, head, cases=None, fmt=fmt_t):
    m = by_case(rs, op)
    vs = variants_in(rs, op)
    cases = cases or sorted({c for (_, c) in m}, key=lambda c: (str(type(c)), c))
    body = []
    for c in cases:
        b = m.get(("block", c), float("nan"))
        body.append([c] + [fmt(m.get((v, c), float("nan"))) +
                           (fmt_x(m.get((v, c), float("nan")), b) if v != "block" else "")
                           for v in vs])
    return table([op + " " + head] + vs, body), m, vs, cases


def crossover(m, a, b, cases, tol=1.10):
    """The smallest case from which a is within tol of b at every larger case."""
    ok = [c for c in cases if (a, c) in m and (b, c) in m]
    for i, c in enumerate(ok):
        if all(m[(a, d)] <= tol * m[(b, d)] for d in ok[i:]):
            return c
    return None


def default_mp(vs):
    for v in ("multiphase", "multiphase(x=auto)", "multiphase(r=-1,x=auto)"):
        if v in vs:
            return v
    return None


# ---------------------------------------------------- seed 004


def r_inspector_seeds(paths):
    rs = [r for r in tagged(paths) if r["strategy"] == "multiphase"]
    insp = defaultdict(list)
    for r in rs:
        kind = "hypercube" if "hypercube" in label(r) else "default"
        insp[(kind, int(r["ranks"]), int(r["nx"]))].append(fnum(r["inspect_s"]))
    kinds = sorted({k[0] for k in insp})
    fig13 = sorted({k[2] for k in insp if k[1] == 16})
    fig14 = sorted({k[1] for k in insp if k[2] == 524288})
    t13 = table(["Nx (P = 16, bx = Nx/128)"] + ["%s (ms)" % k for k in kinds],
                [[n] + [fmt_ms(med(insp.get((k, 16, n), []))) for k in kinds] for n in fig13])
    t14 = table(["P (Nx = 524288, bx = 65536/P)"] + ["%s (ms)" % k for k in kinds],
                [[p] + [fmt_ms(med(insp.get((k, p, 524288), []))) for k in kinds] for p in fig14])

    def slope(xs, key):
        pts = [(x, med(insp.get(key(x), []))) for x in xs]
        pts = [(x, y) for x, y in pts if y == y and y > 0]
        if len(pts) < 2:
            return float("nan")
        return math.log(pts[-1][1] / pts[0][1]) / math.log(pts[-1][0] / pts[0][0])

    verdicts = []
    for k in kinds:
        s13 = slope(fig13, lambda n: (k, 16, n))
        s14 = slope(fig14, lambda p: (k, p, 524288))
        verdicts.append(("same" if s13 < 0.9 else "different",
                         "%s transport: the inspector grows as Nx^%.2f from Nx = %d to %d (P = 16) "
                         "and as P^%.2f from P = %d to %d%s" % (
                             k, s13, fig13[0], fig13[-1], s14, fig14[0], fig14[-1],
                             " -- sublinear in Nx, as the seed finds" if s13 < 0.9 else
                             " -- not sublinear in Nx")))

    def draw(fig):
        a, b = fig.subplots(1, 2)
        lines_panel(a, [(k, [(n, med(insp.get((k, 16, n), []))) for n in fig13]) for k in kinds],
                    "Fig. 13: inspector vs Nx, P = 16", xlabel="Nx", ylabel="inspect_s (s)")
        lines_panel(b, [(k, [(p, med(insp.get((k, p, 524288), []))) for p in fig14]) for k in kinds],
                    "Fig. 14: inspector vs P, Nx = 524288", xlabel="P", ylabel="inspect_s (s)")
    md = "\n\n".join([t13, t14, figure("seed004-inspector", draw), compact_data_block(paths)])
    return md, verdicts


def r_inspector_existing(paths):
    def kind(r):
        x = r.get("exchange")
        if x is None:  # the older CSVs: multiphase had the hypercube only
            return "hypercube"
        return "direct, shared memory" if x == "direct" and r.get("shared_memory") == "1" else x
    rs = [r for r in tagged(paths) if r["strategy"] == "multiphase" and r["op"] == "write" and
          label(r) in ("multiphase", "multiphase(r=-1)") and (kind(r) != "hypercube" or
                                                               "r=-1" in label(r))]
    per, wr = defaultdict(list), defaultdict(list)
    seen = set()
    for r in rs:
        k = (kind(r), int(r["ranks"]), int(r["nx"]))
        plan_key = (r["_file"], case_of(r), label(r))
        if plan_key not in seen:
            seen.add(plan_key)
            per[k].append(fnum(r["inspect_s"]))
        wr[k].append(fnum(r["total_s"]))
    keys = sorted(per)
    body = [[k, P, "%.0f" % (nx * 4 / 2**20), len(per[(k, P, nx)]),
             rng([t * 1e3 for t in per[(k, P, nx)]], "%.2f"), fmt_ms(med(per[(k, P, nx)])),
             fmt_ms(med(wr[(k, P, nx)])), "%.2f" % (med(per[(k, P, nx)]) / med(wr[(k, P, nx)]))]
            for k, P, nx in keys]
    t = table(["transport", "P", "MiB", "plans (cases)", "inspect_s range (ms)", "median (ms)",
               "one write (ms, median)", "inspector / write"], body)
    verdicts = []
    for kd in sorted({k[0] for k in keys}):
        ks = [k for k in keys if k[0] == kd]
        verdicts.append(("partly", "%s: the inspector takes %s ms over P = %s and %s MiB, %s of one write" % (
            kd, rng([med(per[k]) * 1e3 for k in ks], "%.2f"), "/".join(sorted({str(k[1]) for k in ks},
                                                                             key=int)),
            "/".join(sorted({"%.0f" % (k[2] * 4 / 2**20) for k in ks}, key=float)),
            rng([med(per[k]) / med(wr[k]) for k in ks], "%.2f") + "x")))

    def draw(fig):
        ax = fig.subplots(1, 1)
        for kd, nx in sorted({(k[0], k[2]) for k in keys}):
            pts = [(P, med(per[(kd, P, n)])) for d, P, n in keys if d == kd and n == nx]
            ax.plot([p for p, _ in pts], [t for _, t in pts], marker="o",
                    label="%s, %d MiB" % (kd, nx * 4 / 2**20))
        ax.set(xscale="log", yscale="log", xlabel="P", ylabel="inspect_s (s)",
               title="multiphase's inspector, median over the bx of each run")
        ax.legend(fontsize=7)
    md = "\n\n".join([t, figure("seed004-inspector", draw, 6, 3.5), compact_data_block(paths)])
    return md, verdicts


def r_phases(kind, fig):
    """Executor time per exchange phase vs bx (the hypercube, one pass)."""
    def render(paths):
        rs = tagged(paths)
        pick = [r for r in rs if r["op"] == "write" and r["strategy"] == "multiphase" and (
            "hypercube" in label(r) or label(r) == "multiphase(r=-1)")]
        if not pick:
            return "No hypercube rows in these CSVs.", []
        lbl = sorted({label(r) for r in pick})[0]
        pick = [r for r in pick if label(r) == lbl]
        n = max(int(r["phases"] or 0) for r in pick)
        bxs = bxs_of(pick)
        cols = ["phase%d_s" % i for i in range(n)] + ["file_s", "total_s"]
        m = {c: medians(pick, lambda r: case_of(r), c) for c in cols}
        blk = medians([r for r in rs if r["op"] == "write" and r["strategy"] == "block"],
                      lambda r: case_of(r))
        body = [[b] + [fmt_ms(m[c].get(b, float("nan"))) for c in cols] +
                [fmt_ms(blk.get(b, float("nan")))] for b in bxs]
        r0 = pick[0]
        rounds = {b: sorted({r["rounds"] for r in pick if case_of(r) == b}) for b in bxs}
        head = "%s, P = %s, %.0f MiB, variant `%s`, write; rounds per bx: %s" % (
            r0["workload"], r0["ranks"], int(r0["nx"]) * int(r0["esize"]) / 2**20, lbl,
            ", ".join("%d: %s" % (b, "/".join(rounds[b])) for b in bxs))
        t = table(["bx"] + ["phase %d (ms)" % i for i in range(n)] + ["file (ms)", "total (ms)",
                                                                      "block (ms)"], body)
        ph = [[m["phase%d_s" % i].get(b, float("nan")) for b in bxs] for i in range(n)]
        flat = [max(p) / min(p) for p in ph if min(p) > 0]
        tot = [m["total_s"].get(b) for b in bxs]
        last_first = med([ph[-1][j] / ph[0][j] for j in range(len(bxs)) if ph[0][j] > 0])
        same_rounds = len({tuple(v) for v in rounds.values()}) == 1
        verdicts = [("same" if max(tot) / min(tot) < 1.5 else "different",
                     "%s: the whole executor varies %.2fx over bx = %d..%d%s: %s" % (
                         kind, max(tot) / min(tot), bxs[0], bxs[-1],
                         ", each phase %sx" % rng(flat, "%.2f") if same_rounds else
                         " (the phases ran in different numbers of rounds by bx, so they are "
                         "compared in the whole only)",
                         "flat in bx, as the seed's" if max(tot) / min(tot) < 1.5 else "not flat in bx")),
                    ("different" if last_first > 1.5 or last_first < 0.67 else "same",
                     "%s: the last phase takes %.1fx the first (median over bx); the seed's "
                     "stages cost about the same" % (kind, last_first))]

        def draw(fig):
            ax = fig.subplots(1, 1)
            stacked_panel(ax, bxs, [("phase %d" % i, ph[i]) for i in range(n)] +
                          [("file", [m["file_s"].get(b, float("nan")) for b in bxs])],
                          "%s: executor per phase vs bx" % kind)
            ax.set_xlabel("bx")
        md = "\n\n".join([head, t, figure(fig, draw, 7, 3.5), data_block(paths)])
        return md, verdicts
    return render


def r_compare(kind, fig, seed_two_phase=16, seed_list=512, slow=False):
    """Time vs bx of every strategy (seed 004 Figs. 17-20)."""
    def render(paths):
        rs = [r for r in tagged(paths) if r["workload"] == "vector"]
        t, m, vs, bxs = ratio_table(rs, "write", "bx")
        r0 = rs[0]
        head = "vector, P = %s, nx = %s (%.0f MiB), median write time in s (x block)" % (
            r0["ranks"], r0["nx"], int(r0["nx"]) * int(r0["esize"]) / 2**20)
        if slow:
            return slow_verdicts(kind, fig, head, t, m, vs, bxs, paths)
        verdicts = []
        mp = default_mp(vs)
        hc = next((v for v in vs if v.startswith("multiphase") and "hypercube" in v), None)
        for v, name in ((mp, "multiphase (default transport)"), (hc, "multiphase, the seeds' hypercube")):
            if v:
                xs = [m[(v, b)] / m[("block", b)] for b in bxs if (v, b) in m and ("block", b) in m]
                flat = max(m[(v, b)] for b in bxs if (v, b) in m) / min(m[(v, b)] for b in bxs if (v, b) in m)
                verdicts.append(("same" if xs and max(xs) <= 2.0 else "different",
                                 "%s: %sx block over bx = %d..%d (varies %.1fx with bx); the seed's IEC "
                                 "executor stays close to block at every bx" % (
                                     kind + ", " + name, rng(xs, "%.1f"), bxs[0], bxs[-1], flat)))
        ref = mp or hc
        for s, seed_c, nm in (("independent", seed_list, "list I/O"), ("two_phase", seed_two_phase,
                                                                      "two_phase")):
            if s in vs and ref:
                c = crossover(m, s, ref, bxs)
                cs = [b for b in bxs if (s, b) in m]
                verdicts.append(("same" if c is not None and cs and c != cs[0] and
                                 abs(math.log2(c / seed_c)) <= 2 else "different",
                                 "%s: %s is within 10 %% of multiphase %s; the seed: from bx = %d on" % (
                                     kind, nm, "from bx = %d on" % c if c is not None else
                                     "at no bx measured (%s)" % ", ".join(
                                         "%d: %.1fx" % (b, m[(s, b)] / m[(ref, b)]) for b in cs
                                         if (ref, b) in m), seed_c)))
        if "auto" in vs:
            canon = [v for v in vs if v not in ("block", "auto")]
            rat = [m[("auto", b)] / min(m[(v, b)] for v in canon if (v, b) in m) for b in bxs
                   if ("auto", b) in m]
            verdicts.append(("info", "%s: auto at %sx the best canonical variant of the same run" % (
                kind, rng(rat, "%.2f"))))

        def draw(fig):
            ax = fig.subplots(1, 1)
            lines_panel(ax, [(v, [(b, m.get((v, b), float("nan"))) for b in bxs]) for v in vs],
                        kind)
        md = "\n\n".join([head, t, figure(fig, draw, 7, 4), data_block(paths)])
        return md, verdicts
    return render


def slow_verdicts(kind, fig, head, t, m, vs, bxs, paths):
    """Seed 004 Figs. 19-20: on Fast Ethernet the communicating methods slow
    down, IEC stays flat in Bx, list I/O beats two-phase at larger Bx, and
    two-phase comes near IEC at larger Bx."""
    verdicts = []
    mp = default_mp(vs)
    hc = next((v for v in vs if v.startswith("multiphase") and "hypercube" in v), None)
    for v, name in ((mp, "multiphase (default transport)"), (hc, "the seeds' hypercube")):
        if not v:
            continue
        xs = [m[(v, b)] / m[("block", b)] for b in bxs if (v, b) in m and ("block", b) in m]
        ys = [m[(v, b)] for b in bxs if (v, b) in m]
        verdicts.append(("same" if xs and min(xs) > 2 and max(ys) / min(ys) < 1.5 else "different",
                         "%s, %s: %sx block (whose ranks do not communicate), varying %.2fx over bx: "
                         "the exchange pays for the slow links and stays flat in bx, as the seed's IEC "
                         "on Fast Ethernet" % (kind, name, rng(xs, "%.0f"), max(ys) / min(ys))))
    big = [b for b in bxs if b >= 256]
    if "two_phase" in vs and mp:
        xs = [m[("two_phase", b)] / m[(mp, b)] for b in big if ("two_phase", b) in m and (mp, b) in m]
        verdicts.append(("same" if xs and max(xs) <= 1.5 else "different",
                         "%s: at bx >= 256 two_phase takes %sx multiphase; the seed: no important "
                         "difference at larger Bx" % (kind, rng(xs, "%.1f"))))
    if "two_phase" in vs and "independent" in vs:
        xs = [b for b in big if m.get(("independent", b), 1e9) < m.get(("two_phase", b), 0)]
        verdicts.append(("same" if xs and len(xs) == len(big) else "different",
                         "%s: list I/O beats two_phase at bx = %s of %s; the seed: at larger Bx" % (
                             kind, ", ".join(str(b) for b in xs) or "none",
                             ", ".join(str(b) for b in big))))

    def draw(fig):
        ax = fig.subplots(1, 1)
        lines_panel(ax, [(v, [(b, m.get((v, b), float("nan"))) for b in bxs]) for v in vs], kind)
    md = "\n\n".join([head, t, figure(fig, draw, 7, 4), data_block(paths)])
    return md, verdicts


def r_anchors(paths):
    """two_phase under the MPI library's settings, 16 MB at P = 8."""
    out, verdicts, rows_ = [], [], []
    for p in paths:
        rs = [r for r in tagged([p]) if r["op"] == "write"]
        m = by_case(rs)
        name = {"anchor-fcoll-two_phase-16MB-p8.csv": "OMPIO, fcoll two_phase",
                "anchor-romio321-16MB-p8.csv": "ROMIO 3.2.1 in Open MPI"}.get(
                    os.path.basename(p), "OMPIO, fcoll vulcan (Open MPI's default)")
        for b in (1, 16, 4096, 65536):
            if ("two_phase", b) in m and ("multiphase", b) in m:
                rows_.append([name, b, fmt_t(m[("two_phase", b)]), fmt_t(m[("multiphase", b)]),
                              fmt_t(m.get(("block", b), float("nan"))),
                              "%.1f" % (m[("two_phase", b)] / m[("multiphase", b)])])
        xs = [m[("two_phase", b)] / m[("multiphase", b)] for b in (16, 4096, 65536)
              if ("two_phase", b) in m and ("multiphase", b) in m]
        if xs:
            verdicts.append(("different" if min(xs) > 1.2 else "same",
                             "%s: two_phase at bx >= 16 takes %sx multiphase; the seed's two-phase "
                             "reaches the multiple-phase time from bx = 16 on" % (name, rng(xs, "%.1f"))))
    out.append(table(["MPI-IO", "bx", "two_phase (s)", "multiphase (s)", "block (s)",
                      "two_phase / multiphase"], rows_))
    out.append(data_block(paths))
    return "\n\n".join(out), verdicts


# ---------------------------------------------------- seed 001


def r_array(kind, fig):
    def render(paths):
        rs = [r for r in tagged(paths) if r["workload"] == "array"]
        out, verdicts = [], []
        m_w = None
        for op in ("write", "read"):
            if not any(r["op"] == op for r in rs):
                continue
            t, m, vs, shapes = ratio_table(rs, op, "shape")
            out.append("%s, P = %s, median %s time in s (x block):\n\n%s" % (
                kind, rs[0]["ranks"], op, t))
            if op == "write":
                m_w, vs_w, shapes_w = m, vs, shapes
        m, vs, shapes = m_w, vs_w, shapes_w
        ks = sorted([v for v in vs if re.match(r"multiphase\(k=\d", v)],
                    key=lambda v: int(re.search(r"k=(\d+)", v).group(1)))
        if ks:
            mono = [s for s in shapes if all(m.get((ks[i], s), 0) > m.get((ks[i + 1], s), 1e9)
                                             for i in range(len(ks) - 1))]
            verdicts.append(("same" if len(mono) == len(shapes) else "different",
                             "%s: more phases write faster (k = %s) for %s of %s arrays (%s)" % (
                                 kind, ", ".join(re.search(r"k=(\d+)", k).group(1) for k in ks),
                                 len(mono), len(shapes), ", ".join(
                                     "%s %s s" % (s, " / ".join(fmt_t(m.get((k, s), float("nan")))
                                                              for k in ks)) for s in shapes))))
        canon = [v for v in vs if v != "block"]
        best = {s: min((m[(v, s)], v) for v in canon if (v, s) in m)[1] for s in shapes}
        verdicts.append(("same" if all(b.startswith("multiphase") for b in best.values()) else "different",
                         "%s: the fastest canonical writer is %s; the seed's is the multiple-phase "
                         "technique with all phases" % (kind, ", ".join("%s for %s" % (b, s) for s, b
                                                                        in best.items()))))
        if "SL1" in shapes and "SL2" in shapes:
            xs = [m[(v, "SL2")] / m[(v, "SL1")] for v in canon if (v, "SL1") in m and (v, "SL2") in m]
            verdicts.append(("same" if xs and 1.5 <= med(xs) <= 2.6 else "different",
                             "%s: SL2 (twice SL1's data) takes %sx SL1's time (median %.2f); the seed: "
                             "twice, for every technique" % (kind, rng(xs, "%.2f"), med(xs))))

        def draw(fig):
            ax = fig.subplots(1, 1)
            w = 0.8 / max(1, len(vs))
            for i, v in enumerate(vs):
                ax.bar([j + i * w for j in range(len(shapes))],
                       [m.get((v, s), 0) for s in shapes], w, label=v, color=style(v)[0])
            ax.set_xticks([j + 0.4 - w / 2 for j in range(len(shapes))])
            ax.set_xticklabels(shapes)
            ax.set(ylabel="median write time (s)", title=kind + ": write")
            ax.legend(fontsize=7)
        out.append(figure(fig, draw, 8, 3.5))
        out.append(data_block(paths))
        return "\n\n".join(out), verdicts
    return render


def r_stages(kind, fig, shape="SL1"):
    """Seed 001 Figs. 9-10: cost per stage of each SL1 write."""
    def render(paths):
        rs = [r for r in tagged(paths) if r["workload"] == "array" and r["op"] == "write"
              and r["shape"] == shape]
        vs = [v for v in variants_in(rs) if v != "block"]
        cols = {}
        for v in vs:
            g = [r for r in rs if label(r) == v]
            n = max(int(r["phases"] or 0) for r in g)
            cols[v] = {"phases": [med(fnum(r["phase%d_s" % i]) for r in g) for i in range(n)],
                       "exchange": med(fnum(r["exchange_s"]) for r in g),
                       "file": med(fnum(r["file_s"]) for r in g),
                       "total": med(fnum(r["total_s"]) for r in g),
                       "x": sorted({r.get("exchange", "") for r in g})}
        nmax = max([len(c["phases"]) for c in cols.values()] + [0])
        body = []
        for v in vs:
            c = cols[v]
            ph = c["phases"] + [float("nan")] * (nmax - len(c["phases"]))
            other = c["exchange"] - sum(p for p in c["phases"] if p == p) if c["phases"] else c["exchange"]
            body.append([v, ", ".join(x for x in c["x"] if x) or "-"] + [fmt_ms(p) for p in ph] +
                        [fmt_ms(max(other, 0.0)), fmt_ms(c["file"]), fmt_ms(c["total"])])
        t = table(["%s write" % shape, "transport"] + ["level %d (ms)" % (i + 1) for i in range(nmax)] +
                  ["other exchange (ms)", "I/O (ms)", "total (ms)"], body)
        verdicts = []
        mps = [v for v in vs if v.startswith("multiphase") and len(cols[v]["phases"]) > 1
               and "direct" not in cols[v]["x"]]
        for v in mps:
            ph = [p for p in cols[v]["phases"] if p == p and p > 0]
            if len(ph) > 1:
                verdicts.append(("same" if max(ph) / min(ph) < 2 else "different",
                                 "%s, %s: its %d stages cost %s ms (max / min %.1f); the seed's stages "
                                 "cost about the same on Myrinet" % (
                                     kind, v, len(ph), " / ".join(fmt_ms(p) for p in ph),
                                     max(ph) / min(ph))))
        io = [(int(re.search(r"k=(\d+)", v).group(1)) if re.search(r"k=(\d+)", v) else
               len(cols[v]["phases"]), cols[v]["file"]) for v in vs if v.startswith("multiphase")]
        io.sort()
        if len(io) > 1:
            verdicts.append(("same" if all(io[i][1] >= io[i + 1][1] for i in range(len(io) - 1))
                             else "different",
                             "%s: the I/O part with k = %s phases takes %s ms; the seed's I/O time falls "
                             "as the phases make the data contiguous" % (
                                 kind, ", ".join(str(k) for k, _ in io),
                                 " / ".join(fmt_ms(f) for _, f in io))))

        def draw(fig):
            ax = fig.subplots(1, 1)
            parts = [("level %d" % (i + 1), [cols[v]["phases"][i] if i < len(cols[v]["phases"]) else 0
                                             for v in vs]) for i in range(nmax)]
            parts.append(("I/O", [cols[v]["file"] for v in vs]))
            stacked_panel(ax, vs, parts, "%s: %s write, cost per stage" % (kind, shape))
        md = "\n\n".join([t, figure(fig, draw, 8, 3.5), data_block(paths)])
        return md, verdicts
    return render


# ---------------------------------------------------- seed 003

SEED003_T4 = {  # seed 003 Table 4, Metis / IDG intervals per partition, meshes 1-4 (its text)
    8: ([258.0, 203.8, 244.0, 965.5], [88.3, 67.1, 57.0, 126.0]),
    16: ([217.4, 171.3, 189.8, 642.4], [71.6, 58.3, 49.5, 99.8]),
    32: ([169.6, 136.7, 149.4, 511.7], [54.5, 44.9, 38.7, 75.2]),
    64: ([137.0, 99.1, 112.9, 344.4], [41.2, 31.7, 25.4, 51.7]),
}


def seed003_ratio_range():
    xs = [a / b for m, i in SEED003_T4.values() for a, b in zip(m, i)]
    return min(xs), max(xs)


def r_table4(paths):
    d = os.path.dirname(paths[0])
    st = mesh_report.stats_table(d)
    parts = sorted({k[2] for k in st})
    out, verdicts = [], []
    lo, hi = seed003_ratio_range()
    for order in ("rcm", "gmsh"):
        if not any(k[1] == order for k in st):
            continue
        out.append(mesh_report.table4(st, order, parts))
        xs = [float(st[(s, order, p, "owner")]["intervals_per_rank"]) /
              float(st[(s, order, p, "idg")]["intervals_per_rank"])
              for s in mesh_report.SIZES for p in parts
              if (s, order, p, "owner") in st and (s, order, p, "idg") in st]
        verdicts.append(("same" if xs and min(xs) >= lo * 0.9 else "different",
                         "%s order: IDG has %sx fewer intervals than owner (METIS) over 4 meshes x "
                         "%s parts; the seed's Table 4: %.1f-%.1fx" % (
                             order.upper() if order == "rcm" else order, rng(xs, "%.2f"),
                             "/".join(str(p) for p in parts), lo, hi)))
    out.append(compact_data_block(paths))
    return "\n\n".join(out), verdicts


def r_fig9(paths):
    st = mesh_report.stats_table(os.path.dirname(paths[0]))
    parts = sorted({k[2] for k in st})
    out, verdicts = [], []
    for order in ("rcm", "gmsh"):
        if not any(k[1] == order for k in st):
            continue
        out.append("%s order:\n\n%s" % (order, mesh_report.replication(st, order, parts)))
        grows = [s for s in mesh_report.SIZES
                 if all((s, order, p, "owner") in st for p in parts) and
                 all(float(st[(s, order, parts[i], "owner")]["replicated_pct"]) <
                     float(st[(s, order, parts[i + 1], "owner")]["replicated_pct"])
                     for i in range(len(parts) - 1))]
        verdicts.append(("same" if len(grows) == len(mesh_report.SIZES) else "different",
                         "%s order: replicated nodes grow with the parts on %d of %d meshes (%s %% at "
                         "%d parts, %s %% at %d)" % (
                             order, len(grows), len(mesh_report.SIZES),
                             rng([float(st[(s, order, parts[0], "owner")]["replicated_pct"])
                                  for s in mesh_report.SIZES if (s, order, parts[0], "owner") in st]),
                             parts[0],
                             rng([float(st[(s, order, parts[-1], "owner")]["replicated_pct"])
                                  for s in mesh_report.SIZES if (s, order, parts[-1], "owner") in st]),
                             parts[-1])))
    return "\n\n".join(out), verdicts


def r_fig10(paths):
    st = mesh_report.stats_table(os.path.dirname(paths[0]))
    parts = sorted({k[2] for k in st})
    out, verdicts = [], []
    for order in ("rcm", "gmsh"):
        if not any(k[1] == order and k[0] == "73k" for k in st):
            continue
        out.append("mesh 73k, %s order, LB %%:\n\n%s" % (
            order, mesh_report.per_policy(st, order, parts, "lb_pct", "73k")))
        lb = {(p, pol): float(st[("73k", order, p, pol)]["lb_pct"]) for p in parts
              for pol in mesh_report.POLICIES if ("73k", order, p, pol) in st}
        owner_best = [p for p in parts if all(lb[(p, "owner")] <= lb.get((p, q), 1e9) + 0.05
                                              for q in ("idg", "random", "first"))]
        first_worst = [p for p in parts if all(lb[(p, "first")] >= lb.get((p, q), -1)
                                               for q in ("owner", "idg", "random"))]
        verdicts.append(("same" if len(first_worst) == len(parts) and len(owner_best) >= len(parts) - 1
                         else "different",
                         "%s order: owner (METIS) balances best at %d of %d part counts, first "
                         "position worst at %d of %d; IDG %s %% against owner's %s %% at %d parts" % (
                             order, len(owner_best), len(parts), len(first_worst), len(parts),
                             "%.1f" % lb[(parts[0], "idg")], "%.1f" % lb[(parts[0], "owner")], parts[0])))
    return "\n\n".join(out), verdicts


def r_fig8(paths):
    """List I/O write time per replica policy vs load, 8 ranks."""
    tr = defaultdict(list)
    for p in paths:
        mm = re.match(r"time-(\w+)-(gmsh|rcm)(-ref)?\.csv", os.path.basename(p))
        if mm:
            tr[(mm.group(1), mm.group(2))].extend(rows(p))
    out, wins, cells, order_wins = [], 0, 0, defaultdict(lambda: [0, 0])
    keys = sorted(tr, key=lambda k: (mesh_report.SIZES.index(k[0]) if k[0] in mesh_report.SIZES else 9,
                                     k[1]))
    series = {}
    for key in keys:
        rs = [r for r in tr[key] if r["strategy"] == "independent" and r["op"] == "write"]
        if not rs:
            continue
        m = medians(rs, lambda r: (r["replicas"], int(r["load"])))
        loads = sorted({k[1] for k in m})
        pols = [p for p in mesh_report.POLICIES if any((p, l) in m for l in loads)]
        body = []
        for pol in pols:
            body.append([pol] + [fmt_ms(m.get((pol, l), float("nan"))) +
                                 fmt_x(m.get((pol, l), float("nan")), m.get(("owner", l), float("nan")))
                                 for l in loads])
        for l in loads:
            best = min(pols, key=lambda p: m.get((p, l), 1e9))
            cells += 1
            order_wins[key[1]][1] += 1
            if best == "idg":
                wins += 1
                order_wins[key[1]][0] += 1
        series[key] = (loads, m, pols)
        out.append("mesh %s, %s order, list I/O (independent), write, ms (x owner):\n\n%s" % (
            key[0], key[1], table(["policy"] + ["load %d" % l for l in loads], body)))
    verdicts = [("same" if wins > cells / 2 else "different",
                 "IDG is the fastest policy under list I/O in %d of %d (mesh, order, load) cases "
                 "(%s); the seed: IDG the most competitive in almost all cases" % (
                     wins, cells, ", ".join("%s %d/%d" % (o, w[0], w[1])
                                            for o, w in sorted(order_wins.items()))))]

    def draw(fig):
        axs = fig.subplots(1, 4, sharey=False)
        for ax, s in zip(axs, mesh_report.SIZES):
            if (s, "rcm") not in series:
                continue
            loads, m, pols = series[(s, "rcm")]
            for pol in pols:
                ax.plot(loads, [m.get((pol, l), float("nan")) for l in loads], marker="o", ms=3,
                        label=pol)
            ax.set(xscale="log", yscale="log", title="mesh %s, RCM order" % s, xlabel="load")
            ax.legend(fontsize=6)
        axs[0].set_ylabel("list I/O write (s)")
    out.append(figure("seed003-fig8", draw, 12, 3.2))
    out.append(compact_data_block(paths))
    return "\n\n".join(out), verdicts


def r_fig11(paths):
    """Inspector time (classification + scheduling) and plan memory vs parts, mesh 73k."""
    by = defaultdict(dict)
    for p in paths:
        mm = re.match(r"stats-73k-(gmsh|rcm)-p(\d+)\.csv", os.path.basename(p))
        if not mm:
            continue
        for r in rows(p):
            if r["replicas"] == "idg" and r["op"] == "write":
                by[mm.group(1)][int(mm.group(2))] = r
    out, verdicts = [], []
    for order in sorted(by):
        ps = sorted(by[order])
        body = [[p, fmt_ms(fnum(by[order][p]["classify_s"])), fmt_ms(fnum(by[order][p]["schedule_s"])),
                 fmt_ms(fnum(by[order][p]["inspect_s"])),
                 "%.1f" % (fnum(by[order][p]["plan_bytes_max"]) / 1024)] for p in ps]
        out.append("mesh 73k, %s order, replica policy idg (one plan each):\n\n%s" % (order, table(
            ["parts (ranks)", "classify (ms)", "schedule (ms)", "whole plan (ms)", "plan memory, max "
             "over ranks (KiB)"], body)))
        cl = [fnum(by[order][p]["classify_s"]) for p in ps]
        sc = [fnum(by[order][p]["schedule_s"]) for p in ps]
        verdicts.append(("different" if med([a / b for a, b in zip(cl, sc) if b > 0]) > 0.3 else "same",
                         "%s order: classification takes %s of the scheduling's time (the seed: "
                         "negligible beside it); classification + scheduling take %s ms at %d parts and "
                         "%s ms at %d, on 2 cores (the seed: growing linearly with the parts)" % (
                             order, rng([a / b for a, b in zip(cl, sc) if b > 0], "%.2f") + "x",
                             fmt_ms(cl[0] + sc[0]), ps[0], fmt_ms(cl[-1] + sc[-1]), ps[-1])))

    def draw(fig):
        ax = fig.subplots(1, 1)
        for order in sorted(by):
            ps = sorted(by[order])
            ax.plot(ps, [fnum(by[order][p]["classify_s"]) for p in ps], "--", marker="o",
                    label="classify, %s" % order)
            ax.plot(ps, [fnum(by[order][p]["schedule_s"]) for p in ps], "-", marker="o",
                    label="schedule, %s" % order)
        ax.set(xscale="log", yscale="log", xlabel="parts (ranks)", ylabel="s",
               title="Fig. 11: the replica inspector, mesh 73k")
        ax.legend(fontsize=7)
    out.append(figure("seed003-fig11", draw, 6, 3.5))
    out.append(compact_data_block(paths))
    return "\n\n".join(out), verdicts


def r_mesh_stats_fig(paths):
    st = mesh_report.stats_table(os.path.dirname(paths[0]))
    parts = sorted({k[2] for k in st})

    def draw(fig):
        axs = fig.subplots(1, 3)
        for s in mesh_report.SIZES:
            for pol, ls in (("owner", "--"), ("idg", "-")):
                ys = [st.get((s, "rcm", p, pol)) for p in parts]
                if all(ys):
                    axs[0].plot(parts, [float(y["intervals_per_rank"]) for y in ys], ls, marker="o",
                                ms=3, label="%s %s" % (s, pol))
            ys = [st.get((s, "rcm", p, "owner")) for p in parts]
            if all(ys):
                axs[1].plot(parts, [float(y["replicated_pct"]) for y in ys], marker="o", ms=3, label=s)
        for pol in mesh_report.POLICIES:
            ys = [st.get(("73k", "rcm", p, pol)) for p in parts]
            if all(ys):
                axs[2].plot(parts, [float(y["lb_pct"]) for y in ys], marker="o", ms=3, label=pol)
        axs[0].set(title="Table 4: intervals per rank (RCM)", xlabel="parts", xscale="log", yscale="log")
        axs[1].set(title="Fig. 9: replicated nodes % (RCM)", xlabel="parts", xscale="log")
        axs[2].set(title="Fig. 10: load balance % (73k, RCM)", xlabel="parts", xscale="log")
        for a in axs:
            a.legend(fontsize=6)
    return figure("seed003-stats", draw, 13, 3.6), []


# ---------------------------------------------------- seed 002


def small_sets(paths):
    """P -> rows of the small workload."""
    out = defaultdict(list)
    for r in tagged(paths):
        if r["workload"] == "small":
            out[int(r["ranks"])].append(r)
    return out


def sg(r):
    m = re.match(r"subgroup\(g=(\d+)", label(r))
    return int(m.group(1)) if m else None


def r_split(paths):
    sets = small_sets(paths)
    body, vals = [], []
    for P in sorted(sets):
        per = defaultdict(list)
        for (f, c, v, _, _), t in once_per_plan([r for r in sets[P] if sg(r)], "split_s").items():
            per[v].append(t)
        for v in sorted(per):
            body.append([P, v, len(per[v]), fmt_ms(med(per[v])), rng([t * 1e3 for t in per[v]], "%.2f")])
        vals.append((P, med([t for v in per for t in per[v]])))
    verdicts = []
    if len(vals) > 1:
        verdicts.append(("same" if all(vals[i][1] < vals[i + 1][1] for i in range(len(vals) - 1))
                         else "different",
                         "the two communicator splits take %s ms at P = %s: %s with P, as the seed's "
                         "Fig. 4" % (" / ".join(fmt_ms(t) for _, t in vals), ", ".join(str(p) for p, _ in vals),
                                     "growing" if all(vals[i][1] < vals[i + 1][1]
                                                      for i in range(len(vals) - 1)) else "not growing")))
    return table(["P", "variant", "plans", "split_s median (ms)", "range (ms)"], body), verdicts


def r_gather(paths):
    sets = small_sets(paths)
    body, cmp_, grow = [], [], []
    for P in sorted(sets):
        rs = [r for r in sets[P] if sg(r)]
        m = medians(rs, lambda r: (sg(r), r["op"], int(r["size"])), "gather_s")
        for g in sorted({k[0] for k in m}):
            sizes = sorted({k[2] for k in m if k[0] == g})
            body.append(["%d, g = %d" % (P, g)] + ["%s / %s" % (fmt_ms(m.get((g, "write", s), float("nan"))),
                                                               fmt_ms(m.get((g, "read", s), float("nan"))))
                                                   for s in sizes])
            for s in sizes:
                if (g, "write", s) in m and (g, "read", s) in m:
                    cmp_.append(m[(g, "read", s)] < m[(g, "write", s)])
            w = [m.get((g, "write", s)) for s in sizes]
            grow.append(w[-1] > w[0])
    sizes = sorted({int(r["size"]) for P in sets for r in sets[P]})
    t = table(["P, group"] + ["%s B: gather / scatter (ms)" % s for s in sizes], body)
    verdicts = [("same" if all(grow) else "different",
                 "gather time grows from the smallest to the largest size in %d of %d (P, g)" % (
                     sum(grow), len(grow))),
                ("same" if sum(cmp_) > len(cmp_) / 2 else "different",
                 "the scatter (read) is cheaper than the gather (write) in %d of %d (P, g, size) cells; "
                 "the seed's MPI_Scatter is cheaper than its MPI_Gather" % (sum(cmp_), len(cmp_)))]
    return t, verdicts


def r_fig7(kind, fig):
    def render(paths):
        sets = small_sets(paths)
        out, verdicts = [], []
        gains = defaultdict(list)
        stop = []
        ind_best = 0
        ind_cells = 0
        series = {}
        for P in sorted(sets):
            rs = sets[P]
            for op in ("write", "read"):
                m = medians([r for r in rs if r["op"] == op], lambda r: (label(r), int(r["size"])))
                vs = [v for v in variants_in(rs, op) if v != "block"]
                sizes = sorted({k[1] for k in m})
                series[(P, op)] = (sizes, m, vs)
                body = []
                for s in sizes:
                    tp = m.get(("two_phase", s), float("nan"))
                    body.append([s] + ["%s%s" % (fmt_ms(m.get((v, s), float("nan"))),
                                                 "" if v == "two_phase" or not sg({"variant": v,
                                                                                   "strategy": v})
                                                 else " (%+.0f%%)" % (100 * (m.get((v, s), tp) / tp - 1)))
                                       for v in vs])
                    for v in vs:
                        g = sg({"variant": v, "strategy": v})
                        if g and (v, s) in m and tp == tp:
                            gains[(op, g)].append((s, P, 1 - m[(v, s)] / tp))
                    if "independent" in vs:
                        ind_cells += 1
                        ind_best += all(m.get(("independent", s), 1e9) <= m.get((v, s), 1e9) for v in vs)
                out.append("P = %d, %s, ms (subgroup: change against two_phase):\n\n%s" % (
                    P, op, table(["bytes per rank"] + vs, body)))
        for (op, g), xs in sorted(gains.items()):
            small = [x for s, P, x in xs if s <= 16384]
            big = [(s, P, x) for s, P, x in xs if s > 16384]
            verdicts.append(("same" if small and min(small) > 0 else "different",
                             "%s, g = %d: at <= 16 KiB per rank subgroup takes %s %% less time than "
                             "two_phase (the seed: up to %d %%)%s" % (
                                 op, g, rng([100 * x for x in small], "%.0f"), 53 if op == "write" else 70,
                                 "; it no longer pays at " + ", ".join(
                                     "P = %d from %d B" % (P, min(s for s, P2, x in big if P2 == P and x <= 0))
                                     for P in sorted({P for s, P, x in big if x <= 0}))
                                 if any(x <= 0 for s, P, x in big) else "; it pays at every size measured")))
        if ind_cells:
            verdicts.append(("info", "list I/O (independent) is the fastest of these at %d of %d (P, op, "
                             "size) cells on this local file system" % (ind_best, ind_cells)))

        def draw(fig):
            Ps = sorted(sets)
            axs = fig.subplots(2, len(Ps), squeeze=False)
            for j, P in enumerate(Ps):
                for i, op in enumerate(("write", "read")):
                    if (P, op) not in series:
                        continue
                    sizes, m, vs = series[(P, op)]
                    lines_panel(axs[i][j], [(v, [(s, m.get((v, s), float("nan"))) for s in sizes])
                                            for v in vs], "P = %d, %s" % (P, op),
                                xlabel="bytes per rank")
        out.append(figure(fig, draw, 12, 6))
        out.append(data_block(paths))
        return "\n\n".join(out), verdicts
    return render


# ---------------------------------------------------- seed 000


def tree_choice(nodes, load):
    """Seed 000 Fig. 7 on Myrinet (Fast Ethernet: list I/O always)."""
    if nodes < 70000:
        return "two_phase" if load < 90 else "list I/O"
    return "two_phase" if load < 50 else "list I/O"


def r_list_vs_two_phase(paths):
    tr = defaultdict(list)
    for p in paths:
        mm = re.match(r"time-(\w+)-(gmsh|rcm)(-ref)?\.csv", os.path.basename(p))
        if mm:
            tr[(mm.group(1), mm.group(2))].extend(rows(p))
    body, agree, n, in_tp, tp_wins = [], 0, 0, 0, 0
    keys = sorted(tr, key=lambda k: (mesh_report.SIZES.index(k[0]) if k[0] in mesh_report.SIZES else 9, k[1]))
    for key in keys:
        rs = [r for r in tr[key] if r["op"] == "write" and r["replicas"] == "idg"]
        m = medians(rs, lambda r: (r["strategy"], int(r["load"])))
        nodes = int(rs[0]["nodes"]) if rs else 0
        for l in sorted({k[1] for k in m}):
            li, tp = m.get(("independent", l)), m.get(("two_phase", l))
            if li is None or tp is None:
                continue
            seed = tree_choice(nodes, l)
            ours = "list I/O" if li < tp else "two_phase"
            n += 1
            agree += seed == ours
            if seed == "two_phase":
                in_tp += 1
                tp_wins += ours == "two_phase"
            body.append([key[0], nodes, key[1], l, fmt_ms(li), fmt_ms(tp), "%.2f" % (tp / li), seed, ours])
    t = table(["mesh", "nodes", "order", "load", "list I/O (ms)", "two_phase (ms)", "two_phase / list I/O",
               "seed 000 Fig. 7 (Myrinet)", "faster here"], body)
    verdicts = [("different" if in_tp and tp_wins < in_tp / 2 else "same",
                 "where the seed's tree picks two-phase I/O (mesh below 70,000 nodes and load below 90, "
                 "or above and below 50) two_phase was faster here in %d of %d cases; list I/O was "
                 "faster in the rest" % (tp_wins, in_tp)),
                ("same" if agree == n else "mixed",
                 "overall the faster of the two matches the seed's Myrinet tree in %d of %d cases, and its "
                 "Fast Ethernet rule (list I/O always) in %d of %d" % (
                     agree, n, sum(1 for b in body if b[-1] == "list I/O"), n))]
    return "\n\n".join([t, compact_data_block(paths)]), verdicts


ABBR = {"serial": "S", "independent": "L", "two_phase": "2P", "multiphase": "MP", "subgroup_g2": "SG2",
        "subgroup_g4": "SG4", "subgroup_g8": "SG8", "multiphase_k1": "MP1", "multiphase_k2": "MP2",
        "multiphase_k3": "MP3", "subgroup_g2_list": "SG2L", "subgroup_g4_list": "SG4L",
        "subgroup_g8_list": "SG8L"}
CANDS = auto_report.CANDIDATES


def abbr(name):
    """A candidate's or a variant's short name: MP, MP(x=hypercube)."""
    base, paren, rest = name.partition("(")
    return ABBR.get(name) or (ABBR.get(base, base) + paren + rest)


def setting_of(path, r):
    fs = {"fuse.glusterfs": "GlusterFS"}.get(r.get("fs_type", ""), r.get("fs_type", "") or "?")
    nodes = r.get("nodes_spanned") or "1"
    base = os.path.basename(path)
    rate = "100 Mbit/s" if "100mbit" in base else ("unshaped" if nodes != "1" else "")
    where = "1 node" if nodes == "1" else "%s nodes" % nodes
    return "%s, %s%s" % (fs, where, ", " + rate if rate else "")


def has_auto(path):
    try:
        with open(path, newline="") as f:
            head = f.readline()
    except OSError:
        return False
    return "auto.predicted_multiphase_s" in head


def auto_cases(paths):
    """Every (setting, workload, P, size, case, op) with auto and the canonical
    strategies of one run -- their default options, and the variants a sweep
    measured beside them (multiphase(x=hypercube)): auto is compared with the
    best of all of them; a case measured in docs/results/seeds/ replaces the
    same case of an older CSV."""
    found = {}
    for p in paths:
        times, preds, choice, _ = auto_report.load(p)
        rs = rows(p)
        groups = {}
        for r in rs:
            if r["strategy"] == "subgroup" and label(r) == "subgroup":
                groups.setdefault(auto_report.case_key(r), int(fnum(r.get("group"), 0)))
        firsts = {}
        for r in rs:
            firsts.setdefault(auto_report.case_key(r), r)
        for k, tm in times.items():
            r0 = firsts[k]
            mt = {s: med(v) for s, v in tm.items()}
            if "auto" not in mt:
                continue
            canon = {s: t for s, t in mt.items() if s not in ("auto", "block")}
            if not canon:
                continue
            ch = [CANDS[c] for c in choice.get(k, []) if 0 <= c < len(CANDS)]
            ran = max(sorted(set(ch)), key=ch.count) if ch else "?"
            case = dict(setting=setting_of(p, r0), workload=r0["workload"], P=int(r0["ranks"]),
                        nx=int(r0["nx"]), esize=int(r0["esize"]), case=case_of(r0), op=r0["op"],
                        nodes=int(fnum(r0.get("nodes"), 0)), med=mt, canon=canon,
                        best=min(canon, key=canon.get), ran=ran, preds={c: med(v) for c, v in
                                                                        preds.get(k, {}).items()},
                        group=groups.get(k, 0), file=p)
            key = (case["setting"], case["workload"], case["P"], case["nx"], case["esize"], case["case"],
                   case["op"])
            seeds = p.startswith(SEEDS + os.sep)
            if key not in found or (seeds and not found[key][0]):
                found[key] = (seeds, case)
    return [c for _, c in (found[k] for k in sorted(found, key=str))]


def ran_best(c):
    """auto ran the strategy that was best (subgroup: of whatever group)."""
    return c["ran"] == c["best"] or (c["ran"].startswith("subgroup") and c["best"] == "subgroup")


def r_decision(workload):
    def render(paths):
        cases = [c for c in auto_cases(paths) if c["workload"] == workload]
        if not cases:
            return "No CSV with auto on this workload.", []
        if workload == "vector":
            rowkey = lambda c: (c["setting"], c["nx"] * c["esize"], c["P"], c["op"])  # noqa: E731
            rowname = lambda k: "%s, %.0f MiB, P = %d, %s" % (k[0], k[1] / 2**20, k[2], k[3])  # noqa: E731
            colname = "bx"
        else:
            rowkey = lambda c: (c["setting"], c["nodes"] or c["nx"], c["P"], c["op"])  # noqa: E731
            rowname = lambda k: "%s, %d nodes, P = %d, %s" % k  # noqa: E731
            colname = "load"
        rk = sorted({rowkey(c) for c in cases}, key=str)
        cols = sorted({c["case"] for c in cases})
        cell = {(rowkey(c), c["case"]): c for c in cases}
        body = []
        for k in rk:
            row = [rowname(k)]
            for col in cols:
                c = cell.get((k, col))
                if not c:
                    row.append("")
                    continue
                ratio = c["med"]["auto"] / c["canon"][c["best"]]
                row.append("%s%s %.2f%s" % (abbr(c["ran"]),
                                            "" if ran_best(c) else " (best %s)" % abbr(c["best"]), ratio,
                                            "" if ratio <= 1.10 else (" !" if ratio <= 1.5 else " !!")))
            body.append(row)
        t = table(["setting, size, P, op"] + ["%s %s" % (colname, c) for c in cols], body)
        ratios = [c["med"]["auto"] / c["canon"][c["best"]] for c in cases]
        same = sum(1 for c in cases if ran_best(c))
        within = sum(1 for x in ratios if x <= 1.10)
        verdicts = [("info", "%s: auto within 10 %% of the best canonical strategy of the same run in %d "
                     "of %d cases (%.0f %%), within 1.5x in %d; median %.2f, worst %.2f; it ran the "
                     "best strategy in %d" % (workload, within, len(ratios), 100.0 * within / len(ratios),
                                             sum(1 for x in ratios if x <= 1.5), med(ratios), max(ratios),
                                             same))]
        picks = defaultdict(int)
        bests = defaultdict(int)
        for c in cases:
            picks[c["ran"]] += 1
            bests[c["best"]] += 1
        verdicts.append(("info", "%s: auto ran %s; the best measured was %s" % (
            workload, ", ".join("%s %d" % (k, v) for k, v in sorted(picks.items())),
            ", ".join("%s %d" % (k, v) for k, v in sorted(bests.items())))))
        if workload == "mesh":
            tp = [c for c in cases if c["best"] == "two_phase"]
            verdicts.append(("different" if not tp else "mixed",
                             "the MPI library's two-phase I/O, seed 000's choice for small meshes and "
                             "loads on a fast network, was the best strategy in %d of %d mesh cases" % (
                                 len(tp), len(cases))))

        colors = {"multiphase": "tab:blue", "independent": "tab:orange", "two_phase": "tab:red",
                  "serial": "tab:gray", "subgroup_g2": "tab:purple", "subgroup_g4": "tab:purple",
                  "subgroup_g8": "tab:purple", "multiphase_k1": "tab:cyan",
                  "multiphase_k2": "tab:cyan", "multiphase_k3": "tab:cyan",
                  "subgroup_g2_list": "tab:pink", "subgroup_g4_list": "tab:pink",
                  "subgroup_g8_list": "tab:pink"}

        def draw(fig):
            ax = fig.subplots(1, 1)
            for i, k in enumerate(rk):
                for j, col in enumerate(cols):
                    c = cell.get((k, col))
                    if not c:
                        continue
                    ratio = c["med"]["auto"] / c["canon"][c["best"]]
                    ax.add_patch(plt.Rectangle((j, i), 1, 1, color=colors.get(c["ran"], "white"),
                                               alpha=0.35 if ratio <= 1.10 else 0.9))
                    ax.text(j + 0.5, i + 0.5, "%s\n%.2f" % (abbr(c["ran"]), ratio),
                            ha="center", va="center", fontsize=6)
            ax.set_xlim(0, len(cols))
            ax.set_ylim(len(rk), 0)
            ax.set_xticks([j + 0.5 for j in range(len(cols))])
            ax.set_xticklabels([str(c) for c in cols], fontsize=7)
            ax.set_yticks([i + 0.5 for i in range(len(rk))])
            ax.set_yticklabels([rowname(k) for k in rk], fontsize=6)
            ax.set_xlabel(colname)
            ax.set_title("what auto ran, and auto / best of the same run (pale: within 10 %)", fontsize=8)
        md = "\n\n".join([
            "Each cell: what auto ran (S serial, L list I/O, 2P two_phase, MP multiphase, SGg subgroup with "
            "groups of g), then its median over the best canonical strategy's of the same run (a swept variant "
            "included, as MP(x=hypercube): the others ran their default options); `(best X)` where another "
            "strategy or variant was best, `!` above 1.10, `!!` above 1.5.", t,
            figure("seed000-decision-" + workload, draw, 10, 0.9 + 0.22 * len(rk)),
            compact_data_block(sorted({c["file"] for c in cases}))])
        return md, verdicts
    return render


# ---------------------------------------------------- the slow network


def r_slow(workload):
    def render(paths):
        files = [p for p in paths if os.path.basename(p).startswith(workload + "-")]
        out, verdicts, tabs = [], [], {}
        for p in files:
            t = pfs_report.table(p)
            if t:
                name = os.path.basename(p)[:-4]
                tabs[name] = t + (pfs_report.rate_mb_s(os.path.join(
                    os.path.dirname(p), "netrate-%s-%s.txt" % tuple(name.split("-")[1:3]))),)
        for name in sorted(tabs, key=lambda n: ("ext4" in n, "unshaped" in n)):
            wl, key, strategies, cases, times, verdict, fs, nbytes, ranks, mb = tabs[name]
            kind, rate = name.split("-")[1:3]
            floor = {c: nbytes[c] / 1e6 / mb for c in cases} if (kind == "pfs" and mb) else None
            body = []
            for c in cases:
                row = [c]
                for s in strategies:
                    v = med(times[(c, s)])
                    row.append(fmt_t(v) + (" (%.2f)" % (v / floor[c]) if floor and v == v else ""))
                body.append(row)
            out.append("%s on %s, %s, P = %s, median write s%s:\n\n%s" % (
                wl, "the networked file system (GlusterFS)" if kind == "pfs" else "the cluster's ext4",
                "links at 100 Mbit/s" if rate == "100mbit" else "unshaped links", ranks,
                " (in parentheses / floor: the file through one storage link at %.2f MB/s)" % mb
                if floor else "", table([key] + strategies, body)))
            m = {(s, c): med(times[(c, s)]) for s in strategies for c in cases}
            if kind == "pfs" and rate == "100mbit":
                li = [c for c in cases if m.get(("independent", c), 1e9) < m.get(("two_phase", c), 0)]
                verdicts.append(("mixed" if li and len(li) < len(cases) else
                                 ("same" if li else "different"),
                                 "%s, GlusterFS at 100 Mbit/s: list I/O beats two_phase at %s %s of %s "
                                 "(%s); seed 000 on Fast Ethernet: list I/O best in all cases" % (
                                     workload, key, ", ".join(str(c) for c in li) or "none", len(cases),
                                     ", ".join("%s: %.2fx" % (c, m[("independent", c)] / m[("two_phase", c)])
                                               for c in cases if ("two_phase", c) in m))))
                canon = [s for s in strategies if s not in ("block", "auto")]
                best = {c: min(canon, key=lambda s: m.get((s, c), 1e9)) for c in cases}
                verdicts.append(("info", "%s, GlusterFS at 100 Mbit/s: the best canonical strategy per %s: "
                                 "%s" % (workload, key, ", ".join("%s %s" % (c, best[c]) for c in cases))))
                if floor:
                    for s in ("multiphase", "auto", "serial"):
                        if any((s, c) in m for c in cases):
                            verdicts.append(("info", "%s, GlusterFS at 100 Mbit/s: %s at %sx the link floor" % (
                                workload, s, rng([m[(s, c)] / floor[c] for c in cases if (s, c) in m
                                                  and nbytes[c] > 1e6], "%.2f"))))

        def draw(fig):
            sel = [n for n in sorted(tabs) if "pfs" in n]
            axs = fig.subplots(1, max(1, len(sel)), squeeze=False)[0]
            for ax, name in zip(axs, sel):
                wl, key, strategies, cases, times, verdict, fs, nbytes, ranks, mb = tabs[name]
                xs = [int(c) for c in cases]
                lines_panel(ax, [(s, [(int(c), med(times[(c, s)])) for c in cases]) for s in strategies],
                            name, xlabel=key, logx=True)
        if tabs:
            out.append(figure("slow-network-" + workload, draw, 11, 4))
        out.append(compact_data_block(files))
        return "\n\n".join(out), verdicts
    return render


# ---------------------------------------------- predicted against measured


def measured_for(c, cand):
    """The measured median of a candidate in a case (subgroup by its group;
    the candidates with an inner list I/O or fewer phases are not run alone)."""
    if cand.startswith("subgroup_g") and not cand.endswith("_list"):
        g = int(cand[len("subgroup_g"):])
        return c["med"].get("subgroup") if c["group"] == g else None
    return c["med"].get(cand)


def r_predicted(paths):
    cases = auto_cases([p for p in paths if has_auto(p)])
    err = defaultdict(list)
    pts = defaultdict(list)
    for c in cases:
        for cand, p in c["preds"].items():
            t = measured_for(c, cand)
            if t and p == p and p > 0:
                name = "subgroup" if cand.startswith("subgroup") else cand
                err[(name, c["setting"])].append(p / t)
                err[(name, "all")].append(p / t)
                pts[name].append((t, p))
    names = [s for s in ("serial", "independent", "two_phase", "multiphase", "subgroup")
             if (s, "all") in err]
    settings = sorted({k[1] for k in err if k[1] != "all"})
    body = []
    for s in names:
        e = err[(s, "all")]
        body.append([s, len(e), "%.2f" % med(e), "%d %%" % round(100.0 * sum(1 for x in e if 0.5 <= x <= 2)
                                                               / len(e)),
                     "%.2f" % min(e), "%.2f" % max(e)] +
                    ["%.2f (%d)" % (med(err[(s, st)]), len(err[(s, st)])) if (s, st) in err else "-"
                     for st in settings])
    t = table(["strategy", "cases", "median predicted / measured", "within 2x", "lowest", "highest"] +
              ["median: %s (cases)" % st for st in settings], body)
    allabs = [abs(math.log(x)) for s in names for x in err[(s, "all")] if x > 0]
    ratios = [c["med"]["auto"] / c["canon"][c["best"]] for c in cases]
    within = sum(1 for x in ratios if x <= 1.10)
    verdicts = [("info", "over %d cases (every CSV with auto beside the other strategies) the model's "
                 "median error is a factor of %.2f (median |log(predicted / measured)|)" % (
                     len(cases), math.exp(med(allabs)) if allabs else float("nan"))),
                ("info", "auto within 10 %% of the best canonical strategy in %d of %d cases (%.0f %%), "
                 "never worse than %.2fx; the target: 90 %%, never worse than 1.5x" % (
                     within, len(ratios), 100.0 * within / max(1, len(ratios)), max(ratios)))]

    def draw(fig):
        ax = fig.subplots(1, 1)
        for s in names:
            ax.scatter([a for a, _ in pts[s]], [b for _, b in pts[s]], s=9, label=s,
                       color=style(s)[0] if s != "subgroup" else "tab:purple")
        lo = min(min(a, b) for s in names for a, b in pts[s])
        hi = max(max(a, b) for s in names for a, b in pts[s])
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        ax.plot([lo, hi], [2 * lo, 2 * hi], "k:", lw=0.6)
        ax.plot([lo, hi], [lo / 2, hi / 2], "k:", lw=0.6)
        ax.set(xscale="log", yscale="log", xlabel="measured median (s)", ylabel="predicted (s)",
               title="auto's model: predicted against measured (dotted: 2x)")
        ax.legend(fontsize=7)
    md = "\n\n".join([
        "Per strategy, over every case where auto ran beside it: auto's prediction for that strategy "
        "(`auto.predicted_<candidate>_s`, medians of auto's rows) over the strategy's measured median. "
        "subgroup is compared with the prediction for the group size it ran (the CSV's `group`). "
        "Every experiment of `scripts/results-run` that runs auto adds its cases here.",
        t, figure("predicted-vs-measured", draw, 6.5, 5),
        compact_data_block(sorted({c["file"] for c in cases}))])
    return md, verdicts


# ------------------------------------------------------------ sections
#
# A section: the seed's claim, then parts. A part: its title, its data as
# lists of globs in order of preference (the first list with files is used;
# "merge": every file of every list, the case-by-case preference left to the
# renderer), the render function (paths -> markdown, verdicts), the
# scripts/results-run experiment that measures the seed's own setting, and
# what the older data (a later list) lacks. Then why, citing docs/.

S = "seeds/"
SECTIONS = [
    dict(key="seed004-inspector", seed="004",
         title="Seed 004, Figs. 13-14: the inspector's time against Nx and P",
         claim="Inspector-executor collective I/O computes its communication pattern and datatypes once "
               "(the inspector) and reuses them in every executor call. Fig. 13 (P = 16, Nb = 8 blocks per "
               "process) and Fig. 14 (Nx = 524,288, Nb = 8): the inspector's time grows sublinearly with "
               "Nx and with P; the datatypes keep a constant 16 tuples whatever Nx.",
         parts=[dict(title="Inspector time against Nx and P",
                     sources=[[S + "seed004-inspector/*.csv"],
                              ["current/vector-*.csv", "auto/vector-*.csv", "vector-100MB-p8.csv",
                               "vector-100MB-p16.csv"]],
                     render=[r_inspector_seeds, r_inspector_existing], experiment="seed004-inspector",
                     lacks="the bench's usual cases (bx = 1..65536 at 16 and 100 MB), not the seed's "
                           "sweep at Nb = 8")],
         why="The multiphase inspector tracks data as strided segments, so a phase's send descriptors are "
             "a handful of tuples whatever bx (15 in all at P = 16, bx = 1, against the seed's 16) and the "
             "inspector costs milliseconds, far below one executor call (docs/multiphase.md, \"Inspector / "
             "executor\"). The default transport on one node, the direct exchange through a shared-memory "
             "window, exchanges its descriptors with every rank at plan time (an `MPI_Alltoall` and an "
             "`MPI_Alltoallv`) and maps the window, so its inspector grows with P rather than log P "
             "(docs/multiphase.md, \"Direct exchange\", \"The direct exchange through shared memory\"); "
             "with 16 ranks on 2 cores every collective also waits for descheduled ranks."),
    dict(key="seed004-phases", seed="004",
         title="Seed 004, Figs. 15-16: executor time per phase against bx",
         claim="Executor time for a 300 MB file (Nx = 78,643,200), P = 16, split into the four "
               "communication stages and the disk write, for stride sizes Bx: every stage is almost "
               "constant in Bx (each moves Nx / 2P entries per process whatever Bx), so the executor does "
               "not depend on Bx (Fig. 15, Myrinet). On Fast Ethernet (Fig. 16) the stages cost more, and "
               "the executor is still flat in Bx.",
         parts=[dict(title="One node (the seed's Myrinet case)",
                     sources=[[S + "seed004-phases/*.csv"], ["vector-100MB-p16.csv"]],
                     render=[r_phases("300 MB, P = 16, the hypercube, one pass", "seed004-phases"),
                             r_phases("100 MB, P = 16, the hypercube, one pass", "seed004-phases")],
                     experiment="seed004-phases", lacks="100 MB instead of 300 MB"),
                dict(title="Slow links (the seed's Fast Ethernet case)",
                     sources=[[S + "seed004-fast-ethernet/*.csv"], ["hosts/vector-16MB-4x2-100mbit.csv"]],
                     render=[r_phases("100 MB, P = 16 on 4 hosts x 4 at 100 Mbit/s, hypercube",
                                      "seed004-phases-slow"),
                             r_phases("16 MB, P = 8 on 4 hosts x 2 at 100 Mbit/s, hypercube",
                                      "seed004-phases-slow")],
                     experiment="seed004-fast-ethernet",
                     lacks="16 MB at P = 8 instead of 300 MB at P = 16, and the hypercube in rounds")],
         why="On one node the phases are copies through memory shared by 16 ranks on 2 cores: memory "
             "bandwidth and scheduling, not the network, set their cost, and the last phase is the longest "
             "because each rank finishes its own work and then waits for its partner, so the skew of the "
             "earlier phases accumulates there (docs/multiphase.md, \"Where the time goes, and what limits "
             "it\"). On the emulated hosts, the phases whose partners sit on another host cross a 100 "
             "Mbit/s link and cost several times more than the one within a host "
             "(docs/multiphase.md, \"Measured on emulated hosts\"); the seed's stages all crossed the "
             "network. In both cases the exchanged volume does not depend on bx, as in the seed."),
    dict(key="seed004-compare", seed="004",
         title="Seed 004, Figs. 17-20: time against bx, against list I/O, two-phase and block",
         claim="At P = 16, 100 MB (Fig. 17) and 500 MB (Fig. 18) on Myrinet: block I/O (each process "
               "writes its data contiguously: not the canonical order, the reference) is fastest; the IEC "
               "executor stays close to it at every Bx and does not depend on Bx or Nx; list I/O and "
               "two-phase I/O are poor at small Bx; two-phase reaches IEC at Bx = 16, list I/O from "
               "Bx = 512. On Fast Ethernet (Figs. 19-20, PVFS still on Myrinet) the methods that "
               "communicate (two-phase, IEC) slow down while list I/O and block do not; at larger Bx list "
               "I/O is better than two-phase, and two-phase comes close to IEC.",
         parts=[dict(title="100 MB, P = 16",
                     sources=[[S + "seed004-compare-100MB/*.csv"], ["current/vector-100MB-p16.csv"]],
                     render=[r_compare("100 MB, P = 16", "seed004-compare-100MB")],
                     experiment="seed004-compare-100MB",
                     lacks="no two_phase (one call at bx = 1 takes minutes), no auto, multiphase's default "
                           "transport only"),
                dict(title="500 MB, P = 16",
                     sources=[[S + "seed004-compare-500MB/*.csv"]],
                     render=[r_compare("500 MB, P = 16", "seed004-compare-500MB")],
                     experiment="seed004-compare-500MB"),
                dict(title="The MPI library's two-phase I/O under its settings (16 MB, P = 8)",
                     sources=[["current/vector-16MB-p8.csv", "anchor-*-16MB-p8.csv"]],
                     render=[r_anchors]),
                dict(title="Slow links (the seed's Fast Ethernet case)",
                     sources=[[S + "seed004-fast-ethernet/*.csv"], ["hosts/vector-16MB-4x2-100mbit.csv"]],
                     render=[r_compare("100 MB, P = 16 on 4 hosts x 4 at 100 Mbit/s", "seed004-compare-slow",
                                       slow=True),
                             r_compare("16 MB, P = 8 on 4 hosts x 2 at 100 Mbit/s", "seed004-compare-slow",
                                       slow=True)],
                     experiment="seed004-fast-ethernet",
                     lacks="16 MB at P = 8, and no list I/O; the seed's 500 MB on Fast Ethernet (Fig. 20) "
                           "is not planned: two_phase at small bx would take hours")],
         why="On one node multiphase's exchange runs through a shared-memory window. In the 16 MB runs "
             "it stays within 1.0-1.9x of block at every bx (docs/benchmarks.md, \"Current results: 16 "
             "MB, 8 ranks\"); at 100 MB and 16 ranks on 2 cores it varies from run to run (1.2-2.0x in "
             "docs/auto.md, \"100 MB at 16 ranks\", where single reps fell into page-cache stalls). Two "
             "things differ from the seed's machine. The "
             "file system: on this ext4 behind the page cache a small request costs about 2 us, so list "
             "I/O catches up with multiphase from bx = 4096 (16 KiB pieces) and even beats it at 65536, "
             "while on a networked file system a request costs about 0.2 ms and list I/O needs far larger "
             "pieces (docs/pfs.md, \"The seeds' claims on a networked file system\"). The MPI library's "
             "collective: Open MPI's default OMPIO (fcoll vulcan) costs about 7 us per piece and stays "
             "4-5x block even at large bx; its other settings and ROMIO come closer but never reach "
             "multiphase (docs/benchmarks.md, \"Anchors with other MPI-IO settings\"). With 16 ranks on 2 "
             "cores every time is also a ratio within one run, and single cases fall into the VM's "
             "page-cache stalls (docs/benchmarks.md, \"Noise on this machine\"; docs/auto.md, \"100 MB at "
             "16 ranks\"). On slow links the communicating strategies pay for the network, as in the "
             "seed: the node-aware exchange that multiphase chooses there runs near the links' floor "
             "(docs/multiphase.md, \"Measured on emulated hosts\")."),
    dict(key="seed001", seed="001",
         title="Seed 001, Figs. 6-10: STEM-II arrays with 1, 2 and 3 phases",
         claim="Writing the STEM-II arrays SL1 (35.7 MB), SL2 (71.4 MB) and SL3 (53.9 MB) to PVFS on "
               "Myrinet (Figs. 6-8), the multiple-phase collective technique is the fastest, and the more "
               "phases the faster: with 3 phases each process writes one contiguous block; individual "
               "(non-collective) writes, ROMIO's two-phase and the sequential writes are slower. Doubling "
               "the data (SL2) doubles every technique's time; SL3's longer runs help the techniques that "
               "write non-contiguous data. Fig. 9 (Myrinet): each communication stage of SL1 costs about "
               "the same; Fig. 10 (Fast Ethernet): communication costs rise and limit the third phase, "
               "though all phases still give the best total.",
         parts=[dict(title="SL1-SL3, one node (Figs. 6-8)",
                     sources=[[S + "seed001-array/*.csv"], ["array-p8.csv"]],
                     render=[r_array("the hypercube forced to k = 1, 2, 3", "seed001-array"),
                             r_array("k = 1, 2, 3 (k = 3 ran the direct exchange)", "seed001-array")],
                     experiment="seed001-array",
                     lacks="in this run k = 3 (all phases) took the direct exchange, not the seeds' "
                           "hypercube (docs/benchmarks.md, \"array\"), and the hypercube wrote in rounds"),
                dict(title="Cost per stage of SL1 (Fig. 9)",
                     sources=[[S + "seed001-array/*.csv"], ["array-p8.csv"]],
                     render=[r_stages("the hypercube, one pass", "seed001-stages"),
                             r_stages("k = 1, 2 hypercube, k = 3 direct", "seed001-stages")],
                     experiment="seed001-array", lacks="k = 3 is the direct exchange (one stage)"),
                dict(title="Slow links (Fig. 10)",
                     sources=[[S + "seed001-array-fast-ethernet/*.csv"]],
                     render=[r_stages("4 hosts x 2 at 100 Mbit/s", "seed001-stages-slow")],
                     experiment="seed001-array-fast-ethernet")],
         why="With 1 or 2 phases a rank still writes a list of runs 2^k times longer than the layout's and "
             "gains little over list I/O; only with all phases is its data one contiguous request, which "
             "is where the seed's I/O time drops too (docs/benchmarks.md, \"array, STEM-II SL1-SL3\"). On "
             "one node the phases are memory copies among oversubscribed ranks: the last phase waits for "
             "the slowest partner and is the longest (docs/multiphase.md, \"Where the time goes\"). The "
             "seeds' sequential writes are `serial` here: rank 0 gathers and writes alone; there is no "
             "separate NFS or /tmp case. On this one node `serial` is the fastest writer of these arrays "
             "(35-71 MB): its gather is one message per rank into rank 0's memory, then one contiguous "
             "write, where the hypercube copies every byte once per phase among 8 ranks on 2 cores; on "
             "the seeds' cluster the gather crossed the network into one node, whose link and single "
             "writer bound it. auto prices both (docs/auto.md, \"How it decides\")."),
    dict(key="seed003", seed="003",
         title="Seed 003, Table 4 and Figs. 8-11: replica policies and IDG",
         claim="Interval Data Grouping (IDG) lets the holder that continues the previous node's interval "
               "write a replicated (halo) node. Table 4: against the METIS owner, IDG cuts the disk "
               "intervals 2.9-7.7x and lengthens them, more so with more partitions, because more nodes "
               "are shared (Fig. 9: the replicated share grows with the partitions). Fig. 10: METIS "
               "balances best, Random and IDG next, First Position worst. Fig. 8: with list I/O at 8 "
               "processes IDG is the most competitive policy in almost all cases, the more so the larger "
               "the mesh; Random and First Position are poor. Fig. 11: the inspector's time is small, its "
               "node classification negligible beside the scheduling, and grows linearly with the "
               "partitions; it runs once per partition and is reused.",
         parts=[dict(title="Intervals per rank (Table 4)",
                     sources=[[S + "seed003-mesh/stats-*.csv"], ["mesh/stats-*.csv"]],
                     render=[r_table4, r_table4], experiment="seed003-mesh", complete=True),
                dict(title="Replicated nodes (Fig. 9)",
                     sources=[[S + "seed003-mesh/stats-*.csv"], ["mesh/stats-*.csv"]],
                     render=[r_fig9, r_fig9], experiment="seed003-mesh", complete=True),
                dict(title="Load balance (Fig. 10)",
                     sources=[[S + "seed003-mesh/stats-*.csv"], ["mesh/stats-*.csv"]],
                     render=[r_fig10, r_fig10], experiment="seed003-mesh", complete=True),
                dict(title="Table 4, Figs. 9-10 as plots",
                     sources=[[S + "seed003-mesh/stats-*.csv"], ["mesh/stats-*.csv"]],
                     render=[r_mesh_stats_fig, r_mesh_stats_fig], experiment="seed003-mesh",
                     complete=True),
                dict(title="List I/O write time per policy (Fig. 8)",
                     sources=[[S + "seed003-mesh/time-*.csv"], ["mesh/time-*.csv"]],
                     render=[r_fig8, r_fig8], experiment="seed003-mesh", complete=True),
                dict(title="The inspector (Fig. 11)",
                     sources=[[S + "seed003-mesh/stats-73k-*.csv"], ["mesh/stats-73k-*.csv"]],
                     render=[r_fig11, r_fig11], experiment="seed003-mesh", complete=True)],
         why="In gmsh's own node order consecutive nodes are rarely neighbours (runs of 1.2-1.8 nodes): "
             "nothing groups and IDG gains a few percent. In RCM order IDG removes the runs made of halo "
             "copies, about half of the owner's intervals, but not the seed's 3-7x: RCM interleaves the "
             "parts inside each level set, and runs with no replicated node cannot be merged by any "
             "policy (docs/replicas.md, \"Results\"). Replication and balance follow the seed. Write times "
             "at load 500 swing with ext4's writeback; repeated with 7 reps IDG beats owner under list I/O "
             "(docs/replicas.md, \"Write and read times at 8 ranks\"). The inspector is distributed: each "
             "rank classifies and schedules its own file domain, O(runs + halo copies) per rank "
             "(docs/replicas.md, \"Design\", \"Cost\"), so its work per rank falls with P while the "
             "collectives and the oversubscription of 16-64 ranks on 2 cores make the wall time grow; "
             "classification and scheduling cost the same order, unlike the seed's sequential inspector."),
    dict(key="seed002", seed="002",
         title="Seed 002, Figs. 4-7: the subgroup method",
         claim="The subgroup method splits the processes into groups whose masters gather (write) or "
               "scatter (read) their members' data and alone run the collective I/O. Fig. 4: the cost of "
               "MPI_Comm_split grows with the communicator's size. Figs. 5-6: gather and scatter cost grows "
               "with the processes and the data; scatter is cheaper than gather, so reads should gain more. "
               "Fig. 7 (groups of 2 at P = 4, else 4): with small data the subgroup method beats the "
               "original collective I/O, below 16 KB by up to 53 % (write) and 70 % (read); with large "
               "data it does not.",
         parts=[dict(title="Communicator splits (Fig. 4)",
                     sources=[[S + "seed002-small/*.csv"], ["small-p*.csv"]],
                     render=[r_split, r_split], experiment="seed002-small",
                     lacks="these runs are from a 2-vCPU Intel Xeon VM"),
                dict(title="Gather and scatter (Figs. 5-6)",
                     sources=[[S + "seed002-small/*.csv"], ["small-p*.csv"]],
                     render=[r_gather, r_gather], experiment="seed002-small",
                     lacks="these runs are from a 2-vCPU Intel Xeon VM"),
                dict(title="Write and read against two-phase I/O (Fig. 7)",
                     sources=[[S + "seed002-small/*.csv"], ["small-p*.csv"]],
                     render=[r_fig7("this machine", "seed002-fig7"), r_fig7("Intel Xeon VM", "seed002-fig7")],
                     experiment="seed002-small",
                     lacks="these runs are from a 2-vCPU Intel Xeon VM"),
                dict(title="The same at P = 8 on this machine",
                     sources=[["current/small-p8.csv"]],
                     render=[r_fig7("AMD EPYC VM, P = 8", "seed002-fig7-p8")])],
         why="subgroup's plan makes two communicator splits and merges the members' layouts at the "
             "masters once (stat `subgroup.split_s`); each call gathers or scatters through MPI messages, "
             "which on one node Open MPI moves through shared memory, then the masters run the inner "
             "collective on P / g ranks (docs/subgroup.md, \"Design\", \"The gather goes through MPI "
             "messages\"). With two_phase inside, fewer ranks in the MPI library's collective is what "
             "pays at small sizes, as in the seed; on a local file system list I/O is faster still for "
             "these contiguous pieces, so the method is for where a collective is needed "
             "(docs/subgroup.md, \"Cost\")."),
    dict(key="seed000", seed="000",
         title="Seed 000, Fig. 7 as a decision map: what auto picks",
         claim="BIPS3D's output (Figs. 5-6, mesh 3 at 8 partitions): on Myrinet two-phase I/O is best for "
               "small data and list I/O for larger; on Fast Ethernet list I/O is best in every case. Fig. 7 "
               "turns this into a decision tree: on Myrinet, meshes below 70,000 nodes take two-phase I/O "
               "for loads below 90 and list I/O above; larger meshes take two-phase below load 50 and list "
               "I/O above; on Fast Ethernet, list I/O always. Seed 001 leaves choosing the number of "
               "phases from the architecture as future work. Here the choice is strategy `auto`'s: a cost "
               "model of the layout and the calibrated machine, whose candidates include the hypercube "
               "stopped after 1, 2 or 3 phases (docs/auto.md, \"Fewer phases on the seeds' slow "
               "network\": on 4 hosts at 100 Mbit/s writing to ext4, one phase within each node beats "
               "all phases 2.2-13x and list I/O 1.3-1.7x at bx = 16 and 256).",
         parts=[dict(title="List I/O against two-phase I/O by mesh size and load (Figs. 5-7)",
                     sources=[[S + "seed003-mesh/time-*.csv"], ["mesh/time-*.csv"]],
                     render=[r_list_vs_two_phase, r_list_vs_two_phase], experiment="seed003-mesh",
                     complete=True),
                dict(title="Decision map, vector: data size x granularity x P",
                     sources=[[S + "seed000-decision-vector/*.csv", S + "seed004-compare-*/*.csv",
                               S + "seed004-fast-ethernet/*.csv", S + "slow-network/vector-*.csv"],
                              ["auto/vector-*.csv", "auto/pfs-bytes/vector-*.csv"]],
                     merge=True, render=[r_decision("vector")], experiment="seed000-decision-vector",
                     lacks="16 MB at P = 3, 4, 8 and 100 MB at P = 16 only (with fewer strategies), "
                           "and the emulated cluster at P = 8 (bx = 16..65536, writes)"),
                dict(title="Decision map, mesh: mesh size x load x P",
                     sources=[[S + "seed000-decision-mesh/*.csv", S + "slow-network/mesh-*.csv"],
                              ["auto/mesh-*.csv", "auto/pfs-bytes/mesh-*.csv"]],
                     merge=True, render=[r_decision("mesh")], experiment="seed000-decision-mesh",
                     lacks="the 33k mesh only, loads 1, 10, 100 at P = 8 (and 1, 100 on the cluster)")],
         why="On this machine's ext4 a file request costs about 2 us against about 7 us per piece in Open "
             "MPI's collective, so list I/O beats two-phase even at the smallest loads: the reverse of the "
             "seed's Myrinet tree, whose PVFS requests crossed the network. On the networked file system "
             "(GlusterFS, about 0.2 ms per request) the seed's picture returns: list I/O is slowest at "
             "fine granularity and best only for large pieces (docs/pfs.md, \"The seeds' claims on a "
             "networked file system\"). Neither is the best strategy here at small granularity: the "
             "multiphase exchange is, and auto picks it there. auto's model predicts each candidate from "
             "layout statistics that every rank reduces together and the calibration of the file system "
             "the file is on (docs/auto.md, \"How it decides\"). The mesh map in the seed's setting "
             "(the 33k, 73k and 290k meshes, loads 1-500, P = 4, 8, 16; seed000-decision-mesh) misses "
             "the target of docs/auto.md by far, and most of the misses are writes of 59 MB to 1.2 GB "
             "per call (the two larger meshes at loads 50-500). There three reps of one strategy spread "
             "3-6x on this VM: `block` at 290k nodes, load 500, P = 4 took 0.37, 0.68 and 2.36 s. The "
             "page cache takes up to a gigabyte per call, and its writeback and reclaim share the 2 cores "
             "with the exchange. auto ran multiphase there. multiphase's fastest reps beat serial's "
             "(0.47 against 0.61 s at 290k nodes, load 500, P = 8); its slowest took 5x as long. Three "
             "reps cannot rank the strategies at these sizes; more reps, or a machine whose page "
             "cache is not the bottleneck, are the measurement still missing. The vector map in the "
             "seed's setting (seed000-decision-vector: 16 MB at P = 4, 8, 16, write and read, 100 MB at "
             "P = 8, 16, writes, bx = 1-65536, 3 reps) misses in two ways. Most misses ran the best "
             "strategy: at 16 MB one to three of each strategy's 15 writes (block's included) took 10-35 "
             "ms more than the rest, so a median of three falls on either side; the map's worst, 2.56x "
             "at P = 8, bx = 1, is auto running multiphase (reps 0.031, 0.0079 and 0.028 s) against "
             "multiphase's own plan (0.011, 0.036 and 0.011 s). One is a miss of choice: 16 MB, P = 16, "
             "reads at bx = 256, where auto ran serial (predicted 5.0 ms, multiphase 5.5 ms) and serial "
             "took 13.5 ms, multiphase 7.2 ms. Serial's scatter slows as more ranks share the 2 cores: "
             "its reads at bx >= 256 took 4.4-5.4 ms at P = 4, 5.3-6.5 ms at P = 8 and 8.1-17.7 ms at "
             "P = 16. The model takes serial's cost per byte from the calibration's call at 8 ranks and "
             "does not scale it by the ranks per core (docs/auto.md, \"How it decides\"); at P = 16 "
             "that is 2-3x low for these reads, while serial's 100 MB writes at P = 16 (bx = 256, "
             "4096: 0.043-0.046 s) cost what they did at P = 8 (0.046-0.047 s). The slow-network run "
             "has one miss of choice too: on GlusterFS at 100 Mbit/s, bx = 4096, auto ran subgroup "
             "with groups of 4 writing by list I/O, 1.76 s against list I/O's 1.41 s. The model took "
             "a group's gather to stay within a node; with 2 ranks per node two members of each group "
             "send their 2 MB over the master's 100 Mbit/s link, 0.33 s, what it measured more. The "
             "model counts those bytes over the link (docs/auto.md, \"How it decides\") and there "
             "picks one phase, multiphase_k1 (predicted 1.41 s; this run's predictions were made "
             "without that term, and that pick is not measured). On the emulated cluster "
             "(its rows here, from docs/results/auto/pfs-bytes) auto is within 10 % of the best in "
             "every mesh case. On an oversubscribed 2-core VM two plans of the same strategy also differ by "
             "10-60 % run to run, which puts some of auto's cases outside 10 % of the best even where "
             "it ran the best strategy."),
    dict(key="slow-network", seed="000/001/003/004",
         title="The seeds' slow network, with the file on a networked file system",
         claim="The seeds measured on Fast Ethernet with PVFS: BIPS3D's list I/O was the best output "
               "technique in every case on Fast Ethernet and sequential output to PVFS a good second "
               "(seed 000/003, Fig. 6); the communicating techniques, two-phase and the multiple-phase "
               "exchange, pay for the slower network (seed 001 Fig. 10, seed 004 Figs. 16, 19-20). Here: 4 "
               "emulated hosts x 2 ranks whose links are shaped to 100 Mbit/s, the file on GlusterFS served "
               "by 2 storage hosts (each file whole on one of them), beside the same cluster unshaped and "
               "writing to the machine's ext4; list I/O included.",
         parts=[dict(title="vector, 16 MB",
                     sources=[[S + "slow-network/vector-*.csv"], ["pfs/vector-*.csv"]],
                     render=[r_slow("vector"), r_slow("vector")], experiment="slow-network",
                     complete=True),
                dict(title="mesh (33k nodes, loads 1 and 100)",
                     sources=[[S + "slow-network/mesh-*.csv"], ["pfs/mesh-*.csv"]],
                     render=[r_slow("mesh"), r_slow("mesh")], experiment="slow-network",
                     complete=True)],
         why="Every request of GlusterFS's FUSE client is an RPC to a storage host, about 0.2 ms: list I/O's "
             "cost at small pieces is its request count whether or not the links are shaped, and from "
             "16 KiB pieces it reaches the link floor. The MPI library's two-phase adds an exchange and a "
             "second pass over the links, 1.8x the floor at large pieces. The multiple-phase exchange "
             "(node-direct across nodes) stays within about 1.2x of the floor at every granularity "
             "because its exchange crosses the same links the file's bytes then take, once "
             "(docs/pfs.md, \"Results\"; docs/multiphase.md, \"Across nodes\"). The seeds' PVFS striped a "
             "file over 8-16 servers; unsharded GlusterFS keeps a file on one storage host, so the floor "
             "is one storage link (docs/pfs.md, \"Each file lives whole on one storage host\")."),
    dict(key="predicted", seed="-",
         title="Predicted against measured",
         claim="No seed has a model: seed 000's tree and seed 001's future work are rules from measurements. "
               "Strategy `auto` predicts every candidate's time from the layout and the calibrated machine "
               "(docs/auto.md); this section compares each prediction with the strategy's measured median "
               "in the same run.",
         parts=[dict(title="The model's error per strategy",
                     sources=[[S + "*/*.csv", "auto/*.csv", "auto/pfs-bytes/*.csv"]], merge=True,
                     render=[r_predicted])],
         why="The model counts what it can from the layout (pieces and bytes per rank, the bytes outside a "
             "rank's file domain, P, nodes, ranks per node) and the calibrated constants; it does not see "
             "the file system under many concurrent requests beyond one process's request cost, "
             "multiphase's own choice of transport (predicted as one exchange), the replica policy, or "
             "contention between nodes beyond the ranks sharing a link (docs/auto.md, \"How it "
             "decides\"). On one node it underestimates serial about 2x at large sizes: it "
             "serializes on the oversubscribed node more than its CPU factor says. Each base strategy's "
             "smallest call is calibrated and added as a floor (what a call costs whatever its size), "
             "and the MPI library's collective is calibrated per byte as well as per piece (where its "
             "bytes dominate two_phase's time; docs/auto.md, \"How it decides\")."),
]


# ------------------------------------------------------------ estimates

SHAPES = {"SL1": 9376920, "SL2": 18753840, "SL3": 14142240}
MESH_NODES = {"33k": 32906, "47k": 47018, "73k": 73442, "290k": 290279, "tiny": 200}
ALL_STRATEGIES = ["serial", "independent", "two_phase", "multiphase", "subgroup", "auto", "block"]


def ctx_of(path):
    r = rel(path)
    b = os.path.basename(path)
    rate = "-100mbit" if "100mbit" in b else ""
    if "/pfs/" in r or "slow-network" in r:
        return ("pfs" if "-pfs-" in b else "hosts") + rate
    if "/hosts/" in r or "fast-ethernet" in r:
        return "hosts" + rate
    return "local"


_ref = None


def references():
    """Medians of every (file, variant, case, op) in docs/results."""
    global _ref
    if _ref is None:
        _ref = []
        for p in find(["**/*.csv"]):
            groups = defaultdict(list)
            for r in rows(p):
                try:
                    k = (label(r), r["strategy"], r["workload"], r["op"], case_of(r), int(r["ranks"]),
                         int(r["nx"]) * int(r["esize"]))
                except (KeyError, ValueError):
                    continue
                groups[k].append(r)
            for k, g in groups.items():
                t = med(fnum(r["total_s"]) for r in g)
                w = med(fnum(r.get("warmup_s")) for r in g)
                if t == t and t > 0:
                    _ref.append(dict(ctx=ctx_of(p), variant=k[0], strategy=k[1], workload=k[2], op=k[3],
                                     case=k[4], P=k[5], nbytes=k[6], t=t, w=w if w == w and w > 0 else t))
    return _ref


_by = None


def references_by(strategy, op):
    global _by
    if _by is None:
        _by = defaultdict(list)
        for e in references():
            _by[(e["strategy"], e["op"])].append(e)
    return _by.get((strategy, op), [])


def lg(a, b):
    return abs(math.log2(a / b)) if a > 0 and b > 0 else 3.0


def ref_time(ctx, workload, strategy, tokens, op, case, P, nbytes):
    """(time of one call, of the first call) from the nearest measurement:
    the run closest in P and size (with the variant's sweep values where
    one has them), interpolated log-log between its cases, scaled by size."""
    ref = references_by(strategy, op)
    for level in range(4):
        c = [e for e in ref if (
            (level == 0 and e["ctx"] == ctx and e["workload"] == workload) or
            (level == 1 and e["ctx"] == ctx) or
            (level == 2 and e["ctx"] == "local" and e["workload"] == workload) or
            (level == 3 and e["ctx"] == "local"))]
        if c:
            break
    if not c:
        if strategy == "auto":  # about the best of the others
            ts = [ref_time(ctx, workload, s, [], op, case, P, nbytes) for s in
                  ("multiphase", "independent", "serial")]
            return min(ts)
        return (nbytes * 2e-9, nbytes * 2e-9)
    tok = [e for e in c if all(t in e["variant"] for t in tokens)]
    c = tok or c
    groups = defaultdict(list)
    for e in c:
        groups[(e["variant"], e["P"], e["nbytes"], e["workload"])].append(e)
    best = None
    for key in sorted(groups, key=str):
        g = groups[key]
        exact = [e for e in g if e["case"] == case]
        if exact:
            t, w, dc = exact[0]["t"], exact[0]["w"], 0.0
        elif isinstance(case, int) and all(isinstance(e["case"], int) for e in g):
            lo = max((e for e in g if e["case"] < case), key=lambda e: e["case"], default=None)
            hi = min((e for e in g if e["case"] > case), key=lambda e: e["case"], default=None)
            if lo and hi:
                f = math.log(case / lo["case"]) / math.log(hi["case"] / lo["case"])
                t = math.exp(math.log(lo["t"]) * (1 - f) + math.log(hi["t"]) * f)
                w = math.exp(math.log(lo["w"]) * (1 - f) + math.log(hi["w"]) * f)
                dc = 0.5
            else:
                e = lo or hi
                t, w, dc = e["t"], e["w"], 2 * lg(case, e["case"])
        else:
            t, w, dc = g[0]["t"], g[0]["w"], 3.0
        score = dc + lg(P, key[1]) + 0.5 * lg(nbytes, key[2])
        if best is None or score < best[0]:
            best = (score, t * nbytes / key[2], w * nbytes / key[2])
    return best[1], best[2]


def parse_bench(args):
    a = args.split()
    w, opts, i = a[0], {}, 1
    flags = {"--quiet", "--no-verify", "--destroy-input", "--h5"}
    while i < len(a):
        if a[i] in flags:
            i += 1
            continue
        opts[a[i]] = a[i + 1] if i + 1 < len(a) else ""
        i += 2
    return w, opts


def size_of(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2)]


def estimate_bench(ctx, P, args):
    w, o = parse_bench(args)
    strategies = o.get("--strategies", ",".join(ALL_STRATEGIES)).split(",")
    ops = o.get("--ops", "write").split(",")
    reps, warm = int(o.get("--reps", 3)), int(o.get("--warmup", 1))
    maxt = float(o.get("--max-time", 0))
    cases = []  # (case, nbytes)
    if w in ("vector", "sparse"):
        nb = int(o["--nx"]) * int(o.get("--esize", 4))
        cases = [(int(b), nb) for b in o["--bx"].split(",")]
    elif w == "array":
        cases = [(s, SHAPES.get(s, 1 << 20) * 4) for s in o["--shape"].split(",")]
    elif w == "small":
        cases = [(size_of(s), P * size_of(s)) for s in o.get("--sizes", "1K,4K,16K,64K,256K,1M").split(",")]
    elif w == "mesh":
        m = re.search(r"device-(\w+)\.msh", o["--mesh"])
        nodes = MESH_NODES.get(m.group(1) if m else "", 50000)
        cases = [(int(l), nodes * 8 * int(l)) for l in o.get("--load", "1").split(",")]
    sweeps = {"multiphase": ["--exchange", "--phases", "--write-rounds", "--shared-memory"],
              "subgroup": ["--group", "--inner"]}
    total = 1.0 + 0.08 * P + (0.5 + (nodes if w == "mesh" else 0) * 1e-5 * 2 if w == "mesh" else 0)
    policies = o.get("--replicas", "").split(",") if "--replicas" in o else [""]
    for s in strategies:
        variants = [[]]
        for flag in sweeps.get(s, []):
            if flag in o:
                key = {"--exchange": "x=", "--phases": "k=", "--write-rounds": "r=", "--shared-memory": "shm=",
                       "--group": "g=", "--inner": ""}[flag]
                variants = [v + [key + x] for v in variants for x in o[flag].split(",")]
        pols = [""] if s == "block" else policies
        for v in variants:
            for pol in pols:
                toks = [t for t in v if t and not t.startswith("x=auto")] + (["/" + pol] if pol else [])
                for case, nb in cases:
                    tw, ww = ref_time(ctx, w, s, toks, "write", case, P, nb)
                    tr, wr = ref_time(ctx, w, s, toks, "read", case, P, nb) if "read" in ops else (0, 0)
                    n = reps if maxt <= 0 else min(reps, int(maxt / max(tw + tr, 1e-9)) + 1)
                    verify = nb / 1.5e9 + 0.003
                    total += warm * (ww + wr) + n * (tw + tr + verify * (2 if tr else 1))
    return total


def estimate_lines(lines):
    """NAME -> seconds, from scripts/results-run --plan lines."""
    out = defaultdict(float)
    for ln in lines:
        f = ln.rstrip("\n").split("\t")
        if len(f) < 5:
            continue
        name, kind, ctx, np_, args = f[:5]
        if kind == "bench":
            out[name] += estimate_bench(ctx, int(np_), args)
        elif kind == "calibrate":
            out[name] += 5 if "--mb 1 " in args + " " else 60
        elif kind == "netrate":
            out[name] += 10
        elif kind == "gmsh":
            out[name] += 5 + MESH_NODES.get(args, 50000) * 1e-4
        elif kind == "cluster":
            out[name] += 20
        elif kind == "pfs-results":  # the sum of the runs it repeats, plus 4 settings' set-up
            t = 0.0
            for p in find(["pfs/*.csv"]):
                groups = defaultdict(list)
                for r in rows(p):
                    groups[(label(r), case_of(r), r["op"])].append(r)
                for g in groups.values():
                    t += sum(fnum(r["total_s"]) for r in g) + fnum(g[0].get("warmup_s"), 0)
                    t += len(g) * (int(g[0]["nx"]) * int(g[0]["esize"]) / 1.5e9 + 0.003)
            out[name] += t + 4 * (60 + 20 + 10)
        else:
            out[name] += 0
    return out


def fmt_dur(s):
    if s < 90:
        return "%d s" % max(1, round(s))
    if s < 7200:
        return "%d min" % round(s / 60)
    return "%.1f h" % (s / 3600)


_plan = None


def plan():
    """scripts/results-run --plan: every experiment's steps."""
    global _plan
    if _plan is None:
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "results-run"), "--plan"],
                           cwd=ROOT, capture_output=True, text=True)
        _plan = p.stdout.splitlines() if p.returncode == 0 else []
    return _plan


def experiments():
    """[(name, about)] in scripts/results-run's order."""
    names = []
    for ln in plan():
        n = ln.split("\t")[0]
        if n not in names:
            names.append(n)
    p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "results-run"), "--print"] + names,
                       cwd=ROOT, capture_output=True, text=True)
    about, cmds, cur = {}, defaultdict(list), None
    for ln in p.stdout.splitlines():
        m = re.match(r"# ([\w-]+): (.*)", ln)
        if m and m.group(1) in names:
            cur = m.group(1)
            about[cur] = m.group(2)
        elif cur:
            cmds[cur].append(ln)
    return [(n, about.get(n, ""), cmds[n]) for n in names]


_exps = None
_est = None


def estimates():
    global _est
    if _est is None:
        _est = estimate_lines(plan())
    return _est


def experiment(name):
    global _exps
    if _exps is None:
        est = estimates()
        _exps = {n: (a, c, est.get(n, 0)) for n, a, c in experiments()}
    return _exps.get(name, ("", [], 0))


_listed = set()  # experiments whose commands this section already showed
MAX_LINES = 4


def measure_cmd(name):
    about, cmds, est = experiment(name)
    head = "`scripts/results-run %s` (about %s here)" % (name, fmt_dur(est))
    if not cmds or name in _listed:
        return head + " (commands above)." if cmds else head + "."
    _listed.add(name)
    shown = cmds if len(cmds) <= MAX_LINES + 1 else cmds[:MAX_LINES] + [
        "# ... %d commands in all: scripts/results-run --print %s" % (
            sum(1 for c in cmds if not c.lstrip().startswith("#")), name)]
    return head + ", which runs:\n\n```sh\n%s\n```" % "\n".join(shown)


# ------------------------------------------------------------ the report


def render_part(part):
    """(status, markdown, verdicts); status: measured, older data, not measured yet."""
    alts = part["sources"]
    if part.get("merge"):
        paths = sorted(set(find([g for alt in alts for g in alt])))
        seeds = [p for p in paths if p.startswith(SEEDS + os.sep)]
        if not paths:
            return "not measured yet", None, []
        md, v = part["render"][0](paths)
        status = "measured"
        note = ""
        if not seeds and part.get("experiment"):
            status = "closest run"
            note = ("\n\n*Not measured yet in the seed's full setting* (the runs above: %s): %s" % (
                part.get("lacks", ""), measure_cmd(part["experiment"])))
        return status, md + note, v
    for i, alt in enumerate(alts):
        paths = find(alt)
        if paths:
            md, v = part["render"][min(i, len(part["render"]) - 1)](paths)
            if i > 0 and part.get("experiment"):
                if part.get("complete"):
                    if part["experiment"] not in _listed:
                        md += "\n\nTo measure it again into `docs/results/seeds/`: %s" % measure_cmd(
                            part["experiment"])
                    return "measured", md, v
                md += "\n\n*The seed's own setting is not measured yet* (the run above: %s): %s" % (
                    part.get("lacks", "an earlier, different run"), measure_cmd(part["experiment"]))
                return "closest run", md, v
            return "measured", md, v
    return "not measured yet", None, []


def render_section(sec):
    _listed.clear()
    out = ["## %s\n" % sec["title"], "**The seed's claim.** " + sec["claim"] + "\n", "**Our measurement.**\n"]
    verdicts, statuses = [], []
    for part in sec["parts"]:
        status, md, v = render_part(part)
        statuses.append(status)
        out.append("### %s\n" % part["title"])
        if md is None:
            out.append("Not measured yet. %s\n" % (measure_cmd(part["experiment"]) if part.get("experiment")
                                                   else ""))
        else:
            out.append(md + "\n")
        verdicts += [(part["title"], tag, text) for tag, text in v]
    out.append("**Same or different.**\n")
    if verdicts:
        for title, tag, text in verdicts:
            word = {"same": "Same", "different": "Different", "mixed": "Mixed", "partly": "Partly measured",
                    "info": "Observed"}[tag]
            out.append("- %s (%s): %s." % (word, title, text))
        out.append("")
    else:
        out.append("- Not measured yet: nothing to compare.\n")
    out.append("**Why.** " + sec["why"] + "\n")
    return "\n".join(out), statuses, verdicts


def summary_row(sec, statuses, verdicts):
    n = len(statuses)
    st = "; ".join("%s: %d of %d" % (k, statuses.count(k), n) for k in
                   ("measured", "closest run", "not measured yet") if k in statuses)
    tags = [t for _, t, _ in verdicts if t in ("same", "different", "mixed")]
    v = ("-" if not tags else "same" if all(t == "same" for t in tags) else
         "different" if all(t == "different" for t in tags) else
         "%d same, %d different%s" % (tags.count("same"), tags.count("different"),
                                      ", %d mixed" % tags.count("mixed") if "mixed" in tags else ""))
    anchor = re.sub(r"[^a-z0-9 -]", "", sec["title"].lower()).replace(" ", "-")
    return ["[%s](#%s)" % (sec["title"], anchor), st, v]


def report():
    body, summary = [], []
    for sec in SECTIONS:
        md, statuses, verdicts = render_section(sec)
        body.append(md)
        summary.append(summary_row(sec, statuses, verdicts))
    exps = experiments()
    est = estimates()
    runlist = table(["experiment", "measured", "estimate here", "measures"],
                    [["`%s`" % n, "yes" if os.path.isdir(os.path.join(SEEDS, n)) else "no",
                      fmt_dur(est.get(n, 0)), a] for n, a, _ in exps if n != "smoke"])
    head = """# Reproducing the seeds' experiments

Generated by `python3 scripts/results_report.py` from the collio-bench CSVs in
`docs/results/` (columns: docs/benchmarks.md, "CSV columns"); the plots are
in `docs/results/figures/`. Where `scripts/results-run` has measured an
experiment in the seed's own setting, its CSVs (`docs/results/seeds/NAME/`)
are used; otherwise the closest earlier run, and the section says what that
run lacks and the command that measures the rest. Do not edit this file:
rerun the script.

Unless a section says otherwise the machine is a 2-vCPU AMD EPYC VM (KVM),
24 GiB, Debian 12, ext4 behind the page cache, Open MPI 4.1.4 through
`scripts/mpirun`, collio built Release. 8-16 ranks on 2 cores are
oversubscribed: every time is a median (max over ranks) and every
comparison a ratio within one run, and single cases fall into the VM's
slow-memory windows (docs/benchmarks.md, "Noise on this machine"). `block`
writes each rank's data contiguously: not the canonical order, the seeds'
reference. The seeds ran 8-16 dual Pentium III nodes on Myrinet and Fast
Ethernet with PVFS (seeds 000, 001, 003, 004) and 16 Opterons on gigabit
Ethernet with PVFS2 (seed 002).

Parts of a section: *measured* (the seed's setting, or all of it that
applies here), *closest run* (an earlier run that lacks something, named
under it, with the command that measures the rest), *not measured yet*.

""" + table(["section", "parts", "same or different"], summary) + "\n\n"
    tail = """## Measuring what is missing

`scripts/results-run --list` shows these with their status; `scripts/results-run NAME`
runs one on a quiet machine (it writes `docs/results/seeds/NAME/` only when every
command succeeded), `scripts/results-run --missing` every one not measured yet,
`scripts/results-run --print NAME` the exact commands. The estimates scale the
medians of the existing CSVs to each planned run (plus launch, verification and
calibration): rough.

""" + runlist + "\n"
    return head + "\n".join(body) + "\n" + tail


def main():
    global plt
    if "--estimate" in sys.argv[1:]:
        est = estimate_lines(sys.stdin.readlines())
        for n, s in est.items():
            print("%s\t%s" % (n, fmt_dur(s)))
        return 0
    try:
        import matplotlib
    except ImportError:
        # Debian's matplotlib lives in the system python (scripts/setup installs it)
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != \
                os.path.realpath("/usr/bin/python3") and not os.environ.get("COLLIO_RESULTS_REEXEC"):
            os.environ["COLLIO_RESULTS_REEXEC"] = "1"
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("results_report.py: needs matplotlib (scripts/setup installs it)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "collio"
    import matplotlib.pyplot as pyplot
    plt = pyplot
    os.makedirs(FIGS, exist_ok=True)
    for f in glob.glob(os.path.join(FIGS, "*.png")):
        os.remove(f)
    text = report()
    with open(OUT + ".tmp", "w") as f:
        f.write(text)
    os.replace(OUT + ".tmp", OUT)
    print("%s, %d figures in %s" % (rel(OUT), len(glob.glob(os.path.join(FIGS, "*.png"))), rel(FIGS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
