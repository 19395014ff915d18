/*
 * access.c -- a strategy's byte access to a file: offsets relative to the
 * data start (opts.base_offset added, with overflow checks: collio__file_abs),
 * through a sparse layout's holes where the call has them (files/holes.c),
 * and a failed write failing the file (no commit at collio_file_close).
 */
#include "base/base.h"
#include "files/files.h"

#include <stdint.h>

static size_t iov_bytes(const struct iovec *iov, int niov, int *ok)
{
    size_t total = 0;
    *ok = niov >= 0 && (niov == 0 || iov != NULL);
    for (int i = 0; *ok && i < niov; i++) {
        if (iov[i].iov_len > SIZE_MAX - total)
            *ok = 0;
        else
            total += iov[i].iov_len;
    }
    return total;
}

int collio__file_write_at(collio_file *f, int64_t off, const void *buf, size_t n)
{
    if (f->holes != NULL) {
        struct iovec v = {(void *)buf, n};
        return collio__file_holes_access(f, off, &v, 1, 1);
    }
    int64_t abs;
    int rc = f->mode == COLLIO_FILE_READ ? COLLIO_ERR_STATE
                                         : collio__file_abs(f, off, n, &abs);
    if (rc == COLLIO_OK)
        rc = f->ops->pwrite(f, abs, buf, n);
    if (rc != COLLIO_OK && rc != COLLIO_ERR_STATE)
        f->failed = 1; /* any failed write, even a bad offset: no commit */
    return rc;
}

int collio__file_read_at(collio_file *f, int64_t off, void *buf, size_t n)
{
    if (f->holes != NULL) {
        struct iovec v = {buf, n};
        return collio__file_holes_access(f, off, &v, 1, 0);
    }
    int64_t abs;
    int rc = collio__file_abs(f, off, n, &abs);
    if (rc == COLLIO_OK)
        rc = f->ops->pread(f, abs, buf, n);
    return rc;
}

int collio__file_writev_at(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    if (f->holes != NULL)
        return collio__file_holes_access(f, off, iov, niov, 1);
    int ok;
    size_t n = iov_bytes(iov, niov, &ok);
    int64_t abs;
    int rc = f->mode == COLLIO_FILE_READ ? COLLIO_ERR_STATE
             : !ok                       ? COLLIO_ERR_ARG
                                         : collio__file_abs(f, off, n, &abs);
    if (rc == COLLIO_OK)
        rc = f->ops->pwritev(f, abs, iov, niov);
    if (rc != COLLIO_OK && rc != COLLIO_ERR_STATE)
        f->failed = 1;
    return rc;
}

int collio__file_readv_at(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    if (f->holes != NULL)
        return collio__file_holes_access(f, off, iov, niov, 0);
    int ok;
    size_t n = iov_bytes(iov, niov, &ok);
    int64_t abs;
    int rc = !ok ? COLLIO_ERR_ARG : collio__file_abs(f, off, n, &abs);
    if (rc == COLLIO_OK)
        rc = f->ops->preadv(f, abs, iov, niov);
    return rc;
}
