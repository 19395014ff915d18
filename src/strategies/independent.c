/*
 * independent.c -- "independent" list I/O: every rank accesses its own
 * pieces of the file, no communication at all.
 *
 * Algorithm. Inspector (once per plan): the rank's elements as extents
 * (file range, stream position) sorted by file offset and coalesced when
 * contiguous in both file and stream. A file_ordered layout (stream order
 * = increasing file order, e.g. block-cyclic, darray) needs no copy: its
 * strided segments already enumerate the extents in file order, so the
 * plan keeps only the segments. Executor: walk the extents in file order;
 * a run of extents that is contiguous in the FILE but scattered in the
 * stream becomes one vectored request (pwritev/preadv through
 * collio__file_writev_at) of at most hint independent.max_iov pieces; every other
 * extent is one pwrite/pread.
 *
 * Cost per execution on a rank: 0 messages, 0 bytes moved between ranks;
 * file requests = number of file-contiguous runs (about nlocal/bx for a
 * block-cyclic layout with P > 1: list I/O degrades for small blocks,
 * which is why the collective strategies exist); file bytes = nlocal*esize.
 *
 * Source: list I/O as the non-collective baseline of seed 000 (its Fig. 7
 * chooses between list I/O and two-phase) and seed 004.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"

#include <limits.h>
#include <string.h>

typedef struct indep_plan {
    collio__ext *exts; /* sorted + coalesced extents; NULL: walk the segments */
    int64_t nexts;
    struct iovec *iov; /* scratch for one request */
    int64_t max_iov;   /* entries of iov */
} indep_plan;

/* The strategy's options (hints "independent.NAME"). */
enum { OPT_MAX_IOV };
static const collio__option indep_options[] = {
    [OPT_MAX_IOV] = {"max_iov", COLLIO__OPT_INT, 1024, 1, INT64_MAX, NULL, NULL,
                     "file requests (pieces) per vectored batch"},
};

static int indep_plan_create(collio_plan *p)
{
    const collio_layout *l = p->layout;
    indep_plan *ip = calloc(1, sizeof *ip);
    p->impl = ip;
    if (ip == NULL)
        return COLLIO_ERR_NOMEM;
    int64_t nblocks = 0;
    if (l->file_ordered) {
        for (int64_t i = 0; i < l->nsegs; i++)
            nblocks += l->segs[i].count;
    } else {
        int rc = collio__segs_flatten(l->segs, l->nsegs, &ip->exts, &ip->nexts);
        if (rc != COLLIO_OK)
            return rc;
        collio__exts_sort_by_off(ip->exts, ip->nexts);
        ip->nexts = collio__exts_coalesce(ip->exts, ip->nexts);
        nblocks = ip->nexts;
    }
    int64_t max_iov = collio__opt(p, OPT_MAX_IOV);
    ip->max_iov = max_iov < nblocks ? max_iov : nblocks;
    if (ip->max_iov > INT_MAX)
        ip->max_iov = INT_MAX; /* pwritev counts pieces in an int */
    if (ip->max_iov < 1)
        ip->max_iov = 1;
    ip->iov = malloc((size_t)ip->max_iov * sizeof *ip->iov);
    if (ip->iov == NULL)
        return COLLIO_ERR_NOMEM;
    p->stats.plan_bytes = (int64_t)(sizeof *ip + (size_t)ip->nexts * sizeof *ip->exts
                                    + (size_t)ip->max_iov * sizeof *ip->iov);
    return COLLIO_OK;
}

/* One request being built: file elements [off, end), niov pieces. */
typedef struct request {
    collio_plan *p;
    collio_file *f;
    int writing;
    char *stream;
    int64_t off, end;
    int niov;
    int rc; /* first error; after it nothing more is issued */
} request;

static void flush(request *r)
{
    if (r->niov == 0)
        return;
    indep_plan *ip = r->p->impl;
    int64_t at = r->off * (int64_t)r->p->layout->esize;
    int rc;
    if (r->niov == 1)
        rc =
            r->writing
                ? collio__file_write_at(r->f, at, ip->iov[0].iov_base, ip->iov[0].iov_len)
                : collio__file_read_at(r->f, at, ip->iov[0].iov_base, ip->iov[0].iov_len);
    else
        rc = r->writing ? collio__file_writev_at(r->f, at, ip->iov, r->niov)
                        : collio__file_readv_at(r->f, at, ip->iov, r->niov);
    r->p->stats.file_requests += 1;
    r->p->stats.file_bytes += (r->end - r->off) * (int64_t)r->p->layout->esize;
    if (rc != COLLIO_OK && r->rc == COLLIO_OK)
        r->rc = rc;
    r->niov = 0;
}

/* Adds file elements [off, off+len) at stream element mem (file order). */
static void add(request *r, int64_t off, int64_t len, int64_t mem)
{
    indep_plan *ip = r->p->impl;
    size_t es = r->p->layout->esize;
    char *base = r->stream + (size_t)mem * es;
    size_t bytes = (size_t)len * es;
    if (r->niov > 0 && off == r->end) {
        struct iovec *last = &ip->iov[r->niov - 1];
        if ((char *)last->iov_base + last->iov_len == base) {
            last->iov_len += bytes; /* contiguous in file and stream */
            r->end += len;
            return;
        }
        if (r->niov < ip->max_iov) {
            ip->iov[r->niov].iov_base = base;
            ip->iov[r->niov].iov_len = bytes;
            r->niov++;
            r->end += len;
            return;
        }
    }
    flush(r);
    r->off = off;
    r->end = off + len;
    ip->iov[0].iov_base = base;
    ip->iov[0].iov_len = bytes;
    r->niov = 1;
}

static int indep_exec(collio_plan *p, collio_file *f, char *stream, int writing)
{
    const indep_plan *ip = p->impl;
    const collio_layout *l = p->layout;
    request r = {.p = p, .f = f, .writing = writing, .stream = stream};
    double t0 = collio__now();
    if (ip->exts != NULL) {
        for (int64_t i = 0; i < ip->nexts && r.rc == COLLIO_OK; i++)
            add(&r, ip->exts[i].off, ip->exts[i].len, ip->exts[i].mem);
    } else {
        for (int64_t i = 0; i < l->nsegs && r.rc == COLLIO_OK; i++) {
            const collio__seg *s = &l->segs[i];
            for (int64_t k = 0; k < s->count && r.rc == COLLIO_OK; k++)
                add(&r, s->off + k * s->stride, s->len, s->mem + k * s->len);
        }
    }
    if (r.rc == COLLIO_OK)
        flush(&r);
    p->stats.file_s += collio__now() - t0;
    return r.rc;
}

static int indep_write(collio_plan *p, collio_file *f, const char *stream)
{
    /* The stream is only read from: iovecs need non-const pointers. */
    return indep_exec(p, f, (char *)stream, 1);
}

static int indep_read(collio_plan *p, collio_file *f, char *stream)
{
    return indep_exec(p, f, stream, 0);
}

static void indep_free(collio_plan *p)
{
    indep_plan *ip = p->impl;
    if (ip != NULL) {
        free(ip->exts);
        free(ip->iov);
        free(ip);
    }
    p->impl = NULL;
}

/* As a candidate of auto (machine/cost.h): every rank writes its pieces
 * itself, pieces_max * list_request * cpu + bytes_total / file_Bps, at the
 * mean piece size (bytes_max / pieces_max). */
static double indep_terms(const collio__cost *m, const collio__cost_shape *s, int arg)
{
    (void)arg;
    double piece = s->pieces_max > 0 ? s->bytes_max / s->pieces_max : 0;
    return s->pieces_max * collio__cost_list_request(m, piece) * m->cpu + m->file_bytes;
}

static const collio__candidate indep_candidates[] = {
    {.label = "independent", .floor = "independent", .base = 1, .terms = indep_terms},
};

const collio__strategy collio__strategy_independent = {
    .section = {"independent", indep_options, 1, NULL, 0},
    .summary = "list I/O: each rank writes its own coalesced extents "
               "(vectored, batched), no communication",
    .canonical = 1,
    .light_plan = 1, /* the sorted extents at most, and max_iov iovecs */
    .plan = indep_plan_create,
    .write = indep_write,
    .read = indep_read,
    .free = indep_free,
    .cost_terms = (const char *const[]){"independent.call", NULL},
    .candidates = indep_candidates,
    .ncandidates = 1,
};
