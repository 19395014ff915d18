/*
 * mpi_options.c -- every plan option is compared across ranks: for every
 * registered strategy and every field of collio_plan_options (the
 * strategies' nested structs included), a plan whose options differ in
 * that one field on one rank must fail with COLLIO_ERR_MISMATCH on every
 * rank -- never hang, abort the job or return another code -- and the
 * same options on every rank must still make a plan that writes and reads
 * the file byte-exact. The rank that differs alternates between the last
 * and the first, so that neither the root of a reduction nor a leaf is
 * special.
 *
 * A strategy checks its own nested options: a value out of range there is
 * COLLIO_ERR_ARG on every rank for the strategy that owns it (and for
 * subgroup running it as its inner strategy), with collio_last_error()
 * naming the field; other strategies ignore it. Out of range on one rank
 * only, it is a difference: COLLIO_ERR_MISMATCH on every rank.
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
    o->multiphase.phases = 1;
}
static void f_chunk(collio_plan_options *o)
{
    o->serial.chunk_bytes = 4096;
}
static void f_iov(collio_plan_options *o)
{
    o->independent.max_iov = 3;
}
static void f_keep(collio_plan_options *o)
{
    o->multiphase.keep_buffers = 0;
}
static void f_destroy(collio_plan_options *o)
{
    o->destroy_input = 1;
}
static void f_rounds(collio_plan_options *o)
{
    o->multiphase.write_rounds = -1;
}
static void f_exchange(collio_plan_options *o)
{
    o->multiphase.exchange = COLLIO_EXCHANGE_DIRECT;
}
static void f_exchange_nd(collio_plan_options *o)
{
    o->multiphase.exchange = COLLIO_EXCHANGE_NODE_DIRECT;
}
static void f_exchange_nh(collio_plan_options *o)
{
    o->multiphase.exchange = COLLIO_EXCHANGE_NODE_HYPERCUBE;
}
static void f_shm(collio_plan_options *o)
{
    o->multiphase.shared_memory = 0;
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
    {"multiphase.phases", f_phases},
    {"serial.chunk_bytes", f_chunk},
    {"independent.max_iov", f_iov},
    {"multiphase.keep_buffers", f_keep},
    {"destroy_input", f_destroy},
    {"multiphase.write_rounds", f_rounds},
    {"multiphase.exchange", f_exchange},
    {"multiphase.exchange (node-direct)", f_exchange_nd},
    {"multiphase.exchange (node-hypercube)", f_exchange_nh},
    {"multiphase.shared_memory", f_shm},
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

/* One nested option out of its range; owner: the strategy whose struct it
 * is (subgroup also checks it when it runs the owner as inner); also: one
 * more strategy that reads and so checks it, or NULL. */
typedef struct bad_value {
    const char *name; /* as collio_last_error() names it */
    const char *owner;
    void (*apply)(collio_plan_options *o);
    const char *also;
} bad_value;

static void b_chunk(collio_plan_options *o)
{
    o->serial.chunk_bytes = 0;
}
static void b_iov(collio_plan_options *o)
{
    o->independent.max_iov = -5;
}
static void b_phases(collio_plan_options *o)
{
    o->multiphase.phases = -1;
}
static void b_phases_big(collio_plan_options *o)
{
    o->multiphase.phases = COLLIO_MAX_PHASES + 1;
}
static void b_keep(collio_plan_options *o)
{
    o->multiphase.keep_buffers = 2;
}
static void b_rounds(collio_plan_options *o)
{
    o->multiphase.write_rounds = -2;
}
static void b_exchange(collio_plan_options *o)
{
    o->multiphase.exchange = COLLIO_EXCHANGE__COUNT;
}
static void b_exchange_neg(collio_plan_options *o)
{
    o->multiphase.exchange = COLLIO_EXCHANGE_AUTO - 1;
}
static void b_shm(collio_plan_options *o)
{
    o->multiphase.shared_memory = -1;
}
static void b_group(collio_plan_options *o)
{
    o->subgroup.group = -1;
}

static const bad_value bad_values[] = {
    {"serial.chunk_bytes", "serial", b_chunk, NULL},
    {"independent.max_iov", "independent", b_iov, NULL},
    {"multiphase.phases", "multiphase", b_phases, NULL},
    {"multiphase.phases", "multiphase", b_phases_big, NULL},
    /* subgroup keeps its merged buffers under it too */
    {"multiphase.keep_buffers", "multiphase", b_keep, "subgroup"},
    {"multiphase.write_rounds", "multiphase", b_rounds, NULL},
    {"multiphase.exchange", "multiphase", b_exchange, NULL},
    {"multiphase.exchange", "multiphase", b_exchange_neg, NULL},
    {"multiphase.shared_memory", "multiphase", b_shm, NULL},
    {"subgroup.group", "subgroup", b_group, NULL},
};
#define NBAD ((int)(sizeof bad_values / sizeof bad_values[0]))

/* Collective: plan_create with o on every rank gives want on every rank,
 * and no plan unless want is COLLIO_OK; an ARG names field `name`. */
static void expect(tu_ctx *t, collio_layout *l, const char *strategy,
                   const collio_plan_options *o, int want, const char *name)
{
    collio_plan *p = NULL;
    int rc = collio_plan_create(t->comm, l, strategy, o, &p);
    TU_RC_ALL(t, rc, want, "plan_create");
    TU_CHECK(t, (p != NULL) == (want == COLLIO_OK), "a plan iff no error");
    if (rc == COLLIO_ERR_ARG && want == COLLIO_ERR_ARG)
        TU_CHECK(t, strstr(collio_last_error(), name) != NULL,
                 "last error '%s' does not name %s", collio_last_error(), name);
    collio_plan_free(&p);
}

/* Every registered strategy with every bad value on every rank: ARG where
 * the strategy owns (or reads) the field, else a working plan (the field
 * is not its own). subgroup with the owner as its inner strategy: ARG
 * too. */
static void bad_everywhere(tu_ctx *t, collio_layout *l)
{
    for (int i = 0; i < NBAD; i++) {
        const bad_value *b = &bad_values[i];
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *name = collio_strategy_name(s);
            tu_case(t, "%s: %s out of range on every rank (case %d)", name, b->name, i);
            if (!tu_case_enabled(t))
                continue;
            collio_plan_options o;
            collio_plan_options_init(&o);
            b->apply(&o);
            int checks = strcmp(name, b->owner) == 0
                         || (b->also != NULL && strcmp(name, b->also) == 0);
            expect(t, l, name, &o, checks ? COLLIO_ERR_ARG : COLLIO_OK, b->name);
        }
        if (strcmp(b->owner, "subgroup") == 0)
            continue;
        tu_case(t, "subgroup(inner %s): %s out of range on every rank (case %d)",
                b->owner, b->name, i);
        if (!tu_case_enabled(t))
            continue;
        collio_plan_options o;
        collio_plan_options_init(&o);
        o.subgroup.inner = b->owner;
        b->apply(&o);
        expect(t, l, "subgroup", &o, COLLIO_ERR_ARG, b->name);
    }
}

/* A bad value on one rank only is a difference: MISMATCH on every rank,
 * for the owner of the field (which would reject it) as for the others. */
static void bad_on_one_rank(tu_ctx *t, collio_layout *l)
{
    for (int i = 0; i < NBAD; i++) {
        const bad_value *b = &bad_values[i];
        int odd_rank = i % 2 ? 0 : t->nranks - 1;
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *name = collio_strategy_name(s);
            tu_case(t, "%s: %s out of range on rank %d only (case %d)", name, b->name,
                    odd_rank, i);
            if (!tu_case_enabled(t))
                continue;
            collio_plan_options o;
            collio_plan_options_init(&o);
            if (t->rank == odd_rank)
                b->apply(&o);
            expect(t, l, name, &o, COLLIO_ERR_MISMATCH, b->name);
        }
    }
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
        bad_everywhere(&t, l);
        if (t.nranks > 1)
            bad_on_one_rank(&t, l);
        if (t.nranks == 1)
            tu_skip(&t, "options that differ between ranks need 2 ranks");
    }
    collio_layout_free(&l);
    tu_desc_free(&d);
    return tu_finish(&t);
}
