/*
 * calibrate_calls.c -- the "calls" stage of `collio-bench calibrate`: the
 * smallest call of each base strategy (collio_fs_costs' write_call_s /
 * read_call_s), timed through the public API on the file system of the
 * scratch path.
 *
 * One 4-byte element per rank, rank r's at element r: whatever the model
 * predicts for that call, the rest is what every call of the strategy
 * pays whatever its size -- its synchronisations and requests -- and what
 * ping-pong latency, measured with the other ranks idle, misses where a
 * node's ranks share its cores (docs/auto.md, "How it decides").
 */
#include "bench_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define CALL_WARM 3  /* untimed calls first: buffers made, pages touched */
#define CALL_REPS 25 /* timed calls per strategy and operation: the median */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Collective: CALL_WARM + CALL_REPS calls of plan, each on the file at
 * path opened for it and closed after it, as a program writes a
 * checkpoint (a write: a new file each time; a read: the last one
 * written), timed from a barrier to the slowest rank's return; *med the
 * median of the timed ones. The library's code (the same on every rank). */
static int time_calls(MPI_Comm comm, collio_plan *plan, const char *path, int writing,
                      float *v, double *med)
{
    double t[CALL_REPS];
    int rc = COLLIO_OK;
    for (int i = 0; i < CALL_WARM + CALL_REPS && rc == COLLIO_OK; i++) {
        collio_file *f = NULL;
        rc = collio_file_open(comm, path, writing ? COLLIO_FILE_CREATE : COLLIO_FILE_READ,
                              NULL, &f);
        if (rc != COLLIO_OK)
            break;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        rc = writing ? collio_write(plan, f, v, sizeof *v)
                     : collio_read(plan, f, v, sizeof *v);
        double dt = MPI_Wtime() - t0;
        int crc = collio_file_close(&f);
        rc = rc != COLLIO_OK ? rc : crc;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (i >= CALL_WARM)
            t[i - CALL_WARM] = dt;
    }
    if (rc != COLLIO_OK) /* (t[] only partly filled) */
        return rc;
    qsort(t, CALL_REPS, sizeof t[0], cmp_double);
    *med = t[CALL_REPS / 2];
    return COLLIO_OK;
}

/* Collective: one strategy's write and read calls into *w, *r. */
static int one_strategy(MPI_Comm comm, const collio_layout *l, const char *path,
                        const char *strategy, double *w, double *r)
{
    collio_plan *plan = NULL;
    int rank;
    MPI_Comm_rank(comm, &rank);
    float v = (float)rank;
    int rc = collio_plan_create(comm, l, strategy, NULL, &plan);
    if (rc == COLLIO_OK)
        rc = time_calls(comm, plan, path, 1, &v, w);
    if (rc == COLLIO_OK) {
        v = -1;
        rc = time_calls(comm, plan, path, 0, &v, r);
        if (rc == COLLIO_OK && v != (float)rank) /* not what was written */
            rc = COLLIO_ERR_IO;
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm);
    }
    collio_plan_free(&plan);
    return rc;
}

int collio_bench_calibrate_calls(MPI_Comm comm, const char *path, int rpn_max,
                                 collio_fs_costs *fs, char *err, size_t errlen)
{
    static const char *const names[COLLIO_CAL_NCALLS] = COLLIO_CAL_CALL_STRATEGIES;
    int nranks;
    MPI_Comm_size(comm, &nranks);
    collio_layout *l = NULL;
    int rc = collio_layout_block_cyclic(comm, nranks, 1, sizeof(float), &l);
    for (int i = 0; i < COLLIO_CAL_NCALLS && rc == COLLIO_OK; i++) {
        rc = one_strategy(comm, l, path, names[i], &fs->write_call_s[i],
                          &fs->read_call_s[i]);
        if (rc != COLLIO_OK)
            snprintf(err, errlen, "the smallest call of %s: %s%s", names[i],
                     collio_last_error(),
                     rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    }
    collio_layout_free(&l);
    fs->call_ranks = rc == COLLIO_OK ? nranks : 0;
    fs->call_ranks_per_node = rc == COLLIO_OK ? rpn_max : 0;
    return rc == COLLIO_OK;
}
