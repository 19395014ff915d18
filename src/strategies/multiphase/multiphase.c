/*
 * multiphase.c -- strategy "multiphase": multiple-phase collective I/O with
 * an inspector/executor plan (seed 001: Multiple-Phase Collective I/O,
 * STEM-II; seed 004: Inspector-Executor Collective I/O for block-cyclic
 * distributions), generalised to every layout and every P.
 *
 * Algorithm. [0, nglobal) is cut into P contiguous balanced file domains
 * (domains.c; the schedule: schedule.c). Phase ph (ph = 0, 1, ..., lowest
 * hypercube dimension first) splits every group of ranks that share a file range in two
 * by bit ph of the rank: rank r sends its partner r XOR 2^ph every piece whose file
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
 * Transports. How the data moves between the ranks' streams and their
 * file-order buffers F is one of a table of transports
 * (collio__mp_transport in multiphase.h: name, the exchange it reports,
 * build, write, read, free), like the table of strategies one level up:
 *   hypercube  the phases above (hypercube/transport.c: the entry;
 *              hypercube/inspect.c builds, on the pure steps of
 *              hypercube/phases.c and hypercube/rounds.c;
 *              hypercube/exec.c executes);
 *   direct     all phases merged into one (exchange.c): each
 *              rank sends each piece straight from the user's buffer to
 *              the rank that writes it, MPI datatypes placing it in that
 *              rank's F: each element moves once instead of up to log2 P
 *              times, no work buffers beyond F, P - 1 messages per rank;
 *   shm        the direct exchange through an MPI-3 shared-memory window
 *              on one node (shm/transport.c; pull rounds for small
 *              blocks, shm/pull.c; the order of the writes,
 *              shm/relay.c).
 * choose.c picks the transport from hint multiphase.exchange, the layout,
 * P and the nodes, and holds every threshold of that choice (AUTO: the
 * direct exchange where the layout's blocks are long enough and P small
 * enough, or ranks on several nodes, through shared memory on one node;
 * the hypercube otherwise, whose writes in rounds then move their last
 * round directly). This file runs what every plan shares -- the agreement on
 * scratch space, the phase count, the choice -- and then dispatches plan,
 * write, read and free through the chosen transport. kit.c
 * holds what the transports share (scatter / gather, work buffers, file
 * requests, descriptor exchange). Files call downward only: kit and
 * schedule at the bottom, transports above, the chooser and this file on
 * top (scripts/check-cycles keeps the call graph a DAG).
 *
 * Hypercube inspector (hypercube/phases.c for the pure steps,
 * hypercube/inspect.c for the collective driver; run once per plan): per phase the kept
 * copies, the sent pieces (an MPI hindexed type over the buffer: a few
 * large contiguous ranges, since buffers hold data segment-major) and where
 * received data lands; descriptors exchanged once with the partner; the
 * final scatter ops and file runs. The executor (hypercube/exec.c) only
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
 * (hypercube/rounds.c; hint multiphase.write_rounds): the same phases once per
 * round, over the data of half of every domain, then a quarter, ..., with
 * the work buffers inside the rank's domain buffer F: F plus a small spill
 * area, about (1 + 2^-(rounds-1)) x the local data; reads through such a
 * plan run the rounds backwards in the same buffer. The plan holds both
 * the one pass (writes with scratch; plans without rounds) and the
 * rounds.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "multiphase.h"

static int mp_plan(collio_plan *p)
{
    const collio_layout *l = p->layout;
    collio__mp_plan *mp = calloc(1, sizeof *mp);
    if (mp == NULL)
        return COLLIO_ERR_NOMEM;
    p->impl = mp;
    mp->esize = l->esize;
    mp->allphases = collio__mp_nphases(p->nranks);
    int scratch = collio__plan_opt(p, COLLIO__PLAN_DESTROY_INPUT)
                  || l->mem_kind != COLLIO__MEM_PACKED;
    if (MPI_Allreduce(&scratch, &mp->scratch_all, 1, MPI_INT, MPI_MIN, p->comm)
        != MPI_SUCCESS)
        return COLLIO_ERR_MPI; /* every rank: the call failed everywhere */
    /* 0 = all; more than ceil(log2 P) phases cannot be done (rank count
     * decides it, not the user), so ask-for-more means all: stat nphases
     * tells what ran. The strategy's check already rejected negative values. */
    int k = collio__opt(p, MP_OPT_PHASES);
    if (k == 0 || k > mp->allphases)
        k = mp->allphases;
    if (k < 0)
        return COLLIO_ERR_ARG; /* same options on every rank: all fail here */
    mp->nphases = k;
    collio__stat_set(p, MP_STAT_NPHASES, k);
    int rc = COLLIO_OK;
    const collio__mp_transport *t = collio__mp_choose(p, mp, &rc); /* collective */
    if (t == NULL)
        return rc; /* the same on every rank */
    mp->transport = t;
    collio__stat_set(p, MP_STAT_EXCHANGE, mp->exchange);
    collio__stat_set(p, MP_STAT_PULL_ROUNDS, mp->pull_rounds);
    return t->build(p, mp);
}

/* The table's profile: on one node, with the shared-memory window (hint
 * multiphase.shared_memory's default), the exchange collio__mp_choose
 * takes there: small blocks pull in rounds (sync_rounds; their staging and
 * gathering left to the model's general terms, which measured closer to
 * them than two copies: docs/auto.md), larger ones are pushed, every byte
 * copied once by its sender into its owner's F (shared_copies). */
static void mp_profile(int64_t nglobal, int nranks, int64_t mean_block, int one_node,
                       collio__exec_profile *out)
{
    *out = (collio__exec_profile){0, 0};
    if (!one_node || nranks < 2)
        return;
    out->sync_rounds = collio__mp_pull_rounds_for(nglobal, nranks, mean_block);
    out->shared_copies = out->sync_rounds == 0;
}

static int mp_write(collio_plan *p, collio_file *f, const char *stream)
{
    const collio__mp_plan *mp = p->impl;
    return mp->transport->write(p, f, stream);
}

static int mp_read(collio_plan *p, collio_file *f, char *stream)
{
    const collio__mp_plan *mp = p->impl;
    return mp->transport->read(p, f, stream);
}

/* Collective (a transport's windows), as collio_plan_free is. */
static void mp_free(collio_plan *p)
{
    collio__mp_plan *mp = p->impl;
    if (mp == NULL)
        return;
    if (mp->transport != NULL) /* NULL: the plan failed before the choice */
        mp->transport->free(mp);
    collio__bigbuf_free(mp->held[0]);
    collio__bigbuf_free(mp->held[1]);
    free(mp);
    p->impl = NULL;
}

const collio__strategy collio__strategy_multiphase = {
    .section = {"multiphase", NULL, 0, NULL, 0}, /* (as made: sealed_section) */
    .sealed_section = collio__mp_section,
    .summary = "pairwise hypercube exchange phases (inspector/executor), "
               "then one contiguous write per rank (seeds 001, 004)",
    .canonical = 1,
    .plan = mp_plan,
    .write = mp_write,
    .read = mp_read,
    .free = mp_free,
    .replicas_auto = "domain",
    .rank_domain = collio__mp_domain_of_rank,
    .profile = mp_profile,
    .cost_terms = collio__mp_cost_terms,
    .candidates = collio__mp_candidates,
    .ncandidates = MP_NCANDIDATES,
    .measure = collio__mp_measure,
};
