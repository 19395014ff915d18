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
 * Inspector (multiphase_plan.c, run once per plan): per phase the kept
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
#include "multiphase.h"

#include <string.h>

int collio__mp_write(collio_plan *p, collio_file *f, const char *stream);
int collio__mp_read(collio_plan *p, collio_file *f, char *stream);

#define TAG_COUNT 11
#define TAG_DESC 12
#define MAX_BLOCK ((int64_t)1 << 30) /* elements per datatype block */

/* The element type descriptors travel as: 5 x int64 per segment. */
static MPI_Datatype seg_type(void)
{
    return MPI_INT64_T;
}

/* An MPI type covering n ranges (positions in elements) of a buffer; in
 * bytes, blocks split at MAX_BLOCK elements. *t = MPI_DATATYPE_NULL if the
 * ranges hold nothing. */
static int ranges_type(const collio__mp_range *r, int64_t n, size_t esize,
                       MPI_Datatype *t)
{
    *t = MPI_DATATYPE_NULL;
    int64_t nb = 0;
    for (int64_t i = 0; i < n; i++)
        nb += (r[i].n + MAX_BLOCK - 1) / MAX_BLOCK;
    if (nb == 0)
        return COLLIO_OK;
    if (nb > INT32_MAX)
        return COLLIO_ERR_OVERFLOW;
    int *len = malloc((size_t)nb * sizeof *len);
    MPI_Aint *disp = malloc((size_t)nb * sizeof *disp);
    int rc = (len && disp) ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Datatype el = MPI_DATATYPE_NULL;
    if (rc == COLLIO_OK && MPI_Type_contiguous((int)esize, MPI_BYTE, &el) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int64_t j = 0;
    for (int64_t i = 0; i < n && rc == COLLIO_OK; i++)
        for (int64_t o = 0; o < r[i].n; o += MAX_BLOCK) {
            len[j] = (int)(r[i].n - o < MAX_BLOCK ? r[i].n - o : MAX_BLOCK);
            disp[j] = (MPI_Aint)((r[i].pos + o) * (int64_t)esize);
            j++;
        }
    if (rc == COLLIO_OK
        && (MPI_Type_create_hindexed((int)nb, len, disp, el, t) != MPI_SUCCESS
            || MPI_Type_commit(t) != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    if (el != MPI_DATATYPE_NULL)
        MPI_Type_free(&el);
    free(len);
    free(disp);
    return rc;
}

static int phase_types(collio__mp_phase *ph, size_t esize)
{
    int rc = ranges_type(ph->send, ph->nsend, esize, &ph->send_type);
    collio__mp_range r = {ph->recv_pos, ph->recv_elems};
    if (rc == COLLIO_OK)
        rc = ranges_type(&r, 1, esize, &ph->recv_type);
    r = (collio__mp_range){ph->xrecv_pos, ph->xrecv_elems};
    if (rc == COLLIO_OK)
        rc = ranges_type(&r, 1, esize, &ph->xrecv_type);
    return rc;
}

/* (a real status array: MPICH's MPI_STATUSES_IGNORE sentinel trips gcc's
 * -Wstringop-overflow) */
static int waitall(MPI_Request *rq, int n)
{
    MPI_Status st[4];
    return MPI_Waitall(n, rq, st) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_MPI;
}

/* Collective step of one phase at plan time: counts, then (if every rank
 * is fine) descriptors. On return *rp / *rx hold what the partner and the
 * lonely rank send (malloc'd); *agreed is the code every rank agreed on
 * before the descriptors moved (non-OK: every rank stops). */
static int exchange_desc(collio_plan *p, const collio__mp_step *st, int ph, int rc,
                         const collio__segvec *out, collio__seg **rp, int64_t *nrp,
                         collio__seg **rx, int64_t *nrx, int *agreed)
{
    MPI_Request rq[4];
    int nr = 0;
    int64_t mine = rc == COLLIO_OK ? out->n : 0;
    int to = st->partner >= 0 ? st->partner : st->lonely_to;
    *nrp = *nrx = 0;
    if (st->partner >= 0)
        MPI_Irecv(nrp, 1, MPI_INT64_T, st->partner, TAG_COUNT + 16 * ph, p->comm,
                  &rq[nr++]);
    if (st->extra_from >= 0)
        MPI_Irecv(nrx, 1, MPI_INT64_T, st->extra_from, TAG_COUNT + 16 * ph, p->comm,
                  &rq[nr++]);
    if (to >= 0)
        MPI_Isend(&mine, 1, MPI_INT64_T, to, TAG_COUNT + 16 * ph, p->comm, &rq[nr++]);
    int wrc = waitall(rq, nr);
    if (rc == COLLIO_OK)
        rc = wrc;
    if (rc == COLLIO_OK
        && (*nrp < 0 || *nrx < 0 || *nrp > INT32_MAX / 5 || *nrx > INT32_MAX / 5
            || mine > INT32_MAX / 5))
        rc = COLLIO_ERR_OVERFLOW;
    if (rc == COLLIO_OK) {
        *rp = malloc((size_t)(*nrp > 0 ? *nrp : 1) * sizeof **rp);
        *rx = malloc((size_t)(*nrx > 0 ? *nrx : 1) * sizeof **rx);
        if (*rp == NULL || *rx == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(p->comm, rc);
    *agreed = rc;
    if (rc != COLLIO_OK)
        return rc;
    nr = 0;
    if (*nrp > 0)
        MPI_Irecv(*rp, (int)(5 * *nrp), seg_type(), st->partner, TAG_DESC + 16 * ph,
                  p->comm, &rq[nr++]);
    if (*nrx > 0)
        MPI_Irecv(*rx, (int)(5 * *nrx), seg_type(), st->extra_from, TAG_DESC + 16 * ph,
                  p->comm, &rq[nr++]);
    if (mine > 0)
        MPI_Isend(out->v, (int)(5 * mine), seg_type(), to, TAG_DESC + 16 * ph, p->comm,
                  &rq[nr++]);
    return waitall(rq, nr);
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

static int64_t plan_bytes(const collio__mp_plan *mp)
{
    int64_t b = (int64_t)sizeof *mp + pass_bytes(&mp->whole, mp->nphases);
    for (int r = 0; r < mp->nrounds; r++)
        b += (int64_t)sizeof *mp->rounds + pass_bytes(&mp->rounds[r].pass, mp->nphases);
    return b;
}

/* Collective: the k phases and the final step of one pass over the data
 * `held` (segments with their positions in the stream; consumed), ending
 * with the file range [lo, hi) of the rank's group (its domain after all
 * phases; lo = -1: the group range after k phases). Slots alternate
 * -1 (stream), 0, 1, 0, ... from the first phase that moves data; the
 * final scatter goes to the other slot (fin_in_slot) or elsewhere. */
static int build_pass(collio_plan *p, collio__mp_pass *ps, collio__segvec *held,
                      int64_t a_elems, int k, int64_t lo, int64_t hi, int fin_in_slot)
{
    const collio_layout *l = p->layout;
    int rc = COLLIO_OK;
    int cur = -1; /* buffer slot holding the current data; -1 = stream */
    for (int ph = 0; ph < k; ph++) {
        collio__mp_phase *phs = &ps->ph[ph];
        collio__mp_step st;
        collio__mp_step_of(p->nranks, l->nglobal, p->rank, ph, &st);
        phs->step = st;
        collio__segvec kept = {0}, out = {0};
        if (rc == COLLIO_OK)
            rc = collio__mp_phase_split(held->v, held->n, a_elems, &st, phs, &kept, &out);
        collio__seg *rp = NULL, *rx = NULL;
        int64_t nrp = 0, nrx = 0;
        int agreed = COLLIO_OK;
        rc = exchange_desc(p, &st, ph, rc, &out, &rp, &nrp, &rx, &nrx, &agreed);
        phs->src_slot = phs->dst_slot = cur;
        if (rc == COLLIO_OK && !phs->idle) {
            rc = collio__mp_phase_join(phs, &kept, rp, nrp, rx, nrx);
            collio__segvec_free(held);
            *held = kept;
            kept = (collio__segvec){0};
            phs->dst_slot = other_slot(cur);
            cur = phs->dst_slot;
            use_slot(ps, cur, phs->b_elems);
            a_elems = phs->b_elems;
        }
        collio__segvec_free(&kept);
        collio__segvec_free(&out);
        free(rp);
        free(rx);
        /* a local failure is carried to the next phase's agreement, so
         * only an agreed failure stops the loop (on every rank at once) */
        if (agreed != COLLIO_OK)
            break;
    }
    if (rc == COLLIO_OK) {
        if (lo < 0) {
            collio__mp_step st; /* the group range after k phases */
            collio__mp_step_of(p->nranks, l->nglobal, p->rank, k, &st);
            lo = st.group_lo;
            hi = st.group_hi;
        }
        rc = collio__mp_final_build(held->v, held->n, lo, hi, &ps->fin);
        ps->fin.src_slot = cur;
        ps->fin.dst_slot = ps->fin.identity ? cur : other_slot(cur);
        if (!ps->fin.identity && fin_in_slot)
            use_slot(ps, ps->fin.dst_slot, ps->fin.nelems);
    }
    collio__segvec_free(held);
    for (int ph = 0; ph < k && rc == COLLIO_OK; ph++)
        if (!ps->ph[ph].idle)
            rc = phase_types(&ps->ph[ph], l->esize);
    return rc;
}

/* A round's pass ends in slot 1 (its final scatter goes to F, not to a
 * slot): swap the slot labels where the last phase filled slot 0. */
static void round_slots(collio__mp_round *r, int k)
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

/* Collective: the rounds of a write that keeps the stream intact
 * (multiphase_rounds.c), when all phases run and there is enough data for
 * rounds to pay; else none (such writes take the whole pass). */
static void pass_free(collio__mp_pass *ps)
{
    for (int i = 0; i < COLLIO_MAX_PHASES; i++) {
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

/* Frees a plan's rounds (they are not used). */
static void drop_rounds(collio__mp_plan *mp)
{
    for (int r = 0; r < mp->nrounds; r++)
        pass_free(&mp->rounds[r].pass);
    free(mp->rounds);
    mp->rounds = NULL;
    mp->nrounds = 0;
    mp->fsize = mp->spill = 0;
}

/* Collective. The automatic choice keeps the rounds only where they need
 * less memory than one pass on the rank that needs the most: at P = 2^n
 * they do (F + spill against two work buffers); where a rank receives
 * from a lonely rank too (other P), they can need more. */
static int keep_rounds_if_smaller(collio_plan *p, collio__mp_plan *mp)
{
    int64_t mine[2] = {mp->fsize + mp->spill,
                       mp->whole.bufsize[0] + mp->whole.bufsize[1]};
    int64_t most[2];
    if (MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    if (most[0] >= most[1])
        drop_rounds(mp);
    return COLLIO_OK;
}

static int build_rounds(collio_plan *p, collio__mp_plan *mp)
{
    const collio_layout *l = p->layout;
    /* (options and sizes only: the same decision on every rank) */
    if (mp->nphases != mp->allphases || mp->allphases == 0 || p->opts.destroy_input
        || p->opts.write_rounds < 0)
        return COLLIO_OK;
    int n =
        collio__mp_round_count(l->nglobal / p->nranks, l->esize, p->opts.write_rounds);
    if (n == 0)
        return COLLIO_OK;
    mp->rounds = calloc((size_t)n, sizeof *mp->rounds);
    if (mp->rounds == NULL)
        return COLLIO_ERR_NOMEM; /* same sizes everywhere: every rank fails */
    mp->nrounds = n;
    for (int i = 0; i < n; i++)
        for (int ph = 0; ph < COLLIO_MAX_PHASES; ph++)
            mp->rounds[i].pass.ph[ph].send_type = mp->rounds[i].pass.ph[ph].recv_type =
                mp->rounds[i].pass.ph[ph].xrecv_type = MPI_DATATYPE_NULL;
    int64_t dlo, dhi;
    collio__domain_range(l->nglobal, p->nranks,
                         collio__mp_domain_of_rank(p->nranks, p->rank), &dlo, &dhi);
    mp->fsize = dhi - dlo;
    int rc = COLLIO_OK;
    for (int i = 0; i < n; i++) {
        collio__mp_round *r = &mp->rounds[i];
        collio__segvec held = {0};
        if (rc == COLLIO_OK)
            rc = collio__mp_round_clip(l->segs, l->nsegs, l->nglobal, p->nranks, i, n,
                                       &held);
        r->target = collio__mp_round_start(mp->fsize, i, n);
        int64_t hi = dlo + collio__mp_round_start(mp->fsize, i + 1, n);
        /* collective even after a local failure: the phases agree on it */
        int brc = build_pass(p, &r->pass, &held, collio__segs_elements(held.v, held.n),
                             mp->nphases, dlo + r->target, hi, 0);
        if (rc == COLLIO_OK)
            rc = brc;
        rc = collio__agree(p->comm, rc); /* every rank stops at one round */
        if (rc != COLLIO_OK)
            break;
        round_slots(r, mp->nphases);
        collio__mp_round_place(r, mp->fsize, &mp->spill);
    }
    if (rc == COLLIO_OK && p->opts.write_rounds == 0)
        rc = keep_rounds_if_smaller(p, mp);
    return rc;
}

static int mp_plan(collio_plan *p)
{
    const collio_layout *l = p->layout;
    collio__mp_plan *mp = calloc(1, sizeof *mp);
    if (mp == NULL)
        return COLLIO_ERR_NOMEM;
    p->impl = mp;
    for (int i = 0; i < COLLIO_MAX_PHASES; i++)
        mp->whole.ph[i].send_type = mp->whole.ph[i].recv_type =
            mp->whole.ph[i].xrecv_type = MPI_DATATYPE_NULL;
    mp->esize = l->esize;
    mp->allphases = collio__mp_nphases(p->nranks);
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

    collio__segvec held = {0};
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < l->nsegs && rc == COLLIO_OK; i++)
        rc = collio__segvec_push_seg(&held, &l->segs[i]);
    /* collective even after a local failure: the phases agree on it */
    int brc = build_pass(p, &mp->whole, &held, l->nlocal, k, -1, -1, 1);
    if (rc == COLLIO_OK)
        rc = brc;
    if (rc == COLLIO_OK)
        rc = build_rounds(p, mp);
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = plan_bytes(mp);
    return rc;
}

static void mp_free(collio_plan *p)
{
    collio__mp_plan *mp = p->impl;
    if (mp == NULL)
        return;
    pass_free(&mp->whole);
    drop_rounds(mp);
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
    .write = collio__mp_write,
    .read = collio__mp_read,
    .free = mp_free,
};
