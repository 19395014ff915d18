/*
 * mpi_smoke_strategies.c -- quick smoke test of the plan layer and every
 * registered strategy: each canonical strategy x block-cyclic (bx 1, 7,
 * large; nx not a multiple of bx*P) and a shuffled index list, with
 * default and tiny options (serial windows of a few elements, independent
 * batches of 3), both file backends, a base offset, packed and global
 * memory, writes a file whose bytes must equal bench/pattern.h's
 * expectation (tu_check_file, plain POSIX), then reads it back. Plans are
 * reused for 2 writes with different data. "block" (not canonical) must
 * round-trip its own file. The full matrix lives in mpi_roundtrip.c.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct smoke_case {
    tu_layout_desc d;
    int global_mem; /* buffer = full global array */
} smoke_case;

/* The plan runs with every hint of `list` as given and with the defaults
 * of the rest: collio_plan_hints says so (list "": every default below). */
static void check_hints(tu_ctx *t, const collio_plan *p, const char *list)
{
    static const char *const defaults[][2] = {
        {"serial.chunk_bytes", "4194304"}, {"independent.max_iov", "1024"},
        {"multiphase.phases", "0"},        {"plan.destroy_input", "0"},
        {"plan.keep_buffers", "1"},
    };
    char got[64];
    collio_hints *want = TU_HINTS(t, "%s", list);
    for (int i = 0; i < (int)(sizeof defaults / sizeof defaults[0]); i++) {
        char w[64];
        int flag = 0;
        collio_hints_get(want, defaults[i][0], w, sizeof w, &flag);
        TU_CHECK(
            t,
            strcmp(TU_PLAN_HINT(t, p, defaults[i][0], got), flag ? w : defaults[i][1])
                == 0,
            "plan hint %s = %s, want %s", defaults[i][0], got, flag ? w : defaults[i][1]);
    }
    collio_hints_free(&want);
}

static void run(tu_ctx *t, const smoke_case *c, const char *strategy, const char *hints,
                int backend, int64_t base, uint64_t nseeds)
{
    const tu_layout_desc *d = &c->d;
    tu_case(t, "%s %s%s hints=\"%s\" %s base=%lld", strategy, d->name,
            c->global_mem ? " global-mem" : "", hints, backend ? "mpiio" : "posix",
            (long long)base);
    if (!tu_case_enabled(t))
        return;
    int64_t *idx = NULL, n = 0;
    TU_CHECK(t, tu_enumerate(d, t->rank, t->nranks, &idx, &n) == 0, "enumerate");
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    if (c->global_mem)
        TU_RC(t, collio_layout_set_memory_global(l), COLLIO_OK, "set global");
    collio_plan *p = NULL;
    collio_hints *h = TU_HINTS(t, "%s", hints);
    int rc = collio_plan_create(t->comm, l, strategy, h, &p);
    collio_hints_free(&h); /* the plan keeps its own copy */
    collio_layout_free(&l);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create")) {
        free(idx);
        return;
    }
    check_hints(t, p, hints);
    TU_CHECK(t, strcmp(collio_plan_strategy(p), strategy) == 0, "plan strategy");
    size_t es = d->esize;
    size_t bytes = c->global_mem ? (size_t)d->nglobal * es : (size_t)n * es;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    unsigned char *packed = malloc((size_t)n * es + 1);
    int canonical = collio_strategy_is_canonical(strategy);
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = backend ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX;
    fo.base_offset = base;
    char path[600];
    tu_temp_path(t, "smoke", path, sizeof path);
    for (uint64_t seed = 1; seed <= nseeds; seed++) {
        memset(buf, 0xEE, bytes);
        tu_fill(packed, idx, n, es, seed);
        for (int64_t k = 0; k < n; k++)
            memcpy(buf + (c->global_mem ? (size_t)idx[k] : (size_t)k) * es,
                   packed + (size_t)k * es, es);
        collio_file *f = NULL;
        TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f),
                  COLLIO_OK, "open create");
        if (f == NULL)
            break;
        TU_RC_ALL(t, collio_write(p, f, buf, bytes), COLLIO_OK, "write");
        collio_stats st;
        collio_plan_stats(p, &st);
        TU_CHECK(t, st.file_bytes >= 0 && st.total_s >= 0, "stats");
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close");
        if (canonical == 1)
            TU_CHECK(t, tu_check_file(t, path, d->nglobal, es, seed, base, 0, 1) == 0,
                     "file bytes (seed %llu)", (unsigned long long)seed);
        memset(back, 0xEE, bytes);
        TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_READ, &fo, &f),
                  COLLIO_OK, "open read");
        if (f == NULL)
            break;
        TU_RC_ALL(t, collio_read(p, f, back, bytes), COLLIO_OK, "read");
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_OK, "close read");
        int64_t first = -1;
        for (int64_t k = 0; k < n; k++)
            memcpy(packed + (size_t)k * es,
                   back + (c->global_mem ? (size_t)idx[k] : (size_t)k) * es, es);
        TU_CHECK(t, tu_compare(packed, idx, n, es, seed, &first) == 0,
                 "read back (first bad element %lld)", (long long)first);
    }
    tu_remove(t, path);
    collio_plan_free(&p);
    TU_CHECK(t, p == NULL, "plan freed");
    free(buf);
    free(back);
    free(packed);
    free(idx);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "smoke");
    enum { NCASES = 5 };
    smoke_case cases[NCASES];
    memset(cases, 0, sizeof cases);
    tu_desc_block_cyclic(&cases[0].d, 1000, 1, 4);
    tu_desc_block_cyclic(&cases[1].d, 333, 7, 12);
    tu_desc_block_cyclic(&cases[2].d, 1000, 400, 4);
    tu_desc_index_list(&cases[3].d, t.rank, t.nranks, 777, TU_IL_SHUFFLED, 42, 8);
    tu_desc_block_cyclic(&cases[4].d, 501, 3, 4);
    cases[4].global_mem = 1;

    /* tiny: serial windows of a few elements, independent batches of 3 */
    const char *def = "", *tiny = "serial.chunk_bytes=100,independent.max_iov=3";

    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        TU_CHECK(&t, collio_strategy_summary(name) != NULL, "summary %s", name);
        /* Kept small: MPICH busy-polls when oversubscribed (8 ranks on 2
         * cores), where every collective is slow. */
        for (int c = 0; c < NCASES; c++) {
            int v = (s + c) % 2;
            run(&t, &cases[c], name, def, v, v ? 0 : 24, 2);
            if (c == 1 || c == 3)
                run(&t, &cases[c], name, tiny, !v, v ? 16 : 0, 1);
        }
    }
    TU_CHECK(&t, collio_strategy_is_canonical("block") == 0, "block not canonical");
    TU_CHECK(&t, collio_strategy_is_canonical("nope") == -1, "unknown strategy");
    TU_CHECK(&t, collio_strategy_name(collio_strategy_count()) == NULL, "name past end");
    for (int c = 0; c < NCASES; c++)
        tu_desc_free(&cases[c].d);
    return tu_finish(&t);
}
