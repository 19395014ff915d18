/*
 * layouts/index_list.c -- explicit index lists (irregular data such as mesh
 * nodes): rank r holds idx[0..nlocal) in that buffer order, any order.
 *
 * Runs of consecutive indices become blocks; collio__segvec_push merges
 * equal-length blocks at a constant stride into strided segments, so a
 * regular list costs O(1) segments and an irregular one at most one per
 * run. Unlike the other kinds an index list is not a partition by
 * construction: the constructor ends with the collective
 * collio__layout_validate (range, overlap, coverage).
 */
#include "base/base.h"
#include "layouts/layouts.h"

int collio__index_list_segs(int64_t nlocal, const int64_t idx[], collio__segvec *out)
{
    int64_t i = 0;
    while (i < nlocal) {
        int64_t j = i + 1;
        while (j < nlocal && idx[j - 1] < INT64_MAX && idx[j] == idx[j - 1] + 1)
            j++;
        int rc = collio__segvec_push(out, idx[i], j - i, i);
        if (rc)
            return rc;
        i = j;
    }
    return COLLIO_OK;
}

int collio_layout_index_list(MPI_Comm comm, int64_t nglobal, int64_t nlocal,
                             const int64_t idx[], size_t esize, collio_layout **out)
{
    int rc = collio__layout_begin(comm, out, "collio_layout_index_list");
    if (rc != COLLIO_OK)
        return rc;
    collio_layout *l = NULL;
    int64_t bytes;
    if (out == NULL)
        rc = collio__layout_no_out("collio_layout_index_list");
    else if (nglobal < 0 || nlocal < 0 || (nlocal > 0 && !idx) || esize < 1) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_layout_index_list: %s",
                          nglobal < 0  ? "nglobal is negative"
                          : nlocal < 0 ? "nlocal is negative"
                          : esize < 1  ? "esize is 0"
                                       : "idx is NULL with nlocal > 0");
    } else if (esize > INT64_MAX || collio__mul_i64(nglobal, (int64_t)esize, &bytes)) {
        rc = COLLIO_ERR_OVERFLOW;
        collio__error_set(rc,
                          "collio_layout_index_list: nglobal * esize overflows 64 bits");
    }
    for (int64_t i = 0; rc == COLLIO_OK && i < nlocal; i++)
        if (idx[i] < 0 || idx[i] >= nglobal) {
            rc = COLLIO_ERR_RANGE; /* early: keeps segment math in range */
            collio__error_set(rc, "idx[%lld] = %lld is outside [0, %lld)", (long long)i,
                              (long long)idx[i], (long long)nglobal);
        }
    /* After the local checks: a difference wins over them, and its agreed
     * text must not be overwritten by one rank's local detail. */
    uint64_t h = collio__hash_mix(0x69647820, (uint64_t)nglobal);
    int mism = collio__check_same_digest(comm, collio__hash_mix(h, (uint64_t)esize),
                                         "nglobal or esize");
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_INDEX_LIST, nglobal, esize, &l);
    collio__segvec sv = {0};
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__index_list_segs(nlocal, idx, &sv);
    rc = collio__layout_conclude(comm, &l, &sv, rc, mism);
    if (rc == COLLIO_OK)
        rc = collio__layout_validate(comm, l);
    if (rc != COLLIO_OK)
        collio_layout_free(&l);
    if (out != NULL)
        *out = l;
    return rc;
}
