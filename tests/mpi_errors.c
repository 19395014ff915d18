/*
 * mpi_errors.c -- every bad input gives its documented error code, the same
 * code on EVERY rank (tu_check_rc_all compares codes across ranks), and no
 * hang (the testutil watchdog ends a hung run). Bad inputs on one rank only
 * must still fail everywhere. A failing CREATE must leave the previous file
 * byte-identical and no temporary behind. Cases that need two ranks are
 * skipped (counted as skipped, never as passed) at one rank.
 *
 * Usage: mpi_errors [FILTER]   (only cases whose description contains it)
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Starts a case; 0 if filtered out. */
static int begin(tu_ctx *t, const char *what)
{
    tu_case(t, "%s", what);
    return tu_case_enabled(t);
}

/* Needs >= 2 ranks: otherwise counts a skip. */
static int need2(tu_ctx *t)
{
    if (t->nranks >= 2)
        return 1;
    tu_skip(t, "needs 2 or more ranks");
    return 0;
}

/* Index list: rank r holds [10r, 10r+10) (of nglobal = 10P), plus `extra`
 * appended on rank `who` (if extra_n), minus its last element if `drop`. */
static int index_layout(tu_ctx *t, int64_t nglobal, int who, int64_t extra, int extra_n,
                        int drop, size_t esize, collio_layout **l)
{
    int64_t idx[16], n = 0;
    for (int64_t i = 0; i < 10; i++)
        idx[n++] = 10 * t->rank + i;
    if (t->rank == who && extra_n)
        idx[n++] = extra;
    if (t->rank == who && drop)
        n--;
    return collio_layout_index_list(t->comm, nglobal, n, idx, esize, l);
}

static void expect_layout(tu_ctx *t, int rc, collio_layout **l, int want,
                          const char *what)
{
    TU_RC_ALL(t, rc, want, what);
    collio_layout_free(l);
}

static void layout_errors(tu_ctx *t)
{
    int P = t->nranks, last = P - 1;
    int64_t ng = 10 * P;
    collio_layout *l = NULL;

    if (begin(t, "RANGE: index nglobal on the last rank"))
        expect_layout(t, index_layout(t, ng, last, ng, 1, 0, 8, &l), &l, COLLIO_ERR_RANGE,
                      "range");
    if (begin(t, "RANGE: index -1 on rank 0"))
        expect_layout(t, index_layout(t, ng, 0, -1, 1, 0, 8, &l), &l, COLLIO_ERR_RANGE,
                      "range");
    if (begin(t, "OVERLAP: element held twice by one rank"))
        expect_layout(t, index_layout(t, ng, last, 10 * last, 1, 0, 8, &l), &l,
                      COLLIO_ERR_OVERLAP, "overlap (same rank)");
    if (begin(t, "OVERLAP: element 0 held by rank 0 and the last rank") && need2(t))
        expect_layout(t, index_layout(t, ng, last, 0, 1, 0, 8, &l), &l,
                      COLLIO_ERR_OVERLAP, "overlap (two ranks)");
    if (begin(t, "COVERAGE: last element not held"))
        expect_layout(t, index_layout(t, ng, last, 0, 0, 1, 8, &l), &l,
                      COLLIO_ERR_COVERAGE, "coverage");
    if (begin(t, "COVERAGE: nglobal larger than all lists"))
        expect_layout(t, index_layout(t, ng + 3, 0, 0, 0, 0, 8, &l), &l,
                      COLLIO_ERR_COVERAGE, "coverage");

    /* MISMATCH: one rank disagrees on a global argument. */
    if (begin(t, "MISMATCH: block_cyclic nx on the last rank") && need2(t))
        expect_layout(
            t, collio_layout_block_cyclic(t->comm, 1000 + (t->rank == last), 7, 8, &l),
            &l, COLLIO_ERR_MISMATCH, "nx mismatch");
    if (begin(t, "MISMATCH: block_cyclic bx on rank 0") && need2(t))
        expect_layout(
            t, collio_layout_block_cyclic(t->comm, 1000, t->rank == 0 ? 8 : 7, 8, &l), &l,
            COLLIO_ERR_MISMATCH, "bx mismatch");
    if (begin(t, "MISMATCH: block_cyclic esize on the last rank") && need2(t))
        expect_layout(
            t, collio_layout_block_cyclic(t->comm, 1000, 7, t->rank == last ? 4 : 8, &l),
            &l, COLLIO_ERR_MISMATCH, "esize mismatch");
    if (begin(t, "MISMATCH: index_list nglobal on the last rank") && need2(t))
        expect_layout(t,
                      index_layout(t, t->rank == last ? ng + 1 : ng, 0, 0, 0, 0, 8, &l),
                      &l, COLLIO_ERR_MISMATCH, "nglobal mismatch");
    if (begin(t, "MISMATCH: index_list esize on rank 0") && need2(t))
        expect_layout(t, index_layout(t, ng, 0, 0, 0, 0, t->rank == 0 ? 12 : 8, &l), &l,
                      COLLIO_ERR_MISMATCH, "esize mismatch");
    if (begin(t, "MISMATCH: darray gsizes on the last rank") && need2(t)) {
        int64_t g[2] = {16, t->rank == last ? 9 : 8};
        collio_distrib ds[2] = {COLLIO_DIST_BLOCK, COLLIO_DIST_NONE};
        int ps[2] = {P, 1};
        expect_layout(
            t, collio_layout_darray(t->comm, 2, g, ds, NULL, ps, COLLIO_ORDER_C, 4, &l),
            &l, COLLIO_ERR_MISMATCH, "gsizes mismatch");
    }

    /* OVERFLOW: byte sizes beyond INT64_MAX. */
    if (begin(t, "OVERFLOW: block_cyclic nx*esize"))
        expect_layout(t, collio_layout_block_cyclic(t->comm, INT64_MAX / 4, 1000, 8, &l),
                      &l, COLLIO_ERR_OVERFLOW, "nx*esize overflow");
    if (begin(t, "OVERFLOW: darray product of gsizes")) {
        /* Fortran order, BLOCK over the slowest dim: each rank's part is
         * one contiguous run, so nothing big is built before the check. */
        int64_t g[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 4};
        collio_distrib ds[3] = {COLLIO_DIST_NONE, COLLIO_DIST_NONE, COLLIO_DIST_BLOCK};
        int64_t a[3] = {0, 0, 4};
        int ps[3] = {1, 1, P};
        expect_layout(
            t,
            collio_layout_darray(t->comm, 3, g, ds, a, ps, COLLIO_ORDER_FORTRAN, 4, &l),
            &l, COLLIO_ERR_OVERFLOW, "gsizes product overflow");
    }
    if (begin(t, "OVERFLOW: darray elements*esize")) {
        int64_t g[3] = {INT64_C(1) << 30, INT64_C(1) << 30, 4};
        collio_distrib ds[3] = {COLLIO_DIST_NONE, COLLIO_DIST_NONE, COLLIO_DIST_BLOCK};
        int64_t a[3] = {0, 0, 4};
        int ps[3] = {1, 1, P};
        expect_layout(
            t,
            collio_layout_darray(t->comm, 3, g, ds, a, ps, COLLIO_ORDER_FORTRAN, 8, &l),
            &l, COLLIO_ERR_OVERFLOW, "nglobal*esize overflow");
    }
    if (begin(t, "OVERFLOW: index_list nglobal*esize"))
        expect_layout(t, index_layout(t, INT64_MAX / 2, 0, 0, 0, 0, 8, &l), &l,
                      COLLIO_ERR_OVERFLOW, "nglobal*esize overflow");

    /* ARG */
    if (begin(t, "ARG: darray grid product != comm size")) {
        int64_t g[1] = {100};
        collio_distrib ds[1] = {COLLIO_DIST_BLOCK};
        int ps[1] = {P + 1};
        expect_layout(
            t, collio_layout_darray(t->comm, 1, g, ds, NULL, ps, COLLIO_ORDER_C, 4, &l),
            &l, COLLIO_ERR_ARG, "grid product");
    }
    if (begin(t, "ARG: darray BLOCK darg*p < gsize")) {
        int64_t g[1] = {10}, a[1] = {9 / P > 0 ? 9 / P : 1};
        collio_distrib ds[1] = {COLLIO_DIST_BLOCK};
        int ps[1] = {P};
        if (a[0] * P >= 10) {
            tu_skip(t, "no darg with darg*P < 10 at this P");
        } else {
            expect_layout(
                t, collio_layout_darray(t->comm, 1, g, ds, a, ps, COLLIO_ORDER_C, 4, &l),
                &l, COLLIO_ERR_ARG, "darg too small");
        }
    }
    if (begin(t, "ARG: darray NONE dim with psize > 1") && need2(t)) {
        int64_t g[1] = {100};
        collio_distrib ds[1] = {COLLIO_DIST_NONE};
        int ps[1] = {P};
        expect_layout(
            t, collio_layout_darray(t->comm, 1, g, ds, NULL, ps, COLLIO_ORDER_C, 4, &l),
            &l, COLLIO_ERR_ARG, "NONE with psize > 1");
    }
    if (begin(t, "ARG: darray ndims 0 and 9")) {
        int64_t g[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
        collio_distrib ds[9] = {0};
        int ps[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        ps[0] = P;
        ds[0] = COLLIO_DIST_CYCLIC;
        expect_layout(
            t, collio_layout_darray(t->comm, 0, g, ds, NULL, ps, COLLIO_ORDER_C, 4, &l),
            &l, COLLIO_ERR_ARG, "ndims 0");
        expect_layout(
            t, collio_layout_darray(t->comm, 9, g, ds, NULL, ps, COLLIO_ORDER_C, 4, &l),
            &l, COLLIO_ERR_ARG, "ndims 9");
    }
    if (begin(t, "ARG: block_cyclic nx<0, bx<1, esize 0")) {
        expect_layout(t, collio_layout_block_cyclic(t->comm, -1, 7, 8, &l), &l,
                      COLLIO_ERR_ARG, "nx -1");
        expect_layout(t, collio_layout_block_cyclic(t->comm, 100, 0, 8, &l), &l,
                      COLLIO_ERR_ARG, "bx 0");
        expect_layout(t, collio_layout_block_cyclic(t->comm, 100, 7, 0, &l), &l,
                      COLLIO_ERR_ARG, "esize 0");
    }
    if (begin(t, "ARG: index_list nlocal < 0, idx NULL")) {
        expect_layout(t, collio_layout_index_list(t->comm, 10, -1, NULL, 8, &l), &l,
                      COLLIO_ERR_ARG, "nlocal -1");
        expect_layout(t, collio_layout_index_list(t->comm, 10 * P, 10, NULL, 8, &l), &l,
                      COLLIO_ERR_ARG, "idx NULL with nlocal 10");
    }
    if (begin(t, "ARG: set_memory_datatype packed size mismatch")) {
        int rc = collio_layout_block_cyclic(t->comm, 100 * P, 10, 8, &l);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "layout")) {
            MPI_Datatype ty;
            MPI_Type_contiguous(8, MPI_BYTE, &ty);
            MPI_Type_commit(&ty);
            TU_RC(t, collio_layout_set_memory_datatype(l, ty, 99), COLLIO_ERR_ARG,
                  "99 elements for a layout of 100");
            MPI_Type_free(&ty);
        }
        collio_layout_free(&l);
    }
}

/* A valid layout every rank holds data of: block-cyclic nx=1000, bx=1. */
static collio_layout *good_layout(tu_ctx *t, int64_t *nlocal)
{
    collio_layout *l = NULL;
    int rc = collio_layout_block_cyclic(t->comm, 1000, 1, 8, &l);
    TU_RC_ALL(t, rc, COLLIO_OK, "good layout");
    *nlocal = l ? collio_layout_local_count(l) : 0;
    return l;
}

static int open_be(tu_ctx *t, const char *path, collio_file_mode mode, collio_backend be,
                   int64_t base, collio_file **f)
{
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = be;
    o.base_offset = base;
    return collio_file_open(t->comm, path, mode, &o, f);
}

static void plan_errors(tu_ctx *t)
{
    int64_t n = 0;
    collio_layout *l = good_layout(t, &n);
    collio_plan *p = NULL;
    if (!l)
        return;
    if (begin(t, "STRATEGY: unknown name")) {
        TU_RC_ALL(t, collio_plan_create(t->comm, l, "no-such-strategy", NULL, &p),
                  COLLIO_ERR_STRATEGY, "unknown strategy");
        collio_plan_free(&p);
    }
    if (begin(t, "MISMATCH: strategy names differ") && need2(t)) {
        TU_RC_ALL(t,
                  collio_plan_create(t->comm, l, t->rank == 0 ? "serial" : "independent",
                                     NULL, &p),
                  COLLIO_ERR_MISMATCH, "strategy mismatch");
        collio_plan_free(&p);
    }
    if (begin(t, "MISMATCH: plan comm size != layout comm size") && need2(t)) {
        MPI_Comm half;
        MPI_Comm_split(t->comm, t->rank % 2, t->rank, &half);
        TU_RC_ALL(t, collio_plan_create(half, l, "independent", NULL, &p),
                  COLLIO_ERR_MISMATCH, "comm size mismatch");
        collio_plan_free(&p);
        MPI_Comm_free(&half);
    }
    collio_layout_free(&l);
}

static void file_errors(tu_ctx *t)
{
    char path[1024], missing[1100];
    tu_temp_path(t, "open", path, sizeof path);
    snprintf(missing, sizeof missing, "%s.nodir/sub/file", path);
    for (int be = 0; be < 2; be++) {
        collio_file *f = NULL;
        const char *bn = be ? "mpiio" : "posix";
        char what[128];
        snprintf(what, sizeof what, "OPEN: CREATE in missing directory backend=%s", bn);
        if (begin(t, what)) {
            TU_RC_ALL(t, open_be(t, missing, COLLIO_FILE_CREATE, be, 0, &f),
                      COLLIO_ERR_OPEN, what);
            TU_CHECK(t, f == NULL, "no file handle after failed open");
        }
        snprintf(what, sizeof what, "OPEN: INPLACE in missing directory backend=%s", bn);
        if (begin(t, what))
            TU_RC_ALL(t, open_be(t, missing, COLLIO_FILE_INPLACE, be, 0, &f),
                      COLLIO_ERR_OPEN, what);
        snprintf(what, sizeof what, "OPEN: READ of a missing file backend=%s", bn);
        if (begin(t, what))
            TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_READ, be, 0, &f), COLLIO_ERR_OPEN,
                      what);
        snprintf(what, sizeof what, "ARG: negative base_offset backend=%s", bn);
        if (begin(t, what))
            TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_CREATE, be, -1, &f), COLLIO_ERR_ARG,
                      what);
        collio_file_abort(&f);
    }
    if (begin(t, "MISMATCH: path differs on the last rank") && need2(t)) {
        collio_file *f = NULL;
        char other[1100];
        snprintf(other, sizeof other, "%s.other", path);
        TU_RC_ALL(t,
                  open_be(t, t->rank == t->nranks - 1 ? other : path, COLLIO_FILE_CREATE,
                          COLLIO_BACKEND_POSIX, 0, &f),
                  COLLIO_ERR_MISMATCH, "path mismatch");
        collio_file_abort(&f);
        tu_remove(t, other);
    }
    if (begin(t, "MISMATCH: mode differs on rank 0") && need2(t)) {
        collio_file *f = NULL;
        TU_RC_ALL(t,
                  open_be(t, path,
                          t->rank == 0 ? COLLIO_FILE_INPLACE : COLLIO_FILE_CREATE,
                          COLLIO_BACKEND_POSIX, 0, &f),
                  COLLIO_ERR_MISMATCH, "mode mismatch");
        collio_file_abort(&f);
    }
    tu_remove(t, path);
}

/* Writes that must fail, per strategy and backend; rounds != 0: the plan
 * option write_rounds (multiphase: writes and reads in rounds, which the
 * small data here does not get by default); x, shm: the plan options
 * exchange (multiphase: any value of multiphase.exchange; auto by default) and
 * shared_memory (1 by default). */
static void write_errors(tu_ctx *t, const char *strategy, int rounds, int x, int shm,
                         collio_backend be)
{
    const char *bn = be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
    char what[256], path[1024], label[96];
    snprintf(label, sizeof label,
             rounds || x || !shm ? "%s(write_rounds=%d,exchange=%s,shm=%d)" : "%s",
             strategy, rounds, tu_exchange_name(x), shm);
    collio_hints *po = TU_HINTS(t,
                                "multiphase.write_rounds=%d,multiphase.exchange=%s,"
                                "multiphase.shared_memory=%d",
                                rounds, tu_exchange_name(x), shm);
    int64_t n = 0;
    const int64_t ng = 1000;
    const size_t es = 8;
    collio_layout *l = good_layout(t, &n);
    collio_plan *p = NULL;
    collio_file *f = NULL;
    int prc = l ? collio_plan_create(t->comm, l, strategy, po, &p) : COLLIO_ERR_ARG;
    collio_hints_free(&po);
    if (!l || !TU_RC_ALL(t, prc, COLLIO_OK, "plan")) {
        collio_layout_free(&l);
        return;
    }
    int64_t *idx = NULL, nn = 0;
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, ng, 1, es);
    tu_enumerate(&d, t->rank, t->nranks, &idx, &nn);
    size_t bytes = (size_t)n * es;
    unsigned char *buf = calloc(bytes + 16, 1);
    tu_fill(buf, idx, nn, es, 3);
    tu_temp_path(t, strategy, path, sizeof path);
    /* The previous file: distinct content of another size. */
    size_t prevn = 0;
    unsigned char *prev = tu_expected_file(321, 4, 99, 0, 0, &prevn);

    snprintf(what, sizeof what,
             "BUFSIZE: write, one byte more on the last rank strategy=%s backend=%s",
             label, bn);
    if (begin(t, what)) {
        tu_posix_put(t, path, prev, prevn);
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_CREATE, be, 0, &f), COLLIO_OK,
                      "open")) {
            TU_RC_ALL(t, collio_write(p, f, buf, bytes + (t->rank == t->nranks - 1)),
                      COLLIO_ERR_BUFSIZE, what);
            TU_RC_ALL(t, collio_file_abort(&f), COLLIO_OK, "abort");
            size_t gotn = 0;
            unsigned char *got = tu_posix_get(t, path, &gotn);
            TU_CHECK(t, got && gotn == prevn && memcmp(got, prev, prevn) == 0,
                     "previous file intact after abort");
            TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left after abort");
            free(got);
        }
    }
    snprintf(what, sizeof what, "ABORT: after a good write strategy=%s backend=%s", label,
             bn);
    if (begin(t, what)) {
        tu_posix_put(t, path, prev, prevn);
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_CREATE, be, 0, &f), COLLIO_OK,
                      "open")) {
            TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "write");
            TU_RC_ALL(t, collio_file_abort(&f), COLLIO_OK, "abort");
            TU_CHECK(t, f == NULL, "abort sets *f = NULL");
            size_t gotn = 0;
            unsigned char *got = tu_posix_get(t, path, &gotn);
            TU_CHECK(t, got && gotn == prevn && memcmp(got, prev, prevn) == 0,
                     "previous file intact after abort");
            TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left after abort");
            free(got);
        }
    }
    /* A real write failure: RLIMIT_FSIZE makes pwrite beyond 64 bytes fail
     * with EFBIG (SIGXFSZ ignored) on the rank(s) that write the data. */
    for (int one = 0; one < 2; one++) {
        int victim = -1; /* -1: every rank */
        if (one) {
            if (strcmp(strategy, "serial") == 0)
                victim = 0;
            else if (strcmp(strategy, "independent") == 0)
                victim = t->nranks - 1;
            else
                continue; /* which ranks write is the strategy's choice */
        }
        snprintf(what, sizeof what,
                 "IO: CREATE write fails (file size limit on %s) strategy=%s backend=%s",
                 victim < 0    ? "all ranks"
                 : victim == 0 ? "rank 0"
                               : "the last rank",
                 label, bn);
        if (!begin(t, what))
            continue;
        tu_posix_put(t, path, prev, prevn);
        if (!TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_CREATE, be, 0, &f), COLLIO_OK,
                       "open"))
            continue;
        struct rlimit old, lim;
        getrlimit(RLIMIT_FSIZE, &old);
        lim = old;
        lim.rlim_cur = 64;
        if (victim < 0 || victim == t->rank)
            setrlimit(RLIMIT_FSIZE, &lim);
        int wrc = collio_write(p, f, buf, bytes);
        setrlimit(RLIMIT_FSIZE, &old);
        TU_RC_ALL(t, wrc, COLLIO_ERR_IO, "collio_write under a file size limit");
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close after a failed write");
        TU_CHECK(t, f == NULL, "close sets *f = NULL after failure");
        size_t gotn = 0;
        unsigned char *got = tu_posix_get(t, path, &gotn);
        TU_CHECK(t, got && gotn == prevn && memcmp(got, prev, prevn) == 0,
                 "previous file byte-identical after a failed CREATE");
        TU_CHECK(t, tu_count_strays(t, path) == 0,
                 "no temporary left after a failed CREATE");
        free(got);
    }
    /* Reads. */
    snprintf(what, sizeof what, "EOF/BUFSIZE/STATE: reads strategy=%s backend=%s", label,
             bn);
    if (begin(t, what)) {
        size_t fulln = 0;
        unsigned char *full = tu_expected_file(ng, es, 3, 24, 1, &fulln);
        tu_posix_put(t, path, full, fulln - 1); /* one byte short */
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_READ, be, 24, &f), COLLIO_OK,
                      "open short")) {
            TU_RC_ALL(t, collio_read(p, f, buf, bytes), COLLIO_ERR_EOF,
                      "read one byte short");
            collio_file_close(&f);
        }
        tu_posix_put(t, path, full, 24); /* header only */
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_READ, be, 24, &f), COLLIO_OK,
                      "open hdr")) {
            TU_RC_ALL(t, collio_read(p, f, buf, bytes), COLLIO_ERR_EOF,
                      "read of header-only file");
            collio_file_close(&f);
        }
        tu_posix_put(t, path, full, fulln);
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_READ, be, 24, &f), COLLIO_OK,
                      "open full")) {
            TU_RC_ALL(t, collio_read(p, f, buf, bytes + (t->rank == 0)),
                      COLLIO_ERR_BUFSIZE, "read with one byte more on rank 0");
            TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_ERR_STATE,
                      "write to a file opened READ");
            memset(buf, 0, bytes);
            TU_RC_ALL(t, collio_read(p, f, buf, bytes), COLLIO_OK,
                      "good read after errors");
            int64_t first;
            TU_CHECK(t, tu_compare(buf, idx, nn, es, 3, &first) == 0,
                     "good read after errors: data");
            TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
        }
        free(full);
    }
    snprintf(what, sizeof what,
             "OVERFLOW: base_offset + data beyond INT64_MAX strategy=%s backend=%s",
             label, bn);
    if (begin(t, what)) {
        if (TU_RC_ALL(t, open_be(t, path, COLLIO_FILE_INPLACE, be, INT64_MAX - 100, &f),
                      COLLIO_OK, "open with huge base")) {
            TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_ERR_OVERFLOW, what);
            collio_file_abort(&f);
        }
    }
    tu_remove(t, path);
    free(prev);
    free(buf);
    free(idx);
    collio_plan_free(&p);
    collio_layout_free(&l);
}

static void strerror_checks(tu_ctx *t)
{
    tu_case(t, "strerror");
    for (int c = 0; c < COLLIO_ERR__COUNT; c++) {
        const char *s = collio_strerror(c);
        TU_CHECK(t, s && *s, "strerror(%d) non-empty", c);
        for (int e = 0; s && e < c; e++)
            TU_CHECK(t, strcmp(s, collio_strerror(e)) != 0,
                     "strerror(%d) == strerror(%d)", c, e);
    }
    TU_CHECK(t, collio_strerror(COLLIO_ERR__COUNT) != NULL, "strerror(COUNT) not NULL");
    TU_CHECK(t, collio_strerror(-1) != NULL && collio_strerror(9999) != NULL,
             "strerror of unknown codes not NULL");
}

/* collio_last_error after a failed collective call: the same text on
 * every rank, naming the rank and what was wrong. */
static void same_text(tu_ctx *t, const char *want1, const char *want2, const char *what)
{
    char mine[512], root[512];
    snprintf(mine, sizeof mine, "%s", collio_last_error());
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, t->comm);
    TU_CHECK(t, strcmp(mine, root) == 0, "%s: text differs from rank 0's: '%s' vs '%s'",
             what, mine, root);
    TU_CHECK(t, strstr(mine, want1) != NULL && (!want2 || strstr(mine, want2) != NULL),
             "%s: '%s' should name '%s'%s%s", what, mine, want1, want2 ? " and " : "",
             want2 ? want2 : "");
}

static void last_error_checks(tu_ctx *t)
{
    tu_case(t, "collio_last_error");
    const int last = t->nranks - 1;
    char want[128];
    /* an index list with an index out of range on the last rank */
    int64_t idx[2] = {t->rank, t->rank == last ? 1000 + last : t->rank};
    collio_layout *l = NULL;
    int rc = collio_layout_index_list(t->comm, 1000, t->rank == last ? 2 : 1, idx, 4, &l);
    TU_RC_ALL(t, rc, COLLIO_ERR_RANGE, "index list with an index out of range");
    snprintf(want, sizeof want, "rank %d: idx[1] = %d", last, 1000 + last);
    same_text(t, want, "[0, 1000)", "out of range");
    /* an element held by two ranks / by none (found by the domain owner) */
    int64_t two[1] = {0};
    rc = collio_layout_index_list(t->comm, t->nranks, 1, two, 4, &l);
    if (t->nranks > 1) {
        TU_RC_ALL(t, rc, COLLIO_ERR_OVERLAP, "every rank holds element 0");
        same_text(t, "element 0 is held by two ranks", NULL, "overlap");
    }
    collio_layout_free(&l);
    /* a file that does not exist */
    char path[1024];
    tu_temp_path(t, "missing", path, sizeof path);
    collio_file *f = NULL;
    rc = collio_file_open(t->comm, path, COLLIO_FILE_READ, NULL, &f);
    TU_RC_ALL(t, rc, COLLIO_ERR_OPEN, "open a missing file");
    same_text(t, "No such file or directory", path, "missing file");
    /* plan options that differ */
    if (t->nranks > 1) {
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, 100, 3, 4);
        tu_desc_make(&d, t->comm, &l);
        collio_hints *o = TU_HINTS(t, "independent.max_iov=%d", t->rank == last ? 7 : 8);
        collio_plan *p = NULL;
        rc = collio_plan_create(t->comm, l, "independent", o, &p);
        collio_hints_free(&o);
        TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "options differ");
        same_text(t, "plan options (hints) differ between rank 0 and rank", NULL,
                  "options");
        collio_layout_free(&l);
        tu_desc_free(&d);
    }
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_errors");
    signal(SIGXFSZ, SIG_IGN);
    strerror_checks(&t);
    last_error_checks(&t);
    layout_errors(&t);
    plan_errors(&t);
    file_errors(&t);
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1)
            continue;
        write_errors(&t, name, 0, 0, 1, COLLIO_BACKEND_POSIX);
        write_errors(&t, name, 0, 0, 1, COLLIO_BACKEND_MPIIO);
    }
    /* multiphase's other paths: in rounds (the last one direct; and all
     * through the hypercube), the direct exchange, the node-aware ones */
    write_errors(&t, "multiphase", 2, TU_EXCHANGE_AUTO, 1, COLLIO_BACKEND_POSIX);
    write_errors(&t, "multiphase", 2, TU_EXCHANGE_HYPERCUBE, 1, COLLIO_BACKEND_POSIX);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_DIRECT, 1, COLLIO_BACKEND_POSIX);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_DIRECT, 1, COLLIO_BACKEND_MPIIO);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_DIRECT, 0, COLLIO_BACKEND_POSIX);
    /* the node-aware exchanges (across nodes; one step on one node) */
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_NODE_DIRECT, 1, COLLIO_BACKEND_POSIX);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_NODE_DIRECT, 1, COLLIO_BACKEND_MPIIO);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_NODE_HYPERCUBE, 1,
                 COLLIO_BACKEND_POSIX);
    write_errors(&t, "multiphase", 0, TU_EXCHANGE_NODE_HYPERCUBE, 1,
                 COLLIO_BACKEND_MPIIO);
    return tu_finish(&t);
}
