/*
 * replicas/policy.c -- which holder writes each replicated element (seed
 * 003, section 5, second stage: the disk access scheduler), and the
 * distributed scan that makes IDG's chain exact across domains.
 *
 * A policy is one row of the table below: a choice per element from its
 * holders and owner, and for IDG also from the writer of the previous
 * element (`chained`). Each domain rank decides the elements of its
 * file-order domain (replicas/classify.c).
 *
 * IDG's chain crosses domains: the first element of domain d depends on
 * the writer of the last element of domain d-1. But it depends on it only
 * through one question -- is that writer a holder of the first element? --
 * so each domain is a function from its input writer to its output writer
 * with at most k + 1 distinct cases (k = holders of its first element;
 * any other input behaves like "none"). Every domain computes that small
 * transfer map (the chain from each case, stopping where it joins the
 * default chain), one MPI_Allgather shares the maps, and each rank
 * composes the maps of the domains before its own to learn its input
 * exactly: the sequential algorithm's result, at O(N/P + P k) work.
 */
#include "base/base.h"
#include "replicas/replicas.h"

#include <string.h>

typedef struct ctx {
    const collio__repl_dom *d;
    int64_t nglobal;
    int nranks;
    uint64_t seed;
    int32_t next_owner; /* owner of the element after the domain, or -1 */
    int (*rank_domain)(int nranks, int rank); /* the strategy's, or NULL */
} ctx;

/* Holders of element lo + j: the owner, and the others in increasing
 * rank order (a CSR list). */
static int holds(const ctx *c, int64_t j, int32_t r)
{
    if (c->d->owner[j] == r)
        return 1;
    for (int64_t k = c->d->hstart[j]; k < c->d->hstart[j + 1]; k++)
        if (c->d->holder[k] == r)
            return 1;
    return 0;
}

static int64_t nholders(const ctx *c, int64_t j)
{
    return 1 + c->d->hstart[j + 1] - c->d->hstart[j];
}

/* The i-th holder in increasing rank order (the owner merged in). */
static int32_t holder_at(const ctx *c, int64_t j, int64_t i)
{
    int32_t o = c->d->owner[j];
    const int32_t *h = c->d->holder + c->d->hstart[j];
    int64_t below = 0; /* other holders ranked below the owner */
    while (below < nholders(c, j) - 1 && h[below] < o)
        below++;
    return i < below ? h[i] : i == below ? o : h[i - 1];
}

static int32_t choose_owner(const ctx *c, int64_t j, int32_t prev)
{
    (void)prev;
    return c->d->owner[j];
}

/* In file order: the previous element's writer if it holds a copy, else
 * the next element's owner if it holds one, else the owner (the first
 * entry of the seed's partition list). */
static int32_t choose_idg(const ctx *c, int64_t j, int32_t prev)
{
    if (nholders(c, j) == 1)
        return c->d->owner[j];
    if (prev >= 0 && holds(c, j, prev))
        return prev;
    int64_t n = c->d->hi - c->d->lo;
    int32_t next = j + 1 < n ? c->d->owner[j + 1] : c->next_owner;
    if (next >= 0 && holds(c, j, next))
        return next;
    return c->d->owner[j];
}

static int32_t choose_random(const ctx *c, int64_t j, int32_t prev)
{
    (void)prev;
    uint64_t h =
        collio__hash_mix(collio__hash_mix(0x72616e64, c->seed), (uint64_t)(c->d->lo + j));
    return holder_at(c, j, (int64_t)(h % (uint64_t)nholders(c, j)));
}

static int32_t choose_first(const ctx *c, int64_t j, int32_t prev)
{
    (void)prev;
    return holder_at(c, j, 0);
}

/* The rank whose file domain under the plan's strategy holds the
 * element, if it holds a copy: the element then stays where it is. */
static int32_t choose_domain(const ctx *c, int64_t j, int32_t prev)
{
    (void)prev;
    int dom = collio__domain_of(c->nglobal, c->nranks, c->d->lo + j);
    for (int64_t k = c->d->hstart[j]; k < c->d->hstart[j + 1]; k++) {
        int r = c->d->holder[k];
        if ((c->rank_domain != NULL ? c->rank_domain(c->nranks, r) : r) == dom)
            return c->d->holder[k];
    }
    return c->d->owner[j]; /* (also when the owner's domain holds it) */
}

typedef struct policy {
    const char *name;
    int chained;
    int32_t (*choose)(const ctx *c, int64_t j, int32_t prev);
} policy;

/* The one table of policies, indexed by policy (replicas.h). */
static const policy policies[COLLIO__REPLICAS_COUNT] = {
    [COLLIO__REPLICAS_AUTO] = {"auto", 0, NULL},
    [COLLIO__REPLICAS_OWNER] = {"owner", 0, choose_owner},
    [COLLIO__REPLICAS_IDG] = {"idg", 1, choose_idg},
    [COLLIO__REPLICAS_RANDOM] = {"random", 0, choose_random},
    [COLLIO__REPLICAS_FIRST] = {"first", 0, choose_first},
    [COLLIO__REPLICAS_DOMAIN] = {"domain", 0, choose_domain},
};

const char *const collio__replicas_names[COLLIO__REPLICAS_COUNT + 1] = {
    "auto", "owner", "idg", "random", "first", "domain", NULL};
_Static_assert(COLLIO__REPLICAS_COUNT == 6, "a name for every policy");

int collio__replicas_of(const char *name)
{
    for (int p = 0; name != NULL && p < COLLIO__REPLICAS_COUNT; p++)
        if (strcmp(policies[p].name, name) == 0)
            return p;
    return -1;
}

/* The chain over the domain from input writer `in`; writes writer[] when
 * non-NULL. With `join` (the default chain's writers), stops where the
 * chain meets it and returns the default chain's last writer. */
static int32_t run_chain(const ctx *c, const policy *pol, int32_t in, int32_t *writer,
                         const int32_t *join)
{
    int64_t n = c->d->hi - c->d->lo;
    int32_t w = in;
    for (int64_t j = 0; j < n; j++) {
        w = pol->choose(c, j, w);
        if (writer)
            writer[j] = w;
        if (join && join[j] == w)
            return join[n - 1];
    }
    return w;
}

/* Collective: one value per domain rank (-1: none, e.g. an empty
 * domain); returns the nearest value of a domain after this one (after =
 * 1) or before it (after = 0), -1 if there is none. */
static int neighbour_value(MPI_Comm comm, int nranks, int32_t mine, int after,
                           int32_t *out)
{
    int32_t *all = malloc((size_t)nranks * sizeof *all);
    int rc = collio__agree(comm, all ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc == COLLIO_OK
        && MPI_Allgather(&mine, 1, MPI_INT32_T, all, 1, MPI_INT32_T, comm) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int me;
    MPI_Comm_rank(comm, &me);
    *out = -1;
    if (rc == COLLIO_OK && after)
        for (int q = me + 1; q < nranks && *out < 0; q++)
            *out = all[q];
    if (rc == COLLIO_OK && !after)
        for (int q = me - 1; q >= 0 && *out < 0; q--)
            *out = all[q];
    free(all);
    return collio__agree(comm, rc);
}

/* Transfer maps: per domain 1 + 2K int32: [default out, (in, out) x K],
 * unused pairs -2; an empty domain's default is -3 (passes its input). */
#define EMPTY_DOMAIN (-3)

static int32_t apply_map(const int32_t *m, int K, int32_t in)
{
    if (m[0] == EMPTY_DOMAIN)
        return in;
    for (int k = 0; k < K; k++)
        if (m[1 + 2 * k] == in && in >= 0)
            return m[2 + 2 * k];
    return m[0];
}

static int chained_schedule(MPI_Comm comm, const ctx *c, const policy *pol,
                            int32_t *writer, int32_t *prev_writer)
{
    const collio__repl_dom *d = c->d;
    int64_t n = d->hi - d->lo;
    /* cases: the holders of the first element, when it is replicated */
    int kmine = n > 0 && nholders(c, 0) > 1 ? (int)nholders(c, 0) : 0, K = 0;
    if (MPI_Allreduce(&kmine, &K, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return collio__agree(comm, COLLIO_ERR_MPI);
    int w = 1 + 2 * K;
    int32_t *mine = malloc((size_t)w * sizeof *mine);
    int32_t *all = malloc((size_t)w * (size_t)c->nranks * sizeof *all);
    int rc = mine && all ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        for (int i = 0; i < w; i++)
            mine[i] = -2;
        if (n == 0)
            mine[0] = EMPTY_DOMAIN;
        else {
            mine[0] = run_chain(c, pol, -1, writer, NULL); /* the default chain */
            for (int k = 0; k < kmine; k++) {
                int32_t in = holder_at(c, 0, k);
                mine[1 + 2 * k] = in;
                mine[2 + 2 * k] = run_chain(c, pol, in, NULL, writer);
            }
        }
    }
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Allgather(mine, w, MPI_INT32_T, all, w, MPI_INT32_T, comm) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK && n > 0) {
        int me;
        MPI_Comm_rank(comm, &me);
        int32_t in = -1; /* before element 0 there is no writer */
        for (int q = 0; q < me; q++)
            in = apply_map(all + (size_t)q * (size_t)w, K, in);
        run_chain(c, pol, in, writer, NULL);
        *prev_writer = in;
    }
    free(mine);
    free(all);
    return collio__agree(comm, rc);
}

int collio__repl_schedule(MPI_Comm comm, const collio__repl_dom *d, int64_t nglobal,
                          int p, uint64_t seed, int (*rank_domain)(int nranks, int rank),
                          int32_t *writer, int32_t *prev_writer)
{
    if (p <= COLLIO__REPLICAS_AUTO || p >= COLLIO__REPLICAS_COUNT)
        return collio__agree(comm, COLLIO_ERR_ARG);
    ctx c = {d, nglobal, 0, seed, -1, rank_domain};
    MPI_Comm_size(comm, &c.nranks);
    const policy *pol = &policies[p];
    int64_t n = d->hi - d->lo;
    *prev_writer = -1;
    if (pol->chained) { /* IDG looks at the next element's owner */
        int rc =
            neighbour_value(comm, c.nranks, n > 0 ? d->owner[0] : -1, 1, &c.next_owner);
        return rc != COLLIO_OK ? rc
                               : chained_schedule(comm, &c, pol, writer, prev_writer);
    }
    for (int64_t j = 0; j < n; j++)
        writer[j] = pol->choose(&c, j, -1);
    return neighbour_value(comm, c.nranks, n > 0 ? writer[n - 1] : -1, 0, prev_writer);
}
