/*
 * mpi_multiphase.c -- the multiphase strategy at the running P (ctest runs
 * it at 1 2 3 4 5 8; it is also meant to pass at 6, 7 and any P):
 *  - round trips for every k = 1..all (and 0 = all) over block-cyclic
 *    layouts (bx 1, 7, 1000, nx not a multiple of bx*P, element sizes 4, 8,
 *    12), 3-d arrays in C and Fortran order with BLOCK / CYCLIC, index lists
 *    with skewed and empty ranks: the file must equal the independent
 *    expectation of testutil (pattern of element i at i*esize) and the read
 *    must give back exactly the written buffer;
 *  - a randomized test: many random index-list layouts (random run lengths,
 *    skewed owners, empty ranks, random buffer order), each written by
 *    "multiphase" (random k) and by "serial": the two files must be
 *    byte-identical (and equal to the expectation);
 *  - one plan reused for 10 writes with different data, each verified, and
 *    read back;
 *  - stats: phases, one file request per rank after all phases, the
 *    shared-memory exchange's pull rounds (and what the strategy's table
 *    tells auto of them) against the documented rule; a bad
 *    hint (multiphase.phases, write_rounds, exchange, shared_memory,
 *    plan.keep_buffers, plan.destroy_input) is rejected by
 *    collio_hints_set and, in COLLIO_HINTS, is COLLIO_ERR_ARG on every
 *    rank naming the key; more than all phases means all.
 * Every exchange runs: hypercube, direct (shared memory and messages), the
 * node-aware node-direct and node-hypercube (their route steps, messages
 * per step bounded by the test's own node map, their work memory computed
 * from the vector's definition and the schedule's documented rules), and
 * AUTO, which across nodes must take a node-aware exchange (either) and on
 * one node the direct one.
 * Usage: mpi_multiphase [FILTER]
 */
#include "layouts/layouts.h"
#include "core/core.h"
#include "core/core.h" /* the strategy's table: profile */
#include "testutil.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int all_phases(int P)
{
    int n = 0;
    while ((1 << n) < P)
        n++;
    return n;
}

/* The plan options the tests vary: phases, destroy_input, write_rounds,
 * keep_buffers = 0 (fresh; 0 keeps the default) and the exchange: X_HC
 * (0, so that the hypercube tests pin it), X_DIRECT (through shared
 * memory where the ranks share a node), X_AUTO, X_DIRECT_MSG (direct with
 * shared_memory = 0: MPI messages), X_NODE_DIRECT, X_NODE_HC (the
 * node-aware exchanges). */
enum { X_HC = 0, X_DIRECT, X_AUTO, X_DIRECT_MSG, X_NODE_DIRECT, X_NODE_HC, X__N };
static const char *const xname[X__N] = {
    "hypercube", "direct", "auto", "direct-messages", "node-direct", "node-hypercube"};

/* The exchange an AUTO plan may report across nodes: either node-aware
 * one (check_stats' want; not a value of multiphase.exchange). */
#define WANT_NODE_ANY (-1)

/* The test's own node map (MPI_Comm_split_type; nodes numbered densely in
 * the order of their lowest rank, as collio.h's nnodes counts them):
 * node_of[r], lidx[r] (index among its node's ranks), size[N]; M nodes. */
static tu_node_map nodes;

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}
typedef struct mp_opts {
    int k, destroy, rounds, fresh, x;
} mp_opts;

static int exchange_opt(int x)
{
    return x == X_DIRECT || x == X_DIRECT_MSG ? TU_EXCHANGE_DIRECT
           : x == X_AUTO                      ? TU_EXCHANGE_AUTO
           : x == X_NODE_DIRECT               ? TU_EXCHANGE_NODE_DIRECT
           : x == X_NODE_HC                   ? TU_EXCHANGE_NODE_HYPERCUBE
                                              : TU_EXCHANGE_HYPERCUBE;
}

static int is_node_x(int x)
{
    return x == TU_EXCHANGE_NODE_DIRECT || x == TU_EXCHANGE_NODE_HYPERCUBE
           || x == WANT_NODE_ANY;
}

/* Route steps of a node-aware exchange over the test's node map
 * (multiphase/node/node.h: node-direct 3, 1 on one node; node-hypercube
 * ceil(log2 nodes) + 1). */
static int node_steps(int x)
{
    if (x == TU_EXCHANGE_NODE_DIRECT)
        return nodes.M > 1 ? 3 : 1;
    return all_phases(nodes.M) + 1;
}

static int make_plan(tu_ctx *t, collio_layout *l, const char *strategy, const mp_opts *mo,
                     collio_plan **p)
{
    collio_hints *o = NULL;
    if (mo != NULL)
        o = TU_HINTS(
            t,
            "multiphase.phases=%d,plan.destroy_input=%d,multiphase.write_rounds=%d,"
            "plan.keep_buffers=%d,multiphase.exchange=%s,"
            "multiphase.shared_memory=%d",
            mo->k, mo->destroy, mo->rounds, !mo->fresh,
            tu_exchange_name(exchange_opt(mo->x)), mo->x != X_DIRECT_MSG);
    int rc = collio_plan_create(t->comm, l, strategy, o, p);
    collio_hints_free(&o);
    return TU_RC_ALL(t, rc, COLLIO_OK, "plan_create");
}

/* A multiphase plan of d with options mo (the layout, made here, is freed
 * again: the plan keeps what it needs) and the rank's global indices
 * (*idx / *n, malloc'd; the caller frees them either way). 1 if the plan
 * was made. */
static int plan_of(tu_ctx *t, const tu_layout_desc *d, const mp_opts *mo, int64_t **idx,
                   int64_t *n, collio_plan **p)
{
    collio_layout *l = NULL;
    int rc = tu_desc_make(d, t->comm, &l);
    tu_enumerate(d, t->rank, t->nranks, idx, n);
    int ok =
        TU_RC_ALL(t, rc, COLLIO_OK, "layout") && make_plan(t, l, "multiphase", mo, p);
    collio_layout_free(&l);
    return ok;
}

/* Rounds a write should run (the rule of collio.h's write_rounds, for
 * r >= 1: r halvings while the smallest domain, nglobal / P elements,
 * still has an element to give; only with all phases, P >= 2 and the
 * user's buffer left untouched; fewer than 2 rounds: none). */
static int want_rounds(const tu_ctx *t, int64_t nglobal, const mp_opts *mo, int direct)
{
    int all = all_phases(t->nranks);
    if (direct || mo->rounds < 1 || mo->destroy || all == 0
        || (mo->k != 0 && mo->k < all))
        return 0;
    int64_t m = nglobal / t->nranks;
    int h = 0;
    while (h < mo->rounds && (m >> (h + 1)) >= 1)
        h++;
    return h > 0 ? h + 1 : 0;
}

/* Writes buf with plan p into a fresh file at path (CREATE) / reads it. */
static int file_io(tu_ctx *t, collio_plan *p, const char *path, collio_backend be,
                   int writing, void *buf, size_t bytes)
{
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = be;
    return tu_plan_io(t, p, path, &fo, writing, buf, bytes);
}

static int write_file(tu_ctx *t, collio_plan *p, const char *path, collio_backend be,
                      void *buf, size_t bytes)
{
    return file_io(t, p, path, be, 1, buf, bytes);
}

static int read_file(tu_ctx *t, collio_plan *p, const char *path, collio_backend be,
                     void *buf, size_t bytes)
{
    return file_io(t, p, path, be, 0, buf, bytes);
}

/* want: the exchange (a value of multiphase.exchange) the plan must report
 * (WANT_NODE_ANY: either node-aware one). direct: one merged phase, a message to and from
 * each peer at most. Node-aware: their route steps, per step at most what the schedule
 * allows over the test's node map (within a node: each other rank of the node, both ways;
 * node-direct between nodes: the ports, ceil((M - 1) / m_own) nodes per rank, both ways;
 * a node-hypercube phase: one send to the partner node's lane, receives from the lanes of
 * the partner and of at most one lonely node). auto: the automatic choice
 * (a write in rounds may move its last round directly, counted in the
 * last phase) */
static void check_stats(tu_ctx *t, collio_plan *p, int k, int64_t nglobal, int want_x,
                        int aut, int shm)
{
    collio_stats s;
    collio_plan_stats(p, &s);
    /* the per-phase figures (multiphase's own stats) */
    enum { MAXPH = 32 };
    double pbytes[MAXPH] = {0}, pmsgs[MAXPH] = {0};
    const int nphases = TU_STAT_VALUES(t, p, "multiphase.phase_bytes", pbytes, MAXPH);
    TU_CHECK(t,
             TU_STAT_VALUES(t, p, "multiphase.phase_messages", pmsgs, MAXPH) == nphases
                 && TU_STAT(t, p, "multiphase.nphases") == nphases,
             "every per-phase stat has nphases values");
    const int nrounds = (int)TU_STAT(t, p, "multiphase.nrounds");
    const int mx = (int)TU_STAT(t, p, "multiphase.exchange");
    const int mshm = (int)TU_STAT(t, p, "multiphase.shared_memory");
    int all = all_phases(t->nranks);
    int want = k == 0 ? all : k;
    int direct, node;
    if (want_x == WANT_NODE_ANY) {
        /* AUTO across nodes: the rule of collio.h over the link and copy
         * rates the plan measured and reports */
        const double net = TU_STAT(t, p, "multiphase.net_bw"),
                     mem = TU_STAT(t, p, "multiphase.mem_bw");
        TU_CHECK(t, net > 0 && mem > 0, "AUTO across nodes reports its probe: %g, %g",
                 net, mem);
        if (mem < 64 * net && t->nranks <= 64)
            want_x = TU_EXCHANGE_DIRECT;
        else
            TU_CHECK(t, is_node_x(mx),
                     "exchange %s, want a node-aware one (link %g B/s, copy %g B/s)",
                     tu_exchange_name(mx), net, mem);
    }
    if (want_x != WANT_NODE_ANY)
        TU_CHECK(t, mx == want_x, "exchange %s, want %s", tu_exchange_name(mx),
                 tu_exchange_name(want_x));
    direct = want_x == TU_EXCHANGE_DIRECT;
    node = is_node_x(want_x);
    TU_CHECK(t, mshm == shm, "shared_memory %d, want %d", mshm, shm);
    if (shm)
        TU_CHECK(t, s.messages == 0, "shared memory: %lld messages",
                 (long long)s.messages);
    if (direct) {
        want = all = 1;
        TU_CHECK(t, (long long)pmsgs[0] <= 2 * t->nranks && nrounds == 0,
                 "direct: %lld messages, %d rounds", (long long)pmsgs[0], nrounds);
    }
    if (node && is_node_x(mx)) {
        want = all = node_steps(mx);
        TU_CHECK(t, nrounds == 0, "%s: %d rounds", tu_exchange_name(mx), nrounds);
    }
    TU_CHECK(t, nphases == want, "nphases %d, want %d", nphases, want);
    if (want == all)
        TU_CHECK(t,
                 s.file_requests
                     == (nglobal / t->nranks > 0 || t->rank < nglobal % t->nranks),
                 "one file request per non-empty domain, got %lld",
                 (long long)s.file_requests);
    int64_t sum = 0;
    for (int i = 0; i < nphases && i < MAXPH; i++)
        sum += (int64_t)pbytes[i];
    TU_CHECK(t, sum == s.bytes_sent, "bytes per phase add up");
    int64_t msgs = 0;
    for (int i = 0; i < nphases && i < MAXPH; i++)
        msgs += (int64_t)pmsgs[i];
    TU_CHECK(t, msgs == s.messages, "messages per phase add up (%lld vs %lld)",
             (long long)msgs, (long long)s.messages);
    /* a phase exchanges with at most a partner and a lonely neighbour,
     * once per round of a write in rounds */
    int64_t most = direct ? 2 * t->nranks : 3 * (nrounds > 0 ? nrounds : 1);
    const int mown = nodes.size[nodes.node_of[t->rank]];
    int maxm = 0;
    for (int N = 0; N < nodes.M; N++)
        maxm = nodes.size[N] > maxm ? nodes.size[N] : maxm;
    for (int i = 0; i < nphases && i < MAXPH; i++) {
        if (node && mx == TU_EXCHANGE_NODE_DIRECT)
            most = i == 1 ? 2 * ceil_div(nodes.M - 1, mown) : 2 * (mown - 1);
        else if (node && mx == TU_EXCHANGE_NODE_HYPERCUBE)
            most = i == nphases - 1 ? 2 * (mown - 1) : 1 + 2 * ceil_div(maxm, mown);
        TU_CHECK(t,
                 (int64_t)pmsgs[i] >= 0
                     && (int64_t)pmsgs[i] <= most
                                                 + (aut && nrounds > 0 && i == nphases - 1
                                                        ? 2 * t->nranks
                                                        : 0),
                 "phase %d posts %lld messages (%s, at most %lld)", i,
                 (long long)(int64_t)pmsgs[i], tu_exchange_name(mx), (long long)most);
    }
    TU_CHECK(t, s.plan_bytes > 0, "plan_bytes reported");
    TU_CHECK(t, s.copy_s >= 0.0 && s.copy_s <= s.exchange_s,
             "copy_s %g is a part of exchange_s %g", s.copy_s, s.exchange_s);
}

/* 1 if every rank runs on one node (asked of MPI, not of the library:
 * the test's node map). */
static int one_node(void)
{
    return nodes.M == 1;
}

/* The automatic exchange choice, by the rule of collio.h: with fewer than
 * all phases the hypercube; with all phases, direct wherever every rank
 * is on one node (shared memory); across nodes WANT_NODE_ANY, resolved
 * in check_stats from the rates the plan measured: direct where a copy
 * in memory is less than 64x as fast as the link and P <= 64, else a
 * node-aware exchange (node-direct or node-hypercube, a cost model
 * picks: either is accepted). */
static int auto_exchange(tu_ctx *t, int k)
{
    int all = all_phases(t->nranks);
    if (k != 0 && k < all)
        return TU_EXCHANGE_HYPERCUBE;
    return one_node() ? TU_EXCHANGE_DIRECT : WANT_NODE_ANY;
}

/* The exchange a plan of options mo must report (check_stats' want). */
static int want_exchange(tu_ctx *t, const mp_opts *mo)
{
    return mo->x == X_AUTO ? auto_exchange(t, mo->k) : exchange_opt(mo->x);
}

/* Write, check the file against the expectation (and, unless destroy,
 * that the user's buffer is untouched), read back, compare. destroy:
 * the plan may use the user's buffer as scratch (destroy_input). */
static void roundtrip(tu_ctx *t, const tu_layout_desc *d, const mp_opts *mo,
                      collio_backend be, uint64_t seed)
{
    const int k = mo->k, destroy = mo->destroy;
    tu_case(t, "%s k=%d %s%s write_rounds=%d exchange=%s", d->name, k,
            be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio",
            destroy ? " destroy_input" : "", mo->rounds, xname[mo->x]);
    if (!tu_case_enabled(t))
        return;
    int64_t *idx = NULL, n = 0;
    collio_plan *p = NULL;
    const int want_x = want_exchange(t, mo);
    /* no rounds but in the hypercube's */
    const int direct = want_x != TU_EXCHANGE_HYPERCUBE;
    if (plan_of(t, d, mo, &idx, &n, &p)) {
        size_t bytes = (size_t)n * d->esize;
        unsigned char *buf = malloc(bytes + 1), *back = calloc(1, bytes + 1);
        tu_fill(buf, idx, n, d->esize, seed);
        char path[1024];
        tu_temp_path(t, "rt", path, sizeof path);
        if (write_file(t, p, path, be, buf, bytes)) {
            int64_t bad = tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1);
            TU_CHECK(t, bad == 0, "file differs from the expectation in %lld bytes",
                     (long long)bad);
            int64_t first = -1;
            if (!destroy)
                TU_CHECK(t, tu_compare(buf, idx, n, d->esize, seed, &first) == 0,
                         "write changed the user's buffer (element %lld)",
                         (long long)first);
            /* shared memory only where every rank is on one node */
            check_stats(t, p, k, d->nglobal, want_x, mo->x == X_AUTO,
                        want_x == TU_EXCHANGE_DIRECT && mo->x != X_DIRECT_MSG
                            && one_node());
            const int nrounds = (int)TU_STAT(t, p, "multiphase.nrounds");
            if (mo->rounds >= 1)
                TU_CHECK(t, nrounds == want_rounds(t, d->nglobal, mo, direct),
                         "write in %d rounds, want %d", nrounds,
                         want_rounds(t, d->nglobal, mo, direct));
            if (read_file(t, p, path, be, back, bytes)) {
                int64_t diff = tu_compare(back, idx, n, d->esize, seed, &first);
                TU_CHECK(t, diff == 0,
                         "read back differs in %lld bytes (first element %lld)",
                         (long long)diff, (long long)first);
                /* the node-aware reads run the same steps backwards */
                if (is_node_x(want_x))
                    check_stats(t, p, k, d->nglobal, want_x, mo->x == X_AUTO, 0);
            }
        }
        tu_remove(t, path);
        free(buf);
        free(back);
    }
    collio_plan_free(&p);
    free(idx);
}

static void all_k(tu_ctx *t, const tu_layout_desc *d, uint64_t seed)
{
    int all = all_phases(t->nranks);
    for (int k = 0; k <= all; k++)
        roundtrip(t, d, &(mp_opts){k, 0, -1, 0, X_HC}, COLLIO_BACKEND_POSIX,
                  seed + (uint64_t)k);
    /* the user's buffer as the second work buffer: all phases and one */
    roundtrip(t, d, &(mp_opts){0, 1, 0, 0, X_HC}, COLLIO_BACKEND_POSIX, seed + 100);
    /* all phases merged into one direct exchange; and the automatic
     * choice between the two */
    roundtrip(t, d, &(mp_opts){0, 0, 0, 0, X_DIRECT}, COLLIO_BACKEND_POSIX, seed + 110);
    roundtrip(t, d, &(mp_opts){0, 0, 0, 0, X_DIRECT_MSG}, COLLIO_BACKEND_POSIX,
              seed + 113);
    roundtrip(t, d, &(mp_opts){0, 0, 0, 0, X_AUTO}, COLLIO_BACKEND_POSIX, seed + 111);
    /* the node-aware exchanges (on one node too: one step within it) */
    roundtrip(t, d, &(mp_opts){0, 0, 0, 0, X_NODE_DIRECT}, COLLIO_BACKEND_POSIX,
              seed + 114);
    roundtrip(t, d, &(mp_opts){0, 0, 0, 0, X_NODE_HC}, COLLIO_BACKEND_POSIX, seed + 115);
    /* ... with the user's buffer as scratch (they do not use it) and with
     * write_rounds asked for (they do not run in rounds) */
    roundtrip(t, d, &(mp_opts){0, 1, 0, 0, X_NODE_DIRECT}, COLLIO_BACKEND_POSIX,
              seed + 116);
    roundtrip(t, d, &(mp_opts){0, 0, 3, 0, X_NODE_HC}, COLLIO_BACKEND_POSIX, seed + 117);
    /* automatic, in rounds: the hypercube's rounds with a direct last
     * round, where the layout does not take the direct exchange */
    roundtrip(t, d, &(mp_opts){0, 0, 3, 0, X_AUTO}, COLLIO_BACKEND_POSIX, seed + 112);
    if (all > 1)
        roundtrip(t, d, &(mp_opts){1, 1, 0, 0, X_HC}, COLLIO_BACKEND_POSIX, seed + 101);
    /* writes in rounds: one halving, a few, and more than the data allows */
    static const int rounds[] = {1, 3, 40};
    for (int i = 0; i < 3; i++)
        roundtrip(t, d, &(mp_opts){0, 0, rounds[i], 0, X_HC}, COLLIO_BACKEND_POSIX,
                  seed + 200 + (uint64_t)i);
}

static void test_block_cyclic(tu_ctx *t)
{
    static const struct {
        int64_t nx, bx;
        size_t es;
    } cases[] = {
        {4096, 1, 4},
        {5003, 1, 8},
        {5003, 7, 4},
        {4099, 7, 12},
        {20000, 1000, 4},
        {999, 1000, 8},
        {0, 3, 4},
        {1, 1, 4},
        {17, 2, 4},
        /* long enough for several tiles of the final scatter / gather,
         * the last one partial (multiphase/hypercube/exec.c, copy_group) */
        {100003, 1, 4},
        {60001, 3, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, cases[i].nx, cases[i].bx, cases[i].es);
        all_k(t, &d, 100 + i);
        tu_desc_free(&d);
    }
    tu_layout_desc d; /* the MPI-IO backend once */
    tu_desc_block_cyclic(&d, 3001, 3, 4);
    roundtrip(t, &d, &(mp_opts){0, 0, 0, 0, X_HC}, COLLIO_BACKEND_MPIIO, 7);
    roundtrip(t, &d, &(mp_opts){0, 0, 2, 0, X_HC}, COLLIO_BACKEND_MPIIO, 8);
    roundtrip(t, &d, &(mp_opts){0, 0, 0, 0, X_DIRECT}, COLLIO_BACKEND_MPIIO, 9);
    roundtrip(t, &d, &(mp_opts){0, 0, 0, 0, X_DIRECT_MSG}, COLLIO_BACKEND_MPIIO, 10);
    roundtrip(t, &d, &(mp_opts){0, 0, 0, 0, X_NODE_DIRECT}, COLLIO_BACKEND_MPIIO, 11);
    roundtrip(t, &d, &(mp_opts){0, 0, 0, 0, X_NODE_HC}, COLLIO_BACKEND_MPIIO, 12);
    tu_desc_free(&d);
}

static void test_darray(tu_ctx *t)
{
    static const int64_t g[3] = {13, 10, 9};
    static const collio_distrib dist[][3] = {
        {COLLIO_DIST_BLOCK, COLLIO_DIST_BLOCK, COLLIO_DIST_BLOCK},
        {COLLIO_DIST_CYCLIC, COLLIO_DIST_NONE, COLLIO_DIST_BLOCK},
        {COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE},
        {COLLIO_DIST_CYCLIC, COLLIO_DIST_CYCLIC, COLLIO_DIST_CYCLIC},
    };
    for (int o = 0; o < 2; o++)
        for (size_t i = 0; i < sizeof dist / sizeof dist[0]; i++) {
            tu_layout_desc d;
            tu_desc_darray(&d, t->nranks, 3, g, dist[i], NULL, NULL,
                           o ? COLLIO_ORDER_FORTRAN : COLLIO_ORDER_C, 4 + 4 * (i % 2));
            all_k(t, &d, 300 + 10 * o + i);
            tu_desc_free(&d);
        }
}

static void test_index_lists(tu_ctx *t)
{
    static const tu_il_kind kinds[] = {TU_IL_SHUFFLED, TU_IL_SCATTER, TU_IL_REVERSED};
    for (int i = 0; i < 3; i++) {
        tu_layout_desc d;
        tu_desc_index_list(&d, t->rank, t->nranks, 3001, kinds[i], 11 + i, 8);
        all_k(t, &d, 500 + i);
        tu_desc_free(&d);
    }
}

/* ------------------------------------------------ randomized vs serial */

/* A random index list, the same on every rank from `seed`: runs of random
 * length (1..maxrun) to owners drawn with skewed weights (some zero: empty
 * ranks), then each rank's list shuffled by runs or by elements. */
static void random_desc(tu_layout_desc *d, int rank, int P, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    uint64_t st = seed;
    int64_t N = (int64_t)(tu_rand(&st) % 4000);
    int64_t maxrun = 1 + (int64_t)(tu_rand(&st) % 40);
    d->kind = TU_INDEX_LIST;
    d->nglobal = N;
    d->esize = (size_t)(1 + tu_rand(&st) % 12);
    snprintf(d->name, sizeof d->name, "random(seed=%llu,n=%lld,esize=%zu)",
             (unsigned long long)seed, (long long)N, d->esize);
    uint64_t w[64], wsum = 0;
    for (int r = 0; r < P && r < 64; r++) {
        uint64_t x = tu_rand(&st) % 100;
        w[r] = x < 25 ? 0 : x * x; /* ~1/4 of the ranks empty, skewed rest */
        wsum += w[r];
    }
    if (wsum == 0) {
        w[0] = 1;
        wsum = 1;
    }
    d->idx = malloc((size_t)(N + 1) * sizeof *d->idx);
    int64_t *runstart = malloc((size_t)(N + 1) * sizeof *runstart);
    int64_t nruns = 0;
    for (int64_t i = 0; i < N;) {
        int64_t len = 1 + (int64_t)(tu_rand(&st) % (uint64_t)maxrun);
        if (len > N - i)
            len = N - i;
        uint64_t x = tu_rand(&st) % wsum;
        int owner = 0;
        while (owner < P - 1 && x >= w[owner]) {
            x -= w[owner];
            owner++;
        }
        if (owner == rank) {
            runstart[nruns++] = d->nlocal;
            for (int64_t j = 0; j < len; j++)
                d->idx[d->nlocal++] = i + j;
        }
        i += len;
    }
    uint64_t ls = seed ^ (0x1234567ULL * (uint64_t)(rank + 1));
    if (tu_rand(&ls) % 2) { /* shuffle elements */
        for (int64_t i = d->nlocal - 1; i > 0; i--) {
            int64_t j = (int64_t)(tu_rand(&ls) % (uint64_t)(i + 1)), x = d->idx[i];
            d->idx[i] = d->idx[j];
            d->idx[j] = x;
        }
    } else if (nruns > 1) { /* reverse the order of the runs */
        int64_t *tmp = malloc((size_t)d->nlocal * sizeof *tmp), at = 0;
        for (int64_t r = nruns - 1; r >= 0; r--) {
            int64_t e = r + 1 < nruns ? runstart[r + 1] : d->nlocal;
            for (int64_t j = runstart[r]; j < e; j++)
                tmp[at++] = d->idx[j];
        }
        memcpy(d->idx, tmp, (size_t)d->nlocal * sizeof *tmp);
        free(tmp);
    }
    free(runstart);
}

static void test_random_vs_serial(tu_ctx *t, int ncases)
{
    int all = all_phases(t->nranks);
    for (int c = 0; c < ncases; c++) {
        uint64_t seed = 9000 + (uint64_t)c;
        tu_layout_desc d;
        random_desc(&d, t->rank, t->nranks, seed);
        /* a quarter each: random k; all phases with the user's buffer as
         * scratch; all phases in 1..4 halving rounds; the direct exchange */
        mp_opts mo = {all > 0 ? 1 + (int)(seed % (uint64_t)all) : 0, 0, -1, 0, X_HC};
        if (c % 4 == 1)
            mo = (mp_opts){0, 1, 0, 0, X_HC};
        else if (c % 4 == 2) /* automatic: direct, or rounds with a direct last */
            mo = (mp_opts){0, 0, 1 + c % 5, 0, X_AUTO};
        else if (c % 4 == 3) { /* direct (shared memory, messages), node-aware */
            static const int xs[] = {X_DIRECT, X_DIRECT_MSG, X_NODE_DIRECT, X_NODE_HC};
            mo = (mp_opts){0, 0, 0, 0, xs[(c / 4) % 4]};
        }
        const int destroy = mo.destroy;
        tu_case(t, "%s vs serial k=%d%s write_rounds=%d%s%s", d.name, mo.k,
                destroy ? " destroy_input" : "", mo.rounds, mo.x == X_HC ? "" : " ",
                mo.x == X_HC ? "" : xname[mo.x]);
        if (!tu_case_enabled(t)) {
            tu_desc_free(&d);
            continue;
        }
        collio_layout *l = NULL;
        int rc = tu_desc_make(&d, t->comm, &l);
        collio_plan *pm = NULL, *ps = NULL;
        if (TU_RC_ALL(t, rc, COLLIO_OK, "layout")
            && make_plan(t, l, "multiphase", &mo, &pm)
            && make_plan(t, l, "serial", NULL, &ps)) {
            size_t bytes = (size_t)d.nlocal * d.esize;
            unsigned char *buf = malloc(bytes + 1);
            tu_fill(buf, d.idx, d.nlocal, d.esize, seed);
            char pa[1024], pb[1024];
            tu_temp_path(t, "mp", pa, sizeof pa);
            tu_temp_path(t, "serial", pb, sizeof pb);
            int ok = write_file(t, pm, pa, COLLIO_BACKEND_POSIX, buf, bytes);
            const int want_x = want_exchange(t, &mo);
            if (ok && is_node_x(want_x)) /* the node-aware ones' stats */
                check_stats(t, pm, mo.k, d.nglobal, want_x, mo.x == X_AUTO, 0);
            else if (ok) {
                const int x = (int)TU_STAT(t, pm, "multiphase.exchange");
                TU_CHECK(t, x == want_x, "exchange %s, want %s", tu_exchange_name(x),
                         tu_exchange_name(want_x));
            }
            tu_fill(buf, d.idx, d.nlocal, d.esize, seed); /* destroy_input */
            if (ok && write_file(t, ps, pb, COLLIO_BACKEND_POSIX, buf, bytes)) {
                size_t na = 0, nb = 0;
                unsigned char *fa = tu_posix_get(t, pa, &na);
                unsigned char *fb = tu_posix_get(t, pb, &nb);
                TU_CHECK(t, fa && fb && na == nb && memcmp(fa, fb, na) == 0,
                         "multiphase file == serial file (%zu vs %zu bytes)", na, nb);
                TU_CHECK(t, tu_check_file(t, pa, d.nglobal, d.esize, seed, 0, 0, 0) == 0,
                         "and both equal the expectation");
                free(fa);
                free(fb);
                unsigned char *back = calloc(1, bytes + 1);
                if (read_file(t, pm, pa, COLLIO_BACKEND_POSIX, back, bytes)) {
                    int64_t first;
                    TU_CHECK(
                        t, tu_compare(back, d.idx, d.nlocal, d.esize, seed, &first) == 0,
                        "read back");
                }
                free(back);
            }
            tu_remove(t, pa);
            tu_remove(t, pb);
            free(buf);
        }
        collio_plan_free(&pm);
        collio_plan_free(&ps);
        collio_layout_free(&l);
        tu_desc_free(&d);
    }
}

/* ------------------------------------------------ reuse, options */

/* ncalls write + read cycles through one plan p, data seed0 + call, each
 * file and read back verified. Stats of each write / read go to wst[call]
 * / rst[call] (may be NULL). The plan may use buf as scratch. */
static void plan_cycles(tu_ctx *t, const tu_layout_desc *d, collio_plan *p,
                        const int64_t *idx, int64_t n, int ncalls, uint64_t seed0,
                        collio_stats *wst, collio_stats *rst, int *wx, int *rx,
                        int *wrounds, int *rrounds)
{
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "cycles", path, sizeof path);
    for (int call = 0; call < ncalls; call++) {
        uint64_t seed = seed0 + (uint64_t)call;
        tu_fill(buf, idx, n, d->esize, seed);
        if (!write_file(t, p, path, COLLIO_BACKEND_POSIX, buf, bytes))
            break;
        if (wst)
            collio_plan_stats(p, &wst[call]);
        if (wx) /* the exchange the call ran */
            wx[call] = (int)TU_STAT(t, p, "multiphase.exchange");
        if (wrounds)
            wrounds[call] = (int)TU_STAT(t, p, "multiphase.nrounds");
        TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 0) == 0,
                 "write %d of the plan", call);
        memset(back, 0, bytes + 1);
        if (!read_file(t, p, path, COLLIO_BACKEND_POSIX, back, bytes))
            break;
        if (rst)
            collio_plan_stats(p, &rst[call]);
        if (rx)
            rx[call] = (int)TU_STAT(t, p, "multiphase.exchange");
        if (rrounds)
            rrounds[call] = (int)TU_STAT(t, p, "multiphase.nrounds");
        int64_t first;
        TU_CHECK(t, tu_compare(back, idx, n, d->esize, seed, &first) == 0,
                 "read %d of the plan", call);
    }
    tu_remove(t, path);
    free(buf);
    free(back);
}

static void test_reuse(tu_ctx *t)
{
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 7777, 3, 4);
    /* one pass; rounds; the direct exchange (shared memory, messages);
     * the node-aware exchanges */
    static const mp_opts v[] = {{0, 0, -1, 0, X_HC},         {0, 0, 3, 0, X_HC},
                                {0, 0, 0, 0, X_DIRECT},      {0, 0, 0, 0, X_DIRECT_MSG},
                                {0, 0, 0, 0, X_NODE_DIRECT}, {0, 0, 0, 0, X_NODE_HC}};
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++) {
        tu_case(t, "plan reused for 10 writes: %s write_rounds=%d exchange=%s", d.name,
                v[i].rounds, xname[v[i].x]);
        if (!tu_case_enabled(t))
            continue;
        int64_t *idx = NULL, n = 0;
        collio_plan *p = NULL; /* (its layout is freed already) */
        if (plan_of(t, &d, &v[i], &idx, &n, &p))
            plan_cycles(t, &d, p, idx, n, 10, 70, NULL, NULL, NULL, NULL, NULL, NULL);
        collio_plan_free(&p);
        free(idx);
    }
    tu_desc_free(&d);
}

/* Work memory (stats.work_bytes: the work buffers a call used, by their
 * allocated size) of a bx = 1 layout of 1 MiB (2^18 elements) per rank,
 * whose
 * domains split into rounds of multiples of P elements starting at
 * multiples of P. At P = 2^n every rank then holds exactly its share in
 * every phase and round, so the rule gives exact sizes (n local bytes):
 *   one pass (write_rounds = -1), default write: 2 work buffers     2n
 *   destroy_input write; one-pass read: 1 (the user's buffer is the
 *     second)                                                 n
 *   write_rounds = 2 (3 rounds), exchange = HYPERCUBE: F plus the last
 *     round's second buffer running past F, writes and reads  n + n/4
 *   write_rounds = 0 (automatic: halvings while the last round keeps
 *     64 KiB: 4 here, 5 rounds), HYPERCUBE                    n + n/16
 *   the direct exchange: F, the rank's domain, alone -- at every P,
 *     since the domains here are n elements each              n
 *   write_rounds = 2 and 0 with exchange = AUTO (bx = 1: the hypercube,
 *     its last round direct, without slots): F alone          n
 * Other P hold more in some phases (a rank receives from two), so there
 * only: never more than the one-pass default write for the automatic
 * choice (it keeps rounds only where they need less; the explicit
 * write_rounds = 2 may need more). Over 2 calls of a plan (kept buffers
 * reused), every file and read back verified.
 *
 * The node-aware exchanges (forced, and AUTO across nodes) use two work
 * buffers, writes and reads alike, never rounds: see node_work. */

/* First element of domain d of nx elements over P ranks (balanced). */
static int64_t dom_lo(int64_t nx, int P, int d)
{
    int64_t q = nx / P, r = nx % P;
    return d * q + (d < r ? d : r);
}

/* Elements of domain d that rank h holds in the block-cyclic bx = 1
 * vector of nx elements (element i on rank i % P). */
static int64_t held_in(int64_t nx, int P, int h, int d)
{
    int64_t lo = dom_lo(nx, P, d), hi = dom_lo(nx, P, d + 1);
    /* #{i in [0, x): i % P == h} = x / P + (x % P > h) */
    int64_t f_hi = hi / P + (hi % P > h), f_lo = lo / P + (lo % P > h);
    return f_hi - f_lo;
}

/* Elements the ranks of node A hold for the domains of node B. */
static int64_t node_pair(int64_t nx, int P, int A, int B)
{
    int64_t n = 0;
    for (int g = 0; g < P; g++)
        for (int d = 0; d < P && nodes.node_of[g] == A; d++)
            if (nodes.node_of[d] == B)
                n += held_in(nx, P, g, d);
    return n;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Work memory in elements of a node-aware exchange x on rank me for the
 * bx = 1 vector of nx elements, from the design in multiphase/node/node.h:
 * route step s fills work buffer s % 2 ("B": what the rank holds after
 * the step), except the last step, which lands in file order in F (the
 * rank's domain) in its buffer; each buffer is as large as the most it
 * holds. -1: not computed here (node-hypercube over more than 2 nodes;
 * the caller bounds it).
 *   one node: one step from the user's buffer into F: 1 x domain;
 *   node-direct: step 0 leaves on rank me what it owns from its node plus,
 *     where it is its node S's port for node N (node S numbers the others
 *     (N - S - 1) mod M, that modulo S's rank count is the port's index),
 *     all that S holds for N's domains; step 1 keeps what it owns and
 *     brings, for each of those N, all that N holds for S's domains;
 *     step 2 lands in F (buffer 0 again);
 *   node-hypercube over 2 nodes: step 0 keeps what rank me holds for its
 *     node's domains and brings what its lanes on the other node T hold
 *     for them (the ranks of T whose index modulo S's size is its own);
 *     step 1 lands in F (buffer 1). */
static int64_t node_work(int64_t nx, int P, int me, int x)
{
    const int M = nodes.M, S = nodes.node_of[me], mS = nodes.size[S];
    const int64_t dom = dom_lo(nx, P, me + 1) - dom_lo(nx, P, me);
    if (M == 1)
        return dom; /* one step: the stream straight into F */
    if (x == TU_EXCHANGE_NODE_DIRECT) {
        int64_t own = 0;
        for (int g = 0; g < P; g++)
            if (nodes.node_of[g] == S)
                own += held_in(nx, P, g, me);
        int64_t b0 = own, b1 = own;
        for (int N = 0; N < M; N++)
            if (N != S && nodes.lidx[me] == ((N - S - 1 + M) % M) % mS) {
                b0 += node_pair(nx, P, S, N);
                b1 += node_pair(nx, P, N, S);
            }
        /* steps 0 and 2 in buffer 0 (step 2's: F), step 1 in buffer 1 */
        return max64(b0, dom) + b1;
    }
    if (M != 2)
        return -1;
    int64_t b0 = 0;
    for (int g = 0; g < P; g++)
        for (int d = 0; d < P; d++)
            if (nodes.node_of[d] == S
                && (g == me
                    || (nodes.node_of[g] != S && nodes.lidx[g] % mS == nodes.lidx[me])))
                b0 += held_in(nx, P, g, d);
    return b0 + dom; /* the phase in buffer 0, the last step's F in 1 */
}

static void test_work_memory(tu_ctx *t)
{
    if (t->nranks < 2)
        return; /* no phases, no work buffers */
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, (int64_t)t->nranks * 262144, 1, 4);
    const int pow2 = (t->nranks & (t->nranks - 1)) == 0;
    static const mp_opts variants[] = {
        {0, 0, -1, 0, X_HC},    {0, 1, 0, 0, X_HC},         {0, 0, 2, 0, X_HC},
        {0, 0, 0, 0, X_HC},     {0, 0, 0, 0, X_DIRECT},     {0, 0, 2, 0, X_AUTO},
        {0, 0, 0, 0, X_AUTO},   {0, 0, 0, 0, X_DIRECT_MSG}, {0, 0, 0, 0, X_NODE_DIRECT},
        {0, 0, 0, 0, X_NODE_HC}};
    enum { NV = sizeof variants / sizeof variants[0] };
    for (int keep = 0; keep <= 1; keep++) {
        int64_t plain = INT64_MAX; /* the one-pass default write's work_bytes */
        for (int v = 0; v < NV; v++) {
            const mp_opts *mo = &variants[v];
            tu_case(t,
                    "work memory %s keep_buffers=%d destroy_input=%d write_rounds=%d "
                    "exchange=%s",
                    d.name, keep, mo->destroy, mo->rounds, xname[mo->x]);
            if (!tu_case_enabled(t))
                continue;
            int64_t *idx = NULL, n = 0;
            collio_plan *p = NULL;
            if (plan_of(t, &d, &(mp_opts){mo->k, mo->destroy, mo->rounds, !keep, mo->x},
                        &idx, &n, &p)) {
                enum { CALLS = 2 };
                collio_stats w[CALLS], r[CALLS];
                int wx[CALLS] = {-1, -1}, rx[CALLS] = {-1, -1};
                int wr[CALLS] = {-1, -1}, rr[CALLS] = {-1, -1};
                memset(w, 0, sizeof w);
                memset(r, 0, sizeof r);
                plan_cycles(t, &d, p, idx, n, CALLS, 500, w, r, wx, rx, wr, rr);
                const int64_t b = n * (int64_t)d.esize;
                /* the node-aware exchanges: forced, or AUTO across nodes
                 * where it takes one */
                if (mo->x == X_NODE_DIRECT || mo->x == X_NODE_HC
                    || (mo->x == X_AUTO && !one_node() && is_node_x(wx[0]))) {
                    for (int c = 0; c < CALLS; c++) {
                        const int x = wx[c];
                        TU_CHECK(t,
                                 is_node_x(x) && rx[c] == x
                                     && (mo->x == X_AUTO || x == exchange_opt(mo->x)),
                                 "call %d: exchange %s / %s", c, tu_exchange_name(x),
                                 tu_exchange_name(rx[c]));
                        TU_CHECK(t, wr[c] == 0 && rr[c] == 0,
                                 "call %d: rounds %d / %d, want none", c, wr[c], rr[c]);
                        if (!is_node_x(x))
                            continue;
                        const int64_t es = (int64_t)d.esize;
                        const int64_t nw = node_work(d.nglobal, t->nranks, t->rank, x);
                        /* else at least the last step's domain (F), at most
                         * two buffers of all data */
                        if (nw >= 0)
                            TU_CHECK(t,
                                     w[c].work_bytes == nw * es
                                         && r[c].work_bytes == nw * es,
                                     "%s call %d: work_bytes %lld / %lld, want %lld",
                                     tu_exchange_name(x), c, (long long)w[c].work_bytes,
                                     (long long)r[c].work_bytes, (long long)(nw * es));
                        else
                            TU_CHECK(t,
                                     w[c].work_bytes >= b
                                         && w[c].work_bytes <= 2 * d.nglobal * es
                                         && r[c].work_bytes == w[c].work_bytes,
                                     "%s call %d: work_bytes %lld / %lld, want %lld "
                                     ".. 2 x %lld",
                                     tu_exchange_name(x), c, (long long)w[c].work_bytes,
                                     (long long)r[c].work_bytes, (long long)b,
                                     (long long)(d.nglobal * es));
                    }
                    collio_plan_free(&p);
                    free(idx);
                    continue;
                }
                /* on one node AUTO is the direct exchange (v = 5, 6), which
                 * like DIRECT (v = 4) pulls these 4-byte blocks: F plus a
                 * slack of at most one block per owner and round beyond
                 * F's free tail, P elements here -- none at P = 2^n, where
                 * every part divides evenly */
                const int node = one_node();
                const int pull = node && (v == 4 || v == 5 || v == 6);
                const int64_t want[NV] = {2 * b, b, b + b / 4, b + b / 16, b,
                                          b,     b, b,         0,          0};
                /* AUTO (v = 5, 6) is direct here on one node: no rounds
                 * (across nodes a node-aware exchange, above) */
                const int rounds[NV] = {0, 0, 3, 5, 0, 0, 0, 0, 0, 0};
                int64_t want_r = v >= 2 ? want[v] : b; /* reads: 1x but in rounds */
                const int exact = pow2 || v == 7 || (v == 4 && !pull);
                if (v == 0)
                    plain = w[0].work_bytes;
                for (int c = 0; c < CALLS && exact; c++) {
                    TU_CHECK(t, w[c].work_bytes == want[v],
                             "write %d: work_bytes %lld, want %lld", c,
                             (long long)w[c].work_bytes, (long long)want[v]);
                    TU_CHECK(t, r[c].work_bytes == want_r,
                             "read %d: work_bytes %lld, want %lld", c,
                             (long long)r[c].work_bytes, (long long)want_r);
                    TU_CHECK(t, wr[c] == rounds[v] && rr[c] == rounds[v],
                             "rounds %d / %d, want %d", wr[c], rr[c], rounds[v]);
                }
                for (int c = 0; c < CALLS && pull && !exact; c++)
                    TU_CHECK(t,
                             w[c].work_bytes >= b
                                 && w[c].work_bytes <= b + t->nranks * (int64_t)d.esize
                                 && r[c].work_bytes == w[c].work_bytes,
                             "pull, call %d: work_bytes %lld / %lld, want F = %lld plus "
                             "at most %d elements",
                             c, (long long)w[c].work_bytes, (long long)r[c].work_bytes,
                             (long long)b, t->nranks);
                for (int c = 0; c < CALLS && !exact && !pull && v != 2 && v != 5; c++)
                    TU_CHECK(t, w[c].work_bytes <= plain && r[c].work_bytes <= plain,
                             "call %d: work_bytes %lld / %lld, want <= %lld", c,
                             (long long)w[c].work_bytes, (long long)r[c].work_bytes,
                             (long long)plain);
            }
            collio_plan_free(&p);
            free(idx);
        }
    }
    tu_desc_free(&d);
}

/* stats.plan_bytes is the memory of the plan's descriptors on this rank.
 * A plan that posts messages keeps, for each, at least its peer and its
 * element count (an int and an int64_t; the MPI datatypes' own memory is
 * MPI's and not counted): so a plan over a vector whose elements lie on
 * other ranks than their writers (bx = 1) must report at least that much
 * more than the same exchange's plan over blocks that are the domains
 * (every element on its writer, domain d on rank d: no message at all,
 * checked too). (Not for the direct exchange: its writers are not rank d,
 * and its plan keeps a descriptor for every peer whether used or not.)
 * Known to fail as of commit 2ea0cca at every P >= 2: plan_bytes() in
 * src/strategies/multiphase.c counts nothing of mp->node (its route
 * steps' peers, types and kept copies, its final scatter), so both
 * node-aware plans report sizeof the plan struct alone. */
static void test_plan_bytes(tu_ctx *t)
{
    if (t->nranks < 2)
        return; /* no messages */
    static const int xs[] = {X_NODE_DIRECT, X_NODE_HC};
    for (int i = 0; i < 2; i++) {
        tu_case(t, "plan_bytes counts the descriptors of each message: exchange=%s",
                xname[xs[i]]);
        if (!tu_case_enabled(t))
            continue;
        collio_stats st[2];
        memset(st, 0, sizeof st);
        int ok = 1;
        for (int spread = 0; spread < 2 && ok; spread++) {
            tu_layout_desc d;
            tu_desc_block_cyclic(&d, 1000 * (int64_t)t->nranks, spread ? 1 : 1000, 8);
            int64_t *idx = NULL, n = 0;
            collio_plan *p = NULL;
            ok = plan_of(t, &d, &(mp_opts){0, 0, -1, 0, xs[i]}, &idx, &n, &p);
            if (ok)
                plan_cycles(t, &d, p, idx, n, 1, 900 + (uint64_t)spread, &st[spread],
                            NULL, NULL, NULL, NULL, NULL);
            collio_plan_free(&p);
            free(idx);
            tu_desc_free(&d);
        }
        if (!ok)
            continue;
        TU_CHECK(t, st[0].messages == 0,
                 "blocks that are the domains: %lld messages, want none",
                 (long long)st[0].messages);
        const int64_t least = st[1].messages * (int64_t)(sizeof(int) + sizeof(int64_t));
        TU_CHECK(t, st[1].plan_bytes - st[0].plan_bytes >= least,
                 "%s: plan_bytes %lld with %lld messages per write, %lld without: want "
                 ">= %lld more",
                 xname[xs[i]], (long long)st[1].plan_bytes, (long long)st[1].messages,
                 (long long)st[0].plan_bytes, (long long)least);
    }
}

/* The shared-memory exchange's pull rounds (docs/multiphase.md: layouts
 * whose mean block is under 2 KiB, on one node, halve what is left of
 * each domain of nglobal / P elements while the half keeps 256 elements,
 * at most 6 times), counted here from that rule: the plan's stat
 * multiphase.pull_rounds, and what the strategy's table tells auto's
 * model (profile's sync_rounds), must both say it; where the plan goes
 * through shared memory without pull rounds it pushes, every byte copied
 * once, and the table must say that too (shared_copies 1, else 0); the
 * layouts round-trip. */
static int want_pull(int64_t nglobal, int P, int64_t mean_block, int shm)
{
    int64_t n = nglobal / P, c = 0;
    int r = 0;
    while (r < 6 && (n - c) / 2 >= 256) {
        c += (n - c) / 2;
        r++;
    }
    return shm && P > 1 && mean_block < 2048 ? r : 0;
}

static void test_pull_rounds(tu_ctx *t)
{
    static const struct {
        int64_t per_rank, bx;
        size_t es;
    } cases[] = {{16384, 1, 4},   {512, 1, 128}, {700, 7, 4},
                 {4096, 1024, 4}, {100, 1, 4},   {2000, 3, 8}};
    const collio__strategy *mp = collio__strategy_find("multiphase");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int64_t nx = cases[i].per_rank * t->nranks, bx = cases[i].bx;
        tu_case(t, "pull rounds: nx = %lld, bx = %lld, esize %zu", (long long)nx,
                (long long)bx, cases[i].es);
        if (!tu_case_enabled(t))
            continue;
        tu_layout_desc d;
        tu_desc_block_cyclic(&d, nx, bx, cases[i].es);
        int64_t *idx = NULL, n = 0;
        collio_plan *p = NULL;
        if (plan_of(t, &d, &(mp_opts){0, 0, 0, 0, X_AUTO}, &idx, &n, &p)) {
            plan_cycles(t, &d, p, idx, n, 1, 950 + (uint64_t)i, NULL, NULL, NULL, NULL,
                        NULL, NULL);
            double shm = -1, got = -1; /* (shared_memory: set by the first call) */
            collio_plan_stat(p, "multiphase.shared_memory", &shm);
            collio_plan_stat(p, "multiphase.pull_rounds", &got);
            if (t->nranks > 1) /* (one rank: nothing to exchange, no rounds) */
                TU_CHECK(t, (shm == 1) == one_node(), "shared memory %g, one node %d",
                         shm, one_node());
            /* elements over blocks, times the element size */
            const int64_t mean = nx / ((nx + bx - 1) / bx) * (int64_t)cases[i].es;
            const int want = want_pull(nx, t->nranks, mean, shm == 1);
            TU_CHECK(t, got == want, "pull_rounds %g, want %d", got, want);
            collio__exec_profile pr = {-1, -1};
            if (mp != NULL && mp->profile != NULL)
                mp->profile(nx, t->nranks, mean, one_node(), &pr);
            TU_CHECK(t, pr.sync_rounds == want, "the table's sync_rounds %d, want %d",
                     pr.sync_rounds, want);
            const int push = shm == 1 && t->nranks > 1 && want == 0;
            TU_CHECK(t, pr.shared_copies == push, "the table's shared_copies %d, want %d",
                     pr.shared_copies, push);
        }
        collio_plan_free(&p);
        free(idx);
        tu_desc_free(&d);
    }
}

/* A multiphase plan of l with the hints of `list` (printf-formatted). */
static int plan_with(tu_ctx *t, collio_layout *l, collio_plan **p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int plan_with(tu_ctx *t, collio_layout *l, collio_plan **p, const char *fmt, ...)
{
    char list[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list, sizeof list, fmt, ap);
    va_end(ap);
    collio_hints *h = TU_HINTS(t, "%s", list);
    int rc = collio_plan_create(t->comm, l, "multiphase", h, p);
    collio_hints_free(&h);
    return rc;
}

/* KEY = VALUE out of range: collio_hints_set rejects it on this rank
 * (ARG, naming the key, the set unchanged), and in COLLIO_HINTS it fails
 * the plan with ARG on every rank, naming the key and COLLIO_HINTS. */
static void bad_hint(tu_ctx *t, collio_layout *l, const char *key, const char *value)
{
    char what[128], env[128];
    snprintf(what, sizeof what, "%s = %s", key, value);
    collio_hints *h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set(h, key, value), COLLIO_ERR_ARG, what);
    TU_CHECK(t, strstr(collio_last_error(), key) != NULL, "%s: '%s' names the key", what,
             collio_last_error());
    TU_CHECK(t, collio_hints_count(h) == 0, "%s: not kept in the set", what);
    snprintf(env, sizeof env, "%s=%s", key, value);
    setenv("COLLIO_HINTS", env, 1);
    collio_plan *p = NULL;
    int rc = collio_plan_create(t->comm, l, "multiphase", h, &p);
    unsetenv("COLLIO_HINTS");
    TU_RC_ALL(t, rc, COLLIO_ERR_ARG, what);
    TU_CHECK(t,
             strstr(collio_last_error(), key) != NULL
                 && strstr(collio_last_error(), "COLLIO_HINTS") != NULL,
             "%s in COLLIO_HINTS: '%s' names the key and COLLIO_HINTS", what,
             collio_last_error());
    TU_CHECK(t, p == NULL, "no plan after an error");
    collio_plan_free(&p);
    collio_hints_free(&h);
}

static void test_options(tu_ctx *t)
{
    tu_case(t,
            "phases, keep_buffers, destroy_input, write_rounds, exchange out of range");
    if (!tu_case_enabled(t))
        return;
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 100, 1, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    if (TU_RC_ALL(t, rc, COLLIO_OK, "layout")) {
        collio_plan *p = NULL;
        /* AUTO may merge the phases: the hypercube */
        rc = plan_with(t, l, &p, "multiphase.phases=%d,multiphase.exchange=hypercube",
                       all_phases(t->nranks) + 1);
        TU_RC_ALL(t, rc, COLLIO_OK, "phases = all + 1 means all");
        if (rc == COLLIO_OK) {
            const int nphases = (int)TU_STAT(t, p, "multiphase.nphases");
            TU_CHECK(t, nphases == all_phases(t->nranks),
                     "phases = all + 1 runs all %d phases (got %d)",
                     all_phases(t->nranks), nphases);
        }
        collio_plan_free(&p);
        /* phases: 0..32 */
        bad_hint(t, l, "multiphase.phases", "-1");
        bad_hint(t, l, "multiphase.phases", "33");
        /* write_rounds: -1..62 */
        bad_hint(t, l, "multiphase.write_rounds", "-2");
        bad_hint(t, l, "multiphase.write_rounds", "63");
        /* exchange: the name of a value of multiphase.exchange */
        bad_hint(t, l, "multiphase.exchange", "5"); /* TU_EXCHANGE__COUNT */
        bad_hint(t, l, "multiphase.exchange", "-1");
        bad_hint(t, l, "multiphase.exchange", "Direct");
        collio_hints *h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set_int(h, "multiphase.exchange", TU_EXCHANGE__COUNT),
              COLLIO_ERR_ARG, "exchange = TU_EXCHANGE__COUNT (collio_hints_set_int)");
        TU_RC(t, collio_hints_set_int(h, "multiphase.exchange", -1), COLLIO_ERR_ARG,
              "exchange = -1 (collio_hints_set_int)");
        collio_hints_free(&h);
        /* direct and the node-aware ones merge all phases, so fewer phases
         * with them are an error (where fewer exist: P > 2) */
        static const int nx[] = {TU_EXCHANGE_NODE_DIRECT, TU_EXCHANGE_NODE_HYPERCUBE};
        for (int i = 0; i < 2; i++) {
            const int all = all_phases(t->nranks);
            const int ph[] = {1, 0, all, all + 1}; /* 0, all and more: all */
            for (int j = 0; j < 4; j++) {
                rc = plan_with(t, l, &p, "multiphase.exchange=%s,multiphase.phases=%d",
                               tu_exchange_name(nx[i]), ph[j]);
                char what[96];
                snprintf(what, sizeof what, "%s with phases = %d",
                         tu_exchange_name(nx[i]), ph[j]);
                int bad = ph[j] >= 1 && ph[j] < all;
                TU_RC_ALL(t, rc, bad ? COLLIO_ERR_ARG : COLLIO_OK, what);
                if (rc == COLLIO_OK) {
                    const int x = (int)TU_STAT(t, p, "multiphase.exchange");
                    const int shm = (int)TU_STAT(t, p, "multiphase.shared_memory");
                    TU_CHECK(t, x == nx[i] && shm == 0,
                             "%s: exchange %s, shared_memory %d", what,
                             tu_exchange_name(x), shm);
                }
                TU_CHECK(t, rc == COLLIO_OK || p == NULL, "no plan after an error");
                collio_plan_free(&p);
            }
        }
        rc = plan_with(t, l, &p, "multiphase.exchange=direct,multiphase.phases=1");
        TU_RC_ALL(t, rc, all_phases(t->nranks) > 1 ? COLLIO_ERR_ARG : COLLIO_OK,
                  "direct with phases = 1");
        if (rc == COLLIO_ERR_ARG)
            TU_CHECK(t, strstr(collio_last_error(), "multiphase") != NULL,
                     "direct with phases = 1: '%s' names the options",
                     collio_last_error());
        collio_plan_free(&p);
        /* the flags take booleans only */
        bad_hint(t, l, "multiphase.shared_memory", "2");
        bad_hint(t, l, "plan.keep_buffers", "2");
        bad_hint(t, l, "plan.destroy_input", "-1");
    }
    collio_layout_free(&l);
    tu_desc_free(&d);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_multiphase");
    tu_node_map_make(&t, &nodes);
    test_options(&t);
    test_block_cyclic(&t);
    test_darray(&t);
    test_index_lists(&t);
    test_reuse(&t);
    test_work_memory(&t);
    test_plan_bytes(&t);
    test_pull_rounds(&t);
    test_random_vs_serial(&t, t.nranks > 4 ? 25 : 40);
    tu_node_map_free(&nodes);
    return tu_finish(&t);
}
