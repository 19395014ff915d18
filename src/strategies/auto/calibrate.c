/*
 * strategies/auto/calibrate.c -- collio_calibrate: every measurement of
 * auto's cost model, in stages (the machine's and the file system's in
 * machine/measure*.c), and the last one here, "calls": the smallest call
 * of each base strategy, serial's cost per byte beyond it and one of
 * multiphase's pull rounds -- timed through the library's own plans,
 * which is why it belongs to auto, the one strategy that makes plans of
 * the others.
 *
 * The smallest call: one 4-byte element per rank, rank r's at element r.
 * Whatever the model predicts for it, the rest is what every call of the
 * strategy pays whatever its size -- its synchronisations and requests --
 * and what ping-pong latency, measured with the other ranks idle, misses
 * where a node's ranks share its cores (docs/auto.md, "How it decides").
 * Serial's cost per byte: rank 0 gathers, copies and writes every byte
 * alone, at a pace set less by the links than by its share of a core
 * among its node's ranks. A pull round: the difference of two layouts of
 * the same bytes and pieces, one of many rounds and one of one.
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

/* Collective: serial's cost per byte beyond its smallest call (just
 * measured): calls of about `bytes` in all, one contiguous piece per
 * rank, write and read by turns. The library's code. */
static int time_serial_bytes(collio__cal_ctx *x, int64_t bytes)
{
    int64_t n = bytes / (int64_t)sizeof(float) / x->size;
    n = n > 0 ? n : 1;
    collio_layout *l = NULL;
    collio_plan *plan = NULL;
    const size_t each = (size_t)n * sizeof(float);
    unsigned char *v = malloc(each);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, x->comm);
    if (rc == COLLIO_OK)
        rc = collio_layout_block_cyclic(x->comm, n * x->size, n, sizeof(float), &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(x->comm, l, "serial", NULL, &plan);
    const int reps = x->b.serial_reps < MAX_REPS ? x->b.serial_reps : MAX_REPS;
    double tw[1 + MAX_REPS], tr[1 + MAX_REPS]; /* [0]: untimed */
    for (int k = 0; k < 1 + reps && rc == COLLIO_OK; k++)
        rc = time_pair(x->comm, x->rank, plan, x->path, v, each, &tw[k], &tr[k]);
    if (rc == COLLIO_OK) {
        const double b = (double)each * x->size;
        const collio_cost_term *call = collio_fs_costs_term(&x->fs, "serial.call");
        const double cw = call != NULL ? call->write_s : 0,
                     cr = call != NULL ? call->read_s : 0;
        rc = collio_fs_costs_set_term(&x->fs, "serial.byte",
                                      fmax(0, collio__cal_median(tw + 1, reps) - cw) / b,
                                      fmax(0, collio__cal_median(tr + 1, reps) - cr) / b);
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
static int mp_layout(MPI_Comm comm, int nranks, size_t esize, collio_layout **l,
                     collio_plan **plan, double *rounds)
{
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
 * (one rank; ranks on several nodes: no shared-memory window). */
static int time_mp_rounds(collio__cal_ctx *x)
{
    collio_layout *l[2] = {NULL, NULL};
    collio_plan *plan[2] = {NULL, NULL};
    const int reps = x->b.round_reps < MAX_REPS ? x->b.round_reps : MAX_REPS;
    /* [layout][call], call 0 untimed */
    double rounds[2] = {0, 0}, tw[2][1 + MAX_REPS], tr[2][1 + MAX_REPS];
    const size_t bytes = (size_t)MP_PIECES * MP_BLOCK;
    unsigned char *v = malloc(bytes);
    int rc = v != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, x->comm);
    for (int k = 0; k < 2 && rc == COLLIO_OK; k++)
        rc = mp_layout(x->comm, x->size, k == 0 ? sizeof(float) : MP_BLOCK, &l[k],
                       &plan[k], &rounds[k]);
    const int measure = rc == COLLIO_OK && rounds[0] > rounds[1];
    for (int i = 0; measure && i < 1 + reps && rc == COLLIO_OK; i++)
        for (int k = 0; k < 2 && rc == COLLIO_OK; k++)
            rc = time_pair(x->comm, x->rank, plan[k], x->path, v, bytes, &tw[k][i],
                           &tr[k][i]);
    if (measure && rc == COLLIO_OK) {
        const double dr = rounds[0] - rounds[1];
        rc = collio_fs_costs_set_term(&x->fs, "multiphase.round",
                                      fmax(0, collio__cal_median(tw[0] + 1, reps)
                                                  - collio__cal_median(tw[1] + 1, reps))
                                          / dr,
                                      fmax(0, collio__cal_median(tr[0] + 1, reps)
                                                  - collio__cal_median(tr[1] + 1, reps))
                                          / dr);
    }
    for (int k = 0; k < 2; k++) {
        collio_plan_free(&plan[k]);
        collio_layout_free(&l[k]);
    }
    free(v);
    return rc;
}

/* The "calls" stage. serial's large calls: bytes of about serial_bytes_s
 * into rank 0 at the file's bandwidth, or where the job spans nodes its
 * link's, at most SERIAL_MOST in all. */
#define SERIAL_MOST ((double)(8 << 20))
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
    double bytes = fmin(x->b.serial_bytes_s * Bps, SERIAL_MOST);
    MPI_Bcast(&bytes, 1, MPI_DOUBLE, 0, x->comm); /* rank 0's constants */
    collio_layout *l = NULL;
    collio_plan *plans[COLLIO_CAL_TERMS_MAX] = {NULL};
    int bad = 0;
    double t0 = MPI_Wtime(), spent = 0;
    int rc = collio_layout_block_cyclic(x->comm, x->size, 1, sizeof(float), &l);
    for (int i = 0; i < ncalls && rc == COLLIO_OK; i++)
        if ((rc = collio_plan_create(x->comm, l, names[i], NULL, &plans[i])) != COLLIO_OK)
            bad = i;
    if (rc == COLLIO_OK)
        rc = time_smallest(x, plans, ncalls, names, &bad);
    /* past the budget's time (a networked file system: every call opens
     * and closes a file there), serial's bytes and multiphase's rounds are
     * left to the model's general terms (0: not measured) */
    spent = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, x->comm);
    const int more = x->b.calls_s <= 0 || spent < x->b.calls_s;
    if (rc != COLLIO_OK)
        snprintf(x->err, sizeof x->err, "the smallest call of %.40s: %.400s%s",
                 names[bad], collio_last_error(),
                 rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    else if (more && (rc = time_serial_bytes(x, (int64_t)bytes)) != COLLIO_OK)
        snprintf(x->err, sizeof x->err, "serial's calls of %.0f bytes: %s%s", bytes,
                 collio_last_error(), rc == COLLIO_ERR_IO ? " (or read back wrong)" : "");
    else if (more && (rc = time_mp_rounds(x)) != COLLIO_OK)
        snprintf(x->err, sizeof x->err, "multiphase's pull rounds: %s%s",
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
