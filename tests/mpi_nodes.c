/*
 * mpi_nodes.c -- the plan's view of nodes and the traffic that crosses
 * them (collio_stats.nnodes, messages_offnode, bytes_offnode), for every
 * strategy and multiphase's exchanges. Run by ctest on one node and on
 * emulated hosts (2 x 2, 2 x 3, 3 + 2).
 *
 * The node count is checked against the test's own count of node leaders
 * (MPI_Comm_split_type); on one node nothing may cross; the off-node part
 * never exceeds the whole; and across nodes, a block-cyclic vector with
 * bx = 1 written through multiphase's message exchanges must send data
 * off its node (every node holds elements of every other node's file
 * range). Files are verified byte-for-byte (testutil's reference).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int count_nodes(tu_ctx *t)
{
    MPI_Comm node;
    MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &node);
    int nrank, leader, nodes = 0;
    MPI_Comm_rank(node, &nrank);
    leader = nrank == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, t->comm);
    MPI_Comm_free(&node);
    return nodes;
}

typedef struct variant {
    const char *strategy, *name;
    int exchange, shm;
} variant;

static const variant variants[] = {
    {"serial", "serial", 0, 1},
    {"independent", "independent", 0, 1},
    {"two_phase", "two_phase", 0, 1},
    {"subgroup", "subgroup", 0, 1},
    {"multiphase", "multiphase (default)", COLLIO_EXCHANGE_AUTO, 1},
    {"multiphase", "multiphase hypercube", COLLIO_EXCHANGE_HYPERCUBE, 1},
    {"multiphase", "multiphase direct, messages", COLLIO_EXCHANGE_DIRECT, 0},
    {"multiphase", "multiphase direct, shared memory", COLLIO_EXCHANGE_DIRECT, 1},
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_nodes");
    int nodes = count_nodes(&t);
    int64_t nx = 5003;
    size_t es = 4;
    for (int v = 0; v < NVARIANTS; v++) {
        const variant *va = &variants[v];
        tu_case(&t, "%s, %d node(s)", va->name, nodes);
        if (!tu_case_enabled(&t))
            continue;
        collio_layout *l = NULL;
        collio_plan *p = NULL;
        collio_plan_options o;
        collio_plan_options_init(&o);
        o.multiphase.exchange = va->exchange;
        o.multiphase.shared_memory = va->shm;
        int rc = collio_layout_block_cyclic(t.comm, nx, 1, es, &l);
        if (rc == COLLIO_OK)
            rc = collio_plan_create(t.comm, l, va->strategy, &o, &p);
        if (!TU_RC_ALL(&t, rc, COLLIO_OK, "layout and plan")) {
            collio_layout_free(&l);
            continue;
        }
        size_t bytes = collio_layout_buffer_bytes(l);
        unsigned char *buf = malloc(bytes + 1);
        for (int64_t i = 0; i < collio_layout_local_count(l); i++)
            collio_pattern_element((uint64_t)collio_layout_global_index(l, i), 5, es,
                                   buf + (size_t)i * es);
        char path[600];
        tu_temp_path(&t, "nodes", path, sizeof path);
        for (int op = 0; op < 2; op++) {
            if (!tu_plan_io(&t, p, path, NULL, op == 0, buf, bytes))
                break;
            if (op == 0)
                TU_CHECK(&t, tu_check_file(&t, path, nx, es, 5, 0, 0, 1) == 0,
                         "file byte-exact");
            collio_stats st;
            collio_plan_stats(p, &st);
            TU_CHECK(&t, st.nnodes == nodes, "nnodes %d, the test counts %d", st.nnodes,
                     nodes);
            TU_CHECK(&t, st.messages_offnode >= 0 && st.messages_offnode <= st.messages,
                     "off-node messages %lld of %lld", (long long)st.messages_offnode,
                     (long long)st.messages);
            TU_CHECK(&t, st.bytes_offnode >= 0 && st.bytes_offnode <= st.bytes_sent,
                     "off-node bytes %lld of %lld", (long long)st.bytes_offnode,
                     (long long)st.bytes_sent);
            if (nodes == 1)
                TU_CHECK(&t, st.messages_offnode == 0 && st.bytes_offnode == 0,
                         "one node: nothing crosses");
            int64_t mine[2] = {st.bytes_offnode, st.messages_offnode}, all[2];
            MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, t.comm);
            /* message exchanges across nodes must cross them */
            int crosses = strcmp(va->strategy, "multiphase") == 0;
            if (nodes > 1 && crosses)
                TU_CHECK(&t, all[0] > 0 && all[1] > 0,
                         "%s across %d nodes: %lld bytes in %lld messages crossed",
                         op ? "read" : "write", nodes, (long long)all[0],
                         (long long)all[1]);
        }
        tu_remove(&t, path);
        free(buf);
        collio_plan_free(&p);
        collio_layout_free(&l);
    }
    return tu_finish(&t);
}
