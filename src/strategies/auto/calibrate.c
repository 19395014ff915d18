/*
 * strategies/auto/calibrate.c -- collio_calibrate: every measurement of
 * auto's cost model, in stages (the machine's and the file system's in
 * machine/measure*.c), and the last one here, "calls": the smallest call
 * of each strategy that declares one ("NAME.call"), then each
 * strategy's own terms beyond it, measured by the strategy (its measure
 * hook, through collio__measure_kit: serial's per byte in serial.c,
 * multiphase's pull round in multiphase/measure.c) -- timed through the
 * library's own plans, which is why it belongs to auto, the one strategy
 * that makes plans of the others.
 *
 * The smallest call: one 4-byte element per rank, rank r's at element r.
 * Whatever the model predicts for it, the rest is what every call of the
 * strategy pays whatever its size -- its synchronisations and requests --
 * and what ping-pong latency, measured with the other ranks idle, misses
 * where a node's ranks share its cores (docs/auto.md, "How it decides").
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPS 64

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

/* Collective: 1 on every rank if each rank's n bytes at v are all `byte`. */
static int all_are(MPI_Comm comm, const unsigned char *v, size_t n, unsigned char byte)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= v[i] == byte;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok;
}

/* Collective: one timed write of plan from buf (`bytes`, every byte
 * rank + 1) into *tw, then one timed read back into *tr, checked. The
 * library's code, or COLLIO_ERR_IO where the read gave other bytes. */
static int time_pair(MPI_Comm comm, int rank, collio_plan *plan, const char *path,
                     unsigned char *buf, size_t bytes, double *tw, double *tr)
{
    memset(buf, rank + 1, bytes);
    int rc = time_call(comm, plan, path, 1, buf, bytes, tw);
    memset(buf, 0, bytes);
    if (rc == COLLIO_OK)
        rc = time_call(comm, plan, path, 0, buf, bytes, tr);
    int ok = all_are(comm, buf, rc == COLLIO_OK ? bytes : 0, (unsigned char)(rank + 1));
    return rc == COLLIO_OK && !ok ? COLLIO_ERR_IO : rc;
}

/* Collective: the smallest calls, round by round -- each round every
 * strategy's write, then every strategy's read --, so that each
 * strategy's median is taken over the same stretch of the machine's
 * time as the others' (a node whose ranks share its cores drifts from
 * one second to the next: back to back, one strategy's calls could all
 * fall in a quiet stretch, another's in a busy one). */
static int time_smallest(collio__cal_ctx *x, collio_plan **plans, int ncalls,
                         char (*names)[48], int *bad)
{
    static double tw[COLLIO_CAL_TERMS_MAX][MAX_REPS], tr[COLLIO_CAL_TERMS_MAX][MAX_REPS];
    const int warm = x->b.call_warm,
              reps = x->b.call_reps < MAX_REPS ? x->b.call_reps : MAX_REPS;
    int rc = COLLIO_OK, k;
    double dt = 0, t0 = MPI_Wtime();
    for (k = 0; k < warm + reps && rc == COLLIO_OK; k++) {
        /* the budget's time spent (the slowest rank's: every rank stops
         * at the same round), at least one round timed */
        double spent = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, x->comm);
        if (k >= warm + 1 && x->b.calls_s > 0 && spent > x->b.calls_s)
            break;
        for (int op = 1; op >= 0 && rc == COLLIO_OK; op--)
            for (int i = 0; i < ncalls && rc == COLLIO_OK; i++) {
                float v = op ? (float)x->rank : -1.0f;
                *bad = i;
                rc = time_call(x->comm, plans[i], x->path, op, &v, sizeof v, &dt);
                unsigned char back = v == (float)x->rank;
                if (rc == COLLIO_OK && !op && !all_are(x->comm, &back, 1, 1))
                    rc = COLLIO_ERR_IO; /* not what was written */
                if (k >= warm)
                    (op ? tw : tr)[i][k - warm] = dt;
            }
    }
    const int timed = k - warm; /* (at least 1 where rc is OK) */
    for (int i = 0; i < ncalls && rc == COLLIO_OK; i++) {
        char key[64];
        snprintf(key, sizeof key, "%.42s.call", names[i]);
        rc = collio_fs_costs_set_term(&x->fs, key, collio__cal_median(tw[i], timed),
                                      collio__cal_median(tr[i], timed));
    }
    return rc;
}

/* The kit's time_pair: time_pair on the calibration's scratch file. */
static int kit_time_pair(const collio__measure_kit *k, collio_plan *plan,
                         unsigned char *buf, size_t bytes, double *tw, double *tr)
{
    const collio__cal_ctx *x = k->cal;
    return time_pair(x->comm, x->rank, plan, x->path, buf, bytes, tw, tr);
}

/* Collective: every strategy's own terms beyond its smallest call (its
 * measure hook, in registry order: serial's per byte, multiphase's pull
 * round, ...). The library's code; *bad: the strategy that failed. */
static int measure_terms(collio__cal_ctx *x, int64_t big_bytes, const char **bad)
{
    collio__measure_kit kit = {.comm = x->comm,
                               .rank = x->rank,
                               .size = x->size,
                               .reps = x->b.term_reps,
                               .big_bytes = big_bytes,
                               .fs = &x->fs,
                               .cal = x,
                               .time_pair = kit_time_pair};
    int rc = COLLIO_OK;
    for (int i = 0; collio__strategy_at(i) != NULL && rc == COLLIO_OK; i++) {
        const collio__strategy *s = collio__strategy_at(i);
        if (s->measure != NULL && (rc = s->measure(&kit)) != COLLIO_OK)
            *bad = s->section.name;
    }
    return rc;
}

/* The "calls" stage. A large call (the kit's big_bytes): bytes of about
 * big_bytes_s at the file's bandwidth, or where the job spans nodes its
 * link's, at most BIG_MOST in all. */
#define BIG_MOST ((double)(8 << 20))
static int stage_calls(collio__cal_ctx *x)
{
    /* the strategies whose smallest call is a term of theirs ("NAME.call") */
    char names[COLLIO_CAL_TERMS_MAX][48];
    const char *const *keys = NULL;
    int ncalls = 0;
    for (int i = 0, nk = collio__auto_term_keys(&keys); i < nk; i++) {
        size_t n = 0;
        if (strcmp(collio__cost_term_kind(keys[i], &n), "call") == 0
            && n < sizeof names[0])
            snprintf(names[ncalls++], sizeof names[0], "%.*s", (int)n, keys[i]);
    }
    double Bps = x->fs.write_Bps;
    if (x->nnodes > 1 && x->cal.bandwidth_Bps[1] < Bps)
        Bps = x->cal.bandwidth_Bps[1];
    double bytes = fmin(x->b.big_bytes_s * Bps, BIG_MOST);
    MPI_Bcast(&bytes, 1, MPI_DOUBLE, 0, x->comm); /* rank 0's constants */
    collio_layout *l = NULL;
    collio_plan *plans[COLLIO_CAL_TERMS_MAX] = {NULL};
    int bad = 0;
    const char *who = "";
    double t0 = MPI_Wtime(), spent = 0;
    int rc = collio_layout_block_cyclic(x->comm, x->size, 1, sizeof(float), &l);
    for (int i = 0; i < ncalls && rc == COLLIO_OK; i++)
        if ((rc = collio_plan_create(x->comm, l, names[i], NULL, &plans[i])) != COLLIO_OK)
            bad = i;
    if (rc == COLLIO_OK)
        rc = time_smallest(x, plans, ncalls, names, &bad);
    /* past the budget's time (a networked file system: every call opens
     * and closes a file there), the strategies' other terms are left to
     * the model's general terms (0: not measured) */
    spent = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, x->comm);
    const int more = x->b.calls_s <= 0 || spent < x->b.calls_s;
    if (rc != COLLIO_OK)
        snprintf(x->err, sizeof x->err, "the smallest call of %.40s: %.400s%s",
                 names[bad], collio_last_error(),
                 rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    else if (more && (rc = measure_terms(x, (int64_t)bytes, &who)) != COLLIO_OK)
        snprintf(x->err, sizeof x->err, "%.40s's own terms: %.400s%s", who,
                 collio_last_error(), rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    for (int i = 0; i < ncalls; i++)
        collio_plan_free(&plans[i]);
    collio_layout_free(&l);
    x->fs.call_ranks = rc == COLLIO_OK ? x->size : 0;
    x->fs.call_ranks_per_node = rc == COLLIO_OK ? x->rpn_max : 0;
    return rc != COLLIO_OK; /* (the library's code: agreed) */
}

/* ---- the stages and collio_calibrate */

typedef struct stage {
    const char *name;
    int (*run)(collio__cal_ctx *x);
} stage;

static const stage stages[] = {
    {"network", collio__cal_network},
    {"memory", collio__cal_memory},
    {"node", collio__cal_node},
    {"requests", collio__cal_requests},
    {"file write", collio__cal_fs_write},
    {"file read", collio__cal_fs_read},
    {"list i/o", collio__cal_list},
    {"mpi-io", collio__cal_mpiio},
    {"calls", stage_calls},
};
#define NSTAGES ((int)(sizeof stages / sizeof stages[0]))
_Static_assert(NSTAGES <= COLLIO_CALIBRATE_MAX_STAGES,
               "collio_calibrate_info holds them");

/* Collective: dir made where missing (rank 0, with its parents), and the
 * scratch path in it, named by rank 0's process id; agreed. */
static int scratch(collio__cal_ctx *x, const char *dir)
{
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, x->comm);
    int ok = 1;
    if (x->rank == 0) {
        char d[4096];
        snprintf(d, sizeof d, "%s", dir);
        for (char *s = d + 1;; s++) { /* mkdir -p */
            if (*s != '/' && *s != '\0')
                continue;
            char c = *s;
            *s = '\0';
            mkdir(d, 0755);
            *s = c;
            if (c == '\0')
                break;
        }
        struct stat st;
        snprintf(x->path, sizeof x->path, "%s", dir);
        if (stat(dir, &st) != 0)
            ok = collio__cal_errno(x, "the directory");
        else if (!S_ISDIR(st.st_mode))
            ok = (errno = ENOTDIR, collio__cal_errno(x, "the directory"));
    }
    snprintf(x->path, sizeof x->path, "%s/.collio-calibrate.%ld", dir, pid);
    return collio__cal_failed(x, ok);
}

int collio_calibrate(MPI_Comm comm, const char *dir, const collio_calibrate_opts *opts,
                     collio_calibration *cal, collio_fs_costs *fs,
                     collio_calibrate_info *info)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_calibrate");
    if (rc != COLLIO_OK)
        return rc;
    if (comm == MPI_COMM_NULL || dir == NULL || dir[0] == '\0' || cal == NULL
        || fs == NULL || strlen(dir) > 4000) {
        collio__error_set(COLLIO_ERR_ARG, "collio_calibrate: %s",
                          comm == MPI_COMM_NULL ? "the communicator is MPI_COMM_NULL"
                          : dir == NULL || dir[0] == '\0' ? "no directory"
                          : strlen(dir) > 4000 ? "the directory's path is too long"
                                               : "cal or fs is NULL");
        return COLLIO_ERR_ARG; /* (local: a NULL argument is the caller's) */
    }
    const collio_calibrate_opts def = {COLLIO_CALIBRATE_FULL, 0, 0};
    const collio_calibrate_opts *o = opts != NULL ? opts : &def;
    static collio__cal_ctx x; /* (large: the calibration) */
    memset(&x, 0, sizeof x);
    x.comm = comm;
    x.node = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    int64_t same[4] = {o->level, o->mb, o->pieces, 0}, key[2];
    collio__str_key(dir, key);
    same[3] = key[1];
    const int known =
        o->level == COLLIO_CALIBRATE_FULL || o->level == COLLIO_CALIBRATE_QUICK;
    rc = !known || o->mb < 0 || o->pieces < 0 ? COLLIO_ERR_ARG : COLLIO_OK;
    if (rc != COLLIO_OK)
        collio__error_set(rc, "collio_calibrate: a level, mb or pieces out of range");
    if (!collio__all_ok_and_same(comm, rc, same, 4)) {
        rc = collio__agree(comm, rc);
        for (int i = 0; rc == COLLIO_OK && i < 4; i++)
            rc = collio__check_same_i64(comm, same[i],
                                        i < 3 ? "collio_calibrate's options"
                                              : "collio_calibrate's directory");
        return rc != COLLIO_OK ? rc : COLLIO_ERR_MISMATCH;
    }
    collio__cal_budget_of(o->level, o->mb, o->pieces, &x.b);
    x.cal = *cal;
    x.fs.quick = x.b.quick;
    collio__mpi_library(x.fs.mpi, sizeof x.fs.mpi);
    if (x.rank == 0)
        collio_fs_identify(dir, &x.fs.id);
    double t0 = MPI_Wtime(), secs[NSTAGES] = {0};
    int failed = scratch(&x, dir) || collio__cal_topology(&x);
    for (int i = 0; i < NSTAGES && !failed; i++) {
        double ts = MPI_Wtime();
        failed = stages[i].run(&x); /* (x.err the same on every rank) */
        secs[i] = MPI_Wtime() - ts;
    }
    MPI_Barrier(comm);
    if (x.rank == 0)
        unlink(x.path);
    if (x.node != MPI_COMM_NULL)
        MPI_Comm_free(&x.node);
    if (failed) {
        collio__error_set(COLLIO_ERR_IO, "collio_calibrate in %.900s: %s", dir, x.err);
        return COLLIO_ERR_IO;
    }
    /* rank 0's constants on every rank */
    MPI_Bcast(&x.cal, (int)sizeof x.cal, MPI_BYTE, 0, comm);
    MPI_Bcast(&x.fs, (int)sizeof x.fs, MPI_BYTE, 0, comm);
    *cal = x.cal;
    *fs = x.fs;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->nodes = x.nnodes;
        info->ranks_per_node = x.rpn_max;
        info->measured_intra = x.intra >= 0;
        info->measured_inter = x.inter >= 0;
        info->nstages = NSTAGES;
        for (int i = 0; i < NSTAGES; i++) {
            info->stage[i] = stages[i].name;
            info->stage_s[i] = secs[i];
        }
        info->total_s = MPI_Wtime() - t0;
    }
    return COLLIO_OK;
}
