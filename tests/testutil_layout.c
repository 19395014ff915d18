/*
 * testutil_layout.c -- test layouts described independently of the library
 * (block-cyclic, darray, index lists), the per-rank enumeration of the global
 * indices each rank holds, written from the definitions (block b is owned by
 * b mod P; MPI_Type_create_darray's per-dimension owner formulas; the given
 * list), and buffer fill / compare against bench/pattern.h. Only
 * tu_desc_make calls the library (to build the layout under test); the
 * darray enumeration is cross-checked against MPI's own darray type.
 *
 * Bounds are half-open, [start, end).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------- layout descriptions */

uint64_t tu_rand(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tu_desc_block_cyclic(tu_layout_desc *d, int64_t nx, int64_t bx, size_t esize)
{
    memset(d, 0, sizeof *d);
    d->kind = TU_BLOCK_CYCLIC;
    d->nx = nx;
    d->bx = bx;
    d->esize = esize;
    d->nglobal = nx;
    snprintf(d->name, sizeof d->name, "block_cyclic(nx=%lld,bx=%lld,esize=%zu)",
             (long long)nx, (long long)bx, esize);
}

static const char *tu_dist_name(collio_distrib x)
{
    return x == COLLIO_DIST_NONE ? "N" : x == COLLIO_DIST_BLOCK ? "B" : "C";
}

void tu_desc_darray(tu_layout_desc *d, int nranks, int ndims, const int64_t gsizes[],
                    const collio_distrib distribs[], const int64_t dargs[],
                    const int psizes[], collio_order order, size_t esize)
{
    memset(d, 0, sizeof *d);
    d->kind = TU_DARRAY;
    d->ndims = ndims;
    d->order = order;
    d->esize = esize;
    d->nglobal = 1;
    int dims[COLLIO_MAX_DIMS] = {0};
    for (int k = 0; k < ndims; k++) {
        d->gsizes[k] = gsizes[k];
        d->distribs[k] = distribs[k];
        d->dargs[k] = dargs ? dargs[k] : COLLIO_DARG_DEFAULT;
        d->nglobal *= gsizes[k];
        dims[k] = distribs[k] == COLLIO_DIST_NONE ? 1 : 0;
    }
    if (psizes) {
        for (int k = 0; k < ndims; k++)
            d->psizes[k] = psizes[k];
    } else {
        MPI_Dims_create(nranks, ndims, dims);
        for (int k = 0; k < ndims; k++)
            d->psizes[k] = dims[k];
    }
    int len = snprintf(d->name, sizeof d->name, "darray(%s,",
                       order == COLLIO_ORDER_C ? "C" : "F");
    for (int k = 0; k < ndims && len < (int)sizeof d->name; k++)
        len +=
            snprintf(d->name + len, sizeof d->name - (size_t)len, "%s%lld:%s%lld/p%d",
                     k ? "x" : "", (long long)d->gsizes[k], tu_dist_name(d->distribs[k]),
                     (long long)d->dargs[k], d->psizes[k]);
    if (len < (int)sizeof d->name)
        snprintf(d->name + len, sizeof d->name - (size_t)len, ",esize=%zu)", esize);
}

/* Skewed piece sizes for index lists: every third rank (1, 4, 7, ...)
 * empty when P > 1, the others weighted unevenly; sum = nglobal. */
static void tu_skewed_sizes(int nranks, int64_t nglobal, int64_t *sizes)
{
    int64_t w[1024], total = 0, given = 0;
    int last = 0;
    for (int r = 0; r < nranks; r++) {
        w[r] = (nranks > 1 && r % 3 == 1) ? 0 : 1 + (r * 5) % 7;
        total += w[r];
        if (w[r])
            last = r;
    }
    for (int r = 0; r < nranks; r++) {
        sizes[r] = nglobal * w[r] / total;
        given += sizes[r];
    }
    sizes[last] += nglobal - given;
}

void tu_desc_index_list(tu_layout_desc *d, int rank, int nranks, int64_t nglobal,
                        tu_il_kind how, uint64_t seed, size_t esize)
{
    static const char *names[] = {"shuffled", "scatter", "reversed"};
    memset(d, 0, sizeof *d);
    d->kind = TU_INDEX_LIST;
    d->nglobal = nglobal;
    d->esize = esize;
    snprintf(d->name, sizeof d->name, "index_list(%s,n=%lld,seed=%llu,esize=%zu)",
             names[how], (long long)nglobal, (unsigned long long)seed, esize);
    int64_t *sizes = calloc((size_t)nranks, sizeof *sizes);
    int64_t *all = malloc(((size_t)nglobal + 1) * sizeof *all);
    uint64_t st = seed;
    tu_skewed_sizes(nranks, nglobal, sizes);
    int64_t start = 0;
    for (int r = 0; r < rank; r++)
        start += sizes[r];
    d->idx = malloc(((size_t)nglobal + 1) * sizeof *d->idx);
    d->nlocal = 0;
    if (how == TU_IL_SHUFFLED) {
        for (int64_t i = 0; i < nglobal; i++)
            all[i] = i;
        for (int64_t i = nglobal - 1; i > 0; i--) { /* Fisher-Yates */
            int64_t j = (int64_t)(tu_rand(&st) % (uint64_t)(i + 1));
            int64_t x = all[i];
            all[i] = all[j];
            all[j] = x;
        }
        for (int64_t k = 0; k < sizes[rank]; k++)
            d->idx[d->nlocal++] = all[start + k];
    } else if (how == TU_IL_SCATTER) {
        for (int64_t i = 0; i < nglobal; i++) {
            int owner = (int)(tu_rand(&st) % (uint64_t)nranks);
            if (nranks > 1 && owner % 3 == 1)
                owner = 0;
            if (owner == rank)
                d->idx[d->nlocal++] = i;
        }
    } else {
        for (int64_t k = sizes[rank] - 1; k >= 0; k--)
            d->idx[d->nlocal++] = start + k;
    }
    free(all);
    free(sizes);
}

void tu_desc_free(tu_layout_desc *d)
{
    free(d->idx);
    d->idx = NULL;
}

int tu_desc_make(const tu_layout_desc *d, MPI_Comm comm, collio_layout **out)
{
    switch (d->kind) {
    case TU_BLOCK_CYCLIC:
        return collio_layout_block_cyclic(comm, d->nx, d->bx, d->esize, out);
    case TU_DARRAY:
        return collio_layout_darray(comm, d->ndims, d->gsizes, d->distribs, d->dargs,
                                    d->psizes, d->order, d->esize, out);
    case TU_INDEX_LIST:
        return collio_layout_index_list(comm, d->nglobal, d->nlocal,
                                        d->nlocal ? d->idx : NULL, d->esize, out);
    }
    return -1;
}

/* ------------------------------------------------------------ enumeration */

/* The indices of dimension k this grid coordinate holds, increasing. */
static int64_t tu_dim_local(const tu_layout_desc *d, int k, int coord, int64_t *out)
{
    int64_t g = d->gsizes[k], p = d->psizes[k], n = 0;
    switch (d->distribs[k]) {
    case COLLIO_DIST_NONE:
        for (int64_t i = 0; i < g; i++)
            out[n++] = i;
        break;
    case COLLIO_DIST_BLOCK: {
        int64_t b = d->dargs[k] > 0 ? d->dargs[k] : (g + p - 1) / p;
        for (int64_t i = 0; i < g; i++)
            if (i / b == coord)
                out[n++] = i;
        break;
    }
    case COLLIO_DIST_CYCLIC: {
        int64_t c = d->dargs[k] > 0 ? d->dargs[k] : 1;
        for (int64_t i = 0; i < g; i++)
            if ((i / c) % p == coord)
                out[n++] = i;
        break;
    }
    }
    return n;
}

static int tu_enum_darray(const tu_layout_desc *d, int rank, int64_t **idx, int64_t *n)
{
    int nd = d->ndims, coord[COLLIO_MAX_DIMS];
    int64_t *loc[COLLIO_MAX_DIMS], nloc[COLLIO_MAX_DIMS], stride[COLLIO_MAX_DIMS];
    int r = rank;
    for (int k = nd - 1; k >= 0; k--) { /* grid row-major in rank */
        coord[k] = r % d->psizes[k];
        r /= d->psizes[k];
    }
    int64_t total = 1;
    for (int k = 0; k < nd; k++) {
        loc[k] = malloc(((size_t)d->gsizes[k] + 1) * sizeof(int64_t));
        nloc[k] = tu_dim_local(d, k, coord[k], loc[k]);
        total *= nloc[k];
    }
    /* Element strides of the global array in its order. */
    for (int k = 0; k < nd; k++) {
        stride[k] = 1;
        if (d->order == COLLIO_ORDER_C)
            for (int j = k + 1; j < nd; j++)
                stride[k] *= d->gsizes[j];
        else
            for (int j = 0; j < k; j++)
                stride[k] *= d->gsizes[j];
    }
    int64_t *out = malloc(((size_t)total + 1) * sizeof *out);
    int64_t pos[COLLIO_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t g = 0;
        for (int k = 0; k < nd; k++)
            g += loc[k][pos[k]] * stride[k];
        out[e] = g;
        /* odometer: the fastest dimension of the order first */
        for (int s = 0; s < nd; s++) {
            int k = d->order == COLLIO_ORDER_C ? nd - 1 - s : s;
            if (++pos[k] < nloc[k])
                break;
            pos[k] = 0;
        }
    }
    for (int k = 0; k < nd; k++)
        free(loc[k]);
    *idx = out;
    *n = total;
    return 0;
}

int tu_enumerate(const tu_layout_desc *d, int rank, int nranks, int64_t **idx, int64_t *n)
{
    if (d->kind == TU_BLOCK_CYCLIC) {
        int64_t cnt = 0, nblocks = (d->nx + d->bx - 1) / d->bx;
        for (int64_t b = rank; b < nblocks; b += nranks)
            cnt += (b + 1) * d->bx < d->nx ? d->bx : d->nx - b * d->bx;
        int64_t *out = malloc(((size_t)cnt + 1) * sizeof *out), k = 0;
        for (int64_t b = rank; b < nblocks; b += nranks)
            for (int64_t i = b * d->bx; i < (b + 1) * d->bx && i < d->nx; i++)
                out[k++] = i;
        *idx = out;
        *n = cnt;
        return 0;
    }
    if (d->kind == TU_DARRAY)
        return tu_enum_darray(d, rank, idx, n);
    int64_t *out = malloc(((size_t)d->nlocal + 1) * sizeof *out);
    if (d->nlocal)
        memcpy(out, d->idx, (size_t)d->nlocal * sizeof *out);
    *idx = out;
    *n = d->nlocal;
    return 0;
}

/* The local index list MPI's own darray type gives: pack a global array
 * whose element i holds i through the type; the packed stream lists the
 * rank's global indices in its local (type map) order. */
static int64_t tu_mpi_darray_indices(const tu_layout_desc *d, int rank, int nranks,
                                     int64_t **idx)
{
    int gs[COLLIO_MAX_DIMS], ds[COLLIO_MAX_DIMS], da[COLLIO_MAX_DIMS],
        ps[COLLIO_MAX_DIMS];
    for (int k = 0; k < d->ndims; k++) {
        gs[k] = (int)d->gsizes[k];
        ps[k] = d->psizes[k];
        ds[k] = d->distribs[k] == COLLIO_DIST_NONE    ? MPI_DISTRIBUTE_NONE
                : d->distribs[k] == COLLIO_DIST_BLOCK ? MPI_DISTRIBUTE_BLOCK
                                                      : MPI_DISTRIBUTE_CYCLIC;
        da[k] = d->dargs[k] > 0 ? (int)d->dargs[k] : MPI_DISTRIBUTE_DFLT_DARG;
    }
    MPI_Datatype t;
    MPI_Type_create_darray(nranks, rank, d->ndims, gs, ds, da, ps,
                           d->order == COLLIO_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                           MPI_INT64_T, &t);
    MPI_Type_commit(&t);
    int size = 0;
    MPI_Type_size(t, &size);
    int64_t n = size / 8;
    int64_t *glob = malloc(((size_t)d->nglobal + 1) * sizeof *glob);
    for (int64_t i = 0; i < d->nglobal; i++)
        glob[i] = i;
    int64_t *out = malloc(((size_t)n + 1) * sizeof *out);
    int pos = 0;
    MPI_Pack(glob, 1, t, out, (int)(n * 8), &pos, MPI_COMM_SELF);
    MPI_Type_free(&t);
    free(glob);
    *idx = out;
    return n;
}

void tu_check_enumeration(tu_ctx *t, const tu_layout_desc *d)
{
    int64_t *idx = NULL, n = 0, bad = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    int *cnt = calloc((size_t)d->nglobal + 1, sizeof *cnt);
    int *sum = calloc((size_t)d->nglobal + 1, sizeof *sum);
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= d->nglobal)
            bad++;
        else
            cnt[idx[k]]++;
    }
    MPI_Allreduce(cnt, sum, (int)d->nglobal, MPI_INT, MPI_SUM, t->comm);
    for (int64_t i = 0; i < d->nglobal; i++)
        bad += sum[i] != 1;
    TU_CHECK(t, bad == 0, "reference enumeration of %s is not a partition (%lld bad)",
             d->name, (long long)bad);
    if (d->kind == TU_DARRAY) {
        int64_t *m = NULL;
        int64_t nm = tu_mpi_darray_indices(d, t->rank, t->nranks, &m), diff = nm != n;
        for (int64_t k = 0; !diff && k < n; k++)
            diff += m[k] != idx[k];
        TU_CHECK(t, diff == 0,
                 "reference enumeration of %s differs from "
                 "MPI_Type_create_darray (%lld vs %lld elements)",
                 d->name, (long long)n, (long long)nm);
        free(m);
    }
    free(cnt);
    free(sum);
    free(idx);
}

void tu_fill(unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
             uint64_t seed)
{
    for (int64_t k = 0; k < n; k++)
        collio_pattern_element((uint64_t)idx[k], seed, esize, buf + (size_t)k * esize);
}

int64_t tu_compare(const unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
                   uint64_t seed, int64_t *first)
{
    unsigned char want[4096];
    int64_t bad = 0;
    *first = -1;
    for (int64_t k = 0; k < n; k++) {
        collio_pattern_element((uint64_t)idx[k], seed, esize, want);
        if (memcmp(buf + (size_t)k * esize, want, esize) != 0) {
            for (size_t j = 0; j < esize; j++)
                bad += buf[(size_t)k * esize + j] != want[j];
            if (*first < 0)
                *first = k;
        }
    }
    return bad;
}
