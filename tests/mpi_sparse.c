/*
 * mpi_sparse.c -- sparse extents (collio_layout_extents) and per-call
 * offsets (collio_write_at / collio_read_at).
 *
 * Sparse: the file is cut into random runs, some holes, some data given to
 * random ranks in random pieces, each rank's pieces in a shuffled buffer
 * order. The file is first filled with a background pattern by the test
 * (POSIX); every canonical strategy (multiphase with each transport),
 * "auto", both backends, INPLACE with a header before the data, then
 * writes its data. The reference is built by rank 0 alone from the same
 * generator: background everywhere, each held element's bytes where it
 * lies -- holes and the header keep the background byte for byte. The data
 * is read back into a zeroed buffer that must equal the written one.
 *
 * write_at: several variables of one block-cyclic layout in one INPLACE
 * file, one plan, one call per variable at its own offset; the file is
 * compared with the expectation (variable v's element i at offset_v +
 * i*esize), each variable read back with collio_read_at.
 *
 * Errors: extents overlapping between ranks or within one (OVERLAP on
 * every rank), a negative extent (ARG everywhere), an offset that differs
 * across ranks (MISMATCH everywhere) or is negative (ARG).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: the generator both the ranks and the reference use. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static unsigned char bg_byte(int64_t at) /* the background at file byte at */
{
    return (unsigned char)(mix((uint64_t)at ^ 0xb6) & 0xff);
}

static unsigned char data_byte(int64_t elem, size_t b, uint64_t seed)
{
    return (unsigned char)(mix((uint64_t)elem * 16 + b + seed * 0x1000193) & 0xff);
}

typedef struct piece {
    int64_t off, len;
    int rank;
} piece;

/* The file's pieces: runs of 1..maxrun elements over [0, span), each a hole
 * (about 1 in 3) or held by a random rank; held runs cut into 1..3 pieces
 * of possibly different ranks (so ranks' extents touch). */
static piece *gen_pieces(int64_t span, int maxrun, int P, uint64_t seed, int64_t *n)
{
    piece *v = malloc((size_t)(span > 0 ? span : 1) * sizeof *v);
    int64_t m = 0, at = 0, k = 0;
    while (at < span) {
        uint64_t r = mix(seed * 7919 + (uint64_t)k++);
        int64_t len = 1 + (int64_t)(r % (uint64_t)maxrun);
        if (len > span - at)
            len = span - at;
        if ((r >> 20) % 3 != 0) {
            int64_t cut = len >= 3 ? len / 3 : len;
            for (int64_t a = at; a < at + len; a += cut) {
                int64_t l = a + cut <= at + len ? cut : at + len - a;
                v[m++] = (piece){a, l, (int)(mix(r + (uint64_t)a) % (uint64_t)P)};
            }
        }
        at += len;
    }
    *n = m;
    return v;
}

/* This rank's extents, in a shuffled buffer order. */
static int64_t my_extents(const piece *v, int64_t n, int rank, uint64_t seed,
                          int64_t *off, int64_t *len)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (v[i].rank == rank) {
            off[m] = v[i].off;
            len[m] = v[i].len;
            m++;
        }
    for (int64_t i = m - 1; i > 0; i--) { /* Fisher-Yates */
        int64_t j = (int64_t)(mix(seed + (uint64_t)i) % (uint64_t)(i + 1));
        int64_t a = off[i], b = len[i];
        off[i] = off[j];
        len[i] = len[j];
        off[j] = a;
        len[j] = b;
    }
    return m;
}

static void fill_buf(unsigned char *buf, const int64_t *off, const int64_t *len,
                     int64_t m, size_t es, uint64_t seed)
{
    size_t at = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t e = off[i]; e < off[i] + len[i]; e++)
            for (size_t b = 0; b < es; b++)
                buf[at++] = data_byte(e, b, seed);
}

/* The first byte where got (NULL: none) differs from want within both;
 * -1 if none. */
static int64_t first_diff(const unsigned char *got, size_t got_n,
                          const unsigned char *want, size_t n)
{
    for (size_t i = 0; got != NULL && i < n && i < got_n; i++)
        if (got[i] != want[i])
            return (int64_t)i;
    return -1;
}

/* One INPLACE open, one write or read, one close; the agreed code. */
static int io_inplace(tu_ctx *t, collio_plan *p, const char *path,
                      const collio_file_options *fo, int writing, void *buf, size_t bytes)
{
    collio_file *f = NULL;
    int rc = collio_file_open(t->comm, path,
                              writing ? COLLIO_FILE_INPLACE : COLLIO_FILE_READ, fo, &f);
    if (rc == COLLIO_OK)
        rc = writing ? collio_write(p, f, buf, bytes) : collio_read(p, f, buf, bytes);
    if (rc != COLLIO_OK && t->rank == 0)
        fprintf(stderr, "  (%s: %s)\n", writing ? "write" : "read", collio_last_error());
    int crc = f != NULL ? collio_file_close(&f) : COLLIO_OK;
    return rc != COLLIO_OK ? rc : crc;
}

typedef struct sp_case {
    const char *strategy;
    const char *hints;
    collio_backend backend;
} sp_case;

static void sparse_case(tu_ctx *t, const sp_case *c, int64_t span, int maxrun, size_t es,
                        uint64_t seed)
{
    tu_case(t,
            "sparse strategy=%s hints=%s backend=%s span=%lld run<=%d es=%zu seed=%llu",
            c->strategy, c->hints, c->backend == COLLIO_BACKEND_POSIX ? "posix" : "mpiio",
            (long long)span, maxrun, es, (unsigned long long)seed);
    if (!tu_case_enabled(t))
        return;
    const int64_t base = 37;   /* a header before the data */
    const int64_t after = 101; /* background after the data's span */
    int64_t np = 0;
    piece *v = gen_pieces(span, maxrun, t->nranks, seed, &np);
    int64_t *off = malloc((size_t)(np + 1) * sizeof *off);
    int64_t *len = malloc((size_t)(np + 1) * sizeof *len);
    int64_t m = my_extents(v, np, t->rank, seed, off, len), elems = 0;
    for (int64_t i = 0; i < m; i++)
        elems += len[i];
    unsigned char *buf = malloc((size_t)elems * es + 1);
    unsigned char *back = calloc((size_t)elems * es + 1, 1);
    fill_buf(buf, off, len, m, es, seed);

    /* the reference, rank 0 alone: background + every held element */
    size_t fbytes = (size_t)(base + span * (int64_t)es + after);
    unsigned char *want = malloc(fbytes);
    for (size_t i = 0; i < fbytes; i++)
        want[i] = bg_byte((int64_t)i);
    for (int64_t i = 0; i < np; i++)
        for (int64_t e = v[i].off; e < v[i].off + v[i].len; e++)
            for (size_t b = 0; b < es; b++)
                want[base + e * (int64_t)es + (int64_t)b] = data_byte(e, b, seed);

    char path[1024];
    tu_temp_path(t, "sparse", path, sizeof path);
    { /* tu_posix_put/get: collective, rank 0 does the I/O */
        unsigned char *bg = malloc(fbytes);
        for (size_t i = 0; i < fbytes; i++)
            bg[i] = bg_byte((int64_t)i);
        TU_CHECK(t, tu_posix_put(t, path, bg, fbytes), "background written");
        free(bg);
    }

    collio_layout *l = NULL;
    int rc = collio_layout_extents(t->comm, m, off, len, es, &l);
    TU_RC_ALL(t, rc, COLLIO_OK, "collio_layout_extents");
    collio_hints *h = TU_HINTS(t, "%s", c->hints);
    collio_plan *p = NULL;
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, c->strategy, h, &p);
    TU_RC_ALL(t, rc, COLLIO_OK, "collio_plan_create");
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = c->backend;
    fo.base_offset = base;
    if (rc == COLLIO_OK) {
        TU_RC_ALL(t, io_inplace(t, p, path, &fo, 1, buf, (size_t)elems * es), COLLIO_OK,
                  "write");
        {
            size_t got_n = 0;
            unsigned char *got = tu_posix_get(t, path, &got_n);
            int64_t bad = first_diff(got, got_n, want, fbytes);
            TU_CHECK(t, got != NULL && got_n == fbytes && bad < 0,
                     "file: %zu bytes (want %zu), first difference at byte %lld (%s)",
                     got_n, fbytes, (long long)bad,
                     bad < 0                            ? "none"
                     : bad < base                       ? "header"
                     : bad >= base + span * (int64_t)es ? "after the data"
                                                        : "data or hole");
            free(got);
        }
        TU_RC_ALL(t, io_inplace(t, p, path, &fo, 0, back, (size_t)elems * es), COLLIO_OK,
                  "read");
        TU_CHECK(t, memcmp(back, buf, (size_t)elems * es) == 0,
                 "read back equals written");
    }
    collio_plan_free(&p);
    collio_hints_free(&h);
    collio_layout_free(&l);
    tu_remove(t, path);
    free(v);
    free(off);
    free(len);
    free(buf);
    free(back);
    free(want);
}

/* Two variables on one span, one CREATE file, two plans: runs of
 * 1..maxrun elements, each held by variable A, by B, or by neither, so
 * that A's holes are B's data and the reverse, and the holes are small
 * enough to be bridged (files/holes.c). Written in one open, `first` then
 * the other: the second call must not write its holes (the first one's
 * data) where the first call's zeros were allowed; the never-held runs
 * stay zeros. The reference is rank 0's, from the same generator. Each
 * variable is then read back from the committed file. */
static void create_vars_case(tu_ctx *t, const char *strategy, collio_backend be,
                             int64_t span, int maxrun, int first, uint64_t seed)
{
    tu_case(t, "create two variables strategy=%s backend=%s span=%lld first=%c", strategy,
            be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio", (long long)span,
            first ? 'B' : 'A');
    if (!tu_case_enabled(t))
        return;
    const size_t es = 4;
    piece *v = malloc((size_t)span * sizeof *v);
    int who[2] = {0, 0}; /* runs per variable */
    int64_t nv = 0;
    int *var = malloc((size_t)span * sizeof *var);
    for (int64_t at = 0, k = 0; at < span; k++) {
        uint64_t r = mix(seed * 104729 + (uint64_t)k);
        int64_t len = 1 + (int64_t)(r % (uint64_t)maxrun);
        if (len > span - at)
            len = span - at;
        int x = (int)((r >> 16) % 5); /* 0: neither, 1-2: A, 3-4: B */
        if (x > 0) {
            var[nv] = x <= 2 ? 0 : 1;
            who[var[nv]]++;
            v[nv++] = (piece){at, len, (int)((r >> 32) % (uint64_t)t->nranks)};
        }
        at += len;
    }
    int64_t *off = malloc((size_t)(nv + 1) * sizeof *off);
    int64_t *len = malloc((size_t)(nv + 1) * sizeof *len);
    piece *mine = malloc((size_t)(nv + 1) * sizeof *mine);
    unsigned char *buf[2] = {NULL, NULL};
    int64_t elems[2] = {0, 0};
    collio_layout *l[2] = {NULL, NULL};
    collio_plan *p[2] = {NULL, NULL};
    int rc = COLLIO_OK;
    for (int a = 0; a < 2; a++) {
        int64_t n = 0;
        for (int64_t i = 0; i < nv; i++)
            if (var[i] == a)
                mine[n++] = v[i];
        int64_t m = my_extents(mine, n, t->rank, seed + (uint64_t)a, off, len);
        for (int64_t i = 0; i < m; i++)
            elems[a] += len[i];
        buf[a] = malloc((size_t)elems[a] * es + 1);
        fill_buf(buf[a], off, len, m, es, seed + 10 + (uint64_t)a);
        if (rc == COLLIO_OK)
            rc = collio_layout_extents(t->comm, m, off, len, es, &l[a]);
        if (rc == COLLIO_OK)
            rc = collio_plan_create(t->comm, l[a], strategy, NULL, &p[a]);
    }
    TU_RC_ALL(t, rc, COLLIO_OK, "two layouts and plans");
    TU_CHECK(t, who[0] > 0 && who[1] > 0, "both variables hold runs (%d, %d)", who[0],
             who[1]);
    size_t fbytes = 0; /* the reference: zeros, each variable's data */
    for (int64_t i = 0; i < nv; i++)
        if ((size_t)(v[i].off + v[i].len) * es > fbytes)
            fbytes = (size_t)(v[i].off + v[i].len) * es;
    unsigned char *want = calloc(fbytes + 1, 1);
    for (int64_t i = 0; i < nv; i++)
        for (int64_t e = v[i].off; e < v[i].off + v[i].len; e++)
            for (size_t b = 0; b < es; b++)
                want[e * (int64_t)es + (int64_t)b] =
                    data_byte(e, b, seed + 10 + (uint64_t)var[i]);
    char path[1024];
    tu_temp_path(t, "create_vars", path, sizeof path);
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = be;
    collio_file *f = NULL;
    if (rc == COLLIO_OK) {
        rc = collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f);
        for (int k = 0; k < 2 && rc == COLLIO_OK; k++) {
            int a = k == 0 ? first : 1 - first;
            rc = collio_write(p[a], f, buf[a], (size_t)elems[a] * es);
        }
        int crc = f != NULL ? collio_file_close(&f) : COLLIO_OK;
        TU_RC_ALL(t, rc != COLLIO_OK ? rc : crc, COLLIO_OK, "open, two writes, close");
        size_t got_n = 0;
        unsigned char *got = tu_posix_get(t, path, &got_n);
        int64_t bad = first_diff(got, got_n, want, fbytes);
        TU_CHECK(t, got != NULL && got_n == fbytes && bad < 0,
                 "file: %zu bytes (want %zu), first difference at byte %lld", got_n,
                 fbytes, (long long)bad);
        free(got);
        for (int a = 0; a < 2; a++) {
            unsigned char *back = calloc((size_t)elems[a] * es + 1, 1);
            TU_RC_ALL(t, io_inplace(t, p[a], path, &fo, 0, back, (size_t)elems[a] * es),
                      COLLIO_OK, a ? "read variable B" : "read variable A");
            TU_CHECK(t, memcmp(back, buf[a], (size_t)elems[a] * es) == 0,
                     "variable %c read back equals written", 'A' + a);
            free(back);
        }
    }
    for (int a = 0; a < 2; a++) {
        collio_plan_free(&p[a]);
        collio_layout_free(&l[a]);
        free(buf[a]);
    }
    tu_remove(t, path);
    free(v);
    free(var);
    free(off);
    free(len);
    free(mine);
    free(want);
}

/* Several variables at their own offsets, one open, one plan. */
static void write_at_case(tu_ctx *t, const char *strategy, int64_t nx, int64_t bx)
{
    tu_case(t, "write_at strategy=%s nx=%lld bx=%lld", strategy, (long long)nx,
            (long long)bx);
    if (!tu_case_enabled(t))
        return;
    const size_t es = 8;
    const int nvar = 4;
    const int64_t gap = 13, base = 5; /* a header; bytes between the variables */
    int64_t vbytes = nx * (int64_t)es, fbytes = base + nvar * (vbytes + gap);
    collio_layout *l = NULL;
    TU_RC_ALL(t, collio_layout_block_cyclic(t->comm, nx, bx, es, &l), COLLIO_OK,
              "layout");
    collio_plan *p = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, strategy, NULL, &p), COLLIO_OK, "plan");
    int64_t nloc = collio_layout_local_count(l);
    unsigned char *buf = malloc((size_t)(nloc * (int64_t)es) + 1);
    unsigned char *back = malloc((size_t)(nloc * (int64_t)es) + 1);
    char path[1024];
    tu_temp_path(t, "write_at", path, sizeof path);
    {
        unsigned char *bg = malloc((size_t)fbytes);
        for (int64_t i = 0; i < fbytes; i++)
            bg[i] = bg_byte(i);
        tu_posix_put(t, path, bg, (size_t)fbytes);
        free(bg);
    }
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.base_offset = base;
    collio_file *f = NULL;
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_INPLACE, &fo, &f), COLLIO_OK,
              "open");
    for (int v = 0; v < nvar && f && p; v++) {
        for (int64_t i = 0; i < nloc; i++)
            for (size_t b = 0; b < es; b++)
                buf[i * (int64_t)es + (int64_t)b] =
                    data_byte(collio_layout_global_index(l, i), b, (uint64_t)v + 11);
        TU_RC_ALL(
            t,
            collio_write_at(p, f, v * (vbytes + gap), buf, (size_t)(nloc * (int64_t)es)),
            COLLIO_OK, "collio_write_at");
    }
    for (int v = 0; v < nvar && f && p; v++) {
        memset(back, 0, (size_t)(nloc * (int64_t)es) + 1);
        TU_RC_ALL(
            t,
            collio_read_at(p, f, v * (vbytes + gap), back, (size_t)(nloc * (int64_t)es)),
            COLLIO_OK, "collio_read_at");
        int ok = 1;
        for (int64_t i = 0; i < nloc && ok; i++)
            for (size_t b = 0; b < es && ok; b++)
                ok = back[i * (int64_t)es + (int64_t)b]
                     == data_byte(collio_layout_global_index(l, i), b, (uint64_t)v + 11);
        TU_CHECK(t, ok, "variable %d read back", v);
    }
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
    {
        size_t n = 0;
        unsigned char *got = tu_posix_get(t, path, &n);
        int64_t bad = -1;
        for (int64_t i = 0; got && i < fbytes && bad < 0; i++) {
            unsigned char w = bg_byte(i);
            int64_t r = i - base;
            if (r >= 0 && r % (vbytes + gap) < vbytes) {
                int64_t v = r / (vbytes + gap), e = (r % (vbytes + gap)) / (int64_t)es;
                w = data_byte(e, (size_t)((r % (vbytes + gap)) % (int64_t)es),
                              (uint64_t)v + 11);
            }
            if (got[i] != w)
                bad = i;
        }
        TU_CHECK(t, got && (int64_t)n == fbytes && bad < 0,
                 "file: %zu bytes (want %lld), first difference at %lld", n,
                 (long long)fbytes, (long long)bad);
        free(got);
    }
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_remove(t, path);
    free(buf);
    free(back);
}

static void error_cases(tu_ctx *t)
{
    const int P = t->nranks, me = t->rank;
    collio_layout *l = NULL;
    tu_case(t, "errors: overlap between ranks");
    if (tu_case_enabled(t)) {
        /* rank r holds [10r, 10r + 12): neighbours overlap by 2 (P >= 2);
         * on one rank: two extents of its own overlap */
        int64_t off[2] = {10 * me, 10 * me + 5}, len[2] = {12, 1};
        int rc = collio_layout_extents(t->comm, P > 1 ? 1 : 2, off, len, 4, &l);
        TU_RC_ALL(t, rc, COLLIO_ERR_OVERLAP, "overlapping extents");
        TU_CHECK(t, l == NULL, "no layout on failure");
    }
    tu_case(t, "errors: negative extent on the last rank");
    if (tu_case_enabled(t)) {
        int64_t off[1] = {100 * me}, len[1] = {me == P - 1 ? -1 : 3};
        TU_RC_ALL(t, collio_layout_extents(t->comm, 1, off, len, 4, &l), COLLIO_ERR_ARG,
                  "negative len");
    }
    tu_case(t, "errors: offsets");
    if (tu_case_enabled(t)) {
        int64_t off[1] = {3 * me}, len[1] = {3};
        TU_RC_ALL(t, collio_layout_extents(t->comm, 1, off, len, 4, &l), COLLIO_OK,
                  "layout");
        collio_plan *p = NULL;
        TU_RC_ALL(t, collio_plan_create(t->comm, l, "independent", NULL, &p), COLLIO_OK,
                  "plan");
        char path[1024];
        tu_temp_path(t, "errors", path, sizeof path);
        collio_file *f = NULL;
        unsigned char buf[12] = {0};
        TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, NULL, &f),
                  COLLIO_OK, "open");
        if (P > 1)
            TU_RC_ALL(t, collio_write_at(p, f, me == P - 1 ? 8 : 0, buf, 12),
                      COLLIO_ERR_MISMATCH, "offset differs on the last rank");
        TU_RC_ALL(t, collio_write_at(p, f, -4, buf, 12), COLLIO_ERR_ARG,
                  "negative offset");
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close after failed writes");
        collio_plan_free(&p);
        collio_layout_free(&l);
        tu_remove(t, path);
    }
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_sparse");
    static const char *const canon[] = {"serial",   "independent", "two_phase",
                                        "subgroup", "auto",        "multiphase"};
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof canon / sizeof canon[0]; s++) {
        for (int b = 0; b < 2; b++) {
            sp_case c = {canon[s], "", b ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX};
            sparse_case(&t, &c, 1000, 9, 4, seed++);
            sparse_case(&t, &c, 3001, 200, 8, seed++);
        }
    }
    /* multiphase's transports, and small rounds */
    for (int x = 1; tu_exchange_name(x) != NULL; x++) {
        char hints[128];
        snprintf(hints, sizeof hints, "multiphase.exchange=%s", tu_exchange_name(x));
        sp_case c = {"multiphase", hints, COLLIO_BACKEND_POSIX};
        sparse_case(&t, &c, 2000, 17, 4, seed++);
    }
    sp_case small = {"serial", "serial.chunk_bytes=64", COLLIO_BACKEND_POSIX};
    sparse_case(&t, &small, 1500, 5, 4, seed++);
    sp_case iov = {"independent", "independent.max_iov=2", COLLIO_BACKEND_POSIX};
    sparse_case(&t, &iov, 1500, 5, 4, seed++);
    sp_case empty = {"multiphase", "", COLLIO_BACKEND_POSIX}; /* tiny: ranks empty */
    sparse_case(&t, &empty, 3, 2, 4, seed++);

    for (size_t s = 0; s < sizeof canon / sizeof canon[0]; s++)
        for (int b = 0; b < 2; b++)
            for (int first = 0; first < 2; first++)
                create_vars_case(&t, canon[s],
                                 b ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX, 2000, 6,
                                 first, seed++);
    /* runs of 1-2 elements: a writer's domain is thousands of runs, more
     * than one request takes (files/holes.c's REQUEST_IOV) */
    for (int b = 0; b < 2; b++)
        create_vars_case(&t, b ? "serial" : "multiphase", COLLIO_BACKEND_POSIX, 30000, 2,
                         b, seed++);
    /* ... and more than one staged request takes (files/holes.c's
     * STAGE_BYTES, 1 MiB): 1.6 MB of runs of 1-2 elements, one writer */
    create_vars_case(&t, "serial", COLLIO_BACKEND_POSIX, 400000, 2, 0, seed++);
    for (size_t s = 0; s < sizeof canon / sizeof canon[0]; s++)
        write_at_case(&t, canon[s], 1000 + t.nranks, 7);
    error_cases(&t);
    return tu_finish(&t);
}
