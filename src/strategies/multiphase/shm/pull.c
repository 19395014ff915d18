/*
 * shm/pull.c -- the direct exchange through shared memory for
 * layouts with small blocks: every rank stages its pieces, then every
 * owner gathers its own domain ("pull"), in halving rounds whose staging
 * areas lie inside the ranks' own file-order buffers F.
 *
 * Why. Through the shared-memory window (shm/transport.c) each rank can
 * copy its pieces straight into their owners' F ("push"). With blocks of a
 * few bytes that is slow: every rank writes 4- or 16-byte pieces into
 * cache lines that the other ranks write too, each line is fetched again
 * for every writer, and the stores are strided. Measured at P = 16, 100 MB,
 * bx = 1 / 4 / 16 (stand-alone, docs/multiphase.md): push 142 / 62 / 42 ms,
 * pull 25 / 32 / 18 ms. Pulling needs the pieces where their owner can
 * read them: each rank first copies them, as a few contiguous ranges of its
 * stream, into a staging area of the window; after a barrier each owner
 * gathers its domain tile by tile (the hypercube's final-scatter loop,
 * kit.c), reading every source sequentially and writing each
 * cache line of F once. Two copies per element, both streaming.
 *
 * Memory. The staging area is the part of the rank's own F that is not
 * filled yet. Round i fills part i of every domain, [c_i, c_i+1) with
 * c_0 = 0 and c_i+1 = c_i + (n - c_i) / 2 (n: the domain's size): half of
 * the domain, then a quarter, ...; its pieces are staged in F[c_i+1, n),
 * exactly as large as part i when the layout is balanced. After `nrounds`
 * halvings the rest of every domain, [c_R, n), is pushed (one copy per
 * piece, no staging) -- a 1/2^R share, where push is cheap enough. A rank
 * whose staged pieces exceed its free tail (layouts that are not balanced
 * over the parts) gets that excess as slack after F: its window segment is
 * F + slack (a few elements for block-cyclic layouts, 0 at P = 2^n when
 * the parts divide evenly), counted in work_bytes.
 *
 * Inspector (collective, once per plan): per round, the layout clipped to
 * part i of every domain; the staging copies (stream -> F); the staged
 * pieces' descriptors sent to their owners (MPI_Alltoallv, as the direct
 * exchange's), which sort them into interleaved groups for the tiled
 * gather. The positions in the sources' segments become byte offsets from
 * the window's first segment when the window is made (pull_rebase).
 *
 * How many rounds, and whether to pull at all, is choose.c's
 * decision (mp->pull_rounds): halvings stop where a part gets small, and
 * large blocks are pushed only.
 *
 * Executor (shm/transport.c): per round stage, barrier, gather, barrier;
 * then the pushed tail, barrier, the file. Reads run it backwards.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "core/core.h"
#include "shm.h"

#include <string.h>

int64_t collio__mp_pull_cut(int64_t n, int i)
{
    int64_t c = 0;
    for (int k = 0; k < i; k++)
        c += (n - c) / 2;
    return c;
}

/* The layout's pieces in part i of every domain (a = c_i, b = c_i+1 of
 * each domain, or b = the domain's end for the tail), grouped per owner
 * rank: desc[q] in stream order. */
static int clip_to_parts(collio_plan *p, int i, int tail, collio__segvec *desc)
{
    const collio_layout *l = p->layout;
    const int P = p->nranks;
    int rc = COLLIO_OK;
    for (int q = 0; q < P && rc == COLLIO_OK; q++) {
        int64_t lo, hi;
        collio__domain_range(l->nglobal, P, collio__mp_domain_of_rank(P, q), &lo, &hi);
        int64_t a = lo + collio__mp_pull_cut(hi - lo, i);
        int64_t b = tail ? hi : lo + collio__mp_pull_cut(hi - lo, i + 1);
        for (int64_t s = 0; s < l->nsegs && rc == COLLIO_OK && a < b; s++) {
            collio__seg piece[3];
            int np = collio__seg_clip(&l->segs[s], a, b, piece);
            for (int k = 0; k < np && rc == COLLIO_OK; k++)
                rc = collio__segvec_push_seg(&desc[q], &piece[k]);
        }
    }
    return rc;
}

/* Staging copies of round i: every piece, in owner order, to the next
 * free position of F from `pos` on (contiguous in the stream, so one
 * copy each); the piece's mem becomes that position, as its owner needs
 * it. Returns the position after the last piece. */
static int stage_ops(collio__segvec *desc, int P, int me, int64_t pos,
                     collio__mp_final *st, int64_t *end, int64_t *sent)
{
    int64_t n = 0, start = pos;
    for (int q = 0; q < P; q++)
        n += desc[q].n;
    st->ops = malloc((size_t)(n > 0 ? n : 1) * sizeof *st->ops);
    if (st->ops == NULL)
        return COLLIO_ERR_NOMEM;
    for (int q = 0; q < P; q++)
        for (int64_t k = 0; k < desc[q].n; k++) {
            collio__seg *s = &desc[q].v[k];
            int64_t e = s->count * s->len;
            st->ops[st->nops++] = (collio__seg){pos, e, e, 1, s->mem};
            if (q != me)
                *sent += e;
            s->mem = pos;
            pos += e;
        }
    st->nelems = pos - start;
    *end = pos;
    return COLLIO_OK;
}

typedef struct src_op {
    collio__seg op;
    int src;
} src_op;

/* Interleaved groups for the tiled gather (kit.c, group_end):
 * same shape adjacent, then by F position. */
static int cmp_src_op(const void *x, const void *y)
{
    const collio__seg *a = &((const src_op *)x)->op, *b = &((const src_op *)y)->op;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    if (a->stride != b->stride)
        return a->stride < b->stride ? -1 : 1;
    if (a->count != b->count)
        return a->count < b->count ? -1 : 1;
    return (a->off > b->off) - (a->off < b->off);
}

/* The gather of round i from what each source sent (in, split by in_at):
 * ops F position <- position in the source's segment, sorted into groups;
 * src[k] the source of op k. *got: elements received. */
static int gather_ops(const collio__seg *in, const int *in_at, int P, int64_t flo,
                      collio__mp_final *g, int **src, int64_t *got)
{
    int64_t n = in_at[P];
    src_op *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    g->ops = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->ops);
    *src = malloc((size_t)(n > 0 ? n : 1) * sizeof **src);
    if (t == NULL || g->ops == NULL || *src == NULL) {
        free(t);
        return COLLIO_ERR_NOMEM;
    }
    for (int q = 0; q < P; q++)
        for (int k = in_at[q]; k < in_at[q + 1]; k++) {
            collio__seg o = in[k];
            o.off -= flo;
            if (o.count == 1)
                o.stride = o.len;
            t[k] = (src_op){o, q};
        }
    qsort(t, (size_t)n, sizeof *t, cmp_src_op);
    for (int64_t k = 0; k < n; k++) {
        g->ops[k] = t[k].op;
        (*src)[k] = t[k].src;
    }
    g->nops = n;
    g->nelems = *got = collio__segs_elements(g->ops, n);
    free(t);
    return COLLIO_OK;
}

void collio__mp_pull_free(collio__mp_pull *pl)
{
    if (pl == NULL)
        return;
    for (int i = 0; i < pl->nrounds; i++) {
        if (pl->stage)
            collio__mp_final_free(&pl->stage[i]);
        if (pl->gath)
            collio__mp_final_free(&pl->gath[i]);
        if (pl->gbytes)
            collio__mp_final_free(&pl->gbytes[i]);
        if (pl->src)
            free(pl->src[i]);
    }
    free(pl->stage);
    free(pl->gath);
    free(pl->gbytes);
    free(pl->src);
    free(pl);
}

int collio__mp_pull_build(collio_plan *p, int nrounds, int64_t lo, int64_t hi,
                          collio__mp_pull **out)
{
    const int P = p->nranks, R = nrounds;
    const int64_t n = hi - lo;
    collio__mp_pull *pl = calloc(1, sizeof *pl);
    collio__segvec *desc = calloc((size_t)P, sizeof *desc);
    int *in_at = malloc((size_t)(P + 1) * sizeof *in_at);
    int rc = pl && desc && in_at ? COLLIO_OK : COLLIO_ERR_NOMEM;
    *out = pl;
    if (rc == COLLIO_OK) {
        pl->nrounds = R;
        pl->seg_elems = n;
        pl->stage = calloc((size_t)R + 1, sizeof *pl->stage);
        pl->gath = calloc((size_t)R + 1, sizeof *pl->gath);
        pl->gbytes = calloc((size_t)R + 1, sizeof *pl->gbytes);
        pl->src = calloc((size_t)R + 1, sizeof *pl->src);
        if (!pl->stage || !pl->gath || !pl->gbytes || !pl->src)
            rc = COLLIO_ERR_NOMEM;
    }
    for (int i = 0; i < R; i++) { /* every rank runs every round: collectives */
        for (int q = 0; q < P && desc; q++)
            desc[q].n = 0;
        if (rc == COLLIO_OK)
            rc = clip_to_parts(p, i, 0, desc);
        int64_t end = 0;
        if (rc == COLLIO_OK)
            rc = stage_ops(desc, P, p->rank, collio__mp_pull_cut(n, i + 1), &pl->stage[i],
                           &end, &pl->sent_elems);
        if (rc == COLLIO_OK && end > pl->seg_elems)
            pl->seg_elems = end; /* the slack after F */
        collio__seg *in = NULL;
        rc = collio__mp_swap_desc(p, desc, rc, &in, in_at); /* agreed */
        int64_t got = 0;
        if (rc == COLLIO_OK)
            rc = gather_ops(in, in_at, P, lo, &pl->gath[i], &pl->src[i], &got);
        /* the layouts partition the file: part i arrives whole */
        if (rc == COLLIO_OK
            && got != collio__mp_pull_cut(n, i + 1) - collio__mp_pull_cut(n, i))
            rc = COLLIO_ERR_COVERAGE;
        free(in);
    }
    for (int q = 0; q < P && desc; q++)
        collio__segvec_free(&desc[q]);
    free(desc);
    free(in_at);
    return rc;
}

int collio__mp_pull_tail(collio_plan *p, int nrounds, collio__segvec *tail)
{
    const int P = p->nranks;
    collio__segvec *desc = calloc((size_t)P, sizeof *desc);
    if (desc == NULL)
        return COLLIO_ERR_NOMEM;
    int rc = clip_to_parts(p, nrounds, 1, desc);
    for (int q = 0; q < P && rc == COLLIO_OK; q++)
        for (int64_t k = 0; k < desc[q].n && rc == COLLIO_OK; k++)
            rc = collio__segvec_push_seg(tail, &desc[q].v[k]);
    for (int q = 0; q < P; q++)
        collio__segvec_free(&desc[q]);
    free(desc);
    return rc;
}

int collio__mp_pull_rebase(collio__mp_pull *pl, char *const *base, size_t esize)
{
    const int64_t es = (int64_t)esize;
    for (int i = 0; i < pl->nrounds; i++) {
        const collio__mp_final *g = &pl->gath[i];
        collio__mp_final *b = &pl->gbytes[i];
        if (b->ops == NULL) {
            b->ops = malloc((size_t)(g->nops > 0 ? g->nops : 1) * sizeof *b->ops);
            if (b->ops == NULL)
                return COLLIO_ERR_NOMEM;
        }
        for (int64_t k = 0; k < g->nops; k++) {
            const collio__seg *o = &g->ops[k];
            int64_t delta = (int64_t)(base[pl->src[i][k]] - base[0]);
            b->ops[k] = (collio__seg){o->off * es, o->len * es, o->stride * es, o->count,
                                      o->mem * es + delta};
        }
        b->nops = g->nops;
        b->nelems = g->nelems * es;
    }
    return COLLIO_OK;
}
