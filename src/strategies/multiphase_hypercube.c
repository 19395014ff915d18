/*
 * multiphase_hypercube.c -- the hypercube transport of the multiphase
 * strategy: its table entry, which joins its inspector
 * (multiphase_inspect.c, on the pure steps of multiphase_plan.c and
 * multiphase_rounds.c) and its executor (multiphase_exec.c), and what its
 * plan costs in memory. ceil(log2 P) pairwise phases, or fewer
 * (opts.multiphase.phases); writes that leave the stream intact run in rounds.
 */
#include "multiphase.h"

static int64_t pass_bytes(const collio__mp_pass *ps, int k)
{
    int64_t b = 0;
    for (int i = 0; i < k; i++) {
        const collio__mp_phase *ph = &ps->ph[i];
        b += ph->nkeep * (int64_t)sizeof(collio__mp_copy);
        b += ph->nsend
             * (int64_t)(sizeof(collio__mp_range) + sizeof(int) + sizeof(MPI_Aint));
    }
    return b + (ps->fin.nops + ps->fin.nruns) * (int64_t)sizeof(collio__seg);
}

static int64_t plan_bytes(const collio__mp_plan *mp)
{
    int64_t b = (int64_t)sizeof *mp + pass_bytes(&mp->whole, mp->nphases);
    for (int r = 0; r < mp->nrounds; r++)
        b += (int64_t)sizeof *mp->rounds + pass_bytes(&mp->rounds[r].pass, mp->nphases)
             + collio__mp_direct_bytes(mp->rounds[r].direct);
    return b;
}

/* Collective: the whole pass and the rounds (multiphase_inspect.c). */
static int hypercube_build(collio_plan *p, collio__mp_plan *mp)
{
    collio__mp_pass_init(&mp->whole);
    int rc = collio__mp_inspect(p, mp);
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = plan_bytes(mp);
    return rc;
}

static void hypercube_free(collio__mp_plan *mp)
{
    collio__mp_pass_free(&mp->whole);
    collio__mp_drop_rounds(mp);
}

const collio__mp_transport collio__mp_transport_hypercube = {
    .name = "hypercube",
    .exchange = COLLIO_EXCHANGE_HYPERCUBE,
    .build = hypercube_build,
    .write = collio__mp_hypercube_write,
    .read = collio__mp_hypercube_read,
    .free = hypercube_free,
};
