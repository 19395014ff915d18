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

Arguments are agreed on. Every collective entry point (the Layout
constructors, File(...), File.close / abort, Plan(...), Plan.write / read,
Plan.free, describe_h5) first checks its Python arguments on each rank --
types, names, integer ranges of the C types, closed handles, the array's
memory order -- and then agrees on the verdict over its communicator (one
MPI_Allreduce) before anything can block in collio's collectives. If any
rank found a problem, every rank raises the same :class:`ArgumentError`
(code ERR_ARG, or ERR_BUFSIZE for an unusable array), whose detail names
the lowest such rank and its problem: "rank 2: OverflowError: ...". It is
also a TypeError, ValueError or OverflowError, as the failing rank's own
check raised (:class:`ArgumentTypeError`, ...); on that rank it is chained
``from`` the original exception. Values that are valid but differ across
ranks reach collio, whose agreement raises ERR_MISMATCH on every rank.
The communicator itself cannot be agreed on: it must be an mpi4py
intracommunicator, the same on every rank (a non-communicator raises
TypeError on that rank only).

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

import operator as _operator
import os as _os
import re as _re
import warnings as _warnings

import numpy as _np
from mpi4py import MPI as _MPI

from . import _collio

__all__ = [
    "Error", "ArgumentError", "ArgumentTypeError", "ArgumentValueError",
    "ArgumentOverflowError", "Layout", "File", "Plan", "strategies", "strategy_names",
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
        return (type(self), (self.code, self.text, self.detail))


class ArgumentError(Error):
    """A Python argument was wrong on some rank: raised on every rank of the
    call's communicator, before collio was called.

    ``code`` is ERR_BUFSIZE where the array of ``Plan.write`` /
    ``Plan.read`` cannot serve as the layout's buffer (not a buffer, not
    contiguous, read-only for a read, wrong item size or byte length), else
    ERR_ARG (an array in the wrong memory order included). ``rank`` is the lowest rank that found a problem;
    ``detail`` is the same on every rank: "rank R: <exception type>:
    <message>". On rank ``rank`` the exception is chained from the original
    one (``__cause__``). The subclasses :class:`ArgumentTypeError`,
    :class:`ArgumentValueError` and :class:`ArgumentOverflowError` are also
    TypeError, ValueError and OverflowError, after what that rank's check
    raised, so that code catching those keeps working -- on every rank.
    """

    def __init__(self, code, text, detail="", rank=None):
        super().__init__(code, text, detail)
        self.rank = rank

    def __reduce__(self):
        return (type(self), (self.code, self.text, self.detail, self.rank))


class ArgumentTypeError(ArgumentError, TypeError):
    """An :class:`ArgumentError` that is also a TypeError (an argument of the
    wrong type on some rank)."""


class ArgumentValueError(ArgumentError, ValueError):
    """An :class:`ArgumentError` that is also a ValueError (an unknown name, a
    closed handle, an array in the wrong order, ... on some rank)."""


class ArgumentOverflowError(ArgumentError, OverflowError):
    """An :class:`ArgumentError` that is also an OverflowError (an integer
    outside the range of its C type on some rank)."""


_ARG_CLASSES = {"TypeError": ArgumentTypeError, "ValueError": ArgumentValueError,
                "OverflowError": ArgumentOverflowError, "": ArgumentError}

_collio._set_error_class(Error)

DIST_NONE, DIST_BLOCK, DIST_CYCLIC = 0, 1, 2
DARG_DEFAULT = 0
MAX_DIMS = _collio.MAX_DIMS
__version__ = "%d.%d.%d" % (_collio.VERSION_MAJOR, _collio.VERSION_MINOR,
                            _collio.VERSION_PATCH)

# ------------------------------------------------- agreement on arguments

# Which entry point a rank is in: ranks of one communicator that enter
# different ones at once (an SPMD bug, e.g. an exception on one rank) are
# told so on every rank (ERR_MISMATCH) instead of entering mismatched
# collectives. File.close and File.abort are one entry: ranks may mix them
# (every rank then aborts).
_OPS = ["Layout.block_cyclic", "Layout.darray", "Layout.index_list",
        "Layout.index_list_replicated", "File", "File.close/abort", "Plan",
        "Plan.write", "Plan.read", "Plan.free", "describe_h5"]
_OP_ID = {name: i + 1 for i, name in enumerate(_OPS)}


def _bufsize(exc):
    """Marks an exception of the array check: ArgumentError with ERR_BUFSIZE."""
    exc._collio_code = ERR_BUFSIZE
    return exc


def _category(exc):
    for base in (OverflowError, TypeError, ValueError):
        if isinstance(exc, base):
            return base.__name__
    return ""


def _text(exc):
    try:
        msg = str(exc)
    except Exception:  # a hostile __str__
        msg = "?"
    return "%s: %s" % (type(exc).__name__, msg) if msg else type(exc).__name__


def _check_comm(comm):
    """The communicator cannot be agreed on (it is what agreement uses): a
    non-communicator raises TypeError on this rank only."""
    if not isinstance(comm, _MPI.Intracomm) or comm == _MPI.COMM_NULL:
        raise TypeError("comm must be an mpi4py intracommunicator (e.g. MPI.COMM_WORLD), "
                        "not %r" % (comm,))


def _agree(comm, op, prepare=None, closed=None, abort=False):
    """Runs prepare() (the local checks; returns the checked arguments) and
    agrees over comm, in one MPI_Allreduce, on: whether any rank's checks
    failed, which entry point every rank is in, and for frees whether the
    handle is closed (``closed``) on some or all ranks and whether any rank
    asked for an abort. Raises on every rank or returns
    ``(prepare's result, all closed, lowest aborting rank or None)``."""
    result, exc = None, None
    if prepare is not None:
        try:
            result = prepare()
        except Exception as e:  # reported on every rank below
            exc = e
    rank, size = comm.Get_rank(), comm.Get_size()
    oid = _OP_ID[op]
    # MIN over: lowest failing rank, lowest rank where closed, lowest rank
    # where open, lowest aborting rank, min op, -max op
    buf = _np.array([rank if exc is not None else size,
                     rank if closed else size,
                     rank if closed is False else size,
                     rank if abort else size, oid, -oid], dtype=_np.int64)
    comm.Allreduce(_MPI.IN_PLACE, buf, op=_MPI.MIN)
    bad, first_closed, first_open, aborting, lo, hi = (int(x) for x in buf)
    if lo != -hi:
        raise Error(ERR_MISMATCH, strerror(ERR_MISMATCH),
                    "ranks of the communicator called different collio functions at "
                    "once: %s and %s" % (_OPS[lo - 1], _OPS[-hi - 1]))
    if bad < size:
        payload = None
        if rank == bad:
            payload = (getattr(exc, "_collio_code", ERR_ARG), _category(exc), _text(exc))
        code, cat, text = comm.bcast(payload, root=bad)
        err = _ARG_CLASSES[cat](code, strerror(code), "rank %d: %s" % (bad, text), bad)
        if exc is not None:
            raise err from exc
        raise err
    if first_closed < size and first_open < size:
        cause = ValueError("the %s is closed here, but still open on rank %d (a stale "
                           "object on some ranks?)" % (op.split(".")[0].lower(), first_open))
        err = ArgumentValueError(ERR_ARG, strerror(ERR_ARG),
                                 "rank %d: %s" % (first_closed, _text(cause)), first_closed)
        if rank == first_closed:
            raise err from cause
        raise err
    return result, first_open == size, (aborting if aborting < size else None)


# ---------------------------------------------------- argument conversion

_I32 = (-2 ** 31, 2 ** 31 - 1, "int")
_I64 = (-2 ** 63, 2 ** 63 - 1, "int64_t")
_U64 = (0, 2 ** 64 - 1, "uint64_t")
_SIZE = (0, 2 ** 63 - 1, "size_t, at most 2**63 - 1")


def _int(what, v, rng):
    """v as a Python int within rng (lo, hi, C type): TypeError for
    non-integers (floats, strings, None), OverflowError out of range."""
    try:
        i = _operator.index(v)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (what, type(v).__name__)) from None
    lo, hi, ctype = rng
    if not lo <= i <= hi:
        raise OverflowError("%s = %d is out of range of its C type %s [%d, %d]"
                            % (what, i, ctype, lo, hi))
    return i


def _seq(what, seq):
    """A list of the items of a sequence (not a str)."""
    if not isinstance(seq, (str, bytes)):
        try:
            return list(seq)
        except TypeError:
            pass
    raise TypeError("%s must be a sequence, not %s" % (what, type(seq).__name__))


def _ints(what, seq, rng):
    return [_int("%s[%d]" % (what, k), v, rng) for k, v in enumerate(_seq(what, seq))]


def _name(what, v, names, rng=_I32):
    """A name of `names` (a dict or list: its index) or an integer (passed on
    to collio, which checks its range of values)."""
    if isinstance(v, str):
        if v not in names:
            raise ValueError("unknown %s %r (known: %s)" % (what, v, ", ".join(names)))
        return names[v] if isinstance(names, dict) else names.index(v)
    return _int(what, v, rng)


def _path(what, p):
    try:
        b = _os.fsencode(p)
    except TypeError:
        raise TypeError("%s must be a str, bytes or os.PathLike, not %s"
                        % (what, type(p).__name__)) from None
    if b"\0" in b:
        raise ValueError("%s contains a NUL character" % what)
    return b


def _cstr(what, v):
    """A str collio gets as UTF-8 (names)."""
    if not isinstance(v, str):
        raise TypeError("%s must be a str, not %s" % (what, type(v).__name__))
    if "\0" in v:
        raise ValueError("%s contains a NUL character" % what)
    v.encode("utf-8")  # UnicodeEncodeError (a ValueError) for lone surrogates
    return v


def _dtype(dtype):
    dt = _np.dtype(dtype)
    if dt.hasobject:
        raise TypeError("dtype %s holds Python objects: their pointers cannot go to a file"
                        % (dt,))
    return dt


def _esize(dtype, esize):
    """The element size and the array item sizes a layout accepts."""
    if esize is not None:
        es = _int("esize", esize, _SIZE)
        dt = _dtype(dtype) if dtype is not None else None
        sizes = (es,) if dt is None else (es, dt.itemsize)
        return es, tuple(sorted(set(sizes), key=sizes.index)), dt
    if dtype is None:
        raise TypeError("give dtype= (the element type) or esize= (bytes per element)")
    dt = _dtype(dtype)
    # A subarray dtype such as ("f8", 3) makes one element of 3 float64:
    # arrays of that base type (shape (..., 3)) are accepted too.
    sizes = (dt.itemsize,) if dt.base.itemsize == dt.itemsize else (
        dt.itemsize, dt.base.itemsize)
    return dt.itemsize, sizes, dt


def _index_array(what, v):
    """Integer indices as a flat int64 array (never truncated: floats raise
    TypeError, values outside int64 OverflowError)."""
    a = _np.asarray(v)
    if a.dtype.kind in "iu":
        if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and \
                int(a.max()) > _I64[1]:
            raise OverflowError("%s: %d is out of range of int64_t" % (what, int(a.max())))
        return _np.ascontiguousarray(a, dtype=_np.int64).reshape(-1)
    if a.size == 0:
        return _np.empty(0, dtype=_np.int64)
    if a.dtype.kind == "O":
        flat = [_int("%s[%d]" % (what, k), x, _I64) for k, x in enumerate(a.reshape(-1))]
        return _np.array(flat, dtype=_np.int64)
    raise TypeError("%s must be integers, not %s" % (what, a.dtype))


def _owned_array(owned, n):
    a = _np.asarray(owned)
    if a.dtype.kind == "b" or a.size == 0:
        a = a.astype(_np.uint8)
    elif a.dtype.kind in "iu":
        if ((a != 0) & (a != 1)).any():
            raise ValueError("owned must hold 0 or 1 per index")
        a = a.astype(_np.uint8)
    else:
        raise TypeError("owned must be booleans or integers 0/1, not %s" % (a.dtype,))
    a = _np.ascontiguousarray(a).reshape(-1)
    if a.size != n:
        raise ValueError("owned has %d entries, indices %d: one per index" % (a.size, n))
    return a


_ORDERS = {"C": "C", "c": "C", "F": "F", "f": "F", "fortran": "F", "Fortran": "F"}


def _order(order):
    if not isinstance(order, str) or order not in _ORDERS:
        raise ValueError("order must be 'C' or 'F', not %r" % (order,))
    return _ORDERS[order]


def _is_finalized():
    try:
        return _MPI.Is_finalized()
    except Exception:  # interpreter shutting down
        return True


def strerror(code):
    """collio's text for an error code (collio_strerror)."""
    return _collio.strerror(_int("code", code, _I32))


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

    Memory order: the buffer holds this rank's elements in the layout's
    order -- C for block-cyclic and index-list layouts and for darrays of
    order "C", Fortran for darrays of order "F". A multi-dimensional array
    (more than one axis longer than 1; an (n, 3) array of a subarray dtype
    too) must be C-contiguous, or F-contiguous for an order "F" darray,
    else write/read raise ArgumentValueError (ERR_ARG) on every rank.
    (With ``set_memory_datatype`` the datatype says where each element
    lies: any contiguous array.)

    Attributes: ``local_count``, ``global_count``, ``esize``,
    ``buffer_bytes`` (what write/read need), ``dtype`` (or None), ``comm``,
    ``order`` ("C" or "F"), ``closed``.
    """

    def __init__(self, handle, comm, dtype, sizes, order="C"):
        self._h = handle
        self.comm = comm
        self.dtype = dtype
        self._sizes = sizes
        self.order = order
        self._memory = "packed"

    # -- constructors
    @classmethod
    def block_cyclic(cls, comm, nx, bx, dtype=None, esize=None):
        """1-D block-cyclic: ``nx`` elements in blocks of ``bx``; rank r holds
        blocks r, r+P, ... packed in increasing index order
        (collio_layout_block_cyclic). Raises Error ERR_ARG, ERR_OVERFLOW,
        ERR_MISMATCH; ArgumentError for wrong arguments on any rank."""
        _check_comm(comm)

        def prepare():
            return _int("nx", nx, _I64), _int("bx", bx, _I64), _esize(dtype, esize)
        (n, b, (es, sizes, dt)), _, _ = _agree(comm, "Layout.block_cyclic", prepare)
        return cls(_collio.layout_block_cyclic(comm, n, b, es), comm, dt, sizes)

    @classmethod
    def darray(cls, comm, gsizes, psizes, distribs=None, dargs=None, order="C",
               dtype=None, esize=None):
        """N-d array of global shape ``gsizes`` over a process grid ``psizes``
        (product = comm size, row-major rank order) as MPI_Type_create_darray
        describes it (collio_layout_darray). ``distribs``: per dimension
        DIST_NONE / DIST_BLOCK / DIST_CYCLIC or "none"/"block"/"cyclic"
        (default: block where psizes[d] > 1, else none); ``dargs``: per
        dimension, DARG_DEFAULT (0) by default. ``order``: "C" or "F" (the
        file's and the local buffer's element order: arrays written or read
        must be C- or F-contiguous accordingly). Raises Error ERR_ARG,
        ERR_OVERFLOW, ERR_MISMATCH; ArgumentError for wrong arguments on any
        rank."""
        _check_comm(comm)

        def prepare():
            es, sizes, dt = _esize(dtype, esize)
            g = _ints("gsizes", gsizes, _I64)
            p = _ints("psizes", psizes, _I32)
            if len(g) > MAX_DIMS:
                raise ValueError("gsizes has %d dimensions, at most %d" % (len(g), MAX_DIMS))
            names = {"none": DIST_NONE, "block": DIST_BLOCK, "cyclic": DIST_CYCLIC}
            if distribs is None:
                d = [DIST_BLOCK if x > 1 else DIST_NONE for x in p]
            else:
                d = [_name("distribs[%d]" % k, x, names)
                     for k, x in enumerate(_seq("distribs", distribs))]
            a = [DARG_DEFAULT] * len(g) if dargs is None else _ints("dargs", dargs, _I64)
            if not len(p) == len(d) == len(a) == len(g):
                raise ValueError("gsizes, psizes, distribs and dargs must have one entry "
                                 "per dimension (%d, %d, %d, %d)"
                                 % (len(g), len(p), len(d), len(a)))
            return g, d, a, p, _order(order), es, sizes, dt
        (g, d, a, p, o, es, sizes, dt), _, _ = _agree(comm, "Layout.darray", prepare)
        h = _collio.layout_darray(comm, g, d, a, p, 0 if o == "C" else 1, es)
        return cls(h, comm, dt, sizes, o)

    @classmethod
    def index_list(cls, comm, nglobal, indices, dtype=None, esize=None):
        """Explicit index list: this rank holds the elements ``indices`` (any
        order; integers, taken as int64) in that buffer order; the lists of
        all ranks partition [0, nglobal) (collio_layout_index_list). Raises
        Error ERR_ARG, ERR_RANGE, ERR_OVERLAP, ERR_COVERAGE, ERR_OVERFLOW,
        ERR_MISMATCH; ArgumentError for wrong arguments on any rank."""
        _check_comm(comm)

        def prepare():
            return (_int("nglobal", nglobal, _I64), _index_array("indices", indices),
                    _esize(dtype, esize))
        (n, idx, (es, sizes, dt)), _, _ = _agree(comm, "Layout.index_list", prepare)
        return cls(_collio.layout_index_list(comm, n, idx, es), comm, dt, sizes)

    @classmethod
    def index_list_replicated(cls, comm, nglobal, indices, owned, dtype=None, esize=None):
        """Index list with replicas (mesh nodes with their halo): this rank
        holds ``indices`` and owns those where ``owned`` is true (booleans
        or 0/1, one per index); every element is held by at least one rank
        and owned by exactly one of its holders
        (collio_layout_index_list_replicated). The plan's
        ``replicas={"policy": ...}`` picks the writer; a read fills every
        copy. Raises Error like index_list."""
        _check_comm(comm)

        def prepare():
            idx = _index_array("indices", indices)
            return (_int("nglobal", nglobal, _I64), idx, _owned_array(owned, idx.size),
                    _esize(dtype, esize))
        (n, idx, own, (es, sizes, dt)), _, _ = _agree(
            comm, "Layout.index_list_replicated", prepare)
        return cls(_collio.layout_index_list(comm, n, idx, es, own), comm, dt, sizes)

    # -- memory kinds (local; before creating plans)
    def set_memory_global(self):
        """The buffer is the full global array (global_count elements) and
        only this rank's entries are read (write) or filled (read), each at
        its global index, in the layout's order
        (collio_layout_set_memory_global). Returns self."""
        _collio.layout_set_memory_global(self._handle())
        self._memory = "global"
        return self

    def set_memory_datatype(self, datatype, count=1):
        """The buffer is ``count`` items of the mpi4py ``datatype`` whose type
        map lists this rank's elements in layout order
        (collio_layout_set_memory_datatype; the layout keeps a duplicate).
        Returns self."""
        if not isinstance(datatype, _MPI.Datatype):
            raise TypeError("datatype must be an mpi4py MPI.Datatype, not %s"
                            % type(datatype).__name__)
        _collio.layout_set_memory_datatype(self._handle(), datatype,
                                           _int("count", count, _I32))
        self._memory = "datatype"
        return self

    # -- accessors
    def _handle(self):
        if self._h is None:
            raise ValueError("the layout is freed")
        return self._h

    @property
    def closed(self):
        return self._h is None

    @property
    def local_count(self):
        return _collio.layout_info(self._handle())[0]

    @property
    def global_count(self):
        return _collio.layout_info(self._handle())[1]

    @property
    def esize(self):
        return _collio.layout_info(self._handle())[2]

    @property
    def buffer_bytes(self):
        """Bytes the buffer of write/read must have (collio_layout_buffer_bytes)."""
        return _collio.layout_info(self._handle())[3]

    def global_indices(self):
        """Global index of each of this rank's elements, in buffer (layout)
        order, as an int64 array (collio_layout_global_index)."""
        out = _np.empty(self.local_count, dtype=_np.int64)
        _collio.layout_global_indices(self._handle(), out)
        return out

    def empty(self, dtype=None):
        """A new array for this layout's buffer (buffer_bytes long) of the
        layout's dtype (or ``dtype``)."""
        return _empty(self.buffer_bytes, dtype if dtype is not None else self.dtype)

    def free(self):
        """Frees the layout now (local; plans made from it stay valid)."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None:
            _collio.layout_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    # The capsule's destructor frees the layout (local, always safe).


def _empty(nbytes, dtype):
    dt = _np.dtype(dtype if dtype is not None else _np.uint8)
    return _np.empty(nbytes // dt.itemsize, dtype=dt)


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
    "posix" (default) or "mpiio". ``path``: str, bytes or os.PathLike.
    ``base_offset``: byte offset of element 0 (an int64). ``sync``: fsync
    before close commits. ``info``: an mpi4py ``MPI.Info`` of hints for
    MPI-IO opens.

    ``close()`` commits (collective; raises Error ERR_IO on every rank if a
    write failed anywhere, leaving the previous file intact); ``abort()``
    discards. Ranks may mix them (an exception on one rank in a ``with``
    block): then every rank aborts, and close() raises Error ERR_IO where
    it was called. As a context manager it closes on normal exit and
    aborts when the block raises. Raises Error ERR_ARG, ERR_OPEN,
    ERR_MISMATCH; ArgumentError for wrong arguments on any rank.
    """

    def __init__(self, comm, path, mode="w", backend="posix", base_offset=0, sync=False,
                 info=None):
        self._h = None
        self.comm = comm
        self._path = path
        _check_comm(comm)

        def prepare():
            b = _path("path", path)
            m = _name("mode", mode, _MODES)
            be = _name("backend", backend, _BACKENDS)
            off = _int("base_offset", base_offset, _I64)
            sy = 1 if sync else 0
            if info is not None and not isinstance(info, _MPI.Info):
                raise TypeError("info must be an mpi4py MPI.Info or None, not %s"
                                % type(info).__name__)
            return b, m, be, off, sy
        (b, m, be, off, sy), _, _ = _agree(comm, "File", prepare)
        self._path = _os.fsdecode(b)
        self._h = _collio.file_open(comm, b, m, be, off, sy, info)

    @property
    def path(self):
        return self._path

    @property
    def closed(self):
        return self._h is None

    def _end(self, abort):
        comm = self.comm
        _, all_closed, aborting = _agree(comm, "File.close/abort", None,
                                         closed=self._h is None, abort=abort)
        if all_closed:
            return  # a no-op on every rank
        h, self._h = self._h, None
        if aborting is None:
            _collio.file_close(h)
            return
        _collio.file_abort(h)
        if not abort:
            raise Error(ERR_IO, strerror(ERR_IO),
                        "rank %d aborted the file while this rank closed it: not "
                        "committed (the previous file is left as it was)" % aborting)

    def close(self):
        """Collective: commit and close (a no-op if already closed on every
        rank)."""
        self._end(False)

    def abort(self):
        """Collective: close and discard (a CREATE file's temporary is
        removed; the path is left as it was). A no-op if already closed on
        every rank."""
        self._end(True)

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
# the C type of each integer option (collio_plan_options)
_OPTION_TYPES = {
    "destroy_input": _I32, "chunk_bytes": _I64, "max_iov": _I64, "phases": _I32,
    "keep_buffers": _I32, "write_rounds": _I32, "exchange": _I32, "shared_memory": _I32,
    "group": _I32, "policy": _I32, "seed": _U64,
}


def _options(options, kw):
    """Merge an options dict and keyword arguments into the nested dict of
    ints the C layer reads (collio_plan_options), checked: unknown keys and
    non-dict groups raise TypeError, unknown exchange and policy names
    ValueError, non-integers TypeError, integers outside their C type
    OverflowError. Values collio checks itself (e.g. phases = -1) pass."""
    if options is not None and not isinstance(options, dict):
        raise TypeError("options must be a dict, not %s" % type(options).__name__)
    merged = {}
    for src in (options or {}), kw:
        for k, v in src.items():
            if k not in _OPTION_KEYS:
                raise TypeError("unknown plan option %r (known: %s)"
                                % (k, ", ".join(_OPTION_KEYS)))
            if _OPTION_KEYS[k] is None:
                merged[k] = _int(k, v, _OPTION_TYPES[k])
                continue
            if not isinstance(v, dict):
                raise TypeError("plan option %r takes a dict of %s, not %s"
                                % (k, ", ".join(_OPTION_KEYS[k]), type(v).__name__))
            d = merged.setdefault(k, {})
            for kk, vv in v.items():
                if kk not in _OPTION_KEYS[k]:
                    raise TypeError("unknown plan option %s[%r] (known: %s)"
                                    % (k, kk, ", ".join(_OPTION_KEYS[k])))
                what = "%s[%r]" % (k, kk)
                if kk == "inner":
                    if vv is not None:
                        _path(what, _cstr(what, vv))
                    d[kk] = vv
                elif kk == "exchange":
                    d[kk] = _name(what, vv, exchange_names())
                elif kk == "policy":
                    d[kk] = _name(what, vv, replicas_names())
                else:
                    d[kk] = _int(what, vv, _OPTION_TYPES[kk])
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

    Integers must fit their C fields (int; int64_t for chunk_bytes and
    max_iov; uint64_t for seed), names must be known, else ArgumentError
    on every rank. Every option must be equal on every rank (else Error
    ERR_MISMATCH on every rank); out of collio's range: ERR_ARG; unknown
    strategy: ERR_STRATEGY.

    ``write(file, array)`` / ``read(file, array)`` move this rank's data,
    any number of times; ``stats()`` is the last execution's
    collio_stats as a dict. ``free()`` (collective) or a ``with`` block
    frees the plan; see the module docstring on garbage collection.
    """

    def __init__(self, comm, layout, strategy="multiphase", options=None, **kw):
        self._h = None
        self.comm = comm
        self.layout = layout
        _check_comm(comm)

        def prepare():
            if not isinstance(layout, Layout):
                raise TypeError("layout must be a collio.Layout, not %s"
                                % type(layout).__name__)
            h = layout._handle()
            return h, _cstr("strategy", strategy), _options(options, kw)
        (h, strat, opts), _, _ = _agree(comm, "Plan", prepare)
        # what write/read check, kept from the layout (which may be freed)
        self._sizes = layout._sizes
        self._dtype = layout.dtype
        self._order = layout.order if layout._memory != "datatype" else "A"
        self._bytes = layout.buffer_bytes
        self._h = _collio.plan_create(comm, h, strat, opts)

    @property
    def strategy(self):
        return _collio.plan_strategy(self._handle())

    def _handle(self):
        if self._h is None:
            raise ValueError("the plan is freed")
        return self._h

    def _check(self, file, array, writing):
        """The local checks of write/read: the plan, the file, the array."""
        ph = self._handle()
        if not isinstance(file, File):
            raise TypeError("file must be a collio.File, not %s" % type(file).__name__)
        if file._h is None:
            raise ValueError("the file is closed")
        if array is None:
            raise _bufsize(TypeError("give an array (the buffer to %s)"
                                     % ("write" if writing else "fill")))
        try:
            m = memoryview(array)
        except TypeError as e:
            raise _bufsize(TypeError("the array does not support the buffer protocol: %s"
                                     % (e,))) from None
        except (ValueError, BufferError) as e:
            raise _bufsize(ValueError("the array cannot be used as a buffer: %s"
                                      % (e,))) from None
        with m:
            if not writing and m.readonly:
                raise _bufsize(ValueError("the array is read-only (not writable): read "
                                          "fills it in place"))
            if not m.contiguous:
                raise _bufsize(ValueError("the array is not contiguous (a strided view?): "
                                          "collio uses its memory in place"))
            if self._order == "C" and not m.c_contiguous:
                raise ValueError(
                    "the array is Fortran-ordered with %d-d shape %s, but the layout's "
                    "elements are in C order: pass a C-contiguous array "
                    "(numpy.ascontiguousarray)" % (m.ndim, tuple(m.shape)))
            if self._order == "F" and not m.f_contiguous:
                raise ValueError(
                    "the array is C-ordered with %d-d shape %s, but the layout is a "
                    "Fortran-order darray: pass an F-contiguous array "
                    "(numpy.asfortranarray)" % (m.ndim, tuple(m.shape)))
            dt = array.dtype if isinstance(array, _np.ndarray) else None
            if (dt is not None and dt.hasobject) or \
                    "O" in _re.sub(r":[^:]*:", "", m.format):
                raise TypeError("the array holds Python objects: collio moves raw bytes")
            if m.itemsize not in self._sizes:
                raise _bufsize(ValueError("the array's item size is %d bytes, the layout's "
                                          "element %d" % (m.itemsize, self._sizes[0])))
            if m.nbytes != self._bytes:
                raise _bufsize(ValueError("the array has %d bytes, the layout's buffer %d "
                                          "(buffer_bytes)" % (m.nbytes, self._bytes)))
        return ph, file._h

    def write(self, file, array):
        """Collective: writes this rank's data from ``array`` (a buffer of
        exactly ``layout.buffer_bytes`` bytes whose item size is the layout's
        element size, contiguous in the layout's order -- see Layout; used
        in place) into ``file`` (open "w" or "inplace"). Raises
        ArgumentError (ERR_BUFSIZE for an unusable array; ERR_ARG for an
        array in the wrong order, a closed plan or file, ...) or Error
        (ERR_IO, ERR_STATE, ...) on every rank."""
        (ph, fh), _, _ = _agree(self.comm, "Plan.write",
                                lambda: self._check(file, array, True))
        _collio.plan_write(ph, fh, array, self._sizes, self._order)

    def read(self, file, array=None):
        """Collective: reads this rank's data from ``file`` into ``array``
        (writable, ``layout.buffer_bytes`` bytes, contiguous in the layout's
        order; filled in place) and returns it; without ``array`` a new
        1-d one of the layout's dtype. Raises ArgumentError (ERR_BUFSIZE,
        ERR_ARG) or Error (ERR_EOF, ERR_IO, ...) on every rank."""
        def prepare():
            a = _empty(self._bytes, self._dtype) if array is None else array
            return self._check(file, a, False) + (a,)
        (ph, fh, a), _, _ = _agree(self.comm, "Plan.read", prepare)
        _collio.plan_read(ph, fh, a, self._sizes, self._order)
        return a

    def stats(self):
        """Local: collio_stats of the plan as a dict (times in seconds;
        lists phase_s / phase_bytes / phase_tuples / phase_messages of
        nphases entries; nested dicts "multiphase", "subgroup", "replicas";
        exchange and policy by name)."""
        return _collio.plan_stats(self._handle())

    @property
    def closed(self):
        return self._h is None

    def free(self):
        """Collective: frees the plan (a no-op if already freed on every
        rank)."""
        _, all_closed, _ = _agree(self.comm, "Plan.free", None, closed=self._h is None)
        if not all_closed:
            h, self._h = self._h, None
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


# ---------------------------------------------------------------- HDF5

def have_h5():
    """True if libcollio was built with HDF5 (describe_h5 works)."""
    f = getattr(_collio, "have_h5", None)
    return bool(f()) if f is not None else False


_H5_TYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]


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
    rank. Raises ArgumentError (ERR_ARG: a wrong argument on any rank, an
    unsupported dtype) or Error (ERR_OPEN, ERR_EOF when the raw file is too
    short, ERR_MISMATCH, ERR_UNSUPPORTED where libcollio was built without
    HDF5) on every rank."""
    f = getattr(_collio, "describe_h5", None)
    if f is None:
        raise Error(ERR_UNSUPPORTED, strerror(ERR_UNSUPPORTED),
                    "these bindings were built without collio_describe_h5")
    _check_comm(comm)

    def prepare():
        h5 = _path("h5_path", h5_path)
        raw = _path("raw_path", raw_path)
        dt = _dtype(dtype)
        dims = _ints("shape", shape, _I64)
        o = _order(order)
        if dt.subdtype is not None:  # ("f8", 3): one more dimension of 3
            dt, sub = dt.subdtype
            dims = dims + list(sub) if o == "C" else list(sub) + dims
        key = dt.kind + str(dt.itemsize)
        if key not in _H5_TYPES or dt.byteorder not in "=|<":
            raise ValueError("dtype %s cannot be described: native-order integers or "
                             "floats of 1, 2, 4 or 8 bytes only" % (dt,))
        if len(dims) > 32:
            raise ValueError("shape has %d dimensions, at most 32" % len(dims))
        return (h5, raw, _int("base_offset", base_offset, _I64), _H5_TYPES.index(key),
                dims, 0 if o == "C" else 1, _cstr("dataset", dataset))
    args, _, _ = _agree(comm, "describe_h5", prepare)
    f(comm, *args)
