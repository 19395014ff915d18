/*
 * unit_node_sched.c -- the node-aware exchanges' schedule
 * (multiphase/node/sched.c) simulated without MPI, up to 64 nodes x 32
 * ranks (2048 ranks).
 *
 * Every rank starts with some data for every rank's file domain (the
 * worst case, a block-cyclic vector with bx = 1; amounts differ per pair
 * so that nothing cancels). Each route step moves every rank's pieces
 * where the schedule says. Checked against references computed here from
 * the start state and the node map alone:
 *  - after the last step every rank holds exactly the data of its own
 *    domain, all of it (conservation: nothing lost, nothing doubled);
 *  - node-direct: the bytes that cross nodes are exactly the minimum (the
 *    data whose holder's node is not its writer's), each rank sends and
 *    receives at most ceil((nodes - 1) / ranks on its node) messages
 *    across nodes (so at most nodes - 1), steps 0 and 2 stay within nodes;
 *  - node-hypercube: each rank sends at most ceil(log2 nodes) messages
 *    across nodes, receives at most ceil(log2 nodes) + 1 where nodes are
 *    equal, and never fewer bytes cross than the minimum;
 *  - maps: node-major and round-robin placement, unequal nodes, a node of
 *    one rank, one node, one rank per node.
 * It prints the per-rank figures at 64 x 32 (docs/multiphase.md).
 */
#include "strategies/multiphase/node/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

static int ceil_div(int a, int b)
{
    return (a + b - 1) / b;
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

typedef struct sim_result {
    int max_cross_send, max_cross_recv; /* per rank, all steps */
    int64_t cross_bytes, min_bytes;
} sim_result;

/* Runs exchange x over the map node_of[0..P) and checks it; out: the
 * figures. */
static void simulate(const char *name, int P, const int *node_of, int x, sim_result *out)
{
    collio__mp_nodes nm;
    int rc = collio__mp_nodes_init(&nm, P, node_of);
    CHECK(rc == COLLIO_OK, "%s: node map", name);
    if (rc != COLLIO_OK) {
        collio__mp_nodes_free(&nm);
        return;
    }
    const int M = nm.M;
    size_t PP = (size_t)P * (size_t)P;
    int64_t *amt = calloc(PP, sizeof *amt), *next = calloc(PP, sizeof *next);
    int64_t *want = calloc((size_t)P, sizeof *want);
    int *cross_send = calloc((size_t)P, sizeof *cross_send);
    int *cross_recv = calloc((size_t)P, sizeof *cross_recv);
    unsigned char *pair = calloc(PP, 1); /* h -> q message in this step */
    if (!amt || !next || !want || !cross_send || !cross_recv || !pair) {
        CHECK(0, "%s: out of memory", name);
        goto done;
    }
    int64_t min_bytes = 0;
    for (int r = 0; r < P; r++)
        for (int o = 0; o < P; o++) {
            int64_t a = 1 + (int64_t)((r * 7 + o * 3) % 5);
            amt[(size_t)r * P + o] = a; /* rank r holds a for owner o */
            want[o] += a;
            if (node_of[r] != node_of[o])
                min_bytes += a;
        }
    int64_t cross_bytes = 0;
    int steps = collio__mp_node_nsteps(&nm, x);
    int bad_route = 0, intra_cross = 0;
    for (int s = 0; s < steps; s++) {
        memset(next, 0, PP * sizeof *next);
        memset(pair, 0, PP);
        for (int h = 0; h < P; h++)
            for (int o = 0; o < P; o++) {
                int64_t a = amt[(size_t)h * P + o];
                if (a == 0)
                    continue;
                int q = collio__mp_node_route(&nm, x, s, h, o);
                if (q < 0 || q >= P) {
                    bad_route++;
                    continue;
                }
                next[(size_t)q * P + o] += a;
                if (q == h)
                    continue;
                pair[(size_t)h * P + q] = 1;
                if (node_of[q] != node_of[h]) {
                    cross_bytes += a;
                    if (x == MP_EXCHANGE_NODE_DIRECT && s != 1)
                        intra_cross++;
                }
            }
        for (int h = 0; h < P; h++)
            for (int q = 0; q < P; q++)
                if (pair[(size_t)h * P + q] && node_of[q] != node_of[h]) {
                    cross_send[h]++;
                    cross_recv[q]++;
                }
        int64_t *t = amt;
        amt = next;
        next = t;
    }
    CHECK(bad_route == 0, "%s: %d routes out of range", name, bad_route);
    CHECK(intra_cross == 0, "%s: %d pieces crossed nodes in a step within nodes", name,
          intra_cross);
    int64_t misplaced = 0, wrong_total = 0;
    for (int h = 0; h < P; h++)
        for (int o = 0; o < P; o++)
            if (h != o && amt[(size_t)h * P + o] != 0)
                misplaced++;
    for (int o = 0; o < P; o++)
        if (amt[(size_t)o * P + o] != want[o])
            wrong_total++;
    CHECK(misplaced == 0, "%s: %lld pieces not at their writer", name,
          (long long)misplaced);
    CHECK(wrong_total == 0, "%s: %lld domains incomplete", name, (long long)wrong_total);
    int L = ceil_log2(M), maxm = 0;
    for (int N = 0; N < M; N++)
        if (nm.first[N + 1] - nm.first[N] > maxm)
            maxm = nm.first[N + 1] - nm.first[N];
    out->max_cross_send = out->max_cross_recv = 0;
    int over = 0;
    for (int h = 0; h < P; h++) {
        int m = nm.first[node_of[h] + 1] - nm.first[node_of[h]];
        if (x == MP_EXCHANGE_NODE_DIRECT) {
            int lim = M > 1 ? ceil_div(M - 1, m) : 0;
            if (cross_send[h] > lim || cross_recv[h] > lim || cross_send[h] > M - 1)
                over++;
        } else {
            /* receives: lanes of a larger partner node fold onto this
             * node's ranks, plus a lonely node's */
            int lim_r = (L + 1) * ceil_div(maxm, m);
            if (cross_send[h] > L || cross_recv[h] > lim_r)
                over++;
        }
        if (cross_send[h] > out->max_cross_send)
            out->max_cross_send = cross_send[h];
        if (cross_recv[h] > out->max_cross_recv)
            out->max_cross_recv = cross_recv[h];
    }
    CHECK(over == 0, "%s: %d ranks over the message bound", name, over);
    if (x == MP_EXCHANGE_NODE_DIRECT)
        CHECK(cross_bytes == min_bytes, "%s: %lld units crossed, minimum %lld", name,
              (long long)cross_bytes, (long long)min_bytes);
    else
        CHECK(cross_bytes >= min_bytes, "%s: %lld units crossed, below the minimum %lld",
              name, (long long)cross_bytes, (long long)min_bytes);
    out->cross_bytes = cross_bytes;
    out->min_bytes = min_bytes;
done:
    free(amt);
    free(next);
    free(want);
    free(cross_send);
    free(cross_recv);
    free(pair);
    collio__mp_nodes_free(&nm);
}

/* Equal nodes: M nodes of m ranks; node-major (rank r on node r / m) or
 * round-robin (r % M). */
static void equal_nodes(int M, int m, int round_robin, sim_result res[2])
{
    int P = M * m;
    int *node_of = malloc((size_t)P * sizeof *node_of);
    for (int r = 0; r < P; r++)
        node_of[r] = round_robin ? r % M : r / m;
    char name[96];
    for (int i = 0; i < 2; i++) {
        int x = i ? MP_EXCHANGE_NODE_HYPERCUBE : MP_EXCHANGE_NODE_DIRECT;
        snprintf(name, sizeof name, "%s %dx%d %s", collio__mp_exchange_name(x), M, m,
                 round_robin ? "round-robin" : "node-major");
        simulate(name, P, node_of, x, &res[i]);
        /* with equal nodes the lanes pair up: one per phase, a lonely
         * node's extra at most */
        if (x == MP_EXCHANGE_NODE_HYPERCUBE)
            CHECK(res[i].max_cross_recv <= ceil_log2(M) + 1, "%s: %d receives", name,
                  res[i].max_cross_recv);
    }
    free(node_of);
}

/* Unequal nodes, ranks dealt in a scrambled order. */
static void unequal_nodes(const int *sizes, int M, const char *label)
{
    int P = 0;
    for (int N = 0; N < M; N++)
        P += sizes[N];
    int *node_of = malloc((size_t)P * sizeof *node_of), r = 0;
    for (int N = 0; N < M; N++)
        for (int i = 0; i < sizes[N]; i++)
            node_of[r++] = N;
    /* scramble by a stride coprime to P, then renumber nodes densely in
     * order of their lowest rank, as the library's node map is */
    int *perm = malloc((size_t)P * sizeof *perm), *ren = malloc((size_t)M * sizeof *ren);
    int stride = 1;
    for (int c = 5; c < P + 5; c++) {
        int a = c, b = P;
        while (b) {
            int t = a % b;
            a = b;
            b = t;
        }
        if (a == 1) {
            stride = c;
            break;
        }
    }
    for (int i = 0; i < P; i++)
        perm[i] = node_of[(int)(((int64_t)i * stride) % P)];
    for (int N = 0; N < M; N++)
        ren[N] = -1;
    int n = 0;
    for (int i = 0; i < P; i++) {
        if (ren[perm[i]] < 0)
            ren[perm[i]] = n++;
        perm[i] = ren[perm[i]];
    }
    sim_result res;
    char name[96];
    for (int i = 0; i < 2; i++) {
        int x = i ? MP_EXCHANGE_NODE_HYPERCUBE : MP_EXCHANGE_NODE_DIRECT;
        snprintf(name, sizeof name, "%s %s", collio__mp_exchange_name(x), label);
        simulate(name, P, perm, x, &res);
    }
    free(node_of);
    free(perm);
    free(ren);
}

static void test_maps(void)
{
    /* bad maps: a gap in the node indices */
    collio__mp_nodes nm;
    int gap[3] = {0, 2, 2};
    CHECK(collio__mp_nodes_init(&nm, 3, gap) == COLLIO_ERR_ARG, "node 1 has no ranks");
    collio__mp_nodes_free(&nm);
    sim_result res[2];
    static const int shapes[][2] = {{1, 1}, {1, 8}, {2, 4}, {4, 2}, {2, 3},
                                    {3, 3}, {5, 1}, {7, 1}, {8, 4}, {6, 5}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int rr = 0; rr < 2; rr++)
            equal_nodes(shapes[i][0], shapes[i][1], rr, res);
    static const int u1[] = {3, 2}, u2[] = {4, 3}, u3[] = {1, 5, 2, 7, 3};
    static const int u4[] = {6, 1, 1, 4, 2, 9, 3};
    unequal_nodes(u1, 2, "3+2");
    unequal_nodes(u2, 2, "4+3");
    unequal_nodes(u3, 5, "1+5+2+7+3");
    unequal_nodes(u4, 7, "6+1+1+4+2+9+3");
}

/* The cost model prefers fewer messages across nodes when data is tiny
 * and fewer bytes across nodes when data is large. */
static void test_cost(void)
{
    int P = 64 * 32;
    int *node_of = malloc((size_t)P * sizeof *node_of);
    for (int r = 0; r < P; r++)
        node_of[r] = r / 32;
    collio__mp_nodes nm;
    CHECK(collio__mp_nodes_init(&nm, P, node_of) == COLLIO_OK, "64x32 map");
    double big = 64e6;
    CHECK(collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_DIRECT, big, 1.25e9, 5e9)
              < collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_HYPERCUBE, big, 1.25e9, 5e9),
          "64 MB per rank: node-direct (each byte crosses once)");
    collio__mp_nodes_free(&nm);
    for (int r = 0; r < P; r++)
        node_of[r] = r; /* 2048 nodes of one rank: 2047 messages vs 11 */
    CHECK(collio__mp_nodes_init(&nm, P, node_of) == COLLIO_OK, "2048x1 map");
    CHECK(collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_HYPERCUBE, 1e3, 1.25e9, 5e9)
              < collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_DIRECT, 1e3, 1.25e9, 5e9),
          "1 KB per rank on 2048 nodes: node-hypercube");
    collio__mp_nodes_free(&nm);
    free(node_of);
}

int main(void)
{
    test_maps();
    test_cost();
    /* the scale: 64 nodes x 32 ranks */
    sim_result res[2];
    for (int rr = 0; rr < 2; rr++) {
        equal_nodes(64, 32, rr, res);
        for (int i = 0; i < 2; i++)
            printf(
                "64 nodes x 32 ranks, %s, %s: per rank at most %d messages sent and %d "
                "received across nodes; %.3f x the minimum bytes cross\n",
                rr ? "round-robin" : "node-major",
                collio__mp_exchange_name(i ? MP_EXCHANGE_NODE_HYPERCUBE
                                           : MP_EXCHANGE_NODE_DIRECT),
                res[i].max_cross_send, res[i].max_cross_recv,
                (double)res[i].cross_bytes / (double)res[i].min_bytes);
    }
    CHECK(res[0].max_cross_send <= 2 && res[1].max_cross_send <= 6,
          "64x32: direct %d (<= ceil(63/32)), hypercube %d (<= log2 64)",
          res[0].max_cross_send, res[1].max_cross_send);
    return unit_summary("unit_node_sched");
}
