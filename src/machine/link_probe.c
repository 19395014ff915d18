/*
 * machine/link_probe.c -- how fast the network between nodes is against
 * a copy in memory, measured once per process: for multiphase's choice
 * of an exchange across nodes (strategies/multiphase/choose.c), and for
 * strategy auto's model where no calibration file gave the network's
 * constants (strategies/auto/auto.c).
 *
 * Why measure. Across nodes the node-aware exchanges move each byte that
 * crosses nodes once more within each node (to the port, from the port),
 * to send a few large messages between nodes instead of P - 1 small ones
 * per rank. That pays where the network is the bottleneck (a 100 Mbit/s
 * link: 0.26 s for a 16 MB vector over 4 nodes against milliseconds of
 * copies) and costs where it is not (2 nodes over a 15 Gbit/s link: the
 * extra copies made the exchange 30-50 % slower than the direct one). The
 * library cannot know the link; a ping-pong of PROBE_BYTES between the
 * first two nodes' lowest ranks tells it, in a few milliseconds on a fast
 * network and ~0.5 s at 100 Mbit/s, once per process, and a copy of
 * COPY_BYTES in memory on rank 0 the other side of the ratio (about
 * 30 ms, most of it faulting in the buffers).
 *
 * The probe is collective: every rank of the plan takes part in the
 * decision whether to run it (one of them lacking a measurement is
 * enough), and rank 0's figures are broadcast, so that every rank
 * chooses the same exchange.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "core/core.h"

#include <stdlib.h>

#include <string.h>

#define PROBE_BYTES (1024 * 1024)
/* A memory copy is timed over more than a cache holds. */
#define COPY_BYTES ((size_t)16 << 20)
#define TAG_PROBE 3900

static double g_net_bw, g_mem_bw; /* bytes / s; 0 = not measured */
static volatile char g_sink;      /* keeps the timed copy from being elided */

/* Bytes per second of a memcpy of COPY_BYTES (best of 3; 0 if no
 * memory for the test). */
static double copy_rate(void)
{
    char *a = malloc(2 * COPY_BYTES);
    if (a == NULL)
        return 0;
    memset(a, 1, 2 * COPY_BYTES); /* (the pages exist before the timing) */
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t0 = collio__now();
        memcpy(a + COPY_BYTES, a, COPY_BYTES);
        g_sink = a[COPY_BYTES + (size_t)i * 4096];
        double t = collio__now() - t0;
        if (t < best)
            best = t;
    }
    free(a);
    return best > 0 ? COPY_BYTES / best : 1e12;
}

int collio__link_probe(collio_plan *p, double *net_bw, double *mem_bw)
{
    int have = g_net_bw > 0, all = 0, rc = COLLIO_OK;
    if (MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    double v[2] = {g_net_bw, g_mem_bw};
    if (!all) {
        /* rank 0 and the lowest rank of another node */
        int peer = -1;
        for (int q = 1; q < p->nranks && peer < 0; q++)
            if (p->node_of[q] != p->node_of[0])
                peer = q;
        char *a = calloc(1, PROBE_BYTES);
        if (a == NULL)
            rc = COLLIO_ERR_NOMEM;
        rc = collio__agree(p->comm, rc);
        if (rc != COLLIO_OK) {
            free(a);
            return rc;
        }
        if (peer > 0 && (p->rank == 0 || p->rank == peer)) {
            int other = p->rank == 0 ? peer : 0;
            double t = 1e30;
            for (int i = 0; i < 3 && rc == COLLIO_OK; i++) { /* warm-up, then best of 2 */
                double t0 = collio__now();
                if (p->rank == 0) {
                    if (MPI_Send(a, PROBE_BYTES, MPI_BYTE, other, TAG_PROBE, p->comm)
                            != MPI_SUCCESS
                        || MPI_Recv(a, PROBE_BYTES, MPI_BYTE, other, TAG_PROBE, p->comm,
                                    MPI_STATUS_IGNORE)
                               != MPI_SUCCESS)
                        rc = COLLIO_ERR_MPI;
                } else if (MPI_Recv(a, PROBE_BYTES, MPI_BYTE, other, TAG_PROBE, p->comm,
                                    MPI_STATUS_IGNORE)
                               != MPI_SUCCESS
                           || MPI_Send(a, PROBE_BYTES, MPI_BYTE, other, TAG_PROBE,
                                       p->comm)
                                  != MPI_SUCCESS) {
                    rc = COLLIO_ERR_MPI;
                }
                if (i > 0 && collio__now() - t0 < t)
                    t = collio__now() - t0;
            }
            v[0] = t > 0 ? 2.0 * PROBE_BYTES / t : 1e12;
            /* rank 0's figures are the ones broadcast: the peer's copy
             * would only take a core from it on a shared node */
            if (p->rank == 0)
                v[1] = copy_rate();
        }
        free(a);
        rc = collio__agree(p->comm, rc);
        if (rc == COLLIO_OK && MPI_Bcast(v, 2, MPI_DOUBLE, 0, p->comm) != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
        if (rc != COLLIO_OK)
            return rc;
        g_net_bw = v[0];
        g_mem_bw = v[1];
    } else if (MPI_Bcast(v, 2, MPI_DOUBLE, 0, p->comm) != MPI_SUCCESS) {
        return COLLIO_ERR_MPI; /* rank 0's figures: the same choice everywhere */
    }
    *net_bw = v[0];
    *mem_bw = v[1];
    return COLLIO_OK;
}
