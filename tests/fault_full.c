/*
 * fault_full.c -- a full disk (run by ctest inside tests/in-tmpfs.sh with
 * a tmpfs of a few MiB mounted over DIR). For every canonical strategy and
 * both file backends: a CREATE write larger than the free space must fail
 * with COLLIO_ERR_IO on every rank (in collio_write, or at the latest in
 * collio_file_close), the previous file at the path must stay intact, and
 * no temporary may be left; then a write that fits succeeds in the same
 * directory, byte-exact. The same again with the write as a request
 * (collio_iwrite + collio_wait, on the helper thread: MPI_THREAD_MULTIPLE
 * is asked for): the wait fails the same way on every rank. Usage:
 * fault_full DIR.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREV_BYTES 4096
#define BIG_NX ((int64_t)2 << 20) /* float32: 8 MiB, more than the tmpfs */
#define SMALL_NX 5003

/* Rank 0: the previous file, element i = pattern(i, seed 77) as float32. */
static unsigned char *previous(size_t *n)
{
    return tu_expected_file(PREV_BYTES / 4, 4, 77, 0, 0, n);
}

static int plan_for(tu_ctx *t, int64_t nx, const char *strategy, collio_plan **p,
                    int64_t **idx, int64_t *n)
{
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, nx, 1000, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, strategy, NULL, p);
    tu_enumerate(&d, t->rank, t->nranks, idx, n);
    collio_layout_free(&l);
    tu_desc_free(&d);
    return TU_RC_ALL(t, rc, COLLIO_OK, "plan");
}

static void full_disk(tu_ctx *t, const char *dir, const char *strategy, collio_backend be,
                      int request)
{
    const char *bn = be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
    tu_case(t, "%s %s: full disk%s", strategy, bn, request ? ", a request" : "");
    char path[1024];
    snprintf(path, sizeof path, "%s/full-%s-%s.dat", dir, strategy, bn);
    size_t pn = 0;
    unsigned char *prev = previous(&pn);
    if (!TU_CHECK(t, tu_posix_put(t, path, prev, pn), "previous file written"))
        return;
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = be;
    collio_plan *p = NULL;
    int64_t *idx = NULL, n = 0;
    if (plan_for(t, BIG_NX, strategy, &p, &idx, &n)) {
        size_t bytes = (size_t)n * 4;
        unsigned char *buf = malloc(bytes + 1);
        tu_fill(buf, idx, n, 4, 5);
        collio_file *f = NULL;
        int rc = collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "open")) {
            if (request) {
                collio_request *r = NULL;
                rc = collio_iwrite(p, f, buf, bytes, &r);
                TU_RC_ALL(t, rc, COLLIO_OK, "iwrite");
                rc = collio_wait(&r);
            } else {
                rc = collio_write(p, f, buf, bytes);
            }
            int wrc = rc;
            if (rc == COLLIO_OK)
                rc = collio_file_close(&f);
            else
                collio_file_abort(&f);
            if (TU_RC_ALL(t, rc, COLLIO_ERR_IO, wrc == COLLIO_OK ? "close" : "write")
                && wrc != COLLIO_OK) {
                /* where: the data file; why: errno's text where collio's
                 * own POSIX calls failed (MPI-IO's texts vary by MPI) */
                const char *msg = collio_last_error();
                int own_posix = be == COLLIO_BACKEND_POSIX
                                && (strcmp(strategy, "serial") == 0
                                    || strcmp(strategy, "independent") == 0
                                    || strcmp(strategy, "multiphase") == 0);
                TU_CHECK(
                    t,
                    strstr(msg, ".collio-tmp") != NULL
                        && (!own_posix || strstr(msg, "No space left on device") != NULL),
                    "collio_last_error names the file%s: '%s'",
                    own_posix ? " and the cause" : "", msg);
            }
        }
        free(buf);
    }
    collio_plan_free(&p);
    free(idx);
    size_t got = 0;
    unsigned char *now = tu_posix_get(t, path, &got);
    TU_CHECK(t, now != NULL && got == pn && memcmp(now, prev, pn) == 0,
             "previous file intact (%zu bytes)", got);
    TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
    free(now);
    free(prev);

    /* the directory still works for a write that fits */
    tu_case(t, "%s %s: a write that fits", strategy, bn);
    if (plan_for(t, SMALL_NX, strategy, &p, &idx, &n)) {
        size_t bytes = (size_t)n * 4;
        unsigned char *buf = malloc(bytes + 1);
        tu_fill(buf, idx, n, 4, 6);
        if (tu_plan_io(t, p, path, &fo, 1, buf, bytes))
            TU_CHECK(t, tu_check_file(t, path, SMALL_NX, 4, 6, 0, 0, 1) == 0,
                     "file differs from the expectation");
        free(buf);
    }
    collio_plan_free(&p);
    free(idx);
    tu_remove(t, path);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init_threads(&t, &argc, &argv, "fault_full");
    t.filter = NULL;
    if (argc < 2) {
        if (t.rank == 0)
            fprintf(stderr, "usage: fault_full DIR (a small tmpfs)\n");
        return tu_finish(&t) + 2;
    }
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1)
            continue;
        full_disk(&t, argv[1], name, COLLIO_BACKEND_POSIX, 0);
        full_disk(&t, argv[1], name, COLLIO_BACKEND_MPIIO, 0);
        full_disk(&t, argv[1], name, COLLIO_BACKEND_POSIX, 1);
    }
    return tu_finish(&t);
}
