/*
 * replicas/replicated.c -- index lists with replicas: mesh fields whose halo
 * nodes sit on several ranks. The segments are an index list's (the
 * buffer holds every copy the rank has); `owned` says which of them the
 * rank owns. Validation is the node classification of replicas/classify.c
 * (every element held, owned exactly once), done here so that a bad layout
 * fails where it is made; the plan classifies again for its schedule.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "replicas/replicas.h"

#include <string.h>

int collio_layout_index_list_replicated(MPI_Comm comm, int64_t nglobal, int64_t nlocal,
                                        const int64_t idx[], const unsigned char owned[],
                                        size_t esize, collio_layout **out)
{
    int rc = collio__layout_begin(comm, out, "collio_layout_index_list_replicated");
    if (rc != COLLIO_OK)
        return rc;
    int64_t bytes;
    if (out == NULL)
        rc = collio__layout_no_out("collio_layout_index_list_replicated");
    else if (nglobal < 0 || nlocal < 0 || (nlocal > 0 && (!idx || !owned)) || esize < 1) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_layout_index_list_replicated: %s",
                          nglobal < 0 || nlocal < 0 ? "a negative count"
                          : esize < 1               ? "esize is 0"
                                                    : "idx or owned is NULL");
    } else if (esize > INT64_MAX || collio__mul_i64(nglobal, (int64_t)esize, &bytes)) {
        rc = COLLIO_ERR_OVERFLOW;
        collio__error_set(rc, "collio_layout_index_list_replicated: nglobal * esize "
                              "overflows 64 bits");
    }
    for (int64_t i = 0; rc == COLLIO_OK && i < nlocal; i++) {
        if (idx[i] < 0 || idx[i] >= nglobal) {
            rc = COLLIO_ERR_RANGE;
            collio__error_set(rc, "idx[%lld] = %lld is outside [0, %lld)", (long long)i,
                              (long long)idx[i], (long long)nglobal);
        } else if (owned[i] > 1) {
            rc = COLLIO_ERR_ARG;
            collio__error_set(rc, "owned[%lld] = %d is not 0 or 1", (long long)i,
                              owned[i]);
        }
    }
    /* After the local checks: a difference wins over them, and its agreed
     * text must not be overwritten by one rank's local detail. */
    uint64_t h = collio__hash_mix(0x7265706c, (uint64_t)nglobal);
    int mism = collio__check_same_digest(comm, collio__hash_mix(h, (uint64_t)esize),
                                         "nglobal or esize");
    collio_layout *l = NULL;
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_INDEX_LIST, nglobal, esize, &l);
    if (rc == COLLIO_OK && mism == COLLIO_OK) {
        l->owned = malloc((size_t)(nlocal > 0 ? nlocal : 1));
        if (!l->owned)
            rc = COLLIO_ERR_NOMEM;
        else if (nlocal > 0)
            memcpy(l->owned, owned, (size_t)nlocal);
    }
    collio__segvec sv = {0};
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__index_list_segs(nlocal, idx, &sv);
    rc = collio__layout_conclude(comm, &l, &sv, rc, mism);
    if (rc == COLLIO_OK) {
        collio__repl_dom d;
        rc = collio__repl_classify(comm, l, &d);
        collio__repl_dom_free(&d);
    }
    if (rc != COLLIO_OK)
        collio_layout_free(&l);
    if (out != NULL)
        *out = l;
    return rc;
}
