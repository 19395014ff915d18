/*
 * hypercube/phases.c -- the pure inspector steps of the multiphase
 * strategy's hypercube transport: everything that depends only on the
 * layout, computed once per plan (seed 004's "inspector", generalised to
 * any layout and any P; see multiphase.c for the algorithm and
 * schedule.c for the schedule).
 *
 * What a rank holds is tracked as strided segments (collio__seg: file
 * offsets -> buffer positions), never element by element. Per phase:
 *   split: clip every held segment to the kept and the sent file range
 *          (collio__seg_clip: <= 3 pieces each). A piece is one contiguous
 *          range of the buffer, so the phase moves a few large ranges: the
 *          kept pieces are copied A -> B, the sent pieces go out as one
 *          message (an MPI hindexed type over A). The descriptors of the
 *          sent pieces (off, len, stride, count: seed 004's "tuples") go to
 *          the receiver once, here, so that it knows what its new buffer
 *          holds (B = kept pieces, then the partner's, then the extra's).
 *   join:  append the received descriptors.
 * Final: the held segments are scattered into file order (F). After all
 * phases the rank covers its domain: F position = file offset - domain
 * start, one file request. After fewer phases the held segments interleave
 * with other ranks' data: a k-way merge over the segments (O(blocks log
 * segments), only for phases < all) gives the scatter ops and the file runs
 * (compressed to strided runs).
 *
 * Collective steps (count / descriptor exchanges, one collio__agree per
 * phase) are taken by every rank in every phase, so a local failure (out
 * of memory) makes every rank stop at the same point.
 */
#include "layouts/layouts.h"
#include "hypercube.h"

#include <limits.h>
#include <string.h>

/* ------------------------------------------------------ small vectors */

static int grow(void **v, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return COLLIO_OK;
    int64_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    if ((uint64_t)c > SIZE_MAX / elem)
        return COLLIO_ERR_NOMEM;
    void *n = realloc(*v, (size_t)c * elem);
    if (n == NULL)
        return COLLIO_ERR_NOMEM;
    *v = n;
    *cap = c;
    return COLLIO_OK;
}

/* Appends a copy, merged with the previous one when both sides continue. */
static int push_copy(collio__mp_phase *ph, int64_t *cap, int64_t src, int64_t dst,
                     int64_t n)
{
    if (ph->nkeep > 0) {
        collio__mp_copy *l = &ph->keep[ph->nkeep - 1];
        if (l->src + l->n == src && l->dst + l->n == dst) {
            l->n += n;
            return COLLIO_OK;
        }
    }
    int rc = grow((void **)&ph->keep, cap, ph->nkeep + 1, sizeof *ph->keep);
    if (rc == COLLIO_OK)
        ph->keep[ph->nkeep++] = (collio__mp_copy){src, dst, n};
    return rc;
}

static int push_range(collio__mp_phase *ph, int64_t *cap, int64_t pos, int64_t n)
{
    if (ph->nsend > 0) {
        collio__mp_range *l = &ph->send[ph->nsend - 1];
        if (l->pos + l->n == pos) {
            l->n += n;
            return COLLIO_OK;
        }
    }
    int rc = grow((void **)&ph->send, cap, ph->nsend + 1, sizeof *ph->send);
    if (rc == COLLIO_OK)
        ph->send[ph->nsend++] = (collio__mp_range){pos, n};
    return rc;
}

static int64_t seg_elems(const collio__seg *s)
{
    return s->len * s->count;
}

/* ------------------------------------------------------ pure phase steps */

int collio__mp_phase_split(const collio__seg *held, int64_t nheld, int64_t a_elems,
                           const collio__mp_step *st, collio__mp_phase *ph,
                           collio__segvec *kept, collio__segvec *out)
{
    ph->step = *st;
    ph->idle = st->group_size <= 1;
    ph->a_elems = a_elems;
    ph->b_elems = a_elems;
    if (ph->idle)
        return COLLIO_OK;
    int64_t kcap = 0, scap = 0, bpos = 0, spos = 0;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < nheld && rc == COLLIO_OK; i++) {
        collio__seg pc[3];
        int n = collio__seg_clip(&held[i], st->keep_lo, st->keep_hi, pc);
        for (int j = 0; j < n && rc == COLLIO_OK; j++) {
            int64_t e = seg_elems(&pc[j]);
            rc = push_copy(ph, &kcap, pc[j].mem, bpos, e);
            pc[j].mem = bpos;
            if (rc == COLLIO_OK)
                rc = collio__segvec_push_seg(kept, &pc[j]);
            bpos += e;
        }
        n = collio__seg_clip(&held[i], st->send_lo, st->send_hi, pc);
        for (int j = 0; j < n && rc == COLLIO_OK; j++) {
            int64_t e = seg_elems(&pc[j]);
            rc = push_range(ph, &scap, pc[j].mem, e);
            pc[j].mem = spos;
            if (rc == COLLIO_OK)
                rc = collio__segvec_push_seg(out, &pc[j]);
            spos += e;
        }
    }
    ph->send_elems = spos;
    ph->tuples = out->n;
    return rc;
}

static int append_received(collio__segvec *held, const collio__seg *r, int64_t n,
                           int64_t *pos)
{
    for (int64_t j = 0; j < n; j++) {
        collio__seg s = r[j];
        if (s.len < 1 || s.count < 1 || (s.count > 1 && s.stride < s.len))
            return COLLIO_ERR_ARG;
        s.mem = *pos;
        int rc = collio__segvec_push_seg(held, &s);
        if (rc != COLLIO_OK)
            return rc;
        *pos += seg_elems(&s);
    }
    return COLLIO_OK;
}

int collio__mp_phase_join(collio__mp_phase *ph, collio__segvec *held,
                          const collio__seg *rp, int64_t nrp, const collio__seg *rx,
                          int64_t nrx)
{
    int64_t pos = collio__segs_elements(held->v, held->n);
    ph->recv_pos = pos;
    int rc = append_received(held, rp, nrp, &pos);
    ph->recv_elems = pos - ph->recv_pos;
    ph->xrecv_pos = pos;
    if (rc == COLLIO_OK)
        rc = append_received(held, rx, nrx, &pos);
    ph->xrecv_elems = pos - ph->xrecv_pos;
    ph->b_elems = pos;
    return rc;
}

/* ------------------------------------------------------ final step */

typedef struct heap_node {
    int64_t off; /* file offset of the segment's next block */
    int64_t seg;
} heap_node;

static void heap_down(heap_node *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && h[c + 1].off < h[c].off)
            c++;
        if (h[i].off <= h[c].off)
            return;
        heap_node t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

/* Extends segment i's open scatter op by one block (src -> dst), or opens
 * a new op. The blocks of one segment come in order and are consecutive in
 * A, so an op only needs a constant step in F. */
static int op_extend(collio__mp_final *fin, int64_t *cap, int64_t *open, int64_t i,
                     int64_t len, int64_t src, int64_t dst)
{
    if (open[i] >= 0) {
        collio__seg *o = &fin->ops[open[i]];
        if (o->count == 1 && dst > o->off) {
            o->stride = dst - o->off;
            o->count = 2;
            return COLLIO_OK;
        }
        if (o->count > 1 && dst == o->off + o->count * o->stride) {
            o->count++;
            return COLLIO_OK;
        }
    }
    int rc = grow((void **)&fin->ops, cap, fin->nops + 1, sizeof *fin->ops);
    if (rc != COLLIO_OK)
        return rc;
    open[i] = fin->nops;
    fin->ops[fin->nops++] = (collio__seg){dst, len, len, 1, src};
    return COLLIO_OK;
}

/* k-way merge of the held segments by file offset. */
static int final_merge(const collio__seg *held, int64_t nheld, collio__mp_final *fin,
                       collio__segvec *runs)
{
    heap_node *h = malloc((size_t)(nheld > 0 ? nheld : 1) * sizeof *h);
    int64_t *blk = calloc((size_t)(nheld > 0 ? nheld : 1), sizeof *blk);
    int64_t *open = malloc((size_t)(nheld > 0 ? nheld : 1) * sizeof *open);
    int rc = (h && blk && open) ? COLLIO_OK : COLLIO_ERR_NOMEM;
    int64_t n = 0, cap = 0, pos = 0;
    int64_t roff = 0, rlen = 0, rmem = 0; /* the current file run */
    for (int64_t i = 0; i < nheld && rc == COLLIO_OK; i++) {
        open[i] = -1;
        h[n++] = (heap_node){held[i].off, i};
    }
    for (int64_t i = n / 2 - 1; i >= 0 && rc == COLLIO_OK; i--)
        heap_down(h, n, i);
    while (n > 0 && rc == COLLIO_OK) {
        int64_t i = h[0].seg, off = h[0].off;
        const collio__seg *s = &held[i];
        rc = op_extend(fin, &cap, open, i, s->len, s->mem + blk[i] * s->len, pos);
        if (rlen > 0 && roff + rlen == off) {
            rlen += s->len;
        } else {
            if (rlen > 0 && rc == COLLIO_OK)
                rc = collio__segvec_push(runs, roff, rlen, rmem);
            roff = off;
            rlen = s->len;
            rmem = pos;
        }
        pos += s->len;
        if (++blk[i] < s->count) {
            h[0].off = s->off + blk[i] * s->stride;
        } else {
            h[0] = h[--n];
        }
        heap_down(h, n, 0);
    }
    if (rlen > 0 && rc == COLLIO_OK)
        rc = collio__segvec_push(runs, roff, rlen, rmem);
    free(h);
    free(blk);
    free(open);
    return rc;
}

/* Order of the scatter ops: strided ops of equal shape (len, stride,
 * count) next to each other, by file position. The executor then copies
 * such a group interleaved -- block b of every op, then block b+1 -- so F
 * is written in one sequential sweep instead of one sweep per op (for
 * bx = 1 at P = 8: 8 sweeps over a 12 MB buffer writing 4 bytes in 32). */
static int op_shape_cmp(const void *pa, const void *pb)
{
    const collio__seg *a = pa, *b = pb;
    int64_t ka[4] = {a->count > 1, a->len, a->stride, a->count};
    int64_t kb[4] = {b->count > 1, b->len, b->stride, b->count};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return (a->off > b->off) - (a->off < b->off);
}

int collio__mp_final_build(const collio__seg *held, int64_t nheld, int64_t lo, int64_t hi,
                           collio__mp_final *fin)
{
    int64_t total = collio__segs_elements(held, nheld);
    collio__segvec runs = {0};
    int rc = COLLIO_OK;
    fin->nelems = total;
    if (total == hi - lo) { /* covers its range: F position = off - lo */
        fin->ops = malloc((size_t)(nheld > 0 ? nheld : 1) * sizeof *fin->ops);
        if (fin->ops == NULL)
            return COLLIO_ERR_NOMEM;
        for (int64_t i = 0; i < nheld; i++) {
            collio__seg o = held[i];
            o.off -= lo;
            if (o.count == 1)
                o.stride = o.len;
            fin->ops[i] = o;
        }
        fin->nops = nheld;
        if (total > 0)
            rc = collio__segvec_push(&runs, lo, total, 0);
    } else {
        rc = final_merge(held, nheld, fin, &runs);
    }
    fin->runs = runs.v;
    fin->nruns = runs.n;
    fin->requests = 0;
    for (int64_t i = 0; i < runs.n; i++)
        fin->requests += runs.v[i].count;
    if (fin->nops > 1)
        qsort(fin->ops, (size_t)fin->nops, sizeof *fin->ops, op_shape_cmp);
    fin->identity = 1;
    for (int64_t i = 0; i < fin->nops; i++) {
        const collio__seg *o = &fin->ops[i];
        if (o->off != o->mem || (o->count > 1 && o->stride != o->len))
            fin->identity = 0;
    }
    return rc;
}

void collio__mp_phase_free(collio__mp_phase *ph)
{
    free(ph->keep);
    free(ph->send);
    ph->keep = NULL;
    ph->send = NULL;
    ph->nkeep = ph->nsend = 0;
}
