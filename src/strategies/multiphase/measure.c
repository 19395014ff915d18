/*
 * multiphase/measure.c -- the calibration's measure of the term
 * "multiphase.round" (cost.c's formulas read it): one pull round of the
 * shared-memory exchange, the cost of its two barriers among a node's
 * ranks that share its cores.
 *
 * Two layouts of PIECES blocks of BLOCK bytes per rank -- the same bytes,
 * pieces and block size -- one of 4-byte elements (a domain of many
 * elements: the most rounds), one of BLOCK-byte elements (one round); the
 * difference of their calls over that of their rounds is one round's
 * cost. 0 where the rounds do not differ (one rank; ranks on several
 * nodes: no shared-memory window).
 */
#include "machine/machine.h"
#include "core/core.h"
#include "multiphase.h"

#include <math.h>
#include <stdlib.h>

#define PIECES 512
#define BLOCK 128

/* Collective: one layout of the pair above, elements of esize bytes; its
 * plan and its pull rounds (the plan's stat). */
static int pair_layout(MPI_Comm comm, int nranks, size_t esize, collio_layout **l,
                       collio_plan **plan, double *rounds)
{
    int64_t bx = BLOCK / (int64_t)esize, n = bx * PIECES;
    int rc = collio_layout_block_cyclic(comm, n * nranks, bx, esize, l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(comm, *l, "multiphase", NULL, plan);
    *rounds = 0;
    if (rc == COLLIO_OK)
        collio_plan_stat(*plan, "multiphase.pull_rounds", rounds);
    return rc;
}

int collio__mp_measure(const collio__measure_kit *k)
{
    enum { MOST = 64 };
    collio_layout *l[2] = {NULL, NULL};
    collio_plan *plan[2] = {NULL, NULL};
    const int reps = k->reps < MOST ? k->reps : MOST;
    /* [layout][call], call 0 untimed */
    double rounds[2] = {0, 0}, tw[2][1 + MOST], tr[2][1 + MOST];
    const size_t bytes = (size_t)PIECES * BLOCK;
    unsigned char *v = malloc(bytes);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, k->comm);
    for (int i = 0; i < 2 && rc == COLLIO_OK; i++)
        rc = pair_layout(k->comm, k->size, i == 0 ? sizeof(float) : BLOCK, &l[i],
                         &plan[i], &rounds[i]);
    const int measure = rc == COLLIO_OK && rounds[0] > rounds[1];
    for (int c = 0; measure && c < 1 + reps && rc == COLLIO_OK; c++)
        for (int i = 0; i < 2 && rc == COLLIO_OK; i++) /* the layouts alternating */
            rc = k->time_pair(k, plan[i], v, bytes, &tw[i][c], &tr[i][c]);
    if (measure && rc == COLLIO_OK) {
        const double dr = rounds[0] - rounds[1];
        rc = collio_fs_costs_set_term(k->fs, "multiphase.round",
                                      fmax(0, collio__cal_median(tw[0] + 1, reps)
                                                  - collio__cal_median(tw[1] + 1, reps))
                                          / dr,
                                      fmax(0, collio__cal_median(tr[0] + 1, reps)
                                                  - collio__cal_median(tr[1] + 1, reps))
                                          / dr);
    }
    for (int i = 0; i < 2; i++) {
        collio_plan_free(&plan[i]);
        collio_layout_free(&l[i]);
    }
    free(v);
    return rc;
}
