/*
 * layout.c -- what every layout kind shares: allocation, the memory side
 * (packed stream, full-size global array, or an MPI datatype), accessors,
 * stream <-> buffer packing, and the collective validator.
 *
 * A layout is this rank's list of segments in stream (buffer) order; the
 * constructors in layout_*.c fill it. Positions and lengths are in elements,
 * bounds half-open [start, end).
 *
 * Validation (only index lists need it; the other kinds are partitions by
 * construction) is distributed so that no rank ever holds more than its
 * share: [0, nglobal) is cut into P contiguous domains, every rank sends
 * its sorted, merged extents -- cut at domain boundaries -- to the domain
 * owners (collio__alltoall_records), and each owner sorts what it received and
 * sweeps its domain for overlaps and gaps. Cost: O(n log) local work, one
 * Alltoall + one Alltoallv moving 16 bytes per extent, a few Allreduces.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ lifecycle */

int collio__layout_begin(MPI_Comm comm, collio_layout **out, const char *fn)
{
    collio__error_begin();
    if (out != NULL)
        *out = NULL;
    int rc = collio__mpi_usable(fn);
    if (rc == COLLIO_OK && comm == MPI_COMM_NULL) {
        rc = COLLIO_ERR_ARG; /* no communicator to tell the others: local */
        collio__error_set(rc, "%s: comm is MPI_COMM_NULL", fn);
    }
    return rc;
}

int collio__layout_no_out(const char *fn)
{
    collio__error_set(COLLIO_ERR_ARG, "%s: out is NULL", fn);
    return COLLIO_ERR_ARG;
}

int collio__layout_new(MPI_Comm comm, collio__layout_kind kind, int64_t nglobal,
                       size_t esize, collio_layout **out)
{
    *out = NULL;
    collio_layout *l = calloc(1, sizeof *l);
    if (!l)
        return COLLIO_ERR_NOMEM;
    l->group = MPI_GROUP_NULL;
    if (MPI_Comm_rank(comm, &l->rank) != MPI_SUCCESS
        || MPI_Comm_size(comm, &l->nranks) != MPI_SUCCESS
        || MPI_Comm_group(comm, &l->group) != MPI_SUCCESS) {
        free(l);
        return COLLIO_ERR_MPI;
    }
    l->kind = kind;
    l->nglobal = nglobal;
    l->esize = esize;
    l->mem_kind = COLLIO__MEM_PACKED;
    l->mem_type = MPI_DATATYPE_NULL;
    *out = l;
    return COLLIO_OK;
}

int collio__layout_clone(const collio_layout *in, collio_layout **out)
{
    *out = NULL;
    collio_layout *l = malloc(sizeof *l);
    if (!l)
        return COLLIO_ERR_NOMEM;
    *l = *in;
    l->segs = NULL;
    l->mem_type = MPI_DATATYPE_NULL;
    l->group = MPI_GROUP_NULL; /* the plan that owns the clone has its comm */
    if (in->nsegs > 0) {
        l->segs = malloc((size_t)in->nsegs * sizeof(collio__seg));
        if (!l->segs) {
            free(l);
            return COLLIO_ERR_NOMEM;
        }
        memcpy(l->segs, in->segs, (size_t)in->nsegs * sizeof(collio__seg));
    }
    l->owned = NULL;
    l->holes = NULL;
    if (collio__holes_clone(in->holes, &l->holes) != COLLIO_OK) {
        free(l->segs);
        free(l);
        return COLLIO_ERR_NOMEM;
    }
    if (in->owned != NULL) { /* non-NULL marks a replicated layout, also empty */
        l->owned = malloc((size_t)(in->nlocal > 0 ? in->nlocal : 1));
        if (!l->owned) {
            collio__holes_free(&l->holes);
            free(l->segs);
            free(l);
            return COLLIO_ERR_NOMEM;
        }
        if (in->nlocal > 0)
            memcpy(l->owned, in->owned, (size_t)in->nlocal);
    }
    if (in->mem_type != MPI_DATATYPE_NULL
        && MPI_Type_dup(in->mem_type, &l->mem_type) != MPI_SUCCESS) {
        collio__holes_free(&l->holes);
        free(l->owned);
        free(l->segs);
        free(l);
        return COLLIO_ERR_MPI;
    }
    *out = l;
    return COLLIO_OK;
}

int collio__layout_finish(collio_layout *l)
{
    int64_t n = 0, bytes;
    l->file_ordered = 1;
    int64_t prev_end = INT64_MIN;
    for (int64_t i = 0; i < l->nsegs; i++) {
        const collio__seg *s = &l->segs[i];
        int64_t e, span;
        if (collio__mul_i64(s->len, s->count, &e) || collio__add_i64(n, e, &n))
            return COLLIO_ERR_OVERFLOW;
        /* file end of the segment: off + (count-1)*stride + len */
        if (collio__mul_i64(s->count - 1, s->stride, &span)
            || collio__add_i64(span, s->off, &span)
            || collio__add_i64(span, s->len, &span))
            return COLLIO_ERR_OVERFLOW;
        if (s->off < prev_end)
            l->file_ordered = 0;
        prev_end = span;
    }
    l->nlocal = n;
    if (l->esize > INT64_MAX || collio__mul_i64(n, (int64_t)l->esize, &bytes)
        || collio__mul_i64(l->nglobal, (int64_t)l->esize, &bytes))
        return COLLIO_ERR_OVERFLOW;
    l->mem_bytes = (size_t)n * l->esize;
    return COLLIO_OK;
}

void collio_layout_free(collio_layout **layout)
{
    if (!layout || !*layout)
        return;
    collio_layout *l = *layout;
    /* both frees are local; after MPI_Finalize the handles are gone */
    if (collio__mpi_alive()) {
        if (l->mem_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&l->mem_type);
        if (l->group != MPI_GROUP_NULL)
            MPI_Group_free(&l->group);
    }
    free(l->segs);
    free(l->owned);
    collio__holes_free(&l->holes);
    free(l);
    *layout = NULL;
}

/* ------------------------------------------------------------ memory */

/* Records a local error of FN and returns its code. */
static int local_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int local_fail(int code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    collio__error_set(code, "%s", msg);
    return code;
}

int collio_layout_set_memory_global(collio_layout *l)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_layout_set_memory_global");
    if (rc != COLLIO_OK)
        return rc;
    if (!l)
        return local_fail(COLLIO_ERR_ARG,
                          "collio_layout_set_memory_global: layout is NULL");
    if (l->holes != NULL) /* a global array of a sparse file: pack it */
        return local_fail(COLLIO_ERR_ARG, "collio_layout_set_memory_global: the "
                                          "layout has holes (collio_layout_extents)");
    if (l->mem_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&l->mem_type);
    l->mem_kind = COLLIO__MEM_GLOBAL;
    l->mem_count = 0;
    l->mem_bytes = (size_t)l->nglobal * l->esize; /* checked in finish */
    return COLLIO_OK;
}

int collio_layout_set_memory_datatype(collio_layout *l, MPI_Datatype type, int count)
{
    static const char fn[] = "collio_layout_set_memory_datatype";
    collio__error_begin();
    int rc = collio__mpi_usable(fn);
    if (rc != COLLIO_OK)
        return rc;
    if (!l || type == MPI_DATATYPE_NULL || count < 0)
        return local_fail(COLLIO_ERR_ARG, "%s: %s", fn,
                          !l                          ? "layout is NULL"
                          : type == MPI_DATATYPE_NULL ? "type is MPI_DATATYPE_NULL"
                                                      : "count is negative");
    MPI_Count size, lb, extent, tlb, textent;
    if (MPI_Type_size_x(type, &size) != MPI_SUCCESS
        || MPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS
        || MPI_Type_get_true_extent_x(type, &tlb, &textent) != MPI_SUCCESS)
        return local_fail(COLLIO_ERR_MPI, "%s: the type's size or extent", fn);
    if (size == MPI_UNDEFINED || size < 0)
        return local_fail(COLLIO_ERR_ARG, "%s: the type has no defined size", fn);
    int64_t packed, want = l->nlocal * (int64_t)l->esize;
    if (collio__mul_i64((int64_t)size, count, &packed))
        return local_fail(COLLIO_ERR_OVERFLOW, "%s: count * the type's size overflows",
                          fn);
    if (packed != want)
        return local_fail(COLLIO_ERR_ARG,
                          "%s: count items of the type hold %lld bytes, the layout's "
                          "elements %lld",
                          fn, (long long)packed, (long long)want);
    /* span = true_lb + (count-1)*extent + true_extent; buffer starts at 0 */
    int64_t span = 0;
    if (count > 0) {
        if (tlb < 0 || (count > 1 && extent < 0))
            return local_fail(COLLIO_ERR_ARG,
                              "%s: the type reaches before the buffer's start", fn);
        if (collio__mul_i64(count - 1, (int64_t)extent, &span)
            || collio__add_i64(span, (int64_t)tlb, &span)
            || collio__add_i64(span, (int64_t)textent, &span))
            return local_fail(COLLIO_ERR_OVERFLOW, "%s: the buffer's span overflows", fn);
    }
    MPI_Datatype dup;
    if (MPI_Type_dup(type, &dup) != MPI_SUCCESS)
        return local_fail(COLLIO_ERR_MPI, "%s: MPI_Type_dup failed", fn);
    if (MPI_Type_commit(&dup) != MPI_SUCCESS) {
        MPI_Type_free(&dup);
        return local_fail(COLLIO_ERR_MPI, "%s: MPI_Type_commit failed", fn);
    }
    if (l->mem_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&l->mem_type);
    l->mem_kind = COLLIO__MEM_DATATYPE;
    l->mem_type = dup;
    l->mem_count = count;
    l->mem_bytes = (size_t)span;
    return COLLIO_OK;
}

/* ------------------------------------------------------------ accessors */

int64_t collio_layout_local_count(const collio_layout *l)
{
    return l ? l->nlocal : -1;
}

int64_t collio_layout_global_count(const collio_layout *l)
{
    return l ? l->nglobal : -1;
}

size_t collio_layout_esize(const collio_layout *l)
{
    return l ? l->esize : 0;
}

size_t collio_layout_buffer_bytes(const collio_layout *l)
{
    return l ? l->mem_bytes : 0;
}

/* Binary search for the segment whose stream range holds i. */
int64_t collio_layout_global_index(const collio_layout *l, int64_t i)
{
    if (!l || i < 0 || i >= l->nlocal || l->nsegs < 1)
        return -1;
    int64_t lo = 0, hi = l->nsegs; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (l->segs[mid].mem <= i)
            lo = mid;
        else
            hi = mid;
    }
    const collio__seg *s = &l->segs[lo];
    int64_t r = i - s->mem;
    int64_t at = s->off + (r / s->len) * s->stride + r % s->len;
    if (l->holes != NULL) { /* packed position -> file element */
        int64_t run = collio__holes_run_of_packed(l->holes, at);
        at = l->holes->off[run] + (at - l->holes->cum[run]);
    }
    return at;
}

/* ------------------------------------------------------- pack / unpack */

/* MEM_GLOBAL: copy every block between its stream position and its global
 * index in buf. dir 0: buf -> stream (pack), 1: stream -> buf (unpack). */
static void global_copy(const collio_layout *l, char *buf, char *stream, int dir)
{
    size_t es = l->esize;
    for (int64_t i = 0; i < l->nsegs; i++) {
        const collio__seg *s = &l->segs[i];
        size_t n = (size_t)s->len * es;
        for (int64_t k = 0; k < s->count; k++) {
            char *b = buf + (size_t)(s->off + k * s->stride) * es;
            char *m = stream + (size_t)(s->mem + k * s->len) * es;
            if (dir == 0)
                collio__copy(m, b, n);
            else
                collio__copy(b, m, n);
        }
    }
}

/* MEM_DATATYPE: MPI_Pack/Unpack in chunks of items small enough for int
 * positions (MPI 3.1 has no large-count pack). */
static int datatype_copy(const collio_layout *l, char *buf, char *stream, int dir)
{
    MPI_Count size, lb, extent;
    if (MPI_Type_size_x(l->mem_type, &size) != MPI_SUCCESS
        || MPI_Type_get_extent_x(l->mem_type, &lb, &extent) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    if (l->mem_count == 0 || size == 0)
        return COLLIO_OK;
    if (size > INT_MAX)
        return COLLIO_ERR_OVERFLOW;
    int per = (int)(INT_MAX / size);
    for (int done = 0; done < l->mem_count;) {
        int c = l->mem_count - done < per ? l->mem_count - done : per;
        char *b = buf + (int64_t)done * (int64_t)extent;
        char *m = stream + (int64_t)done * (int64_t)size;
        int pos = 0, bytes = (int)(c * size), err;
        if (dir == 0)
            err = MPI_Pack(b, c, l->mem_type, m, bytes, &pos, MPI_COMM_SELF);
        else
            err = MPI_Unpack(m, bytes, &pos, b, c, l->mem_type, MPI_COMM_SELF);
        if (err != MPI_SUCCESS)
            return COLLIO_ERR_MPI;
        done += c;
    }
    return COLLIO_OK;
}

int collio__layout_pack(const collio_layout *l, const void *buf, void *stream)
{
    switch (l->mem_kind) {
    case COLLIO__MEM_PACKED:
        if (l->nlocal > 0)
            collio__copy(stream, buf, (size_t)l->nlocal * l->esize);
        return COLLIO_OK;
    case COLLIO__MEM_GLOBAL:
        global_copy(l, (char *)buf, stream, 0);
        return COLLIO_OK;
    case COLLIO__MEM_DATATYPE:
        return datatype_copy(l, (char *)buf, stream, 0);
    }
    return COLLIO_ERR_ARG;
}

int collio__layout_unpack(const collio_layout *l, const void *stream, void *buf)
{
    switch (l->mem_kind) {
    case COLLIO__MEM_PACKED:
        if (l->nlocal > 0)
            collio__copy(buf, stream, (size_t)l->nlocal * l->esize);
        return COLLIO_OK;
    case COLLIO__MEM_GLOBAL:
        global_copy(l, buf, (char *)stream, 1);
        return COLLIO_OK;
    case COLLIO__MEM_DATATYPE:
        return datatype_copy(l, buf, (char *)stream, 1);
    }
    return COLLIO_ERR_ARG;
}

/* ------------------------------------------------------------ validate */

/* Domains: [0, n) cut into P contiguous pieces, the first n%P one longer
 * (collio__domain_range). dom_owner is its inverse: the q with i inside. */
static int dom_owner(int64_t n, int P, int64_t i)
{
    int64_t base = n / P, rem = n % P;
    int64_t big = rem * (base + 1); /* elements in the longer domains */
    if (i < big)
        return (int)(i / (base + 1));
    return (int)(rem + (i - big) / base);
}

/* Local part: flatten, sort by file offset, merge file-contiguous runs
 * (stream positions do not matter here), check range and local overlap. */
static int local_extents(const collio_layout *l, collio__ext **out, int64_t *nout)
{
    collio__ext *e;
    int64_t n;
    int rc = collio__segs_flatten(l->segs, l->nsegs, &e, &n);
    if (rc)
        return rc;
    collio__exts_sort_by_off(e, n);
    int64_t j = -1;
    for (int64_t i = 0; i < n; i++) {
        if (e[i].off < 0 || e[i].off > l->nglobal - e[i].len) {
            rc = COLLIO_ERR_RANGE;
            collio__error_set(
                rc, "element %lld is outside [0, %lld)",
                (long long)(e[i].off < 0 ? e[i].off : e[i].off + e[i].len - 1),
                (long long)l->nglobal);
        } else if (j >= 0 && e[i].off < e[j].off + e[j].len) {
            if (rc == COLLIO_OK) {
                rc = COLLIO_ERR_OVERLAP;
                collio__error_set(rc, "element %lld is held twice by this rank",
                                  (long long)e[i].off);
            }
        } else if (j >= 0 && e[i].off == e[j].off + e[j].len)
            e[j].len += e[i].len;
        else
            e[++j] = e[i];
        if (rc == COLLIO_ERR_RANGE)
            break;
    }
    *out = e;
    *nout = j + 1;
    return rc;
}

/* (layout.h) */
int64_t collio__exts_to_domains(const collio__ext *e, int64_t n, int64_t nglobal, int P,
                                int64_t *counts, const int *displs, int64_t *buf)
{
    int64_t pieces = 0, lo = 0, hi = 0; /* the domain of the last piece */
    int q = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a = e[i].off, end = e[i].off + e[i].len;
        while (a < end) {
            if (a < lo || a >= hi) { /* (sorted extents: only when crossing) */
                q = dom_owner(nglobal, P, a);
                collio__domain_range(nglobal, P, q, &lo, &hi);
            }
            int64_t b = end < hi ? end : hi;
            if (buf) {
                int64_t *w = buf + 2 * (displs[q] + counts[q]);
                w[0] = a;
                w[1] = b - a;
            }
            counts[q]++;
            pieces++;
            a = b;
        }
    }
    return pieces;
}

/* Owner part: sweep [lo, hi) with received (off, len) pairs. */
static int sweep_domain(const int64_t *w, int64_t npairs, const int *rcount,
                        const int *rdispl, int P, int64_t lo, int64_t hi, int *overlap,
                        int *gap)
{
    collio__ext *e = collio__bigbuf_alloc((size_t)(npairs > 0 ? npairs : 1) * sizeof *e);
    if (!e)
        return COLLIO_ERR_NOMEM;
    collio__exts_merge_sorted(e, w, rcount, rdispl, P);
    int64_t cur = lo;
    for (int64_t i = 0; i < npairs; i++) {
        if (e[i].off < cur && !*overlap) {
            *overlap = 1;
            collio__error_set(COLLIO_ERR_OVERLAP, "element %lld is held by two ranks",
                              (long long)e[i].off);
        } else if (e[i].off > cur && !*gap && !*overlap) {
            *gap = 1;
            collio__error_set(COLLIO_ERR_COVERAGE, "element %lld is held by no rank",
                              (long long)cur);
        }
        if (e[i].off + e[i].len > cur)
            cur = e[i].off + e[i].len;
    }
    if (cur < hi && !*gap && !*overlap) {
        *gap = 1;
        collio__error_set(COLLIO_ERR_COVERAGE, "element %lld is held by no rank",
                          (long long)cur);
    }
    collio__bigbuf_free(e);
    return COLLIO_OK;
}

int collio__layout_validate(MPI_Comm comm, const collio_layout *l)
{
    int P = l->nranks, me = l->rank;
    collio__ext *e = NULL;
    int64_t ne = 0, nrecv = 0;
    int *sc = NULL, *sd = NULL, *rcn = NULL, *rd = NULL;
    int64_t *cnt = NULL, *sbuf = NULL, *rbuf = NULL;
    int overlap = 0, gap = 0;

    /* 1. local: range, overlap within this rank, send counts that fit int */
    int rc = local_extents(l, &e, &ne);
    if (rc == COLLIO_OK) {
        cnt = calloc((size_t)P, sizeof *cnt);
        sc = calloc((size_t)P, sizeof *sc);
        sd = calloc((size_t)P, sizeof *sd);
        rcn = calloc((size_t)P, sizeof *rcn);
        rd = calloc((size_t)P, sizeof *rd);
        if (!cnt || !sc || !sd || !rcn || !rd)
            rc = COLLIO_ERR_NOMEM;
    }
    if (rc == COLLIO_OK) {
        collio__exts_to_domains(e, ne, l->nglobal, P, cnt, NULL, NULL);
        int64_t tot = 0;
        for (int q = 0; q < P; q++) {
            if (tot > INT_MAX - cnt[q]) {
                rc = COLLIO_ERR_OVERFLOW;
                break;
            }
            sd[q] = (int)tot;
            sc[q] = (int)cnt[q];
            tot += cnt[q];
        }
        if (rc == COLLIO_OK) {
            sbuf = malloc((size_t)(tot > 0 ? tot : 1) * 2 * sizeof(int64_t));
            if (!sbuf)
                rc = COLLIO_ERR_NOMEM;
        }
        if (rc == COLLIO_OK) {
            memset(cnt, 0, (size_t)P * sizeof *cnt);
            collio__exts_to_domains(e, ne, l->nglobal, P, cnt, sd, sbuf);
        }
    }

    /* 2. the (off, len) pairs to their domains' owners; sweep the own one */
    rc = collio__alltoall_records(comm, rc, sbuf, 2, sc, sd, rcn, rd, &rbuf, &nrecv);
    if (rc == COLLIO_OK) {
        int64_t lo, hi;
        collio__domain_range(l->nglobal, P, me, &lo, &hi);
        rc = sweep_domain(rbuf, nrecv, rcn, rd, P, lo, hi, &overlap, &gap);
        /* overlap takes precedence over the gaps it usually causes elsewhere */
        rc = collio__agree(comm, rc ? rc : overlap ? COLLIO_ERR_OVERLAP : COLLIO_OK);
        if (rc == COLLIO_OK)
            rc = collio__agree(comm, gap ? COLLIO_ERR_COVERAGE : COLLIO_OK);
    }
    free(e);
    free(cnt);
    free(sc);
    free(sd);
    free(rcn);
    free(rd);
    free(sbuf);
    free(rbuf);
    return rc;
}

/* The common end of every constructor: on local success hands the segments
 * to the layout and finishes it, then agrees across ranks (an agreed
 * MISMATCH wins over local errors); on failure frees the segments and the
 * layout. */
int collio__layout_conclude(MPI_Comm comm, collio_layout **l, collio__segvec *sv, int rc,
                            int mism)
{
    if (rc == COLLIO_OK && mism == COLLIO_OK && *l != NULL) {
        (*l)->segs = sv->v;
        (*l)->nsegs = sv->n;
        sv->v = NULL;
        sv->n = sv->cap = 0;
        rc = collio__layout_finish(*l);
    }
    collio__segvec_free(sv);
    /* a mismatch is the same on every rank and carries its own detail */
    rc = mism != COLLIO_OK ? mism : collio__agree(comm, rc);
    if (rc != COLLIO_OK)
        collio_layout_free(l);
    return rc;
}
