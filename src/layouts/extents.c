/*
 * layouts/extents.c -- sparse extents: each rank holds any number of file
 * extents, disjoint across ranks, not covering the file (what an MPI-IO
 * view describes: HDF5's metadata and other datasets lie between them).
 *
 * The strategies plan partitions of [0, nglobal), so the layout presents
 * one: the data packed without its holes. The held runs -- the union of
 * every rank's extents, coalesced, in file order -- are computed once here
 * and kept by every rank (collio__holes); the layout's segments index the
 * packed positions ("run r's elements at cum[r]..."). Every file access of
 * a plan on such a layout goes through the runs (files/holes.c): a writer
 * writes the parts of its file domain that some rank holds, never a
 * read-modify-write over a hole. A layout whose runs are one, starting at
 * element 0, has no holes: it is an ordinary partition and keeps no map.
 *
 * Construction: local extents sorted and coalesced; sent in pieces to the
 * owners of the file domains of [0, span) (as index lists are validated),
 * which check overlaps and coalesce their runs; the runs then gathered by
 * every rank (memory O(runs), bounded by COLLIO_EXTENTS_MAX_RUNS).
 */
#include "base/base.h"
#include "layouts/layouts.h"

#include <limits.h>
#include <string.h>

/* Local: sorted, coalesced file extents of this rank (mem unused);
 * OVERLAP when the rank holds an element twice. */
static int local_runs(int64_t n, const int64_t off[], const int64_t len[],
                      collio__ext **out, int64_t *nout)
{
    collio__ext *e = collio__bigbuf_alloc((size_t)(n > 0 ? n : 1) * sizeof *e);
    if (e == NULL)
        return COLLIO_ERR_NOMEM;
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (len[i] > 0)
            e[m++] = (collio__ext){off[i], len[i], 0};
    collio__exts_sort_by_off(e, m);
    int64_t j = -1;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < m; i++) {
        if (j >= 0 && e[i].off < e[j].off + e[j].len) {
            rc = COLLIO_ERR_OVERLAP;
            collio__error_set(rc, "element %lld is held twice by this rank",
                              (long long)e[i].off);
            break;
        }
        if (j >= 0 && e[i].off == e[j].off + e[j].len)
            e[j].len += e[i].len;
        else
            e[++j] = e[i];
    }
    *out = e;
    *nout = j + 1;
    return rc;
}

/* The domain owner's part: its pairs sorted, checked for overlap between
 * ranks, coalesced in place; returns the number of runs or -1 (OVERLAP). */
static int64_t domain_runs(int64_t *w, int64_t npairs, const int *rcount,
                           const int *rdispl, int P)
{
    collio__ext *e = collio__bigbuf_alloc((size_t)(npairs > 0 ? npairs : 1) * sizeof *e);
    if (e == NULL)
        return -2;
    collio__exts_merge_sorted(e, w, rcount, rdispl, P);
    int64_t j = -1;
    for (int64_t i = 0; i < npairs; i++) {
        if (j >= 0 && e[i].off < w[2 * j] + w[2 * j + 1]) {
            collio__error_set(COLLIO_ERR_OVERLAP, "element %lld is held by two ranks",
                              (long long)e[i].off);
            collio__bigbuf_free(e);
            return -1;
        }
        if (j >= 0 && e[i].off == w[2 * j] + w[2 * j + 1]) {
            w[2 * j + 1] += e[i].len;
        } else {
            j++;
            w[2 * j] = e[i].off;
            w[2 * j + 1] = e[i].len;
        }
    }
    collio__bigbuf_free(e);
    return j + 1;
}

/* Collective: every rank's runs (pairs w[0..2*nmine)) gathered on every
 * rank into h, coalesced across domain boundaries, with prefix sums. */
static int gather_runs(MPI_Comm comm, int rc, const int64_t *w, int64_t nmine,
                       collio__holes *h)
{
    int P;
    MPI_Comm_size(comm, &P);
    int64_t *cnt = calloc((size_t)P, sizeof *cnt);
    int *rc_n = calloc((size_t)P, sizeof *rc_n), *rd = calloc((size_t)P, sizeof *rd);
    int64_t *all = NULL, total = 0;
    if (rc == COLLIO_OK && (!cnt || !rc_n || !rd))
        rc = COLLIO_ERR_NOMEM;
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Allgather(&nmine, 1, MPI_INT64_T, cnt, 1, MPI_INT64_T, comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    for (int q = 0; q < P && rc == COLLIO_OK; q++)
        total += cnt[q];
    if (rc == COLLIO_OK && total > COLLIO_EXTENTS_MAX_RUNS) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc,
                          "collio_layout_extents: the extents of all ranks form %lld "
                          "separate runs, more than COLLIO_EXTENTS_MAX_RUNS (%lld)",
                          (long long)total, (long long)COLLIO_EXTENTS_MAX_RUNS);
    }
    for (int q = 0; q < P && rc == COLLIO_OK; q++)
        rc_n[q] = (int)(2 * cnt[q]); /* 2 * 2^22 fits an int */
    int64_t words = 0;
    if (rc == COLLIO_OK)
        rc = collio__displs(rc_n, rd, P, &words);
    if (rc == COLLIO_OK && (all = malloc((size_t)(words > 0 ? words : 1) * 8)) == NULL)
        rc = COLLIO_ERR_NOMEM;
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Allgatherv(w, (int)(2 * nmine), MPI_INT64_T, all, rc_n, rd, MPI_INT64_T,
                          comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK) {
        int64_t n = total > 0 ? total : 1;
        h->off = malloc((size_t)n * sizeof *h->off);
        h->len = malloc((size_t)n * sizeof *h->len);
        h->cum = malloc((size_t)n * sizeof *h->cum);
        if (!h->off || !h->len || !h->cum)
            rc = COLLIO_ERR_NOMEM;
    }
    int64_t m = 0, held = 0;
    for (int64_t i = 0; rc == COLLIO_OK && i < total; i++) {
        int64_t o = all[2 * i], l = all[2 * i + 1];
        if (m > 0 && h->off[m - 1] + h->len[m - 1] == o) {
            h->len[m - 1] += l; /* a run across a domain boundary */
        } else {
            h->off[m] = o;
            h->len[m] = l;
            h->cum[m] = held;
            m++;
        }
        held += l;
    }
    h->n = m;
    h->held = held;
    h->span = m > 0 ? h->off[m - 1] + h->len[m - 1] : 0;
    free(cnt);
    free(rc_n);
    free(rd);
    free(all);
    return collio__agree(comm, rc);
}

/* Collective: the held runs of every rank's extents (local runs e[0..ne)). */
static int held_runs(MPI_Comm comm, int rc, const collio__ext *e, int64_t ne,
                     collio__holes *h)
{
    int P;
    MPI_Comm_size(comm, &P);
    int64_t end = ne > 0 ? e[ne - 1].off + e[ne - 1].len : 0, span = 0;
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK
        && MPI_Allreduce(&end, &span, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    int64_t *cnt = calloc((size_t)P, sizeof *cnt), *sbuf = NULL, *rbuf = NULL, nrecv = 0;
    int *sc = calloc((size_t)P, sizeof *sc), *sd = calloc((size_t)P, sizeof *sd);
    int *rcn = calloc((size_t)P, sizeof *rcn), *rd = calloc((size_t)P, sizeof *rd);
    if (rc == COLLIO_OK && (!cnt || !sc || !sd || !rcn || !rd))
        rc = COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK && span > 0) {
        collio__exts_to_domains(e, ne, span, P, cnt, NULL, NULL);
        int64_t tot = 0;
        for (int q = 0; q < P && rc == COLLIO_OK; q++) {
            if (cnt[q] > INT_MAX || tot > INT_MAX - cnt[q])
                rc = COLLIO_ERR_OVERFLOW;
            sd[q] = (int)tot;
            sc[q] = (int)cnt[q];
            tot += cnt[q];
        }
        if (rc == COLLIO_OK
            && (sbuf = collio__bigbuf_alloc((size_t)(tot > 0 ? tot : 1) * 16)) == NULL)
            rc = COLLIO_ERR_NOMEM;
        if (rc == COLLIO_OK) {
            memset(cnt, 0, (size_t)P * sizeof *cnt);
            collio__exts_to_domains(e, ne, span, P, cnt, sd, sbuf);
        }
    }
    rc = collio__alltoall_records(comm, rc, sbuf, 2, sc, sd, rcn, rd, &rbuf, &nrecv);
    int64_t mine = 0;
    if (rc == COLLIO_OK) {
        mine = domain_runs(rbuf, nrecv, rcn, rd, P);
        rc = mine == -1 ? COLLIO_ERR_OVERLAP : mine < 0 ? COLLIO_ERR_NOMEM : COLLIO_OK;
    }
    rc = gather_runs(comm, rc, rbuf, mine > 0 ? mine : 0, h);
    free(cnt);
    collio__bigbuf_free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rcn);
    free(rd);
    return rc;
}

/* Local argument checks. */
static int check_extents(int64_t n, const int64_t off[], const int64_t len[],
                         size_t esize)
{
    const char *fn = "collio_layout_extents";
    if (n < 0 || (n > 0 && (off == NULL || len == NULL)) || esize < 1) {
        collio__error_set(COLLIO_ERR_ARG, "%s: %s", fn,
                          n < 0       ? "n is negative"
                          : esize < 1 ? "esize is 0"
                                      : "off or len is NULL with n > 0");
        return COLLIO_ERR_ARG;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t end, bytes;
        if (off[i] < 0 || len[i] < 0) {
            collio__error_set(COLLIO_ERR_ARG, "%s: %s[%lld] = %lld is negative", fn,
                              off[i] < 0 ? "off" : "len", (long long)i,
                              (long long)(off[i] < 0 ? off[i] : len[i]));
            return COLLIO_ERR_ARG;
        }
        if (esize > INT64_MAX || collio__add_i64(off[i], len[i], &end)
            || collio__mul_i64(end, (int64_t)esize, &bytes)) {
            collio__error_set(COLLIO_ERR_OVERFLOW,
                              "%s: extent %lld ends beyond 64 bits of bytes", fn,
                              (long long)i);
            return COLLIO_ERR_OVERFLOW;
        }
    }
    return COLLIO_OK;
}

/* Local: this rank's extents, in buffer order, as packed positions. */
static int packed_segs(int64_t n, const int64_t off[], const int64_t len[],
                       const collio__holes *h, collio__segvec *sv)
{
    int64_t mem = 0;
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < n && rc == COLLIO_OK; i++) {
        if (len[i] == 0)
            continue;
        int64_t r = collio__holes_run_of(h, off[i]); /* an extent lies in one run */
        rc = collio__segvec_push(sv, h->cum[r] + (off[i] - h->off[r]), len[i], mem);
        mem += len[i];
    }
    return rc;
}

int collio_layout_extents(MPI_Comm comm, int64_t n, const int64_t off[],
                          const int64_t len[], size_t esize, collio_layout **out)
{
    int rc = collio__layout_begin(comm, out, "collio_layout_extents");
    if (rc != COLLIO_OK)
        return rc;
    rc = out == NULL ? collio__layout_no_out("collio_layout_extents")
                     : check_extents(n, off, len, esize);
    int mism = collio__check_same_i64(comm, (int64_t)esize, "esize");
    collio__ext *e = NULL;
    int64_t ne = 0;
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = local_runs(n, off, len, &e, &ne);
    collio__holes *h = calloc(1, sizeof *h);
    if (rc == COLLIO_OK && h == NULL)
        rc = COLLIO_ERR_NOMEM;
    if (mism == COLLIO_OK)
        rc = held_runs(comm, rc, e, ne, h);
    collio__bigbuf_free(e);
    collio_layout *l = NULL;
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = collio__layout_new(comm, COLLIO__LAYOUT_EXTENTS, h->held, esize, &l);
    collio__segvec sv = {0};
    if (rc == COLLIO_OK && mism == COLLIO_OK)
        rc = packed_segs(n, off, len, h, &sv);
    if (rc == COLLIO_OK && mism == COLLIO_OK) {
        h->esize = esize;
        if (h->n > 1 || (h->n == 1 && h->off[0] > 0)) {
            l->holes = h; /* the layout frees it from here on */
            h = NULL;
        }
    }
    collio__holes_free(&h);
    rc = collio__layout_conclude(comm, &l, &sv, rc, mism);
    if (out != NULL)
        *out = l;
    return rc;
}
