"""collio -- collective I/O of distributed numpy arrays into one shared file.

Python bindings of libcollio (include/collio.h is the reference; docs/python.md
the Python API). Data path::

    Layout   what this rank holds           Layout.block_cyclic / darray /
                                            index_list / index_list_replicated
      -> Plan    how to move it (once)      Plan(comm, layout, "multiphase", ...)
        -> write / read, any number of times, into a File (File(comm, path, "w"))

Communicators are mpi4py communicators; buffers are numpy arrays (or any
object with the buffer protocol) used in place, never copied. Every
collective call returns the same result on every rank: when it fails on one
rank it raises :class:`Error` (with collio's code and text) on every rank.

Collective frees. ``Plan.free`` and ``File.close`` / ``File.abort`` are
collective (MPI communicator and window frees, the atomic rename): call them
-- or use ``with`` blocks -- at the same point on every rank. Objects that
are garbage-collected while still open are freed (plans) or aborted (files)
from ``__del__``; that is collective too and only safe where every rank
drops its last reference at the same point of the program (plain reference
counting in SPMD code does; reference cycles, exceptions kept alive with
their tracebacks, or ``del`` on some ranks only do not, and may hang). After
MPI is finalized nothing is freed (the memory is left to the process's end).
Layouts are freed locally and are always safe to drop.
"""

import warnings as _warnings

import numpy as _np
from mpi4py import MPI as _MPI

from . import _collio

__all__ = [
    "Error", "Layout", "File", "Plan", "strategies", "strategy_names",
    "exchange_names", "replicas_names", "strerror", "describe_h5", "have_h5",
    "DIST_NONE", "DIST_BLOCK", "DIST_CYCLIC", "DARG_DEFAULT", "MAX_DIMS",
]

# ------------------------------------------------------------------ errors

#: error codes (collio_error): OK, ERR_ARG, ..., ERR_STATE
ERROR_NAMES = [
    "OK", "ERR_ARG", "ERR_NOMEM", "ERR_RANGE", "ERR_OVERLAP", "ERR_COVERAGE",
    "ERR_OVERFLOW", "ERR_MISMATCH", "ERR_STRATEGY", "ERR_BUFSIZE", "ERR_OPEN",
    "ERR_IO", "ERR_EOF", "ERR_MPI", "ERR_UNSUPPORTED", "ERR_STATE",
]
for _i, _n in enumerate(ERROR_NAMES):
    assert getattr(_collio, _n) == _i
    globals()[_n] = _i
    __all__.append(_n)


class Error(RuntimeError):
    """A collio call failed.

    Attributes: ``code`` (an ``ERR_*`` constant of this module, collio's
    collio_error), ``name`` (e.g. ``"ERR_BUFSIZE"``), ``text`` (collio's
    text for the code, collio_strerror) and ``detail`` (collio_last_error:
    which rank, index, argument or file; the same on every rank that
    raised, plus what this rank found wrong with its own buffer, if
    anything). A failed collective call raises it on every rank.
    """

    def __init__(self, code, text, detail=""):
        self.code = code
        self.name = ERROR_NAMES[code] if 0 <= code < len(ERROR_NAMES) else str(code)
        self.text = text
        self.detail = detail
        msg = "COLLIO_%s: %s" % (self.name, text)
        if detail:
            msg += " (%s)" % detail
        super().__init__(msg)

    def __reduce__(self):
        return (Error, (self.code, self.text, self.detail))


_collio._set_error_class(Error)

DIST_NONE, DIST_BLOCK, DIST_CYCLIC = 0, 1, 2
DARG_DEFAULT = 0
MAX_DIMS = _collio.MAX_DIMS
__version__ = "%d.%d.%d" % (_collio.VERSION_MAJOR, _collio.VERSION_MINOR,
                            _collio.VERSION_PATCH)


def strerror(code):
    """collio's text for an error code (collio_strerror)."""
    return _collio.strerror(code)


def strategies():
    """The registered strategies: a list of dicts with ``name``, ``summary``
    and ``canonical`` (False only for the "block" reference, which writes a
    non-canonical file)."""
    return [dict(name=n, summary=s, canonical=bool(c)) for n, s, c in _collio.strategies()]


def strategy_names(canonical_only=False):
    """Names of the registered strategies (optionally the canonical ones only)."""
    return [s["name"] for s in strategies() if s["canonical"] or not canonical_only]


def exchange_names():
    """multiphase transports: "auto", "hypercube", "direct", "node-direct",
    "node-hypercube" (in collio_exchange order)."""
    return _collio.exchange_names()


def replicas_names():
    """Replica policies: "auto", "owner", "idg", "random", "first", "domain"."""
    return _collio.replicas_names()


def _is_finalized():
    try:
        return _MPI.Is_finalized()
    except Exception:  # interpreter shutting down
        return True


def _esize(dtype, esize):
    """The element size and the array item sizes a layout accepts."""
    if esize is not None:
        es = int(esize)
        sizes = (es,) if dtype is None else (es, _np.dtype(dtype).itemsize)
        return es, tuple(sorted(set(sizes), key=sizes.index)), (
            _np.dtype(dtype) if dtype is not None else None)
    if dtype is None:
        raise TypeError("give dtype= (the element type) or esize= (bytes per element)")
    dt = _np.dtype(dtype)
    # A subarray dtype such as ("f8", 3) makes one element of 3 float64:
    # arrays of that base type (shape (..., 3)) are accepted too.
    sizes = (dt.itemsize,) if dt.base.itemsize == dt.itemsize else (
        dt.itemsize, dt.base.itemsize)
    return dt.itemsize, sizes, dt


# ----------------------------------------------------------------- layouts

class Layout:
    """What this rank holds of the global file, and where each element sits
    in its buffer (collio_layout). Make one with a constructor below (all
    collective over ``comm``); it frees itself (locally) when dropped, or
    with ``free()`` / a ``with`` block.

    The element size comes from ``dtype`` (its itemsize; a subarray dtype
    such as ``("f8", 3)`` makes 24-byte elements written from (n, 3) float64
    arrays) or from ``esize`` in bytes. Arrays written or read must have
    that item size (checked on every call).

    Attributes: ``local_count``, ``global_count``, ``esize``,
    ``buffer_bytes`` (what write/read need), ``dtype`` (or None), ``comm``.
    """

    def __init__(self, handle, comm, dtype, sizes):
        self._h = handle
        self.comm = comm
        self.dtype = dtype
        self._sizes = sizes

    # -- constructors
    @classmethod
    def block_cyclic(cls, comm, nx, bx, dtype=None, esize=None):
        """1-D block-cyclic: ``nx`` elements in blocks of ``bx``; rank r holds
        blocks r, r+P, ... packed in increasing index order
        (collio_layout_block_cyclic). Raises Error ERR_ARG, ERR_OVERFLOW,
        ERR_MISMATCH."""
        es, sizes, dt = _esize(dtype, esize)
        return cls(_collio.layout_block_cyclic(comm, int(nx), int(bx), es), comm, dt, sizes)

    @classmethod
    def darray(cls, comm, gsizes, psizes, distribs=None, dargs=None, order="C",
               dtype=None, esize=None):
        """N-d array of global shape ``gsizes`` over a process grid ``psizes``
        (product = comm size, row-major rank order) as MPI_Type_create_darray
        describes it (collio_layout_darray). ``distribs``: per dimension
        DIST_NONE / DIST_BLOCK / DIST_CYCLIC or "none"/"block"/"cyclic"
        (default: block where psizes[d] > 1, else none); ``dargs``: per
        dimension, DARG_DEFAULT (0) by default. ``order``: "C" or "F" (the
        file's and the local buffer's element order). Raises Error ERR_ARG,
        ERR_OVERFLOW, ERR_MISMATCH."""
        es, sizes, dt = _esize(dtype, esize)
        gsizes = [int(g) for g in gsizes]
        psizes = [int(p) for p in psizes]
        if distribs is None:
            distribs = [DIST_BLOCK if p > 1 else DIST_NONE for p in psizes]
        names = {"none": DIST_NONE, "block": DIST_BLOCK, "cyclic": DIST_CYCLIC}
        distribs = [names.get(d, -1) if isinstance(d, str) else int(d) for d in distribs]
        dargs = [DARG_DEFAULT] * len(gsizes) if dargs is None else [int(a) for a in dargs]
        orders = {"C": 0, "c": 0, "F": 1, "f": 1, "fortran": 1, "Fortran": 1}
        if order not in orders:
            raise ValueError("order must be 'C' or 'F'")
        h = _collio.layout_darray(comm, gsizes, distribs, dargs, psizes, orders[order], es)
        return cls(h, comm, dt, sizes)

    @classmethod
    def index_list(cls, comm, nglobal, indices, dtype=None, esize=None):
        """Explicit index list: this rank holds the elements ``indices`` (any
        order; converted to int64) in that buffer order; the lists of all
        ranks partition [0, nglobal) (collio_layout_index_list). Raises
        Error ERR_ARG, ERR_RANGE, ERR_OVERLAP, ERR_COVERAGE, ERR_OVERFLOW,
        ERR_MISMATCH."""
        es, sizes, dt = _esize(dtype, esize)
        idx = _np.ascontiguousarray(indices, dtype=_np.int64).reshape(-1)
        return cls(_collio.layout_index_list(comm, int(nglobal), idx, es), comm, dt, sizes)

    @classmethod
    def index_list_replicated(cls, comm, nglobal, indices, owned, dtype=None, esize=None):
        """Index list with replicas (mesh nodes with their halo): this rank
        holds ``indices`` and owns those where ``owned`` is true; every
        element is held by at least one rank and owned by exactly one of its
        holders (collio_layout_index_list_replicated). The plan's
        ``replicas={"policy": ...}`` picks the writer; a read fills every
        copy. Raises Error like index_list."""
        es, sizes, dt = _esize(dtype, esize)
        idx = _np.ascontiguousarray(indices, dtype=_np.int64).reshape(-1)
        own = _np.ascontiguousarray(owned, dtype=_np.uint8).reshape(-1)
        h = _collio.layout_index_list(comm, int(nglobal), idx, es, own)
        return cls(h, comm, dt, sizes)

    # -- memory kinds (local; before creating plans)
    def set_memory_global(self):
        """The buffer is the full global array (global_count elements) and
        only this rank's entries are read (write) or filled (read), each at
        its global index (collio_layout_set_memory_global). Returns self."""
        _collio.layout_set_memory_global(self._h)
        return self

    def set_memory_datatype(self, datatype, count=1):
        """The buffer is ``count`` items of the mpi4py ``datatype`` whose type
        map lists this rank's elements in layout order
        (collio_layout_set_memory_datatype; the layout keeps a duplicate).
        Returns self."""
        _collio.layout_set_memory_datatype(self._h, datatype, int(count))
        return self

    # -- accessors
    @property
    def local_count(self):
        return _collio.layout_info(self._h)[0]

    @property
    def global_count(self):
        return _collio.layout_info(self._h)[1]

    @property
    def esize(self):
        return _collio.layout_info(self._h)[2]

    @property
    def buffer_bytes(self):
        """Bytes the buffer of write/read must have (collio_layout_buffer_bytes)."""
        return _collio.layout_info(self._h)[3]

    def global_indices(self):
        """Global index of each of this rank's elements, in buffer (layout)
        order, as an int64 array (collio_layout_global_index)."""
        out = _np.empty(self.local_count, dtype=_np.int64)
        _collio.layout_global_indices(self._h, out)
        return out

    def empty(self, dtype=None):
        """A new array for this layout's buffer (buffer_bytes long) of the
        layout's dtype (or ``dtype``)."""
        dt = _np.dtype(dtype if dtype is not None else (self.dtype or _np.uint8))
        n = self.buffer_bytes // dt.itemsize
        if dt.subdtype is not None:
            return _np.empty(n, dtype=dt)
        return _np.empty(n, dtype=dt)

    def free(self):
        """Frees the layout now (local; plans made from it stay valid)."""
        if getattr(self, "_h", None) is not None:
            _collio.layout_free(self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    # The capsule's destructor frees the layout (local, always safe).


# ------------------------------------------------------------------- files

_MODES = {"w": 0, "create": 0, "inplace": 1, "r+": 1, "r": 2, "read": 2}
_BACKENDS = {"posix": 0, "mpiio": 1}


class File:
    """One shared file open on every rank of ``comm`` (collio_file_open,
    collective).

    ``mode``: "w" / "create" -- create or replace atomically (data goes to
    ``.NAME.collio-tmp`` and is renamed into place by ``close()`` only when
    every rank succeeded); "inplace" / "r+" -- write in place (created if
    missing, never truncated); "r" / "read" -- read only. ``backend``:
    "posix" (default) or "mpiio". ``base_offset``: byte offset of element 0.
    ``sync``: fsync before close commits. ``info``: an mpi4py ``MPI.Info``
    of hints for MPI-IO opens.

    ``close()`` commits (collective; raises Error ERR_IO on every rank if a
    write failed anywhere, leaving the previous file intact); ``abort()``
    discards. As a context manager it closes on normal exit and aborts when
    the block raises. Raises Error ERR_ARG, ERR_OPEN, ERR_MISMATCH.
    """

    def __init__(self, comm, path, mode="w", backend="posix", base_offset=0, sync=False,
                 info=None):
        self._h = None
        self.comm = comm
        m = _MODES.get(mode, -1) if isinstance(mode, str) else int(mode)
        b = _BACKENDS.get(backend, -1) if isinstance(backend, str) else int(backend)
        # unknown names reach collio as invalid values: ERR_ARG on every rank
        self._h = _collio.file_open(comm, str(path), m, b, int(base_offset),
                                    1 if sync else 0, info)

    @property
    def path(self):
        return _collio.file_path(self._h)

    @property
    def closed(self):
        return self._h is None

    def close(self):
        """Collective: commit and close (a no-op if already closed)."""
        h, self._h = self._h, None
        if h is not None:
            _collio.file_close(h)

    def abort(self):
        """Collective: close and discard (a CREATE file's temporary is
        removed; the path is left as it was). A no-op if already closed."""
        h, self._h = self._h, None
        if h is not None:
            _collio.file_abort(h)

    def __enter__(self):
        return self

    def __exit__(self, etype, evalue, tb):
        if etype is None:
            self.close()
        else:
            self.abort()
        return False

    def __del__(self):
        # Still open: abort (collective; see the module docstring for when
        # that is safe). Never after MPI_Finalize.
        if getattr(self, "_h", None) is not None and not _is_finalized():
            try:
                _warnings.warn("collio.File %r was never closed: aborted (its data "
                               "discarded)" % (self.path,), ResourceWarning, stacklevel=2)
                self.abort()
            except Exception:
                pass


# ------------------------------------------------------------------- plans

_OPTION_KEYS = {
    "destroy_input": None,
    "serial": ("chunk_bytes",),
    "independent": ("max_iov",),
    "multiphase": ("phases", "keep_buffers", "write_rounds", "exchange", "shared_memory"),
    "subgroup": ("group", "inner"),
    "replicas": ("policy", "seed"),
}


def _options(options, kw):
    """Merge an options dict and keyword arguments into the nested dict of
    ints the C layer reads (collio_plan_options). Names of exchanges and
    replica policies are resolved here; unknown names become invalid values
    that collio rejects (ERR_ARG) on every rank. Unknown keys raise
    TypeError locally (before any communication)."""
    merged = {}
    for src in (options or {}), kw:
        for k, v in src.items():
            if k not in _OPTION_KEYS:
                raise TypeError("unknown plan option %r (known: %s)"
                                % (k, ", ".join(_OPTION_KEYS)))
            if _OPTION_KEYS[k] is None:
                merged[k] = int(v)
                continue
            if not isinstance(v, dict):
                raise TypeError("plan option %r takes a dict of %s" % (k, _OPTION_KEYS[k]))
            d = merged.setdefault(k, {})
            for kk, vv in v.items():
                if kk not in _OPTION_KEYS[k]:
                    raise TypeError("unknown plan option %s[%r] (known: %s)"
                                    % (k, kk, ", ".join(_OPTION_KEYS[k])))
                d[kk] = vv
    mp = merged.get("multiphase")
    if mp and isinstance(mp.get("exchange"), str):
        names = exchange_names()
        mp["exchange"] = names.index(mp["exchange"]) if mp["exchange"] in names else -1
    rp = merged.get("replicas")
    if rp and isinstance(rp.get("policy"), str):
        names = replicas_names()
        rp["policy"] = names.index(rp["policy"]) if rp["policy"] in names else -1
    for k, d in merged.items():
        if isinstance(d, dict):
            for kk, vv in d.items():
                if kk == "inner":
                    d[kk] = None if vv is None else str(vv)
                elif isinstance(vv, bool):
                    d[kk] = int(vv)
                else:
                    d[kk] = int(vv)
    return merged


class Plan:
    """A reusable schedule for one layout and one strategy
    (collio_plan_create, collective; the inspector runs here, once).

    ``strategy``: a name of ``strategy_names()`` ("serial", "independent",
    "two_phase", "multiphase", "subgroup", "block"). Options mirror
    collio_plan_options, as a dict ``options`` and/or keyword arguments
    (merged, keywords last)::

        destroy_input=True                       # write may scribble on buf
        serial={"chunk_bytes": 1 << 20}
        independent={"max_iov": 64}
        multiphase={"phases": 0, "keep_buffers": 1, "write_rounds": 0,
                    "exchange": "direct", "shared_memory": 1}
        subgroup={"group": 2, "inner": "multiphase"}
        replicas={"policy": "idg", "seed": 0}

    Every option must be equal on every rank (else Error ERR_MISMATCH on
    every rank); out of range: ERR_ARG; unknown strategy: ERR_STRATEGY.

    ``write(file, array)`` / ``read(file, array)`` move this rank's data,
    any number of times; ``stats()`` is the last execution's
    collio_stats as a dict. ``free()`` (collective) or a ``with`` block
    frees the plan; see the module docstring on garbage collection.
    """

    def __init__(self, comm, layout, strategy="multiphase", options=None, **kw):
        self._h = None
        self.comm = comm
        self.layout = layout
        opts = _options(options, kw)
        self._sizes = layout._sizes
        self._h = _collio.plan_create(comm, layout._h, str(strategy), opts)

    @property
    def strategy(self):
        return _collio.plan_strategy(self._h)

    def write(self, file, array):
        """Collective: writes this rank's data from ``array`` (any
        contiguous buffer of exactly ``layout.buffer_bytes`` bytes whose item
        size is the layout's element size; used in place) into ``file``
        (open "w" or "inplace"). Raises Error (ERR_BUFSIZE for a wrong
        length, item size, or a non-contiguous array on any rank; ERR_IO,
        ERR_STATE, ...) on every rank."""
        _collio.plan_write(self._h, file._h if file._h is not None else _closed(),
                           array, self._sizes)

    def read(self, file, array=None):
        """Collective: reads this rank's data from ``file`` into ``array``
        (writable, contiguous, ``layout.buffer_bytes`` bytes; filled in
        place) and returns it; without ``array`` a new one of the layout's
        dtype (``layout.empty()``). Raises Error (ERR_BUFSIZE, ERR_EOF,
        ERR_IO, ...) on every rank."""
        if array is None:
            array = self.layout.empty()
        _collio.plan_read(self._h, file._h if file._h is not None else _closed(),
                          array, self._sizes)
        return array

    def stats(self):
        """Local: collio_stats of the plan as a dict (times in seconds;
        lists phase_s / phase_bytes / phase_tuples / phase_messages of
        nphases entries; nested dicts "multiphase", "subgroup", "replicas";
        exchange and policy by name)."""
        return _collio.plan_stats(self._h)

    @property
    def closed(self):
        return self._h is None

    def free(self):
        """Collective: frees the plan (a no-op if already freed)."""
        h, self._h = self._h, None
        if h is not None:
            _collio.plan_free(h)

    close = free

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    def __del__(self):
        # Not freed explicitly: free now. collio_plan_free is collective
        # (communicator and shared-memory window frees), so this is safe
        # only when every rank drops the plan at the same point -- see the
        # module docstring. Never after MPI_Finalize (then leaked).
        if getattr(self, "_h", None) is not None and not _is_finalized():
            try:
                self.free()
            except Exception:
                pass


def _closed():
    raise ValueError("the file is closed")


# ---------------------------------------------------------------- HDF5

def have_h5():
    """True if libcollio was built with HDF5 (describe_h5 works)."""
    f = getattr(_collio, "have_h5", None)
    return bool(f()) if f is not None else False


def describe_h5(comm, h5_path, raw_path, dtype, shape, order="C", base_offset=0,
                dataset="data"):
    """Collective: rank 0 writes a small HDF5 file ``h5_path`` whose dataset
    ``dataset`` is stored in the raw collio file ``raw_path`` itself, from
    byte ``base_offset`` on (HDF5 external storage: no data is copied;
    collio_describe_h5). ``dtype``: a native-order integer or float dtype of
    1, 2, 4 or 8 bytes (or a subarray of one, e.g. ("f8", 3): one more
    dimension). ``shape``: the global numpy shape of the data as the file
    holds it in ``order`` -- "C" (last index fastest) or "F" (first index
    fastest, as a Fortran-order darray writes it). HDF5 shapes are C order,
    so for order "F" the dataset's shape is ``shape`` reversed and h5py
    returns the transpose (``h5["data"][...] == A.T``). A vector is
    ``(n,)``; a mesh field of ``load`` values per node ``(nodes, load)``.
    ``raw_path`` is stored as given (a relative path resolves against the
    reader's working directory). Every argument must be equal on every
    rank. Raises Error (ERR_ARG for an unsupported dtype, ERR_OPEN, ERR_EOF
    when the raw file is too short, ERR_MISMATCH, ERR_UNSUPPORTED where
    libcollio was built without HDF5) on every rank."""
    f = getattr(_collio, "describe_h5", None)
    if f is None:
        raise Error(ERR_UNSUPPORTED, strerror(ERR_UNSUPPORTED),
                    "these bindings were built without collio_describe_h5")
    dt = _np.dtype(dtype)
    shape = [int(s) for s in shape]
    if dt.subdtype is not None:  # ("f8", 3): one more dimension of 3
        dt, sub = dt.subdtype
        shape = shape + list(sub) if order in ("C", "c") else list(sub) + shape
    types = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]
    key = dt.kind + str(dt.itemsize)
    t = types.index(key) if key in types and dt.byteorder in "=|<" else -1
    orders = {"C": 0, "c": 0, "F": 1, "f": 1}
    if order not in orders:
        raise ValueError("order must be 'C' or 'F'")
    f(comm, str(h5_path), str(raw_path), int(base_offset), t, shape, orders[order],
      str(dataset))
