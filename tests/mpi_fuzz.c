/*
 * mpi_fuzz.c -- random layouts x random strategies and options, each
 * written once and read back, against the independent expectation
 * (testutil: the file from pattern.h alone, the rank's indices enumerated
 * from the layout's definition). Every rank draws the same cases from one
 * seeded generator: element sizes 1, 3, 8 and 17; block-cyclic vectors
 * (empty ranks where nx < P * bx), N-d arrays in both orders, index lists
 * with empty ranks; every canonical strategy with random phases,
 * exchange (all of them: hypercube, direct, node-direct, node-hypercube,
 * auto), shared memory, write rounds, destroy_input, subgroup groups
 * and inner strategies. A failure prints its case; rerun it with
 * COLLIO_FUZZ_SEED / COLLIO_FUZZ_CASES and the case's text as filter.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t pick(uint64_t *s, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(tu_rand(s) % (uint64_t)(hi - lo + 1));
}

static void random_layout(tu_ctx *t, uint64_t *s, tu_layout_desc *d)
{
    static const size_t esizes[] = {1, 3, 8, 17};
    size_t es = esizes[pick(s, 0, 3)];
    int kind = (int)pick(s, 0, 2);
    if (kind == 0) {
        tu_desc_block_cyclic(d, pick(s, 0, 6000), pick(s, 1, 700), es);
    } else if (kind == 1) {
        int nd = (int)pick(s, 1, 3);
        int64_t g[3];
        collio_distrib dist[3];
        for (int i = 0; i < nd; i++) {
            g[i] = pick(s, 1, 23);
            dist[i] = (collio_distrib)pick(s, 0, 2);
        }
        dist[pick(s, 0, nd - 1)] = COLLIO_DIST_BLOCK; /* at least one: a grid */
        tu_desc_darray(d, t->nranks, nd, g, dist, NULL, NULL,
                       pick(s, 0, 1) ? COLLIO_ORDER_FORTRAN : COLLIO_ORDER_C, es);
    } else {
        tu_desc_index_list(d, t->rank, t->nranks, pick(s, 0, 4000),
                           (tu_il_kind)pick(s, 0, 2), tu_rand(s), es);
    }
}

static const char *random_strategy(uint64_t *s)
{
    int n = 0;
    const char *canon[16];
    for (int i = 0; i < collio_strategy_count() && n < 16; i++)
        if (collio_strategy_is_canonical(collio_strategy_name(i)) == 1)
            canon[n++] = collio_strategy_name(i);
    return canon[pick(s, 0, n - 1)];
}

/* The random options of a case, drawn in a fixed order (a seed's cases
 * stay what they were), and as the hint list the plan gets. */
typedef struct fz_opts {
    int exchange, phases, shm, rounds, keep, destroy, group;
    int64_t chunk, iov;
    const char *inner; /* NULL: the default (not set) */
    char list[512];
} fz_opts;

static void random_options(uint64_t *s, fz_opts *o)
{
    static const char *inners[] = {NULL, "serial", "independent", "two_phase",
                                   "multiphase"};
    /* every exchange; those that merge all phases (direct, node-direct,
     * node-hypercube) with phases = 0 (1 <= phases < all: an error) */
    o->exchange = (int)pick(s, 0, TU_EXCHANGE__COUNT - 1);
    o->phases = o->exchange == TU_EXCHANGE_AUTO || o->exchange == TU_EXCHANGE_HYPERCUBE
                    ? (int)pick(s, 0, 3)
                    : 0;
    o->shm = (int)pick(s, 0, 1);
    o->rounds = (int)pick(s, -1, 3);
    o->keep = (int)pick(s, 0, 1);
    o->destroy = (int)pick(s, 0, 1);
    o->chunk = pick(s, 0, 1) ? 64 << 20 : pick(s, 1, 5000);
    o->iov = pick(s, 1, 1024);
    o->group = (int)pick(s, 0, 5);
    o->inner = inners[pick(s, 0, 4)];
    int n = snprintf(o->list, sizeof o->list,
                     "multiphase.exchange=%s,multiphase.phases=%d,"
                     "multiphase.shared_memory=%d,multiphase.write_rounds=%d,"
                     "plan.keep_buffers=%d,plan.destroy_input=%d,serial.chunk_bytes=%lld,"
                     "independent.max_iov=%lld,subgroup.group=%d",
                     tu_exchange_name(o->exchange), o->phases, o->shm, o->rounds, o->keep,
                     o->destroy, (long long)o->chunk, (long long)o->iov, o->group);
    if (o->inner != NULL)
        snprintf(o->list + n, sizeof o->list - (size_t)n, ",subgroup.inner=%s", o->inner);
}

static void one_case(tu_ctx *t, uint64_t seed, int c)
{
    uint64_t s = seed * 1000003u + (uint64_t)c;
    tu_layout_desc d;
    random_layout(t, &s, &d);
    const char *strategy = random_strategy(&s);
    fz_opts o;
    random_options(&s, &o);
    tu_case(t, "case %d (seed %llu): %s %s %s", c, (unsigned long long)seed, d.name,
            strategy, o.list);
    if (!tu_case_enabled(t)) {
        tu_desc_free(&d);
        return;
    }
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    if (TU_RC_ALL(t, rc, COLLIO_OK, "layout")) {
        collio_hints *h = TU_HINTS(t, "%s", o.list);
        rc = collio_plan_create(t->comm, l, strategy, h, &p);
        collio_hints_free(&h);
        TU_RC_ALL(t, rc, COLLIO_OK, "plan_create");
        if (rc == COLLIO_OK && strcmp(strategy, "multiphase") == 0
            && o.exchange != TU_EXCHANGE_AUTO) {
            /* a forced exchange is the one that runs */
            double x = TU_STAT(t, p, "multiphase.exchange");
            TU_CHECK(t, x == o.exchange, "exchange %s, forced %s",
                     tu_exchange_name((int)x), tu_exchange_name(o.exchange));
        }
    }
    collio_layout_free(&l);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d.esize;
    unsigned char *buf = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "fz", path, sizeof path);
    for (int call = 0; p != NULL && call < 2; call++) { /* the plan reused */
        uint64_t pseed = seed + 7u * (uint64_t)c + (uint64_t)call;
        tu_fill(buf, idx, n, d.esize, pseed);
        if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
            break;
        TU_CHECK(t, tu_check_file(t, path, d.nglobal, d.esize, pseed, 0, 0, 1) == 0,
                 "call %d: file differs from the expectation", call);
        memset(buf, 0, bytes + 1);
        if (!tu_plan_io(t, p, path, NULL, 0, buf, bytes))
            break;
        int64_t first;
        TU_CHECK(t, tu_compare(buf, idx, n, d.esize, pseed, &first) == 0,
                 "call %d: read back differs (element %lld)", call, (long long)first);
    }
    tu_remove(t, path);
    free(buf);
    free(idx);
    collio_plan_free(&p);
    tu_desc_free(&d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_fuzz");
    const char *es = getenv("COLLIO_FUZZ_SEED"), *ec = getenv("COLLIO_FUZZ_CASES");
    uint64_t seed = es != NULL ? strtoull(es, NULL, 10) : 1;
    int cases = ec != NULL ? atoi(ec) : 60;
    for (int c = 0; c < cases; c++)
        one_case(&t, seed, c);
    return tu_finish(&t);
}
