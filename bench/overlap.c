/*
 * overlap.c -- collio-overlap: a simulation's time step loop that writes
 * its state every step, blocking against non-blocking, in one run
 * (docs/requests.md, "Overlap").
 *
 * Each step computes for C seconds (a busy loop on every rank, calibrated
 * at the start; C defaults to the median time of one blocking write, so
 * that compute and write are equal) and writes a block-cyclic float64
 * vector (--nx elements, blocks of --bx) into one file, step s at offset
 * (s mod 2) * the vector (two slots, as a restart file keeps two):
 *
 *   blocking     compute, then collio_write_at;
 *   nonblocking  collio_iwrite_at of the step's buffer (two buffers,
 *                alternating), compute, then collio_wait: the write runs
 *                on the helper thread (MPI_THREAD_MULTIPLE asked here)
 *                while the rank computes.
 *
 * Per mode, medians over the steps (the first step of each mode is a
 * warm-up): compute (the busy loop), write (the call that writes or
 * starts the write), wait (collio_wait), step (the whole step, the
 * slowest rank's) and the overlap fraction 1 - wait / the blocking
 * write. The file's slots are read back and compared at the end.
 *
 * usage: collio-overlap [--nx N] [--bx N] [--steps N] [--compute S]
 *                       [--dir DIR] [--strategy S] [--hints H]
 * Exit 0, 1 on a mismatch or a failed call, 2 usage.
 */
#include "collio.h"

#include "bench_mpi.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check(int rc, const char *what)
{
    if (rc != COLLIO_OK) {
        fprintf(stderr, "collio-overlap: %s: %s\n", what, collio_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The busy loop: n iterations of dependent arithmetic. */
static volatile double sink;
static void spin(int64_t n)
{
    double x = 1.0;
    for (int64_t i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Iterations per second of spin on this rank, the slowest rank's. */
static double spin_rate(void)
{
    int64_t n = 1 << 20;
    double t;
    do {
        n *= 2;
        double t0 = MPI_Wtime();
        spin(n);
        t = MPI_Wtime() - t0;
    } while (t < 0.05);
    double rate = (double)n / t, slow = 0;
    MPI_Allreduce(&rate, &slow, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return slow;
}

static double value(int64_t step, int64_t g)
{
    return (double)step * 1e10 + (double)g;
}

enum { F_COMPUTE, F_WRITE, F_WAIT, F_STEP, F__COUNT };

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long nx = 2 * 1024 * 1024, bx = 4096, steps = 8;
    double compute = -1;
    const char *dir = ".", *hints = "", *strategy = NULL;
    const bench_opt opts[] = {{"--nx", .l = &nx},
                              {"--bx", .l = &bx},
                              {"--steps", .l = &steps},
                              {"--compute", .d = &compute},
                              {"--dir", .s = &dir},
                              {"--hints", .s = &hints},
                              {"--strategy", .s = &strategy}};
    int ok = bench_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts));
    if (!ok || nx < 1 || bx < 1 || steps < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: collio-overlap [--nx N] [--bx N] [--steps N] "
                            "[--compute S] [--dir DIR] [--strategy S] [--hints H]\n");
        MPI_Finalize();
        return 2;
    }
    collio_layout *l = NULL;
    check(collio_layout_block_cyclic(MPI_COMM_WORLD, nx, bx, sizeof(double), &l),
          "layout");
    collio_hints *h = NULL;
    check(collio_hints_create(&h), "hints");
    check(collio_hints_parse(h, hints), "--hints");
    collio_plan *plan = NULL;
    check(collio_plan_create(MPI_COMM_WORLD, l, strategy, h, &plan), "plan");
    int64_t mine = collio_layout_local_count(l);
    size_t bytes = (size_t)mine * sizeof(double);
    double *buf[2] = {malloc(bytes + 1), malloc(bytes + 1)};
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char path[1200];
    snprintf(path, sizeof path, "%s/collio-overlap-%ld.dat", dir, pid);
    collio_file *f = NULL;
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &f), "open");
    const int64_t slot = nx * (int64_t)sizeof(double);
    double rate = spin_rate();
    if (compute < 0) { /* one blocking write, as it runs warm: the median of 3 */
        double w[3];
        for (int i = -1; i < 3; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            check(collio_write_at(plan, f, 0, buf[0], bytes), "collio_write_at");
            if (i >= 0)
                w[i] = bench_maxed(MPI_Wtime() - t0);
        }
        compute = bench_median(w, 3);
    }
    double fig[2][F__COUNT], *v[F__COUNT];
    for (int k = 0; k < F__COUNT; k++)
        v[k] = malloc((size_t)steps * sizeof *v[k]);
    int64_t step = 0;
    for (int mode = 0; mode < 2; mode++) {
        collio_request *r = NULL;
        for (long s = -1; s < steps; s++, step++) { /* s = -1: the warm-up */
            double *b = buf[step % 2];
            for (int64_t k = 0; k < mine; k++)
                b[k] = value(step, collio_layout_global_index(l, k));
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime(), tc, tw, tq;
            int64_t at = (step % 2) * slot;
            if (mode == 0) {
                spin((int64_t)(compute * rate));
                tc = MPI_Wtime();
                check(collio_write_at(plan, f, at, b, bytes), "collio_write_at");
                tw = tq = MPI_Wtime();
            } else {
                check(collio_iwrite_at(plan, f, at, b, bytes, &r), "collio_iwrite_at");
                tw = MPI_Wtime();
                spin((int64_t)(compute * rate));
                tc = MPI_Wtime();
                check(collio_wait(&r), "collio_wait");
                tq = MPI_Wtime();
            }
            double step_s = bench_maxed(tq - t0);
            if (s < 0)
                continue;
            v[F_COMPUTE][s] = mode == 0 ? tc - t0 : tc - tw;
            v[F_WRITE][s] = mode == 0 ? tq - tc : tw - t0;
            v[F_WAIT][s] = mode == 0 ? 0 : tq - tc;
            v[F_STEP][s] = step_s;
        }
        for (int k = 0; k < F__COUNT; k++)
            fig[mode][k] = bench_maxed(bench_median(v[k], (int)steps));
    }
    double thread = 0;
    collio_plan_stat(plan, "request.thread", &thread);
    check(collio_file_close(&f), "close");
    /* the two slots: the last two steps' data */
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, NULL, &f), "reopen");
    long long bad = 0;
    for (int64_t last = step - 2; last < step; last++) {
        memset(buf[0], 0, bytes);
        check(collio_read_at(plan, f, (last % 2) * slot, buf[0], bytes), "read");
        for (int64_t k = 0; k < mine; k++)
            bad += buf[0][k] != value(last, collio_layout_global_index(l, k));
    }
    check(collio_file_close(&f), "close");
    long long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        double w = fig[0][F_WRITE];
        printf("overlap: %ld float64 (%.1f MB), bx %ld, %d ranks, %ld steps (median), "
               "compute %.4f s per step, helper thread %s\n",
               nx, (double)slot / 1e6, bx, P, steps, compute, thread ? "yes" : "no");
        printf("%-12s %10s %10s %10s %10s %8s\n", "mode", "compute_s", "write_s",
               "wait_s", "step_s", "overlap");
        for (int m = 0; m < 2; m++)
            printf("%-12s %10.4f %10.4f %10.4f %10.4f %8.2f\n",
                   m == 0 ? "blocking" : "nonblocking", fig[m][F_COMPUTE],
                   fig[m][F_WRITE], fig[m][F_WAIT], fig[m][F_STEP],
                   m == 0 ? 0.0 : 1 - fig[1][F_WAIT] / (w > 0 ? w : 1));
        printf("nonblocking step / blocking step: %.3f; / max(compute, write): %.3f\n",
               fig[1][F_STEP] / fig[0][F_STEP],
               fig[1][F_STEP] / (compute > w ? compute : w));
        if (all)
            fprintf(stderr, "collio-overlap: %lld elements read back wrong\n", all);
    }
    for (int k = 0; k < F__COUNT; k++)
        free(v[k]);
    free(buf[0]), free(buf[1]);
    collio_plan_free(&plan);
    collio_layout_free(&l);
    collio_hints_free(&h);
    MPI_Finalize();
    return all ? 1 : 0;
}
