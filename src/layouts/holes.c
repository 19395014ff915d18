/*
 * holes.c -- the held runs of sparse extents layouts (collio__holes,
 * built by layouts/extents.c): lookups from file and packed positions, the
 * layout's segments in file elements, copies. Pure, no MPI.
 */
#include "layouts/layouts.h"

#include <string.h>

int64_t collio__holes_run_of(const collio__holes *h, int64_t off)
{
    int64_t lo = 0, hi = h->n; /* the last run with h->off <= off */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (h->off[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int64_t collio__holes_run_of_packed(const collio__holes *h, int64_t pos)
{
    int64_t lo = 0, hi = h->n; /* the last run with h->cum <= pos */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (h->cum[mid] <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void collio__holes_free(collio__holes **h)
{
    if (h == NULL || *h == NULL)
        return;
    free((*h)->off);
    free((*h)->len);
    free((*h)->cum);
    free(*h);
    *h = NULL;
}

int collio__holes_clone(const collio__holes *in, collio__holes **out)
{
    *out = NULL;
    if (in == NULL)
        return COLLIO_OK;
    collio__holes *h = calloc(1, sizeof *h);
    size_t n = (size_t)(in->n > 0 ? in->n : 1) * sizeof(int64_t);
    if (h == NULL)
        return COLLIO_ERR_NOMEM;
    *h = *in;
    h->off = malloc(n);
    h->len = malloc(n);
    h->cum = malloc(n);
    if (!h->off || !h->len || !h->cum) {
        collio__holes_free(&h);
        return COLLIO_ERR_NOMEM;
    }
    memcpy(h->off, in->off, (size_t)in->n * sizeof(int64_t));
    memcpy(h->len, in->len, (size_t)in->n * sizeof(int64_t));
    memcpy(h->cum, in->cum, (size_t)in->n * sizeof(int64_t));
    *out = h;
    return COLLIO_OK;
}

int collio__layout_file_segs(const collio_layout *l, collio__segvec *out)
{
    const collio__holes *h = l->holes;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < l->nsegs && rc == COLLIO_OK; i++) {
        const collio__seg *s = &l->segs[i];
        for (int64_t k = 0; k < s->count && rc == COLLIO_OK; k++) {
            int64_t a = s->off + k * s->stride, n = s->len, mem = s->mem + k * s->len;
            if (h == NULL) { /* a dense layout: the blocks themselves */
                rc = collio__segvec_push(out, a, n, mem);
                continue;
            }
            int64_t r = collio__holes_run_of_packed(h, a);
            while (n > 0 && rc == COLLIO_OK) { /* split at the runs' ends */
                int64_t in_run = h->cum[r] + h->len[r] - a;
                int64_t take = n < in_run ? n : in_run;
                rc = collio__segvec_push(out, h->off[r] + (a - h->cum[r]), take, mem);
                a += take;
                mem += take;
                n -= take;
                r++;
            }
        }
    }
    return rc;
}

int64_t collio__layout_file_span(const collio_layout *l)
{
    return l->holes != NULL ? l->holes->span : l->nglobal;
}
