"""One rank's bad argument raises on every rank, never a hang.

test_one_rank_bad_argument is a generator: for every collective entry
point (the Layout constructors, File(...), File.close / abort, Plan(...),
Plan.write / read, Plan.free, describe_h5) and each of its arguments, one
case passes a bad value (wrong type, integer out of its C type's range,
unknown name, closed handle, array in the wrong memory order, ...) on ONE
rank -- rank (case number mod P), so the bad rank changes from case to case
-- and the good value on the others. Every rank must raise the same
collio.ArgumentError: the expected code and builtin class (TypeError,
ValueError, OverflowError), the bad rank named in ``rank`` and ``detail``,
the same detail on every rank, and on the bad rank only the original
exception as ``__cause__``. Each case runs inside ``with File(path, "w")``
(a CREATE file being written): afterwards the file at path still holds its
previous bytes exactly, and no temporary is left. The conftest watchdog
bounds every case: a hang fails the run instead of blocking it.

Also: Fortran-ordered arrays are rejected for C-order layouts (and C-ordered
ones for Fortran-order darrays), while correctly ordered multi-dimensional
arrays round-trip byte-exact against numpy references; option values
outside the option's range raise on every rank instead of being
truncated;
ranks entering different entry points at once raise ERR_MISMATCH.
"""
import os

import numpy as np
import pytest
from mpi4py import MPI

import collio
from test_collio import agree, expected, partition

# --------------------------------------------------------------- helpers

PREVIOUS = (np.arange(1000, dtype=np.int64) * 7919 % 251).astype(np.uint8).tobytes()


def fill_previous(comm, path):
    """path holds PREVIOUS (written by rank 0 with plain Python)."""
    if comm.rank == 0:
        with open(path, "wb") as fh:
            fh.write(PREVIOUS)
    comm.Barrier()


def temporaries(path):
    """The CREATE temporaries of path: ".NAME.collio-tmp.N" beside it
    (numbered slots; include/collio.h, COLLIO_FILE_CREATE)."""
    d, name = os.path.split(path)
    stem = "." + name + ".collio-tmp."
    return sorted(f for f in os.listdir(d or ".")
                  if f.startswith(stem) and f[len(stem):].isdigit())


def check_untouched(comm, path, content=PREVIOUS, open_create=False):
    """path holds exactly `content` (None: does not exist) and no temporary
    is left (unless a CREATE file is still open on it); verdict on every
    rank."""
    msg = ""
    if comm.rank == 0:
        if content is None:
            if os.path.exists(path):
                msg = "%s exists" % path
        else:
            with open(path, "rb") as fh:
                got = fh.read()
            if got != content:
                msg = "%s: %d bytes, expected the previous %d bytes" % (
                    path, len(got), len(content))
        tmps = temporaries(path)
        if len(tmps) != (1 if open_create else 0):
            msg += " temporaries of %s: %s, expected %d" % (path, tmps, int(open_create))
    msg = comm.bcast(msg, root=0)
    assert not msg, msg


def check_agreed_error(comm, e, bad_rank, builtin, code):
    """e is the ArgumentError every rank raised for bad_rank's argument.
    Each rank's findings are gathered before asserting, so that a failure
    fails on every rank."""
    problems = []

    def want(ok, what):
        if not ok:
            problems.append("rank %d: %s" % (comm.rank, what))
    want(isinstance(e, collio.ArgumentError), "not an ArgumentError: %r" % (e,))
    want(isinstance(e, builtin), "%r is not a %s" % (e, builtin.__name__))
    want(getattr(e, "code", None) == code, "%s, expected %s" % (e, collio.ERROR_NAMES[code]))
    detail = getattr(e, "detail", "")
    want(getattr(e, "rank", None) == bad_rank, "rank %r, expected %d" % (
        getattr(e, "rank", None), bad_rank))
    want(detail.startswith("rank %d: " % bad_rank), "detail %r" % detail)
    # the failing rank's own exception class, by name, in the detail
    parts = detail.split(": ")
    cause = e.__cause__
    if comm.rank == bad_rank:
        want(isinstance(cause, builtin) and not isinstance(cause, collio.Error),
             "cause %r" % (cause,))
        want(len(parts) > 1 and type(cause).__name__ == parts[1], "cause %r, detail %r"
             % (cause, detail))
        want(str(cause) in detail, "cause %r not in detail %r" % (str(cause), detail))
    else:
        want(cause is None, "cause %r on a rank that was not bad" % (cause,))
    gathered = comm.allgather((problems, detail))
    all_problems = [p for ps, _ in gathered for p in ps]
    assert not all_problems, all_problems
    details = {d for _, d in gathered}
    assert len(details) == 1, details


def grid2(P):
    return list(MPI.Compute_dims(P, 2))


# ---------------------------------------------------------- the context

class Ctx:
    """What the cases use: a C-order and a Fortran-order 2-d darray (every
    rank holds a 3 x 4 block, so an array's order matters on every rank),
    plans on them, a data file open for reading, and stale objects (a freed
    layout and plan, an aborted file) that a bad rank passes instead of live
    ones."""

    def __init__(self, comm, path):
        self.comm, self.path = comm, path
        self.P, self.rank = comm.size, comm.rank
        p0, p1 = grid2(comm.size)
        self.grid = [p0, p1]
        self.gsizes = (3 * p0, 4 * p1)
        self.other = path + ".other"
        self.data = path + ".data"
        self.h5 = path + ".h5"
        self.lay = collio.Layout.darray(comm, self.gsizes, self.grid, dtype=np.float64)
        self.flay = collio.Layout.darray(comm, self.gsizes, self.grid, order="F",
                                         dtype=np.float64)
        self.plan = collio.Plan(comm, self.lay, "multiphase")
        self.fplan = collio.Plan(comm, self.flay, "two_phase")
        self.plan2 = collio.Plan(comm, self.lay, "independent")
        # this rank's 3 x 4 block, C order, and the global array
        A = expected(np.arange(np.prod(self.gsizes)), np.float64).reshape(self.gsizes)
        c0, c1 = np.unravel_index(comm.rank, self.grid)
        self.block = np.ascontiguousarray(A[3 * c0:3 * c0 + 3, 4 * c1:4 * c1 + 4])
        with collio.File(comm, self.data, "w") as f:
            self.plan.write(f, self.block)
        self.rfile = collio.File(comm, self.data, "r")
        self.stale_layout = collio.Layout.block_cyclic(comm, 10, 1, dtype=np.uint8)
        self.stale_layout.free()
        self.stale_plan = collio.Plan(comm, self.lay, "serial")
        self.stale_plan.free()
        self.stale_file = collio.File(comm, self.other, "w")
        self.stale_file.abort()
        idx = partition(200, comm.size)[0][comm.rank]
        self.idx = idx
        self.own = np.ones(len(idx), np.uint8)

    def close(self):
        self.rfile.close()
        for p in (self.plan, self.fplan, self.plan2):
            p.free()


@pytest.fixture
def ctx(comm, path):
    c = Ctx(comm, path)
    yield c
    c.close()


def pick(bad, bad_value, good_value):
    return bad_value if bad else good_value


class Lazy:
    """A bad value computed from the context (values themselves may be
    callable: dtype=object)."""

    def __init__(self, fn):
        self.fn = fn


def value(v, c):
    return v.fn(c) if isinstance(v, Lazy) else v


def needs_two_ranks(c):
    if c.P == 1:  # one rank closed and another open needs two ranks
        pytest.skip("a handle closed on one rank only needs 2 ranks")


# ------------------------------------------------------------ the cases
#
# (id, call(ctx, f, bad), builtin class, code). `f` is the live CREATE
# file of the case's with block; `bad` is True on the one bad rank.

ARG, BUF = collio.ERR_ARG, collio.ERR_BUFSIZE
CASES = []


def case(entry, arg, what, builtin, code=ARG):
    def deco(fn):
        CASES.append(("%s-%s-%s" % (entry, arg, what), fn, builtin, code))
        return fn
    return deco


def bc_case(arg, what, bad_value, builtin):
    """Layout.block_cyclic with one keyword flipped."""
    good = dict(nx=1000, bx=4, dtype=np.float32, esize=None)

    def call(c, f, bad):
        kw = dict(good)
        if bad:
            kw[arg] = bad_value
        collio.Layout.block_cyclic(c.comm, **kw)
    CASES.append(("Layout.block_cyclic-%s-%s" % (arg, what), call, builtin, ARG))


bc_case("nx", "str", "1000", TypeError)
bc_case("nx", "float", 1000.0, TypeError)
bc_case("nx", "none", None, TypeError)
bc_case("nx", "2**63", 2 ** 63, OverflowError)
bc_case("bx", "none", None, TypeError)
bc_case("bx", "2**64", 2 ** 64, OverflowError)
bc_case("bx", "-2**63-1", -2 ** 63 - 1, OverflowError)
bc_case("dtype", "unknown", "not-a-dtype", TypeError)
bc_case("dtype", "missing", None, TypeError)
bc_case("dtype", "object", object, TypeError)


def bc_esize(what, value, builtin):
    def call(c, f, bad):
        collio.Layout.block_cyclic(c.comm, 1000, 4, esize=pick(bad, value, 4))
    CASES.append(("Layout.block_cyclic-esize-%s" % what, call, builtin, ARG))


bc_esize("negative", -1, OverflowError)
bc_esize("2**64", 2 ** 64, OverflowError)
bc_esize("str", "4", TypeError)


def da_case(arg, what, bad_value, builtin):
    """Layout.darray with one argument flipped (the context's C layout)."""
    def call(c, f, bad):
        kw = dict(gsizes=c.gsizes, psizes=c.grid, distribs=["block", "block"],
                  dargs=[0, 0], order="C", dtype=np.float64)
        if bad:
            kw[arg] = value(bad_value, c)
        collio.Layout.darray(c.comm, **kw)
    CASES.append(("Layout.darray-%s-%s" % (arg, what), call, builtin, ARG))


da_case("gsizes", "int", 7, TypeError)
da_case("gsizes", "str-entry", Lazy(lambda c: [c.gsizes[0], "4"]), TypeError)
da_case("gsizes", "2**63", Lazy(lambda c: [c.gsizes[0], 2 ** 63]), OverflowError)
da_case("gsizes", "extra-dim", Lazy(lambda c: list(c.gsizes) + [1]), ValueError)
da_case("gsizes", "9-dims", [1] * 9, ValueError)
da_case("psizes", "2**32+1", Lazy(lambda c: [c.grid[0], 2 ** 32 + c.grid[1]]), OverflowError)
da_case("psizes", "float", Lazy(lambda c: [c.grid[0], float(c.grid[1])]), TypeError)
da_case("psizes", "str", "ab", TypeError)
da_case("distribs", "unknown", ["block", "blok"], ValueError)
da_case("distribs", "2**31", ["block", 2 ** 31], OverflowError)
da_case("distribs", "str", "block", TypeError)
da_case("dargs", "none-entry", [0, None], TypeError)
da_case("dargs", "2**63", [0, 2 ** 63], OverflowError)
da_case("order", "unknown", "X", ValueError)
da_case("order", "none", None, ValueError)
da_case("dtype", "unknown", "bogus", TypeError)


def il_case(arg, what, bad_value, builtin, replicated=False):
    """Layout.index_list / index_list_replicated with one argument flipped."""
    def call(c, f, bad):
        kw = dict(nglobal=200, indices=c.idx, dtype=np.int16)
        if replicated:
            kw["owned"] = c.own
        if bad:
            kw[arg] = value(bad_value, c)
        if replicated:
            collio.Layout.index_list_replicated(c.comm, **kw)
        else:
            collio.Layout.index_list(c.comm, **kw)
    entry = "Layout.index_list_replicated" if replicated else "Layout.index_list"
    CASES.append(("%s-%s-%s" % (entry, arg, what), call, builtin, ARG))


il_case("nglobal", "str", "200", TypeError)
il_case("nglobal", "2**63", 2 ** 63, OverflowError)
il_case("indices", "floats", Lazy(lambda c: c.idx + 0.5), TypeError)
il_case("indices", "strings", ["a", "b"], TypeError)
il_case("indices", "uint64-2**63", np.array([2 ** 63], np.uint64), OverflowError)
il_case("indices", "python-2**70", [2 ** 70], OverflowError)
il_case("indices", "none", None, TypeError)
il_case("indices", "ragged", [[1, 2], [3]], ValueError)
il_case("dtype", "object", object, TypeError)
il_case("indices", "floats", Lazy(lambda c: c.idx + 0.5), TypeError, replicated=True)
il_case("owned", "short", Lazy(lambda c: c.own[:-1] if len(c.own) else [1]), ValueError,
        replicated=True)
il_case("owned", "value-2", Lazy(lambda c: c.own * 2 + 2), ValueError, replicated=True)
il_case("owned", "str", "abc", TypeError, replicated=True)
il_case("owned", "floats", Lazy(lambda c: c.own + 0.5), TypeError, replicated=True)


def file_case(arg, what, bad_value, builtin):
    """File(...) of another path with one argument flipped."""
    def call(c, f, bad):
        kw = dict(path=c.other, mode="w", backend="posix", base_offset=0, sync=False,
                  info=None)
        if bad:
            kw[arg] = bad_value
        with collio.File(c.comm, **kw):
            pass
    CASES.append(("File-%s-%s" % (arg, what), call, builtin, ARG))


file_case("path", "none", None, TypeError)
file_case("path", "int", 42, TypeError)
file_case("path", "nul", "a\0b", ValueError)
file_case("mode", "unknown", "bogus", ValueError)
file_case("mode", "2**40", 2 ** 40, OverflowError)
file_case("mode", "none", None, TypeError)
file_case("mode", "float", 1.5, TypeError)
file_case("backend", "unknown", "nfs", ValueError)
file_case("backend", "2**31", 2 ** 31, OverflowError)
file_case("backend", "list", [], TypeError)
file_case("base_offset", "str", "0", TypeError)
file_case("base_offset", "2**63", 2 ** 63, OverflowError)
file_case("base_offset", "float", 0.5, TypeError)
file_case("sync", "ambiguous", np.array([1, 2]), ValueError)
file_case("info", "str", "hints", TypeError)
file_case("info", "dict", {}, TypeError)


@case("File.close", "self", "closed", ValueError)
def _(c, f, bad):
    needs_two_ranks(c)
    pick(bad, c.stale_file, f).close()


@case("File.abort", "self", "closed", ValueError)
def _(c, f, bad):
    needs_two_ranks(c)
    pick(bad, c.stale_file, f).abort()


def plan_case(arg, what, bad_kw, builtin, code=ARG):
    """Plan(...) with one argument or option flipped (bad_kw: the keyword
    arguments that replace the good ones on the bad rank). The options are
    hints: keys and values a bad rank's own collio_hints_set refuses
    (ValueError; ERR_STRATEGY for an unknown strategy name) are raised on
    every rank like the bindings' own checks."""
    def call(c, f, bad):
        kw = dict(layout=c.lay, strategy="multiphase")
        if bad:
            kw.update(value(bad_kw, c))
        with collio.Plan(c.comm, **kw):
            pass
    CASES.append(("Plan-%s-%s" % (arg, what), call, builtin, code))


def _info(**kv):
    """An MPI.Info of kv (keys with dots: pass them as a dict)."""
    info = MPI.Info.Create()
    for k, v in kv.items():
        info.Set(k.replace("__", "."), v)
    return info


plan_case("layout", "none", dict(layout=None), TypeError)
plan_case("layout", "str", dict(layout="layout"), TypeError)
plan_case("layout", "freed", Lazy(lambda c: dict(layout=c.stale_layout)), ValueError)
plan_case("strategy", "none", dict(strategy=None), TypeError)
plan_case("strategy", "int", dict(strategy=5), TypeError)
plan_case("strategy", "nul", dict(strategy="multi\0phase"), ValueError)
plan_case("options", "str", dict(options="x"), TypeError)
plan_case("options", "list", dict(options=[("multiphase", {})]), TypeError)
plan_case("options", "unknown-key", dict(options={"bogus": 1}), TypeError)
plan_case("kw", "unknown-key", dict(bogus=1), TypeError)
plan_case("destroy_input", "str", dict(destroy_input="yes"), TypeError)
plan_case("destroy_input", "none", dict(destroy_input=None), TypeError)
plan_case("destroy_input", "2**31", dict(destroy_input=2 ** 31), ValueError)
plan_case("destroy_input", "2", dict(destroy_input=2), ValueError)
plan_case("keep_buffers", "none", dict(keep_buffers=None), TypeError)
plan_case("keep_buffers", "float", dict(keep_buffers=1.0), TypeError)
plan_case("plan", "unknown-key", dict(plan={"keep_buffer": 1}), TypeError)
plan_case("serial", "int", dict(serial=5), TypeError)
plan_case("serial.chunk_bytes", "2**63", dict(serial={"chunk_bytes": 2 ** 63}),
          ValueError)
plan_case("serial.chunk_bytes", "0", dict(serial={"chunk_bytes": 0}), ValueError)
plan_case("serial.chunk_bytes", "str", dict(serial={"chunk_bytes": "1"}), TypeError)
plan_case("independent.max_iov", "float", dict(independent={"max_iov": 1.5}), TypeError)
plan_case("independent.max_iov", "-2**63-1", dict(independent={"max_iov": -2 ** 63 - 1}),
          ValueError)
plan_case("multiphase.phases", "2**32", dict(multiphase={"phases": 2 ** 32}), ValueError)
plan_case("multiphase.phases", "-1", dict(multiphase={"phases": -1}), ValueError)
plan_case("multiphase", "unknown-key", dict(multiphase={"phase": 1}), TypeError)
plan_case("multiphase", "keep_buffers", dict(multiphase={"keep_buffers": 1}), TypeError)
plan_case("multiphase.write_rounds", "2**31", dict(multiphase={"write_rounds": 2 ** 31}),
          ValueError)
plan_case("multiphase.exchange", "unknown", dict(multiphase={"exchange": "nope"}),
          ValueError)
plan_case("multiphase.exchange", "2**32", dict(multiphase={"exchange": 2 ** 32}),
          ValueError)
plan_case("multiphase.exchange", "2**64", dict(multiphase={"exchange": 2 ** 64}),
          OverflowError)
plan_case("multiphase.exchange", "float", dict(multiphase={"exchange": 1.0}), TypeError)
plan_case("multiphase.shared_memory", "str", dict(multiphase={"shared_memory": "1"}),
          TypeError)
plan_case("subgroup.group", "-2**32+2", dict(subgroup={"group": -2 ** 32 + 2}),
          ValueError)
plan_case("subgroup.inner", "int", dict(subgroup={"inner": 5}), TypeError)
plan_case("subgroup.inner", "nul", dict(subgroup={"inner": "a\0b"}), ValueError)
plan_case("subgroup.inner", "unknown", dict(subgroup={"inner": "nope"}), ValueError,
          collio.ERR_STRATEGY)
plan_case("replicas.policy", "unknown", dict(replicas={"policy": "nobody"}), ValueError)
plan_case("replicas.seed", "-1", dict(replicas={"seed": -1}), ValueError)
plan_case("replicas.seed", "2**64", dict(replicas={"seed": 2 ** 64}), ValueError)
plan_case("replicas.seed", "float", dict(replicas={"seed": 1.0}), TypeError)
plan_case("hints", "int", dict(hints=5), TypeError)
plan_case("hints", "dict", dict(hints={"multiphase.phases": 1}), TypeError)
plan_case("hints", "nul", dict(hints="multiphase.phases=1\0"), ValueError)
plan_case("hints", "unknown-key", dict(hints="multiphase.phase=1"), ValueError)
plan_case("hints", "unknown-section", dict(hints="nosuch.key=1"), ValueError)
plan_case("hints", "not-key-value", dict(hints="multiphase.phases"), ValueError)
plan_case("hints", "bad-value", dict(hints="multiphase.exchange=direct,multiphase.phases=x"),
          ValueError)
plan_case("hints", "unknown-inner", dict(hints="subgroup.inner=nope"), ValueError,
          collio.ERR_STRATEGY)
plan_case("info", "str", dict(info="multiphase.phases=1"), TypeError)
plan_case("info", "dict", dict(info={"multiphase.phases": "1"}), TypeError)
plan_case("info", "bad-value", Lazy(lambda c: dict(info=_info(multiphase__phases="33"))),
          ValueError)
plan_case("info", "unknown-key", Lazy(lambda c: dict(info=_info(replicas__polic="idg"))),
          ValueError)


def write_case(arg, what, bad_value, builtin, code=ARG, fortran=False):
    """Plan.write into the live CREATE file, one argument flipped. bad_value:
    a function of (ctx, f) giving (plan, file, array) on the bad rank."""
    def call(c, f, bad):
        plan, arr = (c.fplan, np.asfortranarray(c.block)) if fortran else (c.plan, c.block)
        args = (plan, f, arr)
        if bad:
            args = bad_value(c, f, *args)
        args[0].write(args[1], args[2])
    CASES.append(("Plan.write-%s-%s" % (arg, what), call, builtin, code))


write_case("self", "freed", lambda c, f, p, ff, a: (c.stale_plan, ff, a), ValueError)
write_case("file", "none", lambda c, f, p, ff, a: (p, None, a), TypeError)
write_case("file", "str", lambda c, f, p, ff, a: (p, c.path, a), TypeError)
write_case("file", "closed", lambda c, f, p, ff, a: (p, c.stale_file, a), ValueError)
write_case("array", "fortran-order", lambda c, f, p, ff, a: (p, ff, np.asfortranarray(a)),
           ValueError)
write_case("array", "c-order-for-F-layout",
           lambda c, f, p, ff, a: (p, ff, np.ascontiguousarray(a)), ValueError,
           fortran=True)
write_case("array", "transposed-view", lambda c, f, p, ff, a: (p, ff, a.T), ValueError)
write_case("array", "none", lambda c, f, p, ff, a: (p, ff, None), TypeError, BUF)
write_case("array", "list", lambda c, f, p, ff, a: (p, ff, a.tolist()), TypeError, BUF)
write_case("array", "strided",
           lambda c, f, p, ff, a: (p, ff, np.repeat(a, 2, axis=1)[:, ::2]), ValueError, BUF)
write_case("array", "itemsize",
           lambda c, f, p, ff, a: (p, ff, np.zeros(2 * a.size, np.float32)), ValueError, BUF)
write_case("array", "short", lambda c, f, p, ff, a: (p, ff, a.ravel()[:-1]), ValueError, BUF)
write_case("array", "object",
           lambda c, f, p, ff, a: (p, ff, np.array([None] * a.size, dtype=object)), TypeError)
write_case("array", "datetime",
           lambda c, f, p, ff, a: (p, ff, np.zeros(a.size, "M8[s]")), ValueError, BUF)


def read_case(arg, what, bad_value, builtin, code=ARG, fortran=False):
    """Plan.read from the data file, one argument flipped (bad_value as for
    write_case)."""
    def call(c, f, bad):
        plan = c.fplan if fortran else c.plan
        arr = np.zeros((3, 4), order="F" if fortran else "C")
        args = (plan, c.rfile, arr)
        if bad:
            args = bad_value(c, f, *args)
        args[0].read(args[1], args[2])
    CASES.append(("Plan.read-%s-%s" % (arg, what), call, builtin, code))


def _readonly(a):
    a = a.copy()
    a.flags.writeable = False
    return a


read_case("self", "freed", lambda c, f, p, ff, a: (c.stale_plan, ff, a), ValueError)
read_case("file", "closed", lambda c, f, p, ff, a: (p, c.stale_file, a), ValueError)
read_case("file", "int", lambda c, f, p, ff, a: (p, 3, a), TypeError)
read_case("array", "fortran-order", lambda c, f, p, ff, a: (p, ff, np.asfortranarray(a)),
          ValueError)
read_case("array", "c-order-for-F-layout",
          lambda c, f, p, ff, a: (p, ff, np.ascontiguousarray(a)), ValueError, fortran=True)
read_case("array", "read-only", lambda c, f, p, ff, a: (p, ff, _readonly(a)), ValueError, BUF)
read_case("array", "bytes", lambda c, f, p, ff, a: (p, ff, bytes(a.nbytes)), ValueError, BUF)
read_case("array", "long", lambda c, f, p, ff, a: (p, ff, np.zeros(a.size + 1)), ValueError,
          BUF)


@case("Plan.free", "self", "closed", ValueError)
def _(c, f, bad):
    needs_two_ranks(c)
    pick(bad, c.stale_plan, c.plan2).free()


def h5_case(arg, what, bad_value, builtin):
    def call(c, f, bad):
        if not collio.have_h5():
            pytest.skip("libcollio built without HDF5")
        kw = dict(h5_path=c.h5, raw_path=c.data, dtype=np.float64, shape=c.gsizes,
                  order="C", base_offset=0, dataset="data")
        if bad:
            kw[arg] = bad_value
        collio.describe_h5(c.comm, **kw)
    CASES.append(("describe_h5-%s-%s" % (arg, what), call, builtin, ARG))


h5_case("h5_path", "none", None, TypeError)
h5_case("raw_path", "int", 5, TypeError)
h5_case("dtype", "unknown", "bogus", TypeError)
h5_case("dtype", "complex", np.complex64, ValueError)
h5_case("dtype", "object", object, TypeError)
h5_case("shape", "str", "ab", TypeError)
h5_case("shape", "2**63", [2 ** 63], OverflowError)
h5_case("order", "unknown", "Q", ValueError)
h5_case("base_offset", "str", "0", TypeError)
h5_case("dataset", "none", None, TypeError)
h5_case("dataset", "nul", "a\0b", ValueError)


def test_every_entry_point_has_cases():
    entries = {c[0].split("-")[0] for c in CASES}
    assert entries == {
        "Layout.block_cyclic", "Layout.darray", "Layout.index_list",
        "Layout.index_list_replicated", "File", "File.close", "File.abort", "Plan",
        "Plan.write", "Plan.read", "Plan.free", "describe_h5"}
    ids = [c[0] for c in CASES]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("k", range(len(CASES)), ids=[c[0] for c in CASES])
def test_one_rank_bad_argument(comm, ctx, k):
    name, call, builtin, code = CASES[k]
    bad_rank = k % comm.size
    bad = comm.rank == bad_rank
    fill_previous(comm, ctx.path)
    with pytest.raises(collio.ArgumentError) as ei:
        with collio.File(comm, ctx.path, "w") as f:  # CREATE, being written
            call(ctx, f, bad)
    check_agreed_error(comm, ei.value, bad_rank, builtin, code)
    # the failed call and the with block's abort left the previous file
    check_untouched(comm, ctx.path)
    if name.startswith("File-"):
        check_untouched(comm, ctx.other, None)  # never opened: nothing made
    # the ranks are still in step: the live plan writes a correct file
    with collio.File(comm, ctx.path, "w") as f:
        ctx.plan.write(f, ctx.block)
    check_untouched(comm, ctx.path, expected(
        np.arange(np.prod(ctx.gsizes)), np.float64).tobytes())


WRITE_AFTER = ["Plan.write-array-fortran-order", "Plan.write-array-short",
               "Plan.write-file-closed", "Plan.write-self-freed"]


@pytest.mark.parametrize("name", WRITE_AFTER)
def test_failed_write_then_close_commits_the_good_write(comm, ctx, name):
    """A good write, then one rank's bad write (raised everywhere), then
    close: the file holds the good write, byte for byte -- the failed call
    changed nothing and left the file usable."""
    k = [c[0] for c in CASES].index(name)
    _, call, builtin, code = CASES[k]
    bad_rank = (comm.size - 1 - k) % comm.size
    fill_previous(comm, ctx.path)
    want = expected(np.arange(np.prod(ctx.gsizes)), np.float64).tobytes()
    with collio.File(comm, ctx.path, "w") as f:
        ctx.plan.write(f, ctx.block)
        with pytest.raises(collio.ArgumentError) as ei:
            call(ctx, f, comm.rank == bad_rank)
        check_agreed_error(comm, ei.value, bad_rank, builtin, code)
        check_untouched(comm, ctx.path, open_create=True)  # not committed yet
    check_untouched(comm, ctx.path, want)


# ----------------------------------------------------------- memory order

def darray_block(gsizes, grid, rank, order):
    """(global array A in `order`, this rank's block of A) for BLOCK
    distributions in every dimension, computed in numpy."""
    n = int(np.prod(gsizes))
    A = expected(np.arange(n), np.float64).reshape(gsizes, order=order)
    coords = np.unravel_index(rank, grid)
    sl = []
    for g, p, c in zip(gsizes, grid, coords):
        b = -(-g // p)
        sl.append(slice(min(c * b, g), min((c + 1) * b, g)))
    return A, A[tuple(sl)]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("gsizes", [(6, 8), (5, 3, 4)], ids=["2d", "3d"])
def test_darray_ordered_arrays_roundtrip(comm, path, order, gsizes):
    """A darray's local block as a numpy array of the layout's order
    round-trips: the file equals the global array raveled in that order
    (numpy's reference), the read fills an array of that order."""
    grid = [comm.size] + [1] * (len(gsizes) - 1)
    lay = collio.Layout.darray(comm, gsizes, grid, ["block"] + ["none"] * (len(gsizes) - 1),
                               order=order, dtype=np.float64)
    A, mine = darray_block(gsizes, grid, comm.rank, order)
    local = np.asfortranarray(mine) if order == "F" else np.ascontiguousarray(mine)
    with collio.Plan(comm, lay, "multiphase") as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, local)
        want = A.ravel(order=order).tobytes()
        check_untouched(comm, path, want)
        back = np.zeros(local.shape, order=order)
        with collio.File(comm, path, "r") as f:
            plan.read(f, back)
    agree(comm, np.array_equal(back, mine), "read back differs")


def rejected_everywhere(comm, fn, code=collio.ERR_ARG):
    with pytest.raises(collio.ArgumentValueError) as ei:
        fn()
    assert ei.value.code == code
    agree(comm, True)
    return ei.value


def test_fortran_arrays_rejected_for_c_layouts(comm, path):
    """Fortran-ordered arrays (more than one axis longer than 1) are
    rejected, on write and read and on every rank, for C-order darrays,
    block-cyclic layouts of a subarray dtype ((n, 3) arrays) and index
    lists; the file is left as it was."""
    P = comm.size
    fill_previous(comm, path)
    c_darray = collio.Layout.darray(comm, (2 * P, 5), [P, 1], dtype=np.float64)
    vec3 = np.dtype(("<f8", 3))
    bc = collio.Layout.block_cyclic(comm, 4 * P, 2, dtype=vec3)   # 4 x 3 per rank
    idx = np.arange(comm.rank, 5 * P, P)                          # 5 x 3 per rank
    il = collio.Layout.index_list(comm, 5 * P, idx, dtype=vec3)
    for lay, shape in ((c_darray, (2, 5)), (bc, (4, 3)), (il, (5, 3))):
        good = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        with collio.Plan(comm, lay, "two_phase") as plan:
            with collio.File(comm, path, "w") as f:
                e = rejected_everywhere(comm, lambda: plan.write(f, np.asfortranarray(good)))
                assert "Fortran-ordered" in e.detail and "C-contiguous" in e.detail
                f.abort()
            check_untouched(comm, path)
            with collio.File(comm, path, "r") as f:
                rejected_everywhere(comm, lambda: plan.read(
                    f, np.zeros(shape, order="F")))
                # rows of length 1 are both C and F: accepted (read succeeds
                # or fails on the data, not on the order)
            # the correctly ordered array writes the elements where numpy says
            with collio.File(comm, path, "w") as f:
                plan.write(f, good)
            gi = lay.global_indices()
            ok, msg = True, ""
            allv = comm.gather((gi, good), root=0)
            if comm.rank == 0:
                n = lay.global_count
                ref = np.zeros((n, lay.esize // 8))
                for g, v in allv:
                    ref[g] = v.reshape(len(g), -1)
                got = np.fromfile(path, dtype=np.float64).reshape(ref.shape)
                ok = np.array_equal(got, ref)
                msg = "file differs from the numpy reference"
            ok, msg = comm.bcast((ok, msg), root=0)
            assert ok, msg
            fill_previous(comm, path)


def test_c_arrays_rejected_for_fortran_darray(comm, path):
    P = comm.size
    lay = collio.Layout.darray(comm, (3, 2 * P), [1, P], order="F", dtype=np.int32)
    with collio.Plan(comm, lay, "multiphase") as plan, collio.File(comm, path, "w") as f:
        e = rejected_everywhere(comm, lambda: plan.write(f, np.zeros((3, 2), np.int32)))
        assert "Fortran-order darray" in e.detail and "F-contiguous" in e.detail
        f.abort()


def test_one_d_arrays_and_unit_axes_accepted(comm, path):
    """Arrays with at most one axis longer than 1 are both C- and
    F-contiguous: accepted by every layout."""
    P = comm.size
    lay = collio.Layout.darray(comm, (P, 6), [P, 1], order="F", dtype=np.float64)
    A, mine = darray_block((P, 6), [P, 1], comm.rank, "F")  # a 1 x 6 block
    with collio.Plan(comm, lay, "multiphase") as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, np.ascontiguousarray(mine))  # (1, 6), C order: fine
        check_untouched(comm, path, A.ravel(order="F").tobytes())
        with collio.File(comm, path, "r") as f:
            back = plan.read(f)
    agree(comm, np.array_equal(back, mine.ravel()))


# ------------------------------------------------------ option integers

OUT_OF_RANGE = [
    dict(multiphase={"phases": 2 ** 32}),
    dict(multiphase={"phases": 33}),
    dict(subgroup={"group": -2 ** 32 + 2}),
    dict(replicas={"seed": -1}),
    dict(replicas={"seed": 2 ** 64}),
    dict(serial={"chunk_bytes": 2 ** 63}),
    dict(independent={"max_iov": -2 ** 63 - 1}),
    dict(destroy_input=2 ** 31),
    dict(keep_buffers=-2 ** 31 - 1),
    dict(multiphase={"exchange": 2 ** 32 + 2}),
    dict(replicas={"policy": -2 ** 31 - 1}),
]


def _key_of(opts):
    k, v = next(iter(opts.items()))
    return "%s.%s" % (k, next(iter(v))) if isinstance(v, dict) else "plan." + k


@pytest.mark.parametrize("opts", OUT_OF_RANGE, ids=lambda o: repr(o).replace(" ", ""))
@pytest.mark.parametrize("where", ["every-rank", "last-rank"])
def test_option_values_out_of_range(comm, opts, where):
    """An integer the option's range (the library's catalogue) does not
    take -- never wrapped or truncated on the way -- raises on every rank,
    the detail naming the hint with what it takes."""
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    bad = where == "every-rank" or comm.rank == comm.size - 1
    with pytest.raises(collio.ArgumentValueError) as ei:
        collio.Plan(comm, lay, "multiphase", **(opts if bad else {}))
    e = ei.value
    assert isinstance(e, ValueError) and e.code == collio.ERR_ARG
    assert e.rank == (0 if where == "every-rank" else comm.size - 1)
    assert ("hint %s = " % _key_of(opts)) in e.detail
    assert "takes" in e.detail or "is not the index" in e.detail
    agree(comm, True)


def test_option_ints_c_layer_checks_too(comm):
    """The extension itself never truncates: an integer outside int64_t
    handed to it directly raises OverflowError, and text goes to the
    library, which refuses values out of the option's range (every rank
    passes the same value here)."""
    h = collio._collio.hints_create()
    with pytest.raises(OverflowError):
        collio._collio.hints_set(h, "multiphase.exchange", 2 ** 64 + 2)
    with pytest.raises(collio.Error) as ei:
        collio._collio.hints_set(h, "multiphase.phases", str(2 ** 32 + 1))
    assert ei.value.code == collio.ERR_ARG
    assert "multiphase.phases" in ei.value.detail
    assert collio._collio.hints_items(h) == []
    with pytest.raises(OverflowError):
        collio._collio.layout_darray(comm, [4], [1], [0], [2 ** 32 + 1], 0, 8)
    agree(comm, True)


def test_option_ints_at_their_limits_are_not_truncated(comm):
    """group = 2**31 - 1 is one group (g >= P): a truncation would have made
    it a negative (ERR_ARG) or small group; seed = 2**64 - 1 is a valid
    uint64; the largest int is not a number of phases (0..32)."""
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    with collio.Plan(comm, lay, "subgroup", subgroup={"group": 2 ** 31 - 1}) as plan:
        assert plan.stats()["subgroup"]["ngroups"] == 1
        assert plan.hints()["subgroup.group"] == str(2 ** 31 - 1)
    with collio.Plan(comm, lay, "multiphase", replicas={"seed": 2 ** 64 - 1}) as plan:
        assert plan.hints()["replicas.seed"] == str(2 ** 64 - 1)
    with pytest.raises(collio.ArgumentValueError) as ei:
        collio.Plan(comm, lay, "multiphase", multiphase={"phases": 2 ** 31 - 1})
    assert ei.value.code == collio.ERR_ARG
    assert "from 0 to 32" in ei.value.detail


# ---------------------------------------- entry points mixed across ranks

def test_different_entry_points_at_once(comm, path):
    """One rank reads while the others write: ERR_MISMATCH on every rank,
    before collio is entered."""
    if comm.size == 1:
        pytest.skip("needs 2 ranks")
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    data = expected(lay.global_indices(), np.float32)
    fill_previous(comm, path)
    with collio.Plan(comm, lay, "multiphase") as plan:
        with pytest.raises(collio.Error) as ei:
            with collio.File(comm, path, "w") as f:
                if comm.rank == 0:
                    plan.read(f, data.copy())
                else:
                    plan.write(f, data)
        assert ei.value.code == collio.ERR_MISMATCH
        assert "called different collio functions" in ei.value.detail
        assert "Plan.read" in ei.value.detail and "Plan.write" in ei.value.detail
    check_untouched(comm, path)


def test_exception_on_one_rank_in_a_with_block(comm, path):
    """An exception on one rank inside ``with File(...)``: that rank
    aborts, the others close; every rank then aborts (the previous file
    stays), close raises ERR_IO where it was called."""
    lay = collio.Layout.block_cyclic(comm, 100, 3, dtype=np.float32)
    data = expected(lay.global_indices(), np.float32)
    fill_previous(comm, path)
    bad = comm.rank == comm.size - 1
    with collio.Plan(comm, lay, "multiphase") as plan:
        with pytest.raises(KeyError if bad else collio.Error) as ei:
            with collio.File(comm, path, "w") as f:
                plan.write(f, data)
                if bad:
                    raise KeyError("only here")
        if not bad:
            assert ei.value.code == collio.ERR_IO
            assert "rank %d aborted" % (comm.size - 1) in ei.value.detail
        assert f.closed
    check_untouched(comm, path)


def test_plan_outlives_its_layout(comm, path):
    """A plan keeps what write/read check: the layout may be freed (locally)
    right after Plan(...); read without an array still makes one."""
    lay = collio.Layout.block_cyclic(comm, 500, 6, dtype=np.int16)
    idx = lay.global_indices()
    plan = collio.Plan(comm, lay, "two_phase")
    lay.free()
    assert lay.closed
    with pytest.raises(ValueError):
        lay.buffer_bytes  # local: a freed layout
    with plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, expected(idx, np.int16))
        with collio.File(comm, path, "r") as f:
            back = plan.read(f)
    check_untouched(comm, path, expected(np.arange(500), np.int16).tobytes())
    agree(comm, back.dtype == np.int16 and np.array_equal(back, expected(idx, np.int16)))
