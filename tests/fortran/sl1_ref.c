/*
 * sl1_ref.c -- the C reference of the Fortran SL1 test (tests/fortran/sl1.sh).
 *
 * usage: sl1_ref FILE
 *
 * FILE is what examples/fortran/stem2_sl1.F90 wrote through the Fortran
 * bindings at the same rank count. This program writes the same array --
 * STEM-II SL1, 61 x 61 x 15 x 56 x 3 float32, Fortran order, BLOCK over y
 * -- through the C library on its own path: its layout from testutil's
 * description (tu_desc_darray, psizes {1, P, 1, 1, 1}), the buffer filled
 * from testutil's independent enumeration of the rank's indices
 * (tu_enumerate, from MPI_Type_create_darray's definition, not from the
 * library), element of global index i = (float)i, strategy "serial" (not
 * the example's multiphase). Then rank 0 checks that the C file is
 * (float)i at element i for every i, and that FILE equals the C file byte
 * for byte.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "fortran_sl1");
    const char *fpath = argc > 1 ? argv[1] : NULL;
    if (!TU_CHECK(&t, fpath != NULL, "usage: sl1_ref FILE"))
        return tu_finish(&t);

    const int64_t gsizes[5] = {61, 61, 15, 56, 3};
    const collio_distrib distribs[5] = {COLLIO_DIST_NONE, COLLIO_DIST_BLOCK,
                                        COLLIO_DIST_NONE, COLLIO_DIST_NONE,
                                        COLLIO_DIST_NONE};
    const int psizes[5] = {1, t.nranks, 1, 1, 1};
    tu_layout_desc d;
    tu_desc_darray(&d, t.nranks, 5, gsizes, distribs, NULL, psizes, COLLIO_ORDER_FORTRAN,
                   sizeof(float));
    tu_case(&t, "SL1 at %d ranks: C reference", t.nranks);

    int64_t *idx = NULL, n = 0;
    TU_CHECK(&t, tu_enumerate(&d, t.rank, t.nranks, &idx, &n) == 0, "enumerate");
    float *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t k = 0; k < n; k++)
        buf[k] = (float)idx[k];

    char cpath[1024];
    tu_temp_path(&t, "sl1-c.bin", cpath, sizeof cpath);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    int rc = tu_desc_make(&d, t.comm, &l);
    TU_RC_ALL(&t, rc, COLLIO_OK, "layout");
    if (rc == COLLIO_OK) {
        TU_CHECK(&t, collio_layout_local_count(l) == n,
                 "local count %lld, enumerated %lld",
                 (long long)collio_layout_local_count(l), (long long)n);
        rc = collio_plan_create(t.comm, l, "serial", NULL, &p);
        TU_RC_ALL(&t, rc, COLLIO_OK, "plan");
    }
    if (rc == COLLIO_OK)
        tu_plan_io(&t, p, cpath, NULL, 1, buf, (size_t)n * sizeof(float));

    /* Rank 0 compares the two files (both read with plain POSIX). */
    size_t cn = 0, fn = 0;
    unsigned char *cfile = tu_posix_get(&t, cpath, &cn);
    unsigned char *ffile = tu_posix_get(&t, fpath, &fn);
    const int64_t nglobal = d.nglobal;
    if (t.rank == 0) {
        TU_CHECK(&t, cfile != NULL && cn == (size_t)nglobal * sizeof(float),
                 "C file: %zu bytes, want %lld", cn, (long long)nglobal * 4);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; cfile && cn == (size_t)nglobal * 4 && i < nglobal; i++) {
            float v;
            memcpy(&v, cfile + i * 4, 4);
            if (v != (float)i && bad++ == 0)
                first = i;
        }
        TU_CHECK(&t, bad == 0, "C file: %lld elements differ from (float)i, first %lld",
                 (long long)bad, (long long)first);
        tu_case(&t, "SL1 at %d ranks: Fortran file vs C file", t.nranks);
        TU_CHECK(&t, ffile != NULL, "Fortran file %s missing", fpath);
        TU_CHECK(&t, ffile != NULL && fn == cn, "Fortran file: %zu bytes, C file %zu", fn,
                 cn);
        if (ffile != NULL && cfile != NULL && fn == cn) {
            size_t diff = 0, firstb = 0;
            for (size_t j = 0; j < cn; j++)
                if (ffile[j] != cfile[j] && diff++ == 0)
                    firstb = j;
            TU_CHECK(
                &t, diff == 0,
                "Fortran file differs from the C file in %zu bytes, first at byte %zu "
                "(element %zu)",
                diff, firstb, firstb / 4);
        }
    }
    free(cfile);
    free(ffile);
    collio_plan_free(&p);
    collio_layout_free(&l);
    free(buf);
    free(idx);
    tu_desc_free(&d);
    tu_remove(&t, cpath);
    return tu_finish(&t);
}
