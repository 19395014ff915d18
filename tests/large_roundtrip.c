/*
 * large_roundtrip.c -- more than 2 GiB per rank (opt-in: CMake option
 * COLLIO_LARGE_TESTS=ON registers it under the ctest label `large`; run by
 * hand, e.g. `ctest -L large`, not by scripts/test or CI). Every int count
 * of MPI and every 2 GiB limit of read(2) / write(2) is crossed: a block-
 * cyclic float64 vector of 2 x 2.25 GiB, blocks of 1 Mi elements, written
 * and read back by every canonical strategy (or those named in argv[1],
 * comma-separated), each file compared with the independent expectation.
 * Needs about 5 GB of disk beside the test's temp directory and 12 GB of
 * memory at 2 ranks.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "large_roundtrip");
    const char *only = t.filter;
    t.filter = NULL;
    /* 2.25 GiB of float64 per rank */
    const int64_t per_rank = ((int64_t)9 << 28) / 8, bx = (int64_t)1 << 20;
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, per_rank * t.nranks, bx, 8);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t.comm, &l);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t.rank, t.nranks, &idx, &n);
    size_t bytes = (size_t)n * 8;
    unsigned char *buf = malloc(bytes + 1);
    TU_CHECK(&t, buf != NULL, "%zu bytes of buffer", bytes);
    for (int s = 0; buf && rc == COLLIO_OK && s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1 || (only && !strstr(only, name)))
            continue;
        tu_case(&t, "%s, %zu bytes per rank", name, bytes);
        collio_plan *p = NULL;
        if (!TU_RC_ALL(&t, collio_plan_create(t.comm, l, name, NULL, &p), COLLIO_OK,
                       "plan_create"))
            continue;
        char path[1024];
        tu_temp_path(&t, name, path, sizeof path);
        tu_fill(buf, idx, n, 8, 11);
        if (tu_plan_io(&t, p, path, NULL, 1, buf, bytes)) {
            TU_CHECK(&t, tu_check_file(&t, path, d.nglobal, 8, 11, 0, 0, 1) == 0,
                     "file differs from the expectation");
            memset(buf, 0, bytes);
            if (tu_plan_io(&t, p, path, NULL, 0, buf, bytes)) {
                int64_t first;
                TU_CHECK(&t, tu_compare(buf, idx, n, 8, 11, &first) == 0,
                         "read back differs (element %lld)", (long long)first);
            }
        }
        tu_remove(&t, path);
        collio_plan_free(&p);
    }
    free(buf);
    free(idx);
    collio_layout_free(&l);
    tu_desc_free(&d);
    return tu_finish(&t);
}
