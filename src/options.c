/*
 * options.c -- plan options: defaults, validity, and the one digest that
 * collio_plan_create compares across ranks.
 *
 * Every field of collio_plan_options, the strategy-specific structs
 * included (strings by content), goes into the digest, so any option that
 * differs between ranks is COLLIO_ERR_MISMATCH on every rank before any
 * strategy sizes a collective by it. An option that differs could
 * otherwise hang (keep_buffers: one rank frees a window the others keep)
 * or abort the job (destroy_input: counts of an Allreduce differ).
 *
 * Adding an option = one line in options_digest() (and in the defaults /
 * validity below where it has them). The static assertion on the struct's
 * size fails the build until the digest is looked at.
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
    opts->phases = 0;
    opts->chunk_bytes = DEFAULT_CHUNK_BYTES;
    opts->max_iov = DEFAULT_MAX_IOV;
    opts->keep_buffers = 1;
    opts->shared_memory = 1;
}

int collio__plan_options_valid(const collio_plan_options *o)
{
    return o->phases >= 0 && o->phases <= COLLIO_MAX_PHASES && o->chunk_bytes >= 1
           && o->max_iov >= 1 && (o->destroy_input == 0 || o->destroy_input == 1)
           && (o->keep_buffers == 0 || o->keep_buffers == 1) && o->write_rounds >= -1
           && o->write_rounds <= 62 && o->exchange >= COLLIO_EXCHANGE_AUTO
           && o->exchange < COLLIO_EXCHANGE__COUNT
           && (o->shared_memory == 0 || o->shared_memory == 1) && o->subgroup.group >= 0
           && o->replicas.policy >= COLLIO_REPLICAS_AUTO
           && o->replicas.policy < COLLIO_REPLICAS__COUNT;
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
_Static_assert(sizeof(collio_plan_options)
                   == 4 * sizeof(int) + 2 * sizeof(int64_t) + 4 * sizeof(int)
                          + sizeof(collio_subgroup_options)
                          + sizeof(collio_replica_options),
               "collio_plan_options changed: add the new field to options_digest()");

uint64_t collio__plan_options_digest(const collio_plan_options *o)
{
    uint64_t h = 0x636f6c6c696f;
    h = collio__hash_mix(h, (uint64_t)o->phases);
    h = collio__hash_mix(h, (uint64_t)o->chunk_bytes);
    h = collio__hash_mix(h, (uint64_t)o->max_iov);
    h = collio__hash_mix(h, (uint64_t)o->keep_buffers);
    h = collio__hash_mix(h, (uint64_t)o->destroy_input);
    h = collio__hash_mix(h, (uint64_t)o->write_rounds);
    h = collio__hash_mix(h, (uint64_t)o->exchange);
    h = collio__hash_mix(h, (uint64_t)o->shared_memory);
    h = collio__hash_mix(h, (uint64_t)o->subgroup.group);
    h = mix_str(h, o->subgroup.inner);
    h = collio__hash_mix(h, (uint64_t)o->replicas.policy);
    h = collio__hash_mix(h, o->replicas.seed);
    return h;
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
