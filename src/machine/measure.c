/*
 * machine/measure.c -- a calibration's budgets, its shared steps (the
 * ranks' placement, agreement on failure), and its first stages: the
 * network within and between nodes, memory copies and packing, the
 * node's cores and shared-memory windows. The file system's stages are in
 * measure_fs.c; the strategies' smallest calls and collio_calibrate,
 * which runs them all, in strategies/auto/calibrate.c.
 *
 * Every stage is collective and agrees on failure: a rank whose system
 * call or buffer failed says so in the next collio__cal_failed, and every
 * rank leaves the stage with the first failing rank's message. Values a
 * stage cannot measure (no partner on another node) keep what the
 * context started from.
 */
#include "machine/machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024 * 1024)

void collio__cal_budget_of(int level, int mb, int pieces, collio__cal_budget *b)
{
    static const collio__cal_budget full = {.pingpong_small = 200,
                                            .pingpong_big = 10,
                                            .big_bytes = 4 * MIB,
                                            .copy_bytes = 64 * MIB,
                                            .pack_pieces = 1 << 20,
                                            .requests = 20000,
                                            .stream_bytes = 8 * MIB,
                                            .stream_reps = 5,
                                            .list_s = 0.05,
                                            .list_reps = 5,
                                            .list_max = 4096,
                                            .list_pilot = 32,
                                            .mpiio_pieces = 16384,
                                            .mpiio_bytes_s = 0.05,
                                            .mpiio_reps = 5,
                                            .call_warm = 3,
                                            .call_reps = 25,
                                            .big_bytes_s = 0.02,
                                            .term_reps = 7};
    /* a fifth to a tenth of the runs, each shorter; per rank, never more
     * than the full budget's; and the stages whose steps a networked file
     * system makes slow (a request: 0.15-0.3 ms; a smallest call of the MPI
     * library's collective: 70 ms on the emulated cluster's GlusterFS) stop
     * after a time (docs/auto.md, "Calibration without a step") */
    static const collio__cal_budget quick = {.quick = 1,
                                             .pingpong_small = 30,
                                             .pingpong_big = 3,
                                             .big_bytes = MIB,
                                             .copy_bytes = 32 * MIB,
                                             .pack_pieces = 1 << 17,
                                             .requests = 1000,
                                             .stream_bytes = MIB,
                                             .stream_reps = 3,
                                             .list_s = 0.006,
                                             .list_reps = 2,
                                             .list_max = 1024,
                                             .list_pilot = 8,
                                             .mpiio_pieces = 1024,
                                             .mpiio_bytes_s = 0.01,
                                             .mpiio_reps = 2,
                                             .requests_s = 0.02,
                                             .call_warm = 1,
                                             .calls_s = 0.25,
                                             .call_reps = 5,
                                             .big_bytes_s = 0.005,
                                             .term_reps = 3};
    *b = level == COLLIO_CALIBRATE_QUICK ? quick : full;
    if (mb > 0)
        b->stream_bytes = (int64_t)mb * MIB;
    if (pieces > 0)
        b->mpiio_pieces = pieces;
}

int collio__cal_failed(collio__cal_ctx *x, int ok)
{
    int me = ok ? x->size : x->rank, bad = 0;
    if (MPI_Allreduce(&me, &bad, 1, MPI_INT, MPI_MIN, x->comm) != MPI_SUCCESS) {
        snprintf(x->err, sizeof x->err, "MPI_Allreduce failed");
        return 1;
    }
    if (bad == x->size)
        return 0;
    char msg[COLLIO__CAL_ERR_LEN + 16];
    snprintf(msg, sizeof msg, "rank %d: %s", bad, x->err);
    msg[COLLIO__CAL_ERR_LEN - 1] = '\0';
    memcpy(x->err, msg, COLLIO__CAL_ERR_LEN);
    MPI_Bcast(x->err, COLLIO__CAL_ERR_LEN, MPI_CHAR, bad, x->comm);
    return 1;
}

int collio__cal_errno(collio__cal_ctx *x, const char *what)
{
    snprintf(x->err, sizeof x->err, "%s %.400s: %s", what, x->path, strerror(errno));
    return 0;
}

double collio__cal_max(collio__cal_ctx *x, double v)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, x->comm);
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

double collio__cal_median(double *t, int n)
{
    if (n <= 0)
        return 0;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* Node ids (the lowest rank of each node) give rank 0's partners. */
int collio__cal_topology(collio__cal_ctx *x)
{
    int leader = 0, nsize = 0, *ids = malloc((size_t)x->size * sizeof *ids);
    int ok = ids != NULL
             && MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, x->rank, MPI_INFO_NULL,
                                    &x->node)
                    == MPI_SUCCESS;
    if (!ok)
        snprintf(x->err, sizeof x->err, "no memory or no node communicator");
    if (collio__cal_failed(x, ok)) {
        free(ids);
        return 1;
    }
    MPI_Comm_size(x->node, &nsize);
    MPI_Allreduce(&x->rank, &leader, 1, MPI_INT, MPI_MIN, x->node);
    MPI_Allreduce(&nsize, &x->rpn_max, 1, MPI_INT, MPI_MAX, x->comm);
    MPI_Allgather(&leader, 1, MPI_INT, ids, 1, MPI_INT, x->comm);
    x->intra = x->size > 1 && ids[1] == ids[0] ? 1 : -1;
    x->inter = -1;
    x->nnodes = 0;
    for (int r = 0; r < x->size; r++) {
        x->nnodes += ids[r] == r;
        if (x->inter < 0 && ids[r] != ids[0])
            x->inter = r;
    }
    free(ids);
    return 0;
}

/* ---- the network */

/* Rank 0 and `peer` only: the median half round trip of `bytes` messages
 * on rank 0 (0 on the peer). */
static double pingpong(collio__cal_ctx *x, int peer, int bytes, int iters, char *buf)
{
    double *t = malloc((size_t)iters * sizeof *t);
    int warm = iters > 20 ? 10 : 1;
    for (int i = -warm; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (x->rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, x->comm);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, x->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, x->comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, x->comm);
        }
        if (i >= 0 && t != NULL)
            t[i] = (MPI_Wtime() - t0) / 2;
    }
    double half = t != NULL ? collio__cal_median(t, iters) : 0;
    free(t);
    return x->rank == 0 ? half : 0;
}

/* Latency and bandwidth of link k (0 within a node, 1 between) with peer. */
static void link_of(collio__cal_ctx *x, int k, int peer, char *buf)
{
    if (peer < 0 || (x->rank != 0 && x->rank != peer))
        return;
    double lat = pingpong(x, peer, 8, x->b.pingpong_small, buf);
    double big = pingpong(x, peer, x->b.big_bytes, x->b.pingpong_big, buf);
    if (x->rank == 0 && lat > 0 && big > 0) {
        x->cal.latency_s[k] = lat;
        x->cal.bandwidth_Bps[k] = x->b.big_bytes / big;
    }
}

int collio__cal_network(collio__cal_ctx *x)
{
    char *buf = calloc((size_t)x->b.big_bytes, 1);
    errno = ENOMEM;
    if (collio__cal_failed(x, buf != NULL || collio__cal_errno(x, "a buffer for"))) {
        free(buf);
        return 1;
    }
    link_of(x, 0, x->intra, buf);
    link_of(x, 1, x->inter, buf);
    free(buf);
    MPI_Barrier(x->comm);
    return 0;
}

/* ---- memory (rank 0 alone; the others wait at a barrier) */

static volatile unsigned char sink; /* keeps the timed copies */

static double time_copy(unsigned char *dst, const unsigned char *src, size_t n)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = MPI_Wtime();
        memcpy(dst, src, n);
        sink = dst[(size_t)r * 4096 % n];
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* A strategy's pack: pieces of `len` bytes (a runtime value, as there),
 * taken with a stride of 16 bytes. Best of 3. */
static double time_pack(unsigned char *dst, const unsigned char *src, size_t pieces)
{
    static volatile size_t piece_len = 4;
    size_t len = piece_len;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = MPI_Wtime();
        for (size_t i = 0; i < pieces; i++)
            memcpy(dst + len * i, src + 16 * i, len);
        sink = dst[r];
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static int memory_rank0(collio__cal_ctx *x)
{
    const size_t n = (size_t)x->b.copy_bytes, pieces = (size_t)x->b.pack_pieces;
    unsigned char *src = malloc(n > 16 * pieces ? n : 16 * pieces), *dst = malloc(n);
    int ok = src != NULL && dst != NULL;
    if (ok) {
        memset(src, 1, n > 16 * pieces ? n : 16 * pieces);
        memset(dst, 2, n); /* both resident before timing */
        x->cal.copy_Bps = n / time_copy(dst, src, n);
        double t = time_pack(dst, src, pieces);
        double p = (t - 4.0 * pieces / x->cal.copy_Bps) / pieces;
        x->cal.piece_s = p > 0 ? p : 0;
        ok = dst[n / 2] == 1 && dst[4] == 1;
        if (!ok)
            snprintf(x->err, sizeof x->err, "memcpy check failed");
    } else {
        snprintf(x->err, sizeof x->err, "no memory for 2 x %zu bytes", n);
    }
    free(src);
    free(dst);
    return ok;
}

int collio__cal_memory(collio__cal_ctx *x)
{
    int ok = x->rank == 0 ? memory_rank0(x) : 1;
    MPI_Barrier(x->comm);
    return collio__cal_failed(x, ok);
}

/* ---- the node: cores, shared-memory windows */

int collio__cal_node(collio__cal_ctx *x)
{
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN), cmin = 0, ok, all = 0;
    MPI_Allreduce(&cores, &cmin, 1, MPI_INT, MPI_MIN, x->comm);
    void *base = NULL;
    MPI_Win win;
    MPI_Comm_set_errhandler(x->node, MPI_ERRORS_RETURN);
    ok = MPI_Win_allocate_shared(4096, 1, MPI_INFO_NULL, x->node, &base, &win)
         == MPI_SUCCESS;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->node);
    if (all) /* a window that failed somewhere cannot be freed collectively */
        MPI_Win_free(&win);
    MPI_Allreduce(&all, &ok, 1, MPI_INT, MPI_MIN, x->comm);
    x->cal.cores_per_node = cmin > 0 ? cmin : 0;
    x->cal.shm_window = ok;
    return 0;
}
