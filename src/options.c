/*
 * options.c -- plan options: defaults, the generic checks, and the one
 * digest that collio_plan_create compares across ranks.
 *
 * Every field of collio_plan_options, the strategy-specific structs
 * included (strings by content), goes into the digest, so any option that
 * differs between ranks is COLLIO_ERR_MISMATCH on every rank before any
 * strategy sizes a collective by it. An option that differs could
 * otherwise hang (keep_buffers: one rank frees a window the others keep)
 * or abort the job (destroy_input: counts of an Allreduce differ).
 *
 * The values of a strategy's own struct (serial, independent, multiphase,
 * subgroup) are checked by that strategy (collio__strategy.check); here
 * only the generic fields (destroy_input, replicas).
 *
 * Adding an option = one line in options_digest() (and in the defaults
 * below where it has one; its range in the owning strategy's check, or in
 * collio__plan_options_valid for a generic one). The static assertions on
 * the structs' sizes fail the build until the digest is looked at.
 */
#include "collio_internal.h"

#include <string.h>

#define DEFAULT_CHUNK_BYTES ((int64_t)64 << 20) /* 64 MiB */
#define DEFAULT_MAX_IOV 1024

void collio_plan_options_init(collio_plan_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->serial.chunk_bytes = DEFAULT_CHUNK_BYTES;
    opts->independent.max_iov = DEFAULT_MAX_IOV;
    opts->multiphase.phases = 0;
    opts->multiphase.keep_buffers = 1;
    opts->multiphase.shared_memory = 1;
}

int collio__plan_options_valid(const collio_plan_options *o)
{
    if (o->destroy_input != 0 && o->destroy_input != 1) {
        collio__error_set(COLLIO_ERR_ARG, "plan option destroy_input is %d, not 0 or 1",
                          o->destroy_input);
        return 0;
    }
    if (o->replicas.policy < COLLIO_REPLICAS_AUTO
        || o->replicas.policy >= COLLIO_REPLICAS__COUNT) {
        collio__error_set(COLLIO_ERR_ARG,
                          "plan option replicas.policy is %d, not a collio_replicas",
                          o->replicas.policy);
        return 0;
    }
    return 1;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    if (s == NULL)
        return collio__hash_mix(h, UINT64_MAX); /* NULL differs from "" */
    h = collio__hash_mix(h, strlen(s));
    for (; *s != '\0'; s++)
        h = collio__hash_mix(h, (unsigned char)*s);
    return h;
}

/* Fields of collio_plan_options as of this digest; see the header. */
_Static_assert(sizeof(collio_serial_options) == sizeof(int64_t),
               "collio_serial_options changed: add the new field to options_digest()");
_Static_assert(sizeof(collio_independent_options) == sizeof(int64_t),
               "collio_independent_options changed: add the new field to "
               "options_digest()");
_Static_assert(sizeof(collio_multiphase_options) == 5 * sizeof(int),
               "collio_multiphase_options changed: add the new field to "
               "options_digest()");
/* destroy_input, then the nested structs and nothing else (the same
 * fields in a struct of our own: the same size, padding included) */
struct known_plan_options {
    int destroy_input;
    collio_serial_options serial;
    collio_independent_options independent;
    collio_multiphase_options multiphase;
    collio_subgroup_options subgroup;
    collio_replica_options replicas;
};
_Static_assert(sizeof(collio_plan_options) == sizeof(struct known_plan_options),
               "collio_plan_options changed: add the new field to options_digest()");

uint64_t collio__plan_options_digest(const collio_plan_options *o)
{
    uint64_t h = 0x636f6c6c696f;
    h = collio__hash_mix(h, (uint64_t)o->destroy_input);
    h = collio__hash_mix(h, (uint64_t)o->serial.chunk_bytes);
    h = collio__hash_mix(h, (uint64_t)o->independent.max_iov);
    h = collio__hash_mix(h, (uint64_t)o->multiphase.phases);
    h = collio__hash_mix(h, (uint64_t)o->multiphase.keep_buffers);
    h = collio__hash_mix(h, (uint64_t)o->multiphase.write_rounds);
    h = collio__hash_mix(h, (uint64_t)o->multiphase.exchange);
    h = collio__hash_mix(h, (uint64_t)o->multiphase.shared_memory);
    h = collio__hash_mix(h, (uint64_t)o->subgroup.group);
    h = mix_str(h, o->subgroup.inner);
    h = collio__hash_mix(h, (uint64_t)o->replicas.policy);
    h = collio__hash_mix(h, o->replicas.seed);
    return h;
}

void collio__plan_options_detach(collio_plan_options *o)
{
    const collio__strategy *inner = collio__strategy_find(o->subgroup.inner);
    o->subgroup.inner = inner != NULL ? inner->name : NULL;
}

static const char *const exchange_names[COLLIO_EXCHANGE__COUNT] = {
    [COLLIO_EXCHANGE_AUTO] = "auto",
    [COLLIO_EXCHANGE_HYPERCUBE] = "hypercube",
    [COLLIO_EXCHANGE_DIRECT] = "direct",
    [COLLIO_EXCHANGE_NODE_DIRECT] = "node-direct",
    [COLLIO_EXCHANGE_NODE_HYPERCUBE] = "node-hypercube",
};

const char *collio_exchange_name(int x)
{
    return x >= 0 && x < COLLIO_EXCHANGE__COUNT ? exchange_names[x] : NULL;
}

int collio_exchange_from_name(const char *name)
{
    for (int x = 0; name != NULL && x < COLLIO_EXCHANGE__COUNT; x++)
        if (strcmp(exchange_names[x], name) == 0)
            return x;
    return -1;
}
