"""A write + read round trip with an installed collio (run by
check-pip-install under scripts/mpirun 2): a block-cyclic float64 vector
and a 2-d Fortran-order darray, each file compared with numpy on rank 0;
exit code 1 on any difference."""
import os
import sys

import numpy as np
from mpi4py import MPI

import collio

comm = MPI.COMM_WORLD
out = sys.argv[1]
ok = True
if comm.rank == 0:
    here = os.path.dirname(collio.__file__)
    print("[roundtrip] collio %s from %s; mpi4py %s on %s; numpy %s" % (
        collio.__version__, here, sys.modules["mpi4py"].__version__,
        MPI.Get_library_version().splitlines()[0], np.__version__))
    ok = here.startswith(sys.prefix)  # the installed package, not the sources
    if not ok:
        print("[roundtrip] collio is not imported from the environment %s" % sys.prefix)

# a vector: element i = 0.5 * i - 3, block-cyclic blocks of 7
n = 10007
lay = collio.Layout.block_cyclic(comm, n, 7, dtype=np.float64)
mine = lay.global_indices() * 0.5 - 3
with collio.Plan(comm, lay, "multiphase") as plan:
    with collio.File(comm, out + ".vec", "w") as f:
        plan.write(f, mine)
    with collio.File(comm, out + ".vec", "r") as f:
        back = plan.read(f)
ok = ok and np.array_equal(back, mine)

# a Fortran-order 2-d darray, blocks of rows, local blocks F-ordered
gs = (6 * comm.size, 5)
A = np.arange(gs[0] * gs[1], dtype=np.int32).reshape(gs, order="F") * 3 + 1
rows = slice(6 * comm.rank, 6 * comm.rank + 6)
dl = collio.Layout.darray(comm, gs, [comm.size, 1], order="F", dtype=np.int32)
with collio.Plan(comm, dl, "two_phase") as plan:
    with collio.File(comm, out + ".arr", "w") as f:
        plan.write(f, np.asfortranarray(A[rows]))
    back2 = np.zeros((6, 5), np.int32, order="F")
    with collio.File(comm, out + ".arr", "r") as f:
        plan.read(f, back2)
ok = ok and np.array_equal(back2, A[rows])

if comm.rank == 0:
    vec = np.fromfile(out + ".vec", dtype=np.float64)
    arr = np.fromfile(out + ".arr", dtype=np.int32)
    ok = ok and np.array_equal(vec, np.arange(n) * 0.5 - 3) and \
        np.array_equal(arr, A.ravel(order="F"))
ok = comm.allreduce(bool(ok), op=MPI.LAND)
if comm.rank == 0:
    print("[roundtrip] %s" % ("files and read-backs equal numpy's" if ok else "DIFFERENT"))
sys.exit(0 if ok else 1)
