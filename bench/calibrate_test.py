#!/usr/bin/env python3
"""bench/calibrate_test.py MPIRUN N BENCH CHECKER DIR [--bad-dir] -- the
ctests bench_calibrate_npN (bench/CMakeLists.txt).

Runs `MPIRUN N BENCH calibrate --mb 1 --pieces 2048 --dir DIR --out
DIR/cal-N.json`, then checks the file two ways: with Python's json module
(an independent reader: the format, every value finite and positive --
piece_s may be 0, it is clamped there --, one file system entry whose type
is DIR's in /proc/self/mountinfo with the smallest call of every base
strategy timed with N ranks, no scratch file left), and through the
library (CHECKER: collio_calibration_load gives from_file = 1 and DIR's
entry). DIR's subdirectory the run calibrates does not exist before it:
calibrate makes it. --bad-dir: calibrate a directory that cannot be made
(under a regular file) -- exit status 1 and rank 0's message, on every
rank count, no hang.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys


def unescape(s):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def fs_type(path):
    """The type of the deepest mount on path's device that contains it."""
    real = os.path.realpath(path)
    dev = os.stat(real).st_dev
    want = f"{os.major(dev)}:{os.minor(dev)}"
    best = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields = left.split()
            mnt = unescape(fields[4])
            inside = real == mnt or real.startswith(mnt.rstrip("/") + "/")
            if fields[2] == want and inside and (best is None or len(mnt) >= len(best[0])):
                best = (mnt, right.split()[0])
    return best[1] if best else None


def positive(name, v, zero_ok=False):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if not ok or v < 0 or (v == 0 and not zero_ok):
        sys.exit(f"FAIL: {name} = {v!r} is not a positive number")


def check_json(path, d, nranks):
    with open(path) as f:
        c = json.load(f)
    if c.get("format") != "collio-calibration" or c.get("version") != 1:
        sys.exit(f"FAIL: {path}: not a version 1 collio-calibration")
    for link in ("intra_node", "inter_node"):
        for k in ("latency_s", "bandwidth_Bps"):
            positive(f"network.{link}.{k}", c["network"][link][k])
    positive("copy_Bps", c["copy_Bps"])
    positive("piece_s", c["piece_s"], zero_ok=True)
    positive("cores_per_node", c["cores_per_node"])
    if not isinstance(c["shm_window"], bool):
        sys.exit("FAIL: shm_window is not a boolean")
    fss = c["filesystems"]
    if len(fss) != 1:
        sys.exit(f"FAIL: {len(fss)} file system entries, expected 1")
    fs = fss[0]
    if fs["type"] != fs_type(d):
        sys.exit(f"FAIL: file system type {fs['type']!r}, mountinfo says {fs_type(d)!r}")
    for k in ("write_request_s", "write_Bps", "read_request_s", "read_Bps",
              "mpiio_write_piece_s", "mpiio_read_piece_s"):
        positive(f"filesystems[0].{k}", fs[k])
    # the collective's cost per call and per byte beyond the file's bytes:
    # a difference of times, 0 where it came out below
    for k in ("mpiio_write_call_s", "mpiio_read_call_s", "mpiio_write_byte_s",
              "mpiio_read_byte_s"):
        positive(f"filesystems[0].{k}", fs[k], zero_ok=True)
    # the strategies' own terms beyond their smallest calls: serial's per
    # byte, multiphase's per pull round -- differences of times, 0 where
    # they came out below; absent where not measured (rounds: ranks that
    # share no node; both: the stage's time ran out first)
    terms = fs.get("terms")
    if not isinstance(terms, dict):
        sys.exit(f"FAIL: filesystems[0].terms {terms!r}: no object")
    for key, t in terms.items():
        if key not in ("serial.byte", "multiphase.round"):
            sys.exit(f"FAIL: filesystems[0].terms: unexpected {key!r}")
        for k in ("write_s", "read_s"):
            positive(f"filesystems[0].terms.{key}.{k}", t[k], zero_ok=True)
    # each measured by its strategy (its measure hook): the full budget has
    # no time limit, and on one node with a shared-memory window multiphase
    # pulls in many rounds from 2 ranks on
    want = ["serial.byte"] + (["multiphase.round"] if nranks > 1 and c["shm_window"] else [])
    for key in want:
        if key not in terms:
            sys.exit(f"FAIL: filesystems[0].terms: {key!r} not measured")
    # list I/O at 4 B, 1 KiB, 16 KiB and 64 KiB pieces
    sizes = [e.get("bytes") for e in fs.get("interleaved", [])]
    if sizes != [4, 1024, 16384, 65536]:
        sys.exit(f"FAIL: filesystems[0].interleaved sizes {sizes!r}")
    for e in fs["interleaved"]:
        for k in ("write_s", "read_s"):
            positive(f"filesystems[0].interleaved[{e['bytes']}].{k}", e[k], zero_ok=True)
    # the smallest call of each base strategy, made with this run's ranks
    calls = fs.get("calls")
    if not isinstance(calls, dict) or calls.get("ranks") != nranks:
        sys.exit(f"FAIL: filesystems[0].calls {calls!r}: not made with {nranks} ranks")
    if not 1 <= calls.get("ranks_per_node", 0) <= nranks:
        sys.exit(f"FAIL: calls.ranks_per_node {calls.get('ranks_per_node')!r}")
    for s in ("serial", "independent", "two_phase", "multiphase"):
        for k in ("write_s", "read_s"):
            positive(f"filesystems[0].calls.{s}.{k}", calls[s][k])


def main():
    mpirun, n, bench, checker, d = sys.argv[1:6]
    bad = "--bad-dir" in sys.argv[6:]
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, f"cal-{n}{'-bad' if bad else ''}.json")
    if os.path.exists(out):
        os.unlink(out)
    if bad:
        blocker = os.path.join(d, "a-regular-file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        run_dir = os.path.join(blocker, "sub")
    else:
        run_dir = os.path.join(d, "made-by-calibrate")
        shutil.rmtree(run_dir, ignore_errors=True)
    cmd = [mpirun, n, bench, "calibrate", "--mb", "1", "--pieces", "2048",
           "--dir", run_dir, "--out", out]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print(p.stdout, end="")
    print(p.stderr, end="", file=sys.stderr)
    if bad:
        if p.returncode == 0 or "collio-bench calibrate: " not in p.stderr \
                or "rank " not in p.stderr:
            sys.exit(f"FAIL: exit {p.returncode} without the error message")
        if os.path.exists(out):
            sys.exit("FAIL: a calibration file was written after a failure")
        print("ok: the failure is reported")
        return
    if p.returncode != 0:
        sys.exit(f"FAIL: calibrate exited {p.returncode}")
    if not os.path.isdir(run_dir):
        sys.exit(f"FAIL: {run_dir} was not made")
    left = [f for f in os.listdir(run_dir) if f.startswith(".collio-calibrate.")]
    if left:
        sys.exit(f"FAIL: scratch files left: {left}")
    check_json(out, run_dir, int(n))
    subprocess.run([checker, out, run_dir], check=True)
    print(f"ok: {out}")


if __name__ == "__main__":
    main()
