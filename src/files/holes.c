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
 *
 * Staging. A vector call takes IOV_MAX (1024) entries: a request of runs
 * of a few elements and their bridged holes ends after some 500 runs --
 * 28 KiB of a history file's 48-byte runs -- and each such call is a
 * round trip on a networked file system (a FUSE request, an RPC). So a
 * request whose first run is short (below STAGE_RUN_BYTES) is gathered into
 * f->stage, up to STAGE_BYTES, and written with one call (read with one
 * and scattered): a copy of its bytes where the kernel copies them anyway,
 * against ~36x fewer calls. (20 variables of a sparse 16-process map at
 * 16 ranks on the GlusterFS testbed: docs/requests.md.)
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
/* Staged requests: those whose first run is shorter than STAGE_RUN_BYTES,
 * up to STAGE_BYTES each (the size of a large FUSE write, a Lustre RPC).
 * Runs of 512 bytes or more fill a vector call with 256 KiB or more:
 * there the copy costs more than the calls it saves (runs of 3 KiB staged
 * took 1.3-1.6x as long at 8 ranks on one node, docs/benchmarks.md). */
#define STAGE_RUN_BYTES ((int64_t)512)
#define STAGE_BYTES ((int64_t)1 << 20)

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
 * `sunk` bytes of f->sink taken by its earlier holes (staged: none used);
 * its bytes in *gap. */
static int bridged(collio_file *f, int64_t r, int writing, int staged, int64_t sunk,
                   int64_t *gap)
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
    if (staged)
        return 1;
    if (sunk + *gap > SINK_BYTES)
        return 0;
    if (f->sink == NULL)
        f->sink = malloc((size_t)SINK_BYTES);
    return f->sink != NULL;
}

/* Whether a request starting with a run of `bytes` is staged (f->stage
 * made here; without memory, not staged). */
static int staging(collio_file *f, int64_t bytes)
{
    if (bytes >= STAGE_RUN_BYTES)
        return 0;
    if (f->stage == NULL)
        f->stage = malloc((size_t)STAGE_BYTES);
    return f->stage != NULL;
}

/* One staged request of `bytes` at file byte start: its entries (data,
 * and `zeros` for bridged holes) gathered into f->stage and written, or
 * read into it and scattered (holes dropped). */
static int staged_access(collio_file *f, int64_t start, const vec *q, size_t bytes,
                         int writing)
{
    struct iovec one = {f->stage, bytes};
    size_t at = 0;
    if (writing)
        for (int k = 0; k < q->n; at += q->v[k].iov_len, k++)
            memcpy(f->stage + at, q->v[k].iov_base, q->v[k].iov_len);
    int rc =
        writing ? f->ops->pwritev(f, start, &one, 1) : f->ops->preadv(f, start, &one, 1);
    if (!writing && rc == COLLIO_OK)
        for (int k = 0; k < q->n; at += q->v[k].iov_len, k++)
            if (q->v[k].iov_base != (void *)zeros)
                memcpy(q->v[k].iov_base, f->stage + at, q->v[k].iov_len);
    return rc;
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
        int64_t start = 0, sunk = 0, bytes = 0;
        int staged = 0;
        for (int first = 1; rc == COLLIO_OK; first = 0) {
            if (r >= h->n || a < h->cum[r] || a >= h->cum[r] + h->len[r]) {
                rc = COLLIO_ERR_ARG; /* beyond the data: a strategy's bug */
                break;
            }
            int64_t take = h->cum[r] + h->len[r] - a;
            if (take > left)
                take = left;
            if (first) {
                staged = staging(f, take * es);
                rc = collio__file_abs(f, (h->off[r] + (a - h->cum[r])) * es,
                                      (size_t)(take * es), &start);
            }
            if (rc == COLLIO_OK)
                rc = take_iov(iov, niov, &i, &in, (size_t)(take * es), &q);
            a += take;
            left -= take;
            bytes += take * es;
            if (left == 0 || ++r >= h->n)
                break;
            int64_t gap, next = (h->len[r] < left ? h->len[r] : left) * es;
            if (rc != COLLIO_OK || (!staged && q.n >= REQUEST_IOV)
                || (staged && next >= STAGE_RUN_BYTES)
                || !bridged(f, r, writing, staged, sunk, &gap)
                || (staged && bytes + gap + next > STAGE_BYTES))
                break; /* the next run starts the next request */
            rc = vec_push(&q, writing || staged ? (void *)zeros : f->sink + sunk,
                          (size_t)gap);
            bytes += gap;
            if (!writing && !staged)
                sunk += gap;
        }
        if (rc == COLLIO_OK && staged)
            rc = staged_access(f, start, &q, (size_t)bytes, writing);
        else if (rc == COLLIO_OK)
            rc = writing ? f->ops->pwritev(f, start, q.v, q.n)
                         : f->ops->preadv(f, start, q.v, q.n);
    }
    free(q.v);
    if (rc != COLLIO_OK && writing && rc != COLLIO_ERR_STATE)
        f->failed = 1;
    return rc;
}
