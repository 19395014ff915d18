/*
 * choose.c -- which transport a multiphase plan uses: the one
 * place that decides, and that holds every threshold of the decision.
 *
 * The choice, in order (collective: every rank takes the same steps and
 * gets the same answer):
 *   1. hint multiphase.exchange names a transport (transports.c); a value
 *      without one yet is COLLIO_ERR_ARG, and so is DIRECT with fewer
 *      phases asked for than all (the direct exchange merges all of them).
 *   2. Shared memory (shm_wanted): where the exchange may be direct and
 *      runs all phases, hint multiphase.shared_memory and every rank on one node, and
 *      /dev/shm has room for the window. Else messages, and
 *      stat multiphase.shm_fallback says when only the room was missing.
 *   3. AUTO with all phases across nodes (node_wanted): the direct
 *      exchange where the network is not the bottleneck (the link,
 *      measured once per process by machine/link_probe.c, carries more
 *      than 1 / NODE_NETWORK_BOUND_RATIO of a memory copy) and
 *      P <= DIRECT_MAX_RANKS; else a node-aware exchange, node-direct or
 *      node-hypercube by the cost model of node/sched.c.
 *   4. AUTO on one node: direct with all phases where shared memory was
 *      chosen or direct_wanted holds (P <= DIRECT_MAX_RANKS and a mean
 *      block of at least DIRECT_MIN_BLOCK_BYTES); the hypercube otherwise.
 *   5. Within the chosen transport: the hypercube's writes in rounds move
 *      their last round directly under AUTO at 2 <= P <= DIRECT_MAX_RANKS
 *      (mp->last_direct); the shm transport pulls small blocks in rounds
 *      before it pushes the rest (mp->pull_rounds).
 * The builders read mp->last_direct and mp->pull_rounds and decide
 * nothing themselves. Measurements behind the numbers: docs/multiphase.md.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "core/core.h"
#include "node/node.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

/* The direct exchange costs P - 1 messages per rank against ceil(log2 P)
 * for the hypercube, and MPI datatypes over short blocks stream slowly:
 * under AUTO it is taken for a mean block of at least this many bytes ... */
#define DIRECT_MIN_BLOCK_BYTES 16
/* ... and at most this many ranks (beyond, the message count dominates). */
#define DIRECT_MAX_RANKS 64

/* Across nodes the node-aware exchanges copy each byte that crosses
 * nodes twice more within the nodes (to the port, from the port) to send
 * a few large messages between nodes instead of P - 1 per rank. AUTO
 * takes them where a byte across the network costs at least this many
 * memory copies, or P is beyond DIRECT_MAX_RANKS. Measured on emulated
 * hosts (docs/multiphase.md): a 100 Mbit/s link is ~550 copies, and there
 * node-direct was 1.2-1.4x faster than direct; an unshaped veth link is
 * 3-4 copies, and there direct was 1.3-1.5x faster than either node
 * exchange. */
#define NODE_NETWORK_BOUND_RATIO 64.0

/* The shm transport pushes every piece into its owner's F; with blocks
 * of a few bytes the writers fight over cache lines, so layouts whose
 * mean block is smaller than this many bytes pull instead. Measured at
 * P = 16, 100 MB, in one run: pull 1.75x / 1.63x `block` at 256-byte /
 * 1 KiB blocks, push 2.4x / 2.0x (messages) and 2.0-2.6x / 1.7-2.6x
 * (push, other runs); at 4 KiB push wins. */
#define PULL_MAX_BLOCK_BYTES 2048
/* Pull rounds halve what is left of every domain; they stop when part i
 * would be smaller than this many elements (each round costs two
 * barriers), and after at most PULL_MAX_ROUNDS (the pushed tail is then
 * 1/64 of the data). */
#define PULL_MIN_PART 256
#define PULL_MAX_ROUNDS 6

/* Where MPI implementations on Linux back shared-memory windows (Open MPI's
 * shmem_mmap_backing_file_base_dir, MPICH's shared segments): a tmpfs. */
#define SHM_DIR "/dev/shm"
/* Room kept free beyond the window: the MPI library's own shared-memory
 * transport and other processes on the node need /dev/shm too. */
#define SHM_MARGIN_BYTES ((uint64_t)64 << 20)

/* An exchange a plan names runs its transport (transports.c); AUTO (no
 * transport) is resolved in collio__mp_choose. DIRECT is the version over
 * messages: collio__mp_choose takes the shm transport instead where the
 * window fits. If AUTO should ever take a new transport, the AUTO step of
 * collio__mp_choose says when, with its thresholds here. */

/* Collective: the layout's mean block in bytes (elements over blocks,
 * summed over all ranks), or -1 if it has no blocks or MPI failed. */
static int64_t mean_block_bytes(collio_plan *p)
{
    const collio_layout *l = p->layout;
    int64_t mine[2] = {l->nlocal, 0}, all[2] = {0, 0};
    for (int64_t i = 0; i < l->nsegs; i++)
        mine[1] += l->segs[i].count;
    if (MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, p->comm) != MPI_SUCCESS
        || all[1] == 0)
        return -1;
    return all[0] / all[1] * (int64_t)l->esize;
}

/* 1 where P ranks may exchange directly (P - 1 messages each). */
static int direct_ranks(int P)
{
    return P >= 2 && P <= DIRECT_MAX_RANKS;
}

/* Collective: 1 where AUTO takes the direct exchange for this layout. */
static int direct_wanted(collio_plan *p)
{
    int64_t mean = mean_block_bytes(p); /* collective: first */
    return direct_ranks(p->nranks) && mean >= DIRECT_MIN_BLOCK_BYTES;
}

/* Collective: AUTO's exchange across nodes, in *x (the same on every
 * rank: the probe's figures are rank 0's, the node map and the sum are
 * global). Agreed code. */
static int node_wanted(collio_plan *p, int *x)
{
    double net = 0, mem = 0;
    int64_t mine = p->layout->nlocal * (int64_t)p->layout->esize, all = 0;
    int rc = collio__link_probe(p, &net, &mem);
    if (rc != COLLIO_OK)
        return rc;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI; /* every rank: the call failed everywhere */
    collio__stat_set(p, MP_STAT_NET_BW, net);
    collio__stat_set(p, MP_STAT_MEM_BW, mem);
    *x = MP_EXCHANGE_DIRECT;
    if (mem < NODE_NETWORK_BOUND_RATIO * net && direct_ranks(p->nranks))
        return COLLIO_OK;
    collio__mp_nodes nm;
    rc = collio__mp_nodes_init(&nm, p->nranks, p->node_of); /* same map everywhere */
    double b = (double)all / p->nranks;
    *x = rc == COLLIO_OK
                 && collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_HYPERCUBE, b, net, mem)
                        < collio__mp_node_cost(&nm, MP_EXCHANGE_NODE_DIRECT, b, net, mem)
             ? MP_EXCHANGE_NODE_HYPERCUBE
             : MP_EXCHANGE_NODE_DIRECT;
    collio__mp_nodes_free(&nm);
    return rc;
}

/* Local: 1 if SHM_DIR has room for `bytes` plus the margin and the file
 * size limit allows a file of that size, or SHM_DIR cannot be
 * asked (then the allocation itself decides: a failure is an error agreed
 * on every rank, never an abort, as the window returns MPI errors). */
static int shm_fits(uint64_t bytes)
{
    /* the window's backing file is a file of this process: a file size
     * limit (ulimit -f, set by some batch systems) that it exceeds would
     * fail inside the MPI library's window allocation */
    struct rlimit fsize;
    if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY
        && bytes + SHM_MARGIN_BYTES > (uint64_t)fsize.rlim_cur)
        return 0;
    struct statvfs sv;
    if (statvfs(SHM_DIR, &sv) != 0)
        return 1;
    uint64_t avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    return bytes <= avail && avail - bytes >= SHM_MARGIN_BYTES;
}

/* Collective: 1 where a direct exchange copies through a shared-memory
 * window: hint multiphase.shared_memory, every rank on one node, and room for the
 * window; sets stat multiphase.shm_fallback. */
static int shm_wanted(collio_plan *p)
{
    collio__stat_set(p, MP_STAT_SHM_FALLBACK, 0);
    if (!collio__opt(p, MP_OPT_SHARED_MEMORY))
        return 0;
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)
        == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    /* The window holds every rank's F (its file domain, nglobal / P
     * elements) plus a pull round's slack of at most P elements per rank:
     * the whole file and P^2 elements, all on this one node. */
    const collio_layout *l = p->layout;
    uint64_t bytes = ((uint64_t)l->nglobal + (uint64_t)p->nranks * (uint64_t)p->nranks)
                     * (uint64_t)l->esize;
    int v[2] = {local == p->nranks, shm_fits(bytes)}, all[2] = {0, 0};
    MPI_Allreduce(v, all, 2, MPI_INT, MPI_MIN, p->comm);
    /* one node but no room: messages, and the stats say why */
    collio__stat_set(p, MP_STAT_SHM_FALLBACK, all[0] && !all[1]);
    return all[0] && all[1];
}

/* Pull rounds for a layout of nglobal elements over nranks: halvings of
 * a domain while part i keeps PULL_MIN_PART elements. */
static int pull_rounds(int64_t nglobal, int nranks)
{
    int64_t n = nglobal / (nranks > 0 ? nranks : 1), c = 0;
    int r = 0;
    while (r < PULL_MAX_ROUNDS && (n - c) / 2 >= PULL_MIN_PART) {
        c += (n - c) / 2;
        r++;
    }
    return r;
}

int collio__mp_pull_rounds_for(int64_t nglobal, int nranks, int64_t mean_block)
{
    int r = pull_rounds(nglobal, nranks);
    return mean_block >= 0 && r > 0 && mean_block < PULL_MAX_BLOCK_BYTES ? r : 0;
}

/* Collective: the pull rounds of a shm plan, 0 to push only (a mean block
 * of PULL_MAX_BLOCK_BYTES or more, or domains too small for a round). */
static int pull_wanted(collio_plan *p)
{
    int64_t mean = mean_block_bytes(p); /* collective */
    return collio__mp_pull_rounds_for(p->layout->nglobal, p->nranks, mean);
}

const collio__mp_transport *collio__mp_choose(collio_plan *p, collio__mp_plan *mp,
                                              int *rc)
{
    const int all = mp->nphases == mp->allphases;
    int x = collio__opt(p, MP_OPT_EXCHANGE);
    *rc = COLLIO_OK;
    mp->last_direct = 0;
    mp->pull_rounds = 0;
    /* same options on every rank: all fail here */
    if (x < 0 || x >= collio__mp_nexchanges()
        || (x != MP_EXCHANGE_AUTO && collio__mp_transport_of(x) == NULL)) {
        *rc = COLLIO_ERR_ARG;
        collio__error_set(*rc, "hint multiphase.exchange = %d: no such exchange", x);
        return NULL;
    }
    /* direct and node = all phases merged: only meaningful with all of them */
    if (x != MP_EXCHANGE_AUTO && x != MP_EXCHANGE_HYPERCUBE
        && collio__opt(p, MP_OPT_PHASES) != 0 && !all) {
        *rc = COLLIO_ERR_ARG;
        collio__error_set(*rc,
                          "hints multiphase.exchange = %s and multiphase.phases = %d: "
                          "that exchange merges all %d phases (phases 0 or >= %d)",
                          collio__mp_exchange_name(x), (int)collio__opt(p, MP_OPT_PHASES),
                          mp->allphases, mp->allphases);
        return NULL;
    }
    /* shared memory: only asked (collectively) where the exchange may be
     * direct */
    const int shm =
        (x == MP_EXCHANGE_AUTO || x == MP_EXCHANGE_DIRECT) && all && shm_wanted(p);
    if (x == MP_EXCHANGE_AUTO && all && p->stats.nnodes > 1) {
        *rc = node_wanted(p, &x); /* agreed */
        if (*rc != COLLIO_OK)
            return NULL;
    }
    if (x == MP_EXCHANGE_AUTO)
        x = all && (shm || direct_wanted(p)) ? MP_EXCHANGE_DIRECT : MP_EXCHANGE_HYPERCUBE;
    mp->exchange = x;
    if (x == MP_EXCHANGE_HYPERCUBE) {
        /* the last round of a write in rounds has no slots, so no spill */
        mp->last_direct = collio__opt(p, MP_OPT_EXCHANGE) == MP_EXCHANGE_AUTO
                          && direct_ranks(p->nranks);
        return collio__mp_transport_of(x);
    }
    if (x == MP_EXCHANGE_DIRECT && shm) {
        mp->pull_rounds = pull_wanted(p);
        return &collio__mp_transport_shm;
    }
    return collio__mp_transport_of(x);
}
