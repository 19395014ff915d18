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
 * then the extra memory is one buffer, about 1x the local data.
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

static void use_slot(collio__mp_plan *mp, int slot, int64_t elems)
{
    if (slot >= 0 && elems > mp->bufsize[slot])
        mp->bufsize[slot] = elems;
}

static int64_t plan_bytes(const collio__mp_plan *mp)
{
    int64_t b = (int64_t)sizeof *mp;
    for (int i = 0; i < mp->nphases; i++) {
        const collio__mp_phase *ph = &mp->ph[i];
        b += ph->nkeep * (int64_t)sizeof(collio__mp_copy);
        b += ph->nsend
             * (int64_t)(sizeof(collio__mp_range) + sizeof(int) + sizeof(MPI_Aint));
    }
    b += (mp->fin.nops + mp->fin.nruns) * (int64_t)sizeof(collio__seg);
    return b;
}

static int mp_plan(collio_plan *p)
{
    const collio_layout *l = p->layout;
    collio__mp_plan *mp = calloc(1, sizeof *mp);
    if (mp == NULL)
        return COLLIO_ERR_NOMEM;
    p->impl = mp;
    for (int i = 0; i < COLLIO_MAX_PHASES; i++)
        mp->ph[i].send_type = mp->ph[i].recv_type = mp->ph[i].xrecv_type =
            MPI_DATATYPE_NULL;
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
    int64_t a_elems = l->nlocal;
    int cur = -1; /* buffer slot holding the current data; -1 = stream */
    for (int ph = 0; ph < k; ph++) {
        collio__mp_phase *phs = &mp->ph[ph];
        collio__mp_step st;
        collio__mp_step_of(p->nranks, l->nglobal, p->rank, ph, &st);
        phs->step = st;
        collio__segvec kept = {0}, out = {0};
        if (rc == COLLIO_OK)
            rc = collio__mp_phase_split(held.v, held.n, a_elems, &st, phs, &kept, &out);
        collio__seg *rp = NULL, *rx = NULL;
        int64_t nrp = 0, nrx = 0;
        int agreed = COLLIO_OK;
        rc = exchange_desc(p, &st, ph, rc, &out, &rp, &nrp, &rx, &nrx, &agreed);
        phs->src_slot = phs->dst_slot = cur;
        if (rc == COLLIO_OK && !phs->idle) {
            rc = collio__mp_phase_join(phs, &kept, rp, nrp, rx, nrx);
            collio__segvec_free(&held);
            held = kept;
            kept = (collio__segvec){0};
            phs->dst_slot = other_slot(cur);
            cur = phs->dst_slot;
            use_slot(mp, cur, phs->b_elems);
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
        collio__mp_step st; /* the group range after k phases */
        collio__mp_step_of(p->nranks, l->nglobal, p->rank, k, &st);
        rc = collio__mp_final_build(held.v, held.n, st.group_lo, st.group_hi, &mp->fin);
        mp->fin.src_slot = cur;
        mp->fin.dst_slot = mp->fin.identity ? cur : other_slot(cur);
        if (!mp->fin.identity)
            use_slot(mp, mp->fin.dst_slot, mp->fin.nelems);
    }
    collio__segvec_free(&held);
    for (int ph = 0; ph < k && rc == COLLIO_OK; ph++)
        if (!mp->ph[ph].idle)
            rc = phase_types(&mp->ph[ph], l->esize);
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = plan_bytes(mp);
    return rc;
}

static void mp_free(collio_plan *p)
{
    collio__mp_plan *mp = p->impl;
    if (mp == NULL)
        return;
    for (int i = 0; i < COLLIO_MAX_PHASES; i++) {
        collio__mp_phase *ph = &mp->ph[i];
        collio__mp_phase_free(ph);
        if (ph->send_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->send_type);
        if (ph->recv_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->recv_type);
        if (ph->xrecv_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&ph->xrecv_type);
    }
    collio__mp_final_free(&mp->fin);
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
