#!/usr/bin/env python3
"""scripts/auto_report.py CSV... -- how well strategy auto chose, from
collio-bench CSVs that ran auto beside the other strategies (docs/auto.md,
"Measured"). Standard library only.

A case is one workload configuration and operation in one CSV (workload,
ranks, nx, bx, shape, size, load, op, file system). Per case: the median
total_s of every canonical strategy's default variant, the best of them,
auto's median and what it ran (auto.write_choice / auto.read_choice).
Prints a markdown table per CSV, then the summary the targets of
docs/auto.md are stated in: the share of cases where auto is within 10 %
of the best, the worst ratio, and the model's error -- each strategy's
predicted time (auto's auto.predicted_<strategy>_s of the same case)
against its measured median.
"""
import csv
import math
import os
import statistics
import sys

# auto's candidates in their order (auto.write_choice is an index here)
CANDIDATES = ["serial", "independent", "two_phase", "multiphase", "subgroup_g2",
              "subgroup_g4", "subgroup_g8", "multiphase_k1", "multiphase_k2",
              "multiphase_k3", "subgroup_g2_list", "subgroup_g4_list", "subgroup_g8_list"]
MODELLED = ["serial", "independent", "two_phase", "multiphase"]


def case_key(r):
    return (r["workload"], r["ranks"], r["nx"], r["bx"], r.get("shape", ""),
            r.get("size", ""), r.get("load", ""), r["op"], r.get("fs_type", ""),
            r.get("nodes_spanned", ""))


def plan_key(key):
    """The case without its operation: the bench's one plan per case."""
    return key[:7] + key[8:]


def label(key):
    w, ranks, nx, bx, shape, size, load, op, fs, nodes = key
    what = {"vector": "nx=%s bx=%s" % (nx, bx), "array": "shape=%s" % shape,
            "small": "size=%s" % size, "mesh": "load=%s" % load}.get(w, "bx=%s" % bx)
    return "%s P=%s%s %s %s (%s)" % (w, ranks, " nodes=%s" % nodes if nodes not in
                                      ("", "1") else "", what, op, fs)


# a sweep's values that are the options' defaults, as the catalogue
# declares them (docs/options.md), under collio-bench's variant labels
# (docs/benchmarks.md): x = multiphase.exchange, r =
# multiphase.write_rounds, shm = multiphase.shared_memory
DEFAULT_VALUES = {"x": "auto", "r": "0", "shm": "1"}


def strategy_or_variant(r):
    """The row's strategy where it ran the strategy's default options (no
    sweep, or a sweep's default values: "multiphase(x=auto)"), else its
    variant label ("multiphase(x=hypercube)", "multiphase(r=-1,x=auto)")."""
    s = r["strategy"]
    v = r.get("variant") or s
    if v == s:
        return s
    if v.startswith(s + "(") and v.endswith(")"):
        kvs = [kv.split("=", 1) for kv in v[len(s) + 1:-1].split(",")]
        if all(len(kv) == 2 and DEFAULT_VALUES.get(kv[0]) == kv[1] for kv in kvs):
            return s
    return v


def is_variant(name):
    """A key of load()'s times that is a non-default variant."""
    return "(" in name or "/" in name


def load(path):
    times, preds, choice, inspect = {}, {}, {}, {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        try:
            int(r["rep"])
        except ValueError:
            continue  # warm-up rows
        if r.get("verified") == "0":
            continue
        s = strategy_or_variant(r)
        k = case_key(r)
        times.setdefault(k, {}).setdefault(s, []).append(float(r["total_s"]))
        # plan creation, per plan (a case's write and read share one:
        # the key without op): collio_plan_create's wall time (create_s),
        # and for auto its choosing at calls so far (auto.made_s: the
        # chosen plans it made at a first call, where plan creation had
        # not; the plan's running total); CSVs from before create_s: the
        # inspector alone (inspect_s)
        if r.get("create_s", "") != "":
            made = float(r.get("auto.made_s") or 0) if s == "auto" else 0.0
            cost = float(r["create_s"]) + made
        else:
            cost = float(r["inspect_s"])
        inspect.setdefault(plan_key(k), {}).setdefault(s, []).append(cost)
        if s == "auto":
            col = "auto.write_choice" if r["op"] == "write" else "auto.read_choice"
            if r.get(col, "") != "":
                choice.setdefault(k, []).append(int(float(r[col])))
            for c in CANDIDATES:
                v = r.get("auto.predicted_%s_s" % c, "")
                if v not in ("", "inf"):
                    preds.setdefault(k, {}).setdefault(c, []).append(float(v))
    return times, preds, choice, inspect


def main(paths):
    ratios, errors, insp, same = [], {s: [] for s in MODELLED}, [], 0
    # auto / the own plan of the one strategy it ran (the same code path
    # in the same run: what separates them is the run's noise), and the
    # cases beyond 10 % of the best that ran another strategy than it
    twin, choice_misses = [], []
    for path in paths:
        times, preds, choice, inspect = load(path)
        rows, chosen = [], {}
        for k in sorted(times):
            med = {s: statistics.median(v) for s, v in times[k].items()}
            canon = {s: t for s, t in med.items()
                     if s not in ("block", "auto") and not is_variant(s)}
            if "auto" not in med or not canon:
                continue
            best = min(canon, key=canon.get)
            ratio = med["auto"] / canon[best]
            ratios.append(ratio)
            ch = choice.get(k, [])
            ran = ",".join(sorted({CANDIDATES[c] for c in ch if 0 <= c < len(CANDIDATES)}))
            rows.append("| %s | %s %.4g | %s %.4g | %.2f |" % (label(k), best, canon[best],
                                                              ran or "?", med["auto"], ratio))
            same += ran == best
            if ran in canon:
                twin.append(med["auto"] / canon[ran])
            if ratio > 1.10 and ran != best:
                choice_misses.append(ratio)
            chosen.setdefault(plan_key(k), set()).update(ran.split(","))
            for s in MODELLED:
                p = preds.get(k, {}).get(s)
                if p and s in med and med[s] > 0:
                    errors[s].append(statistics.median(p) / med[s])
        # plan creation: auto's plan (its own inspector and every plan it
        # chose, write and read) against the chosen strategies' own plans
        for pk, ran in chosen.items():
            own = inspect.get(pk, {})
            if "auto" in own and ran and all(s in MODELLED and s in own for s in ran):
                mine = sum(statistics.median(own[s]) for s in ran)
                if mine > 0:
                    insp.append(max(own["auto"]) / mine)
        if rows:
            print("### %s\n" % os.path.basename(path))
            print("| case | best (s) | auto ran (s) | auto / best |")
            print("|---|---|---|---|")
            print("\n".join(rows))
            print()
    if not ratios:
        print("no case with auto and another canonical strategy")
        return 1
    within = sum(1 for r in ratios if r <= 1.10)
    print("**auto against the best strategy of the same run**: %d cases; within 10 %% "
          "in %d (%.0f %%); median ratio %.2f; worst %.2f\n" %
          (len(ratios), within, 100.0 * within / len(ratios), statistics.median(ratios),
           max(ratios)))
    print("**auto ran the strategy that was best in the same run** in %d of %d cases\n"
          % (same, len(ratios)))
    beyond = len(ratios) - within
    print("**beyond 10 %%**: %d cases; %d of them ran another strategy than the best "
          "(misses of choice%s), %d the best one itself\n"
          % (beyond, len(choice_misses), ", worst %.2f" % max(choice_misses)
             if choice_misses else "", beyond - len(choice_misses)))
    if twin:
        gm = math.exp(statistics.mean(math.log(x) for x in twin))
        print("**auto against the own plan of the strategy it ran** (the same code "
              "path in the same run: the run's noise), %d cases: geometric mean %.3f; "
              "more than 5 %% slower in %d, faster in %d; more than 10 %% slower in %d, "
              "faster in %d\n"
              % (len(twin), gm, sum(x > 1.05 for x in twin), sum(x < 1 / 1.05 for x in twin),
                 sum(x > 1.10 for x in twin), sum(x < 1 / 1.10 for x in twin)))
    if insp:
        within2 = sum(1 for x in insp if x <= 2.0)
        print("**plan creation**: auto's plan (collio_plan_create + choosing at "
              "calls: create_s + auto.made_s, after its last call) / the own create_s "
              "of the strategies it chose (write and read: one plan), over %d plans: "
              "median %.2f, worst %.2f, within 2x in %d\n"
              % (len(insp), statistics.median(insp), max(insp), within2))
    print("**the model's error** (predicted / measured median, per strategy):\n")
    print("| strategy | cases | median | within 2x |")
    print("|---|---|---|---|")
    for s in MODELLED:
        e = errors[s]
        if e:
            w2 = sum(1 for x in e if 0.5 <= x <= 2.0)
            print("| %s | %d | %.2f | %d %% |" % (s, len(e), statistics.median(e),
                                                 round(100.0 * w2 / len(e))))
    allabs = [abs(math.log(x)) for s in MODELLED for x in errors[s] if x > 0]
    if allabs:
        print("\nmedian |log(predicted / measured)| over all: %.2f (a factor of %.2f)" %
              (statistics.median(allabs), math.exp(statistics.median(allabs))))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
