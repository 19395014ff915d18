/*
 * mpiio_history.c -- collio-mpiio-history: a climate model's history
 * file through plain MPI-IO, to time it plainly and with the interposer
 * LD_PRELOAD'ed (docs/mpiio.md, "A history file"). NVARS float64
 * variables of one decomposition, one after the other in the file: the
 * global vector of each is cut into runs of RUN/2 .. 3*RUN/2 elements
 * (lengths from a seeded generator), dealt round-robin to the ranks
 * (each rank holds --pieces runs, scattered over the whole vector); the
 * rank's runs are the view (an MPI_Type_indexed filetype of MPI_DOUBLE,
 * resized to the vector), and each variable is one MPI_File_write_at_all
 * at the view offset of its record -- as PIO and E3SM write their
 * history files. --reps records, each a new file. Afterwards the last
 * file is read back (read_at_all per variable) and every element
 * compared.
 *
 * --nonblocking: each variable is one MPI_File_iwrite_at_all instead, all
 * started before one MPI_Waitall -- as PnetCDF's iput + wait_all asks;
 * with --compute S, every rank computes for S seconds (a busy loop)
 * between the starts and the Waitall, the time a simulation's next step
 * would take: what the write costs the step is then the record's time
 * beyond S. --threads: MPI_Init_thread(MPI_THREAD_MULTIPLE) (the
 * interposer's helper thread needs it; the plain run then asks the same).
 *
 * usage: collio-mpiio-history [--vars N] [--pieces N] [--run N] [--reps N]
 *                             [--dir DIR] [--seed S] [--nonblocking]
 *                             [--compute S] [--threads]
 * One CSV line per record on stdout: vars,pieces,run,nprocs,bytes,
 * seconds (blocking: the record's write calls, summed, each the slowest
 * rank's after a barrier; non-blocking: from the first start to the
 * Waitall's return, the compute included, the slowest rank's),
 * median_call_s (non-blocking: seconds / vars), open_close_s, mode
 * (blocking, nonblocking), compute_s. Exit 0, 1 on a mismatch, 2 usage.
 * Run it through scripts/mpirun N.
 */
#include "bench_mpi.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of variable v at global element g: exact in a double. */
static double value(int v, int64_t g)
{
    return (double)(v + 1) * 1e9 + (double)g;
}

/* Every rank busy for secs (the simulation's next step). */
static double compute(double secs)
{
    double x = 0, t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < secs)
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
    return x;
}

int main(int argc, char **argv)
{
    int threads = 0, nonblocking = 0;
    for (int i = 1; i < argc; i++) {
        threads |= strcmp(argv[i], "--threads") == 0;
        nonblocking |= strcmp(argv[i], "--nonblocking") == 0;
    }
    int provided = 0;
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long vars = 20, pieces = 5000, run = 100, reps = 3, seed = 7;
    const char *dir = ".";
    double busy = 0;
    const bench_opt opts[] = {{"--vars", .l = &vars},
                              {"--pieces", .l = &pieces},
                              {"--run", .l = &run},
                              {"--reps", .l = &reps},
                              {"--seed", .l = &seed},
                              {"--dir", .s = &dir},
                              {"--compute", .d = &busy},
                              {"--threads", .flag = &threads},
                              {"--nonblocking", .flag = &nonblocking}};
    int ok = bench_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts));
    if (!ok || vars < 1 || pieces < 1 || run < 2 || reps < 1 || busy < 0
        || (busy > 0 && !nonblocking)) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: collio-mpiio-history [--vars N] [--pieces N] [--run N] "
                    "[--reps N] [--dir DIR] [--seed S] [--nonblocking] [--compute S] "
                    "[--threads]\n");
        MPI_Finalize();
        return 2;
    }
    /* the runs of the whole vector (the same on every rank: one seed),
     * dealt round-robin: rank r holds runs r, r + P, ... */
    const int64_t nruns = (int64_t)pieces * P;
    int *blen = malloc((size_t)pieces * sizeof *blen),
        *bdisp = malloc((size_t)pieces * sizeof *bdisp);
    int64_t *gdisp = malloc((size_t)pieces * sizeof *gdisp);
    uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    int64_t nx = 0, mine = 0;
    for (int64_t k = 0, j = 0; k < nruns; k++) {
        int len = (int)(run / 2 + (int64_t)(bench_rnd(&s) % (uint64_t)run) + 1);
        if (k % P == rank) {
            blen[j] = len, gdisp[j] = nx, bdisp[j] = (int)nx;
            mine += len, j++;
        }
        nx += len;
    }
    if (nx > INT32_MAX) {
        if (rank == 0)
            fprintf(stderr, "collio-mpiio-history: %lld elements: too many\n",
                    (long long)nx);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Datatype idx, ft;
    MPI_Type_indexed((int)pieces, blen, bdisp, MPI_DOUBLE, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)nx * 8, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&idx);
    double *buf = malloc((size_t)mine * vars * sizeof *buf);
    for (long v = 0; v < vars; v++)
        for (int64_t j = 0, at = 0; j < pieces; j++)
            for (int e = 0; e < blen[j]; e++)
                buf[v * mine + at++] = value((int)v, gdisp[j] + e);
    char path[1200];
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/collio-mpiio-history-%ld.dat", dir, pid);
    if (rank == 0)
        printf("vars,pieces,run,nprocs,bytes,seconds,median_call_s,open_close_s,mode,"
               "compute_s\n");
    double *calls = malloc((size_t)vars * sizeof *calls);
    MPI_Request *rq = malloc((size_t)vars * sizeof *rq);
    MPI_Status *sts = malloc((size_t)vars * sizeof *sts);
    for (long r = 0; r < reps; r++) {
        if (rank == 0)
            unlink(path);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), sum = 0;
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &fh)
            != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        if (nonblocking) {
            MPI_Barrier(MPI_COMM_WORLD);
            double tc = MPI_Wtime();
            for (long v = 0; v < vars; v++)
                MPI_File_iwrite_at_all(fh, (MPI_Offset)(v * mine), buf + v * mine,
                                       (int)mine, MPI_DOUBLE, &rq[v]);
            compute(busy);
            if (MPI_Waitall((int)vars, rq, sts) != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            sum = bench_maxed(MPI_Wtime() - tc);
            for (long v = 0; v < vars; v++)
                calls[v] = sum / (double)vars;
        }
        for (long v = 0; v < vars && !nonblocking; v++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double tc = MPI_Wtime();
            MPI_File_write_at_all(fh, (MPI_Offset)(v * mine), buf + v * mine, (int)mine,
                                  MPI_DOUBLE, MPI_STATUS_IGNORE);
            calls[v] = bench_maxed(MPI_Wtime() - tc);
            sum += calls[v];
        }
        MPI_File_close(&fh);
        double oc = bench_maxed(MPI_Wtime() - t0);
        qsort(calls, (size_t)vars, sizeof *calls, bench_cmp_double);
        if (rank == 0)
            printf("%ld,%ld,%ld,%d,%lld,%.6f,%.6f,%.6f,%s,%.6f\n", vars, pieces, run, P,
                   (long long)(nx * 8 * vars), sum, calls[vars / 2], oc,
                   nonblocking ? "nonblocking" : "blocking", busy);
    }
    /* the last record read back and compared */
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    double *back = malloc((size_t)mine * sizeof *back);
    long long bad = 0;
    for (long v = 0; v < vars; v++) {
        memset(back, 0, (size_t)mine * sizeof *back);
        MPI_File_read_at_all(fh, (MPI_Offset)(v * mine), back, (int)mine, MPI_DOUBLE,
                             MPI_STATUS_IGNORE);
        for (int64_t k = 0; k < mine; k++)
            bad += back[k] != buf[v * mine + k];
    }
    MPI_File_close(&fh);
    long long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        if (all)
            fprintf(stderr, "collio-mpiio-history: %lld elements read back wrong\n", all);
    }
    MPI_Type_free(&ft);
    free(buf), free(back), free(calls), free(rq), free(sts), free(blen), free(bdisp),
        free(gdisp);
    MPI_Finalize();
    return all ? 1 : 0;
}
