/*
 * e3sm_map.c -- reading an E3SM-IO decomposition map (e3sm_map.h) with
 * HDF5's C API.
 */
#include "e3sm_map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

#ifndef COLLIO_BENCH_HDF5
int e3sm_map_read(const char *path, int decomp, int rank, int P, int64_t *nx, int64_t *n,
                  int64_t **off, int64_t **len, char *why, size_t why_len)
{
    (void)decomp, (void)rank, (void)P, (void)nx, (void)n, (void)off, (void)len;
    return fail(why, why_len, "%s: this build has no HDF5 to read a map with", path);
}
#else
#include <hdf5.h>

/* The length of 1-D dataset name, or -1 where there is none. */
static int64_t length(hid_t f, const char *name)
{
    if (H5Lexists(f, name, H5P_DEFAULT) <= 0)
        return -1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t k = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return (int64_t)k;
}

/* Elements [start, start + count) of 1-D dataset name into out (as int64);
 * 0, or -1. */
static int slab(hid_t f, const char *name, int64_t start, int64_t count, int64_t *out)
{
    if (count == 0)
        return 0;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t st = (hsize_t)start, ct = (hsize_t)count;
    hid_t m = H5Screate_simple(1, &ct, NULL);
    herr_t e = s >= 0 && m >= 0
                   ? H5Sselect_hyperslab(s, H5S_SELECT_SET, &st, NULL, &ct, NULL)
                   : -1;
    if (e >= 0)
        e = H5Dread(d, H5T_NATIVE_INT64, m, s, H5P_DEFAULT, out);
    if (m >= 0)
        H5Sclose(m);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return e >= 0 ? 0 : -1;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int by_offset(const void *a, const void *b)
{
    return by_value(a, b); /* (pairs: the offset first) */
}

/* The map's processes of rank r of P (E3SM-IO's deal): [*first, +*count). */
static void share(int64_t nprocs, int r, int P, int64_t *first, int64_t *count)
{
    *count = nprocs / P;
    *first = (int64_t)r * *count;
    if (r < nprocs % P) {
        *first += r;
        (*count)++;
    } else {
        *first += nprocs % P;
    }
}

/* Runs of pairs (offset, length), sorted by offset, coalesced into off /
 * len; -1 where two overlap. */
static int coalesce(int64_t *pairs, int64_t k, int64_t nx, int64_t *n, int64_t *off,
                    int64_t *len)
{
    qsort(pairs, (size_t)k, 2 * sizeof *pairs, by_offset);
    int64_t m = 0;
    for (int64_t i = 0; i < k; i++) {
        int64_t o = pairs[2 * i], l = pairs[2 * i + 1];
        if (o < 0 || l < 0 || o + l > nx)
            return -1;
        if (l == 0)
            continue;
        if (m > 0 && off[m - 1] + len[m - 1] > o)
            return -1; /* held twice */
        if (m > 0 && off[m - 1] + len[m - 1] == o)
            len[m - 1] += l;
        else
            off[m] = o, len[m++] = l;
    }
    *n = m;
    return 0;
}

int e3sm_map_read(const char *path, int decomp, int rank, int P, int64_t *nx, int64_t *n,
                  int64_t **off, int64_t **len, char *why, size_t why_len)
{
    *off = *len = NULL;
    *n = *nx = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* (the reasons are ours) */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return fail(why, why_len, "%s: not an HDF5 file that can be opened", path);
    char name[64];
    int rc = 0;
    /* the global array: the product of D.dims */
    snprintf(name, sizeof name, "D%d.dims", decomp);
    int64_t dims[8], nd = 0, size = 1;
    hid_t a = H5Aexists(f, name) > 0 ? H5Aopen(f, name, H5P_DEFAULT) : -1;
    hid_t as = a >= 0 ? H5Aget_space(a) : -1;
    nd = as >= 0 ? (int64_t)H5Sget_simple_extent_npoints(as) : -1;
    if (nd < 1 || nd > 8 || H5Aread(a, H5T_NATIVE_INT64, dims) < 0)
        rc = fail(why, why_len, "%s: no attribute %s of 1 to 8 integers", path, name);
    for (int64_t i = 0; rc == 0 && i < nd; i++) {
        if (dims[i] < 1 || size > INT64_MAX / dims[i])
            rc = fail(why, why_len, "%s: %s: a dimension of %lld", path, name,
                      (long long)dims[i]);
        else
            size *= dims[i];
    }
    if (as >= 0)
        H5Sclose(as);
    if (a >= 0)
        H5Aclose(a);
    /* the raw form (offsets 1-based, 0 skipped), else runs */
    char nreqs[64], offs[64], lens[64];
    snprintf(nreqs, sizeof nreqs, "D%d.raw_nreqs", decomp);
    snprintf(offs, sizeof offs, "D%d.raw_offsets", decomp);
    lens[0] = '\0';
    if (rc == 0 && length(f, nreqs) < 0) {
        snprintf(nreqs, sizeof nreqs, "D%d.nreqs", decomp);
        snprintf(offs, sizeof offs, "D%d.offsets", decomp);
        snprintf(lens, sizeof lens, "D%d.lengths", decomp);
    }
    int64_t nprocs = rc == 0 ? length(f, nreqs) : -1, total = length(f, offs);
    if (rc == 0 && (nprocs < 1 || total < 0 || (lens[0] && length(f, lens) != total)))
        rc = fail(why, why_len, "%s: no datasets %s and %s%s%s of decomposition %d", path,
                  nreqs, offs, lens[0] ? " and " : "", lens, decomp);
    int64_t *counts = rc == 0 ? malloc((size_t)nprocs * sizeof *counts) : NULL;
    if (rc == 0 && (counts == NULL || slab(f, nreqs, 0, nprocs, counts) < 0))
        rc = fail(why, why_len, "%s: %s cannot be read", path, nreqs);
    int64_t first = 0, mine = 0, from = 0, k = 0;
    if (rc == 0) {
        share(nprocs, rank, P, &first, &mine);
        for (int64_t p = 0; p < first + mine; p++) {
            if (counts[p] < 0)
                rc = fail(why, why_len, "%s: %s: a count of %lld", path, nreqs,
                          (long long)counts[p]);
            if (p < first)
                from += counts[p];
            else
                k += counts[p];
        }
        if (rc == 0 && from + k > total)
            rc =
                fail(why, why_len, "%s: %s counts more than %s holds", path, nreqs, offs);
    }
    free(counts);
    int64_t *v = rc == 0 ? malloc((size_t)(k > 0 ? k : 1) * sizeof *v) : NULL;
    int64_t *w = rc == 0 && lens[0] ? malloc((size_t)(k > 0 ? k : 1) * sizeof *w) : NULL;
    int64_t *pairs = rc == 0 ? malloc((size_t)(k > 0 ? k : 1) * 2 * sizeof *pairs) : NULL;
    if (rc == 0 && (v == NULL || pairs == NULL || (lens[0] && w == NULL)))
        rc = fail(why, why_len, "no memory for %lld offsets", (long long)k);
    if (rc == 0
        && (slab(f, offs, from, k, v) < 0 || (lens[0] && slab(f, lens, from, k, w) < 0)))
        rc = fail(why, why_len, "%s: %s cannot be read", path, offs);
    int64_t np = 0;
    for (int64_t i = 0; rc == 0 && i < k; i++) {
        if (!lens[0] && v[i] == 0)
            continue; /* (the raw form's "no element") */
        pairs[2 * np] = lens[0] ? v[i] : v[i] - 1;
        pairs[2 * np++ + 1] = lens[0] ? w[i] : 1;
    }
    *off = rc == 0 ? malloc((size_t)(np > 0 ? np : 1) * sizeof **off) : NULL;
    *len = rc == 0 ? malloc((size_t)(np > 0 ? np : 1) * sizeof **len) : NULL;
    if (rc == 0 && (*off == NULL || *len == NULL))
        rc = fail(why, why_len, "no memory for %lld runs", (long long)np);
    if (rc == 0 && coalesce(pairs, np, size, n, *off, *len) < 0)
        rc = fail(why, why_len,
                  "%s: decomposition %d: an element outside the %lld of the array, or "
                  "held twice by rank %d",
                  path, decomp, (long long)size, rank);
    free(v), free(w), free(pairs);
    H5Fclose(f);
    if (rc != 0) {
        free(*off), free(*len);
        *off = *len = NULL;
        *n = 0;
        return -1;
    }
    *nx = size;
    return 0;
}
#endif
