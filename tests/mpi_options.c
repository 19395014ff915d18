/*
 * mpi_options.c -- every plan option is compared across ranks: for every
 * registered strategy and every field of collio_plan_options (the
 * subgroup struct included), a plan whose options differ in that one field
 * on one rank must fail with COLLIO_ERR_MISMATCH on every rank -- never
 * hang, abort the job or return another code -- and the same options on
 * every rank must still make a plan that writes and reads the file
 * byte-exact. The rank that differs alternates between the last and the
 * first, so that neither the root of a reduction nor a leaf is special.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* One field changed to another valid value. */
typedef struct flip {
    const char *name;
    void (*apply)(collio_plan_options *o);
} flip;

static void f_phases(collio_plan_options *o)
{
    o->phases = 1;
}
static void f_chunk(collio_plan_options *o)
{
    o->chunk_bytes = 4096;
}
static void f_iov(collio_plan_options *o)
{
    o->max_iov = 3;
}
static void f_keep(collio_plan_options *o)
{
    o->keep_buffers = 0;
}
static void f_destroy(collio_plan_options *o)
{
    o->destroy_input = 1;
}
static void f_rounds(collio_plan_options *o)
{
    o->write_rounds = -1;
}
static void f_exchange(collio_plan_options *o)
{
    o->exchange = COLLIO_EXCHANGE_DIRECT;
}
static void f_exchange_nd(collio_plan_options *o)
{
    o->exchange = COLLIO_EXCHANGE_NODE_DIRECT;
}
static void f_exchange_nh(collio_plan_options *o)
{
    o->exchange = COLLIO_EXCHANGE_NODE_HYPERCUBE;
}
static void f_shm(collio_plan_options *o)
{
    o->shared_memory = 0;
}
static void f_group(collio_plan_options *o)
{
    o->subgroup.group = 2;
}
static void f_inner(collio_plan_options *o)
{
    o->subgroup.inner = "independent";
}
static void f_inner_same(collio_plan_options *o)
{
    o->subgroup.inner = "two_phase";
}
static void f_policy(collio_plan_options *o)
{
    o->replicas.policy = COLLIO_REPLICAS_FIRST;
}
static void f_seed(collio_plan_options *o)
{
    o->replicas.seed = 7;
}

static const flip flips[] = {
    {"phases", f_phases},
    {"chunk_bytes", f_chunk},
    {"max_iov", f_iov},
    {"keep_buffers", f_keep},
    {"destroy_input", f_destroy},
    {"write_rounds", f_rounds},
    {"exchange", f_exchange},
    {"exchange (node-direct)", f_exchange_nd},
    {"exchange (node-hypercube)", f_exchange_nh},
    {"shared_memory", f_shm},
    {"subgroup.group", f_group},
    {"subgroup.inner", f_inner},
    /* the default spelled out is still a different argument */
    {"subgroup.inner (NULL vs two_phase)", f_inner_same},
    {"replicas.policy", f_policy},
    {"replicas.seed", f_seed},
};
#define NFLIPS ((int)(sizeof flips / sizeof flips[0]))

static void mismatches(tu_ctx *t, const char *strategy, collio_layout *l)
{
    for (int i = 0; i < NFLIPS; i++) {
        int odd = t->rank == (i % 2 ? 0 : t->nranks - 1);
        tu_case(t, "%s: %s differs on rank %d", strategy, flips[i].name,
                i % 2 ? 0 : t->nranks - 1);
        if (!tu_case_enabled(t))
            continue;
        collio_plan_options o;
        collio_plan_options_init(&o);
        if (odd)
            flips[i].apply(&o);
        collio_plan *p = NULL;
        int rc = collio_plan_create(t->comm, l, strategy, &o, &p);
        TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "plan_create");
        TU_CHECK(t, p == NULL, "no plan after a mismatch");
        collio_plan_free(&p);
    }
}

/* The same flipped options on every rank: a working plan. */
static void agreed(tu_ctx *t, const char *strategy, const tu_layout_desc *d,
                   collio_layout *l)
{
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    for (int i = 0; i < NFLIPS; i++) {
        tu_case(t, "%s: %s changed on every rank", strategy, flips[i].name);
        if (!tu_case_enabled(t))
            continue;
        collio_plan_options o;
        collio_plan_options_init(&o);
        flips[i].apply(&o);
        collio_plan *p = NULL;
        int rc = collio_plan_create(t->comm, l, strategy, &o, &p);
        if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
            continue;
        char path[1024];
        tu_temp_path(t, "opt", path, sizeof path);
        tu_fill(buf, idx, n, d->esize, (uint64_t)i);
        if (tu_plan_io(t, p, path, NULL, 1, buf, bytes)) {
            int canonical = collio_strategy_is_canonical(strategy) == 1;
            if (canonical)
                TU_CHECK(
                    t,
                    tu_check_file(t, path, d->nglobal, d->esize, (uint64_t)i, 0, 0, 1)
                        == 0,
                    "file differs from the expectation");
            memset(back, 0, bytes + 1);
            if (tu_plan_io(t, p, path, NULL, 0, back, bytes)) {
                int64_t first;
                TU_CHECK(t, tu_compare(back, idx, n, d->esize, (uint64_t)i, &first) == 0,
                         "read back differs (element %lld)", (long long)first);
            }
        }
        tu_remove(t, path);
        collio_plan_free(&p);
    }
    free(buf);
    free(back);
    free(idx);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_options");
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 10007, 3, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t.comm, &l);
    if (TU_RC_ALL(&t, rc, COLLIO_OK, "layout")) {
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *name = collio_strategy_name(s);
            if (t.nranks > 1)
                mismatches(&t, name, l);
            agreed(&t, name, &d, l);
        }
        if (t.nranks == 1)
            tu_skip(&t, "options that differ between ranks need 2 ranks");
    }
    collio_layout_free(&l);
    tu_desc_free(&d);
    return tu_finish(&t);
}
