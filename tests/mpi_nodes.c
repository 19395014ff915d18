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
 * range). Files are verified byte-for-byte (testutil's reference), reads
 * element by element against the pattern.
 *
 * The node-aware exchanges (node-direct, node-hypercube) against figures
 * the test computes itself from its own node map (MPI_Comm_split_type, the
 * node leaders' ranks gathered, nodes numbered densely in the order of
 * their lowest rank) and the vector's definition (element i on rank
 * i % P; domain d = [d*q + min(d, r), (d+1)*q + min(d+1, r)), q = nx / P,
 * r = nx % P, written by rank d):
 *  - the bytes that must cross nodes at least: esize x the elements whose
 *    holder's node is not their writer's node. node-direct moves each of
 *    them across once: the sum over ranks of bytes_offnode equals it, in
 *    writes and in reads (which send the same bytes back); node-hypercube
 *    at least that, exactly that with two nodes (one phase);
 *  - node-direct sends one message per ordered node pair with data, so the
 *    ranks together count 2 x those pairs (a send and a receive each), and
 *    each rank at most 2 * ceil((M - 1) / m_own) (M nodes, m_own ranks on
 *    its node: the ports are dealt out over a node's ranks);
 *  - node-hypercube: per phase (ceil(log2 M) of them) a rank sends at most
 *    one message across and receives from the lanes of its partner node
 *    and of at most one lonely node, ceil(max_m / m_own) each; with two
 *    nodes the ranks together count 2 x the ranks that hold data for the
 *    other node;
 *  - the exchange reported (AUTO: node-direct or node-hypercube across
 *    nodes, direct on one node), its route steps (node-direct 3, or 1 on
 *    one node; node-hypercube ceil(log2 M) + 1), no shared memory.
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

/* The test's own node map: node_of[r] (dense, in the order of each node's
 * lowest rank), size[N] ranks on node N, M nodes. */

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* What the block-cyclic vector of nx elements in blocks of bx must move
 * across nodes, by its definition: elements whose holder ((i / bx) % P)
 * and writer
 * (the rank of the balanced domain holding i) are on different nodes;
 * the ordered node pairs (holder's node, writer's node) with such
 * elements; the ranks holding any of them. */
typedef struct crossing {
    int64_t elems;
    int pairs;
    int holders;
    int aligned; /* every element's holder is its writer */
} crossing;

static crossing must_cross(const tu_node_map *nm, int P, int64_t nx, int64_t bx)
{
    crossing c = {0, 0, 0, 1};
    const int M = nm->M;
    char *pair = calloc((size_t)M * (size_t)M, 1), *holds = calloc((size_t)P, 1);
    const int64_t q = nx / P, r = nx % P;
    for (int d = 0; d < P; d++) {
        int64_t lo = d * q + (d < r ? d : r), hi = (d + 1) * q + (d + 1 < r ? d + 1 : r);
        for (int64_t i = lo; i < hi; i++) {
            int h = (int)((i / bx) % P), S = nm->node_of[h], N = nm->node_of[d];
            c.aligned &= h == d;
            if (S == N)
                continue;
            c.elems++;
            pair[S * M + N] = 1;
            holds[h] = 1;
        }
    }
    for (int k = 0; k < M * M; k++)
        c.pairs += pair[k];
    for (int h = 0; h < P; h++)
        c.holders += holds[h];
    free(pair);
    free(holds);
    return c;
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
    {"multiphase", "multiphase (default)", TU_EXCHANGE_AUTO, 1},
    {"multiphase", "multiphase hypercube", TU_EXCHANGE_HYPERCUBE, 1},
    {"multiphase", "multiphase direct, messages", TU_EXCHANGE_DIRECT, 0},
    {"multiphase", "multiphase direct, shared memory", TU_EXCHANGE_DIRECT, 1},
    {"multiphase", "multiphase node-direct", TU_EXCHANGE_NODE_DIRECT, 1},
    {"multiphase", "multiphase node-hypercube", TU_EXCHANGE_NODE_HYPERCUBE, 1},
};

static int is_node_exchange(int x)
{
    return x == TU_EXCHANGE_NODE_DIRECT || x == TU_EXCHANGE_NODE_HYPERCUBE;
}

/* The node-aware exchanges' figures (see the top of the file). */
static void check_node_exchange(tu_ctx *t, const variant *va, const tu_node_map *nm,
                                const crossing *cr, size_t es, int op,
                                const collio_plan *p, const collio_stats *st)
{
    const int M = nm->M, L = ceil_log2(M), mown = nm->size[nm->node_of[t->rank]];
    int maxm = 0;
    for (int N = 0; N < M; N++)
        maxm = nm->size[N] > maxm ? nm->size[N] : maxm;
    int x = (int)TU_STAT(t, p, "multiphase.exchange");
    if (va->exchange == TU_EXCHANGE_AUTO && M > 1) {
        /* the rule of collio.h over the rates the plan measured: direct
         * where a memory copy is less than 64x as fast as the link and
         * P <= 64, else a node-aware exchange */
        const double net = TU_STAT(t, p, "multiphase.net_bw"),
                     mem = TU_STAT(t, p, "multiphase.mem_bw");
        int direct = mem < 64 * net && t->nranks <= 64;
        TU_CHECK(t, net > 0 && mem > 0, "AUTO across nodes reports its probe (%g, %g)",
                 net, mem);
        TU_CHECK(t, direct ? x == TU_EXCHANGE_DIRECT : is_node_exchange(x),
                 "AUTO on %d nodes ran %s (link %g B/s, copy %g B/s)", M,
                 tu_exchange_name(x), net, mem);
    } else if (va->exchange == TU_EXCHANGE_AUTO) {
        TU_CHECK(t, x == TU_EXCHANGE_DIRECT, "AUTO on one node ran %s",
                 tu_exchange_name(x));
    } else {
        TU_CHECK(t, x == va->exchange, "exchange %s, forced %s", tu_exchange_name(x),
                 tu_exchange_name(va->exchange));
    }
    if (!is_node_exchange(x))
        return;
    const char *what = op ? "read" : "write";
    int steps = x == TU_EXCHANGE_NODE_DIRECT ? (M > 1 ? 3 : 1) : L + 1;
    const int nphases = (int)TU_STAT(t, p, "multiphase.nphases");
    TU_CHECK(t, nphases == steps, "%s: %s runs %d steps, want %d", what,
             tu_exchange_name(x), nphases, steps);
    TU_CHECK(t, TU_STAT(t, p, "multiphase.shared_memory") == 0, "%s: no shared memory",
             what);
    int64_t most = x == TU_EXCHANGE_NODE_DIRECT ? 2 * ceil_div(M - 1, mown)
                                                : L * (1 + 2 * ceil_div(maxm, mown));
    TU_CHECK(t, st->messages_offnode <= most,
             "%s: %s: %lld messages across nodes on this rank (node of %d, %d nodes, "
             "largest %d), want <= %lld",
             what, tu_exchange_name(x), (long long)st->messages_offnode, mown, M, maxm,
             (long long)most);
    int64_t mine[2] = {st->bytes_offnode, st->messages_offnode}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, t->comm);
    const int64_t least = cr->elems * (int64_t)es;
    if (cr->aligned) /* every element on its writer already: nothing moves */
        TU_CHECK(t, st->messages == 0 && st->bytes_sent == 0,
                 "%s: %s: data on its writers, yet %lld messages, %lld bytes", what,
                 tu_exchange_name(x), (long long)st->messages, (long long)st->bytes_sent);
    if (x == TU_EXCHANGE_NODE_DIRECT || M <= 2) {
        TU_CHECK(t, all[0] == least,
                 "%s: %s: %lld bytes crossed nodes, each of the %lld must cross once",
                 what, tu_exchange_name(x), (long long)all[0], (long long)least);
    } else {
        TU_CHECK(t, all[0] >= least, "%s: %s: %lld bytes crossed nodes, %lld must", what,
                 tu_exchange_name(x), (long long)all[0], (long long)least);
    }
    if (x == TU_EXCHANGE_NODE_DIRECT)
        TU_CHECK(t, all[1] == 2 * (int64_t)cr->pairs,
                 "%s: node-direct: %lld messages across nodes (sends and receives), want "
                 "2 x %d node pairs with data",
                 what, (long long)all[1], cr->pairs);
    else if (M <= 2)
        TU_CHECK(t, all[1] == 2 * (int64_t)cr->holders,
                 "%s: node-hypercube: %lld messages across nodes (sends and receives), "
                 "want 2 x %d ranks with data for the other node",
                 what, (long long)all[1], cr->holders);
}
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_nodes");
    int nodes = count_nodes(&t);
    size_t es = 4;
    tu_node_map nm;
    tu_node_map_make(&t, &nm);
    tu_case(&t, "the test's node map");
    TU_CHECK(&t, nm.M == nodes, "%d nodes in the map, %d leaders", nm.M, nodes);
    /* bx = 1 for every variant: every node holds elements of every other
     * node's domains; for multiphase also blocks of 7, and blocks that are
     * the domains (each element on its writer already) */
    const struct {
        int64_t nx, bx;
    } lay[] = {{5003, 1}, {5003, 7}, {1000 * (int64_t)t.nranks, 1000}};
    for (int li = 0; li < 3; li++)
        for (int v = 0; v < NVARIANTS; v++) {
            const variant *va = &variants[v];
            const int64_t nx = lay[li].nx, bx = lay[li].bx;
            if (li > 0 && strcmp(va->strategy, "multiphase") != 0)
                continue;
            crossing cr = must_cross(&nm, t.nranks, nx, bx);
            tu_case(&t, "%s, block_cyclic(nx=%lld,bx=%lld), %d node(s)", va->name,
                    (long long)nx, (long long)bx, nodes);
            if (!tu_case_enabled(&t))
                continue;
            collio_layout *l = NULL;
            collio_plan *p = NULL;
            collio_hints *o =
                TU_HINTS(&t, "multiphase.exchange=%s,multiphase.shared_memory=%d",
                         tu_exchange_name(va->exchange), va->shm);
            int rc = collio_layout_block_cyclic(t.comm, nx, bx, es, &l);
            if (rc == COLLIO_OK)
                rc = collio_plan_create(t.comm, l, va->strategy, o, &p);
            collio_hints_free(&o);
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
                if (op == 1)
                    memset(buf, 0, bytes + 1);
                if (!tu_plan_io(&t, p, path, NULL, op == 0, buf, bytes))
                    break;
                if (op == 0)
                    TU_CHECK(&t, tu_check_file(&t, path, nx, es, 5, 0, 0, 1) == 0,
                             "file byte-exact");
                int64_t bad = 0; /* the read gives back every element */
                unsigned char want[8];
                for (int64_t i = 0; op == 1 && i < collio_layout_local_count(l); i++) {
                    collio_pattern_element((uint64_t)collio_layout_global_index(l, i), 5,
                                           es, want);
                    bad += memcmp(want, buf + (size_t)i * es, es) != 0;
                }
                TU_CHECK(&t, bad == 0, "read back: %lld elements differ", (long long)bad);
                collio_stats st;
                collio_plan_stats(p, &st);
                TU_CHECK(&t, st.nnodes == nodes, "nnodes %d, the test counts %d",
                         st.nnodes, nodes);
                TU_CHECK(&t,
                         st.messages_offnode >= 0 && st.messages_offnode <= st.messages,
                         "off-node messages %lld of %lld", (long long)st.messages_offnode,
                         (long long)st.messages);
                TU_CHECK(&t, st.bytes_offnode >= 0 && st.bytes_offnode <= st.bytes_sent,
                         "off-node bytes %lld of %lld", (long long)st.bytes_offnode,
                         (long long)st.bytes_sent);
                if (nodes == 1)
                    TU_CHECK(&t, st.messages_offnode == 0 && st.bytes_offnode == 0,
                             "one node: nothing crosses");
                if (strcmp(va->strategy, "multiphase") == 0)
                    check_node_exchange(&t, va, &nm, &cr, es, op, p, &st);
                int64_t mine[2] = {st.bytes_offnode, st.messages_offnode}, all[2];
                MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, t.comm);
                /* message exchanges across nodes must cross them (bx = 1) */
                int crosses = strcmp(va->strategy, "multiphase") == 0 && bx == 1;
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
    tu_node_map_free(&nm);
    return tu_finish(&t);
}
