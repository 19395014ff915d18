/*
 * file_holes.c -- data access of plans on sparse extents layouts
 * (layout_extents.c). The strategies see the data packed without its
 * holes; each request they make, [off, off + n) packed bytes, is cut at
 * the ends of the held runs and issued at the runs' file offsets. Bytes
 * no rank holds are never written or read: a writer's domain request
 * becomes one request per run it meets, never a read-modify-write over a
 * hole (a dense layout has one run and keeps no map: no cost there).
 */
#include "collio_internal.h"

/* The iovec entries covering bytes [at, at + n) of iov (cursor *i, *in:
 * entry and offset inside it, advanced past them), into out[]. Returns
 * the number of entries written. */
static int take_iov(const struct iovec *iov, int niov, int *i, size_t *in, size_t n,
                    struct iovec *out)
{
    int k = 0;
    while (n > 0 && *i < niov) {
        size_t left = iov[*i].iov_len - *in;
        size_t take = n < left ? n : left;
        if (take > 0)
            out[k++] = (struct iovec){(char *)iov[*i].iov_base + *in, take};
        n -= take;
        *in += take;
        if (*in == iov[*i].iov_len) {
            (*i)++;
            *in = 0;
        }
    }
    return k;
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
    struct iovec *sub = malloc((size_t)(niov > 0 ? niov : 1) * sizeof *sub);
    if (rc == COLLIO_OK && sub == NULL)
        rc = COLLIO_ERR_NOMEM;
    int64_t a = off / es, left = (int64_t)total / es;
    int64_t r = rc == COLLIO_OK && left > 0 ? collio__holes_run_of_packed(h, a) : 0;
    int i = 0;
    size_t in = 0;
    while (rc == COLLIO_OK && left > 0) {
        if (r >= h->n || a < h->cum[r] || a >= h->cum[r] + h->len[r]) {
            rc = COLLIO_ERR_ARG; /* beyond the data: a strategy's bug */
            break;
        }
        int64_t run_left = h->cum[r] + h->len[r] - a;
        int64_t take = left < run_left ? left : run_left;
        int nsub = take_iov(iov, niov, &i, &in, (size_t)(take * es), sub);
        int64_t abs;
        rc = collio__file_abs(f, (h->off[r] + (a - h->cum[r])) * es, (size_t)(take * es),
                              &abs);
        if (rc == COLLIO_OK)
            rc = writing ? f->ops->pwritev(f, abs, sub, nsub)
                         : f->ops->preadv(f, abs, sub, nsub);
        a += take;
        left -= take;
        r++;
    }
    free(sub);
    if (rc != COLLIO_OK && writing && rc != COLLIO_ERR_STATE)
        f->failed = 1;
    return rc;
}
