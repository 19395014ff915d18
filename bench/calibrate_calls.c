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
 * node's ranks share its cores (docs/auto.md, "How it decides"). Then
 * serial's cost per byte (collio_fs_costs' serial_*_byte_s): rank 0
 * gathers, copies and writes every byte alone, at a pace set less by the
 * links than by its share of a core among its node's ranks; and the cost
 * of one of multiphase's pull rounds (multiphase_*_round_s), which its
 * smallest call does not take.
 */
#include "bench_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL_WARM 3  /* untimed rounds first: buffers made, pages touched */
#define CALL_REPS 25 /* timed rounds: the median of each strategy's calls */
/* serial's cost per byte: the median of this many calls after one untimed */
#define SERIAL_REPS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* Collective: one call of plan on the file at path, opened for it and
 * closed after it, as a program writes a checkpoint (a write: a new file
 * each time; a read: the last one written), timed from a barrier to the
 * slowest rank's return into *dt. The library's code (the same on every
 * rank). */
static int time_call(MPI_Comm comm, collio_plan *plan, const char *path, int writing,
                     void *v, size_t bytes, double *dt)
{
    collio_file *f = NULL;
    int rc = collio_file_open(comm, path, writing ? COLLIO_FILE_CREATE : COLLIO_FILE_READ,
                              NULL, &f);
    if (rc != COLLIO_OK)
        return rc;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    rc = writing ? collio_write(plan, f, v, bytes) : collio_read(plan, f, v, bytes);
    *dt = MPI_Wtime() - t0;
    int crc = collio_file_close(&f);
    MPI_Allreduce(MPI_IN_PLACE, dt, 1, MPI_DOUBLE, MPI_MAX, comm);
    return rc != COLLIO_OK ? rc : crc;
}

/* Rank r's elements read back as r (1 if so on every rank). */
static int read_back(MPI_Comm comm, const float *v, size_t n, int rank)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= v[i] == (float)rank;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok;
}

/* Collective: one timed write of plan from buf (`bytes`, every byte
 * rank + 1) into *tw, then one timed read back into *tr, checked. The
 * library's code, or COLLIO_ERR_IO where the read gave other bytes. */
static int time_pair(MPI_Comm comm, collio_plan *plan, const char *path,
                     unsigned char *buf, size_t bytes, double *tw, double *tr)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(buf, rank + 1, bytes);
    int rc = time_call(comm, plan, path, 1, buf, bytes, tw);
    memset(buf, 0, bytes);
    if (rc == COLLIO_OK)
        rc = time_call(comm, plan, path, 0, buf, bytes, tr);
    int ok = 1;
    for (size_t b = 0; rc == COLLIO_OK && b < bytes; b++)
        ok &= buf[b] == (unsigned char)(rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    return rc == COLLIO_OK && !ok ? COLLIO_ERR_IO : rc;
}

/* Collective: the smallest calls, round by round -- each round every
 * strategy's write, then every strategy's read --, so that each
 * strategy's median is taken over the same stretch of the machine's
 * time as the others' (a node whose ranks share its cores drifts from
 * one second to the next: back to back, one strategy's calls could all
 * fall in a quiet stretch, another's in a busy one). */
static int time_smallest(MPI_Comm comm, collio_plan **plans, const char *path,
                         collio_fs_costs *fs, int *bad)
{
    double tw[COLLIO_CAL_NCALLS][CALL_REPS], tr[COLLIO_CAL_NCALLS][CALL_REPS], dt = 0;
    int rank, rc = COLLIO_OK;
    MPI_Comm_rank(comm, &rank);
    for (int k = 0; k < CALL_WARM + CALL_REPS && rc == COLLIO_OK; k++)
        for (int op = 1; op >= 0 && rc == COLLIO_OK; op--)
            for (int i = 0; i < COLLIO_CAL_NCALLS && rc == COLLIO_OK; i++) {
                float v = op ? (float)rank : -1.0f;
                *bad = i;
                rc = time_call(comm, plans[i], path, op, &v, sizeof v, &dt);
                if (rc == COLLIO_OK && !op && !read_back(comm, &v, 1, rank))
                    rc = COLLIO_ERR_IO; /* not what was written */
                if (k >= CALL_WARM)
                    (op ? tw : tr)[i][k - CALL_WARM] = dt;
            }
    for (int i = 0; i < COLLIO_CAL_NCALLS && rc == COLLIO_OK; i++) {
        fs->write_call_s[i] = median(tw[i], CALL_REPS);
        fs->read_call_s[i] = median(tr[i], CALL_REPS);
    }
    return rc;
}

/* Collective: serial's cost per byte beyond its smallest call (just
 * measured): calls of about `bytes`, one contiguous piece per rank, write
 * and read by turns. The library's code. */
static int time_serial_bytes(MPI_Comm comm, const char *path, int64_t bytes,
                             collio_fs_costs *fs)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    int64_t n = bytes / (int64_t)sizeof(float) / nranks;
    n = n > 0 ? n : 1;
    collio_layout *l = NULL;
    collio_plan *plan = NULL;
    const size_t each = (size_t)n * sizeof(float);
    unsigned char *v = malloc(each);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm);
    if (rc == COLLIO_OK)
        rc = collio_layout_block_cyclic(comm, n * nranks, n, sizeof(float), &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(comm, l, "serial", NULL, &plan);
    double tw[1 + SERIAL_REPS], tr[1 + SERIAL_REPS]; /* [0]: untimed */
    for (int k = 0; k < 1 + SERIAL_REPS && rc == COLLIO_OK; k++)
        rc = time_pair(comm, plan, path, v, each, &tw[k], &tr[k]);
    if (rc == COLLIO_OK) {
        const double b = (double)each * nranks;
        const int s = COLLIO_CAL_CALL_SERIAL;
        fs->serial_write_byte_s =
            fmax(0, median(tw + 1, SERIAL_REPS) - fs->write_call_s[s]) / b;
        fs->serial_read_byte_s =
            fmax(0, median(tr + 1, SERIAL_REPS) - fs->read_call_s[s]) / b;
    }
    collio_plan_free(&plan);
    collio_layout_free(&l);
    free(v);
    return rc;
}

/* multiphase's pull rounds: two layouts of MP_PIECES blocks of
 * MP_BLOCK bytes per rank -- the same bytes, pieces and block size --
 * one of 4-byte elements (a domain of many elements: the most rounds),
 * one of MP_BLOCK-byte elements (one round); the difference of their
 * calls over that of their rounds is one round's cost */
#define MP_PIECES 512
#define MP_BLOCK 128

/* Collective: one multiphase layout of the pair above, elements of esize
 * bytes; its plan and its pull rounds (the plan's stat). */
static int mp_layout(MPI_Comm comm, size_t esize, collio_layout **l, collio_plan **plan,
                     double *rounds)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    int64_t bx = MP_BLOCK / (int64_t)esize, n = bx * MP_PIECES;
    int rc = collio_layout_block_cyclic(comm, n * nranks, bx, esize, l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(comm, *l, "multiphase", NULL, plan);
    *rounds = 0;
    if (rc == COLLIO_OK)
        collio_plan_stat(*plan, "multiphase.pull_rounds", rounds);
    return rc;
}

/* Collective: multiphase's cost per pull round (above), write and read
 * by turns, the layouts alternating; 0 where the rounds do not differ
 * (one rank; ranks on several nodes: no shared-memory window). The
 * library's code. */
static int time_mp_rounds(MPI_Comm comm, const char *path, collio_fs_costs *fs)
{
    collio_layout *l[2] = {NULL, NULL};
    collio_plan *plan[2] = {NULL, NULL};
    /* [layout][call], call 0 untimed */
    double rounds[2] = {0, 0}, tw[2][1 + SERIAL_REPS], tr[2][1 + SERIAL_REPS];
    const size_t bytes = (size_t)MP_PIECES * MP_BLOCK;
    unsigned char *v = malloc(bytes);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm);
    for (int k = 0; k < 2 && rc == COLLIO_OK; k++)
        rc = mp_layout(comm, k == 0 ? sizeof(float) : MP_BLOCK, &l[k], &plan[k],
                       &rounds[k]);
    const int measure = rc == COLLIO_OK && rounds[0] > rounds[1];
    for (int i = 0; measure && i < 1 + SERIAL_REPS && rc == COLLIO_OK; i++)
        for (int k = 0; k < 2 && rc == COLLIO_OK; k++)
            rc = time_pair(comm, plan[k], path, v, bytes, &tw[k][i], &tr[k][i]);
    fs->multiphase_write_round_s = fs->multiphase_read_round_s = 0;
    if (measure && rc == COLLIO_OK) {
        const double dr = rounds[0] - rounds[1];
        fs->multiphase_write_round_s =
            fmax(0, median(tw[0] + 1, SERIAL_REPS) - median(tw[1] + 1, SERIAL_REPS)) / dr;
        fs->multiphase_read_round_s =
            fmax(0, median(tr[0] + 1, SERIAL_REPS) - median(tr[1] + 1, SERIAL_REPS)) / dr;
    }
    for (int k = 0; k < 2; k++) {
        collio_plan_free(&plan[k]);
        collio_layout_free(&l[k]);
    }
    free(v);
    return rc;
}

int collio_bench_calibrate_calls(MPI_Comm comm, const char *path, int rpn_max,
                                 int64_t serial_bytes, collio_fs_costs *fs, char *err,
                                 size_t errlen)
{
    static const char *const names[COLLIO_CAL_NCALLS] = COLLIO_CAL_CALL_STRATEGIES;
    int nranks, bad = 0;
    MPI_Comm_size(comm, &nranks);
    collio_layout *l = NULL;
    collio_plan *plans[COLLIO_CAL_NCALLS] = {NULL};
    int rc = collio_layout_block_cyclic(comm, nranks, 1, sizeof(float), &l);
    for (int i = 0; i < COLLIO_CAL_NCALLS && rc == COLLIO_OK; i++)
        if ((rc = collio_plan_create(comm, l, names[i], NULL, &plans[i])) != COLLIO_OK)
            bad = i;
    if (rc == COLLIO_OK)
        rc = time_smallest(comm, plans, path, fs, &bad);
    if (rc != COLLIO_OK)
        snprintf(err, errlen, "the smallest call of %s: %s%s", names[bad],
                 collio_last_error(), rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    else if ((rc = time_serial_bytes(comm, path, serial_bytes, fs)) != COLLIO_OK)
        snprintf(err, errlen, "serial's calls of %lld bytes: %s%s",
                 (long long)serial_bytes, collio_last_error(),
                 rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    else if ((rc = time_mp_rounds(comm, path, fs)) != COLLIO_OK)
        snprintf(err, errlen, "multiphase's pull rounds: %s%s", collio_last_error(),
                 rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    for (int i = 0; i < COLLIO_CAL_NCALLS; i++)
        collio_plan_free(&plans[i]);
    collio_layout_free(&l);
    fs->call_ranks = rc == COLLIO_OK ? nranks : 0;
    fs->call_ranks_per_node = rc == COLLIO_OK ? rpn_max : 0;
    return rc == COLLIO_OK;
}
