/*
 * hypercube/exec.c -- the executor of the hypercube transport of the
 * multiphase strategy: runs a plan made by hypercube/inspect.c, moving
 * data only (the scatter loop, work buffers and file requests are the
 * kit's, kit.c).
 *
 * Write: for each phase, post the receives into buffer B (one contiguous
 * region per sender), send the pieces of A (one message, an MPI hindexed
 * type over a few large ranges), copy the kept pieces A -> B meanwhile,
 * wait; A = B. Then scatter A into file order (F) unless it already is, and
 * issue the file runs (one request after all phases). A write that must
 * leave the stream intact runs that once per round (hypercube/rounds.c),
 * with the round's A and B inside F, each round scattering into its range
 * of F; then F goes out in one request. Read: the same backwards: file
 * runs into F, gather F -> A, phases in reverse (what was received goes
 * back to its sender, the sent pieces come back into A); through a plan
 * with rounds, round by round, last round first. The last round of a plan
 * with mp->last_direct moves directly (collio__mp_direct_move).
 *
 * Memory: the two work buffers of a pass (their sizes are the largest
 * amounts held in any phase), the second one the stream when it may serve
 * as scratch (bufs_alloc); or, in rounds, F plus its spill area. Kept by
 * the plan between calls under hint plan.keep_buffers. Phase 0 of a write
 * reads the user's stream, and the last phase of a read writes it,
 * directly.
 *
 * Timing: stat phase_s[ph] per phase, exchange_s = all phases plus the
 * final scatter / gather, file_s = the file requests.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "files/files.h"
#include "core/core.h"
#include "hypercube.h"

#include <string.h>

#define TAG_EXEC 1000

static char *slot_ptr(char *buf[2], char *stream, int slot)
{
    return slot < 0 ? stream : buf[slot];
}

/* Stats of phase i: `sent` elements went out in nmsg messages, in t s
 * (summed over the rounds of a write in rounds). */
static void count_phase(collio_plan *p, const collio__mp_phase *ph, int i, int64_t sent,
                        int nmsg, double t)
{
    int64_t bytes = sent * (int64_t)p->layout->esize;
    /* (bytes_sent, messages: at the posts) */
    collio__mp_phase_add(p, i, t, (double)bytes, (double)nmsg, (double)ph->tuples);
}

/* The messages of a phase, peer by peer: a write sends its pieces to
 * `other` (the partner, or the one a lonely rank sends to) and receives
 * from the partner and the extra rank; a read the other way round. */
static void count_posts(collio_plan *p, const collio__mp_phase *ph, int other, int write)
{
    const collio__mp_step *st = &ph->step;
    int64_t es = (int64_t)p->layout->esize;
    if (ph->send_elems > 0)
        collio__count_p2p(p, other, write ? ph->send_elems * es : 0);
    if (ph->recv_elems > 0)
        collio__count_p2p(p, st->partner, write ? 0 : ph->recv_elems * es);
    if (ph->xrecv_elems > 0)
        collio__count_p2p(p, st->extra_from, write ? 0 : ph->xrecv_elems * es);
}

/* The kept pieces of a phase, A -> B (write) or back B -> A (read),
 * timed into copy_s. */
static void copy_kept(collio_plan *p, const collio__mp_phase *ph, char *a, char *b,
                      int to_b)
{
    const int64_t es = (int64_t)p->layout->esize;
    double t0 = collio__now();
    for (int64_t c = 0; c < ph->nkeep; c++) {
        const collio__mp_copy *k = &ph->keep[c];
        if (to_b)
            collio__copy(b + k->dst * es, a + k->src * es, (size_t)(k->n * es));
        else
            collio__copy(a + k->src * es, b + k->dst * es, (size_t)(k->n * es));
    }
    p->stats.copy_s += collio__now() - t0;
}

/* Scatter A -> F (file order), timed into copy_s. */
static void scatter(collio_plan *p, const collio__mp_final *fin, const char *a, char *f)
{
    double t0 = collio__now();
    collio__mp_scatter(fin, p->layout->esize, a, f);
    p->stats.copy_s += collio__now() - t0;
}

/* ------------------------------------------------------------ write */

/* The phases of a pass, from the stream through the slots; returns where
 * the data is after them (the stream if no phase moved any). */
static const char *write_phases(collio_plan *p, const collio__mp_pass *ps, char *slot[2],
                                const char *stream, int *rc)
{
    collio__mp_plan *mp = p->impl;
    const char *a = stream;
    for (int i = 0; i < mp->nphases; i++) {
        const collio__mp_phase *ph = &ps->ph[i];
        double t0 = collio__now();
        if (ph->idle) {
            count_phase(p, ph, i, 0, 0, 0.0);
            continue;
        }
        char *b = slot[ph->dst_slot];
        const collio__mp_step *st = &ph->step;
        int to = st->partner >= 0 ? st->partner : st->lonely_to;
        MPI_Request rq[3];
        int nr = 0, perr = COLLIO_OK;
        if (ph->recv_elems > 0)
            collio__irecv(b, 1, ph->recv_type, st->partner, TAG_EXEC + i, p->comm, rq,
                          &nr, &perr);
        if (ph->xrecv_elems > 0)
            collio__irecv(b, 1, ph->xrecv_type, st->extra_from, TAG_EXEC + i, p->comm, rq,
                          &nr, &perr);
        if (ph->send_elems > 0)
            collio__isend(a, 1, ph->send_type, to, TAG_EXEC + i, p->comm, rq, &nr, &perr);
        count_posts(p, ph, to, 1);
        copy_kept(p, ph, (char *)a, b, 1);
        int w = collio__waitall(nr, rq, p->oversubscribed);
        if (*rc == COLLIO_OK)
            *rc = w != COLLIO_OK ? w : perr;
        count_phase(p, ph, i, ph->send_elems, nr, collio__now() - t0);
        a = b;
    }
    return a;
}

/* One pass over all data: slots 0 and 1, the second possibly the stream. */
static int write_whole(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_final *fin = &collio__mp_hc_of(mp)->whole.fin;
    collio__mp_bufs wb;
    int rc = collio__mp_bufs_alloc(p, &wb, collio__mp_hc_of(mp)->whole.bufsize, 1);
    if (rc != COLLIO_OK)
        return rc;
    double tx = collio__now();
    const char *F = write_phases(p, &collio__mp_hc_of(mp)->whole, wb.buf, stream, &rc);
    if (!fin->identity) {
        scatter(p, fin, F, wb.buf[fin->dst_slot]);
        F = wb.buf[fin->dst_slot];
    }
    p->stats.exchange_s += collio__now() - tx;
    if (rc == COLLIO_OK)
        rc = collio__mp_file_runs(p, fin, f, (char *)F, 1); /* only read when writing */
    collio__mp_bufs_done(p, &wb);
    return rc;
}

/* Collective: the one buffer of a plan's rounds, F and its spill area
 * (buf[0]); counts the rounds into the stats. */
static int rounds_alloc(collio_plan *p, collio__mp_bufs *wb)
{
    collio__mp_plan *mp = p->impl;
    const int64_t need[2] = {mp->fsize + collio__mp_hc_of(mp)->spill, 0};
    int rc = collio__mp_bufs_alloc(p, wb, need, 0);
    if (rc == COLLIO_OK)
        collio__stat_set(p, MP_STAT_NROUNDS, collio__mp_hc_of(mp)->nrounds);
    return rc;
}

/* Round i moves directly (the chooser's mp->last_direct: the last
 * round, built by the direct exchange's builder, no slots). */
static int direct_round(const collio__mp_plan *mp, int i)
{
    return mp->last_direct && i == collio__mp_hc_of(mp)->nrounds - 1;
}

/* Where the slots of round r lie in F. */
static void round_slot_ptrs(const collio__mp_round *r, char *F, size_t esize,
                            char *slot[2])
{
    for (int s = 0; s < 2; s++)
        slot[s] = r->pass.bufsize[s] > 0 ? F + r->slot_pos[s] * (int64_t)esize : NULL;
}

/* In rounds (hypercube/rounds.c): each round's pass runs in slots placed
 * in F (and the spill area after it) and scatters into its range of F;
 * then F, the rank's domain in file order, goes out in one request. */
static int write_rounds(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    collio__mp_bufs wb;
    int rc = rounds_alloc(p, &wb);
    if (rc != COLLIO_OK)
        return rc;
    char *F = wb.buf[0];
    double tx = collio__now();
    for (int i = 0; i < collio__mp_hc_of(mp)->nrounds; i++) {
        const collio__mp_round *r = &collio__mp_hc_of(mp)->rounds[i];
        if (direct_round(mp, i)) { /* straight from the stream into F (its
                                      stats go to the last phase) */
            int w = collio__mp_direct_move(p, r->direct, (char *)stream, F, 1,
                                           mp->nphases - 1);
            if (rc == COLLIO_OK)
                rc = w;
            continue;
        }
        char *slot[2];
        round_slot_ptrs(r, F, mp->esize, slot);
        const char *a = write_phases(p, &r->pass, slot, stream, &rc);
        scatter(p, &r->pass.fin, a, F + r->target * (int64_t)mp->esize);
    }
    p->stats.exchange_s += collio__now() - tx;
    if (rc == COLLIO_OK)
        rc = collio__mp_file_runs(p, &collio__mp_hc_of(mp)->whole.fin, f, F, 1);
    collio__mp_bufs_done(p, &wb);
    return rc;
}

int collio__mp_hypercube_write(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    /* the same path on every rank: decided at plan creation (a rank
     * whose stream happens to be scratch still writes in rounds when
     * another's is not) */
    if (collio__mp_hc_of(mp)->nrounds > 0 && !mp->scratch_all)
        return write_rounds(p, f, stream);
    return write_whole(p, f, stream);
}

/* ------------------------------------------------------------- read */

/* Gather F (file order) -> A, timed into copy_s. */
static void gather(collio_plan *p, const collio__mp_final *fin, const char *f, char *a)
{
    double t0 = collio__now();
    collio__mp_gather(fin, p->layout->esize, f, a);
    p->stats.copy_s += collio__now() - t0;
}

/* The phases of a pass backwards, from the slots into the stream: what
 * was received goes back to its sender, the sent pieces come back. */
static void read_phases(collio_plan *p, const collio__mp_pass *ps, char *slot[2],
                        char *stream, int *rc)
{
    collio__mp_plan *mp = p->impl;
    for (int i = mp->nphases - 1; i >= 0; i--) {
        const collio__mp_phase *ph = &ps->ph[i];
        double t0 = collio__now();
        if (ph->idle) {
            count_phase(p, ph, i, 0, 0, 0.0);
            continue;
        }
        char *b = slot[ph->dst_slot];
        char *a = slot_ptr(slot, stream, ph->src_slot);
        const collio__mp_step *st = &ph->step;
        int from = st->partner >= 0 ? st->partner : st->lonely_to;
        MPI_Request rq[3];
        int nr = 0, perr = COLLIO_OK;
        if (ph->send_elems > 0)
            collio__irecv(a, 1, ph->send_type, from, TAG_EXEC + i, p->comm, rq, &nr,
                          &perr);
        if (ph->recv_elems > 0)
            collio__isend(b, 1, ph->recv_type, st->partner, TAG_EXEC + i, p->comm, rq,
                          &nr, &perr);
        if (ph->xrecv_elems > 0)
            collio__isend(b, 1, ph->xrecv_type, st->extra_from, TAG_EXEC + i, p->comm, rq,
                          &nr, &perr);
        count_posts(p, ph, from, 0);
        copy_kept(p, ph, a, b, 0);
        int w = collio__waitall(nr, rq, p->oversubscribed);
        if (*rc == COLLIO_OK)
            *rc = w != COLLIO_OK ? w : perr;
        /* sent in a read phase: what goes back to the senders */
        count_phase(p, ph, i, ph->recv_elems + ph->xrecv_elems, nr, collio__now() - t0);
    }
}

/* One pass: slots 0 and 1, the second the stream where it fits. A failed
 * file read still takes part in every phase (the others wait for its
 * messages); the error is returned at the end. */
static int read_whole(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    collio__mp_bufs wb;
    int rc = collio__mp_bufs_alloc(p, &wb, collio__mp_hc_of(mp)->whole.bufsize, 1);
    if (rc != COLLIO_OK)
        return rc;
    const collio__mp_final *fin = &collio__mp_hc_of(mp)->whole.fin;
    char *a = slot_ptr(wb.buf, stream, fin->src_slot);
    char *F = fin->identity ? a : wb.buf[fin->dst_slot];
    rc = collio__mp_file_runs(p, fin, f, F, 0);
    double tx = collio__now();
    if (!fin->identity)
        gather(p, fin, F, a);
    read_phases(p, &collio__mp_hc_of(mp)->whole, wb.buf, stream, &rc);
    p->stats.exchange_s += collio__now() - tx;
    collio__mp_bufs_done(p, &wb);
    return rc;
}

/* In rounds, last round first: F is read in one request; round i's slots
 * lie in F from its own range on, which the later rounds (already done)
 * no longer need, so the write's placement serves backwards too. */
static int read_rounds(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    collio__mp_bufs wb;
    int rc = rounds_alloc(p, &wb);
    if (rc != COLLIO_OK)
        return rc;
    char *F = wb.buf[0];
    rc = collio__mp_file_runs(p, &collio__mp_hc_of(mp)->whole.fin, f, F, 0);
    double tx = collio__now();
    for (int i = collio__mp_hc_of(mp)->nrounds - 1; i >= 0; i--) {
        const collio__mp_round *r = &collio__mp_hc_of(mp)->rounds[i];
        if (direct_round(mp, i)) { /* straight from F into the stream */
            int w = collio__mp_direct_move(p, r->direct, stream, F, 0, mp->nphases - 1);
            if (rc == COLLIO_OK)
                rc = w;
            continue;
        }
        char *slot[2];
        round_slot_ptrs(r, F, mp->esize, slot);
        gather(p, &r->pass.fin, F + r->target * (int64_t)mp->esize,
               slot_ptr(slot, stream, r->pass.fin.src_slot));
        read_phases(p, &r->pass, slot, stream, &rc);
    }
    p->stats.exchange_s += collio__now() - tx;
    collio__mp_bufs_done(p, &wb);
    return rc;
}

/* Rounds where the plan has them: one buffer (F and its spill) serves
 * writes and reads alike; else one pass. */
int collio__mp_hypercube_read(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    if (collio__mp_hc_of(mp)->nrounds > 0)
        return read_rounds(p, f, stream);
    return read_whole(p, f, stream);
}
