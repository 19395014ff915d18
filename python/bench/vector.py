"""Python counterpart of `collio-bench vector` (bench/bench.c's protocol):
nx float32 elements block-cyclic with block bx over the ranks, written
with a plan made once; per rep: remove the previous file, open the file
(CREATE), barrier, time plan.write from Python, close, verify. Prints per strategy and bx the median over
the reps of the slowest rank's time measured in Python around plan.write
(py_s) and of collio's own stats total_s (the C bench's figure, max over
ranks), and the Python overhead between them.

    scripts/mpirun 8 build/venv/bin/python python/bench/vector.py \\
        --nx 4194304 --bx 1,4096,65536 --reps 7 --strategies multiphase
"""
import argparse
import os
import statistics

import numpy as np
import mpi4py

if os.environ.get("COLLIO_PY_THREAD_LEVEL"):
    mpi4py.rc.thread_level = os.environ["COLLIO_PY_THREAD_LEVEL"]
from mpi4py import MPI  # noqa: E402

import collio


def verify_share(comm, path, nx):
    """Collective: rank r reads the r-th contiguous share of the file and
    compares it with element i = float32(i)."""
    lo, hi = nx * comm.rank // comm.size, nx * (comm.rank + 1) // comm.size
    got = np.fromfile(path, dtype=np.float32, count=hi - lo, offset=4 * lo)
    ok = np.array_equal(got, np.arange(lo, hi, dtype=np.float32))
    return comm.allreduce(ok, op=MPI.LAND)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nx", type=int, default=4194304)
    ap.add_argument("--bx", default="1,4096,65536")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--strategies", default="multiphase")
    ap.add_argument("--dir", default=".")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--per-rep", action="store_true",
                    help="CSV: one row per timed write (else one per case)")
    a = ap.parse_args()
    comm = MPI.COMM_WORLD
    path = os.path.join(a.dir, "collio-pybench.bin")
    rows, reps = [], []
    for bx in [int(b) for b in a.bx.split(",")]:
        lay = collio.Layout.block_cyclic(comm, a.nx, bx, dtype=np.float32)
        buf = lay.global_indices().astype(np.float32)
        for strategy in a.strategies.split(","):
            with collio.Plan(comm, lay, strategy) as plan:
                py, tot = [], []
                for rep in range(a.warmup + a.reps):
                    # as collio-bench: every rep writes a fresh file (no
                    # rename over the previous one, whose ext4 writeback
                    # would compete with the timed run) ...
                    if comm.rank == 0 and os.path.exists(path):
                        os.unlink(path)
                    comm.Barrier()
                    f = collio.File(comm, path, "w")
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    plan.write(f, buf)
                    t = MPI.Wtime() - t0
                    f.close()
                    t = comm.allreduce(t, op=MPI.MAX)
                    s = comm.allreduce(plan.stats()["total_s"], op=MPI.MAX)
                    # ... and is verified, every rank its share of the file
                    if not verify_share(comm, path, a.nx):
                        raise SystemExit("rep %d: the file is wrong" % rep)
                    if rep >= a.warmup:
                        py.append(t)
                        tot.append(s)
                        reps.append((strategy, bx, rep - a.warmup, t, s))
                if comm.rank == 0:
                    ok = np.array_equal(np.fromfile(path, np.float32),
                                        np.arange(a.nx, dtype=np.float32))
                    mp, mt = statistics.median(py), statistics.median(tot)
                    rows.append((strategy, bx, mp, mt, ok))
                    print("%-12s bx=%-6d py_s %.4f  total_s %.4f  overhead %+.1f %%  %s" % (
                        strategy, bx, mp, mt, 100 * (mp / mt - 1),
                        "verified" if ok else "WRONG FILE"), flush=True)
    if comm.rank == 0:
        os.unlink(path)
        if a.csv and a.per_rep:
            with open(a.csv, "w") as out:
                out.write("strategy,bx,nranks,rep,py_s,total_s\n")
                for r in reps:
                    out.write("%s,%d,%d,%d,%.6f,%.6f\n" % (r[0], r[1], comm.size, r[2], r[3],
                                                           r[4]))
        elif a.csv:
            with open(a.csv, "w") as out:
                out.write("strategy,bx,nranks,py_s_median,total_s_median,verified\n")
                for r in rows:
                    out.write("%s,%d,%d,%.6f,%.6f,%d\n" % (r[0], r[1], comm.size, r[2], r[3],
                                                          r[4]))


if __name__ == "__main__":
    main()
