/*
 * files/mpiio.c -- the MPI-IO file backend: one MPI_File opened on every
 * rank of f->comm, accessed with the independent MPI_File_write_at /
 * MPI_File_read_at (so ROMIO/OMPIO drivers for parallel file systems are
 * used), through the default file view (etype MPI_BYTE, offsets in bytes).
 *
 * Collective calls here: open, close and sync (MPI_File_sync is collective
 * in MPI). file.c only calls them from collective functions
 * (collio_file_open / close / abort), on every rank together. pwrite, pread,
 * pwritev, preadv and size are local.
 *
 * Counts are ints in MPI: transfers are cut into chunks of at most CHUNK
 * bytes. Vector transfers describe up to CHUNK bytes of memory with one
 * temporary hindexed datatype (absolute addresses, buffer MPI_BOTTOM), so
 * one file request moves a whole batch. MPI does not return short writes;
 * a short read means end of file (COLLIO_ERR_EOF). ROMIO's status of a
 * noncontiguous-memory read counts the whole request even past the end of
 * file, so such reads check the file size first. File handles return
 * errors (MPI_ERRORS_RETURN is set on every handle opened here); a failed
 * call becomes COLLIO_ERR_IO (COLLIO_ERR_OPEN for open).
 */
#include "base/base.h"
#include "files/files.h"

#include <limits.h>

#define CHUNK ((size_t)1 << 30) /* bytes per MPI call, at most (< INT_MAX) */
#define MAX_BATCH 1024          /* iovec entries per hindexed type */

/* Records an MPI-IO failure's detail (collio_last_error); returns code. */
static int fail(int code, int mrc, const char *what, const collio_file *f, int64_t off)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (mrc != MPI_SUCCESS)
        MPI_Error_string(mrc, msg, &len);
    collio__error_set(code, "%s at byte %lld of %s: %s", what, (long long)off,
                      collio__file_data_path(f),
                      mrc != MPI_SUCCESS ? msg
                      : code == COLLIO_ERR_EOF
                          ? "end of file"
                          : "short transfer (the disk may be full, or the file "
                            "system failed the write)");
    return code;
}

static int mpiio_open(collio_file *f, const char *path, int create)
{
    int amode = f->mode == COLLIO_FILE_READ ? MPI_MODE_RDONLY : MPI_MODE_RDWR;
    if (create)
        amode |= MPI_MODE_CREATE;
    MPI_Info info = f->opts.info;
    int mrc = PMPI_File_open(f->comm, path, amode, info, &f->fh);
    if (mrc != MPI_SUCCESS)
        return fail(COLLIO_ERR_OPEN, mrc, "MPI_File_open", f, 0);
    f->fh_open = 1;
    /* The default file error handler may have been changed by the user. */
    if (PMPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    return COLLIO_OK;
}

/* Collective. */
static int mpiio_close(collio_file *f)
{
    if (!f->fh_open)
        return COLLIO_OK;
    f->fh_open = 0;
    return PMPI_File_close(&f->fh) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_IO;
}

/* Collective (MPI_File_sync is). */
static int mpiio_sync(collio_file *f)
{
    return PMPI_File_sync(f->fh) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_IO;
}

/* Bytes a status says were moved with `type`. */
static int status_bytes(MPI_Status *st, MPI_Datatype type, MPI_Count *out)
{
    if (MPI_Get_elements_x(st, type, out) != MPI_SUCCESS || *out == MPI_UNDEFINED)
        return COLLIO_ERR_MPI;
    return COLLIO_OK;
}

/* One independent access of `count` items of `type` (`bytes` bytes in all)
 * at byte offset off. Short reads are end of file. */
static int access_at(collio_file *f, int64_t off, void *buf, int count, MPI_Datatype type,
                     size_t bytes, int is_write)
{
    MPI_Status st;
    int mrc = is_write ? PMPI_File_write_at(f->fh, (MPI_Offset)off, buf, count, type, &st)
                       : PMPI_File_read_at(f->fh, (MPI_Offset)off, buf, count, type, &st);
    const char *what = is_write ? "MPI_File_write_at" : "MPI_File_read_at";
    if (mrc != MPI_SUCCESS)
        return fail(COLLIO_ERR_IO, mrc, what, f, off);
    MPI_Count got;
    int rc = status_bytes(&st, type, &got);
    if (rc != COLLIO_OK)
        return rc;
    if ((size_t)got != bytes)
        return fail(is_write ? COLLIO_ERR_IO : COLLIO_ERR_EOF, MPI_SUCCESS, what, f, off);
    return COLLIO_OK;
}

static int mpiio_contig(collio_file *f, int64_t off, char *p, size_t n, int is_write)
{
    while (n > 0) {
        size_t want = n < CHUNK ? n : CHUNK;
        int rc = access_at(f, off, p, (int)want, MPI_BYTE, want, is_write);
        if (rc != COLLIO_OK)
            return rc;
        p += want;
        off += (int64_t)want;
        n -= want;
    }
    return COLLIO_OK;
}

static int mpiio_pwrite(collio_file *f, int64_t off, const void *buf, size_t n)
{
    return mpiio_contig(f, off, (char *)buf, n, 1);
}

static int mpiio_pread(collio_file *f, int64_t off, void *buf, size_t n)
{
    return mpiio_contig(f, off, buf, n, 0);
}

/* Vector transfer: a cursor (entry i, byte `done` inside it) walks iov[];
 * each batch of at most MAX_BATCH pieces and CHUNK bytes becomes one
 * hindexed type of absolute addresses and one MPI call. */
static int mpiio_vec(collio_file *f, int64_t off, const struct iovec *iov, int niov,
                     int is_write)
{
    int blen[MAX_BATCH];
    MPI_Aint disp[MAX_BATCH];
    int i = 0;
    size_t done = 0;
    for (;;) {
        while (i < niov && done == iov[i].iov_len) {
            i++;
            done = 0;
        }
        if (i >= niov)
            return COLLIO_OK;
        int nb = 0;
        size_t total = 0;
        int k = i;
        size_t kdone = done;
        while (k < niov && nb < MAX_BATCH && total < CHUNK) {
            size_t len = iov[k].iov_len - kdone;
            if (len > CHUNK - total)
                len = CHUNK - total;
            if (len > 0) {
                if (MPI_Get_address((char *)iov[k].iov_base + kdone, &disp[nb])
                    != MPI_SUCCESS)
                    return COLLIO_ERR_MPI;
                blen[nb] = (int)len;
                nb++;
                total += len;
            }
            if (kdone + len == iov[k].iov_len) {
                k++;
                kdone = 0;
            } else {
                kdone += len; /* batch full inside this entry */
            }
        }
        if (!is_write && nb > 1) {
            /* ROMIO reports the full count for a noncontiguous memory type
             * even when the file ends early: check the size first. */
            MPI_Offset sz;
            if (PMPI_File_get_size(f->fh, &sz) != MPI_SUCCESS)
                return COLLIO_ERR_IO;
            if ((int64_t)sz - off < (int64_t)total)
                return COLLIO_ERR_EOF;
        }
        MPI_Datatype t;
        if (MPI_Type_create_hindexed(nb, blen, disp, MPI_BYTE, &t) != MPI_SUCCESS)
            return COLLIO_ERR_MPI;
        if (MPI_Type_commit(&t) != MPI_SUCCESS) {
            MPI_Type_free(&t);
            return COLLIO_ERR_MPI;
        }
        int rc = access_at(f, off, MPI_BOTTOM, 1, t, total, is_write);
        MPI_Type_free(&t);
        if (rc != COLLIO_OK)
            return rc;
        off += (int64_t)total;
        i = k;
        done = kdone;
    }
}

static int mpiio_pwritev(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    return mpiio_vec(f, off, iov, niov, 1);
}

static int mpiio_preadv(collio_file *f, int64_t off, const struct iovec *iov, int niov)
{
    return mpiio_vec(f, off, iov, niov, 0);
}

static int mpiio_size(collio_file *f, int64_t *bytes)
{
    MPI_Offset sz;
    if (PMPI_File_get_size(f->fh, &sz) != MPI_SUCCESS)
        return COLLIO_ERR_IO;
    *bytes = (int64_t)sz;
    return COLLIO_OK;
}

const collio__file_ops collio__file_mpiio_ops = {
    .name = "mpiio",
    .open = mpiio_open,
    .close = mpiio_close,
    .sync = mpiio_sync,
    .pwrite = mpiio_pwrite,
    .pread = mpiio_pread,
    .pwritev = mpiio_pwritev,
    .preadv = mpiio_preadv,
    .size = mpiio_size,
};
