/*
 * progress.c -- waiting for point-to-point requests, politely when the node
 * is oversubscribed.
 *
 * Why: MPI_Waitall spins. With more ranks on a node than cores a waiting
 * rank that spins -- even with Open MPI's mpi_yield_when_idle, which only
 * calls sched_yield and stays runnable -- takes CPU time from the ranks
 * whose data it waits for. Here a waiting rank polls with MPI_Testall
 * (which also drives the transfer) and, once a burst of polls found
 * nothing, sleeps a few microseconds between polls (backing off to at most
 * ~0.25 ms), so the working ranks get the cores. On a node with a core per
 * rank it is plain MPI_Waitall -- through the profiling layer
 * (PMPI_Wait, PMPI_Waitall), as every MPI call of collio's that the
 * MPI-IO interposer stands in for: the interposer waits for its own
 * requests there (interposer/nonblocking.c), and collio's waits, on the
 * helper thread too, must never come back into it.
 */
#include "base/base.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#endif

static int cores_available(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int collio__node_oversubscribed(MPI_Comm comm, int node_ranks)
{
    int over = node_ranks > cores_available(), any = over;
    /* one decision for all ranks, so that behaviour is uniform */
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* Statuses for n requests: a small array on the caller's stack, else
 * malloc'd (a real array either way: MPICH's MPI_STATUSES_IGNORE sentinel
 * trips gcc's -Wstringop-overflow). */
static int waitall_polite(int n, MPI_Request *rq, int oversubscribed, MPI_Status *st);

int collio__waitall(int n, MPI_Request *rq, int oversubscribed)
{
    if (n <= 0)
        return COLLIO_OK;
    MPI_Status small[4];
    if (n <= 4)
        return waitall_polite(n, rq, oversubscribed, small);
    MPI_Status *st = malloc((size_t)n * sizeof *st);
    if (st == NULL) { /* still complete the requests: the peers need them */
        for (int i = 0; i < n; i++)
            if (PMPI_Wait(&rq[i], small) != MPI_SUCCESS)
                return COLLIO_ERR_MPI;
        return COLLIO_OK;
    }
    int rc = waitall_polite(n, rq, oversubscribed, st);
    free(st);
    return rc;
}

static int waitall_polite(int n, MPI_Request *rq, int oversubscribed, MPI_Status *st)
{
    if (!oversubscribed)
        return PMPI_Waitall(n, rq, st) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_MPI;
    long nap_ns = 1000;
    for (int idle = 0;;) {
        int done = 0;
        if (MPI_Testall(n, rq, &done, st) != MPI_SUCCESS)
            return COLLIO_ERR_MPI;
        if (done)
            return COLLIO_OK;
        if (++idle < 64)
            continue; /* a burst of polls drives a transfer under way */
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 256000)
            nap_ns *= 2;
        idle = 0;
    }
}

void collio__isend(const void *buf, int count, MPI_Datatype type, int to, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc)
{
    if (MPI_Isend(buf, count, type, to, tag, comm, &rq[*nr]) != MPI_SUCCESS) {
        rq[*nr] = MPI_REQUEST_NULL;
        *rc = COLLIO_ERR_MPI;
    }
    (*nr)++;
}

void collio__irecv(void *buf, int count, MPI_Datatype type, int from, int tag,
                   MPI_Comm comm, MPI_Request *rq, int *nr, int *rc)
{
    if (MPI_Irecv(buf, count, type, from, tag, comm, &rq[*nr]) != MPI_SUCCESS) {
        rq[*nr] = MPI_REQUEST_NULL;
        *rc = COLLIO_ERR_MPI;
    }
    (*nr)++;
}
