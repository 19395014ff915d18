/*
 * mpi_roundtrip.c -- every registered strategy x every layout kind writes a
 * file, the file's bytes are compared with an independent expectation
 * (testutil: element i = pattern(i, seed) at base + i*esize), and the data
 * is read back into a fresh zeroed buffer that must equal what was written.
 * Each plan is reused for 3 consecutive writes with different seeds (plus
 * two writes inside one open), through both file backends, with base offset
 * 0 and with a header before the data (written by the test, kept intact by
 * INPLACE writes), with default plan options and with small ones (many
 * gather rounds, small request batches, 2 phases at most). "block" (not canonical)
 * must round-trip its own data.
 *
 * Usage: mpi_roundtrip [FILTER]   (FILTER: only cases whose description
 * contains it, e.g. "strategy=serial" or "darray(F"; for reproducing).
 * Env: COLLIO_TEST_VERBOSE=1 prints each case.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NWRITES 3

typedef struct rt_run {
    collio_backend backend;
    collio_file_mode mode;
    int64_t base;
    int header; /* test writes a header of `base` bytes first (INPLACE) */
    int small;  /* plan options that force many rounds: chunk_bytes 100,
                   max_iov 3, phases min(2, all) */
} rt_run;

static const char *backend_name(collio_backend b)
{
    return b == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
}

/* Reference checks of the checker itself: it must see a flipped data
 * byte, a changed header byte and a wrong size. No library involved. */
static void selftest_checker(tu_ctx *t)
{
    tu_case(t, "selftest checker");
    char path[1024];
    tu_temp_path(t, "selftest", path, sizeof path);
    size_t n = 0;
    int64_t ng = 257, base = 13;
    size_t es = 12;
    unsigned char *want = tu_expected_file(ng, es, 5, base, 1, &n);
    TU_CHECK(t, tu_posix_put(t, path, want, n), "write reference file");
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 1, 0) == 0,
             "checker accepts the exact expected file");
    TU_CHECK(t, tu_check_file(t, path, ng, es, 6, base, 1, 0) > 0,
             "checker rejects the file under another seed");
    unsigned char *bad = malloc(n + 1);
    memcpy(bad, want, n);
    bad[base + 200 * es + 5] ^= 0x10; /* one data byte, element 200 */
    tu_posix_put(t, path, bad, n);
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 1, 0) == 1,
             "checker finds exactly one flipped data byte");
    memcpy(bad, want, n);
    bad[3] ^= 1; /* header byte */
    tu_posix_put(t, path, bad, n);
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 1, 0) > 0,
             "checker finds a changed header byte");
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 0, 0) == 0,
             "header is ignored when not checked");
    tu_posix_put(t, path, want, n - 1);
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 1, 0) > 0,
             "checker finds a short file");
    memcpy(bad, want, n);
    bad[n] = 0;
    tu_posix_put(t, path, bad, n + 1);
    TU_CHECK(t, tu_check_file(t, path, ng, es, 5, base, 1, 0) > 0,
             "checker finds a long file");
    /* the buffer comparison */
    int64_t idx[3] = {9, 2, 40}, first = 0;
    unsigned char buf[36];
    tu_fill(buf, idx, 3, es, 77);
    TU_CHECK(t, tu_compare(buf, idx, 3, es, 77, &first) == 0, "compare accepts");
    buf[30] ^= 0x80;
    TU_CHECK(t, tu_compare(buf, idx, 3, es, 77, &first) == 1 && first == 2,
             "compare finds a flipped byte in element 2");
    /* pattern: distinct elements, distinct seeds */
    unsigned char a[12], b[12];
    collio_pattern_element(0, 1, 4, a);
    collio_pattern_element(1, 1, 4, b);
    TU_CHECK(t, memcmp(a, b, 4) != 0, "pattern differs between indices");
    collio_pattern_element(0, 2, 4, b);
    TU_CHECK(t, memcmp(a, b, 4) != 0, "pattern differs between seeds");
    free(bad);
    free(want);
    tu_remove(t, path);
}

/* The strategy registry through the public API. */
static void check_registry(tu_ctx *t)
{
    tu_case(t, "strategy registry");
    int n = collio_strategy_count();
    TU_CHECK(t, n >= 4, "at least serial, independent, two_phase, block (got %d)", n);
    TU_CHECK(t, collio_strategy_name(n) == NULL, "name(count) is NULL");
    TU_CHECK(t, collio_strategy_name(-1) == NULL, "name(-1) is NULL");
    static const char *required[] = {"serial", "independent", "two_phase", "block"};
    for (int r = 0; r < 4; r++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found += collio_strategy_name(i)
                     && strcmp(collio_strategy_name(i), required[r]) == 0;
        TU_CHECK(t, found == 1, "strategy %s registered once (found %d)", required[r],
                 found);
    }
    for (int i = 0; i < n; i++) {
        const char *s = collio_strategy_name(i);
        TU_CHECK(t, s && collio_strategy_summary(s), "strategy %d has name and summary",
                 i);
        if (s)
            TU_CHECK(t, collio_strategy_is_canonical(s) == (strcmp(s, "block") != 0),
                     "is_canonical(%s)", s);
    }
    TU_CHECK(t, collio_strategy_is_canonical("no-such") == -1,
             "is_canonical(unknown) = -1");
    TU_CHECK(t, collio_strategy_summary("no-such") == NULL, "summary(unknown) = NULL");
}

/* Library layout properties against the independent enumeration. */
static void check_layout_props(tu_ctx *t, const tu_layout_desc *d, const collio_layout *l,
                               const int64_t *idx, int64_t n)
{
    TU_CHECK(t, collio_layout_local_count(l) == n, "local_count %lld, want %lld",
             (long long)collio_layout_local_count(l), (long long)n);
    TU_CHECK(t, collio_layout_global_count(l) == d->nglobal,
             "global_count %lld, want %lld", (long long)collio_layout_global_count(l),
             (long long)d->nglobal);
    TU_CHECK(t, collio_layout_esize(l) == d->esize, "esize");
    TU_CHECK(t, collio_layout_buffer_bytes(l) == (size_t)n * d->esize,
             "buffer_bytes %zu, want %zu", collio_layout_buffer_bytes(l),
             (size_t)n * d->esize);
    int64_t bad = 0, firstbad = -1;
    for (int64_t k = 0; k < n; k++)
        if (collio_layout_global_index(l, k) != idx[k] && bad++ == 0)
            firstbad = k;
    TU_CHECK(t, bad == 0,
             "global_index differs from reference at %lld positions (first k=%lld: "
             "got %lld want %lld)",
             (long long)bad, (long long)firstbad,
             firstbad >= 0 ? (long long)collio_layout_global_index(l, firstbad) : 0LL,
             firstbad >= 0 ? (long long)idx[firstbad] : 0LL);
    TU_CHECK(t,
             collio_layout_global_index(l, n) == -1
                 && collio_layout_global_index(l, -1) == -1,
             "global_index out of range gives -1");
}

/* Whole-file check for "block": only the size and the header are known. */
static void check_block_file(tu_ctx *t, const char *path, const tu_layout_desc *d,
                             const rt_run *run)
{
    size_t n = 0;
    unsigned char *b = tu_posix_get(t, path, &n);
    size_t want = (size_t)run->base + (size_t)d->nglobal * d->esize;
    TU_CHECK(t, b && n == want, "block file size %zu, want %zu", n, want);
    int64_t hbad = 0;
    for (int64_t j = 0; b && run->header && j < run->base && (size_t)j < n; j++)
        hbad += b[j] != tu_header_byte(j);
    TU_CHECK(t, hbad == 0, "header survives block write (%lld bytes changed)",
             (long long)hbad);
    free(b);
}

static int open_file(tu_ctx *t, const char *path, collio_file_mode mode,
                     const rt_run *run, collio_file **f)
{
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = run->backend;
    o.base_offset = run->base;
    return collio_file_open(t->comm, path, mode, &o, f);
}

/* One write of `seed` through the plan (open, write, close) then checks. */
static int write_once(tu_ctx *t, collio_plan *p, const char *path, const rt_run *run,
                      const unsigned char *buf, size_t bytes)
{
    collio_file *f = NULL;
    int rc = open_file(t, path, run->mode, run, &f);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "file_open for write"))
        return 0;
    int ok = TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "collio_write");
    ok &= TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "file_close after write");
    TU_CHECK(t, f == NULL, "close sets *f = NULL");
    return ok;
}

static void read_once(tu_ctx *t, collio_plan *p, const char *path, const rt_run *run,
                      const int64_t *idx, int64_t n, size_t esize, uint64_t seed)
{
    size_t bytes = (size_t)n * esize;
    unsigned char *rbuf = calloc(bytes + 1, 1);
    collio_file *f = NULL;
    int rc = open_file(t, path, COLLIO_FILE_READ, run, &f);
    if (TU_RC_ALL(t, rc, COLLIO_OK, "file_open for read")) {
        TU_RC_ALL(t, collio_read(p, f, rbuf, bytes), COLLIO_OK, "collio_read");
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "file_close after read");
        int64_t first = -1, bad = tu_compare(rbuf, idx, n, esize, seed, &first);
        TU_CHECK(t, bad == 0,
                 "read-back differs: %lld bytes, first at buffer element %lld "
                 "(global index %lld)",
                 (long long)bad, (long long)first,
                 first >= 0 ? (long long)idx[first] : -1LL);
    }
    free(rbuf);
}

/* Sum over ranks of the plan's file_bytes: every element's bytes must have
 * gone to (or come from) the file at least once. */
static void check_stats(tu_ctx *t, const collio_plan *p, const tu_layout_desc *d,
                        const char *op)
{
    collio_stats s;
    memset(&s, 0, sizeof s);
    int rc = collio_plan_stats(p, &s);
    TU_RC(t, rc, COLLIO_OK, "plan_stats");
    int64_t fb = s.file_bytes, sum = 0;
    MPI_Allreduce(&fb, &sum, 1, MPI_INT64_T, MPI_SUM, t->comm);
    TU_CHECK(t, sum >= d->nglobal * (int64_t)d->esize,
             "%s: file_bytes summed over ranks %lld < data %lld", op, (long long)sum,
             (long long)(d->nglobal * (int64_t)d->esize));
    TU_CHECK(t,
             s.total_s >= 0 && s.file_s >= 0 && s.exchange_s >= 0 && s.inspect_s >= 0
                 && s.bytes_sent >= 0 && s.messages >= 0 && s.file_requests >= 0,
             "%s: stats are non-negative", op);
}

static void run_strategy(tu_ctx *t, const tu_layout_desc *d, const char *strategy,
                         const rt_run *run, uint64_t seed0, int first_strategy)
{
    tu_case(t, "%s strategy=%s backend=%s mode=%s base=%lld opts=%s", d->name, strategy,
            backend_name(run->backend),
            run->mode == COLLIO_FILE_CREATE ? "create" : "inplace", (long long)run->base,
            run->small ? "small" : "default");
    if (!tu_case_enabled(t))
        return;
    int canonical = collio_strategy_is_canonical(strategy) == 1;
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = calloc(bytes + 1, 1);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    char path[1024];
    tu_temp_path(t, strategy, path, sizeof path);

    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout create"))
        goto done;
    if (first_strategy)
        check_layout_props(t, d, l, idx, n);
    collio_hints *po = NULL;
    if (run->small) {
        /* multiphase takes k in 1..ceil(log2 P) (issue 3); 0 = all */
        int all = 0;
        while ((1 << all) < t->nranks)
            all++;
        /* serial: 100 is not a multiple of esize 8 or 12 */
        po = TU_HINTS(t,
                      "serial.chunk_bytes=100,independent.max_iov=3,multiphase.phases=%d",
                      all < 2 ? all : 2);
    }
    int rc = collio_plan_create(t->comm, l, strategy, po, &p);
    collio_hints_free(&po);
    /* Plans keep what they need: free the layout before using the plan. */
    collio_layout_free(&l);
    TU_CHECK(t, l == NULL, "layout_free sets NULL");
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
        goto done;
    TU_CHECK(t, strcmp(collio_plan_strategy(p), strategy) == 0, "plan_strategy");

    if (run->header) {
        unsigned char *h = tu_expected_file(0, 1, 0, run->base, 1, &(size_t){0});
        TU_CHECK(t, tu_posix_put(t, path, h, (size_t)run->base), "write header");
        free(h);
    }
    for (int w = 0; w < NWRITES; w++) {
        uint64_t seed = seed0 + (uint64_t)w * 1000003u;
        tu_fill(buf, idx, n, d->esize, seed);
        if (!write_once(t, p, path, run, buf, bytes))
            break;
        if (canonical)
            tu_check_file(t, path, d->nglobal, d->esize, seed, run->base, run->header, 1);
        else
            check_block_file(t, path, d, run);
        if (w == 0)
            check_stats(t, p, d, "write");
        TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left beside the file");
        read_once(t, p, path, run, idx, n, d->esize, seed);
        if (w == 0)
            check_stats(t, p, d, "read");
    }
    /* Two writes inside one open: the file holds the second. */
    {
        collio_file *f = NULL;
        uint64_t s1 = seed0 + 17, s2 = seed0 + 18;
        if (TU_RC_ALL(t, open_file(t, path, run->mode, run, &f), COLLIO_OK,
                      "open (2 writes)")) {
            tu_fill(buf, idx, n, d->esize, s1);
            TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "first of 2 writes");
            tu_fill(buf, idx, n, d->esize, s2);
            TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "second of 2 writes");
            TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close (2 writes)");
            if (canonical)
                tu_check_file(t, path, d->nglobal, d->esize, s2, run->base, run->header,
                              1);
            read_once(t, p, path, run, idx, n, d->esize, s2);
        }
    }
done:
    collio_plan_free(&p);
    TU_CHECK(t, p == NULL, "plan_free sets NULL");
    collio_layout_free(&l);
    tu_remove(t, path);
    free(buf);
    free(idx);
}

/* CREATE over a larger existing file leaves exactly the new data; INPLACE
 * into a larger existing file changes only [base, base + data): header and
 * tail bytes stay, the size stays (INPLACE never truncates). */
static void replace_and_inplace(tu_ctx *t, const char *strategy, collio_backend be)
{
    tu_case(t, "replace/inplace over a larger file strategy=%s backend=%s", strategy,
            backend_name(be));
    if (!tu_case_enabled(t))
        return;
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 500, 3, 8);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * 8, data = 500 * 8, junkn = 0;
    unsigned char *buf = calloc(bytes + 1, 1);
    unsigned char *junk = tu_expected_file(2 * 500, 8, 4242, 0, 0, &junkn); /* 8000 B */
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    char path[1024];
    tu_temp_path(t, "replace", path, sizeof path);
    if (TU_RC_ALL(t, tu_desc_make(&d, t->comm, &l), COLLIO_OK, "layout")
        && TU_RC_ALL(t, collio_plan_create(t->comm, l, strategy, NULL, &p), COLLIO_OK,
                     "plan")) {
        rt_run create = {be, COLLIO_FILE_CREATE, 0, 0, 0};
        tu_posix_put(t, path, junk, junkn);
        tu_fill(buf, idx, n, 8, 51);
        if (write_once(t, p, path, &create, buf, bytes))
            tu_check_file(t, path, 500, 8, 51, 0, 0, 1);

        /* header 64 B + old data + 300 B tail, all from the junk pattern */
        rt_run inplace = {be, COLLIO_FILE_INPLACE, 64, 0, 0};
        size_t total = 64 + data + 300;
        tu_posix_put(t, path, junk, total);
        tu_fill(buf, idx, n, 8, 52);
        if (write_once(t, p, path, &inplace, buf, bytes)) {
            unsigned char *want = malloc(total);
            memcpy(want, junk, total);
            for (int64_t i = 0; i < 500; i++)
                collio_pattern_element((uint64_t)i, 52, 8, want + 64 + i * 8);
            size_t gotn = 0;
            unsigned char *got = tu_posix_get(t, path, &gotn);
            int64_t bad = got && gotn == total ? 0 : 1, first = -1;
            for (size_t j = 0; !bad && j < total; j++)
                if (got[j] != want[j] && bad++ == 0)
                    first = (int64_t)j;
            TU_CHECK(t, bad == 0,
                     "INPLACE into a larger file: size %zu (want %zu), %lld bad "
                     "bytes, first at %lld",
                     gotn, total, (long long)bad, (long long)first);
            free(got);
            free(want);
            read_once(t, p, path, &inplace, idx, n, 8, 52);
        }
    }
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_remove(t, path);
    free(junk);
    free(buf);
    free(idx);
}

static void run_layout(tu_ctx *t, tu_layout_desc *d, int which)
{
    tu_case(t, "%s enumeration", d->name);
    tu_check_enumeration(t, d);
    rt_run runs[3] = {
        {COLLIO_BACKEND_POSIX, COLLIO_FILE_CREATE, 0, 0, 0},
        {COLLIO_BACKEND_MPIIO, COLLIO_FILE_INPLACE, 100, 1, 1},
        {COLLIO_BACKEND_POSIX, COLLIO_FILE_CREATE, 37, 0, 0},
    };
    if (which % 2 == 0) { /* alternate the backend/mode pairs over layouts */
        runs[0].backend = COLLIO_BACKEND_MPIIO;
        runs[1].backend = COLLIO_BACKEND_POSIX;
        runs[2].backend = COLLIO_BACKEND_MPIIO;
    }
    int nrun = which % 3 == 0 ? 3 : 2;
    for (int r = 0; r < nrun; r++) {
        int first = 1;
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *name = collio_strategy_name(s);
            if (collio_strategy_is_canonical(name) != 1 && strcmp(name, "block") != 0)
                continue;
            run_strategy(t, d, name, &runs[r], 1000u * (uint64_t)which + (uint64_t)r,
                         first);
            first = 0;
        }
    }
    tu_desc_free(d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_roundtrip");
    int P = t.nranks, which = 0;
    tu_layout_desc d;

    selftest_checker(&t);
    check_registry(&t);
    for (int s = 0; s < collio_strategy_count(); s++) {
        if (collio_strategy_is_canonical(collio_strategy_name(s)) == 1) {
            replace_and_inplace(&t, collio_strategy_name(s), COLLIO_BACKEND_POSIX);
            replace_and_inplace(&t, collio_strategy_name(s), COLLIO_BACKEND_MPIIO);
        }
    }

    /* 1-D block-cyclic */
    tu_desc_block_cyclic(&d, 1000, 1, 4), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 1000, 7, 8), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 1000, 1000 / P + 13, 12), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 7 * P * 20, 7, 12), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 7 * P * 20 + 5, 7, 4), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, P > 1 ? P - 1 : 1, 1, 8), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 333, 5000, 4), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, 0, 3, 8), run_layout(&t, &d, which++);

    /* 3-d (and 1-d, 5-d) arrays */
    {
        int64_t g[3] = {12, 10, 9};
        collio_distrib bbb[3] = {COLLIO_DIST_BLOCK, COLLIO_DIST_BLOCK, COLLIO_DIST_BLOCK};
        tu_desc_darray(&d, P, 3, g, bbb, NULL, NULL, COLLIO_ORDER_C, 8),
            run_layout(&t, &d, which++);
        tu_desc_darray(&d, P, 3, g, bbb, NULL, NULL, COLLIO_ORDER_FORTRAN, 4),
            run_layout(&t, &d, which++);
        collio_distrib bcc[3] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC,
                                 COLLIO_DIST_CYCLIC};
        int64_t a[3] = {0, 2, 0};
        tu_desc_darray(&d, P, 3, g, bcc, a, NULL, COLLIO_ORDER_FORTRAN, 4),
            run_layout(&t, &d, which++);
        tu_desc_darray(&d, P, 3, g, bcc, a, NULL, COLLIO_ORDER_C, 12),
            run_layout(&t, &d, which++);
        int64_t g2[3] = {9, 11, 8}, a2[3] = {3, 0, 0};
        collio_distrib cbn[3] = {COLLIO_DIST_CYCLIC, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE};
        tu_desc_darray(&d, P, 3, g2, cbn, a2, NULL, COLLIO_ORDER_C, 12),
            run_layout(&t, &d, which++);
        tu_desc_darray(&d, P, 3, g2, cbn, a2, NULL, COLLIO_ORDER_FORTRAN, 8),
            run_layout(&t, &d, which++);
        /* explicit BLOCK darg larger than ceil(g/p): trailing coords hold less */
        int dims[2] = {0, 0};
        MPI_Dims_create(P, 2, dims);
        int64_t g3[3] = {7, 13, 6}, a3[3] = {0, (13 + dims[0] - 1) / dims[0] + 1, 0};
        if (a3[1] > 13)
            a3[1] = 13;
        int ps3[3] = {1, dims[0], dims[1]};
        collio_distrib nbc[3] = {COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC};
        tu_desc_darray(&d, P, 3, g3, nbc, a3, ps3, COLLIO_ORDER_FORTRAN, 8),
            run_layout(&t, &d, which++);
        /* STEM-II SL(x,y,z,l,ph): Fortran, BLOCK over y only */
        int64_t g5[5] = {6, 16, 4, 3, 2};
        collio_distrib nb[5] = {COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE,
                                COLLIO_DIST_NONE, COLLIO_DIST_NONE};
        int ps5[5] = {1, P, 1, 1, 1};
        if (P <= 16)
            tu_desc_darray(&d, P, 5, g5, nb, NULL, ps5, COLLIO_ORDER_FORTRAN, 8),
                run_layout(&t, &d, which++);
        /* more grid rows than array rows: whole ranks empty */
        int64_t g2e[2] = {3, 40};
        collio_distrib bc2[2] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC};
        int ps2[2] = {P, 1};
        tu_desc_darray(&d, P, 2, g2e, bc2, NULL, ps2, COLLIO_ORDER_C, 8),
            run_layout(&t, &d, which++);
        int64_t g1[1] = {101}, a1[1] = {5};
        collio_distrib c1[1] = {COLLIO_DIST_CYCLIC};
        tu_desc_darray(&d, P, 1, g1, c1, a1, NULL, COLLIO_ORDER_C, 4),
            run_layout(&t, &d, which++);
    }

    /* explicit index lists */
    tu_desc_index_list(&d, t.rank, P, 2000, TU_IL_SHUFFLED, 11, 8),
        run_layout(&t, &d, which++);
    tu_desc_index_list(&d, t.rank, P, 1500, TU_IL_SCATTER, 12, 12),
        run_layout(&t, &d, which++);
    tu_desc_index_list(&d, t.rank, P, 1000, TU_IL_REVERSED, 13, 4),
        run_layout(&t, &d, which++);
    tu_desc_index_list(&d, t.rank, P, 777, TU_IL_SHUFFLED, 14, 4),
        run_layout(&t, &d, which++);
    /* elements larger than the small options' chunk_bytes (100) */
    tu_desc_index_list(&d, t.rank, P, 300, TU_IL_SCATTER, 15, 200),
        run_layout(&t, &d, which++);

    return tu_finish(&t);
}
