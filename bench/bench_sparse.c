/*
 * bench_sparse.c -- the vector with holes: how a dataset among others (an
 * HDF5 file with several datasets, a netCDF variable among others) looks
 * to collio. The file is cut into blocks of bx elements; every K-th block
 * (K = --hole-every, default 4: blocks K-1, 2K-1, ...) is a hole that no
 * rank holds, the others are dealt round-robin to the ranks (data block j,
 * the j-th block that is not a hole, goes to rank j % P). nx elements of
 * data in all (the last data block may be short), so the file spans about
 * nx * K / (K - 1) elements and ends with data. One case per --bx value;
 * the layout is collio_layout_extents, one extent per data block.
 */
#include "bench_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The file block of data block j: j plus the holes before it. */
static int64_t file_block(int64_t j, int64_t k)
{
    return j + j / (k - 1);
}

static int sparse_cases(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                        int *ncases)
{
    (void)comm;
    const int64_t k = cfg->hole_every;
    if (cfg->nx < 0 || cfg->nbx < 1 || k < 2 || cfg->nx > INT64_MAX / 4)
        return COLLIO_ERR_ARG;
    for (int i = 0; i < cfg->nbx; i++) {
        const int64_t bx = cfg->bx[i];
        if (bx < 1 || bx > INT64_MAX / 4)
            return COLLIO_ERR_ARG;
        bench_case *c = &cases[i];
        snprintf(c->label, sizeof c->label, "%lld holes=1/%lld", (long long)bx,
                 (long long)k);
        c->shape = NULL;
        c->nx = cfg->nx;
        c->bx = bx;
        c->hole_every = k;
        /* the file ends where the last data block does */
        int64_t last = cfg->nx > 0 ? (cfg->nx - 1) / bx : -1;
        if (last >= 0 && file_block(last, k) > (INT64_MAX / 2) / bx)
            return COLLIO_ERR_ARG;
        c->span = last < 0 ? 0 : file_block(last, k) * bx + (cfg->nx - last * bx);
    }
    *ncases = cfg->nbx;
    return COLLIO_OK;
}

/* This rank's extents: data blocks r, r + P, ..., in file order. */
static int sparse_layout(MPI_Comm comm, const collio_bench_config *cfg,
                         const bench_case *c, collio_layout **out)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    const int64_t nblocks = c->nx > 0 ? (c->nx - 1) / c->bx + 1 : 0;
    const int64_t mine = nblocks > rank ? (nblocks - rank - 1) / nranks + 1 : 0;
    int64_t *off = malloc((size_t)(mine > 0 ? mine : 1) * sizeof *off);
    int64_t *len = malloc((size_t)(mine > 0 ? mine : 1) * sizeof *len);
    int nomem = !off || !len, anynomem = 0;
    MPI_Allreduce(&nomem, &anynomem, 1, MPI_INT, MPI_MAX, comm);
    int rc = COLLIO_ERR_NOMEM;
    if (!anynomem) {
        int64_t n = 0;
        for (int64_t j = rank; j < nblocks; j += nranks, n++) {
            off[n] = file_block(j, c->hole_every) * c->bx;
            len[n] = c->nx - j * c->bx < c->bx ? c->nx - j * c->bx : c->bx;
        }
        rc = collio_layout_extents(comm, n, off, len, cfg->esize, out);
    }
    free(off);
    free(len);
    return rc;
}

const bench_workload_ops bench_sparse_workload = {
    .name = "sparse",
    .case_column = "bx",
    .cases = sparse_cases,
    .layout = sparse_layout,
};
