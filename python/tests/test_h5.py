"""collio.describe_h5: HDF5 descriptions of raw files collio wrote, read
back with h5py on rank 0 and compared with the numpy expectation (the
verdict broadcast): a vector, a 3-d Fortran-order array and a mesh-like
field (nodes x load) of a replicated layout, at the test's ranks."""
import os

import numpy as np
import pytest

import collio
from test_collio import (agree, expected, held_block_cyclic, held_darray, replicated,
                         raises_everywhere)

h5py = pytest.importorskip("h5py")
pytestmark = pytest.mark.skipif(not collio.have_h5(),
                                reason="libcollio built without HDF5 (libhdf5-dev)")


def write(comm, layout, data, raw, base_offset=0, strategy="multiphase"):
    with collio.Plan(comm, layout, strategy) as plan, \
            collio.File(comm, raw, "w", base_offset=base_offset) as f:
        plan.write(f, data)


def h5_equal(comm, h5, want, dataset="data"):
    ok, msg = True, ""
    if comm.rank == 0:
        with h5py.File(h5, "r") as f:
            got = f[dataset][...]
        ok = got.shape == want.shape and got.dtype == want.dtype and \
            np.array_equal(got, want)
        if not ok:
            msg = "h5: %s %s, expected %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
    ok, msg = comm.bcast((ok, msg))
    assert ok, msg


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint16])
def test_h5_vector(comm, shared_dir, dtype):
    n, bx = 1001, 13
    raw = os.path.join(shared_dir, "vec.raw")
    h5 = raw + ".h5"
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=dtype)
    idx = held_block_cyclic(n, bx, comm.size, comm.rank)
    write(comm, lay, expected(idx, dtype), raw, base_offset=96)
    collio.describe_h5(comm, h5, raw, dtype, (n,), base_offset=96, dataset="v")
    h5_equal(comm, h5, expected(np.arange(n), dtype), dataset="v")


def test_h5_fortran_3d(comm, shared_dir):
    gs = (5, 4, 6)  # A[i, j, k], i fastest in the file
    distribs, dargs = ["none", "block", "cyclic"], [0, 0, 1]
    import mpi4py.MPI as MPI
    p1, p2 = MPI.Compute_dims(comm.size, 2)
    ps = [1, p1, p2]
    raw = os.path.join(shared_dir, "a3.raw")
    h5 = raw + ".h5"
    lay = collio.Layout.darray(comm, gs, ps, distribs, dargs, order="F", dtype=np.float64)
    idx = held_darray(gs, ps, distribs, dargs, "F", comm.rank)
    write(comm, lay, expected(idx, np.float64), raw, strategy="two_phase")
    collio.describe_h5(comm, h5, raw, np.float64, gs, order="F")
    A = expected(np.arange(int(np.prod(gs))), np.float64).reshape(gs, order="F")
    h5_equal(comm, h5, A.T)  # HDF5 shapes are C order: the transpose


@pytest.mark.parametrize("as_subarray", [True, False])
def test_h5_mesh_field(comm, shared_dir, as_subarray):
    nodes, load = 700, 3
    dt = np.dtype(("<f8", load))
    raw = os.path.join(shared_dir, "mesh.raw")
    h5 = raw + ".h5"
    idx, own = replicated(nodes, comm.size, comm.rank)
    lay = collio.Layout.index_list_replicated(comm, nodes, idx, own, dtype=dt)
    with collio.Plan(comm, lay, "multiphase", replicas={"policy": "idg"}) as plan, \
            collio.File(comm, raw, "w") as f:
        plan.write(f, expected(idx, dt))
    if as_subarray:
        collio.describe_h5(comm, h5, raw, dt, (nodes,))
    else:
        collio.describe_h5(comm, h5, raw, np.float64, (nodes, load))
    h5_equal(comm, h5, expected(np.arange(nodes), dt).reshape(nodes, load))


def test_h5_errors(comm, shared_dir):
    raw = os.path.join(shared_dir, "short.raw")
    lay = collio.Layout.block_cyclic(comm, 10, 1, dtype=np.float32)
    write(comm, lay, expected(held_block_cyclic(10, 1, comm.size, comm.rank), np.float32),
          raw)
    raises_everywhere(comm, collio.ERR_EOF,
                      lambda: collio.describe_h5(comm, raw + ".h5", raw, np.float32, (11,)))
    raises_everywhere(comm, collio.ERR_OPEN,
                      lambda: collio.describe_h5(comm, raw + ".h5", raw + ".missing",
                                                 np.float32, (10,)))
    raises_everywhere(comm, collio.ERR_ARG,
                      lambda: collio.describe_h5(comm, raw + ".h5", raw, np.complex64, (5,)))
    if comm.size > 1:
        raises_everywhere(comm, collio.ERR_MISMATCH,
                          lambda: collio.describe_h5(comm, raw + ".h5", raw, np.float32,
                                                     (10 - comm.rank % 2,)))
    agree(comm, True)
