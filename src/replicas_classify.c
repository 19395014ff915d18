/*
 * replicas_classify.c -- node classification of replicated layouts (seed
 * 003, section 5, first stage), distributed: no rank sees the whole mesh.
 *
 * [0, nglobal) is cut into P file-order domains (collio__domain_range),
 * domain d on rank d. Every rank sends one 16-byte tuple per element it
 * holds, (index << 1 | owned, its stream position), to the element's
 * domain rank with one MPI_Alltoallv; the sender is known from where the
 * tuple lands. Each domain rank counting-sorts what it got by element
 * (sources in rank order, so holders come out in rank order: no
 * comparison sort anywhere) into a CSR list of holders per element, checks that every
 * element is held and owned by exactly one holder, and keeps where each tuple came from
 * so that it can answer every holder about every element (collio__repl_answer: one more
 * Alltoallv, the same counts reversed). Memory per rank: O(its elements +
 * the holders of its domain's nglobal/P elements).
 */
#include "collio_internal.h"

#include <limits.h>
#include <string.h>

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
    free(d->hpos);
    memset(d, 0, sizeof *d);
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

/* Sender side: tuples grouped by domain rank, in stream order inside a
 * group (a counting sort by destination: no comparisons). */
static int pack_tuples(const collio_layout *l, collio__repl_dom *d, int64_t **sbuf)
{
    int P = l->nranks;
    collio__ext *e;
    int64_t ne;
    int rc = collio__segs_flatten(l->segs, l->nsegs, &e, &ne);
    if (rc)
        return rc;
    for (int64_t i = 0; i < ne; i++)
        for (int64_t t = 0; t < e[i].len; t++)
            d->scount[collio__domain_of(l->nglobal, P, e[i].off + t)]++;
    rc = displs_of(d->scount, d->sdispl, P, &d->nsent);
    int *fill = calloc((size_t)P, sizeof *fill);
    *sbuf = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * 2 * sizeof **sbuf);
    d->spos = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * sizeof *d->spos);
    if (rc == COLLIO_OK && (!fill || !*sbuf || !d->spos))
        rc = COLLIO_ERR_NOMEM;
    for (int64_t i = 0; rc == COLLIO_OK && i < ne; i++)
        for (int64_t t = 0; t < e[i].len; t++) {
            int64_t x = e[i].off + t, pos = e[i].mem + t;
            int q = collio__domain_of(l->nglobal, P, x);
            int64_t s = d->sdispl[q] + fill[q]++;
            (*sbuf)[2 * s] = x << 1 | (l->owned[pos] ? 1 : 0);
            (*sbuf)[2 * s + 1] = pos;
            d->spos[s] = pos;
        }
    free(fill);
    free(e);
    return rc;
}

/* Domain side: the CSR of holders by a counting sort over the domain's
 * elements (no comparisons); taking the sources in rank order leaves each
 * element's holders in increasing rank order. Then the checks, whose
 * error text names the element and the ranks. */
static int build_csr(collio__repl_dom *d, const int64_t *rbuf)
{
    int64_t n = d->hi - d->lo, nt = d->nrecv;
    d->hstart = calloc((size_t)n + 1, sizeof *d->hstart);
    d->holder = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *d->holder);
    d->owner = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->owner);
    d->slot = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *d->slot);
    d->hpos = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *d->hpos);
    int64_t *fill = calloc((size_t)n + 1, sizeof *fill);
    int rc = d->hstart && d->holder && d->owner && d->slot && d->hpos && fill
                 ? COLLIO_OK
                 : COLLIO_ERR_NOMEM;
    if (rc != COLLIO_OK) {
        free(fill);
        return rc;
    }
    for (int64_t k = 0; k < nt; k++)
        d->hstart[(rbuf[2 * k] >> 1) - d->lo + 1]++;
    for (int64_t j = 0; j < n; j++) {
        d->hstart[j + 1] += d->hstart[j];
        d->owner[j] = -1;
    }
    for (int q = 0; q < d->nranks; q++)
        for (int i = 0; i < d->rcount[q]; i++) {
            int64_t s = d->rdispl[q] + i, x = rbuf[2 * s] >> 1, j = x - d->lo;
            int64_t k = d->hstart[j] + fill[j]++;
            if (k > d->hstart[j] && d->holder[k - 1] == q && rc == COLLIO_OK) {
                rc = COLLIO_ERR_OVERLAP;
                collio__error_set(rc, "element %lld is held twice by rank %d",
                                  (long long)x, q);
            }
            d->holder[k] = q;
            d->slot[k] = s;
            d->hpos[k] = rbuf[2 * s + 1];
            if (!(rbuf[2 * s] & 1))
                continue;
            if (d->owner[j] >= 0 && rc == COLLIO_OK) {
                rc = COLLIO_ERR_OVERLAP;
                collio__error_set(rc, "element %lld is owned by two ranks, %d and %d",
                                  (long long)x, d->owner[j], q);
            }
            d->owner[j] = q;
        }
    for (int64_t j = 0; j < n && rc == COLLIO_OK; j++) {
        int64_t nh = d->hstart[j + 1] - d->hstart[j];
        d->nreplicated += nh > 1;
        if (nh == 0) {
            rc = COLLIO_ERR_COVERAGE;
            collio__error_set(rc, "element %lld is held by no rank",
                              (long long)(d->lo + j));
        } else if (d->owner[j] < 0) {
            rc = COLLIO_ERR_COVERAGE;
            collio__error_set(rc,
                              "element %lld is held by %lld rank(s), from %d, but "
                              "owned by none",
                              (long long)(d->lo + j), (long long)nh,
                              d->holder[d->hstart[j]]);
        }
    }
    free(fill);
    return rc;
}

int collio__repl_classify(MPI_Comm comm, const collio_layout *l, collio__repl_dom *d)
{
    memset(d, 0, sizeof *d);
    int P = l->nranks;
    int64_t *sbuf = NULL, *rbuf = NULL;
    d->nranks = P;
    collio__domain_range(l->nglobal, P, l->rank, &d->lo, &d->hi);
    d->scount = calloc((size_t)P, sizeof *d->scount);
    d->sdispl = calloc((size_t)P, sizeof *d->sdispl);
    d->rcount = calloc((size_t)P, sizeof *d->rcount);
    d->rdispl = calloc((size_t)P, sizeof *d->rdispl);
    int rc =
        d->scount && d->sdispl && d->rcount && d->rdispl ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK)
        rc = pack_tuples(l, d, &sbuf);
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoall(d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK)
        rc = displs_of(d->rcount, d->rdispl, P, &d->nrecv);
    if (rc == COLLIO_OK) {
        rbuf = malloc((size_t)(d->nrecv > 0 ? d->nrecv : 1) * 2 * sizeof *rbuf);
        if (!rbuf)
            rc = COLLIO_ERR_NOMEM;
    }
    rc = collio__agree(comm, rc);
    MPI_Datatype pair = MPI_DATATYPE_NULL; /* one tuple: 2 x int64 */
    if (rc == COLLIO_OK
        && (MPI_Type_contiguous(2, MPI_INT64_T, &pair) != MPI_SUCCESS
            || MPI_Type_commit(&pair) != MPI_SUCCESS
            || MPI_Alltoallv(sbuf, d->scount, d->sdispl, pair, rbuf, d->rcount, d->rdispl,
                             pair, comm)
                   != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    if (pair != MPI_DATATYPE_NULL)
        MPI_Type_free(&pair);
    if (rc == COLLIO_OK)
        rc = build_csr(d, rbuf);
    rc = collio__agree(comm, rc);
    free(sbuf);
    free(rbuf);
    if (rc != COLLIO_OK)
        collio__repl_dom_free(d);
    return rc;
}

int collio__repl_answer(MPI_Comm comm, const collio__repl_dom *d,
                        const int64_t *per_entry, int64_t *out)
{
    int64_t *ans = malloc((size_t)(d->nrecv > 0 ? d->nrecv : 1) * sizeof *ans);
    int64_t *back = malloc((size_t)(d->nsent > 0 ? d->nsent : 1) * sizeof *back);
    int rc = ans && back ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK)
        for (int64_t k = 0; k < d->nrecv; k++)
            ans[d->slot[k]] = per_entry[k];
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Alltoallv(ans, d->rcount, d->rdispl, MPI_INT64_T, back, d->scount,
                         d->sdispl, MPI_INT64_T, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK)
        for (int64_t i = 0; i < d->nsent; i++)
            out[d->spos[i]] = back[i];
    free(ans);
    free(back);
    return collio__agree(comm, rc);
}
