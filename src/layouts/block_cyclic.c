/*
 * layouts/block_cyclic.c -- the 1-D block-cyclic layout (seed 004's vector
 * workload): nx elements in blocks of bx, rank r of P holds blocks
 * r, r+P, r+2P, ... packed in increasing index order.
 *
 * Block b covers elements [b*bx, min((b+1)*bx, nx)). A rank's full blocks
 * are one strided segment (len bx, stride P*bx); the last block of the
 * array, if short, is a second segment. So 1-2 segments whatever bx is.
 * Stream order is file order. Correct by construction: no validation.
 */
#include "base/base.h"
#include "layouts/layouts.h"

/* Pure: the segments of `rank`. Arguments assumed valid (nx >= 0, bx >= 1,
 * 0 <= rank < nranks). */
int collio__block_cyclic_segs(int64_t nx, int64_t bx, int nranks, int rank,
                              collio__segvec *out)
{
    if (nx <= 0)
        return COLLIO_OK;
    int64_t nblocks = nx / bx + (nx % bx != 0);
    if (rank >= nblocks)
        return COLLIO_OK;
    int64_t mine = (nblocks - 1 - rank) / nranks + 1;   /* blocks of this rank */
    int64_t last = rank + (mine - 1) * (int64_t)nranks; /* its last block */
    int64_t last_start = last * bx;                     /* < nx: no overflow */
    int64_t last_len = nx - last_start < bx ? nx - last_start : bx;
    int64_t full = last_len == bx ? mine : mine - 1;
    int rc = COLLIO_OK;
    if (full > 0) {
        /* stride is only used (and only fits) when there are >= 2 blocks:
         * then (full-1)*P*bx + bx <= nx */
        collio__seg s = {rank * bx, bx, full > 1 ? (int64_t)nranks * bx : bx, full, 0};
        rc = collio__segvec_push_seg(out, &s);
    }
    if (rc == COLLIO_OK && last_len < bx)
        rc = collio__segvec_push(out, last_start, last_len, full * bx);
    return rc;
}

int collio_layout_block_cyclic(MPI_Comm comm, int64_t nx, int64_t bx, size_t esize,
                               collio_layout **out)
{
    int rc = collio__layout_begin(comm, out, "collio_layout_block_cyclic");
    if (rc != COLLIO_OK)
        return rc;
    collio_layout *l = NULL;
    int64_t bytes;
    if (out == NULL)
        rc = collio__layout_no_out("collio_layout_block_cyclic");
    else if (nx < 0 || bx < 1 || esize < 1) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_layout_block_cyclic: %s = %lld (must be >= %d)",
                          nx < 0   ? "nx"
                          : bx < 1 ? "bx"
                                   : "esize",
                          (long long)(nx < 0   ? nx
                                      : bx < 1 ? bx
                                               : (int64_t)esize),
                          nx < 0 ? 0 : 1);
    } else if (esize > INT64_MAX || collio__mul_i64(nx, (int64_t)esize, &bytes)) {
        rc = COLLIO_ERR_OVERFLOW;
        collio__error_set(rc,
                          "collio_layout_block_cyclic: nx * esize = %lld * %zu "
                          "overflows 64 bits",
                          (long long)nx, esize);
    }
    /* After the local checks: a difference wins over them, and its agreed
     * text must not be overwritten by one rank's local detail. */
    uint64_t h = collio__hash_mix(0x62632d6c, (uint64_t)nx);
    h = collio__hash_mix(collio__hash_mix(h, (uint64_t)bx), (uint64_t)esize);
    int mism = collio__check_same_digest(comm, h, "nx, bx or esize");
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_BLOCK_CYCLIC, nx, esize, &l);
    collio__segvec sv = {0};
    if (rc == COLLIO_OK && mism == COLLIO_OK) {
        l->bx = bx;
        rc = collio__block_cyclic_segs(nx, bx, l->nranks, l->rank, &sv);
    }
    rc = collio__layout_conclude(comm, &l, &sv, rc, mism);
    if (out != NULL)
        *out = l;
    return rc;
}
