/*
 * pfs_roundtrip.c -- collio on a networked file system: run by ctest
 * inside scripts/pfs (compute hosts with a FUSE client each, storage hosts
 * serving a GlusterFS volume; docs/pfs.md), one strategy per run.
 *
 *  - the testbed: every rank sees the volume at $COLLIO_PFS_DIR through
 *    its own host's client (the mount's device is that of
 *    $COLLIO_PFS_HOSTS_DIR/hostN, N from the rank's hostname; ranks of
 *    other hosts have other clients), and it is FUSE;
 *  - round trips: block-cyclic layouts (bx = 1, 7, 4096) and a 2-D
 *    darray, through both file backends: a CREATE over a previous file,
 *    the file compared with the independent expectation (testutil:
 *    plain POSIX reads spread over the ranks, so through every host's
 *    client), no temporary left, then read back into a zeroed buffer;
 *    an INPLACE write over the committed file;
 *  - auto (strategy "auto" only): it takes the volume for a networked
 *    file system, and auto.dir naming it makes the choice at plan
 *    creation, the same as the first write there makes without it;
 *  - temporaries across clients: a dead writer's temporary (no lock) is
 *    reaped by the next CREATE; a live writer's -- locked with the
 *    library's own open-file-description lock, through another host's
 *    client -- is passed over (the CREATE takes the next slot) and left
 *    intact, then reaped by the CREATE after its writer let go.
 *
 * Usage: pfs_roundtrip STRATEGY   (e.g. scripts/pfs 2x2+2 scripts/mpirun 4
 * build/tests/pfs_roundtrip multiphase)
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define FUSE_MAGIC 0x65735546UL

static void check_testbed(tu_ctx *t)
{
    tu_case(t, "testbed: each host's own FUSE client at $COLLIO_PFS_DIR");
    const char *dir = getenv("COLLIO_PFS_DIR"), *hosts = getenv("COLLIO_PFS_HOSTS_DIR");
    char host[256] = "", own[1024] = "";
    gethostname(host, sizeof host - 1);
    int n = -1;
    if (sscanf(host, "host%d", &n) == 1 && hosts)
        snprintf(own, sizeof own, "%s/host%d", hosts, n);
    struct stat a, b;
    struct statfs sf;
    int fuse = dir && statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == FUSE_MAGIC;
    TU_CHECK(t, fuse, "%s is a FUSE mount (statfs)", dir ? dir : "$COLLIO_PFS_DIR");
    int ok =
        dir && own[0] && stat(dir, &a) == 0 && stat(own, &b) == 0 && a.st_dev == b.st_dev;
    TU_CHECK(t, ok, "rank on %s: %s is its host's client %s", host, dir ? dir : "?", own);
    /* ranks of one host share a client, ranks of two hosts do not */
    tu_node_map nm;
    tu_node_map_make(t, &nm);
    unsigned long long dev = ok ? (unsigned long long)a.st_dev : 0, *devs;
    devs = malloc(sizeof *devs * (size_t)t->nranks);
    MPI_Allgather(&dev, 1, MPI_UNSIGNED_LONG_LONG, devs, 1, MPI_UNSIGNED_LONG_LONG,
                  t->comm);
    int bad = 0;
    for (int q = 0; q < t->nranks; q++)
        bad += (nm.node_of[q] == nm.node_of[t->rank]) != (devs[q] == dev);
    TU_CHECK(t, bad == 0, "%d ranks disagree: same host <=> same client", bad);
    TU_CHECK(t, nm.M >= 2, "the ranks span %d hosts, want >= 2", nm.M);
    free(devs);
    tu_node_map_free(&nm);
}

static int make_plan(tu_ctx *t, const tu_layout_desc *d, const char *strategy,
                     const collio_hints *h, collio_plan **p)
{
    collio_layout *l = NULL;
    int rc = tu_desc_make(d, t->comm, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, strategy, h, p);
    collio_layout_free(&l);
    return TU_RC_ALL(t, rc, COLLIO_OK, "layout and plan");
}

/* auto, after a write on the volume: it took the file system for a
 * networked one (the testbed is GlusterFS through FUSE: check_testbed),
 * and without a calibration entry it priced list I/O at the networked
 * built-in cost of a write request, 300 us (docs/auto.md), for each of
 * the pieces of the rank that has most -- not a local disk's 2 us. */
static void check_networked(tu_ctx *t, collio_plan *p, const int64_t *idx, int64_t n)
{
    TU_CHECK(t, TU_STAT(t, p, "auto.networked") == 1, "auto.networked %g on GlusterFS",
             TU_STAT(t, p, "auto.networked"));
    if (TU_STAT(t, p, "auto.calibrated") != 0)
        return;         /* this machine's calibration knows the volume */
    long long runs = 0; /* this rank's pieces: runs of consecutive elements */
    for (int64_t i = 0; i < n; i++)
        runs += i == 0 || idx[i] != idx[i - 1] + 1;
    MPI_Allreduce(MPI_IN_PLACE, &runs, 1, MPI_LONG_LONG, MPI_MAX, t->comm);
    double list = TU_STAT(t, p, "auto.predicted_independent_s");
    TU_CHECK(t, list >= (double)runs * 300e-6,
             "uncalibrated GlusterFS: list I/O of %lld pieces predicted %g s, "
             "under 300 us a piece",
             runs, list);
}

static void roundtrip(tu_ctx *t, const tu_layout_desc *d, const char *strategy,
                      collio_backend be)
{
    const char *bn = be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
    tu_case(t, "%s %s %s", strategy, bn, d->name);
    char path[1024];
    tu_temp_path(t, "rt", path, sizeof path);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    collio_plan *p = NULL;
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = be;
    /* a previous file, replaced by the CREATE */
    size_t pn = 0;
    unsigned char *prev = tu_expected_file(1000, 4, 99, 0, 0, &pn);
    TU_CHECK(t, tu_posix_put(t, path, prev, pn), "previous file written");
    free(prev);
    if (make_plan(t, d, strategy, NULL, &p)) {
        tu_fill(buf, idx, n, d->esize, 11);
        if (tu_plan_io(t, p, path, &fo, 1, buf, bytes)) {
            TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, 11, 0, 0, 1) == 0,
                     "file differs from the expectation");
            TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
            if (strcmp(strategy, "auto") == 0)
                check_networked(t, p, idx, n);
            memset(back, 0, bytes + 1);
            int64_t first = -1;
            if (tu_plan_io(t, p, path, &fo, 0, back, bytes))
                TU_CHECK(t, tu_compare(back, idx, n, d->esize, 11, &first) == 0,
                         "read back differs from element %lld on", (long long)first);
        }
        /* INPLACE over the committed file: other data, same bytes count */
        tu_fill(buf, idx, n, d->esize, 12);
        collio_file *f = NULL;
        int rc = collio_file_open(t->comm, path, COLLIO_FILE_INPLACE, &fo, &f);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "open inplace")) {
            rc = collio_write(p, f, buf, bytes);
            int crc = collio_file_close(&f);
            if (TU_RC_ALL(t, rc, COLLIO_OK, "inplace write")
                && TU_RC_ALL(t, crc, COLLIO_OK, "inplace close"))
                TU_CHECK(t,
                         tu_check_file(t, path, d->nglobal, d->esize, 12, 0, 0, 1) == 0,
                         "in-place file differs from the expectation");
        }
    }
    collio_plan_free(&p);
    tu_remove(t, path);
    free(idx);
    free(buf);
    free(back);
}

/* Rank `who` makes "<dir>/.<name>.collio-tmp.<slot>" holding `mark`; with
 * lock_fd, it keeps it open with the library's lock (an exclusive
 * open-file-description lock on the whole file) and returns the fd. */
static int plant_temporary(tu_ctx *t, int who, const char *path, int slot,
                           const char *mark, int *lock_fd)
{
    int ok = 1;
    if (t->rank == who) {
        char tmp[1100];
        const char *slash = strrchr(path, '/');
        snprintf(tmp, sizeof tmp, "%.*s/.%s.collio-tmp.%d", (int)(slash - path), path,
                 slash + 1, slot);
        int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
        ok = fd >= 0 && write(fd, mark, strlen(mark)) == (ssize_t)strlen(mark);
        if (ok && lock_fd) {
            struct flock fl;
            memset(&fl, 0, sizeof fl);
            fl.l_type = F_WRLCK;
            fl.l_whence = SEEK_SET;
            ok = fcntl(fd, F_OFD_SETLK, &fl) == 0;
            *lock_fd = fd;
        } else if (fd >= 0) {
            close(fd);
        }
    }
    return tu_all(t, ok);
}

/* Rank 0: the bytes of temporary `slot` of path ("" if missing). */
static int temporary_is(tu_ctx *t, const char *path, int slot, const char *mark)
{
    int ok = 1;
    if (t->rank == 0) {
        char tmp[1100], got[64] = "";
        const char *slash = strrchr(path, '/');
        snprintf(tmp, sizeof tmp, "%.*s/.%s.collio-tmp.%d", (int)(slash - path), path,
                 slash + 1, slot);
        int fd = open(tmp, O_RDONLY);
        ssize_t r = fd >= 0 ? read(fd, got, sizeof got - 1) : -1;
        if (r > 0)
            got[r] = '\0';
        ok = strcmp(got, mark) == 0;
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
    return ok;
}

static void temporaries(tu_ctx *t, const char *strategy)
{
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 100003, 1000, 4);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * 4;
    unsigned char *buf = malloc(bytes + 1);
    collio_plan *p = NULL;
    char path[1024];
    tu_temp_path(t, "tmps", path, sizeof path);
    int other = t->nranks - 1; /* on another host than rank 0 */
    if (make_plan(t, &d, strategy, NULL, &p)) {
        tu_case(t, "%s: a dead writer's temporary is reaped", strategy);
        if (TU_CHECK(t, plant_temporary(t, 0, path, 0, "dead", NULL), "planted")) {
            tu_fill(buf, idx, n, 4, 21);
            if (tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 21, 0, 0, 1) == 0,
                         "file differs from the expectation");
            TU_CHECK(t, tu_count_strays(t, path) == 0,
                     "the dead writer's temporary is gone");
        }

        tu_case(t, "%s: a live writer's temporary, locked on another host, is kept",
                strategy);
        int held = -1;
        if (TU_CHECK(t, plant_temporary(t, other, path, 0, "live", &held),
                     "planted and locked by rank %d", other)) {
            tu_fill(buf, idx, n, 4, 22);
            if (tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 22, 0, 0, 1) == 0,
                         "file differs from the expectation");
            TU_CHECK(t, temporary_is(t, path, 0, "live"),
                     "the live writer's temporary is intact");
            TU_CHECK(t, tu_count_strays(t, path) == 1,
                     "only the live writer's temporary");
            /* the writer lets go (as its close would, or its death) */
            if (held >= 0) {
                struct flock fl;
                memset(&fl, 0, sizeof fl);
                fl.l_type = F_UNLCK;
                fl.l_whence = SEEK_SET;
                TU_CHECK(t, fcntl(held, F_OFD_SETLK, &fl) == 0, "unlock");
                close(held);
            }
            MPI_Barrier(t->comm);
            tu_case(t, "%s: the temporary is reaped once its writer let go", strategy);
            tu_fill(buf, idx, n, 4, 23);
            if (tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 23, 0, 0, 1) == 0,
                         "file differs from the expectation");
            TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
        }
    }
    collio_plan_free(&p);
    tu_remove(t, path);
    free(idx);
    free(buf);
    tu_desc_free(&d);
}

/* auto with auto.dir naming the volume: the write's and the read's
 * choices are made at plan creation, for the volume's costs (networked,
 * or its calibration entry), so the calls choose nothing (auto.made_s
 * stays 0) -- and the write's is the one a plan without auto.dir makes
 * at its first write there. 16 KiB pieces: where a local disk's and a
 * networked file system's built-in costs part (tests/mpi_auto.c). */
static void auto_dir(tu_ctx *t, const char *dir)
{
    tu_case(t, "auto.dir on the volume: the choice at plan creation");
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, (int64_t)4096 * t->nranks * 8 + 77, 4096, 4);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * 4;
    unsigned char *buf = malloc(bytes + 1);
    tu_fill(buf, idx, n, 4, 31);
    char path[1024];
    tu_temp_path(t, "autodir", path, sizeof path);
    double choice[2] = {-2, -2};
    for (int with_dir = 0; with_dir < 2; with_dir++) {
        collio_plan *p = NULL;
        collio_hints *h = with_dir ? TU_HINTS(t, "auto.dir=%s", dir) : NULL;
        int made = make_plan(t, &d, "auto", h, &p);
        collio_hints_free(&h);
        if (made && tu_plan_io(t, p, path, NULL, 1, buf, bytes)) {
            TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 31, 0, 0, 1) == 0,
                     "file differs from the expectation");
            choice[with_dir] = TU_STAT(t, p, "auto.write_choice");
            TU_CHECK(t, TU_STAT(t, p, "auto.networked") == 1, "auto.networked %g",
                     TU_STAT(t, p, "auto.networked"));
            if (with_dir)
                TU_CHECK(t, TU_STAT(t, p, "auto.made_s") == 0,
                         "auto.dir: auto.made_s %g, the write chose at the call",
                         TU_STAT(t, p, "auto.made_s"));
        }
        collio_plan_free(&p);
    }
    TU_CHECK(t, choice[1] == choice[0] && choice[0] >= 0,
             "auto.dir's choice %g, the first write's without it %g", choice[1],
             choice[0]);
    tu_remove(t, path);
    free(idx);
    free(buf);
    tu_desc_free(&d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "pfs_roundtrip");
    t.filter = NULL;
    const char *strategy = argc > 1 ? argv[1] : NULL, *dir = getenv("COLLIO_PFS_DIR");
    if (!strategy || !dir || collio_strategy_is_canonical(strategy) != 1) {
        if (t.rank == 0)
            fprintf(stderr, "usage: pfs_roundtrip STRATEGY (a canonical one), inside "
                            "scripts/pfs (COLLIO_PFS_DIR)\n");
        tu_finish(&t);
        return 2;
    }
    snprintf(t.tmpdir, sizeof t.tmpdir, "%s", dir);
    check_testbed(&t);
    int P = t.nranks;
    for (int b = 0; b < 2; b++) {
        collio_backend be = b ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX;
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, 5003, 1, 4), roundtrip(&t, &d, strategy, be);
        tu_desc_free(&d);
        tu_desc_block_cyclic(&d, 20011, 7, 8), roundtrip(&t, &d, strategy, be);
        tu_desc_free(&d);
        tu_desc_block_cyclic(&d, (int64_t)4096 * P * 8 + 77, 4096, 4),
            roundtrip(&t, &d, strategy, be);
        tu_desc_free(&d);
        int64_t g[2] = {301, 203};
        collio_distrib dist[2] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC};
        int64_t a[2] = {COLLIO_DARG_DEFAULT, 5};
        tu_desc_darray(&d, P, 2, g, dist, a, NULL, COLLIO_ORDER_C, 8);
        roundtrip(&t, &d, strategy, be);
        tu_desc_free(&d);
    }
    temporaries(&t, strategy);
    if (strcmp(strategy, "auto") == 0)
        auto_dir(&t, dir);
    return tu_finish(&t);
}
