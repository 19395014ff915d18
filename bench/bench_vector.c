/*
 * bench_vector.c -- the seed 004 workload: a vector of nx elements (float32
 * by default), block-cyclic over the P ranks with block bx (rank r holds
 * blocks r, r+P, ...). One case per --bx value.
 */
#include "bench_internal.h"

#include <stdio.h>

static int vector_cases(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                        int *ncases)
{
    (void)comm;
    if (cfg->nx < 0 || cfg->nbx < 1)
        return COLLIO_ERR_ARG;
    for (int i = 0; i < cfg->nbx; i++) {
        if (cfg->bx[i] < 1)
            return COLLIO_ERR_ARG;
        bench_case *c = &cases[i];
        snprintf(c->label, sizeof c->label, "%lld", (long long)cfg->bx[i]);
        c->shape = NULL;
        c->nx = cfg->nx;
        c->bx = cfg->bx[i];
    }
    *ncases = cfg->nbx;
    return COLLIO_OK;
}

static int vector_layout(MPI_Comm comm, const collio_bench_config *cfg,
                         const bench_case *c, collio_layout **out)
{
    return collio_layout_block_cyclic(comm, c->nx, c->bx, cfg->esize, out);
}

const bench_workload_ops bench_vector_workload = {
    .name = "vector",
    .case_column = "bx",
    .cases = vector_cases,
    .layout = vector_layout,
};
