/*
 * layouts/darray.c -- N-d arrays distributed as MPI_Type_create_darray
 * describes: per dimension BLOCK (darg, default ceil(g/p), darg*p >= g),
 * CYCLIC(darg) (default 1) or NONE (psize 1), over a process grid that is
 * row-major in rank. The file holds the whole array in C order (last index
 * fastest) or Fortran order (first fastest); a rank's buffer holds its
 * local sub-array packed in the same order.
 *
 * Segment generation, compact on purpose:
 *   1. Renumber dimensions fastest-first. Per dimension the owned indices
 *      are a 1-D block-cyclic set: 1-2 strided runs (BLOCK = one block of
 *      darg, CYCLIC(k) = blocks of k at stride p*k, NONE = everything).
 *   2. Fuse the leading fully-owned dimensions into the first one that is
 *      not: its runs, scaled by the product of the fused sizes, describe
 *      whole contiguous slabs.
 *   3. Walk the owned indices of the remaining outer dimensions in order
 *      (odometer, fastest first) and push the fused dimension's runs at each
 *      outer offset; collio__segvec_push_seg merges what repeats at a
 *      constant stride.
 * So STEM-II's SL(61,61,15,56,3), Fortran, BLOCK over dim 1, is one strided
 * segment per rank, and a cyclic(1) fastest dimension is one strided
 * segment per outer index.
 */
#include "base/base.h"
#include "layouts/layouts.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Owned indices of one dimension: up to 2 runs, in 1-D element units with
 * mem = position in the local row. */
typedef struct dim_set {
    collio__seg run[2];
    int nrun;
    int64_t nown;    /* owned indices */
    int64_t gstride; /* file elements between consecutive indices */
} dim_set;

/* Block size and 1-D block-cyclic parameters of dimension d. */
static void dim_params(collio_distrib dist, int64_t g, int64_t darg, int p, int64_t *bx)
{
    if (dist == COLLIO_DIST_NONE)
        *bx = g;
    else if (dist == COLLIO_DIST_BLOCK)
        *bx = darg > 0 ? darg : g / p + (g % p != 0);
    else
        *bx = darg > 0 ? darg : 1;
}

static int dim_build(dim_set *ds, collio_distrib dist, int64_t g, int64_t darg, int p,
                     int coord)
{
    int64_t bx;
    dim_params(dist, g, darg, p, &bx);
    collio__segvec sv = {0};
    int rc = collio__block_cyclic_segs(g, bx, dist == COLLIO_DIST_NONE ? 1 : p,
                                       dist == COLLIO_DIST_NONE ? 0 : coord, &sv);
    if (rc == COLLIO_OK && sv.n > 2)
        rc = COLLIO_ERR_ARG; /* cannot happen: block-cyclic gives <= 2 */
    ds->nrun = rc == COLLIO_OK ? (int)sv.n : 0;
    for (int i = 0; i < ds->nrun; i++)
        ds->run[i] = sv.v[i];
    ds->nown = collio__segs_elements(ds->run, ds->nrun);
    collio__segvec_free(&sv);
    return rc;
}

/* Odometer over one dimension's owned indices: run r, block k, element t. */
typedef struct dim_it {
    int r;
    int64_t k, t;
} dim_it;

static int64_t it_index(const dim_set *ds, const dim_it *it)
{
    const collio__seg *s = &ds->run[it->r];
    return s->off + it->k * s->stride + it->t;
}

/* Advance; returns 1 when it wrapped around to the first index. */
static int it_next(const dim_set *ds, dim_it *it)
{
    const collio__seg *s = &ds->run[it->r];
    if (++it->t < s->len)
        return 0;
    it->t = 0;
    if (++it->k < s->count)
        return 0;
    it->k = 0;
    if (++it->r < ds->nrun)
        return 0;
    it->r = 0;
    return 1;
}

int collio__darray_segs(int ndims, const int64_t gsizes[],
                        const collio_distrib distribs[], const int64_t dargs[],
                        const int psizes[], collio_order order, int rank,
                        collio__segvec *out)
{
    dim_set ds[COLLIO_MAX_DIMS];
    int coord[COLLIO_MAX_DIMS];
    if (ndims < 1 || ndims > COLLIO_MAX_DIMS)
        return COLLIO_ERR_ARG; /* also tells the compiler ds[0] gets set */
    /* grid coordinates: row-major in rank (last grid dim fastest) */
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
        coord[d] = r % psizes[d];
        r /= psizes[d];
    }
    /* f = fastest-first position; d = user dimension */
    int64_t gstride = 1;
    for (int f = 0; f < ndims; f++) {
        int d = order == COLLIO_ORDER_C ? ndims - 1 - f : f;
        int rc = dim_build(&ds[f], distribs[d], gsizes[d], dargs ? dargs[d] : 0,
                           psizes[d], coord[d]);
        if (rc)
            return rc;
        if (ds[f].nown == 0)
            return COLLIO_OK; /* this rank holds nothing */
        ds[f].gstride = gstride;
        gstride *= gsizes[d]; /* product fits: checked by the constructor */
    }
    /* fuse leading fully owned dims into the first partial one (or all) */
    int m = 0;
    int64_t scale = 1;
    while (m < ndims - 1 && ds[m].nown == ds[m + 1].gstride / ds[m].gstride) {
        scale = ds[m + 1].gstride;
        m++;
    }
    dim_set inner = ds[m];
    for (int i = 0; i < inner.nrun; i++) {
        collio__seg *s = &inner.run[i];
        s->off *= scale;
        s->len *= scale;
        s->stride *= scale;
        s->mem *= scale;
    }
    int64_t row = inner.nown * scale; /* stream elements per outer index */

    /* odometer over the outer dims m+1 .. ndims-1 (m+1 fastest) */
    dim_it it[COLLIO_MAX_DIMS];
    memset(it, 0, sizeof it);
    int64_t mem = 0;
    for (;;) {
        int64_t base = 0;
        for (int f = m + 1; f < ndims; f++)
            base += it_index(&ds[f], &it[f]) * ds[f].gstride;
        for (int i = 0; i < inner.nrun; i++) {
            collio__seg s = inner.run[i];
            s.off += base;
            s.mem += mem;
            int rc = collio__segvec_push_seg(out, &s);
            if (rc)
                return rc;
        }
        mem += row;
        int f = m + 1;
        while (f < ndims && it_next(&ds[f], &it[f]))
            f++;
        if (f >= ndims)
            break;
    }
    return COLLIO_OK;
}

/* Records an argument error of collio_layout_darray; returns ARG. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    collio__error_set(COLLIO_ERR_ARG, "collio_layout_darray: %s", msg);
    return COLLIO_ERR_ARG;
}

/* Local argument checks; fills nglobal. */
static int check_args(int ndims, const int64_t gsizes[], const collio_distrib distribs[],
                      const int64_t dargs[], const int psizes[], collio_order order,
                      size_t esize, int nranks, int64_t *nglobal)
{
    if (ndims < 1 || ndims > COLLIO_MAX_DIMS)
        return bad("ndims = %d is outside [1, %d]", ndims, COLLIO_MAX_DIMS);
    if (!gsizes || !distribs || !psizes)
        return bad("%s is NULL", !gsizes ? "gsizes" : !distribs ? "distribs" : "psizes");
    if (esize < 1)
        return bad("esize is 0");
    if (order != COLLIO_ORDER_C && order != COLLIO_ORDER_FORTRAN)
        return bad("order = %d is neither COLLIO_ORDER_C nor COLLIO_ORDER_FORTRAN",
                   (int)order);
    int64_t n = 1, grid = 1, bytes;
    int rc = COLLIO_OK;
    for (int d = 0; d < ndims; d++) {
        int64_t g = gsizes[d], darg = dargs ? dargs[d] : 0;
        int p = psizes[d];
        if (g < 1 || p < 1 || darg < 0)
            return bad("dimension %d: gsizes = %lld, psizes = %d, dargs = %lld (sizes "
                       "must be >= 1, darg >= 0)",
                       d, (long long)g, p, (long long)darg);
        switch (distribs[d]) {
        case COLLIO_DIST_NONE:
            if (p != 1)
                return bad("dimension %d is not distributed (NONE) but psizes = %d", d,
                           p);
            break;
        case COLLIO_DIST_BLOCK:
            /* darg * p >= g, i.e. darg >= ceil(g / p) */
            if (darg != 0 && darg < g / p + (g % p != 0))
                return bad("dimension %d: BLOCK(%lld) over %d ranks leaves elements of "
                           "%lld unheld (darg must be >= %lld)",
                           d, (long long)darg, p, (long long)g,
                           (long long)(g / p + (g % p != 0)));
            break;
        case COLLIO_DIST_CYCLIC:
            break;
        default:
            return bad("dimension %d: distribs = %d is not a collio_distrib", d,
                       (int)distribs[d]);
        }
        if (collio__mul_i64(grid, p, &grid))
            return bad("the process grid overflows");
        if (collio__mul_i64(n, g, &n))
            rc = COLLIO_ERR_OVERFLOW;
    }
    if (grid != nranks)
        return bad("the process grid has %lld ranks, the communicator %d",
                   (long long)grid, nranks);
    if (rc == COLLIO_OK
        && (esize > INT64_MAX || collio__mul_i64(n, (int64_t)esize, &bytes)))
        rc = COLLIO_ERR_OVERFLOW;
    if (rc != COLLIO_OK)
        collio__error_set(rc, "collio_layout_darray: the array's bytes overflow 64 bits");
    *nglobal = n;
    return rc;
}

/* Hash of every collective argument (reads only what this rank passed). */
static uint64_t args_hash(int ndims, const int64_t gsizes[],
                          const collio_distrib distribs[], const int64_t dargs[],
                          const int psizes[], collio_order order, size_t esize)
{
    uint64_t h = collio__hash_mix(0x64617272, (uint64_t)ndims);
    h = collio__hash_mix(h, (uint64_t)order);
    h = collio__hash_mix(h, (uint64_t)esize);
    if (ndims < 1 || ndims > COLLIO_MAX_DIMS || !gsizes || !distribs || !psizes)
        return h;
    for (int d = 0; d < ndims; d++) {
        h = collio__hash_mix(h, (uint64_t)gsizes[d]);
        h = collio__hash_mix(h, (uint64_t)distribs[d]);
        h = collio__hash_mix(h, (uint64_t)(dargs ? dargs[d] : 0));
        h = collio__hash_mix(h, (uint64_t)psizes[d]);
    }
    return h;
}

int collio_layout_darray(MPI_Comm comm, int ndims, const int64_t gsizes[],
                         const collio_distrib distribs[], const int64_t dargs[],
                         const int psizes[], collio_order order, size_t esize,
                         collio_layout **out)
{
    int rc = collio__layout_begin(comm, out, "collio_layout_darray");
    if (rc != COLLIO_OK)
        return rc;
    int nranks;
    int64_t nglobal = 0;
    collio_layout *l = NULL;
    MPI_Comm_size(comm, &nranks);
    if (out == NULL)
        rc = collio__layout_no_out("collio_layout_darray");
    if (rc == COLLIO_OK)
        rc = check_args(ndims, gsizes, distribs, dargs, psizes, order, esize, nranks,
                        &nglobal);
    /* After the local checks: a difference wins over them, and its agreed
     * text must not be overwritten by one rank's local detail. */
    int mism = collio__check_same_digest(
        comm, args_hash(ndims, gsizes, distribs, dargs, psizes, order, esize),
        "the arguments (ndims, gsizes, distribs, dargs, psizes, order, esize)");
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_DARRAY, nglobal, esize, &l);
    collio__segvec sv = {0};
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__darray_segs(ndims, gsizes, distribs, dargs, psizes, order, l->rank,
                                 &sv);
    rc = collio__layout_conclude(comm, &l, &sv, rc, mism);
    if (out != NULL)
        *out = l;
    return rc;
}
