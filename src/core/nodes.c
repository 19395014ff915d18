/*
 * nodes.c -- which node each rank of a plan runs on, and the counting of
 * point-to-point traffic apart for messages that cross nodes (what a
 * cluster's network carries) and those within a node (shared memory).
 *
 * Nodes are MPI's: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) -- ranks
 * that can share memory. Node indices are dense, numbered in the order of
 * their lowest rank.
 */
#include "base/base.h"
#include "core/core.h"

#include <string.h>

int collio__plan_nodes(collio_plan *p)
{
    int P = p->nranks, rc = COLLIO_OK, lowest = p->rank;
    MPI_Comm node = MPI_COMM_NULL;
    p->node_of = malloc((size_t)P * sizeof *p->node_of);
    if (p->node_of == NULL)
        rc = COLLIO_ERR_NOMEM;
    /* the lowest plan rank of this rank's node names the node */
    if (MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &node)
            != MPI_SUCCESS
        || MPI_Allreduce(&p->rank, &lowest, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK
        && MPI_Allgather(&lowest, 1, MPI_INT, p->node_of, 1, MPI_INT, p->comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK) {
        /* dense indices: node of lowest rank r gets the next index when r
         * first appears (ranks are scanned in order, so r == q there) */
        int n = 0;
        for (int q = 0; q < P; q++)
            p->node_of[q] = p->node_of[q] == q ? n++ : p->node_of[p->node_of[q]];
        p->stats.nnodes = n;
    }
    return collio__agree(p->comm, rc);
}

void collio__count_p2p(collio_plan *p, int peer, int64_t sent_bytes)
{
    p->stats.messages++;
    p->stats.bytes_sent += sent_bytes;
    if (p->node_of != NULL && p->node_of[peer] != p->node_of[p->rank]) {
        p->stats.messages_offnode++;
        p->stats.bytes_offnode += sent_bytes;
    }
}
