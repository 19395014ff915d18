"""collio -- collective I/O of distributed numpy arrays into one shared file.

Python bindings of libcollio (include/collio.h is the reference; docs/python.md
the Python API). Data path::

    Layout   what this rank holds           Layout.block_cyclic / darray /
                                            index_list / index_list_replicated
      -> Plan    how to move it (once)      Plan(comm, layout, "auto", ...)
        -> write / read, any number of times, into a File (File(comm, path, "w"))

A plan's options are collio's hints ("SECTION.NAME" = value; options()
lists them, from the library's catalogue): keywords per section
(multiphase={"exchange": "direct"}), hints="KEY=VALUE,..." or an MPI.Info.

Communicators are mpi4py communicators; buffers are numpy arrays (or any
object with the buffer protocol) used in place, never copied. Every
collective call returns the same result on every rank: when it fails on one
rank it raises :class:`Error` (with collio's code and text) on every rank.

Arguments are agreed on. Every collective entry point (the Layout
constructors, File(...), File.close / abort, Plan(...), Plan.write / read,
Plan.free, describe_h5) first checks its Python arguments on each rank --
types, names, integer ranges of the C types, closed handles, the array's
memory order, a plan's hints (checked by the library's catalogue) -- and
then agrees on the verdict over its communicator (one
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
    "ArgumentOverflowError", "Layout", "File", "Plan", "Request", "waitall", "strategies",
    "strategy_names",
    "exchange_names", "replicas_names", "option_values", "options", "statistics", "strerror",
    "describe_h5", "have_h5",
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
        "Plan.write", "Plan.read", "Plan.free", "describe_h5", "Layout.extents",
        "Plan.prepare", "Plan.iwrite", "Plan.iread"]
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


def option_values(key):
    """The names an option of type "name" takes, in value order (e.g.
    "multiphase.exchange", "replicas.policy", "auto.only"); [] for a key that
    is no such option. A stat of the same key holds such a value."""
    return _collio.option_values(key)


def exchange_names():
    """multiphase transports: "auto", "hypercube", "direct", "node-direct",
    "node-hypercube", ... (option_values("multiphase.exchange"))."""
    return option_values("multiphase.exchange")


def replicas_names():
    """Replica policies: "auto", "owner", "idg", "random", "first", "domain"
    (option_values("replicas.policy"))."""
    return option_values("replicas.policy")


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
    def extents(cls, comm, offsets, lengths, dtype=None, esize=None):
        """Sparse extents: this rank holds the runs of elements
        [offsets[k], offsets[k] + lengths[k]) in that buffer order; the
        elements no rank holds are holes, left as they are in the file
        (collio_layout_extents: what an MPI-IO program's file view
        describes). Raises Error ERR_ARG, ERR_OVERLAP, ERR_OVERFLOW,
        ERR_MISMATCH; ArgumentError for wrong arguments on any rank."""
        _check_comm(comm)

        def prepare():
            off = _index_array("offsets", offsets)
            ln = _index_array("lengths", lengths)
            if off.size != ln.size:
                raise ValueError("offsets has %d entries, lengths %d: one length per "
                                 "offset" % (off.size, ln.size))
            return off, ln, _esize(dtype, esize)
        (off, ln, (es, sizes, dt)), _, _ = _agree(comm, "Layout.extents", prepare)
        return cls(_collio.layout_extents(comm, off, ln, es), comm, dt, sizes)

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

# The catalogue of options (hints) and statistics: the library's own
# (collio_option_describe, collio_stat_describe), read once at first use --
# a strategy registered at run time brings its section with it. Nothing
# about a particular option or statistic is written down here.
_CATALOGUE = None


def _catalogue():
    """(options, sections, stats): the option catalogue as a list of dicts,
    {section: {name: option dict}}, and the statistics catalogue."""
    global _CATALOGUE
    if _CATALOGUE is None:
        opts = [dict(key=k, type=t, default=d, range=r, doc=doc)
                for k, t, d, r, doc in _collio.option_catalogue()]
        sections = {}
        for o in opts:
            sec, _, name = o["key"].partition(".")
            sections.setdefault(sec, {})[name] = o
        stats = [dict(key=k, per_call=pc, doc=doc, count=n, length=ln)
                 for k, pc, doc, n, ln in _collio.stat_catalogue()]
        _CATALOGUE = (opts, sections, stats)
    return _CATALOGUE


def options():
    """The option catalogue (collio_option_describe): every hint a plan
    takes, as a list of dicts ``key`` ("SECTION.NAME"), ``type`` ("int",
    "size", "bool", "name", "strategy", "uint64", "path"), ``default`` and
    ``range`` (text) and ``doc`` (one line), in the library's order:
    section "plan", "replicas", then each strategy's."""
    return [dict(o) for o in _catalogue()[0]]


def statistics():
    """The statistics catalogue (collio_stat_describe): a list of dicts
    ``key`` ("total_s", or "SECTION.NAME"), ``per_call`` (True: describes
    the last write / read, False: the plan), ``doc``, ``count`` (1, or up
    to that many values: one per exchange phase, ...) and ``length`` (for
    count > 1, the key of the statistic that says how many are in use;
    else None) -- what ``Plan.stats()`` and ``Plan.stat(key)`` report."""
    return [dict(s) for s in _catalogue()[2]]


# Plan's own parameters: never taken for an option's keyword.
_PLAN_PARAMS = ("comm", "layout", "strategy", "options", "hints", "info")


def _index(what, v):
    try:
        return _operator.index(v)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (what, type(v).__name__)) from None


def _hint_value(what, opt, v):
    """A keyword's value checked for the option's type in Python -- integers
    for int/size/uint64, a bool (or 0/1) for bool, a name (or its index)
    for name, a strategy's name for strategy, a str, bytes or os.PathLike
    for path -- as the text (or, for a name's index, the int)
    collio_hints_set gets; the library checks the value itself (range,
    names) when it is set. None: the default (only for a strategy or a
    path)."""
    t = opt["type"]
    if t == "strategy":
        return None if v is None else _cstr(what, v)
    if t == "path":  # str, bytes or os.PathLike
        return None if v is None else _cstr(what, _os.fsdecode(_os.fspath(v)))
    if t == "bool":
        if isinstance(v, (bool, _np.bool_)):
            return "1" if v else "0"
        if v is None or isinstance(v, (str, bytes, float)):
            raise TypeError("%s takes a bool, not %s" % (what, type(v).__name__))
        return str(_index(what, v))
    if t == "name":
        if isinstance(v, str):
            return _cstr(what, v)
        if v is None or isinstance(v, (bytes, float)):
            raise TypeError("%s takes a name (%s) or its index, not %s"
                            % (what, opt["range"].replace("|", ", "), type(v).__name__))
        return _index(what, v)
    if t in ("int", "size", "uint64"):
        return str(_index(what, v))
    # a type these bindings do not know: text, or an integer as text
    if isinstance(v, str):
        return _cstr(what, v)
    return str(_index(what, v))


def _hint_pairs(opts, kw):
    """The (key, value) pairs of Plan's options dict and keywords, in that
    order: a section's options as a dict under the section's name
    (``multiphase={"exchange": "direct"}``), the section "plan"'s as
    keywords of their own (``destroy_input=True``) or as ``plan={...}``.
    Unknown sections and keys, and a section not given a dict, raise
    TypeError (as Python does for unknown keywords); the values are
    checked by _hint_value."""
    _, sections, _ = _catalogue()
    plan = sections.get("plan", {})
    if opts is not None and not isinstance(opts, dict):
        raise TypeError("options must be a dict, not %s" % type(opts).__name__)
    known = sorted([s for s in sections if s != "plan"]
                   + [n for n in plan if n not in sections and n not in _PLAN_PARAMS])
    pairs = []
    for src in (opts or {}), kw:
        for k, v in src.items():
            if isinstance(k, str) and k in sections:
                if not isinstance(v, dict):
                    raise TypeError("plan option %r takes a dict of %s, not %s"
                                    % (k, ", ".join(sections[k]), type(v).__name__))
                for kk, vv in v.items():
                    what = "%s[%r]" % (k, kk)
                    if not isinstance(kk, str) or kk not in sections[k]:
                        where = ""
                        if k != "plan" and kk in plan:
                            where = "; %s is an option of every plan: %s=..." % (kk, kk)
                        raise TypeError("unknown plan option %s (known: %s)%s"
                                        % (what, ", ".join(sections[k]), where))
                    val = _hint_value(what, sections[k][kk], vv)
                    if val is not None:
                        pairs.append(("%s.%s" % (k, kk), val))
            elif isinstance(k, str) and k in plan and k not in _PLAN_PARAMS:
                val = _hint_value(k, plan[k], v)
                if val is not None:
                    pairs.append(("plan." + k, val))
            else:
                raise TypeError("unknown plan option %r (known: %s)" % (k, ", ".join(known)))
    return pairs


def _hint_call(fn, *args):
    """A collio_hints_* call: the library's refusal (an unknown key, a
    value the key does not take) as a ValueError carrying its code
    (ERR_ARG; ERR_STRATEGY for an unknown strategy name), so that the
    agreement raises it on every rank."""
    try:
        fn(*args)
    except Error as e:
        exc = ValueError(e.detail or e.text)
        exc._collio_code = e.code
        raise exc from None


def _make_hints(opts, kw, hints, info):
    """One collio_hints from, in order (a later value of a key wins): the
    options dict, the keywords, the MPI.Info, the hints string. Local:
    every key and value is checked by the library here, before the
    agreement."""
    pairs = _hint_pairs(opts, kw)
    if info is not None and not isinstance(info, _MPI.Info):
        raise TypeError("info must be an mpi4py MPI.Info or None, not %s"
                        % type(info).__name__)
    text = None
    if hints is not None:
        if not isinstance(hints, str):
            raise TypeError('hints must be a str "KEY=VALUE,KEY=VALUE", not %s'
                            % type(hints).__name__)
        text = _cstr("hints", hints)
    h = _collio.hints_create()
    for key, value in pairs:
        _hint_call(_collio.hints_set, h, key, value)
    if info is not None and info != _MPI.INFO_NULL:
        _hint_call(_collio.hints_set_info, h, info)
    if text is not None:
        _hint_call(_collio.hints_parse, h, text)
    return h


def _offset(v):
    """A byte offset into a file: an int, 0 or more."""
    off = _int("offset", v, _I64)
    if off < 0:
        raise ValueError("offset = %d: an offset into the file is 0 or more" % off)
    return off


def _op(op):
    """True for "write", False for "read"."""
    if op not in ("write", "read"):
        raise ValueError("op must be \"write\" or \"read\", not %r" % (op,))
    return op == "write"


def _file_handle(file):
    """The open handle of a collio.File (ArgumentError where it is not one
    or is closed)."""
    if not isinstance(file, File):
        raise TypeError("file must be a collio.File, not %s" % type(file).__name__)
    if file._h is None:
        raise ValueError("the file is closed")
    return file._h


def _stat_count(key):
    """The values statistic KEY holds (its catalogue's count; 1 for a key
    the catalogue does not have: the library names the error)."""
    for s in _catalogue()[2]:
        if s["key"] == key:
            return s["count"]
    return 1


def _stat_value(v, names):
    """A statistic's value (collio_plan_stat: a double) as Python: the name
    where the stat is the value of a named option (``names``: its names),
    an int where it is a whole number, else a float."""
    if not (abs(v) < 2 ** 53 and v == int(v)):  # NaN, infinities, fractions
        return v
    i = int(v)
    if names is not None:
        return names[i] if 0 <= i < len(names) else i
    return i


class Plan:
    """A reusable schedule for one layout and one strategy
    (collio_plan_create, collective; the inspector runs here, once).

    ``strategy``: a name of ``strategy_names()`` ("serial", "independent",
    "two_phase", "multiphase", "subgroup", "auto", "block"); the default,
    "auto", lets collio choose (docs/auto.md).

    Options are collio's hints (``options()`` lists them: "SECTION.NAME",
    type, default, range). They may be given as keywords -- a section's
    as a dict under its name, the options of every plan (section "plan")
    as keywords of their own -- as an ``options`` dict of the same form,
    as a string ``hints="KEY=VALUE,KEY=VALUE"`` and as an mpi4py
    ``info=MPI.Info`` (its keys of collio's sections; other keys are left
    to MPI-IO)::

        Plan(comm, layout, "subgroup",
             destroy_input=True,                       # plan.destroy_input
             keep_buffers=False,                       # plan.keep_buffers
             subgroup={"group": 2, "inner": "multiphase"},
             multiphase={"exchange": "direct"},
             replicas={"policy": "idg", "seed": 7},
             hints="serial.chunk_bytes=16M")

    They make one set of hints, in the order options, keywords, info,
    hints (a later value of a key wins); the environment's COLLIO_HINTS
    wins over all of them. Keyword values are checked for their type in
    Python (integers for int, size and uint64 options; bool or 0/1 for
    bool; a name or its index for name; a str for strategy), then every
    key and value by the library's catalogue. An unknown key (TypeError),
    a value of the wrong type (TypeError) or one the option does not take
    (ValueError: out of range, an unknown name; ERR_STRATEGY for an
    unknown strategy) on any rank raises ArgumentError on every rank.
    Options that differ across ranks: Error ERR_MISMATCH on every rank;
    options that do not go together, or a bad COLLIO_HINTS: ERR_ARG;
    unknown strategy: ERR_STRATEGY.

    ``write(file, array)`` / ``read(file, array)`` move this rank's data,
    any number of times; ``hints()`` is every option with the value the
    plan runs with; ``stats()`` the last execution's statistics as a
    dict, ``stat(key)`` one of them. ``free()`` (collective) or a ``with``
    block frees the plan; see the module docstring on garbage collection.
    """

    def __init__(self, comm, layout, strategy="auto", options=None, *, hints=None,
                 info=None, **kw):
        self._h = None
        self.comm = comm
        self.layout = layout
        _check_comm(comm)

        def prepare():
            if not isinstance(layout, Layout):
                raise TypeError("layout must be a collio.Layout, not %s"
                                % type(layout).__name__)
            h = layout._handle()
            strat = _cstr("strategy", strategy)
            return h, strat, _make_hints(options, kw, hints, info)
        (h, strat, hs), _, _ = _agree(comm, "Plan", prepare)
        # what write/read check, kept from the layout (which may be freed)
        self._sizes = layout._sizes
        self._dtype = layout.dtype
        self._order = layout.order if layout._memory != "datatype" else "A"
        self._bytes = layout.buffer_bytes
        self._h = _collio.plan_create(comm, h, strat, hs)

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
        fh = _file_handle(file)
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
        return ph, fh

    def write(self, file, array, offset=0):
        """Collective: writes this rank's data from ``array`` (a buffer of
        exactly ``layout.buffer_bytes`` bytes whose item size is the layout's
        element size, contiguous in the layout's order -- see Layout; used
        in place) into ``file`` (open "w" or "inplace"), ``offset`` bytes
        further into it (collio_write_at: one file, one plan, one call per
        variable; 0 or more, the same on every rank). Raises ArgumentError
        (ERR_BUFSIZE for an unusable array; ERR_ARG for an array in the
        wrong order, a closed plan or file, a negative offset, ...) or
        Error (ERR_IO, ERR_STATE, ERR_MISMATCH for offsets that differ, ...)
        on every rank."""
        (ph, fh, off), _, _ = _agree(
            self.comm, "Plan.write",
            lambda: self._check(file, array, True) + (_offset(offset),))
        _collio.plan_write(ph, fh, array, self._sizes, self._order, off)

    def read(self, file, array=None, offset=0):
        """Collective: reads this rank's data from ``file`` into ``array``
        (writable, ``layout.buffer_bytes`` bytes, contiguous in the layout's
        order; filled in place) and returns it; without ``array`` a new
        1-d one of the layout's dtype. ``offset``: as write places it
        (collio_read_at). Raises ArgumentError (ERR_BUFSIZE, ERR_ARG) or
        Error (ERR_EOF, ERR_IO, ...) on every rank."""
        def prepare():
            a = _empty(self._bytes, self._dtype) if array is None else array
            return self._check(file, a, False) + (a, _offset(offset))
        (ph, fh, a, off), _, _ = _agree(self.comm, "Plan.read", prepare)
        _collio.plan_read(ph, fh, a, self._sizes, self._order, off)
        return a

    def iwrite(self, file, array, offset=0):
        """Collective: starts ``write(file, array, offset)`` and returns a
        ``Request`` (collio_iwrite_at): the write may run in the background
        (docs/requests.md) while the caller goes on; ``array`` is the
        library's until the request completes (do not modify it; hint
        ``request.snapshot=1`` copies it instead). Argument errors are
        raised here on every rank, as ``write``'s; the others by the
        request's ``wait()``."""
        (ph, fh, off), _, _ = _agree(
            self.comm, "Plan.iwrite",
            lambda: self._check(file, array, True) + (_offset(offset),))
        return Request(_collio.plan_iwrite(ph, fh, array, self._sizes, self._order, off),
                       array)

    def iread(self, file, array=None, offset=0):
        """Collective: starts ``read(file, array, offset)`` and returns a
        ``Request`` whose ``array`` (the one given, or a new one) holds the
        data once it completes (collio_iread_at)."""
        def prepare():
            a = _empty(self._bytes, self._dtype) if array is None else array
            return self._check(file, a, False) + (a, _offset(offset))
        (ph, fh, a, off), _, _ = _agree(self.comm, "Plan.iread", prepare)
        return Request(_collio.plan_iread(ph, fh, a, self._sizes, self._order, off), a)

    def predict(self, file, op="write"):
        """Local: what the plan would run for a write (``op`` "write") or a
        read ("read") of ``file``, without running anything
        (collio_plan_predict): for strategy "auto", ``(candidate,
        seconds)`` -- the candidate its model picks for the file's file
        system (a name of ``option_values("auto.only")``) and its predicted
        seconds; for every other strategy ``(None, None)``."""
        c, secs = _collio.plan_predict(self._handle(), _file_handle(file), _op(op))
        if c < 0:
            return None, None
        return option_values("auto.only")[c + 1], secs

    def prepare(self, file, op="write"):
        """Collective: does now what the first write (``op`` "write") or
        read of ``file`` would do before moving data (collio_plan_prepare):
        for strategy "auto", measures the file system where no calibration
        covers it, chooses and makes the chosen plan; nothing for the
        others. ``predict`` then gives the choice. Raises Error on every
        rank (ERR_MISMATCH where op or the file differ between ranks)."""
        (ph, fh, w), _, _ = _agree(self.comm, "Plan.prepare",
                                   lambda: (self._handle(), _file_handle(file), _op(op)))
        _collio.plan_prepare(ph, fh, w)

    def hints(self):
        """Local: every option (every key of ``options()``) with the value
        the plan runs with -- defaults, the plan's hints and COLLIO_HINTS
        applied -- as a dict key -> text (collio_plan_hints), in the
        catalogue's order."""
        return dict(_collio.plan_hints(self._handle()))

    def stat(self, key):
        """Local: one statistic by key (collio_plan_stat): a key of
        ``statistics()``, e.g. "total_s" or "replicas.intervals", as the
        float the library keeps; one of many values (``count`` > 1 in
        ``statistics()``) as the list of those in use
        (collio_plan_stat_values). An unknown key raises Error ERR_ARG."""
        key = _cstr("key", key)
        if _stat_count(key) > 1:
            return _collio.plan_stat_values(self._handle(), key)
        return _collio.plan_stat(self._handle(), key)

    def stats(self):
        """Local: the plan's statistics as a dict. The fields of
        collio_stats flat (times in seconds), and a dict per section of the
        statistics catalogue ("replicas", then the strategies') of its
        statistics by name: the value of a named option's statistic by
        name (``stats()["multiphase"]["exchange"] == "direct"``), whole
        numbers as int, others as float, a statistic of many values (one
        per exchange phase, ...) as the list of those in use. A section
        whose strategy did not run reads 0."""
        h = self._handle()
        d = _collio.plan_stats(h)
        _, sections, stats = _catalogue()
        for s in stats:
            sec, dot, name = s["key"].partition(".")
            if not dot:
                if sec not in d:
                    d[sec] = _stat_value(_collio.plan_stat(h, sec), None)
                continue
            opt = sections.get(sec, {}).get(name)
            names = opt["range"].split("|") if opt is not None and \
                opt["type"] == "name" else None
            if s["count"] > 1:
                v = [_stat_value(x, names) for x in _collio.plan_stat_values(h, s["key"])]
            else:
                v = _stat_value(_collio.plan_stat(h, s["key"]), names)
            d.setdefault(sec, {})[name] = v
        return d

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

class Request:
    """A write or read started by ``Plan.iwrite`` / ``Plan.iread``
    (collio_request; docs/requests.md). ``wait()`` returns once it has
    run (raising its error, the same on every rank); ``test()`` completes
    it if it has run and says whether it did; ``waitall(requests)``
    completes many, running those of one plan on one file together.
    ``array``: the request's buffer (a read's data, once completed).
    Without the helper thread (MPI without MPI_THREAD_MULTIPLE) wait and
    test run the request and are collective in effect."""

    def __init__(self, handle, array):
        self._h = handle
        self.array = array

    @property
    def done(self):
        """True once completed by wait, test or waitall."""
        return self._h is None

    def wait(self):
        """Completes the request (collio_wait); returns its array."""
        if self._h is not None:
            h, self._h = self._h, None
            _collio.request_wait(h)
        return self.array

    def test(self):
        """Completes the request if it has run (collio_test): True, else
        False."""
        if self._h is None:
            return True
        if _collio.request_test(self._h):
            self._h = None
            return True
        return False


def waitall(requests):
    """Completes every request of ``requests`` (collio_waitall): those of
    one plan on one file that wait together run as one execution. Raises
    the first failing request's error once all are completed."""
    hs = [r._h for r in requests if r._h is not None]
    for r in requests:
        r._h = None
    _collio.waitall(hs)


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
