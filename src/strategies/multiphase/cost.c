/*
 * strategies/multiphase/cost.c -- multiphase as candidates of strategy
 * auto: its formulas, from the kit of machine/cost.h (docs/auto.md).
 *
 *   multiphase   pack and unpack (pieces and bytes), an exchange of
 *                moved_max, then one contiguous request per rank:
 *                2 * pack + exchange + request * cpu + bytes_total / file_Bps,
 *                and its synchronised rounds beyond its smallest call's
 *                (shape.sync_rounds, the table's profile: the pull rounds
 *                of small blocks on one node) at the term multiphase.round as
 *                calibrated, scaled from the calibration's
 *                oversubscription to the plan's: each waits for the
 *                slowest rank twice. Where its exchange copies each byte
 *                straight into the node's shared window instead
 *                (shape.shared_copies: larger blocks on one node, each
 *                pushed by its sender into its owner's file-order buffer),
 *                shared_copies * pack replaces the packs and the exchange
 *   multiphase_k the hypercube stopped after k < ceil(log2 P) phases (seed
 *                001: the number of phases chosen): per phase half of a
 *                rank's bytes to its partner and a copy of the half kept,
 *                within the node for the leading shape.intra_phases
 *                phases, else over the node's link; the scatter into file
 *                order; list I/O of 2^k ranks' pieces (merged where they
 *                adjoin: pieces_max / 2^k runs, 2^k times longer)
 */
#include "core/core.h"
#include "multiphase.h"

#include <math.h>

static double all_phases(const collio__cost *m, const collio__cost_shape *s, int arg)
{
    (void)arg;
    double msgs = m->nranks - 1 < s->pieces_max ? m->nranks - 1 : s->pieces_max;
    double pack = collio__cost_pack(m, s->pieces_max, s->bytes_max) * m->cpu;
    double move = s->shared_copies > 0
                      ? s->shared_copies * pack
                      : 2 * pack + collio__cost_exchange(m, s->moved_max, msgs);
    double round = collio__cost_term(m, "multiphase.round");
    return move + m->req * m->cpu + m->file_bytes
           + s->sync_rounds * round * m->cpu / m->cpu_cal;
}

/* The hypercube stopped after k phases: each phase sends half of what a
 * rank holds to its partner r XOR 2^j and copies the half it keeps --
 * within the node for the leading intra_phases phases, else over the
 * node's link with every rank of the node at once --, then the final
 * scatter into file order, and list I/O of the runs held: 2^k
 * consecutive ranks' pieces, merged where they adjoin. */
static double k_phases(const collio__cost *m, const collio__cost_shape *s, int k)
{
    int all = 0;
    while ((1 << all) < m->nranks)
        all++;
    if (k >= all)
        return INFINITY; /* all phases: the multiphase candidate */
    double half = s->bytes_max / 2, t = 0;
    for (int j = 0; j < k; j++) {
        t += half / m->copy * m->cpu;
        t += j < s->intra_phases ? m->lat0 * m->cpu + half * m->cpu / m->bw0
                                 : m->lat1 * m->cpu + half * m->rpn / m->bw1;
    }
    /* 2^k ranks' pieces in a 2^k-th of their range: as many as one
     * rank's, 2^k times longer where they adjoin */
    double runs = s->adjoin ? s->pieces_max / (1 << k) : s->pieces_max;
    if (runs < 1)
        runs = 1;
    return t + collio__cost_pack(m, s->pieces_max, s->bytes_max) * m->cpu
           + runs * collio__cost_list_request(m, s->bytes_max / runs) * m->cpu
           + m->file_bytes;
}

/* The calibration's terms it owns: its smallest call, and one round of
 * its shared-memory exchange's pull rounds (layouts of small blocks on
 * one node; two barriers and the staging copies) */
const char *const collio__mp_cost_terms[] = {"multiphase.call", "multiphase.round", NULL};

#define MPK "multiphase.phases"
#define CALL "multiphase"
const collio__candidate collio__mp_candidates[MP_NCANDIDATES] = {
    {.label = "multiphase", .floor = CALL, .base = 1, .terms = all_phases},
    {"multiphase_k1",
     {MPK},
     {"1"},
     1,
     CALL,
     0,
     k_phases,
     1,
     "multiphase (1 phase, then list I/O)"},
    {"multiphase_k2",
     {MPK},
     {"2"},
     1,
     CALL,
     0,
     k_phases,
     2,
     "multiphase (2 phases, then list I/O)"},
    {"multiphase_k3",
     {MPK},
     {"3"},
     1,
     CALL,
     0,
     k_phases,
     3,
     "multiphase (3 phases, then list I/O)"},
};
