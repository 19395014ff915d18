/*
 * node/node.h -- the node-aware exchanges of the multiphase strategy
 * (node/transport.c; their schedule in node/sched.c, pure and
 * unit-tested in tests/unit_node_sched.c).
 *
 * Both move every piece of data from the rank that holds it to the rank
 * that writes its file domain (domain d on rank d, P balanced domains) in
 * a few "route steps". In a step every rank sends each piece it holds to
 * the rank the schedule names (or keeps it); the schedule depends only on
 * the node map, the step, the holder and the piece's owner. Half-open
 * ranges, element positions everywhere (multiply by esize for bytes).
 *
 *   node-direct (MP_EXCHANGE_NODE_DIRECT), 3 steps:
 *     0  within each node: a piece for another node goes to the node's
 *        "port" rank for that destination node; a piece for this node
 *        straight to its owner;
 *     1  between nodes: each port sends what it gathered for node N to
 *        N's port for this source node -- one message per node pair, all
 *        of a node's data for N in it, each byte across the network once;
 *     2  within each node: the ports hand the pieces to their owners.
 *     Ports are spread over a node's ranks, so a rank sends at most
 *     ceil((nodes - 1) / ranks on its node) messages across nodes.
 *
 *   node-hypercube (MP_EXCHANGE_NODE_HYPERCUBE), ceil(log2 nodes) + 1
 *     steps: the seeds' hypercube phases with nodes in the place of ranks
 *     (the groups, partners and lonely nodes of collio__mp_step_of over
 *     node indices), each rank of a node a "lane" sending to the rank of
 *     the same local index (mod that node's size) on the partner node;
 *     then one step within each node to the owners. One message per rank
 *     across nodes per phase, data moved up to log2(nodes) times.
 */
#ifndef COLLIO_MULTIPHASE_NODE_H
#define COLLIO_MULTIPHASE_NODE_H

#include "../multiphase.h"

/* ---- the schedule (node/sched.c; pure, no MPI) */

/* Which ranks run on which node. */
typedef struct collio__mp_nodes {
    int P, M;          /* ranks, nodes */
    int *node_of;      /* [P] node index of each rank (0 .. M - 1) */
    int *lidx;         /* [P] index of each rank among its node's ranks */
    int *first, *rank; /* node N's ranks, ascending: rank[first[N] .. first[N + 1]) */
    int *key;          /* [M] node-hypercube: the node domain node N ends with */
} collio__mp_nodes;

/* The map of P ranks on nodes node_of[0..P) (dense indices 0 .. M - 1).
 * COLLIO_ERR_NOMEM or COLLIO_ERR_ARG (indices not dense); free with
 * collio__mp_nodes_free even on failure. */
int collio__mp_nodes_init(collio__mp_nodes *n, int P, const int *node_of);
void collio__mp_nodes_free(collio__mp_nodes *n);

/* Route steps of exchange kind x (NODE_DIRECT or NODE_HYPERCUBE) over n. */
int collio__mp_node_nsteps(const collio__mp_nodes *n, int x);

/* The rank that `holder` sends a piece owned by rank `owner` to in step
 * `step` of kind x (holder itself: the piece stays). */
int collio__mp_node_route(const collio__mp_nodes *n, int x, int step, int holder,
                          int owner);

/* ---- the exchange (node/transport.c) */

/* Pure: the modelled time of exchange kind x over the node map for
 * `bytes` bytes per rank spread evenly over the file (seconds), on links
 * of net_bw and memory copies of mem_bw bytes per second. */
double collio__mp_node_cost(const collio__mp_nodes *n, int x, double bytes, double net_bw,
                            double mem_bw);

/* One route step: buffer A (the stream in step 0 of a write) -> buffer B
 * = [kept pieces | from each source in rank order]. */
typedef struct collio__mp_route {
    int nsend, nrecv;
    int *send_rank, *recv_rank;       /* peers, in posting order */
    int64_t *send_elems, *recv_elems; /* elements to / from each */
    MPI_Datatype *send_type;          /* over A, in bytes */
    MPI_Datatype *recv_type;          /* over B, in bytes */
    collio__mp_copy *keep;            /* A -> B */
    int64_t nkeep;
    int64_t a_elems, b_elems;
    int64_t tuples;         /* descriptors of what this rank sends */
    int src_slot, dst_slot; /* A's and B's work buffer (-1 = the stream) */
} collio__mp_route;

typedef struct collio__mp_node {
    int kind; /* MP_EXCHANGE_NODE_DIRECT or _NODE_HYPERCUBE */
    int nsteps;
    collio__mp_route *step; /* [nsteps] */
    collio__mp_final fin;   /* the last B -> F (file order) -> the file */
    int64_t need[2];        /* elements of work buffer 0 and 1 */
    MPI_Request *rq;        /* the largest step's requests */
} collio__mp_node;

/* Collective: the plan of exchange kind x from p->layout (p->node_of
 * set). Returns the code every rank agreed on; *out is set even on
 * failure (free it). */
int collio__mp_node_build(collio_plan *p, int x, collio__mp_node **out);
void collio__mp_node_free(collio__mp_node *nd);

/* Collective: the executor (the transports' write and read). */
int collio__mp_node_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_node_read(collio_plan *p, collio_file *f, char *stream);

#endif /* COLLIO_MULTIPHASE_NODE_H */
