"""Round trips of every layout kind and strategy, against expectations
computed in numpy; bad input raising collio.Error on every rank; plan reuse.

Python-level argument checks agreed across the ranks: test_agreement.py.

Which global indices a rank holds is computed here in numpy, from the
layout's definition (not asked of collio). Element i's bytes are a numpy
formula of i (`expected`); rank 0 reads the written file with numpy.fromfile
and compares it with the formula over all i; the verdict is broadcast.
"""
import os

import numpy as np
import pytest
from mpi4py import MPI

import collio

CANONICAL = collio.strategy_names(canonical_only=True)
DTYPES = [np.float32, np.float64, np.int16, np.complex128, np.dtype(("<f8", 3)),
          np.uint8]


def expected(i, dtype):
    """Element i's value: a formula of i in `dtype` (subarray dtypes: one
    row of their base type per element)."""
    dt = np.dtype(dtype)
    i = np.asarray(i, dtype=np.int64)
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        k = int(np.prod(shape))
        v = (i[:, None] * 3 + np.arange(k)[None, :]).astype(np.float64) * 0.5 - 7
        return v.astype(base)
    if dt.kind == "c":
        return (i * 0.25 + 1j * (i % 97)).astype(dt)
    if dt.kind == "f":
        return (i * 1.5 - 3.25).astype(dt)
    return ((i * 2654435761) % (np.iinfo(dt).max + 1)).astype(dt)


def agree(comm, ok, what=""):
    """Assert on every rank that `ok` held on every rank."""
    allok = comm.allreduce(bool(ok), op=MPI.LAND)
    assert allok, what


def check_file(comm, path, nglobal, dtype, offset=0):
    """Rank 0 reads the file with numpy and compares it with the formula;
    the verdict holds on every rank."""
    ok, msg = True, ""
    if comm.rank == 0:
        dt = np.dtype(dtype)
        raw = np.fromfile(path, dtype=np.uint8)
        want = expected(np.arange(nglobal), dt).tobytes()
        got = raw[offset:].tobytes()
        ok = got == want
        if not ok:
            bad = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]),
                       min(len(got), len(want)))
            msg = "file of %d bytes, %d expected; first difference at byte %d" % (
                len(got), len(want), bad)
    ok, msg = comm.bcast((ok, msg), root=0)
    assert ok, msg


# ------------------------------------------------ indices held, in numpy

def held_block_cyclic(nx, bx, P, r):
    i = np.arange(nx, dtype=np.int64)
    return i[(i // bx) % P == r]


def dims_create(P, nd):
    return list(MPI.Compute_dims(P, nd))


def held_darray(gsizes, psizes, distribs, dargs, order, r):
    """Global flat indices of rank r's local sub-array, packed in `order`."""
    coords = np.unravel_index(r, psizes)  # row-major in rank (MPI_Cart)
    axes = []
    for g, p, d, a, c in zip(gsizes, psizes, distribs, dargs, coords):
        j = np.arange(g, dtype=np.int64)
        if d == "none":
            axes.append(j)
        elif d == "block":
            b = a if a else -(-g // p)
            axes.append(j[(j >= c * b) & (j < (c + 1) * b)])
        else:  # cyclic(a)
            k = a if a else 1
            axes.append(j[(j // k) % p == c])
    if any(len(ax) == 0 for ax in axes):
        return np.empty(0, dtype=np.int64)
    flat = np.ravel_multi_index(np.ix_(*axes), gsizes, order=order)
    return flat.ravel(order=order).astype(np.int64)


def partition(nglobal, P, seed=7):
    """A random partition of [0, nglobal): rank r's indices, shuffled."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(nglobal)
    owner = rng.integers(0, P, nglobal)
    return [perm[owner[perm] == r] for r in range(P)], owner


def replicated(nglobal, P, r, seed=11):
    """Rank r's held indices (owned ones and a halo of others') and owned
    flags, in a shuffled order."""
    parts, owner = partition(nglobal, P, seed)
    i = np.arange(nglobal, dtype=np.int64)
    halo = i[(owner != r) & (((i * 31 + r * 7) % 5 == 0) | (owner == (r + 1) % P))]
    idx = np.concatenate([parts[r], halo]).astype(np.int64)
    own = np.concatenate([np.ones(len(parts[r]), np.uint8), np.zeros(len(halo), np.uint8)])
    perm = np.random.default_rng(seed + r).permutation(len(idx))
    return idx[perm], own[perm]


def roundtrip(comm, path, layout, idx, nglobal, dtype, strategy, **opts):
    """Write this rank's elements idx (buffer order) with a fresh plan,
    check the file, read it back into a new array, check it."""
    data = expected(idx, dtype)
    before = data.copy()
    with collio.Plan(comm, layout, strategy, **opts) as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, data)
        if strategy != "block":
            check_file(comm, path, nglobal, dtype)
        if not opts.get("destroy_input"):
            agree(comm, np.array_equal(data, before), "write changed the user's array")
        back = np.full_like(data, 0)
        with collio.File(comm, path, "r") as f:
            plan.read(f, back)
        agree(comm, back.tobytes() == expected(idx, dtype).tobytes(), "read back differs")
        st = plan.stats()
    assert st["total_s"] >= 0 and isinstance(st["multiphase"], dict)
    return st


# -------------------------------------------------------------- layouts

@pytest.mark.parametrize("strategy", collio.strategy_names())
@pytest.mark.parametrize("nx,bx", [(1237, 1), (1237, 16), (5000, 4096), (7, 3), (0, 5)])
def test_block_cyclic(comm, path, strategy, nx, bx):
    lay = collio.Layout.block_cyclic(comm, nx, bx, dtype=np.float32)
    idx = held_block_cyclic(nx, bx, comm.size, comm.rank)
    assert lay.local_count == len(idx) and lay.global_count == nx
    assert lay.buffer_bytes == 4 * len(idx)
    roundtrip(comm, path, lay, idx, nx, np.float32, strategy)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).str)
def test_dtypes(comm, path, dtype):
    lay = collio.Layout.block_cyclic(comm, 999, 5, dtype=dtype)
    assert lay.esize == np.dtype(dtype).itemsize
    idx = held_block_cyclic(999, 5, comm.size, comm.rank)
    roundtrip(comm, path, lay, idx, 999, dtype, "multiphase")


DARRAYS = [
    # gsizes, distribs, dargs, order
    ((37,), ("block",), (0,), "C"),
    ((11, 13), ("block", "cyclic"), (0, 2), "C"),
    ((9, 5, 7), ("cyclic", "none", "block"), (1, 0, 0), "F"),
    ((6, 4, 3, 5), ("none", "block", "none", "cyclic"), (0, 0, 0, 3), "F"),
]


@pytest.mark.parametrize("strategy", CANONICAL)
@pytest.mark.parametrize("case", range(len(DARRAYS)))
def test_darray(comm, path, strategy, case):
    gsizes, distribs, dargs, order = DARRAYS[case]
    P = comm.size
    # distribute over the dimensions that are not "none"
    nd = sum(d != "none" for d in distribs)
    pd = iter(dims_create(P, nd))
    psizes = [next(pd) if d != "none" else 1 for d in distribs]
    lay = collio.Layout.darray(comm, gsizes, psizes, distribs, dargs, order=order,
                               dtype=np.float64)
    idx = held_darray(gsizes, psizes, distribs, dargs, order, comm.rank)
    agree(comm, np.array_equal(lay.global_indices(), idx), "darray indices")
    n = int(np.prod(gsizes))
    roundtrip(comm, path, lay, idx, n, np.float64, strategy)


@pytest.mark.parametrize("strategy", CANONICAL)
def test_index_list(comm, path, strategy):
    n = 2003
    parts, _ = partition(n, comm.size)
    idx = parts[comm.rank]
    lay = collio.Layout.index_list(comm, n, idx, dtype=np.int16)
    roundtrip(comm, path, lay, idx, n, np.int16, strategy)


@pytest.mark.parametrize("policy", collio.replicas_names())
@pytest.mark.parametrize("strategy", CANONICAL)
def test_index_list_replicated(comm, path, strategy, policy):
    n = 1500
    idx, own = replicated(n, comm.size, comm.rank)
    lay = collio.Layout.index_list_replicated(comm, n, idx, own,
                                              dtype=np.dtype(("<f8", 3)))
    st = roundtrip(comm, path, lay, idx, n, np.dtype(("<f8", 3)), strategy,
                   replicas={"policy": policy, "seed": 5})
    assert st["replicas"]["held"] == len(idx)
    assert st["replicas"]["policy"] in collio.replicas_names()


@pytest.mark.parametrize("strategy", CANONICAL)
def test_memory_global(comm, path, strategy):
    n, bx = 1000, 3
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=np.float32).set_memory_global()
    assert lay.buffer_bytes == 4 * n
    idx = held_block_cyclic(n, bx, comm.size, comm.rank)
    full = np.full(n, -1.0, np.float32)
    full[idx] = expected(idx, np.float32)
    with collio.Plan(comm, lay, strategy) as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, full)
        check_file(comm, path, n, np.float32)
        back = np.full(n, -1.0, np.float32)
        with collio.File(comm, path, "r") as f:
            plan.read(f, back)
    agree(comm, np.array_equal(back, full), "global memory: own entries filled, others kept")


@pytest.mark.parametrize("strategy", CANONICAL)
def test_memory_datatype(comm, path, strategy):
    n, bx = 777, 4
    idx = held_block_cyclic(n, bx, comm.size, comm.rank)
    k = len(idx)
    # this rank's elements at every other float64 of the buffer
    vec = MPI.DOUBLE.Create_vector(max(k, 1), 1, 2).Commit() if k else MPI.DOUBLE.Dup()
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=np.float64)
    lay.set_memory_datatype(vec, 1 if k else 0)
    vec.Free()
    buf = np.full(lay.buffer_bytes // 8, -9.0)
    buf[::2][:k] = expected(idx, np.float64)
    with collio.Plan(comm, lay, strategy) as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, buf)
        check_file(comm, path, n, np.float64)
        back = np.full_like(buf, -9.0)
        with collio.File(comm, path, "r") as f:
            plan.read(f, back)
    agree(comm, np.array_equal(back, buf), "datatype memory: holes kept")


def test_fortran_array_in_place(comm, path):
    """A Fortran-ordered local array is contiguous: written as it lies in
    memory (the F-order layout's buffer order), no copy."""
    gs, ps = (8, 6), [comm.size, 1]
    lay = collio.Layout.darray(comm, gs, ps, ["block", "none"], order="F", dtype=np.float64)
    idx = held_darray(gs, ps, ["block", "none"], [0, 0], "F", comm.rank)
    rows = len(idx) // 6
    local = np.asfortranarray(expected(idx, np.float64).reshape((rows, 6), order="F"))
    assert local.flags.f_contiguous
    with collio.Plan(comm, lay, "two_phase") as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, local)
        check_file(comm, path, 48, np.float64)
        back = np.zeros((rows, 6), order="F")
        with collio.File(comm, path, "r") as f:
            plan.read(f, back)
    agree(comm, np.array_equal(back, local))


# -------------------------------------------------------------- options

OPTIONS = [
    ("serial", dict(serial={"chunk_bytes": 100})),
    ("independent", dict(independent={"max_iov": 2})),
    ("multiphase", dict(multiphase={"exchange": "hypercube"})),
    ("multiphase", dict(multiphase={"exchange": "direct", "shared_memory": 0})),
    ("multiphase", dict(multiphase={"exchange": "direct", "shared_memory": 1})),
    ("multiphase", dict(multiphase={"phases": 1})),
    ("multiphase", dict(keep_buffers=0, multiphase={"write_rounds": 2})),
    ("multiphase", dict(keep_buffers=False, destroy_input=True)),
    ("multiphase", dict(plan={"keep_buffers": True}, multiphase={"exchange": 2})),
    ("multiphase", dict(hints="multiphase.exchange=node-direct, plan.keep_buffers=off")),
    ("multiphase", dict(multiphase={"write_rounds": -1})),
    ("multiphase", dict(destroy_input=1)),
    ("multiphase", dict(options={"multiphase": {"exchange": "node-direct"}})),
    ("multiphase", dict(options={"multiphase": {"exchange": "node-hypercube"}})),
    ("subgroup", dict(subgroup={"group": 2, "inner": "multiphase"})),
    ("subgroup", dict(subgroup={"group": 1, "inner": "independent"})),
    ("subgroup", dict(subgroup={"group": 0})),
    ("subgroup", dict(subgroup={"group": 3, "inner": "serial"}, serial={"chunk_bytes": 64})),
]


@pytest.mark.parametrize("case", range(len(OPTIONS)))
def test_options(comm, path, case):
    strategy, opts = OPTIONS[case]
    if "options" in opts:
        opts = dict(opts["options"])
    n, bx = 4099, 8
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=np.float32)
    idx = held_block_cyclic(n, bx, comm.size, comm.rank)
    st = roundtrip(comm, path, lay, idx, n, np.float32, strategy, **opts)
    if strategy == "multiphase":
        assert st["multiphase"]["exchange"] in collio.exchange_names()
        # the exchange asked for (by name, by index or in a hints string) ran
        asked = opts.get("multiphase", {}).get("exchange")
        if isinstance(asked, int):
            asked = collio.exchange_names()[asked]
        if "multiphase.exchange=" in opts.get("hints", ""):
            asked = opts["hints"].split("multiphase.exchange=")[1].split(",")[0].strip()
        if asked not in (None, "auto"):
            assert st["multiphase"]["exchange"] == asked
    if strategy == "subgroup":
        assert st["subgroup"]["ngroups"] >= 1


def test_options_dict_and_keywords(comm, path):
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    idx = held_block_cyclic(100, 3, comm.size, comm.rank)
    roundtrip(comm, path, lay, idx, 100, np.float32, "multiphase",
              **{"multiphase": {"phases": 0, "exchange": "auto"}, "destroy_input": False})


def test_plan_reused_three_times(comm, path, shared_dir):
    """One plan: three writes of different data (three files), three reads."""
    n, bx = 3001, 7
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=np.float64)
    idx = held_block_cyclic(n, bx, comm.size, comm.rank)
    with collio.Plan(comm, lay, "multiphase") as plan:
        for k in range(3):
            p = os.path.join(shared_dir, "reuse%d.bin" % k)
            data = expected(idx + k * n, np.float64)  # different data per round
            with collio.File(comm, p, "w") as f:
                plan.write(f, data)
            ok = True
            if comm.rank == 0:
                ok = np.array_equal(np.fromfile(p, np.float64),
                                    expected(np.arange(n) + k * n, np.float64))
            agree(comm, comm.bcast(ok), "write %d" % k)
        for k in range(3):
            p = os.path.join(shared_dir, "reuse%d.bin" % k)
            with collio.File(comm, p, "r") as f:
                back = plan.read(f)  # a new array of the layout's dtype
            assert back.dtype == np.float64
            agree(comm, np.array_equal(back, expected(idx + k * n, np.float64)),
                  "read %d" % k)
        assert plan.stats()["file_bytes"] >= 0


def test_base_offset_and_inplace(comm, path):
    n = 500
    lay = collio.Layout.block_cyclic(comm, n, 9, dtype=np.float32)
    idx = held_block_cyclic(n, 9, comm.size, comm.rank)
    with collio.Plan(comm, lay, "independent") as plan:
        with collio.File(comm, path, "inplace", base_offset=64) as f:
            plan.write(f, expected(idx, np.float32))
        check_file(comm, path, n, np.float32, offset=64)
        with collio.File(comm, path, "r", base_offset=64, backend="mpiio") as f:
            back = plan.read(f)
    agree(comm, np.array_equal(back, expected(idx, np.float32)))


@pytest.mark.parametrize("strategy", CANONICAL)
def test_variables_at_offsets(comm, path, strategy):
    """Three variables of one plan in one file at byte offsets (write's and
    read's ``offset``, collio_write_at / collio_read_at): variable k holds
    element i's value of index i + k * n, at k * n * 8 bytes; the file is
    the formula over 3n elements, each variable reads back its own."""
    n = 777
    lay = collio.Layout.block_cyclic(comm, n, 5, dtype=np.float64)
    idx = held_block_cyclic(n, 5, comm.size, comm.rank)
    with collio.Plan(comm, lay, strategy) as plan:
        with collio.File(comm, path, "w") as f:
            for k in (2, 0, 1):  # any order
                plan.write(f, expected(idx + k * n, np.float64), offset=k * n * 8)
        check_file(comm, path, 3 * n, np.float64)
        with collio.File(comm, path, "r") as f:
            for k in range(3):
                back = plan.read(f, offset=k * n * 8)
                agree(comm, np.array_equal(back, expected(idx + k * n, np.float64)),
                      "variable %d read back" % k)


@pytest.mark.parametrize("start", ["now", "wait"])
@pytest.mark.parametrize("strategy", ["auto", "multiphase", "independent"])
def test_requests(comm, path, strategy, start):
    """Requests (Plan.iwrite / iread, Request.wait / test, collio.waitall):
    three variables at offsets started in any order and completed together
    -- held until the waitall (request.start=wait) or started at once; the
    file is the formula over 3n elements (canonical strategies), each
    variable reads back through iread completed by wait and by test loops.
    Held requests of a canonical strategy run as one execution
    (request.merged)."""
    n = 777
    lay = collio.Layout.block_cyclic(comm, n, 5, dtype=np.float64)
    idx = held_block_cyclic(n, 5, comm.size, comm.rank)
    canonical = strategy in CANONICAL
    with collio.Plan(comm, lay, strategy, request={"start": start}) as plan:
        with collio.File(comm, path, "w") as f:
            reqs = [plan.iwrite(f, expected(idx + k * n, np.float64), offset=k * n * 8)
                    for k in (2, 0, 1)]
            collio.waitall(reqs)
            assert all(r.done for r in reqs)
            if start == "wait" and canonical:
                assert plan.stat("request.merged") == 3
        if canonical:
            check_file(comm, path, 3 * n, np.float64)
        with collio.File(comm, path, "r") as f:
            reqs = [plan.iread(f, offset=k * n * 8) for k in range(3)]
            reqs[0].wait()
            while not reqs[1].test():
                pass
            collio.waitall(reqs[2:])
            for k in range(3):
                agree(comm, np.array_equal(reqs[k].array, expected(idx + k * n,
                                                                    np.float64)),
                      "variable %d read back" % k)


@pytest.mark.parametrize("strategy", ["auto", "multiphase"])
def test_requests_of_two_plans(comm, path, strategy):
    """Held requests of two plans of different layouts (block-cyclic of 777
    elements by 5, of 500 by 3; one strategy and options) on one file,
    waited for together: one execution (request.merged 2 on both plans);
    the file is the formula over both variables, each reads back."""
    sizes, bxs = (777, 500), (5, 3)
    lays = [collio.Layout.block_cyclic(comm, n, bx, dtype=np.float64)
            for n, bx in zip(sizes, bxs)]
    idx = [held_block_cyclic(n, bx, comm.size, comm.rank) for n, bx in zip(sizes, bxs)]
    plans = [collio.Plan(comm, lay, strategy, request={"start": "wait"}) for lay in lays]
    first = (0, sizes[0])  # variable k's first element in the file
    try:
        with collio.File(comm, path, "w") as f:
            reqs = [plans[k].iwrite(f, expected(idx[k] + first[k], np.float64),
                                    offset=first[k] * 8) for k in (1, 0)]
            collio.waitall(reqs)
            for k in range(2):
                assert plans[k].stat("request.merged") == 2
        check_file(comm, path, sum(sizes), np.float64)
        with collio.File(comm, path, "r") as f:
            reqs = [plans[k].iread(f, offset=first[k] * 8) for k in range(2)]
            collio.waitall(reqs)
            for k in range(2):
                agree(comm, np.array_equal(reqs[k].array,
                                           expected(idx[k] + first[k], np.float64)),
                      "variable %d read back" % k)
    finally:
        for plan in plans:
            plan.free()


def test_request_errors(comm, path):
    """A request whose file is closed before it completes: the close raises
    ERR_STATE on every rank and commits nothing (the previous file stays);
    the request's wait raises ERR_STATE. A wrong buffer is raised when the
    request starts, on every rank."""
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    idx = held_block_cyclic(100, 3, comm.size, comm.rank)
    data = expected(idx, np.float32)
    with collio.Plan(comm, lay) as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, data)  # the file to keep
        f = collio.File(comm, path, "w")
        r = plan.iwrite(f, data * 2)
        with pytest.raises(collio.Error) as e:
            f.close()
        assert e.value.code == collio.ERR_STATE
        with pytest.raises(collio.Error) as e:
            r.wait()
        assert e.value.code == collio.ERR_STATE
        check_file(comm, path, 100, np.float32)
        with collio.File(comm, path, "r") as f:
            with pytest.raises(collio.ArgumentError):
                plan.iread(f, np.zeros(3, dtype=np.float32))


def test_offset_errors(comm, path):
    """A negative offset: ArgumentError on every rank, before the library;
    offsets that differ between ranks: the library's ERR_MISMATCH on every
    rank, and nothing committed."""
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    idx = held_block_cyclic(100, 3, comm.size, comm.rank)
    data = expected(idx, np.float32)
    with collio.Plan(comm, lay, "independent") as plan:
        with collio.File(comm, path, "w") as f:
            with pytest.raises(collio.ArgumentError):
                plan.write(f, data, offset=-8)
            with pytest.raises(TypeError):
                plan.write(f, data, offset=1.5)
            plan.write(f, data)  # the file to keep
        if comm.size > 1:
            with pytest.raises(collio.Error):
                with collio.File(comm, path, "w") as f:
                    raises_everywhere(comm, collio.ERR_MISMATCH,
                                      lambda: plan.write(f, data, offset=4 * comm.rank))
        check_file(comm, path, 100, np.float32)  # the failed write committed nothing


def test_extents_layout(comm, path):
    """Sparse extents (collio_layout_extents): rank r holds runs of 3
    elements starting at 10 * (r + P * j), j = 0..4; elements 3..9 of every
    ten are holes, left as the file had them (filled before with 0xEE)."""
    P, r = comm.size, comm.rank
    starts = np.array([10 * (r + P * j) for j in range(5)], dtype=np.int64)
    lens = np.full(5, 3, dtype=np.int64)
    nglobal = 10 * P * 5 - 7  # the last run ends the file
    lay = collio.Layout.extents(comm, starts, lens, dtype=np.int32)
    idx = np.concatenate([np.arange(s, s + 3) for s in starts])
    assert lay.local_count == 15
    if r == 0:
        np.full(nglobal * 4, 0xEE, dtype=np.uint8).tofile(path)
    comm.Barrier()
    with collio.Plan(comm, lay, "multiphase") as plan:
        with collio.File(comm, path, "inplace") as f:
            plan.write(f, expected(idx, np.int32))
        ok = True
        if r == 0:
            raw = np.fromfile(path, dtype=np.uint8).reshape(-1, 4)
            held = np.zeros(nglobal, dtype=bool)
            for s in (10 * k for k in range(P * 5)):
                held[s:s + 3] = True
            want = np.full((nglobal, 4), 0xEE, dtype=np.uint8)
            want[held] = expected(np.nonzero(held)[0], np.int32).view(np.uint8).reshape(-1, 4)
            ok = raw.shape == want.shape and np.array_equal(raw, want)
        agree(comm, comm.bcast(ok, root=0), "the file: runs written, holes kept")
        with collio.File(comm, path, "r") as f:
            back = plan.read(f)
        agree(comm, np.array_equal(back, expected(idx, np.int32)), "extents read back")
    with pytest.raises(ValueError):
        collio.Layout.extents(comm, [0, 1], [1], dtype=np.int32)


def test_predict_and_prepare(comm, path):
    """predict: auto names a candidate of auto.only and positive seconds
    (before a call and after prepare, the same on every rank); another
    strategy: (None, None). prepare runs collectively; a bad op raises."""
    lay = collio.Layout.block_cyclic(comm, 4096, 16, dtype=np.float32)
    with collio.File(comm, path, "w") as f:
        with collio.Plan(comm, lay, "auto") as plan:
            plan.prepare(f, "write")
            cand, secs = plan.predict(f, "write")
            assert cand in collio.option_values("auto.only")[1:] and secs > 0
            agree(comm, comm.allgather((cand, secs)) == [(cand, secs)] * comm.size,
                  "the same prediction on every rank")
            with pytest.raises(ValueError):
                plan.predict(f, "append")
        with collio.Plan(comm, lay, "serial") as plan:
            assert plan.predict(f, "read") == (None, None)
            plan.prepare(f, "read")
            f.abort()


# ------------------------------------------------------------- bad input

def raises_everywhere(comm, code, fn):
    """fn() raises collio.Error with `code` on this rank (every rank runs it)."""
    with pytest.raises(collio.Error) as ei:
        fn()
    e = ei.value
    assert isinstance(e, RuntimeError)
    assert e.code == code, "%s, expected %s" % (e, collio.ERROR_NAMES[code])
    assert e.text == collio.strerror(code) and e.name == collio.ERROR_NAMES[code]
    return e


@pytest.fixture
def vec(comm):
    lay = collio.Layout.block_cyclic(comm, 1000, 4, dtype=np.float32)
    idx = held_block_cyclic(1000, 4, comm.size, comm.rank)
    return lay, idx


def test_bad_dtype_size(comm, path, vec):
    lay, idx = vec
    with collio.Plan(comm, lay, "multiphase") as plan, collio.File(comm, path, "w") as f:
        # float64 array of the right byte length (on every rank)
        wrong = np.zeros(len(idx) // 2, np.float64) if len(idx) % 2 == 0 else \
            np.zeros(len(idx), np.float64)
        e = raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.write(f, wrong))
        # on the last rank only: still every rank
        bad = np.zeros(2 * len(idx), np.int16) if comm.rank == comm.size - 1 else \
            np.zeros(len(idx), np.float32)
        e = raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.write(f, bad))
        if comm.rank == comm.size - 1:
            assert "item size" in e.detail
        f.abort()


def test_bad_length(comm, path, vec):
    lay, idx = vec
    with collio.Plan(comm, lay, "two_phase") as plan, collio.File(comm, path, "w") as f:
        short = expected(idx, np.float32)[:-1] if comm.rank == 0 and len(idx) else \
            expected(idx, np.float32)
        if len(held_block_cyclic(1000, 4, comm.size, 0)) == 0:
            pytest.skip("rank 0 holds nothing")
        raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.write(f, short))
        long_ = np.zeros(len(idx) + 1, np.float32)
        raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.read(f, long_))
        f.abort()


def test_bad_buffers(comm, path, vec):
    lay, idx = vec
    with collio.Plan(comm, lay, "multiphase") as plan, collio.File(comm, path, "w") as f:
        # not contiguous (on rank 0 only)
        big = np.zeros(2 * len(idx) + 2, np.float32)
        arr = big[::2][:len(idx)] if comm.rank == 0 and len(idx) > 1 else big[:len(idx)]
        if comm.bcast(len(idx) > 1 if comm.rank == 0 else None):
            raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.write(f, arr))
        plan.write(f, expected(idx, np.float32))
        f.close()
    with collio.Plan(comm, lay, "multiphase") as plan, collio.File(comm, path, "r") as f:
        ro = np.zeros(len(idx), np.float32)
        ro.flags.writeable = False
        e = raises_everywhere(comm, collio.ERR_BUFSIZE, lambda: plan.read(f, ro))
        assert "writable" in e.detail
        # bytes objects are read-only too; memoryviews of arrays work
        back = np.zeros(len(idx), np.float32)
        plan.read(f, memoryview(back))
    agree(comm, np.array_equal(back, expected(idx, np.float32)))


def test_bad_strategy_and_options(comm, vec):
    lay, _ = vec
    raises_everywhere(comm, collio.ERR_STRATEGY, lambda: collio.Plan(comm, lay, "nope"))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Plan(comm, lay, "multiphase",
                                          multiphase={"phases": -1}))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Plan(comm, lay, "multiphase",
                                          multiphase={"exchange": "bogus"}))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Plan(comm, lay, "serial", serial={"chunk_bytes": 0}))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Plan(comm, lay, "multiphase",
                                          replicas={"policy": "nobody"}))
    raises_everywhere(comm, collio.ERR_STRATEGY,
                      lambda: collio.Plan(comm, lay, "subgroup",
                                          subgroup={"inner": "nope"}))
    # an unknown key: checked before collio is called, raised on every rank
    # (a TypeError too, as Python raises for unknown keywords)
    e = raises_everywhere(comm, collio.ERR_ARG,
                          lambda: collio.Plan(comm, lay, "multiphase",
                                              multiphase={"phase": 1}))
    assert isinstance(e, collio.ArgumentTypeError) and isinstance(e, TypeError)
    assert e.detail.startswith("rank 0: TypeError: unknown plan option multiphase['phase']")


def test_mismatched_options(comm, vec):
    lay, _ = vec
    if comm.size == 1:
        pytest.skip("needs 2 ranks")
    raises_everywhere(comm, collio.ERR_MISMATCH,
                      lambda: collio.Plan(comm, lay, "serial",
                                          serial={"chunk_bytes": 1000 + comm.rank}))
    # an option of another strategy, also compared
    raises_everywhere(comm, collio.ERR_MISMATCH,
                      lambda: collio.Plan(comm, lay, "independent",
                                          multiphase={"phases": comm.rank % 2}))
    raises_everywhere(comm, collio.ERR_MISMATCH,
                      lambda: collio.Plan(comm, lay,
                                          "independent" if comm.rank else "multiphase"))


def test_bad_layouts(comm):
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Layout.block_cyclic(comm, 10, 0, dtype=np.float32))
    if comm.size > 1:
        raises_everywhere(comm, collio.ERR_MISMATCH,
                          lambda: collio.Layout.block_cyclic(comm, 10 + comm.rank, 2,
                                                             dtype=np.float32))
    raises_everywhere(comm, collio.ERR_RANGE,
                      lambda: collio.Layout.index_list(comm, 10, [comm.rank, 10],
                                                       dtype=np.float32))
    # every rank holds element 0
    if comm.size > 1:
        raises_everywhere(comm, collio.ERR_OVERLAP,
                          lambda: collio.Layout.index_list(comm, 5, [0],
                                                           dtype=np.float32))
    raises_everywhere(comm, collio.ERR_COVERAGE,
                      lambda: collio.Layout.index_list(comm, 100, [comm.rank],
                                                       dtype=np.float32))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.Layout.darray(comm, [4, 4], [comm.size + 1, 1],
                                                   dtype=np.float32))
    # neither dtype nor esize (on the last rank only): every rank raises
    last = comm.rank == comm.size - 1
    e = raises_everywhere(comm, collio.ERR_ARG,
                          lambda: collio.Layout.block_cyclic(
                              comm, 10, 2, dtype=None if last else np.float32))
    assert isinstance(e, TypeError) and e.rank == comm.size - 1
    assert "give dtype=" in e.detail


def test_files(comm, path, shared_dir, vec):
    lay, idx = vec
    missing = os.path.join(shared_dir, "no", "such.bin")
    raises_everywhere(comm, collio.ERR_OPEN, lambda: collio.File(comm, missing, "r"))
    raises_everywhere(comm, collio.ERR_ARG, lambda: collio.File(comm, path, "bogus-mode"))
    if comm.size > 1:
        raises_everywhere(comm, collio.ERR_MISMATCH,
                          lambda: collio.File(comm, path + str(comm.rank), "w"))
    with collio.Plan(comm, lay, "multiphase") as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, expected(idx, np.float32))
        # abort keeps the previous file
        f = collio.File(comm, path, "w")
        plan.write(f, np.zeros(len(idx), np.float32))
        f.abort()
        assert f.closed
        f.abort()  # a no-op once closed
        check_file(comm, path, 1000, np.float32)
        # an exception in a with block aborts too
        with pytest.raises(KeyError):
            with collio.File(comm, path, "w") as f:
                plan.write(f, np.zeros(len(idx), np.float32))
                raise KeyError("x")
        check_file(comm, path, 1000, np.float32)
        # read-only file: writes are ERR_STATE; a short file: ERR_EOF
        with collio.File(comm, path, "r") as f:
            raises_everywhere(comm, collio.ERR_STATE,
                              lambda: plan.write(f, expected(idx, np.float32)))
        big = collio.Layout.block_cyclic(comm, 2000, 4, dtype=np.float32)
        with collio.Plan(comm, big, "multiphase") as p2, collio.File(comm, path, "r") as f:
            raises_everywhere(comm, collio.ERR_EOF, lambda: p2.read(f))
    with pytest.raises(ValueError):
        plan.stats()  # freed


def test_free_on_gc(comm, path, vec):
    """Dropped at the same point on every rank: freed by __del__."""
    lay, idx = vec
    plan = collio.Plan(comm, lay, "multiphase")
    f = collio.File(comm, path, "w")
    plan.write(f, expected(idx, np.float32))
    f.close()
    del plan, f  # collective frees, at the same point everywhere
    lay2 = collio.Layout.block_cyclic(comm, 10, 1, dtype=np.uint8)
    del lay2  # local
    comm.Barrier()


def test_module(comm):
    names = collio.strategy_names()
    assert "multiphase" in names and "block" in names
    assert "block" not in collio.strategy_names(canonical_only=True)
    assert collio.exchange_names()[0] == "auto"
    assert collio.replicas_names()[2] == "idg"
    assert collio.ERR_BUFSIZE == 9 and collio.strerror(collio.ERR_BUFSIZE)
    e = collio.Error(collio.ERR_IO, "t", "d")
    assert isinstance(e, RuntimeError) and e.name == "ERR_IO"


def test_in_place_no_copy(comm, path, vec):
    """read fills the caller's memory itself: a view into a larger array
    (contiguous slice) is filled in place, its surroundings untouched."""
    lay, idx = vec
    with collio.Plan(comm, lay, "multiphase") as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, expected(idx, np.float32))
        big = np.full(len(idx) + 10, -1.0, np.float32)
        view = big[5:5 + len(idx)]
        assert not view.flags.owndata
        with collio.File(comm, path, "r") as f:
            out = plan.read(f, view)
    assert out is view
    agree(comm, np.array_equal(big[5:5 + len(idx)], expected(idx, np.float32)) and
          (big[:5] == -1).all() and (big[5 + len(idx):] == -1).all())
