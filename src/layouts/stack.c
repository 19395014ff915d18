/*
 * stack.c -- k layouts at k places of the file, as one layout: what k
 * requests at k offsets are -- of one plan, or of several plans on one
 * file -- so that they move in one execution (src/requests/). Copy i
 * holds layout i's data shifted by shift[i] file elements; in the stream
 * copy i follows copy i - 1 (the k user buffers one after the other).
 * Where the copies leave gaps (a header, another variable between them,
 * a sparse layout's own holes) the result is a sparse layout whose holes
 * are those gaps (layouts/extents.c's form), so that they are never
 * written. Local: every rank knows the whole of a layout's coverage
 * ([0, nglobal) for a dense one, the held runs of a sparse one), so the
 * stacked runs need no message.
 */
#include "base/base.h"
#include "layouts/layouts.h"

#include <stdlib.h>

typedef struct placed {
    int64_t at; /* shift */
    int i;      /* copy */
} placed;

static int by_at(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at ? 1 : x->i - y->i;
}

/* Copy i's held runs in its own file elements: [0, nglobal) for a dense
 * layout, its holes' runs for a sparse one. */
static int64_t runs_of(const collio_layout *l, int64_t r, int64_t *len)
{
    if (l->holes == NULL) {
        *len = l->nglobal;
        return 0;
    }
    *len = l->holes->len[r];
    return l->holes->off[r];
}

/* The held runs of the copies (sorted as `order`): each copy's runs
 * shifted by its place, coalesced where they meet; pos[i]: copy i's
 * first packed element. */
static int stack_runs(const placed *order, int k, const collio_layout *const l[],
                      collio__holes *h, int64_t *pos)
{
    int64_t nruns = 0;
    for (int i = 0; i < k; i++)
        nruns += l[i]->holes != NULL ? l[i]->holes->n : 1;
    h->off = malloc((size_t)nruns * sizeof *h->off);
    h->len = malloc((size_t)nruns * sizeof *h->len);
    h->cum = malloc((size_t)nruns * sizeof *h->cum);
    if (!h->off || !h->len || !h->cum)
        return COLLIO_ERR_NOMEM;
    h->n = 0;
    int64_t held = 0;
    for (int c = 0; c < k; c++) {
        const collio_layout *u = l[order[c].i];
        pos[order[c].i] = held;
        for (int64_t r = 0; r < (u->holes != NULL ? u->holes->n : 1); r++) {
            int64_t n, at = order[c].at + runs_of(u, r, &n);
            if (h->n > 0 && h->off[h->n - 1] + h->len[h->n - 1] == at)
                h->len[h->n - 1] += n; /* continues the run */
            else {
                h->off[h->n] = at;
                h->len[h->n] = n;
                h->cum[h->n] = held;
                h->n++;
            }
            held += n;
        }
    }
    h->held = held;
    h->span = h->off[h->n - 1] + h->len[h->n - 1];
    return COLLIO_OK;
}

/* The copies can stack: unreplicated, holding elements, one element
 * size. */
static int stackable(int k, const collio_layout *const l[])
{
    for (int i = 0; i < k; i++)
        if (l[i]->owned != NULL || l[i]->nglobal < 1 || l[i]->esize != l[0]->esize)
            return 0;
    return 1;
}

int collio__layout_stack(MPI_Comm comm, int k, const collio_layout *const l[],
                         const int64_t shift[], collio_layout **out)
{
    *out = NULL;
    if (k < 1 || !stackable(k, l))
        return COLLIO_ERR_ARG;
    int64_t end;
    placed *order = malloc((size_t)k * sizeof *order);
    int64_t *pos = malloc((size_t)k * sizeof *pos);
    collio__holes *h = calloc(1, sizeof *h);
    int rc = order && pos && h ? COLLIO_OK : COLLIO_ERR_NOMEM;
    for (int i = 0; i < k && rc == COLLIO_OK; i++) {
        order[i] = (placed){shift[i], i};
        if (shift[i] < 0
            || collio__add_i64(shift[i], collio__layout_file_span(l[i]), &end))
            rc = COLLIO_ERR_OVERFLOW;
    }
    if (rc == COLLIO_OK) {
        qsort(order, (size_t)k, sizeof *order, by_at);
        for (int c = 1; c < k && rc == COLLIO_OK; c++)
            if (order[c].at
                < order[c - 1].at + collio__layout_file_span(l[order[c - 1].i]))
                rc = COLLIO_ERR_OVERLAP; /* two copies' spans meet */
    }
    if (rc == COLLIO_OK)
        rc = stack_runs(order, k, l, h, pos);
    collio_layout *s = NULL;
    if (rc == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_EXTENTS, h->held, l[0]->esize, &s);
    collio__segvec sv = {0};
    int64_t mem = 0; /* copy i's first element in the stream */
    for (int i = 0; i < k && rc == COLLIO_OK; i++) {
        for (int64_t g = 0; g < l[i]->nsegs && rc == COLLIO_OK; g++) {
            collio__seg seg = l[i]->segs[g];
            seg.off += pos[i];
            seg.mem += mem;
            rc = collio__segvec_push_seg(&sv, &seg);
        }
        mem += l[i]->nlocal;
    }
    if (rc == COLLIO_OK) {
        s->segs = sv.v;
        s->nsegs = sv.n;
        sv.v = NULL;
        h->esize = l[0]->esize;
        if (h->n > 1 || h->off[0] > 0) {
            s->holes = h; /* the layout frees it from here on */
            h = NULL;
        }
        rc = collio__layout_finish(s);
    }
    collio__segvec_free(&sv);
    collio__holes_free(&h);
    free(order);
    free(pos);
    if (rc != COLLIO_OK)
        collio_layout_free(&s);
    *out = s;
    return rc;
}
