/*
 * mpi-exchange.c -- the network's floor as MPI itself reaches it: every
 * rank sends BYTES to every other rank at once (MPI_Isend / MPI_Irecv,
 * contiguous buffers, nothing of collio), REPS times after 0.1 s of idle
 * (as between the bench's writes); prints the slowest rank's time per
 * rep. Run with one rank per emulated host, it moves exactly what
 * node-direct moves between nodes -- one message per node pair -- and
 * tells how close MPI over the emulated links comes to the socket test
 * (scripts/netrate; docs/multiphase.md, "Across nodes").
 *
 * MODE "all" (the default) posts every message at once; "pairwise"
 * runs P - 1 rounds, in round k sending to me + k and receiving from
 * me - k, so that each link carries one flow at a time (MPICH's
 * alltoall for long messages).
 *
 * Usage: mpi-exchange BYTES [REPS [MODE]]   (e.g. under scripts/hosts 4x1)
 */
#define _GNU_SOURCE /* usleep */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long n = argc > 1 ? atol(argv[1]) : 1 << 20;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    const char *mode = argc > 3 ? argv[3] : "all";
    int pairwise = strcmp(mode, "pairwise") == 0;
    if (n < 1 || n > (1L << 30) || reps < 1 || (!pairwise && strcmp(mode, "all") != 0)) {
        if (me == 0)
            fprintf(stderr, "usage: mpi-exchange BYTES [REPS [all|pairwise]]\n");
        MPI_Finalize();
        return 2;
    }
    char *s = calloc((size_t)P, (size_t)n), *r = calloc((size_t)P, (size_t)n);
    MPI_Request *rq = malloc(2 * (size_t)P * sizeof *rq);
    /* (a real status array: MPICH's MPI_STATUSES_IGNORE sentinel trips
     * gcc's -Wstringop-overflow, as in src/base/progress.c) */
    MPI_Status *sts = malloc(2 * (size_t)P * sizeof *sts);
    if (s == NULL || r == NULL || rq == NULL || sts == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int rep = 0; rep < reps; rep++) {
        usleep(100000);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int k = 0;
        for (int d = 1; pairwise && d < P; d++) {
            int to = (me + d) % P, from = (me - d + P) % P;
            MPI_Sendrecv(s + (size_t)to * n, (int)n, MPI_BYTE, to, 0,
                         r + (size_t)from * n, (int)n, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
        for (int q = 0; !pairwise && q < P; q++)
            if (q != me)
                MPI_Irecv(r + (size_t)q * n, (int)n, MPI_BYTE, q, 0, MPI_COMM_WORLD,
                          &rq[k++]);
        for (int q = 0; !pairwise && q < P; q++)
            if (q != me)
                MPI_Isend(s + (size_t)q * n, (int)n, MPI_BYTE, q, 0, MPI_COMM_WORLD,
                          &rq[k++]);
        MPI_Waitall(k, rq, sts);
        double t = MPI_Wtime() - t0, mx = 0;
        MPI_Reduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("mpi-exchange %s: rep %d: %.3f s, %.2f MB sent per rank\n", mode, rep,
                   mx, (double)n * (P - 1) / 1e6);
    }
    free(s);
    free(r);
    free(rq);
    free(sts);
    MPI_Finalize();
    return 0;
}
