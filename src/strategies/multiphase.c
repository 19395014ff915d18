/*
 * multiphase.c -- strategy "multiphase": multiple-phase collective I/O with
 * an inspector/executor plan (seed 001: Multiple-Phase Collective I/O,
 * STEM-II; seed 004: Inspector-Executor Collective I/O for block-cyclic
 * distributions), generalised to every layout and every P.
 *
 * Algorithm. [0, nglobal) is cut into P contiguous balanced file domains
 * (domains.c). Phase ph (ph = 0, 1, ..., lowest hypercube dimension first)
 * splits every group of ranks that share a file range in two by bit ph of
 * the rank: rank r sends its partner r XOR 2^ph every piece whose file
 * offset lies in the partner's half and keeps the rest, so each phase
 * halves the file range a rank's data spans. For P = 2^n this is seed 004
 * exactly (pairs of its Table 2; rank r ends with domain bitreverse(r), its
 * Table 4). Other P, without folding: groups of odd size split ceil/floor
 * (domains are split in the same proportion), and the one rank of the
 * larger half without an XOR partner sends its other-half data to
 * r - 2^ph, which receives from two ranks in that phase. All ceil(log2 P)
 * phases leave every rank with exactly its domain, in file order after a
 * final scatter: ONE contiguous, balanced write per rank. With phases = k <
 * all, each rank writes what it holds as a list of runs that are 2^k times
 * longer than the layout's (block-cyclic). Reads run the same plan
 * backwards: contiguous read, final gather, phases in reverse.
 *
 * Direct exchange (multiphase_direct.c; opts.exchange): all phases merged
 * into one -- each rank sends each piece straight from the user's buffer
 * to the rank that writes it, MPI datatypes placing it in that rank's
 * file-order buffer F: each element moves once instead of up to log2 P
 * times, no work buffers beyond F, P - 1 messages per rank. The automatic
 * choice takes it for layouts whose mean block has >= 16 bytes at
 * 2 <= P <= 64, and the hypercube otherwise, whose writes in rounds then
 * move their last round directly.
 *
 * Inspector (multiphase_plan.c for the pure steps, multiphase_inspect.c
 * for the collective driver; run once per plan): per phase the kept
 * copies, the sent pieces (an MPI hindexed type over the buffer: a few
 * large contiguous ranges, since buffers hold data segment-major) and where
 * received data lands; descriptors exchanged once with the partner; the
 * final scatter ops and file runs. The executor (multiphase_exec.c) only
 * moves data: per phase one Isend/Irecv pair with the partner overlapped
 * with the kept copies; then one strided scatter into file order and the
 * file requests.
 *
 * Pack choice. A phase's pieces are contiguous ranges of the buffer
 * (clipped strided segments), so the phase needs no per-element pack at
 * all: the MPI derived datatype over a few ranges (zero-copy for the
 * library) is used for sends, plain contiguous receives; the one
 * per-element pass is the final scatter into file order (own loop,
 * specialised for 4- and 8-byte blocks).
 *
 * Cost per rank with all phases, balanced layouts, n local elements:
 * messages 2 per phase (send + receive; 3 for a rank with a lonely
 * neighbour), ~n/2 elements sent and ~n/2 copied per phase, one scatter of
 * n elements, 1 file request of ~nglobal/P elements. Memory: two work
 * buffers of the largest amount held in any phase (about n each; phase 0
 * of a write reads the user's stream directly), plus the plan (a few
 * tuples per phase and rank for regular layouts). The second buffer is
 * the stream itself when the stream may be overwritten (reads; writes
 * with destroy_input or a non-packed memory kind) and is large enough:
 * then the extra memory is one buffer, about 1x the local data. A write
 * that must leave the stream intact runs in rounds instead
 * (multiphase_rounds.c; opts.write_rounds): the same phases once per
 * round, over the data of half of every domain, then a quarter, ..., with
 * the work buffers inside the rank's domain buffer F: F plus a small spill
 * area, about (1 + 2^-(rounds-1)) x the local data; reads through such a
 * plan run the rounds backwards in the same buffer. The plan holds both
 * the one pass (writes with scratch; plans without rounds) and the
 * rounds.
 */
#include "multiphase_node.h"

#include <string.h>

int collio__mp_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_read(collio_plan *p, collio_file *f, char *stream);

static int64_t pass_bytes(const collio__mp_pass *ps, int k)
{
    int64_t b = 0;
    for (int i = 0; i < k; i++) {
        const collio__mp_phase *ph = &ps->ph[i];
        b += ph->nkeep * (int64_t)sizeof(collio__mp_copy);
        b += ph->nsend
             * (int64_t)(sizeof(collio__mp_range) + sizeof(int) + sizeof(MPI_Aint));
    }
    return b + (ps->fin.nops + ps->fin.nruns) * (int64_t)sizeof(collio__seg);
}

/* A direct exchange: per peer two types, two counts, two requests (the
 * types' own size is the MPI library's). */
static int64_t direct_bytes(const collio__mp_direct *d)
{
    if (d == NULL)
        return 0;
    return (int64_t)sizeof *d
           + d->npeers
                 * (int64_t)(2 * sizeof(MPI_Datatype) + 2 * sizeof(int64_t)
                             + 2 * sizeof(MPI_Request));
}

static int64_t plan_bytes(const collio__mp_plan *mp)
{
    if (mp->direct != NULL)
        return (int64_t)sizeof *mp + direct_bytes(mp->direct);
    int64_t b = (int64_t)sizeof *mp + pass_bytes(&mp->whole, mp->nphases);
    for (int r = 0; r < mp->nrounds; r++)
        b += (int64_t)sizeof *mp->rounds + pass_bytes(&mp->rounds[r].pass, mp->nphases)
             + direct_bytes(mp->rounds[r].direct);
    return b;
}

static int mp_plan(collio_plan *p)
{
    const collio_layout *l = p->layout;
    collio__mp_plan *mp = calloc(1, sizeof *mp);
    if (mp == NULL)
        return COLLIO_ERR_NOMEM;
    p->impl = mp;
    collio__mp_pass_init(&mp->whole);
    mp->shm.win = MPI_WIN_NULL;
    mp->shm.relay.win = MPI_WIN_NULL;
    mp->esize = l->esize;
    mp->allphases = collio__mp_nphases(p->nranks);
    int scratch = p->opts.destroy_input || l->mem_kind != COLLIO__MEM_PACKED;
    if (MPI_Allreduce(&scratch, &mp->scratch_all, 1, MPI_INT, MPI_MIN, p->comm)
        != MPI_SUCCESS)
        return COLLIO_ERR_MPI; /* every rank: the call failed everywhere */
    /* 0 = all; more than ceil(log2 P) phases cannot be done (rank count
     * decides it, not the user), so ask-for-more means all: stats.nphases
     * tells what ran. plan.c already rejected negative values. */
    int k = p->opts.phases;
    if (k == 0 || k > mp->allphases)
        k = mp->allphases;
    if (k < 0)
        return COLLIO_ERR_ARG; /* same options on every rank: all fail here */
    mp->nphases = k;
    p->stats.nphases = k;
    /* direct = all phases merged: only meaningful with all of them */
    int x = p->opts.exchange;
    if (x != COLLIO_EXCHANGE_AUTO && x != COLLIO_EXCHANGE_HYPERCUBE && p->opts.phases != 0
        && k < mp->allphases)
        return COLLIO_ERR_ARG; /* same options on every rank */
    /* shared memory: all ranks on one node (collective; only where the
     * exchange may be direct) */
    int shm =
        x != COLLIO_EXCHANGE_HYPERCUBE && k == mp->allphases && collio__mp_shm_wanted(p);
    if (x == COLLIO_EXCHANGE_AUTO && k == mp->allphases && p->stats.nnodes > 1) {
        int rc = collio__mp_node_wanted(p, &x); /* agreed */
        if (rc != COLLIO_OK)
            return rc;
    }
    if (x == COLLIO_EXCHANGE_AUTO)
        x = k == mp->allphases && (shm || collio__mp_direct_wanted(p))
                ? COLLIO_EXCHANGE_DIRECT
                : COLLIO_EXCHANGE_HYPERCUBE;
    p->stats.exchange = x;
    int rc;
    if (x == COLLIO_EXCHANGE_NODE_DIRECT || x == COLLIO_EXCHANGE_NODE_HYPERCUBE) {
        struct collio__mp_node *nd = NULL;
        rc = collio__mp_node_build(p, x, &nd); /* agreed */
        mp->node = nd;
    } else if (x == COLLIO_EXCHANGE_DIRECT) {
        p->stats.nphases = 1;
        rc = collio__agree(p->comm, collio__mp_direct_build(p, mp, shm));
        /* the order of a shared-memory write depends only on P and the
         * node: made once, with the plan (collective) */
        if (rc == COLLIO_OK && mp->direct->peer != NULL)
            rc = collio__agree(p->comm, collio__mp_relay_init(p, &mp->shm.relay));
    } else {
        rc = collio__mp_inspect(p, mp); /* multiphase_inspect.c */
    }
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = plan_bytes(mp);
    return rc;
}

static int mp_write(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    if (mp->node != NULL)
        return collio__mp_node_write(p, f, stream);
    if (mp->direct != NULL && mp->direct->peer != NULL)
        return collio__mp_shm_write(p, f, stream);
    return mp->direct ? collio__mp_direct_write(p, f, stream)
                      : collio__mp_write(p, f, stream);
}

static int mp_read(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    if (mp->node != NULL)
        return collio__mp_node_read(p, f, stream);
    if (mp->direct != NULL && mp->direct->peer != NULL)
        return collio__mp_shm_read(p, f, stream);
    return mp->direct ? collio__mp_direct_read(p, f, stream)
                      : collio__mp_read(p, f, stream);
}

static void mp_free(collio_plan *p)
{
    collio__mp_plan *mp = p->impl;
    if (mp == NULL)
        return;
    collio__mp_shm_free(&mp->shm);         /* collective, as collio_plan_free is */
    collio__mp_relay_free(&mp->shm.relay); /* likewise */
    collio__mp_direct_free(mp->direct);
    collio__mp_node_free(mp->node);
    collio__mp_pass_free(&mp->whole);
    collio__mp_drop_rounds(mp);
    collio__bigbuf_free(mp->held[0]);
    collio__bigbuf_free(mp->held[1]);
    free(mp);
    p->impl = NULL;
}

const collio__strategy collio__strategy_multiphase = {
    .name = "multiphase",
    .summary = "pairwise hypercube exchange phases (inspector/executor), "
               "then one contiguous write per rank (seeds 001, 004)",
    .canonical = 1,
    .plan = mp_plan,
    .write = mp_write,
    .read = mp_read,
    .free = mp_free,
};
