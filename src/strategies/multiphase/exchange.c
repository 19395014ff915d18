/*
 * exchange.c -- the direct exchange, a building block of the multiphase
 * strategy's kit: all ceil(log2 P) hypercube phases merged into ONE
 * phase, in which every rank sends each piece of its data straight to the
 * rank that writes it. Its builder and mover serve the direct transport
 * (direct/transport.c), the hypercube's last round (hypercube/inspect.c,
 * hypercube/exec.c) and the shm transport (copy ops instead of MPI types,
 * shm/transport.c).
 *
 * Why. A hypercube phase moves about half of a rank's data, so all phases
 * move each element up to log2 P times, through two work buffers, and end
 * with a scatter into file order. Where the layout's blocks are long
 * enough for an MPI datatype to stream them, it is cheaper to move each
 * element once: the sender's pieces for a peer are a few contiguous
 * ranges of the user's stream (an hindexed type), and the receiver's
 * datatype places them directly at their file positions in F, the rank's
 * domain buffer, which then goes to the file in one request (the same
 * domain and the same single write as after all hypercube phases). The
 * rank's own pieces are copied locally (stream <-> F, the final step's
 * scatter loop) while the messages move. No work buffers: the work memory
 * is F, exactly the rank's file domain. The price is P - 1 messages per rank instead of
 * ceil(log2 P), so the automatic choice (choose.c) takes it
 * only for moderate P and long enough blocks (choose.c) -- measured, see
 * docs/multiphase.md.
 *
 * Inspector (collective, once per plan): each layout segment is clipped to
 * the domains it spans (at most 3 pieces per domain: partial head block,
 * whole strided blocks, partial tail block -- a strided piece is ONE
 * contiguous range of the stream); the pieces for each peer are sent to it
 * once (MPI_Alltoall of counts, MPI_Alltoallv of 5-int64 descriptors), and
 * each receiver builds, per sender, a struct of hvectors over F. Block-
 * cyclic layouts need 1-3 descriptors per (sender, receiver) pair
 * whatever bx is.
 *
 * Executor: write = post every receive into F and every send from the
 * stream, copy the own pieces, wait, write F; read = read F, then the
 * same backwards.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "core/core.h"
#include "multiphase.h"

#include <string.h>

#define TAG_DIRECT 2000

/* ---------------------------------------------------------- inspector */

/* The pieces of segs for each peer: desc[q] = the clipped segments
 * whose file offsets lie in q's domain, with their stream positions, in
 * stream order. */
static int clip_to_domains(collio_plan *p, const collio__seg *segs, int64_t nsegs,
                           const int *owner, collio__segvec *desc)
{
    const collio_layout *l = p->layout;
    const int P = p->nranks;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < nsegs && rc == COLLIO_OK; i++) {
        const collio__seg *s = &segs[i];
        if (s->count < 1 || s->len < 1)
            continue;
        int64_t last =
            s->off + (s->count - 1) * (s->count > 1 ? s->stride : s->len) + s->len;
        int d0 = collio__domain_of(l->nglobal, P, s->off);
        int d1 = collio__domain_of(l->nglobal, P, last - 1);
        for (int dom = d0; dom <= d1 && rc == COLLIO_OK; dom++) {
            int64_t lo, hi;
            collio__domain_range(l->nglobal, P, dom, &lo, &hi);
            collio__seg piece[3];
            int np = collio__seg_clip(s, lo, hi, piece);
            for (int k = 0; k < np && rc == COLLIO_OK; k++)
                rc = collio__segvec_push_seg(&desc[owner[dom]], &piece[k]);
        }
    }
    return rc;
}

/* The rank's own pieces (dv: stream positions) as copy ops between the
 * stream and F (off = F position, mem = stream position; the final
 * step's scatter / gather walks them), in fin->ops; dv is emptied, so
 * that nothing goes to the rank itself. */
static int self_ops(collio__segvec *dv, int64_t flo, collio__mp_final *fin)
{
    fin->ops = malloc((size_t)(dv->n > 0 ? dv->n : 1) * sizeof *fin->ops);
    if (fin->ops == NULL)
        return COLLIO_ERR_NOMEM;
    for (int64_t i = 0; i < dv->n; i++) {
        collio__seg o = dv->v[i];
        o.off -= flo;
        if (o.count == 1)
            o.stride = o.len;
        fin->ops[i] = o;
    }
    fin->nops = dv->n;
    fin->nelems = collio__segs_elements(dv->v, dv->n);
    dv->n = 0;
    return COLLIO_OK;
}

static int direct_alloc(collio__mp_direct *d, int P)
{
    d->npeers = P;
    d->send_type = malloc((size_t)P * sizeof *d->send_type);
    d->recv_type = malloc((size_t)P * sizeof *d->recv_type);
    d->send_elems = calloc((size_t)P, sizeof *d->send_elems);
    d->recv_elems = calloc((size_t)P, sizeof *d->recv_elems);
    d->rq = malloc((size_t)P * 2 * sizeof *d->rq);
    if (!d->send_type || !d->recv_type || !d->send_elems || !d->recv_elems || !d->rq)
        return COLLIO_ERR_NOMEM;
    for (int q = 0; q < P; q++)
        d->send_type[q] = d->recv_type[q] = MPI_DATATYPE_NULL;
    return COLLIO_OK;
}

/* Shared memory: each peer's pieces desc[q] (stream positions) as copy
 * ops into q's F (off = position in q's domain), and a check that what
 * every rank receives covers its domain [lo, hi) (one collective; rc
 * agreed first). */
static int peer_ops(collio_plan *p, collio__segvec *desc, int rc, int64_t lo, int64_t hi,
                    collio__mp_direct *d)
{
    const collio_layout *l = p->layout;
    const int P = p->nranks;
    int64_t *cnt = calloc((size_t)P, sizeof *cnt), got = 0;
    if (rc == COLLIO_OK)
        d->peer = calloc((size_t)P, sizeof *d->peer);
    if (rc == COLLIO_OK && (cnt == NULL || d->peer == NULL))
        rc = COLLIO_ERR_NOMEM;
    for (int q = 0; q < P && rc == COLLIO_OK; q++) {
        int64_t qlo, qhi;
        collio__domain_range(l->nglobal, P, collio__mp_domain_of_rank(P, q), &qlo, &qhi);
        cnt[q] = collio__segs_elements(desc[q].v, desc[q].n);
        rc = self_ops(&desc[q], qlo, &d->peer[q]);
        if (q != p->rank)
            d->send_tuples += d->peer[q].nops;
    }
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK
        && MPI_Reduce_scatter_block(cnt, &got, 1, MPI_INT64_T, MPI_SUM, p->comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK && got != hi - lo)
        rc = COLLIO_ERR_COVERAGE;
    free(cnt);
    return rc;
}

int collio__mp_direct_new(collio_plan *p, const collio__seg *segs, int64_t nsegs, int rc,
                          int64_t flo, int64_t lo, int64_t hi, int shm,
                          collio__mp_direct **out)
{
    const collio_layout *l = p->layout;
    const int P = p->nranks;
    collio__mp_direct *d = calloc(1, sizeof *d);
    int *owner = malloc((size_t)P * sizeof *owner);
    int *in_at = malloc((size_t)(P + 1) * sizeof *in_at);
    collio__segvec *desc = calloc((size_t)P, sizeof *desc);
    *out = d;
    if (rc == COLLIO_OK)
        rc = (d && owner && in_at && desc) ? direct_alloc(d, P) : COLLIO_ERR_NOMEM;
    for (int r = 0; r < P && rc == COLLIO_OK; r++)
        owner[collio__mp_domain_of_rank(P, r)] = r;
    if (rc == COLLIO_OK)
        rc = clip_to_domains(p, segs, nsegs, owner, desc);
    if (shm) { /* no types, no descriptors to swap: each rank copies */
        rc = peer_ops(p, desc, rc, lo, hi, d);
        goto done;
    }
    /* the rank's own pieces: a local copy, not a message to itself */
    if (rc == COLLIO_OK)
        rc = self_ops(&desc[p->rank], flo, &d->self);
    for (int q = 0; q < P && rc == COLLIO_OK; q++) {
        if (q == p->rank)
            continue;
        rc =
            collio__mp_send_type(&desc[q], l->esize, &d->send_type[q], &d->send_elems[q]);
        d->send_tuples += desc[q].n;
    }
    collio__seg *in = NULL;
    rc = collio__mp_swap_desc(p, desc, rc, &in, in_at); /* agreed */
    int64_t received = d->self.nelems;
    for (int q = 0; q < P && rc == COLLIO_OK; q++) {
        d->recv_elems[q] = collio__segs_elements(in + in_at[q], in_at[q + 1] - in_at[q]);
        received += d->recv_elems[q];
        rc = collio__mp_place_type(in + in_at[q], in_at[q + 1] - in_at[q], flo, l->esize,
                                   &d->recv_type[q]);
    }
    /* the layouts partition the file: what arrives covers [lo, hi) */
    if (rc == COLLIO_OK && received != hi - lo)
        rc = COLLIO_ERR_COVERAGE;
    free(in);
done:
    for (int q = 0; q < P && desc; q++)
        collio__segvec_free(&desc[q]);
    free(desc);
    free(owner);
    free(in_at);
    return rc;
}

void collio__mp_direct_free(collio__mp_direct *d)
{
    if (d == NULL)
        return;
    for (int q = 0; q < d->npeers && d->send_type && d->recv_type; q++) {
        if (d->send_type[q] != MPI_DATATYPE_NULL)
            MPI_Type_free(&d->send_type[q]);
        if (d->recv_type[q] != MPI_DATATYPE_NULL)
            MPI_Type_free(&d->recv_type[q]);
    }
    free(d->send_type);
    free(d->recv_type);
    free(d->send_elems);
    free(d->recv_elems);
    free(d->rq);
    collio__mp_final_free(&d->fin);
    collio__mp_final_free(&d->self);
    for (int q = 0; q < d->npeers && d->peer; q++)
        collio__mp_final_free(&d->peer[q]);
    free(d->peer);
    free(d);
}

/* A direct exchange: per peer two types, two counts, two requests (the
 * types' own size is the MPI library's). */
int64_t collio__mp_direct_bytes(const collio__mp_direct *d)
{
    if (d == NULL)
        return 0;
    return (int64_t)sizeof *d
           + d->npeers
                 * (int64_t)(2 * sizeof(MPI_Datatype) + 2 * sizeof(int64_t)
                             + 2 * sizeof(MPI_Request));
}

/* ----------------------------------------------------------- executor */

/* Posts the messages of one direct exchange: `to` peers get the stream's
 * pieces (write) or F's regions (read), `from` peers the other side.
 * Peers in turn from the next rank on, so that not every rank starts with
 * the same one. Returns the number of requests; counts sent data. */
static int post(collio_plan *p, const collio__mp_direct *d, char *stream, char *F,
                int write, int *perr)
{
    const int P = p->nranks, me = p->rank;
    const int64_t es = (int64_t)p->layout->esize;
    int nr = 0;
    for (int k = 0; k < P; k++) { /* receives first */
        int q = (me - k + P) % P;
        if (write && d->recv_elems[q] > 0)
            collio__irecv(F, 1, d->recv_type[q], q, TAG_DIRECT, p->comm, d->rq, &nr,
                          perr);
        else if (!write && d->send_elems[q] > 0)
            collio__irecv(stream, 1, d->send_type[q], q, TAG_DIRECT, p->comm, d->rq, &nr,
                          perr);
        else
            continue;
        collio__count_p2p(p, q, 0);
    }
    for (int k = 0; k < P; k++) {
        int q = (me + k) % P;
        int64_t n = write ? d->send_elems[q] : d->recv_elems[q];
        if (n == 0)
            continue;
        if (write)
            collio__isend(stream, 1, d->send_type[q], q, TAG_DIRECT, p->comm, d->rq, &nr,
                          perr);
        else
            collio__isend(F, 1, d->recv_type[q], q, TAG_DIRECT, p->comm, d->rq, &nr,
                          perr);
        collio__count_p2p(p, q, n * es);
    }
    return nr;
}

int collio__mp_direct_move(collio_plan *p, const collio__mp_direct *d, char *stream,
                           char *F, int write, int phase)
{
    const int64_t sent0 = p->stats.bytes_sent;
    double t0 = collio__now();
    int perr = COLLIO_OK;
    int nr = post(p, d, stream, F, write, &perr);
    double tc = collio__now(); /* the own pieces meanwhile */
    if (write)
        collio__mp_scatter(&d->self, p->layout->esize, stream, F);
    else
        collio__mp_gather(&d->self, p->layout->esize, F, stream);
    p->stats.copy_s += collio__now() - tc;
    int rc = collio__waitall(nr, d->rq, p->oversubscribed);
    if (rc == COLLIO_OK)
        rc = perr;
    double t = collio__now() - t0;
    p->stats.exchange_s += t; /* (messages, bytes_sent: counted by post) */
    if (phase >= 0) {
        collio__mp_phase_add(p, phase, t, (double)(p->stats.bytes_sent - sent0), nr,
                             (double)d->send_tuples);
    }
    return rc;
}
