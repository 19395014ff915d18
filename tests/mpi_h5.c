/*
 * mpi_h5.c -- collio_describe_h5: HDF5 descriptions of raw files collio
 * wrote, read back through the HDF5 library itself (not through collio).
 *
 * Cases, each written by multiphase at the running P and described:
 *  - a vector (block-cyclic, bx = 7), float32;
 *  - a 3-d array in Fortran order (darray BLOCK over the last dimension),
 *    float64: the dataset's shape must be the reverse of the dims;
 *  - a mesh-like field, `load` float64 values per node from an index list
 *    (element = a node's values), shape {nodes, load};
 *  - the vector again behind a header (base_offset > 0).
 * For each, rank 0 opens the .h5 with HDF5, checks the type and shape, and
 * H5Dread's values equal testutil's pattern of the file (the independent
 * expectation). Errors: a bad type, dims larger than the raw file, and a
 * dataset name that differs on one rank give COLLIO_ERR_ARG, _EOF and
 * _MISMATCH on every rank, and leave an earlier description intact.
 * Without HDF5 the call is COLLIO_ERR_UNSUPPORTED on every rank.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef COLLIO_TEST_HDF5
#include <hdf5.h>
#endif

/* Writes d with multiphase into path (header bytes of zeros before the
 * data when base > 0 is asked: the file's base_offset). 1 on success. */
static int write_case(tu_ctx *t, const tu_layout_desc *d, const char *path, int64_t base,
                      uint64_t seed)
{
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    int rc = tu_desc_make(d, t->comm, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, "multiphase", NULL, &p);
    int ok = TU_RC_ALL(t, rc, COLLIO_OK, "layout and plan");
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    unsigned char *buf = malloc((size_t)n * d->esize + 1);
    tu_fill(buf, idx, n, d->esize, seed);
    if (ok) {
        collio_file_options fo;
        collio_file_options_init(&fo);
        fo.base_offset = base;
        ok = tu_plan_io(t, p, path, &fo, 1, buf, (size_t)n * d->esize);
    }
    free(buf);
    free(idx);
    collio_plan_free(&p);
    collio_layout_free(&l);
    return ok;
}

#ifdef COLLIO_TEST_HDF5
/* Rank 0: the dataset's type size and class, shape and values. */
static void check_h5(tu_ctx *t, const char *h5, const char *dataset, hid_t want_class,
                     size_t esize_h5, int ndims, const hsize_t *shape, int64_t nglobal,
                     size_t esize, uint64_t seed)
{
    if (t->rank != 0)
        return;
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, dataset, H5P_DEFAULT) : -1;
    TU_CHECK(t, d >= 0, "HDF5 opens %s:%s", h5, dataset);
    if (d < 0) {
        if (f >= 0)
            H5Fclose(f);
        return;
    }
    hid_t ty = H5Dget_type(d), sp = H5Dget_space(d);
    TU_CHECK(t, H5Tget_class(ty) == want_class && H5Tget_size(ty) == esize_h5,
             "type class %d size %zu", (int)H5Tget_class(ty), H5Tget_size(ty));
    hsize_t got[32] = {0};
    int nd = H5Sget_simple_extent_dims(sp, got, NULL);
    int same = nd == ndims;
    for (int i = 0; i < ndims && same; i++)
        same = got[i] == shape[i];
    TU_CHECK(t, same, "shape: %d dims, first %llu", nd, (unsigned long long)got[0]);
    size_t bytes = (size_t)nglobal * esize;
    unsigned char *v = malloc(bytes + 1), *want = malloc(bytes + 1);
    herr_t r = H5Dread(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    TU_CHECK(t, r >= 0, "H5Dread");
    int64_t *all = malloc((size_t)nglobal * sizeof *all);
    for (int64_t i = 0; i < nglobal; i++)
        all[i] = i;
    tu_fill(want, all, nglobal, esize, seed);
    TU_CHECK(t, r >= 0 && memcmp(v, want, bytes) == 0,
             "HDF5's values equal the file's expectation");
    free(all);
    free(v);
    free(want);
    H5Sclose(sp);
    H5Tclose(ty);
    H5Dclose(d);
    H5Fclose(f);
}
#endif

static void test_cases(tu_ctx *t)
{
    char raw[600], h5[640];
    /* a vector, float32, and behind a 100-byte header */
    for (int hdr = 0; hdr < 2; hdr++) {
        tu_case(t, "vector float32%s", hdr ? " after a header" : "");
        if (!tu_case_enabled(t))
            continue;
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, 1003, 7, 4);
        tu_temp_path(t, "h5vec", raw, sizeof raw);
        snprintf(h5, sizeof h5, "%s.h5", raw);
        int64_t base = hdr ? 100 : 0;
        if (write_case(t, &d, raw, base, 11)) {
            int64_t dims[1] = {1003};
            int rc = collio_describe_h5(t->comm, h5, raw, base, COLLIO_H5_FLOAT32, 1,
                                        dims, 0, "vec");
            if (TU_RC_ALL(t, rc, collio_have_h5() ? COLLIO_OK : COLLIO_ERR_UNSUPPORTED,
                          "describe")
                && collio_have_h5()) {
#ifdef COLLIO_TEST_HDF5
                hsize_t shape[1] = {1003};
                check_h5(t, h5, "vec", H5T_FLOAT, 4, 1, shape, 1003, 4, 11);
#endif
            }
        }
        MPI_Barrier(t->comm);
        tu_remove(t, h5);
        tu_remove(t, raw);
        tu_desc_free(&d);
    }
    /* a 3-d array in Fortran order, float64 */
    tu_case(t, "3-d Fortran-order float64");
    if (tu_case_enabled(t)) {
        tu_layout_desc d;
        const int64_t g[3] = {5, 4, 7};
        const collio_distrib dist[3] = {COLLIO_DIST_NONE, COLLIO_DIST_NONE,
                                        COLLIO_DIST_BLOCK};
        tu_desc_darray(&d, t->nranks, 3, g, dist, NULL, NULL, COLLIO_ORDER_FORTRAN, 8);
        tu_temp_path(t, "h5arr", raw, sizeof raw);
        snprintf(h5, sizeof h5, "%s.h5", raw);
        if (write_case(t, &d, raw, 0, 12)) {
            int rc =
                collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT64, 3, g, 1, NULL);
            if (TU_RC_ALL(t, rc, collio_have_h5() ? COLLIO_OK : COLLIO_ERR_UNSUPPORTED,
                          "describe")
                && collio_have_h5()) {
#ifdef COLLIO_TEST_HDF5
                hsize_t shape[3] = {7, 4, 5}; /* HDF5's C order: reversed */
                check_h5(t, h5, "data", H5T_FLOAT, 8, 3, shape, 5 * 4 * 7, 8, 12);
#endif
            }
        }
        MPI_Barrier(t->comm);
        tu_remove(t, h5);
        tu_remove(t, raw);
        tu_desc_free(&d);
    }
    /* a mesh-like field: 3 float64 per node, nodes scattered over ranks */
    tu_case(t, "mesh field nodes x load");
    if (tu_case_enabled(t)) {
        tu_layout_desc d;
        const int64_t nodes = 211, load = 3;
        tu_desc_index_list(&d, t->rank, t->nranks, nodes, TU_IL_SHUFFLED, 77,
                           (size_t)(8 * load));
        tu_temp_path(t, "h5mesh", raw, sizeof raw);
        snprintf(h5, sizeof h5, "%s.h5", raw);
        if (write_case(t, &d, raw, 0, 13)) {
            int64_t dims[2] = {nodes, load};
            int rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT64, 2, dims,
                                        0, "field");
            if (TU_RC_ALL(t, rc, collio_have_h5() ? COLLIO_OK : COLLIO_ERR_UNSUPPORTED,
                          "describe")
                && collio_have_h5()) {
#ifdef COLLIO_TEST_HDF5
                hsize_t shape[2] = {(hsize_t)nodes, (hsize_t)load};
                /* the file is `nodes` elements of 24 bytes: its pattern */
                check_h5(t, h5, "field", H5T_FLOAT, 8, 2, shape, nodes,
                         (size_t)(8 * load), 13);
#endif
            }
        }
        MPI_Barrier(t->comm);
        tu_remove(t, h5);
        tu_remove(t, raw);
        tu_desc_free(&d);
    }
}

static void test_errors(tu_ctx *t)
{
    tu_case(t, "errors");
    if (!tu_case_enabled(t))
        return;
    char raw[600], h5[640];
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 100, 3, 4);
    tu_temp_path(t, "h5err", raw, sizeof raw);
    snprintf(h5, sizeof h5, "%s.h5", raw);
    if (write_case(t, &d, raw, 0, 21)) {
        int64_t ok[1] = {100}, big[1] = {101};
        const int have = collio_have_h5();
        int rc =
            collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT32, 1, ok, 0, NULL);
        TU_RC_ALL(t, rc, have ? COLLIO_OK : COLLIO_ERR_UNSUPPORTED, "a good description");
        rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5__COUNT, 1, ok, 0, NULL);
        TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "type out of range");
        rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT32, 0, ok, 0, NULL);
        TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "ndims 0");
        rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT32, 1, ok, 2, NULL);
        TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "fortran_order 2");
        rc = collio_describe_h5(t->comm, h5, NULL, 0, COLLIO_H5_FLOAT32, 1, ok, 0, NULL);
        TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "raw_path NULL");
        rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT32, 1, big, 0, "x");
        TU_RC_ALL(t, rc, have ? COLLIO_ERR_EOF : COLLIO_ERR_UNSUPPORTED,
                  "more data than the raw file holds");
        rc = collio_describe_h5(t->comm, h5, raw, 0, COLLIO_H5_FLOAT32, 1, ok, 0,
                                t->rank == t->nranks - 1 ? "other" : "data");
        TU_RC_ALL(t, rc,
                  t->nranks > 1 ? COLLIO_ERR_MISMATCH
                  : have        ? COLLIO_OK
                                : COLLIO_ERR_UNSUPPORTED,
                  "a dataset name that differs on one rank");
#ifdef COLLIO_TEST_HDF5
        /* the failures left the good description in place */
        if (have && t->nranks > 1) {
            hsize_t shape[1] = {100};
            check_h5(t, h5, "data", H5T_FLOAT, 4, 1, shape, 100, 4, 21);
        }
#endif
    }
    MPI_Barrier(t->comm);
    tu_remove(t, h5);
    tu_remove(t, raw);
    tu_desc_free(&d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_h5");
#ifndef COLLIO_TEST_HDF5
    TU_CHECK(&t, !collio_have_h5(),
             "the library has HDF5 but the test was built without");
#endif
    test_cases(&t);
    test_errors(&t);
    return tu_finish(&t);
}
