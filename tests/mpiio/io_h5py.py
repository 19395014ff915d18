#!/usr/bin/python3
"""tests/mpiio/io_h5py.py -- h5py with MPI (Debian's python3-h5py-mpi, the
mpio driver) as a Python application writes a shared HDF5 file: datasets
written collectively with hyperslab selections, read back collectively with
the same selections and compared with expected values computed here; then
every rank reads every dataset whole and checks every element.

usage: io_h5py.py FILE [--nx N] [--bx B] [--dims2 A,B] [--chunked]

Datasets, created in one order and written in another (so every write has
other datasets' data and HDF5 metadata between and around its pieces):
  bc1d   1-D float32 of nx, block-cyclic with block bx: one strided
         hyperslab (h5py's low-level API: stride P*bx, block bx) OR-ed with
         the partial last block, written with a collective transfer list
  sub2d  2-D float32 (dims2), a block of an MPI_Dims_create grid per rank,
         written through h5py's high-level API (dset.collective, slicing)
  step   1-D int32 of nx, every P-th element from rank r (a slice with a
         step: h5py's own hyperslab with stride P)
--chunked: chunked datasets (a third of each dimension), else contiguous.

Rank 0 prints where MPI_File_open resolves (tests/mpiio/compare.sh checks
it, as for the C programs). Exits 1 when anything read differs.
"""
import ctypes
import os
import sys

os.environ.setdefault("H5PY_ALWAYS_USE_MPI", "1")  # Debian: pick h5py's MPI build

import numpy as np
from mpi4py import MPI
import h5py  # noqa: E402 (after the environment variable above)


def value(var, g):
    """Exact in float32 and never 0 (an unwritten hole reads as 0)."""
    g = np.asarray(g, dtype=np.uint64)
    h = (g * np.uint64(2654435761) + np.uint64(97 * (var + 1))) % np.uint64(1 << 23)
    return (h + np.uint64(1)).astype(np.float32)


def report_interposer(rank):
    if rank != 0:
        return

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    libc = ctypes.CDLL(None)
    for name in ("MPI_File_open", "MPI_File_write_all"):
        where = "?"
        try:
            addr = ctypes.cast(getattr(libc, name), ctypes.c_void_p)
            info = DlInfo()
            if libc.dladdr(addr, ctypes.byref(info)) and info.dli_fname:
                where = info.dli_fname.decode()
        except AttributeError:
            pass
        print(f"io_h5py: {name} from {where}", flush=True)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, opts = args[0], args[1:]
    nx, bx, dims2, chunked = 100003, 7, (300, 211), False
    i = 0
    while i < len(opts):
        o = opts[i]
        if o == "--nx":
            nx = int(opts[i + 1]); i += 2
        elif o == "--bx":
            bx = int(opts[i + 1]); i += 2
        elif o == "--dims2":
            dims2 = tuple(int(x) for x in opts[i + 1].split(",")); i += 2
        elif o == "--chunked":
            chunked = True; i += 1
        else:
            print(f"io_h5py: unknown option {o}", file=sys.stderr)
            return 2

    comm = MPI.COMM_WORLD
    P, r = comm.size, comm.rank
    report_interposer(r)
    if not h5py.get_config().mpi:
        print("io_h5py: this h5py is not built with MPI (apt-get install python3-h5py-mpi)",
              file=sys.stderr)
        return 1

    def chunks(shape):
        return tuple(max(1, s // 3) for s in shape) if chunked else None

    # ---- this rank's pieces
    # bc1d: block-cyclic, block bx
    nfull = nx // bx                      # whole blocks
    mine_full = len(range(r, nfull, P))   # whole blocks of this rank
    blocks = [np.arange(b * bx, b * bx + bx) for b in range(r, nfull, P)]
    if nfull % P == r and nx % bx:        # the partial last block
        blocks.append(np.arange(nfull * bx, nx))
    g_bc = np.concatenate(blocks).astype(np.int64) if blocks else np.zeros(0, np.int64)
    # sub2d: a block of the process grid
    pdims = MPI.Compute_dims(P, 2)
    pr, pc = r // pdims[1], r % pdims[1]
    def span(n, parts, k):
        return k * n // parts, (k + 1) * n // parts
    r0, r1 = span(dims2[0], pdims[0], pr)
    c0, c1 = span(dims2[1], pdims[1], pc)
    rows, cols = np.meshgrid(np.arange(r0, r1), np.arange(c0, c1), indexing="ij")
    want2 = value(1, rows * dims2[1] + cols)
    # step: elements r, r + P, ...
    g_step = np.arange(r, nx, P, dtype=np.int64)
    want_step = (value(2, g_step) % 65536).astype(np.int32) - 7

    dxpl = h5py.h5p.create(h5py.h5p.DATASET_XFER)
    dxpl.set_dxpl_mpio(h5py.h5fd.MPIO_COLLECTIVE)

    def bc1d_spaces(d):
        fs = d.id.get_space()
        fs.select_none()
        if mine_full:
            fs.select_hyperslab((r * bx,), (mine_full,), (P * bx,), (bx,), op=h5py.h5s.SELECT_OR)
        if nfull % P == r and nx % bx:
            fs.select_hyperslab((nfull * bx,), (nx - nfull * bx,), op=h5py.h5s.SELECT_OR)
        ms = h5py.h5s.create_simple((max(len(g_bc), 1),))
        if not len(g_bc):
            ms.select_none()
        return ms, fs

    # ---- create (one order), write (another), close
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        d_step = f.create_dataset("step", (nx,), dtype="i4", chunks=chunks((nx,)))
        d_2 = f.create_dataset("sub2d", dims2, dtype="f4", chunks=chunks(dims2))
        d_bc = f.create_dataset("bc1d", (nx,), dtype="f4", chunks=chunks((nx,)))
        f.attrs["ranks_do_not_matter"] = np.int32(1)
        with d_2.collective:
            d_2[r0:r1, c0:c1] = want2
        ms, fs = bc1d_spaces(d_bc)
        buf = value(0, g_bc) if len(g_bc) else np.zeros(1, dtype=np.float32)
        d_bc.id.write(ms, fs, buf, dxpl=dxpl)
        with d_step.collective:
            d_step[r:nx:P] = want_step

    # ---- read back with the same selections, collectively
    bad = 0
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        d_bc, d_2, d_step = f["bc1d"], f["sub2d"], f["step"]
        ms, fs = bc1d_spaces(d_bc)
        got = np.zeros(max(len(g_bc), 1), dtype=np.float32)
        d_bc.id.read(ms, fs, got, dxpl=dxpl)
        bad += int(np.count_nonzero(got[:len(g_bc)] != value(0, g_bc)))
        with d_2.collective:
            bad += int(np.count_nonzero(d_2[r0:r1, c0:c1] != want2))
        with d_step.collective:
            bad += int(np.count_nonzero(d_step[r:nx:P] != want_step))
        # every rank reads every dataset whole
        g = np.arange(nx, dtype=np.int64)
        bad += int(np.count_nonzero(d_bc[...] != value(0, g)))
        rr, cc = np.meshgrid(np.arange(dims2[0]), np.arange(dims2[1]), indexing="ij")
        bad += int(np.count_nonzero(d_2[...] != value(1, rr * dims2[1] + cc)))
        step_all = (value(2, g) % 65536).astype(np.int32) - 7
        bad += int(np.count_nonzero(d_step[...] != step_all))
    total = comm.allreduce(bad, op=MPI.SUM)
    if r == 0:
        print(f"io_h5py: {P} ranks, nx {nx}, bx {bx}, dims2 {dims2}, "
              f"{'chunked' if chunked else 'contiguous'}: {total} elements differ",
              flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
