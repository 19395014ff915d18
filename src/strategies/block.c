/*
 * block.c -- the "block" reference strategy (NOT canonical order).
 *
 * Algorithm: each rank writes its packed stream (its elements in layout
 * order) as one contiguous run at byte offset
 *   start_r = sum over ranks q < r of nlocal_q * esize
 * (an exclusive prefix sum computed once at plan time), i.e. the file holds
 * rank 0's data, then rank 1's, ... Read reads the same run back, so a
 * block file round-trips through a block plan; it is not the canonical
 * file and must never be verified as one.
 *
 * Cost per execution: no messages, no bytes moved between ranks, one file
 * request of nlocal*esize bytes per rank (none for an empty rank).
 *
 * Source: seed 004 uses this access (every process writes its block
 * contiguously) as the bound no canonical-order strategy can beat; collio
 * keeps it as the physical limit in benchmark tables.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"

typedef struct block_plan {
    int64_t start_bytes; /* this rank's run: [start_bytes, start_bytes+nbytes) */
    int64_t nbytes;
} block_plan;

static int block_plan_create(collio_plan *p)
{
    const collio_layout *l = p->layout;
    block_plan *bp = calloc(1, sizeof *bp);
    int rc = bp != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    int64_t nbytes = 0;
    if (rc == COLLIO_OK)
        rc = collio__mul_i64(l->nlocal, (int64_t)l->esize, &nbytes);
    /* The scan is collective: every rank takes part even after a local
     * failure (it then contributes 0). */
    int64_t mine = rc == COLLIO_OK ? nbytes : 0, before = 0;
    if (MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, p->comm) != MPI_SUCCESS
        && rc == COLLIO_OK)
        rc = COLLIO_ERR_MPI;
    if (p->rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    if (bp != NULL) {
        bp->start_bytes = before;
        bp->nbytes = nbytes;
    }
    p->impl = bp;
    p->stats.plan_bytes = (int64_t)sizeof *bp;
    return rc;
}

static int block_write(collio_plan *p, collio_file *f, const char *stream)
{
    const block_plan *bp = p->impl;
    if (bp->nbytes == 0)
        return COLLIO_OK;
    double t0 = collio__now();
    int rc = collio__file_write_at(f, bp->start_bytes, stream, (size_t)bp->nbytes);
    p->stats.file_s += collio__now() - t0;
    p->stats.file_requests += 1;
    p->stats.file_bytes += bp->nbytes;
    return rc;
}

static int block_read(collio_plan *p, collio_file *f, char *stream)
{
    const block_plan *bp = p->impl;
    if (bp->nbytes == 0)
        return COLLIO_OK;
    double t0 = collio__now();
    int rc = collio__file_read_at(f, bp->start_bytes, stream, (size_t)bp->nbytes);
    p->stats.file_s += collio__now() - t0;
    p->stats.file_requests += 1;
    p->stats.file_bytes += bp->nbytes;
    return rc;
}

static void block_free(collio_plan *p)
{
    free(p->impl);
    p->impl = NULL;
}

const collio__strategy collio__strategy_block = {
    .section = {"block", NULL, 0, NULL, 0},
    .summary = "reference: each rank writes its data contiguously in rank "
               "order (not canonical order; the physical limit)",
    .canonical = 0,
    .plan = block_plan_create,
    .write = block_write,
    .read = block_read,
    .free = block_free,
};
