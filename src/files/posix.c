/*
 * files/posix.c -- the POSIX file backend: one file descriptor per rank,
 * pwrite/pread/pwritev/preadv at absolute byte offsets.
 *
 * Every transfer loops until all bytes are moved: a call is restarted after
 * EINTR, a short transfer continues where it stopped, and no single call
 * asks for more than CHUNK bytes (Linux moves at most ~2 GiB per call
 * anyway, and a cap keeps ssize_t arithmetic safe). Vector calls are cut
 * into batches of at most IOV_MAX entries.
 *
 * Reads whose destination lies in the kernel copy's 4 KiB aliasing window
 * (machine/alias.c) on a CPU that pays for it go through a bounce buffer of
 * BOUNCE bytes, one system call and one copy out per BOUNCE bytes.
 *
 * Errors: a read that finds end of file before the requested bytes gives
 * COLLIO_ERR_EOF; any other failure (ENOSPC, EIO, EFBIG, ...) gives
 * COLLIO_ERR_IO; open failures give COLLIO_ERR_OPEN. All calls are local.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "files/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define CHUNK ((size_t)1 << 30) /* bytes per system call, at most */
/* bytes per bounced read: half the L2 of the cores measured, so the
 * bounce is still in cache when copied out */
#define BOUNCE ((size_t)256 << 10)

/* Records the detail of a failed system call (collio_last_error) and
 * returns code. */
static int fail(int code, const char *what, const collio_file *f, int64_t off)
{
    int e = errno;
    if (off >= 0)
        collio__error_set(code, "%s at byte %lld of %s: %s", what, (long long)off,
                          collio__file_data_path(f),
                          code == COLLIO_ERR_EOF ? "end of file" : strerror(e));
    else
        collio__error_set(code, "%s %s: %s", what, f->path, strerror(e));
    return code;
}

static int posix_open(collio_file *f, const char *path, int create)
{
    int flags = (f->mode == COLLIO_FILE_READ ? O_RDONLY : O_RDWR) | O_CLOEXEC;
    if (create)
        flags |= O_CREAT; /* never O_TRUNC: INPLACE keeps existing bytes */
    int fd;
    do {
        fd = open(path, flags, 0666);
    } while (fd < 0 && errno == EINTR);
    /* (the message names the file opened: a CREATE's temporary, not the
     * target, which may well exist) */
    if (fd < 0) {
        int e = errno;
        collio__error_set(COLLIO_ERR_OPEN, "open %s: %s", path, strerror(e));
        return COLLIO_ERR_OPEN;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        collio__error_set(COLLIO_ERR_OPEN, "open %s: %s", path, strerror(EISDIR));
        return COLLIO_ERR_OPEN;
    }
    f->fd = fd;
    return COLLIO_OK;
}

static int posix_close(collio_file *f)
{
    if (f->fd < 0)
        return COLLIO_OK;
    /* No retry on EINTR: on Linux the descriptor is released anyway. */
    int rc = close(f->fd);
    f->fd = -1;
    return rc == 0 ? COLLIO_OK : COLLIO_ERR_IO;
}

static int posix_sync(collio_file *f)
{
    int rc;
    do {
        rc = fsync(f->fd);
    } while (rc != 0 && errno == EINTR);
    return rc == 0 ? COLLIO_OK : COLLIO_ERR_IO;
}

static int posix_pwrite(collio_file *f, int64_t off, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        size_t want = n < CHUNK ? n : CHUNK;
        ssize_t got = pwrite(f->fd, p, want, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) /* 0 for a nonzero request: no progress, give up */
            return fail(COLLIO_ERR_IO, "write", f, off);
        p += got;
        off += got;
        n -= (size_t)got;
    }
    return COLLIO_OK;
}

static int direct_pread(collio_file *f, int64_t off, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        size_t want = n < CHUNK ? n : CHUNK;
        ssize_t got = pread(f->fd, p, want, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail(COLLIO_ERR_IO, "read", f, off);
        if (got == 0)
            return fail(COLLIO_ERR_EOF, "read", f, off);
        p += got;
        off += got;
        n -= (size_t)got;
    }
    return COLLIO_OK;
}

/* [off, off + n) into buf through f's bounce buffer, BOUNCE bytes at a
 * time, each at collio__alias_place(its offset). Without memory for the
 * bounce, the direct read: slower, not wrong. */
static int bounced_pread(collio_file *f, int64_t off, char *buf, size_t n)
{
    if (f->bounce == NULL
        && posix_memalign((void **)&f->bounce, COLLIO__ALIAS_PAGE,
                          BOUNCE + COLLIO__ALIAS_PAGE)
               != 0) {
        f->bounce = NULL;
        return direct_pread(f, off, buf, n);
    }
    while (n > 0) {
        size_t want = n < BOUNCE ? n : BOUNCE;
        char *at = f->bounce + collio__alias_place(off);
        int rc = direct_pread(f, off, at, want);
        if (rc != COLLIO_OK)
            return rc;
        memcpy(buf, at, want);
        buf += want;
        off += (int64_t)want;
        n -= want;
    }
    return COLLIO_OK;
}

static int posix_pread(collio_file *f, int64_t off, void *buf, size_t n)
{
    return collio__alias_hit(buf, off, n) ? bounced_pread(f, off, buf, n)
                                          : direct_pread(f, off, buf, n);
}

/* Vector transfer of one file-contiguous range. A cursor (index i, byte
 * `done` inside iov[i]) walks the caller's array; each system call gets a
 * batch of at most IOV_MAX entries and CHUNK bytes, copied into `batch` so
 * that a partially moved first entry can be trimmed without touching the
 * caller's (const) array. */
static int posix_vec(collio_file *f, int64_t off, const struct iovec *iov, int niov,
                     int is_write)
{
    struct iovec batch[IOV_MAX < 1024 ? IOV_MAX : 1024];
    const int maxb = (int)(sizeof batch / sizeof batch[0]);
    int i = 0;
    size_t done = 0; /* bytes of iov[i] already moved */
    for (;;) {
        while (i < niov && done == iov[i].iov_len) { /* skip finished/empty */
            i++;
            done = 0;
        }
        if (i >= niov)
            return COLLIO_OK;
        int nb = 0;
        size_t total = 0;
        for (int k = i; k < niov && nb < maxb && total < CHUNK; k++) {
            size_t skip = (k == i) ? done : 0;
            size_t len = iov[k].iov_len - skip;
            if (len == 0)
                continue;
            if (len > CHUNK - total)
                len = CHUNK - total;
            batch[nb].iov_base = (char *)iov[k].iov_base + skip;
            batch[nb].iov_len = len;
            nb++;
            total += len;
        }
        ssize_t got = is_write ? pwritev(f->fd, batch, nb, (off_t)off)
                               : preadv(f->fd, batch, nb, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail(COLLIO_ERR_IO, is_write ? "write" : "read", f, off);
        if (got == 0)
            return fail(is_write ? COLLIO_ERR_IO : COLLIO_ERR_EOF,
                        is_write ? "write" : "read", f, off);
        off += got;
        size_t left = (size_t)got; /* advance the cursor by `got` bytes */
        while (left > 0) {
            size_t room = iov[i].iov_len - done;
            if (left < room) {
                done += left;
                left = 0;
            } else {
                left -= room;
                i++;
                done = 0;
            }
        }
    }
}

static int posix_pwritev(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    return posix_vec(f, off, iov, niov, 1);
}

/* Runs of pieces out of the aliasing window as vectored reads, each piece
 * in it through the bounce buffer (one read of its own). */
static int posix_preadv(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    int from = 0; /* the run of pieces not read yet: iov[from .. i) */
    int64_t run_off = off;
    for (int i = 0; i < niov; i++) {
        if (!collio__alias_hit(iov[i].iov_base, off, iov[i].iov_len)) {
            off += (int64_t)iov[i].iov_len;
            continue;
        }
        int rc = i > from ? posix_vec(f, run_off, iov + from, i - from, 0) : COLLIO_OK;
        if (rc == COLLIO_OK)
            rc = bounced_pread(f, off, iov[i].iov_base, iov[i].iov_len);
        if (rc != COLLIO_OK)
            return rc;
        off += (int64_t)iov[i].iov_len;
        from = i + 1;
        run_off = off;
    }
    return from < niov ? posix_vec(f, run_off, iov + from, niov - from, 0) : COLLIO_OK;
}

static int posix_size(collio_file *f, int64_t *bytes)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return COLLIO_ERR_IO;
    *bytes = (int64_t)st.st_size;
    return COLLIO_OK;
}

const collio__file_ops collio__file_posix_ops = {
    .name = "posix",
    .open = posix_open,
    .close = posix_close,
    .sync = posix_sync,
    .pwrite = posix_pwrite,
    .pread = posix_pread,
    .pwritev = posix_pwritev,
    .preadv = posix_preadv,
    .size = posix_size,
};
