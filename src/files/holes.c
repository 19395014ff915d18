/*
 * files/holes.c -- data access of plans on sparse extents layouts
 * (layouts/extents.c). The strategies see the data packed without its
 * holes; each request they make, [off, off + n) packed bytes, is cut at
 * the ends of the held runs and issued at the runs' file offsets. A hole
 * inside a request is never read-modify-written: the request ends there
 * and the next run starts another, unless the hole is bridged (below). A
 * dense layout has one run and keeps no map: no cost there.
 *
 * Bridging. A held run of a few bytes is a system call of its own, which
 * about what copying a few KiB does (a bx = 1 vector with every 4th
 * element a hole: 1.4 million calls of 12 bytes at 8 ranks took 2.4 s,
 * docs/benchmarks.md "sparse"). So a small hole (below) between two runs
 * of one request joins them into one vector call:
 *  - reading, its bytes are read into f->sink and dropped (reading a byte
 *    no rank holds changes nothing);
 *  - writing, only where no call on the file has written yet
 *    (f->fresh_from: a CREATE file's temporary, beyond every earlier
 *    call's data), its bytes are written as zeros -- what they are there
 *    already, as nobody holds them in this call. Anywhere else (INPLACE,
 *    an earlier call's region) a hole is never written.
 */
#include "layouts/layouts.h"
#include "files/files.h"

/* The longest hole bridged: writing, and reading (a buffered write call
 * costs several times a read one here: ext4 updates the inode's times and
 * its journal at each). A read request bridges holes of SINK_BYTES in all
 * at most (f->sink: each hole its own bytes of it, as MPI-IO's memory
 * types must not overlap in a read; small enough to come from the heap,
 * not a fresh mapping that faults in at every file's first read). */
#define BRIDGE_WRITE_BYTES ((int64_t)16 << 10)
#define BRIDGE_READ_BYTES ((int64_t)4 << 10)
#define SINK_BYTES ((int64_t)64 << 10)
/* Entries of one request, at most (its holes bridged): what one vector
 * system call takes (Linux's IOV_MAX), so that a domain of millions of
 * runs never needs an array of millions of entries. */
#define REQUEST_IOV 1024

static const char zeros[BRIDGE_WRITE_BYTES];

/* A growing array of iovec entries: one request's. */
typedef struct vec {
    struct iovec *v;
    int n, cap;
} vec;

static int vec_push(vec *q, void *base, size_t len)
{
    if (len == 0)
        return COLLIO_OK;
    if (q->n == q->cap) {
        int cap = q->cap > 0 ? 2 * q->cap : 64;
        struct iovec *v = realloc(q->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return COLLIO_ERR_NOMEM;
        q->v = v;
        q->cap = cap;
    }
    q->v[q->n++] = (struct iovec){base, len};
    return COLLIO_OK;
}

/* Appends the entries covering the next n bytes of iov (cursor *i, *in:
 * entry and offset inside it, advanced past them). */
static int take_iov(const struct iovec *iov, int niov, int *i, size_t *in, size_t n,
                    vec *out)
{
    int rc = COLLIO_OK;
    while (n > 0 && *i < niov && rc == COLLIO_OK) {
        size_t left = iov[*i].iov_len - *in;
        size_t take = n < left ? n : left;
        rc = vec_push(out, (char *)iov[*i].iov_base + *in, take);
        n -= take;
        *in += take;
        if (*in == iov[*i].iov_len) {
            (*i)++;
            *in = 0;
        }
    }
    return rc;
}

/* Whether the hole before run r (r >= 1) is bridged in this request,
 * `sunk` bytes of f->sink taken by its earlier holes; its bytes in *gap. */
static int bridged(collio_file *f, int64_t r, int writing, int64_t sunk, int64_t *gap)
{
    const collio__holes *h = f->holes;
    const int64_t es = (int64_t)h->esize, end = h->off[r - 1] + h->len[r - 1];
    *gap = (h->off[r] - end) * es;
    if (*gap > (writing ? BRIDGE_WRITE_BYTES : BRIDGE_READ_BYTES))
        return 0;
    int64_t at; /* the hole's first byte in the file */
    if (writing)
        return collio__file_abs(f, end * es, (size_t)*gap, &at) == COLLIO_OK
               && at >= f->fresh_from;
    if (sunk + *gap > SINK_BYTES)
        return 0;
    if (f->sink == NULL)
        f->sink = malloc((size_t)SINK_BYTES);
    return f->sink != NULL;
}

int collio__file_holes_access(collio_file *f, int64_t off, const struct iovec *iov,
                              int niov, int writing)
{
    const collio__holes *h = f->holes;
    const int64_t es = (int64_t)h->esize;
    size_t total = 0;
    for (int k = 0; k < niov; k++)
        total += iov[k].iov_len;
    int rc = writing && f->mode == COLLIO_FILE_READ ? COLLIO_ERR_STATE : COLLIO_OK;
    /* strategies move whole elements: offsets and sizes are multiples */
    if (rc == COLLIO_OK && (off < 0 || off % es != 0 || total % (size_t)es != 0))
        rc = COLLIO_ERR_ARG;
    int64_t a = off / es, left = (int64_t)total / es;
    int64_t r = rc == COLLIO_OK && left > 0 ? collio__holes_run_of_packed(h, a) : 0;
    int i = 0;
    size_t in = 0;
    vec q = {0};
    while (rc == COLLIO_OK && left > 0) { /* one request: runs and bridged holes */
        q.n = 0;
        int64_t start = 0, sunk = 0;
        for (int first = 1; rc == COLLIO_OK; first = 0) {
            if (r >= h->n || a < h->cum[r] || a >= h->cum[r] + h->len[r]) {
                rc = COLLIO_ERR_ARG; /* beyond the data: a strategy's bug */
                break;
            }
            int64_t take = h->cum[r] + h->len[r] - a;
            if (take > left)
                take = left;
            if (first)
                rc = collio__file_abs(f, (h->off[r] + (a - h->cum[r])) * es,
                                      (size_t)(take * es), &start);
            if (rc == COLLIO_OK)
                rc = take_iov(iov, niov, &i, &in, (size_t)(take * es), &q);
            a += take;
            left -= take;
            if (left == 0 || ++r >= h->n)
                break;
            int64_t gap;
            if (rc != COLLIO_OK || q.n >= REQUEST_IOV
                || !bridged(f, r, writing, sunk, &gap))
                break; /* the next run starts the next request */
            rc = vec_push(&q, writing ? (void *)zeros : f->sink + sunk, (size_t)gap);
            if (!writing)
                sunk += gap;
        }
        if (rc == COLLIO_OK)
            rc = writing ? f->ops->pwritev(f, start, q.v, q.n)
                         : f->ops->preadv(f, start, q.v, q.n);
    }
    free(q.v);
    if (rc != COLLIO_OK && writing && rc != COLLIO_ERR_STATE)
        f->failed = 1;
    return rc;
}
