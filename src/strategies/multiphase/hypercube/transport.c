/*
 * hypercube/transport.c -- the hypercube transport of the multiphase
 * strategy: its table entry, which joins its inspector (inspect.c, on the
 * pure steps of phases.c and rounds.c) and its executor (exec.c), its
 * state (collio__mp_hc, behind mp->state) and what its plan costs in
 * memory. ceil(log2 P) pairwise phases, or fewer (hint
 * multiphase.phases); writes that leave the stream intact run in rounds.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "core/core.h"
#include "hypercube.h"

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
    int64_t b = (int64_t)(sizeof *mp + sizeof(collio__mp_hc))
                + pass_bytes(&collio__mp_hc_of(mp)->whole, mp->nphases);
    for (int r = 0; r < collio__mp_hc_of(mp)->nrounds; r++)
        b += (int64_t)sizeof *collio__mp_hc_of(mp)->rounds
             + pass_bytes(&collio__mp_hc_of(mp)->rounds[r].pass, mp->nphases)
             + collio__mp_direct_bytes(collio__mp_hc_of(mp)->rounds[r].direct);
    return b;
}

/* Collective: the whole pass and the rounds (hypercube/inspect.c). */
static int hypercube_build(collio_plan *p, collio__mp_plan *mp)
{
    collio__mp_hc *hc = calloc(1, sizeof *hc);
    mp->state = hc; /* (freed by hypercube_free, also after a failure) */
    if (collio__agree(p->comm, hc != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM) != COLLIO_OK)
        return COLLIO_ERR_NOMEM;
    collio__mp_pass_init(&hc->whole);
    int rc = collio__mp_inspect(p, mp);
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = plan_bytes(mp);
    return rc;
}

static void hypercube_free(collio__mp_plan *mp)
{
    if (mp->state == NULL)
        return;
    collio__mp_pass_free(&collio__mp_hc_of(mp)->whole);
    collio__mp_drop_rounds(mp);
    free(mp->state);
    mp->state = NULL;
}

const collio__mp_transport collio__mp_transport_hypercube = {
    .name = "hypercube",
    .build = hypercube_build,
    .write = collio__mp_hypercube_write,
    .read = collio__mp_hypercube_read,
    .free = hypercube_free,
};
