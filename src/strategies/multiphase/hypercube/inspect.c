/*
 * hypercube/inspect.c -- the collective inspector of the hypercube
 * transport of the multiphase strategy: builds the passes of a plan
 * (multiphase.h) from the layout, exchanging descriptors with the phase
 * partners once, at plan time. The last round of a write in rounds, where
 * the chooser set mp->last_direct, is built by the direct exchange's
 * builder (collio__mp_direct_new).
 *
 * A plan has one pass over all data (`whole`) and, for writes that leave
 * the user's buffer intact, one pass per round (hypercube/rounds.c). The
 * passes are independent of each other but follow the same schedule, so
 * they are built side by side: per phase, every pass is split
 * (hypercube/phases.c), the descriptors of all passes go to the partner in
 * ONE count message and ONE descriptor message, and every pass is joined
 * with its slice. Nine rounds plus the whole pass therefore cost the
 * messages of one pass (measured: P = 16, 16 MB, bx = 1, 9 rounds, plan
 * creation 6 ms with a message pair per pass and phase, 2 ms batched).
 *
 * Every collective step is taken by every rank (a local failure travels
 * as an error code into the next agreement), so all ranks stop at the
 * same point.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "core/core.h"
#include "hypercube.h"

#include <string.h>

#define TAG_COUNT 11
#define TAG_DESC 12

/* Passes a plan can have: the whole pass and up to 63 rounds (62
 * halvings, the most write_rounds asks for). The count messages always
 * carry MAX_PASSES counts, so that they match even where a rank failed
 * before it knew how many passes it has. */
#define MAX_PASSES 64

/* The element type descriptors travel as: 5 x int64 per segment. */
static MPI_Datatype seg_type(void)
{
    return MPI_INT64_T;
}

static int phase_types(collio__mp_phase *ph, size_t esize)
{
    int rc = collio__mp_ranges_type(ph->send, ph->nsend, esize, &ph->send_type);
    collio__mp_range r = {ph->recv_pos, ph->recv_elems};
    if (rc == COLLIO_OK)
        rc = collio__mp_ranges_type(&r, 1, esize, &ph->recv_type);
    r = (collio__mp_range){ph->xrecv_pos, ph->xrecv_elems};
    if (rc == COLLIO_OK)
        rc = collio__mp_ranges_type(&r, 1, esize, &ph->xrecv_type);
    return rc;
}

/* (a real status array: MPICH's MPI_STATUSES_IGNORE sentinel trips gcc's
 * -Wstringop-overflow; PMPI_: base/progress.c) */
static int waitall(MPI_Request *rq, int n)
{
    MPI_Status st[4];
    return PMPI_Waitall(n, rq, st) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_MPI;
}

/* Collective step of one phase at plan time, for n passes at once: the
 * passes' descriptor counts (mine[j] for pass j; arrays of MAX_PASSES,
 * zeros past n and after a local failure), then, if every rank is fine,
 * their descriptors (out: all passes' concatenated), one message of each
 * per peer. On return pc[j] / xc[j] are the counts from the partner / the
 * lonely rank, *rp / *rx their descriptors concatenated (malloc'd);
 * *agreed is the code every rank agreed on before the descriptors moved
 * (non-OK: every rank stops). */
static int exchange_desc(collio_plan *p, const collio__mp_step *st, int ph, int rc, int n,
                         int64_t *mine, const collio__segvec *out, int64_t *pc,
                         int64_t *xc, collio__seg **rp, collio__seg **rx, int *agreed)
{
    MPI_Request rq[4];
    int nr = 0, perr = COLLIO_OK;
    int to = st->partner >= 0 ? st->partner : st->lonely_to;
    int64_t nmine = 0, nrp = 0, nrx = 0;
    for (int j = 0; j < MAX_PASSES; j++) {
        if (rc != COLLIO_OK || j >= n)
            mine[j] = 0;
        nmine += mine[j];
        pc[j] = xc[j] = 0;
    }
    if (st->partner >= 0)
        collio__irecv(pc, MAX_PASSES, MPI_INT64_T, st->partner, TAG_COUNT + 16 * ph,
                      p->comm, rq, &nr, &perr);
    if (st->extra_from >= 0)
        collio__irecv(xc, MAX_PASSES, MPI_INT64_T, st->extra_from, TAG_COUNT + 16 * ph,
                      p->comm, rq, &nr, &perr);
    if (to >= 0)
        collio__isend(mine, MAX_PASSES, MPI_INT64_T, to, TAG_COUNT + 16 * ph, p->comm, rq,
                      &nr, &perr);
    int wrc = waitall(rq, nr);
    if (rc == COLLIO_OK)
        rc = wrc != COLLIO_OK ? wrc : perr;
    for (int j = 0; j < MAX_PASSES && rc == COLLIO_OK; j++) {
        if (pc[j] < 0 || xc[j] < 0 || pc[j] > INT32_MAX || xc[j] > INT32_MAX
            || (j >= n && (pc[j] > 0 || xc[j] > 0)))
            rc = COLLIO_ERR_OVERFLOW;
        nrp += pc[j];
        nrx += xc[j];
    }
    if (rc == COLLIO_OK
        && (nrp > INT32_MAX / 5 || nrx > INT32_MAX / 5 || nmine > INT32_MAX / 5))
        rc = COLLIO_ERR_OVERFLOW;
    if (rc == COLLIO_OK) {
        *rp = malloc((size_t)(nrp > 0 ? nrp : 1) * sizeof **rp);
        *rx = malloc((size_t)(nrx > 0 ? nrx : 1) * sizeof **rx);
        if (*rp == NULL || *rx == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(p->comm, rc);
    *agreed = rc;
    if (rc != COLLIO_OK)
        return rc;
    nr = 0;
    if (nrp > 0)
        collio__irecv(*rp, (int)(5 * nrp), seg_type(), st->partner, TAG_DESC + 16 * ph,
                      p->comm, rq, &nr, &perr);
    if (nrx > 0)
        collio__irecv(*rx, (int)(5 * nrx), seg_type(), st->extra_from, TAG_DESC + 16 * ph,
                      p->comm, rq, &nr, &perr);
    if (nmine > 0)
        collio__isend(out->v, (int)(5 * nmine), seg_type(), to, TAG_DESC + 16 * ph,
                      p->comm, rq, &nr, &perr);
    int drc = waitall(rq, nr);
    return drc != COLLIO_OK ? drc : perr;
}

static int other_slot(int s)
{
    return s == 0 ? 1 : 0;
}

static void use_slot(collio__mp_pass *ps, int slot, int64_t elems)
{
    if (slot >= 0 && elems > ps->bufsize[slot])
        ps->bufsize[slot] = elems;
}

/* One pass being built: the data it holds (segments with their positions
 * in the current buffer; owned), and where it ends: the file range
 * [lo, hi) (lo < 0: the group range after the phases) and whether the
 * final scatter goes to a slot (the whole pass) or elsewhere (a round's
 * goes to F). */
typedef struct pass_job {
    collio__mp_pass *ps;
    collio__segvec held;
    int64_t a_elems;
    int64_t lo, hi;
    int fin_in_slot;
    int cur; /* buffer slot holding the current data; -1 = stream */
} pass_job;

/* After the phases: the final step of a job and its MPI datatypes. */
static int finish_job(collio_plan *p, pass_job *j, int k)
{
    collio__mp_pass *ps = j->ps;
    if (j->lo < 0) {
        collio__mp_step st; /* the group range after k phases */
        collio__mp_step_of(p->nranks, p->layout->nglobal, p->rank, k, &st);
        j->lo = st.group_lo;
        j->hi = st.group_hi;
    }
    int rc = collio__mp_final_build(j->held.v, j->held.n, j->lo, j->hi, &ps->fin);
    ps->fin.src_slot = j->cur;
    ps->fin.dst_slot = ps->fin.identity ? j->cur : other_slot(j->cur);
    if (!ps->fin.identity && j->fin_in_slot)
        use_slot(ps, ps->fin.dst_slot, ps->fin.nelems);
    for (int ph = 0; ph < k && rc == COLLIO_OK; ph++)
        if (!ps->ph[ph].idle)
            rc = phase_types(&ps->ph[ph], p->layout->esize);
    return rc;
}

/* Collective: the k phases and the final steps of n <= MAX_PASSES passes
 * side by side (rc: a local failure from before, carried into the first
 * phase's agreement). Slots alternate -1 (stream), 0, 1, 0, ... from the
 * first phase that moves data. Returns this rank's code: every rank
 * stopped at the same phase, but a failure in the final steps is local
 * (the caller agrees on it). */
static int build_passes(collio_plan *p, pass_job *jobs, int n, int k, int rc)
{
    int64_t mine[MAX_PASSES], pc[MAX_PASSES], xc[MAX_PASSES];
    collio__segvec kept[MAX_PASSES];
    for (int ph = 0; ph < k && rc == COLLIO_OK; ph++) {
        collio__mp_step st;
        collio__mp_step_of(p->nranks, p->layout->nglobal, p->rank, ph, &st);
        collio__segvec out = {0};
        for (int j = 0; j < n; j++) {
            int64_t before = out.n;
            kept[j] = (collio__segvec){0};
            if (rc == COLLIO_OK)
                rc = collio__mp_phase_split(jobs[j].held.v, jobs[j].held.n,
                                            jobs[j].a_elems, &st, &jobs[j].ps->ph[ph],
                                            &kept[j], &out);
            mine[j] = out.n - before;
        }
        collio__seg *rp = NULL, *rx = NULL;
        int agreed = COLLIO_OK;
        rc = exchange_desc(p, &st, ph, rc, n, mine, &out, pc, xc, &rp, &rx, &agreed);
        int64_t at_p = 0, at_x = 0; /* each pass's slice of what came in */
        for (int j = 0; j < n; j++) {
            pass_job *jb = &jobs[j];
            collio__mp_phase *phs = &jb->ps->ph[ph];
            phs->src_slot = phs->dst_slot = jb->cur;
            if (rc == COLLIO_OK && !phs->idle) {
                rc = collio__mp_phase_join(phs, &kept[j], rp + at_p, pc[j], rx + at_x,
                                           xc[j]);
                collio__segvec_free(&jb->held);
                jb->held = kept[j];
                kept[j] = (collio__segvec){0};
                phs->dst_slot = other_slot(jb->cur);
                jb->cur = phs->dst_slot;
                use_slot(jb->ps, jb->cur, phs->b_elems);
                jb->a_elems = phs->b_elems;
            }
            at_p += pc[j];
            at_x += xc[j];
            collio__segvec_free(&kept[j]);
        }
        collio__segvec_free(&out);
        free(rp);
        free(rx);
        /* a local failure is carried to the next phase's agreement, so
         * only an agreed failure stops the loop (on every rank at once) */
        if (agreed != COLLIO_OK)
            break;
    }
    for (int j = 0; j < n && rc == COLLIO_OK; j++)
        rc = finish_job(p, &jobs[j], k);
    return rc;
}

/* A round's pass ends in slot 1 (its final scatter goes to F, not to a
 * slot): swap the slot labels where the last phase filled slot 0. */
static void end_in_slot1(collio__mp_round *r, int k)
{
    collio__mp_pass *ps = &r->pass;
    if (ps->fin.src_slot != 0)
        return;
    for (int i = 0; i < k; i++) {
        collio__mp_phase *ph = &ps->ph[i];
        if (ph->src_slot >= 0)
            ph->src_slot = other_slot(ph->src_slot);
        if (ph->dst_slot >= 0)
            ph->dst_slot = other_slot(ph->dst_slot);
    }
    ps->fin.src_slot = 1;
    int64_t t = ps->bufsize[0];
    ps->bufsize[0] = ps->bufsize[1];
    ps->bufsize[1] = t;
}

void collio__mp_pass_free(collio__mp_pass *ps)
{
    for (int i = 0; i < MP_MAX_PHASES; i++) {
        collio__mp_phase *ph = &ps->ph[i];
        collio__mp_phase_free(ph);
        if (ph->send_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->send_type);
        if (ph->recv_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->recv_type);
        if (ph->xrecv_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->xrecv_type);
    }
    collio__mp_final_free(&ps->fin);
}

void collio__mp_drop_rounds(collio__mp_plan *mp)
{
    for (int r = 0; r < collio__mp_hc_of(mp)->nrounds; r++) {
        collio__mp_pass_free(&collio__mp_hc_of(mp)->rounds[r].pass);
        collio__mp_direct_free(collio__mp_hc_of(mp)->rounds[r].direct);
    }
    free(collio__mp_hc_of(mp)->rounds);
    collio__mp_hc_of(mp)->rounds = NULL;
    collio__mp_hc_of(mp)->nrounds = 0;
    mp->fsize = collio__mp_hc_of(mp)->spill = 0;
}

/* Collective: agrees on rc and, for the automatic choice, keeps the
 * rounds only where they need less memory than one pass on the rank that
 * needs the most -- one MPI_Allreduce for both. At P = 2^n they do (F +
 * spill against two work buffers); where a rank receives from a lonely
 * rank too (other P), or a round holds a block more than its share, they
 * can need more. */
static int agree_and_choose(collio_plan *p, collio__mp_plan *mp, int rc)
{
    int64_t mine[3] = {rc, mp->fsize + collio__mp_hc_of(mp)->spill,
                       collio__mp_hc_of(mp)->whole.bufsize[0]
                           + collio__mp_hc_of(mp)->whole.bufsize[1]};
    int64_t most[3];
    if (MPI_Allreduce(mine, most, 3, MPI_INT64_T, MPI_MAX, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    rc = (int)most[0];
    if (rc == COLLIO_OK && collio__mp_hc_of(mp)->nrounds > 0
        && collio__opt(p, MP_OPT_WRITE_ROUNDS) == 0 && most[1] >= most[2])
        collio__mp_drop_rounds(mp);
    return rc;
}

/* Sets up the rounds of a plan without building them: count (options
 * and sizes only, so the same on every rank), F's size, each round's
 * target. 0 rounds where there are none to build. */
void collio__mp_pass_init(collio__mp_pass *ps)
{
    for (int ph = 0; ph < MP_MAX_PHASES; ph++)
        ps->ph[ph].send_type = ps->ph[ph].recv_type = ps->ph[ph].xrecv_type =
            MPI_DATATYPE_NULL;
}

static int rounds_setup(collio_plan *p, collio__mp_plan *mp, int64_t fsize)
{
    const collio_layout *l = p->layout;
    if (mp->nphases != mp->allphases || mp->allphases == 0
        || collio__plan_opt(p, COLLIO__PLAN_DESTROY_INPUT)
        || collio__opt(p, MP_OPT_WRITE_ROUNDS) < 0)
        return COLLIO_OK;
    int n = collio__mp_round_count(l->nglobal / p->nranks, l->esize,
                                   collio__opt(p, MP_OPT_WRITE_ROUNDS));
    if (n == 0)
        return COLLIO_OK;
    collio__mp_hc_of(mp)->rounds =
        calloc((size_t)n, sizeof *collio__mp_hc_of(mp)->rounds);
    if (collio__mp_hc_of(mp)->rounds == NULL)
        return COLLIO_ERR_NOMEM;
    collio__mp_hc_of(mp)->nrounds = n;
    mp->fsize = fsize;
    for (int i = 0; i < n; i++) {
        collio__mp_pass_init(&collio__mp_hc_of(mp)->rounds[i].pass);
        collio__mp_hc_of(mp)->rounds[i].target = collio__mp_round_start(fsize, i, n);
    }
    return COLLIO_OK;
}

int collio__mp_inspect(collio_plan *p, collio__mp_plan *mp)
{
    const collio_layout *l = p->layout;
    int64_t dlo = 0, dhi = 0; /* the rank's domain after all phases */
    collio__domain_range(l->nglobal, p->nranks,
                         collio__mp_domain_of_rank(p->nranks, p->rank), &dlo, &dhi);
    /* (a failed allocation leaves this rank without rounds: its error
     * reaches the others at the first agreement, before any count of
     * passes matters) */
    int rc = rounds_setup(p, mp, dhi - dlo);
    /* the last round moves directly where the chooser says so (no slots:
     * no spill) */
    const int last_direct = collio__mp_hc_of(mp)->nrounds > 0 && mp->last_direct;
    const int npass =
        collio__mp_hc_of(mp)->nrounds - last_direct; /* rounds built as passes */
    const int n = 1 + npass;                         /* <= MAX_PASSES */
    pass_job jobs[MAX_PASSES];
    jobs[0] = (pass_job){&collio__mp_hc_of(mp)->whole, {0}, l->nlocal, -1, -1, 1, -1};
    for (int64_t i = 0; i < l->nsegs && rc == COLLIO_OK; i++)
        rc = collio__segvec_push_seg(&jobs[0].held, &l->segs[i]);
    for (int i = 0; i < npass; i++) {
        collio__mp_round *r = &collio__mp_hc_of(mp)->rounds[i];
        pass_job *j = &jobs[1 + i];
        *j = (pass_job){
            &r->pass,
            {0},
            0,
            dlo + r->target,
            dlo + collio__mp_round_start(mp->fsize, i + 1, collio__mp_hc_of(mp)->nrounds),
            0,
            -1};
        if (rc == COLLIO_OK)
            rc = collio__mp_round_clip(l->segs, l->nsegs, l->nglobal, p->nranks, i,
                                       collio__mp_hc_of(mp)->nrounds, &j->held);
        j->a_elems = collio__segs_elements(j->held.v, j->held.n);
    }
    rc = build_passes(p, jobs, n, mp->nphases, rc);
    for (int j = 0; j < n; j++)
        collio__segvec_free(&jobs[j].held);
    if (last_direct) { /* collective; agrees on rc first */
        collio__mp_round *r = &collio__mp_hc_of(mp)->rounds[npass];
        collio__segvec piece = {0};
        if (rc == COLLIO_OK)
            rc = collio__mp_round_clip(l->segs, l->nsegs, l->nglobal, p->nranks, npass,
                                       collio__mp_hc_of(mp)->nrounds, &piece);
        rc = collio__mp_direct_new(p, piece.v, piece.n, rc, dlo, dlo + r->target, dhi, 0,
                                   &r->direct);
        collio__segvec_free(&piece);
    }
    for (int i = 0; i < npass && rc == COLLIO_OK; i++) {
        end_in_slot1(&collio__mp_hc_of(mp)->rounds[i], mp->nphases);
        collio__mp_round_place(&collio__mp_hc_of(mp)->rounds[i], mp->fsize,
                               &collio__mp_hc_of(mp)->spill);
    }
    return agree_and_choose(p, mp, rc);
}
