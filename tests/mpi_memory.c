/*
 * mpi_memory.c -- the memory side of layouts, for every canonical strategy
 * (and "block", which must round-trip its own data):
 *  - collio_layout_set_memory_global: the buffer is the whole global array;
 *    a write takes only this rank's entries (the others hold a sentinel that
 *    must never reach the file), a read fills only this rank's entries and
 *    leaves every other byte of the buffer untouched;
 *  - collio_layout_set_memory_datatype: elements at a stride with gaps
 *    (resized type x nlocal; one vector type), and in reversed memory order
 *    (hindexed); gap bytes must be left untouched by reads.
 * multiphase also runs with write_rounds = 2 (reads in rounds), and with
 * each exchange forced: direct (shared memory and messages), node-direct
 * and node-hypercube (across nodes and, in one step, on one node).
 * File bytes are checked against the independent expectation (testutil),
 * read buffers against the independent enumeration of the rank's indices.
 *
 * Usage: mpi_memory [FILTER]
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT_W 0xA5 /* write buffer bytes that are not this rank's data */
#define SENT_R 0x5A /* read buffer bytes before the read */

typedef enum mem_kind {
    MEM_GLOBAL = 0,
    MEM_RESIZED,
    MEM_VECTOR,
    MEM_REVERSED,
    MEM__N
} mem_kind;
static const char *const mem_names[MEM__N] = {"global", "resized", "vector", "reversed"};

/* Byte position of buffer element k (layout order) for each memory kind;
 * also the buffer size the test needs (*need) and the MPI type to set. */
typedef struct mem_map {
    size_t *pos; /* pos[k]: byte offset of element k in the user buffer */
    size_t need; /* bytes the buffer must span */
    MPI_Datatype type;
    int count;
} mem_map;

static void make_map(mem_kind mk, const int64_t *idx, int64_t n, int64_t nglobal,
                     size_t es, mem_map *m)
{
    m->pos = malloc(((size_t)n + 1) * sizeof *m->pos);
    m->type = MPI_DATATYPE_NULL;
    m->count = 0;
    m->need = 0;
    MPI_Datatype e;
    switch (mk) {
    case MEM_GLOBAL:
        for (int64_t k = 0; k < n; k++)
            m->pos[k] = (size_t)idx[k] * es;
        m->need = (size_t)nglobal * es;
        break;
    case MEM_RESIZED: /* element + 3-byte gap, count = n */
        for (int64_t k = 0; k < n; k++)
            m->pos[k] = (size_t)k * (es + 3);
        m->need = n ? (size_t)(n - 1) * (es + 3) + es : 0;
        MPI_Type_contiguous((int)es, MPI_BYTE, &e);
        MPI_Type_create_resized(e, 0, (MPI_Aint)(es + 3), &m->type);
        MPI_Type_free(&e);
        m->count = (int)n;
        break;
    case MEM_VECTOR: /* one vector: n blocks of es bytes, stride es + 5 */
        for (int64_t k = 0; k < n; k++)
            m->pos[k] = (size_t)k * (es + 5);
        m->need = n ? (size_t)(n - 1) * (es + 5) + es : 0;
        MPI_Type_vector((int)n, (int)es, (int)(es + 5), MPI_BYTE, &m->type);
        m->count = 1;
        break;
    case MEM_REVERSED: { /* element k at (n-1-k) * 2es: decreasing addresses */
        MPI_Aint *disp = malloc(((size_t)n + 1) * sizeof *disp);
        for (int64_t k = 0; k < n; k++) {
            m->pos[k] = (size_t)(n - 1 - k) * 2 * es;
            disp[k] = (MPI_Aint)m->pos[k];
        }
        m->need = n ? (size_t)(n - 1) * 2 * es + es : 0;
        MPI_Type_create_hindexed_block((int)n, (int)es, disp, MPI_BYTE, &m->type);
        m->count = 1;
        free(disp);
        break;
    }
    default:
        break;
    }
    if (m->type != MPI_DATATYPE_NULL)
        MPI_Type_commit(&m->type);
}

static void free_map(mem_map *m)
{
    free(m->pos);
    if (m->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&m->type);
}

/* Bytes of buf that differ from the expectation: element k at pos[k] is the
 * pattern of idx[k]; every other byte is `sent`. */
static int64_t compare_mem(const unsigned char *buf, size_t bytes, const mem_map *m,
                           const int64_t *idx, int64_t n, size_t es, uint64_t seed,
                           unsigned char sent, int64_t *first_elem, int64_t *first_other)
{
    unsigned char *want = malloc(bytes + 1);
    memset(want, sent, bytes);
    for (int64_t k = 0; k < n; k++)
        collio_pattern_element((uint64_t)idx[k], seed, es, want + m->pos[k]);
    unsigned char *mine = calloc(bytes + 1, 1); /* 1 = byte of an element */
    for (int64_t k = 0; k < n; k++)
        memset(mine + m->pos[k], 1, es);
    int64_t bad = 0;
    *first_elem = *first_other = -1;
    for (size_t b = 0; b < bytes; b++) {
        if (buf[b] == want[b])
            continue;
        bad++;
        if (mine[b] && *first_elem < 0)
            *first_elem = (int64_t)b;
        if (!mine[b] && *first_other < 0)
            *first_other = (int64_t)b;
    }
    free(want);
    free(mine);
    return bad;
}

/* rounds != 0: plan option multiphase.write_rounds (in rounds); x: plan
 * option multiphase.exchange, -1 for the direct exchange with
 * multiphase.shared_memory = 0 (MPI messages). */
static void run_case(tu_ctx *t, const tu_layout_desc *d, const char *strategy,
                     mem_kind mk, collio_backend be, uint64_t seed0, int rounds, int x)
{
    tu_case(t, "%s memory=%s strategy=%s backend=%s write_rounds=%d exchange=%s", d->name,
            mem_names[mk], strategy, be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio",
            rounds, x < 0 ? "direct-messages" : tu_exchange_name(x));
    if (!tu_case_enabled(t))
        return;
    int canonical = collio_strategy_is_canonical(strategy) == 1;
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    mem_map m;
    make_map(mk, idx, n, d->nglobal, d->esize, &m);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    unsigned char *buf = NULL;
    char path[1024];
    tu_temp_path(t, strategy, path, sizeof path);
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        goto done;
    int rc = mk == MEM_GLOBAL ? collio_layout_set_memory_global(l)
                              : collio_layout_set_memory_datatype(l, m.type, m.count);
    /* The layout keeps its own duplicate of the type: free ours now. */
    if (m.type != MPI_DATATYPE_NULL)
        MPI_Type_free(&m.type);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "set memory"))
        goto done;
    size_t bytes = collio_layout_buffer_bytes(l);
    if (mk == MEM_GLOBAL)
        TU_CHECK(t, bytes == m.need, "buffer_bytes %zu, want nglobal*esize %zu", bytes,
                 m.need);
    else
        TU_CHECK(t, bytes >= m.need, "buffer_bytes %zu < span of the type %zu", bytes,
                 m.need);
    TU_CHECK(t, collio_layout_local_count(l) == n,
             "local_count unchanged by memory kind");
    if (bytes < m.need)
        bytes = m.need; /* keep going without overrunning our own buffer */
    buf = malloc(bytes + 1);
    collio_hints *po = TU_HINTS(
        t,
        "multiphase.write_rounds=%d,multiphase.exchange=%s,multiphase.shared_memory=%d",
        rounds, tu_exchange_name(x < 0 ? TU_EXCHANGE_DIRECT : x), x >= 0);
    int prc = collio_plan_create(t->comm, l, strategy, po, &p);
    collio_hints_free(&po);
    if (!TU_RC_ALL(t, prc, COLLIO_OK, "plan"))
        goto done;
    collio_layout_free(&l);
    for (int w = 0; w < 2; w++) {
        uint64_t seed = seed0 + (uint64_t)w * 7919u;
        memset(buf, SENT_W, bytes);
        for (int64_t k = 0; k < n; k++)
            collio_pattern_element((uint64_t)idx[k], seed, d->esize, buf + m.pos[k]);
        collio_file_options o;
        collio_file_options_init(&o);
        o.backend = be;
        if (!tu_plan_io(t, p, path, &o, 1, buf, bytes))
            break;
        /* the packed stream of this buffer is the library's own memory:
         * in work_bytes, all of it for independent (no buffers of its own) */
        double wb = -1, own = (double)n * (double)d->esize;
        collio_plan_stat(p, "work_bytes", &wb);
        TU_CHECK(t, strcmp(strategy, "independent") == 0 ? wb == own : wb >= own,
                 "work_bytes %.0f, the packed stream alone is %.0f", wb, own);
        if (canonical)
            tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1);
        int64_t fe, fo,
            bad = compare_mem(buf, bytes, &m, idx, n, d->esize, seed, SENT_W, &fe, &fo);
        TU_CHECK(t, bad == 0, "write changed the user buffer (%lld bytes)",
                 (long long)bad);

        memset(buf, SENT_R, bytes);
        if (!tu_plan_io(t, p, path, &o, 0, buf, bytes))
            break;
        bad = compare_mem(buf, bytes, &m, idx, n, d->esize, seed, SENT_R, &fe, &fo);
        TU_CHECK(t, bad == 0,
                 "read-back: %lld bad bytes; first in own elements at byte %lld, "
                 "first outside own elements (must be untouched) at byte %lld",
                 (long long)bad, (long long)fe, (long long)fo);
    }
done:
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_remove(t, path);
    free(buf);
    free_map(&m);
    free(idx);
}

static void run_layout(tu_ctx *t, tu_layout_desc *d, int which)
{
    tu_case(t, "%s enumeration", d->name);
    tu_check_enumeration(t, d);
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1 && strcmp(name, "block") != 0)
            continue;
        for (int mk = 0; mk < MEM__N; mk++)
            run_case(t, d, name, (mem_kind)mk,
                     (mk + s + which) % 2 ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX,
                     (uint64_t)(100 * which + mk), 0, TU_EXCHANGE_AUTO);
    }
    /* multiphase in rounds: reads through the rounds into the library's
     * packed copy (writes with a packed copy take one pass), the last
     * round direct and all through the hypercube; the direct exchange;
     * node-direct and node-hypercube */
    for (int mk = 0; mk < MEM__N; mk++) {
        run_case(t, d, "multiphase", (mem_kind)mk, COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 50 + mk), 2, TU_EXCHANGE_AUTO);
        run_case(t, d, "multiphase", (mem_kind)mk, COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 60 + mk), 2, TU_EXCHANGE_HYPERCUBE);
        run_case(t, d, "multiphase", (mem_kind)mk, COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 70 + mk), 0, TU_EXCHANGE_DIRECT);
        run_case(t, d, "multiphase", (mem_kind)mk, COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 80 + mk), 0, -1); /* direct, messages */
        /* the node-aware exchanges (the second through MPI-IO) */
        run_case(t, d, "multiphase", (mem_kind)mk, COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 90 + mk), 0, TU_EXCHANGE_NODE_DIRECT);
        run_case(t, d, "multiphase", (mem_kind)mk,
                 mk % 2 ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX,
                 (uint64_t)(100 * which + 95 + mk), 0, TU_EXCHANGE_NODE_HYPERCUBE);
    }
    tu_desc_free(d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_memory");
    int P = t.nranks, which = 0;
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 1000, 7, 4), run_layout(&t, &d, which++);
    tu_desc_block_cyclic(&d, P > 1 ? P - 1 : 1, 1, 12), run_layout(&t, &d, which++);
    {
        int64_t g[3] = {10, 9, 7}, a[3] = {0, 2, 0};
        collio_distrib ds[3] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC,
                                COLLIO_DIST_CYCLIC};
        tu_desc_darray(&d, P, 3, g, ds, a, NULL, COLLIO_ORDER_FORTRAN, 12),
            run_layout(&t, &d, which++);
        tu_desc_darray(&d, P, 3, g, ds, a, NULL, COLLIO_ORDER_C, 8),
            run_layout(&t, &d, which++);
    }
    tu_desc_index_list(&d, t.rank, P, 1200, TU_IL_SHUFFLED, 21, 8),
        run_layout(&t, &d, which++);
    return tu_finish(&t);
}
