/*
 * mpi_requests.c -- requests (collio_iwrite_at / collio_iread_at and their
 * completions), against a reference built here alone.
 *
 * History files: NVAR variables of one layout in one file at their own
 * offsets (back to back, apart by whole elements, apart by a gap that is
 * not a whole element), started in reverse order and completed by
 * collio_waitall, by collio_wait one by one, or by collio_test loops;
 * requests held until the completion (hint request.start=wait) or started
 * at once, on the helper thread (MPI_THREAD_MULTIPLE asked of MPI) or
 * not (hint request.thread=0). Every strategy, every dense layout kind
 * (block-cyclic at bx 1 and 7, a shuffled index list, a 2-d darray), and
 * a sparse extents layout and a replicated index list (its buffer
 * strided: a memory datatype). The file is
 * compared byte for byte with the reference (INPLACE over a background
 * pattern: a header, the gaps and a sparse layout's holes keep it), and
 * read back with requests into zeroed buffers. Where requests of one plan
 * on one file are waited for together and may stack (a canonical
 * strategy other than the MPI library's collective, offsets apart by
 * whole elements), request.merged must say they ran as one execution
 * (sparse and replicated ones too); and requests of several
 * plans (layouts of different kinds and sizes, a sparse one among them,
 * one strategy and its options) on one file too, where a plan with
 * options of its own splits the batch.
 *
 * A snapshot (request.snapshot=1): the buffer is overwritten right after
 * the start; the file holds what it held at the start. A notice
 * (collio_request_notify): called once after the request ran, where the
 * helper thread runs it; refused (COLLIO_ERR_STATE) and never called
 * where nothing runs it in the background.
 *
 * Errors: a file closed with a request not completed (COLLIO_ERR_STATE on
 * every rank, the previous file stays byte for byte, the request's wait
 * fails); a plan freed with one (its wait fails, its file is not
 * committed); a request whose buffer size is wrong on one rank, and a
 * batch whose offsets differ across ranks (the same error everywhere,
 * nothing committed).
 */
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVAR = 4 };
static const size_t ES = 8;
static const int64_t BASE = 24; /* a header before the data */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static unsigned char bg_byte(int64_t at)
{
    return (unsigned char)(mix((uint64_t)at ^ 0x77) & 0xff);
}
static unsigned char data_byte(int64_t elem, size_t b, int v)
{
    return (unsigned char)(mix((uint64_t)elem * 16 + b + (uint64_t)v * 0x1000193) & 0xff);
}

/* What a rank holds: global indices in buffer order; `owned` for a
 * replicated list (NULL otherwise); held[e] over the file: 1 if some rank
 * holds element e (sparse layouts leave holes). */
typedef struct held {
    const char *name;
    int64_t nglobal, nloc, *idx;
    unsigned char *owned, *held;
    int64_t mstride; /* buffer element k at byte k * mstride * ES */
    int may_stack;   /* its requests may stack (every kind here) */
} held;

static void held_free(held *h)
{
    free(h->idx);
    free(h->owned);
    free(h->held);
    memset(h, 0, sizeof *h);
}

/* The layout kinds, and the reference's view of each (tu_enumerate for
 * the dense ones; by construction here for sparse and replicated). */
enum { L_BC1, L_BC7, L_LIST, L_DARRAY, L_SPARSE, L_REPL, L__COUNT };

static int make_layout(tu_ctx *t, int kind, collio_layout **l, held *h)
{
    const int P = t->nranks, me = t->rank;
    memset(h, 0, sizeof *h);
    h->mstride = 1;
    tu_layout_desc d;
    memset(&d, 0, sizeof d);
    int64_t n = 301 + 17 * P;
    if (kind <= L_DARRAY) {
        if (kind == L_BC1 || kind == L_BC7)
            tu_desc_block_cyclic(&d, n, kind == L_BC1 ? 1 : 7, ES);
        else if (kind == L_LIST)
            tu_desc_index_list(&d, me, P, n, TU_IL_SHUFFLED, 5, ES);
        else {
            int64_t g[2] = {13, 11 + P};
            collio_distrib ds[2] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC};
            tu_desc_darray(&d, P, 2, g, ds, NULL, NULL, COLLIO_ORDER_C, ES);
        }
        h->name = kind == L_BC1    ? "bc1"
                  : kind == L_BC7  ? "bc7"
                  : kind == L_LIST ? "list"
                                   : "darray";
        h->nglobal = d.nglobal;
        tu_enumerate(&d, me, P, &h->idx, &h->nloc);
        int rc = tu_desc_make(&d, t->comm, l);
        tu_desc_free(&d);
        h->held = malloc((size_t)h->nglobal);
        memset(h->held, 1, (size_t)h->nglobal);
        h->may_stack = 1;
        return rc;
    }
    int64_t lo = n * me / P, hi = n * (me + 1) / P;
    h->nglobal = n;
    h->held = calloc((size_t)n, 1);
    h->idx = malloc((size_t)(hi - lo + 1) * sizeof *h->idx);
    if (kind == L_SPARSE) { /* runs of 3 in every other 5 of this rank's block */
        h->name = "sparse";
        h->may_stack = 1;
        int64_t off[64], len[64], m = 0;
        for (int64_t a = lo; a < hi && m < 64; a += 10) {
            off[m] = a;
            len[m] = a + 3 <= hi ? 3 : hi - a;
            for (int64_t e = 0; e < len[m]; e++)
                h->idx[h->nloc++] = a + e;
            m++;
        }
        for (int q = 0; q < P; q++) /* every rank's runs, for the reference */
            for (int64_t a = n * q / P, b = n * (q + 1) / P, c = 0; a < b && c < 64;
                 a += 10, c++)
                for (int64_t e = a; e < a + 3 && e < b; e++)
                    h->held[e] = 1;
        return collio_layout_extents(t->comm, m, off, len, ES, l);
    }
    h->name = "replicated"; /* its block, and the next rank's first element */
    h->may_stack = 1;       /* (what each rank writes stacks) */
    h->owned = malloc((size_t)(hi - lo + 1));
    for (int64_t e = lo; e < hi; e++) {
        h->owned[h->nloc] = 1;
        h->idx[h->nloc++] = e;
    }
    if (hi < n) {
        h->owned[h->nloc] = 0;
        h->idx[h->nloc++] = hi;
    }
    memset(h->held, 1, (size_t)n);
    int rc =
        collio_layout_index_list_replicated(t->comm, n, h->nloc, h->idx, h->owned, ES, l);
    if (rc != COLLIO_OK)
        return rc;
    /* its buffer not packed: every other element's room (the library
     * packs the user stream before it picks what this rank writes) */
    MPI_Datatype every_other;
    MPI_Type_vector((int)h->nloc, (int)ES, 2 * (int)ES, MPI_BYTE, &every_other);
    h->mstride = 2;
    rc = collio_layout_set_memory_datatype(*l, every_other, 1);
    MPI_Type_free(&every_other);
    return rc;
}

static void fill(const held *h, unsigned char *buf, int v)
{
    for (int64_t k = 0; k < h->nloc; k++)
        for (size_t b = 0; b < ES; b++)
            buf[k * h->mstride * (int64_t)ES + (int64_t)b] = data_byte(h->idx[k], b, v);
}

static int64_t mismatches(const held *h, const unsigned char *buf, int v)
{
    int64_t bad = 0;
    for (int64_t k = 0; k < h->nloc; k++)
        for (size_t b = 0; b < ES; b++)
            bad += buf[k * h->mstride * (int64_t)ES + (int64_t)b]
                   != data_byte(h->idx[k], b, v);
    return bad;
}

/* The file's expected byte at position i: background, or variable v's
 * element where one lies (variable v at BASE + v * stride). */
static unsigned char expected(const held *h, int64_t i, int64_t stride, int nvar)
{
    int64_t r = i - BASE, vb = h->nglobal * (int64_t)ES;
    if (r >= 0 && r / stride < nvar && r % stride < vb) {
        int64_t e = (r % stride) / (int64_t)ES;
        if (h->held[e])
            return data_byte(e, (size_t)((r % stride) % (int64_t)ES), (int)(r / stride));
    }
    return bg_byte(i);
}

static void put_background(tu_ctx *t, const char *path, int64_t bytes)
{
    unsigned char *bg = malloc((size_t)bytes);
    for (int64_t i = 0; i < bytes; i++)
        bg[i] = bg_byte(i);
    tu_posix_put(t, path, bg, (size_t)bytes);
    free(bg);
}

/* The first byte of path in [from, bytes) other than want(i, ctx), or -1
 * (-2: the file unreadable); *n: its size. */
static int64_t first_difference(tu_ctx *t, const char *path, int64_t from, int64_t bytes,
                                unsigned char (*want)(int64_t i, const void *ctx),
                                const void *ctx, size_t *n)
{
    *n = 0;
    unsigned char *got = tu_posix_get(t, path, n);
    int64_t bad = got != NULL ? -1 : -2;
    for (int64_t i = from; got && i < bytes && bad < 0; i++)
        if (got[i] != want(i, ctx))
            bad = i;
    free(got);
    return bad;
}

/* The history file of one layout: nvar variables `stride` bytes apart. */
typedef struct history_ref {
    const held *h;
    int64_t stride;
    int nvar;
} history_ref;

static unsigned char history_byte(int64_t i, const void *ctx)
{
    const history_ref *c = ctx;
    return expected(c->h, i, c->stride, c->nvar);
}

static void check_file(tu_ctx *t, const held *h, const char *path, int64_t stride,
                       int64_t bytes)
{
    size_t n = 0;
    const history_ref c = {h, stride, NVAR};
    int64_t bad = first_difference(t, path, 0, bytes, history_byte, &c, &n);
    TU_CHECK(t, bad == -1 && (int64_t)n == bytes,
             "file: %zu bytes (want %lld), first difference at byte %lld", n,
             (long long)bytes, (long long)bad);
}

enum { C_WAITALL, C_WAIT, C_TEST, C__COUNT };
static const char *const cnames[] = {"waitall", "wait", "test"};

/* Completes the NVAR requests of r as `how` says; every code must be OK. */
static void complete(tu_ctx *t, collio_request **r, int how, const char *what)
{
    int codes[NVAR];
    if (how == C_WAITALL) {
        TU_RC_ALL(t, collio_waitall(NVAR, r, codes), COLLIO_OK, what);
    } else {
        for (int v = 0; v < NVAR; v++) {
            if (how == C_WAIT) {
                TU_RC_ALL(t, collio_wait(&r[v]), COLLIO_OK, what);
                continue;
            }
            int done = 0, rc = COLLIO_OK;
            while (!done && rc == COLLIO_OK)
                rc = collio_test(&r[v], &done);
            TU_RC_ALL(t, rc, COLLIO_OK, what);
        }
    }
    int left = 0;
    for (int v = 0; v < NVAR; v++)
        left += r[v] != NULL;
    TU_CHECK(t, left == 0, "%s: %d requests not freed", what, left);
}

static void history_case(tu_ctx *t, const char *strategy, int kind, int64_t gap, int how,
                         int held_back, int thread)
{
    collio_layout *l = NULL;
    held h;
    int lrc = make_layout(t, kind, &l, &h);
    tu_case(t, "history strategy=%s layout=%s gap=%lld %s start=%s thread=%d", strategy,
            h.name, (long long)gap, cnames[how], held_back ? "wait" : "now", thread);
    if (!tu_case_enabled(t) || !TU_RC_ALL(t, lrc, COLLIO_OK, "layout")) {
        collio_layout_free(&l);
        held_free(&h);
        return;
    }
    collio_hints *hi = TU_HINTS(t, "request.start=%s,request.thread=%d",
                                held_back ? "wait" : "now", thread);
    collio_plan *p = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, strategy, hi, &p), COLLIO_OK, "plan");
    collio_hints_free(&hi);
    int canonical = collio_strategy_is_canonical(strategy);
    size_t bytes = collio_layout_buffer_bytes(l);
    int64_t stride = h.nglobal * (int64_t)ES + gap, fbytes = BASE + NVAR * stride;
    unsigned char *buf[NVAR];
    for (int v = 0; v < NVAR; v++) {
        buf[v] = malloc(bytes + 1);
        fill(&h, buf[v], v);
    }
    char path[1024];
    tu_temp_path(t, "hist", path, sizeof path);
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.base_offset = BASE;
    collio_file *f = NULL;
    if (canonical)
        put_background(t, path, fbytes);
    TU_RC_ALL(t,
              collio_file_open(t->comm, path,
                               canonical ? COLLIO_FILE_INPLACE : COLLIO_FILE_CREATE, &fo,
                               &f),
              COLLIO_OK, "open");
    collio_request *r[NVAR] = {0};
    for (int v = NVAR - 1; v >= 0 && p && f; v--) /* reverse order: stacking keeps it */
        TU_RC_ALL(t, collio_iwrite_at(p, f, v * stride, buf[v], bytes, &r[v]), COLLIO_OK,
                  "collio_iwrite_at");
    if (p && f) {
        complete(t, r, how, "write completion");
        int stacks = canonical && !collio_strategy_is_mpi_collective(strategy)
                     && h.may_stack && gap % (int64_t)ES == 0;
        double merged = TU_STAT(t, p, "request.merged");
        if (how == C_WAITALL && held_back && stacks)
            TU_CHECK(t, tu_all(t, merged == NVAR), "request.merged %g, want %d", merged,
                     NVAR);
        else
            TU_CHECK(t, merged >= 1 && merged <= NVAR, "request.merged %g", merged);
        if (h.owned != NULL) { /* the plan's replicas figures, merged or not */
            double nheld = TU_STAT(t, p, "replicas.held");
            TU_CHECK(t, nheld == (double)h.nloc, "replicas.held %g, want %lld", nheld,
                     (long long)h.nloc);
        }
        double th = TU_STAT(t, p, "request.thread");
        const char *env = getenv("COLLIO_PROGRESS_THREAD");
        int helper = thread && !held_back && t->thread_level == MPI_THREAD_MULTIPLE
                     && !(env != NULL && strcmp(env, "0") == 0);
        TU_CHECK(t, th == helper, "request.thread %g, want %d", th, helper);
    }
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
    if (canonical)
        check_file(t, &h, path, stride, fbytes);
    /* read back with requests into zeroed buffers */
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_READ, &fo, &f), COLLIO_OK,
              "open for reading");
    for (int v = 0; v < NVAR; v++)
        memset(buf[v], 0, bytes);
    for (int v = NVAR - 1; v >= 0 && p && f; v--)
        TU_RC_ALL(t, collio_iread_at(p, f, v * stride, buf[v], bytes, &r[v]), COLLIO_OK,
                  "collio_iread_at");
    if (p && f)
        complete(t, r, how, "read completion");
    for (int v = 0; v < NVAR; v++) {
        int64_t bad = mismatches(&h, buf[v], v);
        TU_CHECK(t, bad == 0, "variable %d read back: %lld bytes differ", v,
                 (long long)bad);
    }
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close after reading");
    collio_plan_free(&p);
    collio_layout_free(&l);
    held_free(&h);
    tu_remove(t, path);
    for (int v = 0; v < NVAR; v++)
        free(buf[v]);
}

/* Variables of different plans in one file: variable v of layout kind
 * mixed_kinds[v] (block-cyclic, a shuffled list, a darray, a sparse one
 * with holes, a replicated list: sizes that differ),
 * each its own plan, at off[v] past BASE, `gap` bytes apart; started in
 * reverse order, held (request.start=wait) and waited for together. Plans
 * that merge (one strategy, its options) run as one execution where the
 * strategy stacks; with `odd`, variable 1's plan has an option of its own
 * (plan.keep_buffers=0) and does not merge: the batch splits around it.
 * The file against the reference, then read back the same way. */
enum { NMIX = 5 };
static const int mixed_kinds[NMIX] = {L_BC1, L_LIST, L_DARRAY, L_SPARSE, L_REPL};

/* The mixed file: variable v of layout h[v] at BASE + off[v]. */
typedef struct mixed_ref {
    const held *h;
    const int64_t *off;
} mixed_ref;

static unsigned char mixed_byte(int64_t i, const void *ctx)
{
    const mixed_ref *c = ctx;
    for (int v = 0; v < NMIX; v++) {
        int64_t rel = i - BASE - c->off[v], e = rel / (int64_t)ES;
        if (rel >= 0 && rel < c->h[v].nglobal * (int64_t)ES && c->h[v].held[e])
            return data_byte(e, (size_t)(rel % (int64_t)ES), v);
    }
    return bg_byte(i);
}

static void mixed_case(tu_ctx *t, const char *strategy, int64_t gap, int odd)
{
    tu_case(t, "mixed plans strategy=%s gap=%lld odd=%d", strategy, (long long)gap, odd);
    if (!tu_case_enabled(t))
        return;
    held h[NMIX];
    collio_layout *l[NMIX] = {0};
    collio_plan *p[NMIX] = {0};
    unsigned char *buf[NMIX];
    size_t bytes[NMIX];
    int64_t off[NMIX], end = 0;
    for (int v = 0; v < NMIX; v++) {
        TU_RC_ALL(t, make_layout(t, mixed_kinds[v], &l[v], &h[v]), COLLIO_OK, "layout");
        collio_hints *hi = TU_HINTS(t, "request.start=wait%s",
                                    odd && v == 1 ? ",plan.keep_buffers=0" : "");
        TU_RC_ALL(t, collio_plan_create(t->comm, l[v], strategy, hi, &p[v]), COLLIO_OK,
                  "plan");
        collio_hints_free(&hi);
        bytes[v] = collio_layout_buffer_bytes(l[v]);
        buf[v] = malloc(bytes[v] + 1);
        fill(&h[v], buf[v], v);
        off[v] = end;
        end += h[v].nglobal * (int64_t)ES + gap;
    }
    int64_t fbytes = BASE + end;
    char path[1024];
    tu_temp_path(t, "mixed", path, sizeof path);
    put_background(t, path, fbytes);
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.base_offset = BASE;
    collio_file *f = NULL;
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_INPLACE, &fo, &f), COLLIO_OK,
              "open");
    int ok = f != NULL;
    for (int v = 0; v < NMIX; v++)
        ok = ok && p[v] != NULL;
    collio_request *r[NMIX] = {0};
    int codes[NMIX];
    for (int v = NMIX - 1; v >= 0 && ok; v--)
        TU_RC_ALL(t, collio_iwrite_at(p[v], f, off[v], buf[v], bytes[v], &r[v]),
                  COLLIO_OK, "collio_iwrite_at");
    if (ok) {
        TU_RC_ALL(t, collio_waitall(NMIX, r, codes), COLLIO_OK, "waitall (writes)");
        int stacks =
            !collio_strategy_is_mpi_collective(strategy) && gap % (int64_t)ES == 0;
        for (int v = 0; v < NMIX; v++) {
            /* started 4, 3, 2, 1, 0: with odd, batches {4, 3, 2}, {1}, {0} */
            int want = !stacks ? 1 : !odd ? NMIX : v >= 2 ? NMIX - 2 : 1;
            double merged = TU_STAT(t, p[v], "request.merged");
            TU_CHECK(t, tu_all(t, merged == want),
                     "variable %d: request.merged %g, want %d", v, merged, want);
        }
    }
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
    size_t n = 0;
    const mixed_ref c = {h, off};
    int64_t bad = first_difference(t, path, 0, fbytes, mixed_byte, &c, &n);
    TU_CHECK(t, bad == -1 && (int64_t)n == fbytes,
             "file: %zu bytes (want %lld), first difference at byte %lld", n,
             (long long)fbytes, (long long)bad);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_READ, &fo, &f), COLLIO_OK,
              "open for reading");
    for (int v = 0; v < NMIX; v++)
        memset(buf[v], 0, bytes[v]);
    ok = ok && f != NULL;
    for (int v = NMIX - 1; v >= 0 && ok; v--)
        TU_RC_ALL(t, collio_iread_at(p[v], f, off[v], buf[v], bytes[v], &r[v]), COLLIO_OK,
                  "collio_iread_at");
    if (ok)
        TU_RC_ALL(t, collio_waitall(NMIX, r, codes), COLLIO_OK, "waitall (reads)");
    for (int v = 0; v < NMIX; v++) {
        int64_t wrong = mismatches(&h[v], buf[v], v);
        TU_CHECK(t, wrong == 0, "variable %d read back: %lld bytes differ", v,
                 (long long)wrong);
    }
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close after reading");
    tu_remove(t, path);
    for (int v = 0; v < NMIX; v++) {
        collio_plan_free(&p[v]);
        collio_layout_free(&l[v]);
        held_free(&h[v]);
        free(buf[v]);
    }
}

/* One variable (v = 0) at BASE through a blocking write: the previous
 * file of the error cases. */
static void previous_file(tu_ctx *t, collio_plan *p, const held *h, const char *path,
                          unsigned char *buf, size_t bytes)
{
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.base_offset = BASE;
    put_background(t, path, BASE); /* the header: background bytes */
    collio_file *f = NULL;
    fill(h, buf, 0);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_INPLACE, &fo, &f), COLLIO_OK,
              "previous: open");
    TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "previous: write");
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "previous: close");
}

/* collio_request_notify's callback. */
static void bump(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void error_cases(tu_ctx *t, int thread)
{
    collio_layout *l = NULL;
    held h;
    int lrc = make_layout(t, L_BC7, &l, &h);
    tu_case(t, "errors thread=%d", thread);
    if (!tu_case_enabled(t) || !TU_RC_ALL(t, lrc, COLLIO_OK, "layout")) {
        collio_layout_free(&l);
        held_free(&h);
        return;
    }
    collio_hints *hi = TU_HINTS(t, "request.thread=%d", thread);
    collio_plan *p = NULL, *q = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, NULL, hi, &p), COLLIO_OK, "plan");
    TU_RC_ALL(t, collio_plan_create(t->comm, l, NULL, hi, &q), COLLIO_OK, "plan 2");
    collio_hints_free(&hi);
    size_t bytes = collio_layout_buffer_bytes(l);
    int64_t stride = h.nglobal * (int64_t)ES, fbytes = BASE + stride;
    unsigned char *buf = malloc(bytes + 1), *other = malloc(bytes + 1);
    fill(&h, other, 3);
    char path[1024];
    tu_temp_path(t, "err", path, sizeof path);
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.base_offset = BASE;
    previous_file(t, p, &h, path, buf, bytes);
    /* NVAR = 1 view of the reference: only variable 0 */
    collio_file *f = NULL;
    collio_request *r = NULL;

    tu_case(t, "errors: close with a request outstanding thread=%d", thread);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f), COLLIO_OK,
              "open");
    TU_RC_ALL(t, collio_iwrite(p, f, other, bytes, &r), COLLIO_OK, "iwrite");
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_STATE, "close with one outstanding");
    TU_RC_ALL(t, collio_wait(&r), COLLIO_ERR_STATE, "its wait after the close");
    check_file(t, &h, path, stride, fbytes);

    tu_case(t, "errors: plan freed with a request outstanding thread=%d", thread);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f), COLLIO_OK,
              "open");
    TU_RC_ALL(t, collio_iwrite(q, f, other, bytes, &r), COLLIO_OK, "iwrite");
    collio_plan_free(&q);
    TU_RC_ALL(t, collio_wait(&r), COLLIO_ERR_STATE, "its wait after the free");
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close: not committed");
    check_file(t, &h, path, stride, fbytes);

    tu_case(t, "errors: a wrong size on one rank thread=%d", thread);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f), COLLIO_OK,
              "open");
    size_t mine = t->rank == t->nranks - 1 ? bytes + 1 : bytes;
    TU_RC_ALL(t, collio_iwrite(p, f, other, mine, &r), COLLIO_OK, "iwrite (size)");
    TU_RC_ALL(t, collio_wait(&r), COLLIO_ERR_BUFSIZE, "its wait");
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close: not committed");
    check_file(t, &h, path, stride, fbytes);

    if (t->nranks > 1) {
        tu_case(t, "errors: a batch's offsets differ across ranks thread=%d", thread);
        collio_hints *hb = TU_HINTS(t, "request.start=wait");
        collio_plan *b = NULL;
        TU_RC_ALL(t, collio_plan_create(t->comm, l, "multiphase", hb, &b), COLLIO_OK,
                  "plan (held)");
        collio_hints_free(&hb);
        collio_request *rr[2] = {0};
        TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f),
                  COLLIO_OK, "open");
        TU_RC_ALL(t, collio_iwrite_at(b, f, 0, other, bytes, &rr[0]), COLLIO_OK,
                  "iwrite 0");
        int64_t at = t->rank == 0 ? stride : 2 * stride;
        TU_RC_ALL(t, collio_iwrite_at(b, f, at, other, bytes, &rr[1]), COLLIO_OK,
                  "iwrite 1");
        int codes[2];
        TU_RC_ALL(t, collio_waitall(2, rr, codes), COLLIO_ERR_MISMATCH, "waitall");
        TU_CHECK(t, codes[0] == COLLIO_ERR_MISMATCH && codes[1] == COLLIO_ERR_MISMATCH,
                 "codes %d %d", codes[0], codes[1]);
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close: not committed");
        check_file(t, &h, path, stride, fbytes);
        collio_plan_free(&b);
    }

    tu_case(t, "snapshot thread=%d", thread);
    collio_hints *hs = TU_HINTS(t, "request.snapshot=1,request.thread=%d", thread);
    collio_plan *s = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, NULL, hs, &s), COLLIO_OK, "plan");
    collio_hints_free(&hs);
    fill(&h, buf, 0);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f), COLLIO_OK,
              "open");
    TU_RC_ALL(t, collio_iwrite(s, f, buf, bytes, &r), COLLIO_OK, "iwrite");
    memset(buf, 0xa5, bytes); /* the caller's again at once */
    TU_RC_ALL(t, collio_wait(&r), COLLIO_OK, "wait");
    double wb = TU_STAT(t, s, "work_bytes");
    TU_CHECK(t, wb >= (double)bytes, "work_bytes %g counts the snapshot's %zu", wb,
             bytes);
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
    {
        /* the header of a CREATE file is zeros: compare from BASE on */
        size_t n = 0;
        const history_ref c = {&h, stride, 1};
        int64_t bad = first_difference(t, path, BASE, fbytes, history_byte, &c, &n);
        TU_CHECK(t, bad == -1 && (int64_t)n == fbytes, "snapshot file: byte %lld",
                 (long long)bad);
    }
    collio_plan_free(&s);

    /* a notice once the request has run: from the helper thread, once;
     * without one, refused (STATE) and never called */
    tu_case(t, "notify thread=%d", thread);
    collio_hints *hn = TU_HINTS(t, "request.thread=%d", thread);
    collio_plan *n = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, NULL, hn, &n), COLLIO_OK, "plan");
    collio_hints_free(&hn);
    fill(&h, buf, 0);
    TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f), COLLIO_OK,
              "open");
    TU_RC_ALL(t, collio_iwrite(n, f, buf, bytes, &r), COLLIO_OK, "iwrite");
    atomic_int told = 0;
    const char *env = getenv("COLLIO_PROGRESS_THREAD");
    int helper = thread && t->thread_level == MPI_THREAD_MULTIPLE
                 && !(env != NULL && strcmp(env, "0") == 0);
    TU_CHECK(t,
             collio_request_notify(NULL, bump, &told) == COLLIO_ERR_ARG
                 && collio_request_notify(r, NULL, NULL) == COLLIO_ERR_ARG,
             "collio_request_notify: NULL arguments not refused");
    TU_RC_ALL(t, collio_request_notify(r, bump, &told),
              helper ? COLLIO_OK : COLLIO_ERR_STATE, "collio_request_notify");
    TU_RC_ALL(t, collio_wait(&r), COLLIO_OK, "wait");
    TU_CHECK(t, atomic_load(&told) == helper, "the notice came %d times, want %d",
             atomic_load(&told), helper);
    TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
    collio_plan_free(&n);

    collio_plan_free(&p);
    collio_layout_free(&l);
    held_free(&h);
    tu_remove(t, path);
    free(buf);
    free(other);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init_threads(&t, &argc, &argv, "requests");
    const int64_t gaps[] = {0, 16, 13};
    for (int thread = 1; thread >= 0; thread--) {
        for (int i = 0; i < collio_strategy_count(); i++) {
            const char *s = collio_strategy_name(i);
            for (int kind = 0; kind < L__COUNT; kind++)
                for (int g = 0; g < 3; g++)
                    for (int how = 0; how < C__COUNT; how++)
                        for (int held_back = 0; held_back < 2; held_back++) {
                            /* the default: every layout, every gap at
                             * waitall, every completion; every other strategy and layout
                             * at waitall with gaps of whole elements; with hint
                             * request.thread=0, the default at waitall back to back (the
                             * whole matrix without a helper thread: ctest's
                             * mpi_requests_nothread) */
                            int is_auto = strcmp(s, "auto") == 0;
                            int full = is_auto && thread && (how == C_WAITALL || g == 0);
                            int some =
                                how == C_WAITALL && (thread ? g == 1 : g == 0 && is_auto);
                            if (full || some)
                                history_case(&t, s, kind, gaps[g], how, held_back,
                                             thread);
                        }
        }
        error_cases(&t, thread);
    }
    for (int i = 0; i < collio_strategy_count(); i++) {
        const char *s = collio_strategy_name(i);
        if (!collio_strategy_is_canonical(s))
            continue;
        mixed_case(&t, s, 16, 0);
        if (strcmp(s, "auto") == 0) {
            mixed_case(&t, s, 0, 1);
            mixed_case(&t, s, 13, 0);
        }
    }
    return tu_finish(&t);
}
