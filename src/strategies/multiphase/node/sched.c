/*
 * node/sched.c -- the schedule of the node-aware exchanges
 * (node/node.h): where each piece goes in each route step. Pure
 * integer arithmetic over the node map, no MPI, so that the unit test can
 * run it at 64 nodes x 32 ranks.
 *
 * Ports (node-direct). Node S numbers the other nodes from S + 1 on:
 * N gets (N - S - 1) mod M in 0 .. M - 2, and that number modulo S's rank
 * count picks S's port for N. The port on N for S is picked the same way
 * from N's side. So the M - 1 destination nodes are dealt out evenly over
 * a node's ranks (ceil((M - 1) / m) per rank at most), and node pairs
 * (S, N) and (N, S) do not all land on the node's first rank.
 */
#include "node.h"

#include <stdlib.h>

void collio__mp_nodes_free(collio__mp_nodes *n)
{
    free(n->node_of);
    free(n->lidx);
    free(n->first);
    free(n->rank);
    free(n->key);
    *n = (collio__mp_nodes){0};
}

int collio__mp_nodes_init(collio__mp_nodes *n, int P, const int *node_of)
{
    int M = 0;
    *n = (collio__mp_nodes){0};
    for (int r = 0; r < P; r++) {
        if (node_of[r] < 0 || node_of[r] >= P)
            return COLLIO_ERR_ARG;
        if (node_of[r] >= M)
            M = node_of[r] + 1;
    }
    n->P = P;
    n->M = M;
    n->node_of = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->node_of);
    n->lidx = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->lidx);
    n->rank = malloc((size_t)(P > 0 ? P : 1) * sizeof *n->rank);
    n->first = calloc((size_t)M + 1, sizeof *n->first);
    n->key = malloc((size_t)(M > 0 ? M : 1) * sizeof *n->key);
    if (!n->node_of || !n->lidx || !n->rank || !n->first || !n->key)
        return COLLIO_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        n->node_of[r] = node_of[r];
        n->first[node_of[r] + 1]++;
    }
    for (int N = 0; N < M; N++) {
        if (n->first[N + 1] == 0)
            return COLLIO_ERR_ARG; /* a node without ranks: not dense */
        n->first[N + 1] += n->first[N];
        n->key[N] = collio__mp_domain_of_rank(M, N);
    }
    int *fill = calloc((size_t)(M > 0 ? M : 1), sizeof *fill);
    if (fill == NULL)
        return COLLIO_ERR_NOMEM;
    for (int r = 0; r < P; r++) { /* ascending: each node's ranks in order */
        int N = node_of[r];
        n->lidx[r] = fill[N]++;
        n->rank[n->first[N] + n->lidx[r]] = r;
    }
    free(fill);
    return COLLIO_OK;
}

int collio__mp_node_nsteps(const collio__mp_nodes *n, int x)
{
    if (x == MP_EXCHANGE_NODE_HYPERCUBE)
        return collio__mp_nphases(n->M) + 1;
    return n->M > 1 ? 3 : 1;
}

static int size_of(const collio__mp_nodes *n, int N)
{
    return n->first[N + 1] - n->first[N];
}

/* The rank of local index i (taken modulo the node's size) on node N. */
static int rank_at(const collio__mp_nodes *n, int N, int i)
{
    return n->rank[n->first[N] + i % size_of(n, N)];
}

/* Node S's port for traffic with node N != S. */
static int port(const collio__mp_nodes *n, int S, int N)
{
    return rank_at(n, S, ((N - S - 1) % n->M + n->M) % n->M);
}

static int route_direct(const collio__mp_nodes *n, int step, int holder, int owner)
{
    int S = n->node_of[holder], N = n->node_of[owner];
    switch (step) {
    case 0: /* within the node: to the port for N (or the owner here) */
        return N == S ? owner : port(n, S, N);
    case 1: /* between nodes: port to port */
        return N == S ? holder : port(n, N, S);
    default: /* within the node: to the owner */
        return owner;
    }
}

static int route_hypercube(const collio__mp_nodes *n, int step, int holder, int owner)
{
    if (step >= collio__mp_nphases(n->M))
        return owner; /* the last step: within the node */
    int S = n->node_of[holder];
    int64_t k = n->key[n->node_of[owner]];
    collio__mp_step st;
    collio__mp_step_of(n->M, n->M, S, step, &st);
    if (st.group_size <= 1 || k < st.send_lo || k >= st.send_hi)
        return holder;
    int T = st.partner >= 0 ? st.partner : st.lonely_to;
    return rank_at(n, T, n->lidx[holder]);
}

int collio__mp_node_route(const collio__mp_nodes *n, int x, int step, int holder,
                          int owner)
{
    return x == MP_EXCHANGE_NODE_HYPERCUBE ? route_hypercube(n, step, holder, owner)
                                           : route_direct(n, step, holder, owner);
}

/* The cost model of the automatic choice between the two: a message
 * across nodes costs its latency, a byte across nodes the link's time,
 * a byte moved within a node a copy. Each rank holds `bytes`, spread over
 * every domain (the worst case for both: bx = 1).
 *   node-direct: ceil((M - 1) / m) messages across nodes per rank;
 *     (M - 1) / M of the bytes cross once; every byte moves up to twice
 *     within its nodes (to the port, from the port).
 *   node-hypercube: ceil(log2 M) messages; half the bytes cross in each
 *     phase; the kept half is copied in each phase, everything moves once
 *     within the node at the end.
 * The rates are measured (machine/link_probe.c); the latency of a message
 * across nodes, with its rendezvous, is taken as ~50 us. */
#define NODE_ALPHA_S 50e-6

double collio__mp_node_cost(const collio__mp_nodes *n, int x, double bytes, double net_bw,
                            double mem_bw)
{
    double M = n->M, msgs = 0, cross = 0, local = 0;
    if (n->M <= 1)
        return bytes / mem_bw;
    if (x == MP_EXCHANGE_NODE_HYPERCUBE) {
        int L = collio__mp_nphases(n->M);
        msgs = L;
        cross = bytes * L / 2;
        local = bytes * L / 2 + bytes;
    } else {
        for (int N = 0; N < n->M; N++) {
            int m = size_of(n, N);
            double k = (n->M - 1 + m - 1) / m;
            msgs = k > msgs ? k : msgs;
        }
        cross = bytes * (M - 1) / M;
        local = 2 * bytes;
    }
    return msgs * NODE_ALPHA_S + cross / net_bw + local / mem_bw;
}
