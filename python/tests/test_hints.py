"""Plan options as hints: the catalogue (collio.options(), collio.statistics())
against what include/collio.h documents and the library's other calls say,
every way of giving hints (keywords, options dict, hints string, MPI.Info,
COLLIO_HINTS) and their precedence, read back with Plan.hints(), the
effect of hints on what a plan does (its statistics, against counts
computed here), the statistics by key, and the errors -- one rank's bad
hint raising on every rank.

Writes are checked as in test_collio.py: rank 0 reads the file with numpy
and compares every element with a numpy formula of its index.
"""
import os

import numpy as np
import pytest
from mpi4py import MPI

import collio
from test_collio import agree, expected, held_block_cyclic, raises_everywhere, replicated, \
    roundtrip

TYPES = {"int", "size", "bool", "name", "strategy", "uint64", "path"}


def vector(comm, n=1000, bx=4):
    lay = collio.Layout.block_cyclic(comm, n, bx, dtype=np.float32)
    return lay, held_block_cyclic(n, bx, comm.size, comm.rank)


@pytest.fixture
def env_hints():
    """Sets COLLIO_HINTS for the test (per rank), restoring it after."""
    old = os.environ.get("COLLIO_HINTS")

    def set_(v):
        if v is None:
            os.environ.pop("COLLIO_HINTS", None)
        else:
            os.environ["COLLIO_HINTS"] = v
    yield set_
    set_(old)


# ------------------------------------------------------------ catalogue

def test_options_catalogue():
    opts = collio.options()
    keys = [o["key"] for o in opts]
    assert len(keys) == len(set(keys))
    for o in opts:
        assert set(o) == {"key", "type", "default", "range", "doc"}
        sec, dot, name = o["key"].partition(".")
        assert dot and sec and name, o
        assert o["type"] in TYPES and o["doc"], o
    sections = [k.split(".")[0] for k in keys]
    # "plan", "replicas", "request", then the strategies in registry order
    order = list(dict.fromkeys(sections))
    assert order[:3] == ["plan", "replicas", "request"]
    strategies = collio.strategy_names()
    assert all(s in strategies for s in order[3:])
    assert [s for s in strategies if s in order] == order[3:]
    by = {o["key"]: o for o in opts}
    # what include/collio.h documents, and the library's other names
    assert by["multiphase.phases"]["range"] == "0..32"  # a phase per bit of a rank
    assert by["multiphase.exchange"]["range"].split("|") == collio.exchange_names()
    assert by["replicas.policy"]["range"].split("|") == collio.replicas_names()
    # every option of type name: option_values lists its range, in order
    for key, o in by.items():
        want = o["range"].split("|") if o["type"] == "name" else []
        assert collio.option_values(key) == want, key
    assert collio.option_values("auto.only")[:3] == ["any", "serial", "independent"]
    assert collio.option_values("no.such") == []
    assert by["multiphase.exchange"]["default"] == "auto"
    assert by["replicas.policy"]["default"] == "auto"
    assert by["subgroup.inner"]["type"] == "strategy"
    assert by["subgroup.inner"]["default"] in strategies
    assert {"plan.destroy_input", "plan.keep_buffers"} <= set(keys)
    assert "multiphase.keep_buffers" not in keys
    # a copy: changing it changes nothing
    opts[0]["key"] = "x"
    assert collio.options()[0]["key"] != "x"


def test_defaults_are_what_a_plan_runs_with(comm, env_hints):
    env_hints(None)
    lay, _ = vector(comm)
    with collio.Plan(comm, lay, "multiphase") as plan:
        got = plan.hints()
    # a path option without a value (auto.dir) has nothing to say
    named = [o for o in collio.options() if not (o["type"] == "path" and o["default"] == "")]
    want = {o["key"]: o["default"] for o in named}
    assert got == want
    assert list(got) == [o["key"] for o in named]


def test_path_option(comm, env_hints, shared_dir, path):
    """auto.dir takes a str or an os.PathLike; the plan makes its choices
    for that directory's file system at creation -- a write and a read
    there choose nothing (auto.made_s, the time spent choosing at calls,
    stays 0) -- and reports the path as given. Without auto.dir (and no
    calibration: the built-in costs of a local and of a networked file
    system) the read's plan is made at creation only where it is the
    write's or a light one (list I/O): a plan that chose nothing at its
    calls (made_s 0) reads by one of those."""
    import pathlib
    env_hints(None)
    lay, idx = vector(comm)
    data = expected(idx, np.float32)
    for dir_hint in ({"dir": pathlib.Path(shared_dir)}, {}):
        with collio.Plan(comm, lay, "auto", auto=dir_hint) as plan:
            if dir_hint:
                assert plan.hints()["auto.dir"] == shared_dir
            with collio.File(comm, path, "w") as f:
                plan.write(f, data)
            with collio.File(comm, path, "r") as f:
                assert np.array_equal(plan.read(f), data)
            made = plan.stat("auto.made_s")
            if dir_hint:
                assert made == 0
            else:
                # candidate 1 is list I/O (option_values("auto.only")[2])
                write, read = plan.stat("auto.write_choice"), plan.stat("auto.read_choice")
                assert made > 0 or read == write or read == 1
    with collio.Plan(comm, lay, "auto", hints="auto.dir=" + shared_dir) as plan:
        assert plan.hints()["auto.dir"] == shared_dir
    with pytest.raises(ValueError):
        collio.Plan(comm, lay, "auto", auto={"dir": ""})


def test_statistics_catalogue(comm, path):
    stats = collio.statistics()
    keys = [s["key"] for s in stats]
    assert len(keys) == len(set(keys))
    assert all(set(s) == {"key", "per_call", "doc", "count", "length"} and s["doc"]
               for s in stats)
    assert all(isinstance(s["per_call"], bool) for s in stats)
    # many values: multiphase's four per-phase figures, nphases of them used
    many = {s["key"]: s for s in stats if s["count"] != 1}
    assert set(many) == {"multiphase.phase_" + n for n in ("s", "bytes", "tuples", "messages")}
    assert all(s["count"] == 32 and s["length"] == "multiphase.nphases" for s in many.values())
    assert all(s["length"] is None for s in stats if s["count"] == 1)
    lay, idx = vector(comm)
    with collio.Plan(comm, lay, "subgroup", subgroup={"inner": "multiphase"}) as plan:
        with collio.File(comm, path, "w") as f:
            plan.write(f, expected(idx, np.float32))
        st = plan.stats()
        flat = [k for k in keys if "." not in k]
        # the generic statistics are collio_stats' fields
        assert set(flat) == set(st) - {k for k in st if isinstance(st[k], dict)}
        assert st["inspect_s"] > 0 and st["total_s"] > 0
        assert st["file_bytes"] >= 0 and isinstance(st["bytes_sent"], int)
        # the inner multiphase's per-phase figures (the masters run it), one
        # per phase it ran
        mp = st["multiphase"]
        assert len(mp["phase_s"]) == len(mp["phase_bytes"]) == mp["nphases"]
        for k in keys:
            v = plan.stat(k)
            if k in many:
                assert isinstance(v, list) and all(isinstance(x, float) for x in v)
                sec, _, name = k.partition(".")
                assert st[sec][name] == v, k
                continue
            assert isinstance(v, float)
            sec, dot, name = k.partition(".")
            mine = st[sec][name] if dot else st[k]
            if isinstance(mine, str):  # a named option's value, by name
                names = {"multiphase": collio.exchange_names(),
                         "replicas": collio.replicas_names()}[sec]
                assert names[int(v)] == mine, k
            else:
                assert mine == v, k
        # sections with statistics: nested dicts of exactly their keys
        for sec in {k.split(".")[0] for k in keys if "." in k}:
            assert set(st[sec]) == {k.split(".", 1)[1] for k in keys
                                    if k.startswith(sec + ".")}
        with pytest.raises(collio.Error) as ei:
            plan.stat("multiphase.no_such_stat")  # local
        assert ei.value.code == collio.ERR_ARG and "no_such_stat" in ei.value.detail
        with pytest.raises(TypeError):
            plan.stat(3)
    agree(comm, True)


# ------------------------------------------------- sources, precedence

def test_every_source_and_precedence(comm, env_hints):
    """options dict < keywords < info < hints string < COLLIO_HINTS."""
    env_hints(None)
    lay, _ = vector(comm)
    info = MPI.Info.Create()
    info.Set("multiphase.write_rounds", "3")
    info.Set("multiphase.phases", "2")
    info.Set("cb_nodes", "1")              # MPI-IO's: left alone
    try:
        with collio.Plan(comm, lay, "multiphase",
                         options={"multiphase": {"write_rounds": 1, "phases": 1,
                                                 "shared_memory": 0},
                                  "destroy_input": True},
                         multiphase={"write_rounds": 2, "phases": 1},
                         keep_buffers=False,
                         info=info,
                         hints="multiphase.phases=3, serial.chunk_bytes = 16Mi,") as plan:
            h = plan.hints()
        assert h["multiphase.shared_memory"] == "0"      # options dict only
        assert h["plan.destroy_input"] == "1"
        assert h["plan.keep_buffers"] == "0"             # keyword
        assert h["multiphase.write_rounds"] == "3"       # info over keywords
        assert h["multiphase.phases"] == "3"             # hints string over info
        assert h["serial.chunk_bytes"] == str(16 << 20)  # sizes in canonical bytes
        assert "cb_nodes" not in h
        env_hints("multiphase.phases=4,subgroup.group=3")
        with collio.Plan(comm, lay, "multiphase", hints="multiphase.phases=3",
                         subgroup={"group": 2}) as plan:
            h = plan.hints()
        assert h["multiphase.phases"] == "4" and h["subgroup.group"] == "3"
    finally:
        info.Free()


@pytest.mark.parametrize("text,key,want", [
    ("plan.destroy_input=yes", "plan.destroy_input", "1"),
    ("plan.keep_buffers = off", "plan.keep_buffers", "0"),
    ("serial.chunk_bytes=4K", "serial.chunk_bytes", "4096"),
    ("multiphase.exchange=hypercube,,", "multiphase.exchange", "hypercube"),
    ("replicas.seed=18446744073709551615", "replicas.seed", str(2 ** 64 - 1)),
    ("subgroup.inner=independent", "subgroup.inner", "independent"),
])
def test_hints_string_forms(comm, env_hints, text, key, want):
    env_hints(None)
    lay, _ = vector(comm)
    with collio.Plan(comm, lay, "serial", hints=text) as plan:
        assert plan.hints()[key] == want
    agree(comm, True)


def test_keyword_forms(comm, env_hints):
    """Booleans as bool, numpy bool or 0/1; names as names or indices;
    numpy integers; subgroup's inner None = the default."""
    env_hints(None)
    lay, _ = vector(comm)
    with collio.Plan(comm, lay, "serial", destroy_input=np.True_, keep_buffers=0,
                     multiphase={"exchange": collio.exchange_names().index("direct"),
                                 "phases": np.int16(0)},
                     replicas={"policy": "first", "seed": np.uint64(2 ** 64 - 1)},
                     subgroup={"inner": None}) as plan:
        h = plan.hints()
    default_inner = {o["key"]: o["default"] for o in collio.options()}["subgroup.inner"]
    assert h["plan.destroy_input"] == "1" and h["plan.keep_buffers"] == "0"
    assert h["multiphase.exchange"] == "direct" and h["multiphase.phases"] == "0"
    assert h["replicas.policy"] == "first" and h["replicas.seed"] == str(2 ** 64 - 1)
    assert h["subgroup.inner"] == default_inner


def test_keep_buffers_is_a_plan_option(comm):
    lay, _ = vector(comm)
    e = raises_everywhere(comm, collio.ERR_ARG, lambda: collio.Plan(
        comm, lay, "multiphase", multiphase={"keep_buffers": 0}))
    assert isinstance(e, TypeError)
    assert "keep_buffers=..." in e.detail


# ----------------------------------------------- what the hints change

def test_exchange_hint_is_what_runs(comm, path, env_hints):
    env_hints(None)
    lay, idx = vector(comm, 4099, 8)
    for ex in ("hypercube", "direct"):
        st = roundtrip(comm, path, lay, idx, 4099, np.float32, "multiphase",
                       hints="multiphase.exchange=" + ex)
        assert st["multiphase"]["exchange"] == ex
        # by key: its value, option_values("multiphase.exchange")'s index
        assert st["multiphase"]["nphases"] >= (0 if comm.size == 1 else 1)
        assert len(st["multiphase"]["phase_s"]) == st["multiphase"]["nphases"]


def test_subgroup_groups(comm, path, env_hints):
    """subgroup.group = 2: groups of 2 consecutive ranks (the last one
    shorter): ceil(P / 2) groups, this rank's group size, its master the
    group's first rank."""
    env_hints(None)
    lay, idx = vector(comm, 3001, 5)
    st = roundtrip(comm, path, lay, idx, 3001, np.float32, "subgroup",
                   subgroup={"group": 2, "inner": "independent"})
    P, r = comm.size, comm.rank
    g = st["subgroup"]
    assert g["ngroups"] == -(-P // 2)
    assert g["group"] == min(2, P - 2 * (r // 2))
    assert g["master"] == (1 if r % 2 == 0 else 0)


def test_replica_policy_owner_writes_owned(comm, path, env_hints):
    """replicas.policy = owner: each rank writes exactly the elements it
    owns (counted here from the owned flags)."""
    env_hints(None)
    n = 1500
    idx, own = replicated(n, comm.size, comm.rank)
    lay = collio.Layout.index_list_replicated(comm, n, idx, own, dtype=np.float64)
    st = roundtrip(comm, path, lay, idx, n, np.float64, "independent",
                   info=None, hints="replicas.policy=owner")
    assert st["replicas"]["policy"] == "owner"
    assert st["replicas"]["held"] == len(idx)
    assert st["replicas"]["written"] == int(own.sum())


def test_destroy_input_hint(comm, path, env_hints):
    """plan.destroy_input=1 round-trips (the array may change)."""
    env_hints(None)
    lay, idx = vector(comm, 2000, 3)
    roundtrip(comm, path, lay, idx, 2000, np.float32, "multiphase",
              hints="plan.destroy_input=1,plan.keep_buffers=0")


# --------------------------------------------------------------- errors

def test_one_rank_bad_hint_raises_everywhere(comm):
    """A bad hints string on the last rank only: ArgumentValueError on
    every rank, naming that rank and the library's reason."""
    lay, _ = vector(comm)
    last = comm.size - 1
    text = "multiphase.exchange=sideways" if comm.rank == last else "multiphase.exchange=direct"
    e = raises_everywhere(comm, collio.ERR_ARG,
                          lambda: collio.Plan(comm, lay, "multiphase", hints=text))
    assert isinstance(e, collio.ArgumentValueError) and e.rank == last
    assert e.detail.startswith("rank %d: ValueError: " % last)
    assert "hint multiphase.exchange = 'sideways'" in e.detail
    assert "hypercube" in e.detail  # says what it takes


def test_hints_that_differ_are_a_mismatch(comm):
    if comm.size == 1:
        pytest.skip("needs 2 ranks")
    lay, _ = vector(comm)
    raises_everywhere(comm, collio.ERR_MISMATCH, lambda: collio.Plan(
        comm, lay, "serial", hints="multiphase.phases=%d" % (comm.rank % 2)))
    info = MPI.Info.Create()
    info.Set("replicas.seed", str(comm.rank))
    try:
        raises_everywhere(comm, collio.ERR_MISMATCH,
                          lambda: collio.Plan(comm, lay, "serial", info=info))
    finally:
        info.Free()


def test_options_that_do_not_go_together(comm):
    """multiphase.exchange=direct with 1 <= phases < all: the library's
    ERR_ARG at plan creation, on every rank."""
    if comm.size < 4:
        pytest.skip("needs 4 ranks (phases 1 < all)")
    lay, _ = vector(comm)
    e = raises_everywhere(comm, collio.ERR_ARG, lambda: collio.Plan(
        comm, lay, "multiphase", multiphase={"exchange": "direct", "phases": 1}))
    assert not isinstance(e, collio.ArgumentError)


def test_bad_collio_hints_env(comm, env_hints):
    """COLLIO_HINTS is read at plan creation: a bad value there (on one
    rank only) is the library's ERR_ARG on every rank, naming the
    variable; one that differs is ERR_MISMATCH."""
    lay, _ = vector(comm)
    last = comm.size - 1
    env_hints("multiphase.phases=99" if comm.rank == last else None)
    e = raises_everywhere(comm, collio.ERR_ARG, lambda: collio.Plan(comm, lay, "serial"))
    assert "multiphase.phases" in e.detail
    assert not isinstance(e, collio.ArgumentError)
    if comm.size > 1:
        env_hints("subgroup.group=%d" % comm.rank)
        raises_everywhere(comm, collio.ERR_MISMATCH, lambda: collio.Plan(comm, lay, "serial"))
    env_hints(None)
    with collio.Plan(comm, lay, "serial"):
        pass
