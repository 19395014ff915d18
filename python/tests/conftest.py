"""pytest under MPI: every rank runs the same tests in the same order
(scripts/mpirun N python -m pytest -q -p no:cacheprovider python/tests).
Tests only make collective calls in the same order on every rank; checks
that one rank computes (rank 0 reading the file back) are broadcast before
asserting, so a failure fails on every rank instead of leaving the others
waiting in the next collective call.

Every test runs under a watchdog (COLLIO_TEST_TIMEOUT seconds, default
300): a test that hangs -- a rank left waiting in a collective call --
dumps every thread's traceback and ends the process with exit code 1, so
the run fails instead of blocking. (A rank blocked inside MPI never
returns to Python, so a signal handler could not interrupt it;
faulthandler's timer thread can.)"""
import faulthandler
import os
import shutil
import tempfile

import pytest
from mpi4py import MPI


TIMEOUT = float(os.environ.get("COLLIO_TEST_TIMEOUT", "300"))


@pytest.fixture(scope="session")
def _watchdog_out(pytestconfig):
    """The process's real stderr (pytest's capture redirects fd 2 to a
    file that a process ending in os._exit never shows)."""
    fd = 2
    capman = pytestconfig.pluginmanager.getplugin("capturemanager")
    try:
        fd = capman._global_capturing.err.targetfd_save
    except AttributeError:  # not capturing fds, or another pytest: fd 2
        pass
    out = os.fdopen(os.dup(fd), "w")
    yield out
    out.close()


@pytest.fixture(autouse=True)
def watchdog(request, _watchdog_out):
    """Bounds every test: after TIMEOUT seconds the process prints the
    test's name and every thread's traceback and exits (code 1)."""
    out = _watchdog_out
    faulthandler.dump_traceback_later(TIMEOUT, exit=True, file=out)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def comm():
    return MPI.COMM_WORLD


@pytest.fixture(scope="session")
def shared_dir(comm):
    """One temporary directory, the same on every rank (rank 0 makes it)."""
    d = None
    if comm.rank == 0:
        base = os.environ.get("COLLIO_TEST_TMPDIR") or None
        if base:
            os.makedirs(base, exist_ok=True)
        d = tempfile.mkdtemp(prefix="collio-py-", dir=base)
    d = comm.bcast(d, root=0)
    yield d
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def path(shared_dir, request, comm):
    """A file path for this test, agreed on every rank."""
    name = request.node.name
    for ch in "[]/,: ":
        name = name.replace(ch, "_")
    return os.path.join(shared_dir, name + ".bin")


def pytest_configure(config):
    # rank > 0: no progress dots or summary (rank 0 reports; every rank's
    # exit code still counts)
    if MPI.COMM_WORLD.rank > 0:
        config.option.verbose = -2
        config.option.console_output_style = "classic"


def pytest_report_teststatus(report, config):
    # rank > 0: no progress characters for passing tests either
    if MPI.COMM_WORLD.rank > 0 and report.passed:
        return report.outcome, "", ""
    return None
