/*
 * replicas_classify.c -- node classification of replicated layouts (seed
 * 003, section 5, first stage), distributed: no rank sees the whole mesh.
 *
 * [0, nglobal) is cut into P file-order domains (collio__domain_range),
 * domain d on rank d. Every rank sends one 8-byte tuple per element it
 * holds, (index << 1 | owned), to the element's domain rank with one
 * MPI_Alltoallv; the sender is known from where the tuple lands. Each
 * domain rank sorts what it got by (element, rank) into a CSR list of
 * holders per element, checks that every element is held and owned by
 * exactly one holder, and keeps where each tuple came from so that it can
 * answer every holder about every element (collio__repl_answer: one more
 * Alltoallv, the same counts reversed). Memory per rank: O(its elements +
 * the holders of its domain's nglobal/P elements).
 */
#include "collio_internal.h"

#include <limits.h>
#include <string.h>

typedef struct {
    int64_t idx, pos;
} idx_pos;

typedef struct {
    int64_t idx, slot;
    int32_t rank, owned;
} tuple;

static int cmp_idx_pos(const void *a, const void *b)
{
    const idx_pos *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_tuple(const void *a, const void *b)
{
    const tuple *x = a, *y = b;
    if (x->idx != y->idx)
        return (x->idx > y->idx) - (x->idx < y->idx);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void collio__repl_dom_free(collio__repl_dom *d)
{
    free(d->hstart);
    free(d->holder);
    free(d->owner);
    free(d->slot);
    free(d->scount);
    free(d->sdispl);
    free(d->rcount);
    free(d->rdispl);
    free(d->spos);
    memset(d, 0, sizeof *d);
}

/* Local: this rank's elements sorted by index, with their stream
 * positions; an element held twice by this rank is an error. */
static int local_sorted(const collio_layout *l, idx_pos **out)
{
    collio__ext *e;
    int64_t ne;
    int rc = collio__segs_flatten(l->segs, l->nsegs, &e, &ne);
    if (rc)
        return rc;
    idx_pos *v = malloc((size_t)(l->nlocal > 0 ? l->nlocal : 1) * sizeof *v);
    if (!v) {
        free(e);
        return COLLIO_ERR_NOMEM;
    }
    int64_t n = 0;
    for (int64_t i = 0; i < ne; i++)
        for (int64_t t = 0; t < e[i].len; t++)
            v[n++] = (idx_pos){e[i].off + t, e[i].mem + t};
    free(e);
    qsort(v, (size_t)n, sizeof *v, cmp_idx_pos);
    for (int64_t i = 1; i < n && rc == COLLIO_OK; i++)
        if (v[i].idx == v[i - 1].idx) {
            rc = COLLIO_ERR_OVERLAP;
            collio__error_set(rc, "element %lld is held twice by this rank",
                              (long long)v[i].idx);
        }
    *out = v;
    return rc;
}

/* Displacements from counts; COLLIO_ERR_OVERFLOW past INT_MAX. */
static int displs_of(const int *count, int *displ, int P, int64_t *total)
{
    int64_t t = 0;
    for (int q = 0; q < P; q++) {
        if (t > INT_MAX - count[q])
            return COLLIO_ERR_OVERFLOW;
        displ[q] = (int)t;
        t += count[q];
    }
    *total = t;
    return COLLIO_OK;
}

/* Sender side: tuples grouped by domain rank (increasing index inside). */
static int pack_tuples(const collio_layout *l, const idx_pos *v, collio__repl_dom *d,
                       int64_t **sbuf)
{
    int P = l->nranks;
    for (int64_t i = 0; i < l->nlocal; i++)
        d->scount[collio__domain_of(l->nglobal, P, v[i].idx)]++;
    int rc = displs_of(d->scount, d->sdispl, P, &d->nsent);
    if (rc)
        return rc;
    *sbuf = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * sizeof **sbuf);
    d->spos = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * sizeof *d->spos);
    if (!*sbuf || !d->spos)
        return COLLIO_ERR_NOMEM;
    /* v is sorted and domains are contiguous: the order is already by
     * domain, so position i is send slot i */
    for (int64_t i = 0; i < l->nlocal; i++) {
        (*sbuf)[i] = v[i].idx << 1 | (l->owned[v[i].pos] ? 1 : 0);
        d->spos[i] = v[i].pos;
    }
    return COLLIO_OK;
}

/* Domain side: CSR of holders and the checks. Error text names the
 * element and the ranks. */
static int build_csr(collio__repl_dom *d, tuple *t, int64_t nt)
{
    int64_t n = d->hi - d->lo;
    d->hstart = calloc((size_t)n + 1, sizeof *d->hstart);
    d->holder = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *d->holder);
    d->owner = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->owner);
    d->slot = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *d->slot);
    if (!d->hstart || !d->holder || !d->owner || !d->slot)
        return COLLIO_ERR_NOMEM;
    qsort(t, (size_t)nt, sizeof *t, cmp_tuple);
    int rc = COLLIO_OK;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t x = d->lo + j;
        d->hstart[j] = k;
        d->owner[j] = -1;
        int64_t k0 = k;
        for (; k < nt && t[k].idx == x; k++) {
            d->holder[k] = t[k].rank;
            d->slot[k] = t[k].slot;
            if (!t[k].owned)
                continue;
            if (d->owner[j] >= 0 && rc == COLLIO_OK) {
                rc = COLLIO_ERR_OVERLAP;
                collio__error_set(rc, "element %lld is owned by two ranks, %d and %d",
                                  (long long)x, d->owner[j], t[k].rank);
            }
            d->owner[j] = t[k].rank;
        }
        if (k - k0 > 1)
            d->nreplicated++;
        if (rc == COLLIO_OK && k == k0) {
            rc = COLLIO_ERR_COVERAGE;
            collio__error_set(rc, "element %lld is held by no rank", (long long)x);
        } else if (rc == COLLIO_OK && d->owner[j] < 0) {
            rc = COLLIO_ERR_COVERAGE;
            collio__error_set(rc,
                              "element %lld is held by %lld rank(s), from %d, "
                              "but owned by none",
                              (long long)x, (long long)(k - k0), t[k0].rank);
        }
    }
    d->hstart[n] = k;
    return rc;
}

int collio__repl_classify(MPI_Comm comm, const collio_layout *l, collio__repl_dom *d)
{
    memset(d, 0, sizeof *d);
    int P = l->nranks;
    idx_pos *v = NULL;
    int64_t *sbuf = NULL, *rbuf = NULL;
    tuple *t = NULL;
    collio__domain_range(l->nglobal, P, l->rank, &d->lo, &d->hi);
    d->scount = calloc((size_t)P, sizeof *d->scount);
    d->sdispl = calloc((size_t)P, sizeof *d->sdispl);
    d->rcount = calloc((size_t)P, sizeof *d->rcount);
    d->rdispl = calloc((size_t)P, sizeof *d->rdispl);
    int rc =
        d->scount && d->sdispl && d->rcount && d->rdispl ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK)
        rc = local_sorted(l, &v);
    if (rc == COLLIO_OK)
        rc = pack_tuples(l, v, d, &sbuf);
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK)
        rc = displs_of(d->rcount, d->rdispl, P, &d->nrecv);
    if (rc == COLLIO_OK) {
        rbuf = malloc((size_t)(d->nrecv > 0 ? d->nrecv : 1) * sizeof *rbuf);
        t = malloc((size_t)(d->nrecv > 0 ? d->nrecv : 1) * sizeof *t);
        if (!rbuf || !t)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoallv(sbuf, d->scount, d->sdispl, MPI_INT64_T, rbuf, d->rcount,
                         d->rdispl, MPI_INT64_T, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK) {
        for (int q = 0; q < P; q++)
            for (int i = 0; i < d->rcount[q]; i++) {
                int64_t s = d->rdispl[q] + i;
                t[s] = (tuple){rbuf[s] >> 1, s, q, (int32_t)(rbuf[s] & 1)};
            }
        rc = build_csr(d, t, d->nrecv);
    }
    rc = collio__agree(comm, rc);
    free(v);
    free(sbuf);
    free(rbuf);
    free(t);
    if (rc != COLLIO_OK)
        collio__repl_dom_free(d);
    return rc;
}

int collio__repl_answer(MPI_Comm comm, const collio__repl_dom *d,
                        const int32_t *per_entry, int32_t *out)
{
    int32_t *ans = malloc((size_t)(d->nrecv > 0 ? d->nrecv : 1) * sizeof *ans);
    int32_t *back = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * sizeof *back);
    int rc = ans && back ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK)
        for (int64_t k = 0; k < d->nrecv; k++)
            ans[d->slot[k]] = per_entry[k];
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoallv(ans, d->rcount, d->rdispl, MPI_INT32_T, back, d->scount,
                         d->sdispl, MPI_INT32_T, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK)
        for (int64_t i = 0; i < d->nsent; i++)
            out[d->spos[i]] = back[i];
    free(ans);
    free(back);
    return collio__agree(comm, rc);
}
