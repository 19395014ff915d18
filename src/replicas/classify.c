/*
 * replicas/classify.c -- node classification of replicated layouts (seed
 * 003, section 5, first stage), distributed: no rank sees the whole mesh.
 *
 * [0, nglobal) is cut into P file-order domains (collio__domain_range),
 * domain d on rank d. Every rank describes what it holds as runs --
 * consecutive elements at consecutive stream positions, all owned or all
 * not -- cut at domain boundaries, 3 words each (first element << 1 |
 * owned, length, first stream position), and sends each run to its
 * domain's rank in one all-to-all; the sender is known from where a
 * run lands. A mesh part's owned nodes form long runs and its halo is a
 * small fraction of them, so the volume is O(runs + halo copies), not
 * O(elements). Each domain rank records every element's owner (and where
 * it sits in the owner's stream) and, in a CSR list, its other holders:
 * a counting sort by element, sources taken in rank order, so each list
 * comes out in increasing rank order with no comparison sort. It checks
 * that every element is held and owned by exactly one holder, no rank
 * holding it twice. Memory per rank: O(its runs + its domain's N/P
 * elements and their halo copies).
 *
 * collio__repl_tell then answers the holders of the replicated elements
 * only -- who writes the element, and where it sits in the writer's
 * stream; an unreplicated element is written by its owner, who needs no
 * answer.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "replicas/replicas.h"

#include <limits.h>
#include <string.h>

enum { RUN_WORDS = 3 }; /* first << 1 | owned, length, first stream position */

void collio__repl_dom_free(collio__repl_dom *d)
{
    free(d->owner);
    free(d->opos);
    free(d->hstart);
    free(d->holder);
    free(d->hpos);
    memset(d, 0, sizeof *d);
}

/* Calls emit(first, len, pos, owned) for every run of l's stream: a
 * segment's blocks split where `owned` changes and at domain boundaries. */
typedef void (*run_fn)(void *arg, int q, int64_t x, int64_t len, int64_t pos, int owned);

static void for_each_run(const collio_layout *l, const collio__ext *e, int64_t ne,
                         run_fn emit, void *arg)
{
    int P = l->nranks;
    for (int64_t i = 0; i < ne; i++) {
        int64_t t = 0;
        while (t < e[i].len) {
            int64_t x = e[i].off + t, pos = e[i].mem + t;
            int own = l->owned[pos] ? 1 : 0, q = collio__domain_of(l->nglobal, P, x);
            int64_t lo, hi, len = 1;
            collio__domain_range(l->nglobal, P, q, &lo, &hi);
            while (t + len < e[i].len && x + len < hi
                   && (l->owned[pos + len] ? 1 : 0) == own)
                len++;
            emit(arg, q, x, len, pos, own);
            t += len;
        }
    }
}

typedef struct pack_ctx {
    int *count; /* runs per domain rank */
    int *fill;  /* NULL: counting pass */
    const int *displ;
    int64_t *buf;
} pack_ctx;

static void pack_run(void *arg, int q, int64_t x, int64_t len, int64_t pos, int owned)
{
    pack_ctx *c = arg;
    if (c->fill == NULL) {
        c->count[q]++;
        return;
    }
    int64_t *w = c->buf + RUN_WORDS * (c->displ[q] + c->fill[q]++);
    w[0] = x << 1 | owned;
    w[1] = len;
    w[2] = pos;
}

/* Sender side: runs grouped by domain rank (two passes: count, place). */
static int pack_runs(const collio_layout *l, int *scount, int *sdispl, int64_t **sbuf)
{
    collio__ext *e;
    int64_t ne, nsent = 0;
    int rc = collio__segs_flatten(l->segs, l->nsegs, &e, &ne);
    if (rc)
        return rc;
    pack_ctx c = {scount, NULL, sdispl, NULL};
    for_each_run(l, e, ne, pack_run, &c);
    rc = collio__displs(scount, sdispl, l->nranks, &nsent);
    c.fill = calloc((size_t)(l->nranks > 0 ? l->nranks : 1), sizeof *c.fill);
    *sbuf = rc == COLLIO_OK
                ? calloc((size_t)(nsent > 0 ? nsent : 1) * RUN_WORDS, sizeof **sbuf)
                : NULL;
    if (rc == COLLIO_OK && (!c.fill || !*sbuf))
        rc = COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        c.buf = *sbuf;
        for_each_run(l, e, ne, pack_run, &c);
    }
    free(c.fill);
    free(e);
    return rc;
}

/* Domain side: owners from the owned runs, the other holders' CSR from
 * the rest (count, then place, sources in rank order), then the checks,
 * whose text names the element and the ranks. */
static int build_domain(collio__repl_dom *d, const int64_t *rbuf, const int *rcount,
                        const int *rdispl)
{
    int64_t n = d->hi - d->lo;
    d->owner = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->owner);
    d->opos = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->opos);
    d->hstart = calloc((size_t)n + 1, sizeof *d->hstart);
    if (!d->owner || !d->opos || !d->hstart)
        return COLLIO_ERR_NOMEM;
    int rc = COLLIO_OK;
    for (int64_t j = 0; j < n; j++)
        d->owner[j] = -1;
    int64_t nhalo = 0;
    for (int q = 0; q < d->nranks; q++)
        for (int i = 0; i < rcount[q]; i++) {
            const int64_t *w = rbuf + RUN_WORDS * (rdispl[q] + i);
            int64_t j0 = (w[0] >> 1) - d->lo;
            for (int64_t t = 0; t < w[1]; t++) {
                if (!(w[0] & 1)) {
                    d->hstart[j0 + t + 1]++;
                    nhalo++;
                } else if (d->owner[j0 + t] >= 0) {
                    int32_t o = d->owner[j0 + t];
                    if (rc == COLLIO_OK) {
                        rc = COLLIO_ERR_OVERLAP;
                        if (o == q)
                            collio__error_set(rc, "element %lld is held twice by rank %d",
                                              (long long)(d->lo + j0 + t), q);
                        else
                            collio__error_set(
                                rc, "element %lld is owned by two ranks, %d and %d",
                                (long long)(d->lo + j0 + t), o, q);
                    }
                } else {
                    d->owner[j0 + t] = q;
                    d->opos[j0 + t] = w[2] + t;
                }
            }
        }
    for (int64_t j = 0; j < n; j++)
        d->hstart[j + 1] += d->hstart[j];
    d->holder = malloc((size_t)(nhalo > 0 ? nhalo : 1) * sizeof *d->holder);
    d->hpos = malloc((size_t)(nhalo > 0 ? nhalo : 1) * sizeof *d->hpos);
    int64_t *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!d->holder || !d->hpos || !fill) {
        free(fill);
        return COLLIO_ERR_NOMEM;
    }
    for (int q = 0; q < d->nranks; q++)
        for (int i = 0; i < rcount[q]; i++) {
            const int64_t *w = rbuf + RUN_WORDS * (rdispl[q] + i);
            if (w[0] & 1)
                continue;
            int64_t j0 = (w[0] >> 1) - d->lo;
            for (int64_t t = 0; t < w[1]; t++) {
                int64_t j = j0 + t, k = d->hstart[j] + fill[j]++;
                if ((k > d->hstart[j] && d->holder[k - 1] == q) || d->owner[j] == q) {
                    if (rc == COLLIO_OK) {
                        rc = COLLIO_ERR_OVERLAP;
                        collio__error_set(rc, "element %lld is held twice by rank %d",
                                          (long long)(d->lo + j), q);
                    }
                }
                d->holder[k] = q;
                d->hpos[k] = w[2] + t;
            }
        }
    free(fill);
    for (int64_t j = 0; j < n && rc == COLLIO_OK; j++) {
        int64_t nh = d->hstart[j + 1] - d->hstart[j];
        d->nreplicated += nh > 0;
        if (d->owner[j] >= 0)
            continue;
        rc = COLLIO_ERR_COVERAGE;
        if (nh == 0)
            collio__error_set(rc, "element %lld is held by no rank",
                              (long long)(d->lo + j));
        else
            collio__error_set(rc,
                              "element %lld is held by %lld rank(s), from %d, but "
                              "owned by none",
                              (long long)(d->lo + j), (long long)nh,
                              d->holder[d->hstart[j]]);
    }
    return rc;
}

int collio__repl_classify(MPI_Comm comm, const collio_layout *l, collio__repl_dom *d)
{
    memset(d, 0, sizeof *d);
    int P = l->nranks;
    int64_t *sbuf = NULL, *rbuf = NULL, nrecv = 0;
    d->nranks = P;
    collio__domain_range(l->nglobal, P, l->rank, &d->lo, &d->hi);
    int *cnt = calloc((size_t)4 * (size_t)P, sizeof *cnt);
    int rc = cnt ? COLLIO_OK : COLLIO_ERR_NOMEM;
    int *scount = cnt, *sdispl = cnt ? cnt + P : NULL;
    int *rcount = cnt ? cnt + 2 * P : NULL, *rdispl = cnt ? cnt + 3 * P : NULL;
    if (rc == COLLIO_OK)
        rc = pack_runs(l, scount, sdispl, &sbuf);
    rc = collio__alltoall_records(comm, rc, sbuf, RUN_WORDS, scount, sdispl, rcount,
                                  rdispl, &rbuf, &nrecv);
    if (rc == COLLIO_OK)
        rc = build_domain(d, rbuf, rcount, rdispl);
    /* An overlap found in one domain takes precedence over a gap found in
     * another (a duplicate usually leaves an element unheld elsewhere), as
     * for plain index lists (collio__layout_validate): otherwise the code
     * would depend on where P puts the domain boundaries. */
    int gap = rc == COLLIO_ERR_COVERAGE;
    rc = collio__agree(comm, gap ? COLLIO_OK : rc);
    if (rc == COLLIO_OK)
        rc = collio__agree(comm, gap ? COLLIO_ERR_COVERAGE : COLLIO_OK);
    free(sbuf);
    free(rbuf);
    free(cnt);
    if (rc != COLLIO_OK)
        collio__repl_dom_free(d);
    return rc;
}

/* Collective: every holder of a replicated element learns its writer and
 * the element's position in the writer's stream (value = position * P +
 * writer, at out[the holder's own position]); other entries of out are
 * left alone. One all-to-all of (position, value) pairs. */
int collio__repl_tell(MPI_Comm comm, const collio__repl_dom *d, const int32_t *writer,
                      int64_t *out, int64_t nout)
{
    int P = d->nranks;
    int64_t n = d->hi - d->lo, nsend = 0, nrecv = 0;
    int *cnt = calloc((size_t)5 * (size_t)P, sizeof *cnt);
    int *scount = cnt, *sdispl = cnt ? cnt + P : NULL, *rcount = cnt ? cnt + 2 * P : NULL,
        *rdispl = cnt ? cnt + 3 * P : NULL, *fill = cnt ? cnt + 4 * P : NULL;
    int rc = cnt ? COLLIO_OK : COLLIO_ERR_NOMEM;
    for (int64_t j = 0; rc == COLLIO_OK && j < n; j++)
        if (d->hstart[j + 1] > d->hstart[j]) {
            scount[d->owner[j]]++;
            for (int64_t k = d->hstart[j]; k < d->hstart[j + 1]; k++)
                scount[d->holder[k]]++;
        }
    if (rc == COLLIO_OK)
        rc = collio__displs(scount, sdispl, P, &nsend);
    int64_t *sbuf = malloc((size_t)(nsend > 0 ? nsend : 1) * 2 * sizeof *sbuf),
            *rbuf = NULL;
    if (rc == COLLIO_OK && !sbuf)
        rc = COLLIO_ERR_NOMEM;
    for (int64_t j = 0; rc == COLLIO_OK && j < n; j++) {
        if (d->hstart[j + 1] == d->hstart[j])
            continue;
        int64_t wpos = d->opos[j];
        for (int64_t k = d->hstart[j]; k < d->hstart[j + 1]; k++)
            if (d->holder[k] == writer[j])
                wpos = d->hpos[k];
        int64_t v = wpos * P + writer[j];
        int64_t *w = sbuf + 2 * (sdispl[d->owner[j]] + fill[d->owner[j]]++);
        w[0] = d->opos[j];
        w[1] = v;
        for (int64_t k = d->hstart[j]; k < d->hstart[j + 1]; k++) {
            w = sbuf + 2 * (sdispl[d->holder[k]] + fill[d->holder[k]]++);
            w[0] = d->hpos[k];
            w[1] = v;
        }
    }
    rc = collio__alltoall_records(comm, rc, sbuf, 2, scount, sdispl, rcount, rdispl,
                                  &rbuf, &nrecv);
    for (int64_t i = 0; rc == COLLIO_OK && i < nrecv; i++) {
        if (rbuf[2 * i] < 0 || rbuf[2 * i] >= nout)
            rc = COLLIO_ERR_MPI; /* a position this rank never sent: a bug */
        else
            out[rbuf[2 * i]] = rbuf[2 * i + 1];
    }
    free(cnt);
    free(sbuf);
    free(rbuf);
    return collio__agree(comm, rc);
}
