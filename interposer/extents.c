/*
 * extents.c -- growable lists of byte extents (flatten.h): the flattener's
 * block lists and an access's file and memory extents.
 */
#include "flatten.h"

#include <stdlib.h>
#include <string.h>

/* (flatten.h) */
int cmio_extents_push(cmio_extents *e, int64_t d, int64_t l)
{
    int64_t end;
    if (l < 0 || ADD(d, l, &end))
        return MPI_ERR_ARG;
    if (l == 0)
        return MPI_SUCCESS;
    if (e->n > 0 && e->off[e->n - 1] + e->len[e->n - 1] == d)
        return ADD(e->len[e->n - 1], l, &e->len[e->n - 1]) ? MPI_ERR_ARG : MPI_SUCCESS;
    if (e->n == e->cap) {
        int64_t cap = e->cap ? 2 * e->cap : 16, *o, *n;
        if ((o = realloc(e->off, (size_t)cap * sizeof *o)))
            e->off = o;
        if (!o || !(n = realloc(e->len, (size_t)cap * sizeof *n)))
            return MPI_ERR_NO_MEM;
        e->len = n;
        e->cap = cap;
    }
    e->off[e->n] = d;
    e->len[e->n++] = l;
    return MPI_SUCCESS;
}

void cmio_extents_free(cmio_extents *e)
{
    free(e->off);
    free(e->len);
    memset(e, 0, sizeof *e);
}

/* (flatten.h) */
int cmio_extents_emit(cmio_extents *o, const cmio_extents *c, int64_t base, int64_t count,
                      int64_t stride)
{
    int64_t b, d, l;
    int rc;
    if (count < 0)
        return MPI_ERR_ARG;
    if (count == 0 || c->n == 0)
        return MPI_SUCCESS;
    if (c->n == 1 && c->len[0] == stride) { /* dense: one block */
        if (ADD(base, c->off[0], &d) || MUL(count, stride, &l))
            return MPI_ERR_ARG;
        return cmio_extents_push(o, d, l);
    }
    for (int64_t k = 0; k < count; k++) {
        if (MUL(k, stride, &b) || ADD(b, base, &b))
            return MPI_ERR_ARG;
        for (int64_t i = 0; i < c->n; i++)
            if ((rc = ADD(b, c->off[i], &d) ? MPI_ERR_ARG
                                            : cmio_extents_push(o, d, c->len[i])))
                return rc;
    }
    return MPI_SUCCESS;
}
