/*
 * node/transport.c -- the node-aware exchanges of the multiphase strategy:
 * inspector and executor of the route steps that node/sched.c
 * schedules (see node/node.h for the two schedules and why).
 *
 * Inspector (collective, once per plan). What a rank holds is a list of
 * segments (file offsets -> buffer positions, segment-major as in the
 * hypercube: a clipped segment is one contiguous range of the buffer).
 * Per step: clip every held segment to the file domains it spans, ask the
 * schedule where each piece goes, keep the pieces that stay (copies
 * A -> B), send the others as one message per peer (an MPI type over a
 * few ranges of A), and swap the descriptors once, so that each receiver
 * knows what lands where in B (one contiguous region per source). After
 * the last step every rank holds exactly its domain: one scatter into
 * file order and ONE file request, as after the hypercube's phases.
 *
 * Executor: per step, post the receives and sends, copy the kept pieces
 * meanwhile, wait. Reads run the same steps backwards. Work memory: two
 * buffers, each about the rank's share of the data (the first step of a
 * write reads the user's buffer, the last of a read writes it).
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "node.h"

#include <string.h>

#define TAG_NODE 3000

/* ---------------------------------------------------------- inspector */

/* Appends s to v, merged into the last segment where it continues it both
 * in the buffer and in the file's stride pattern. */
static int push_piece(collio__segvec *v, const collio__seg *s)
{
    if (v->n > 0) {
        collio__seg *l = &v->v[v->n - 1];
        int64_t st = l->count > 1 ? l->stride : s->off - l->off;
        if (l->mem + l->len * l->count == s->mem && s->len == l->len && st >= l->len
            && s->off == l->off + l->count * st && (s->count == 1 || s->stride == st)) {
            l->stride = st;
            l->count += s->count;
            return COLLIO_OK;
        }
    }
    return collio__segvec_push_seg(v, s);
}

/* The pieces of the held segments for each destination of step s:
 * desc[q] with their positions in A. */
static int route_pieces(collio_plan *p, const collio__mp_nodes *nm, int x, int s,
                        const collio__segvec *held, collio__segvec *desc)
{
    const int64_t N = p->layout->nglobal;
    const int P = p->nranks;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < held->n && rc == COLLIO_OK; i++) {
        const collio__seg *g = &held->v[i];
        if (g->count < 1 || g->len < 1)
            continue;
        int64_t last = g->off + (g->count - 1) * (g->count > 1 ? g->stride : g->len);
        int d0 = collio__domain_of(N, P, g->off);
        int d1 = collio__domain_of(N, P, last + g->len - 1);
        for (int d = d0; d <= d1 && rc == COLLIO_OK; d++) {
            int64_t lo, hi;
            collio__domain_range(N, P, d, &lo, &hi);
            collio__seg piece[3];
            int np = collio__seg_clip(g, lo, hi, piece);
            int q = collio__mp_node_route(nm, x, s, p->rank, d); /* domain d on rank d */
            for (int k = 0; k < np && rc == COLLIO_OK; k++)
                rc = push_piece(&desc[q], &piece[k]);
        }
    }
    return rc;
}

static int route_alloc(collio__mp_route *r, int P)
{
    size_t n = (size_t)(P > 0 ? P : 1);
    r->send_rank = malloc(n * sizeof *r->send_rank);
    r->recv_rank = malloc(n * sizeof *r->recv_rank);
    r->send_elems = malloc(n * sizeof *r->send_elems);
    r->recv_elems = malloc(n * sizeof *r->recv_elems);
    r->send_type = malloc(n * sizeof *r->send_type);
    r->recv_type = malloc(n * sizeof *r->recv_type);
    r->keep = NULL;
    if (!r->send_rank || !r->recv_rank || !r->send_elems || !r->recv_elems
        || !r->send_type || !r->recv_type)
        return COLLIO_ERR_NOMEM;
    return COLLIO_OK;
}

/* The kept pieces desc (A positions): copies A -> B at the start of B,
 * appended to *next with their B positions; desc is emptied. */
static int keep_pieces(collio__mp_route *r, collio__segvec *desc, collio__segvec *next,
                       int64_t *bpos)
{
    r->keep = malloc((size_t)(desc->n > 0 ? desc->n : 1) * sizeof *r->keep);
    if (r->keep == NULL)
        return COLLIO_ERR_NOMEM;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < desc->n && rc == COLLIO_OK; i++) {
        collio__seg g = desc->v[i];
        int64_t n = g.len * g.count;
        if (r->nkeep > 0 && r->keep[r->nkeep - 1].src + r->keep[r->nkeep - 1].n == g.mem
            && r->keep[r->nkeep - 1].dst + r->keep[r->nkeep - 1].n == *bpos)
            r->keep[r->nkeep - 1].n += n;
        else
            r->keep[r->nkeep++] = (collio__mp_copy){g.mem, *bpos, n};
        g.mem = *bpos;
        rc = push_piece(next, &g);
        *bpos += n;
    }
    desc->n = 0;
    return rc;
}

/* The last step's kept pieces desc (A positions) as scatter ops into F,
 * the rank's domain from file element lo (off = F position, mem = A
 * position); desc is emptied. */
static int place_kept(collio__segvec *desc, int64_t lo, collio__mp_final *fin)
{
    fin->ops = malloc((size_t)(desc->n > 0 ? desc->n : 1) * sizeof *fin->ops);
    if (fin->ops == NULL)
        return COLLIO_ERR_NOMEM;
    for (int64_t i = 0; i < desc->n; i++) {
        collio__seg o = desc->v[i];
        o.off -= lo;
        if (o.count == 1)
            o.stride = o.len;
        fin->ops[fin->nops++] = o;
    }
    fin->nelems = collio__segs_elements(desc->v, desc->n);
    desc->n = 0;
    return COLLIO_OK;
}

/* Collective: step s of the plan from the held segments (positions in A);
 * on return *held holds the segments of B. The last step (fin non-NULL)
 * lands in F, the rank's domain [lo, ...) in file order, instead: kept
 * pieces as fin's scatter ops, received ones placed by MPI types. rc: a
 * local failure so far (agreed here). */
static int build_step(collio_plan *p, const collio__mp_nodes *nm, int x, int s,
                      collio__segvec *held, int rc, collio__mp_route *r,
                      collio__mp_final *fin, int64_t lo)
{
    const int P = p->nranks, me = p->rank;
    const size_t es = p->layout->esize;
    collio__segvec *desc = calloc((size_t)P, sizeof *desc);
    int *in_at = malloc((size_t)(P + 1) * sizeof *in_at);
    collio__segvec next = {0};
    collio__seg *in = NULL;
    int64_t bpos = 0;
    if (rc == COLLIO_OK)
        rc = desc && in_at ? route_alloc(r, P) : COLLIO_ERR_NOMEM;
    r->a_elems = collio__segs_elements(held->v, held->n);
    if (rc == COLLIO_OK)
        rc = route_pieces(p, nm, x, s, held, desc);
    if (rc == COLLIO_OK)
        rc = fin ? place_kept(&desc[me], lo, fin)
                 : keep_pieces(r, &desc[me], &next, &bpos);
    for (int k = 1; k < P && rc == COLLIO_OK; k++) { /* from the next rank on */
        int q = (me + k) % P;
        if (desc[q].n == 0)
            continue;
        r->tuples += desc[q].n;
        r->send_rank[r->nsend] = q;
        rc = collio__mp_send_type(&desc[q], es, &r->send_type[r->nsend],
                                  &r->send_elems[r->nsend]);
        r->nsend++;
    }
    rc = collio__mp_swap_desc(p, desc, rc, &in, in_at); /* agreed */
    for (int k = 1; k < P && rc == COLLIO_OK; k++) {
        int q = (me - k + P) % P, n = in_at[q + 1] - in_at[q];
        if (n == 0)
            continue;
        int64_t got = collio__segs_elements(in + in_at[q], n);
        for (int j = 0; j < n && rc == COLLIO_OK; j++) {
            collio__seg g = in[in_at[q] + j];
            if (g.len < 1 || g.count < 1 || (g.count > 1 && g.stride < g.len))
                rc = COLLIO_ERR_ARG;
            g.mem += bpos;
            if (rc == COLLIO_OK && fin == NULL)
                rc = push_piece(&next, &g);
        }
        r->recv_rank[r->nrecv] = q;
        r->recv_elems[r->nrecv] = got;
        r->recv_type[r->nrecv] = MPI_DATATYPE_NULL;
        if (rc == COLLIO_OK && fin != NULL) /* straight to their file positions */
            rc = collio__mp_place_type(in + in_at[q], n, lo, es, &r->recv_type[r->nrecv]);
        else if (rc == COLLIO_OK)
            rc = collio__mp_ranges_type(&(collio__mp_range){bpos, got}, 1, es,
                                        &r->recv_type[r->nrecv]);
        r->nrecv++;
        bpos += got;
    }
    r->b_elems = fin ? fin->nelems + bpos : bpos;
    free(in);
    for (int q = 0; q < P && desc; q++)
        collio__segvec_free(&desc[q]);
    free(desc);
    free(in_at);
    collio__segvec_free(held);
    *held = next;
    return rc;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int collio__mp_node_build(collio_plan *p, int x, collio__mp_node **out)
{
    const collio_layout *l = p->layout;
    collio__mp_node *nd = calloc(1, sizeof *nd);
    collio__mp_nodes nm;
    collio__segvec held = {0};
    *out = nd;
    int rc = nd ? collio__mp_nodes_init(&nm, p->nranks, p->node_of) : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        nd->kind = x;
        nd->nsteps = collio__mp_node_nsteps(&nm, x);
        nd->step = calloc((size_t)nd->nsteps, sizeof *nd->step);
        if (nd->step == NULL)
            rc = COLLIO_ERR_NOMEM;
    }
    for (int64_t i = 0; i < l->nsegs && rc == COLLIO_OK; i++)
        rc = collio__segvec_push_seg(&held, &l->segs[i]);
    /* every rank takes every step (nsteps is the same on every rank: the
     * node map is) so that a local failure stops all at the same point */
    rc = collio__agree(p->comm, rc);
    int nreq = 0;
    int64_t lo = 0, hi = 0;
    collio__domain_range(l->nglobal, p->nranks, p->rank, &lo, &hi);
    for (int s = 0; s < (rc == COLLIO_OK ? nd->nsteps : 0); s++) {
        collio__mp_route *r = &nd->step[s];
        int last = s == nd->nsteps - 1;
        r->src_slot = s == 0 ? -1 : (s - 1) % 2;
        r->dst_slot = s % 2; /* the last step's: F */
        rc = build_step(p, &nm, x, s, &held, rc, r, last ? &nd->fin : NULL, lo);
        nd->need[r->dst_slot] = max64(nd->need[r->dst_slot], last ? hi - lo : r->b_elems);
        if (r->nsend + r->nrecv > nreq)
            nreq = r->nsend + r->nrecv;
    }
    if (nd != NULL && rc == COLLIO_OK) {
        /* the layouts partition the file: what arrives covers [lo, hi) */
        if (nd->step[nd->nsteps - 1].b_elems != hi - lo)
            rc = COLLIO_ERR_COVERAGE;
        collio__mp_final *fin = &nd->fin; /* (its ops: the last step's) */
        if (rc == COLLIO_OK)
            rc = collio__mp_final_domain(fin, lo, hi); /* F -> file: one request */
        fin->identity = 0;
        fin->src_slot = fin->dst_slot = nd->step[nd->nsteps - 1].dst_slot;
        nd->rq = malloc((size_t)(nreq > 0 ? nreq : 1) * sizeof *nd->rq);
        if (nd->rq == NULL && rc == COLLIO_OK)
            rc = COLLIO_ERR_NOMEM;
    }
    collio__segvec_free(&held);
    if (nd != NULL)
        collio__mp_nodes_free(&nm);
    return collio__agree(p->comm, rc);
}

static void route_free(collio__mp_route *r)
{
    for (int i = 0; i < r->nsend && r->send_type; i++)
        if (r->send_type[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->send_type[i]);
    for (int i = 0; i < r->nrecv && r->recv_type; i++)
        if (r->recv_type[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&r->recv_type[i]);
    free(r->send_rank);
    free(r->recv_rank);
    free(r->send_elems);
    free(r->recv_elems);
    free(r->send_type);
    free(r->recv_type);
    free(r->keep);
}

void collio__mp_node_free(collio__mp_node *nd)
{
    if (nd == NULL)
        return;
    for (int s = 0; s < nd->nsteps && nd->step; s++)
        route_free(&nd->step[s]);
    free(nd->step);
    collio__mp_final_free(&nd->fin);
    free(nd->rq);
    free(nd);
}

/* ----------------------------------------------------------- executor */

/* Step s between A and B: write moves A -> B, read B -> A. Every rank
 * posts and waits even after an error (the others wait for its
 * messages); the first error is kept in *rc. */
static void step_move(collio_plan *p, const collio__mp_node *nd, int s, char *a, char *b,
                      int write, int *rc)
{
    const collio__mp_route *r = &nd->step[s];
    const int64_t es = (int64_t)p->layout->esize;
    const int64_t sent0 = p->stats.bytes_sent;
    double t0 = collio__now();
    int nr = 0, perr = COLLIO_OK;
    for (int i = 0; i < r->nrecv; i++) { /* receives first */
        if (write)
            collio__irecv(b, 1, r->recv_type[i], r->recv_rank[i], TAG_NODE + s, p->comm,
                          nd->rq, &nr, &perr);
        else
            collio__isend(b, 1, r->recv_type[i], r->recv_rank[i], TAG_NODE + s, p->comm,
                          nd->rq, &nr, &perr);
        collio__count_p2p(p, r->recv_rank[i], write ? 0 : r->recv_elems[i] * es);
    }
    for (int i = 0; i < r->nsend; i++) {
        if (write)
            collio__isend(a, 1, r->send_type[i], r->send_rank[i], TAG_NODE + s, p->comm,
                          nd->rq, &nr, &perr);
        else
            collio__irecv(a, 1, r->send_type[i], r->send_rank[i], TAG_NODE + s, p->comm,
                          nd->rq, &nr, &perr);
        collio__count_p2p(p, r->send_rank[i], write ? r->send_elems[i] * es : 0);
    }
    double tc = collio__now(); /* the kept pieces meanwhile */
    for (int64_t c = 0; c < r->nkeep; c++) {
        const collio__mp_copy *k = &r->keep[c];
        if (write)
            collio__copy(b + k->dst * es, a + k->src * es, (size_t)(k->n * es));
        else
            collio__copy(a + k->src * es, b + k->dst * es, (size_t)(k->n * es));
    }
    if (s == nd->nsteps - 1 && write) /* the last step's, into file order */
        collio__mp_scatter(&nd->fin, p->layout->esize, a, b);
    else if (s == nd->nsteps - 1)
        collio__mp_gather(&nd->fin, p->layout->esize, b, a);
    p->stats.copy_s += collio__now() - tc;
    int w = collio__waitall(nr, nd->rq, p->oversubscribed);
    if (*rc == COLLIO_OK)
        *rc = w != COLLIO_OK ? w : perr;
    double t = collio__now() - t0;
    p->stats.exchange_s += t;
    collio__mp_phase_add(p, s, t, (double)(p->stats.bytes_sent - sent0), nr,
                         (double)r->tuples);
}

static char *slot_ptr(collio__mp_bufs *wb, char *stream, int slot)
{
    return slot < 0 ? stream : wb->buf[slot];
}

int collio__mp_node_write(collio_plan *p, collio_file *f, const char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_node *nd = mp->state;
    collio__mp_bufs wb;
    int rc = collio__mp_bufs_alloc(p, &wb, nd->need, 0); /* agreed */
    collio__stat_set(p, MP_STAT_NPHASES, nd->nsteps);
    if (rc != COLLIO_OK)
        return rc;
    char *a = (char *)stream;              /* (only read) */
    for (int s = 0; s < nd->nsteps; s++) { /* the last lands in F */
        char *b = slot_ptr(&wb, (char *)stream, nd->step[s].dst_slot);
        step_move(p, nd, s, a, b, 1, &rc);
        a = b;
    }
    int w = collio__mp_file_runs(p, &nd->fin, f, a, 1);
    collio__mp_bufs_done(p, &wb);
    return rc != COLLIO_OK ? rc : w;
}

/* A failed file read still takes part in the exchange (the others wait
 * for its messages); the error is returned at the end. */
int collio__mp_node_read(collio_plan *p, collio_file *f, char *stream)
{
    collio__mp_plan *mp = p->impl;
    const collio__mp_node *nd = mp->state;
    collio__mp_bufs wb;
    int rc = collio__mp_bufs_alloc(p, &wb, nd->need, 0); /* agreed */
    collio__stat_set(p, MP_STAT_NPHASES, nd->nsteps);
    if (rc != COLLIO_OK)
        return rc;
    rc = collio__mp_file_runs(p, &nd->fin, f, slot_ptr(&wb, stream, nd->fin.dst_slot), 0);
    int x = COLLIO_OK;
    for (int s = nd->nsteps - 1; s >= 0; s--) {
        char *b = slot_ptr(&wb, stream, nd->step[s].dst_slot);
        char *src = slot_ptr(&wb, stream, nd->step[s].src_slot);
        step_move(p, nd, s, src, b, 0, &x);
    }
    collio__mp_bufs_done(p, &wb);
    return rc != COLLIO_OK ? rc : x;
}

/* ---------------------------------------------------------- transports */

/* A node plan: per step its peers (a rank, a count and a type each way)
 * and kept copies, plus the final scatter ops (the types' own size is the
 * MPI library's). */
static int64_t node_bytes(const collio__mp_node *nd)
{
    int64_t b = (int64_t)sizeof *nd + nd->fin.nops * (int64_t)sizeof(collio__seg);
    for (int s = 0; s < nd->nsteps; s++) {
        const collio__mp_route *r = &nd->step[s];
        b += (int64_t)sizeof *r + r->nkeep * (int64_t)sizeof(collio__mp_copy)
             + (r->nsend + r->nrecv)
                   * (int64_t)(sizeof(int) + sizeof(int64_t) + sizeof(MPI_Datatype));
    }
    return b;
}

static int build_kind(collio_plan *p, collio__mp_plan *mp, int x)
{
    collio__stat_set(p, MP_STAT_SHARED_MEMORY, 0);
    collio__mp_node *nd = NULL;
    int rc = collio__mp_node_build(p, x, &nd); /* agreed */
    mp->state = nd;
    if (rc == COLLIO_OK) {
        collio__stat_set(p, MP_STAT_NPHASES, nd->nsteps);
        p->stats.plan_bytes = (int64_t)sizeof *mp + node_bytes(nd);
    }
    return rc;
}

static int build_direct(collio_plan *p, collio__mp_plan *mp)
{
    return build_kind(p, mp, MP_EXCHANGE_NODE_DIRECT);
}

static int build_hypercube(collio_plan *p, collio__mp_plan *mp)
{
    return build_kind(p, mp, MP_EXCHANGE_NODE_HYPERCUBE);
}

static void node_free(collio__mp_plan *mp)
{
    collio__mp_node_free(((collio__mp_node *)mp->state));
    mp->state = NULL;
}

const collio__mp_transport collio__mp_transport_node_direct = {
    .name = "node-direct",
    .build = build_direct,
    .write = collio__mp_node_write,
    .read = collio__mp_node_read,
    .free = node_free,
};

const collio__mp_transport collio__mp_transport_node_hypercube = {
    .name = "node-hypercube",
    .build = build_hypercube,
    .write = collio__mp_node_write,
    .read = collio__mp_node_read,
    .free = node_free,
};
