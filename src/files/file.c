/*
 * file.c -- the shared file: collective open / close / abort, atomic
 * create, and the relative-offset data access every strategy uses.
 *
 * Atomic create (COLLIO_FILE_CREATE): rank 0 makes a temporary beside the
 * target, unique to this open and locked while it lives (files/tmp.c: the
 * names, the lock, the sweep of temporaries whose writers died); all
 * ranks write into it. collio_file_close agrees on f->failed over all
 * ranks: only if no write or read on any rank failed (and, with
 * opts.sync, every rank's data is synced) does rank 0 rename the
 * temporary onto the path (and fsync the directory with opts.sync).
 * Otherwise the temporary is removed and the previous file, if any, is
 * untouched. Two writers of one target each rename their own complete
 * temporary: the last rename wins, whole. The temporary gets mode 0666 &
 * ~umask, as open(2) would give a new file.
 *
 * Offsets given to collio__file_*_at are bytes relative to the data start;
 * opts.base_offset is added here, with overflow checks, so a header may
 * precede the data. Ranges are half-open: a transfer of n bytes at off
 * covers [off, off + n).
 *
 * Every collective function here agrees on its result (collio__agree), so
 * all ranks return the same code. The duplicated communicator returns MPI
 * errors (MPI_ERRORS_RETURN) instead of aborting.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "files/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void collio_file_options_init(collio_file_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->backend = COLLIO_BACKEND_POSIX; /* (base_offset, sync: 0) */
    opts->info = MPI_INFO_NULL;
}

const char *collio_file_path(const collio_file *f)
{
    return f ? f->path : NULL;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Directory of path, for fsync after rename ("." if none). */
static int fsync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash) {
        dir = dup_str(".");
    } else {
        size_t n = (size_t)(slash - path) + 1; /* keep "/" for "/name" */
        dir = malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = '\0';
        }
    }
    if (!dir)
        return COLLIO_ERR_NOMEM;
    int rc = COLLIO_OK;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)) {
        int e = errno;
        rc = COLLIO_ERR_IO;
        collio__error_set(rc, "fsync the directory %s: %s", dir, strerror(e));
    }
    if (fd >= 0)
        close(fd);
    free(dir);
    return rc;
}

/* Rank 0 of a CREATE: removes the temporary (if any is left to remove)
 * while still holding its lock, then drops the lock. Local; the caller
 * has made sure that every rank closed it. */
static void discard_tmp(collio_file *f)
{
    if (f->rank == 0 && f->tmp_path != NULL && f->lock_fd >= 0)
        unlink(f->tmp_path);
    collio__tmp_release(&f->lock_fd);
}

/* Records why `what` of path failed (errno's text) and returns OPEN. */
static int open_failed(const char *what, const char *path)
{
    int e = errno;
    collio__error_set(COLLIO_ERR_OPEN, "%s %s: %s", what, path, strerror(e));
    return COLLIO_ERR_OPEN;
}

/* Rank 0 of a READ: an existing regular file (checked here, as some
 * MPI-IO drivers open a directory without complaint). */
static int prepare_read(collio_file *f)
{
    struct stat st;
    if (stat(f->path, &st) != 0)
        return open_failed("open", f->path);
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return open_failed("open", f->path);
    }
    return COLLIO_OK;
}

/* Rank 0 of an INPLACE: creates a missing file (no truncation). */
static int prepare_inplace(collio_file *f)
{
    struct stat st;
    int fd = open(f->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = EINVAL; /* not a regular file */
    }
    if (fd < 0)
        return open_failed("open", f->path);
    if (close(fd) != 0)
        return open_failed("close", f->path);
    return COLLIO_OK;
}

/* What every rank learns of rank 0's part of an open (one broadcast). */
typedef struct open_head {
    int64_t id, fs_key, networked;
    char tmp[PATH_MAX]; /* CREATE: the temporary's name ("" otherwise) */
} open_head;

/* Rank 0's part of an open, before any rank opens: the open's identity
 * (so that a write can tell whether every rank passed the same file), the
 * file system it lives on (strategy auto's costs depend on it; learned
 * here, outside the writes), and per mode the temporary (CREATE), the
 * file made if missing (INPLACE) or checked (READ). Local. */
static int prepare(collio_file *f, open_head *h)
{
    collio_fs_id fs;
    collio_fs_identify(f->path, &fs);
    h->id = (int64_t)(collio__random64() >> 1);
    h->fs_key = (int64_t)collio__fs_key(&fs);
    h->networked = collio_fs_is_networked(&fs);
    int rc = f->mode == COLLIO_FILE_CREATE
                 ? collio__tmp_create(f->path, &f->tmp_path, &f->lock_fd)
             : f->mode == COLLIO_FILE_INPLACE ? prepare_inplace(f)
                                              : prepare_read(f);
    if (rc == COLLIO_OK && f->tmp_path != NULL) {
        if (strlen(f->tmp_path) >= sizeof h->tmp) { /* (open(2) took it: not here) */
            collio__error_set(COLLIO_ERR_OPEN, "open %s: name too long", f->path);
            return COLLIO_ERR_OPEN; /* (the open's failure path discards it) */
        }
        snprintf(h->tmp, sizeof h->tmp, "%s", f->tmp_path);
    }
    return rc;
}

/* Collective: rank 0 prepares, every rank learns the outcome and then
 * what it needs of rank 0's part -- one agreement and one broadcast, as a
 * networked file system's open is slow enough without a round of
 * collectives per field. A rank whose broadcast failed, or that lacks the
 * memory for the temporary's name, says so at the open's agreement that
 * follows (MPI-IO's collective open has one of its own before it). */
static int setup(collio_file *f)
{
    open_head h;
    memset(&h, 0, sizeof h);
    int rc = collio__agree(f->comm, f->rank == 0 ? prepare(f, &h) : COLLIO_OK);
    if (rc != COLLIO_OK)
        return rc;
    if (MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, f->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    f->id = h.id;
    f->fs_key = (uint64_t)h.fs_key;
    f->fs_networked = (int)h.networked;
    if (f->rank != 0 && h.tmp[0] != '\0') {
        h.tmp[sizeof h.tmp - 1] = '\0';
        f->tmp_path = dup_str(h.tmp);
        if (f->tmp_path == NULL) {
            collio__error_set(COLLIO_ERR_NOMEM, "open %s: no memory", f->path);
            return COLLIO_ERR_NOMEM;
        }
    }
    return COLLIO_OK;
}

static void file_free(collio_file *f)
{
    if (!f)
        return;
    collio__tmp_release(&f->lock_fd);
    if (f->comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->comm);
    free(f->path);
    free(f->tmp_path);
    free(f->bounce);
    free(f->sink);
    free(f->stage);
    free(f);
}

/* Local argument checks; the result is agreed on by the caller. */
static int check_args(const char *path, collio_file_mode mode,
                      const collio_file_options *o, collio_file **out)
{
    const char *bad =
        !out     ? "out is NULL"
        : !path  ? "path is NULL"
        : !*path ? "path is empty"
        : mode != COLLIO_FILE_CREATE && mode != COLLIO_FILE_INPLACE
                && mode != COLLIO_FILE_READ
            ? "mode is not a collio_file_mode"
        : o->backend != COLLIO_BACKEND_POSIX && o->backend != COLLIO_BACKEND_MPIIO
            ? "opts.backend is not a collio_backend"
        : o->base_offset < 0           ? "opts.base_offset is negative"
        : o->sync != 0 && o->sync != 1 ? "opts.sync is not 0 or 1"
                                       : NULL;
    if (bad == NULL)
        return COLLIO_OK;
    collio__error_set(COLLIO_ERR_ARG, "collio_file_open%s%s: %s", path ? " " : "",
                      path ? path : "", bad);
    return COLLIO_ERR_ARG;
}

/* Collective, where the arguments differ or a rank failed: each argument
 * compared on its own, so that the detail names it; then rc agreed. */
static int compare_args(MPI_Comm comm, const char *path, collio_file_mode mode,
                        const collio_file_options *o, int rc)
{
    int mm = collio__check_same_str(comm, path, "the path");
    if (mm == COLLIO_OK)
        mm = collio__check_same_i64(comm, (int64_t)mode, "the mode");
    if (mm == COLLIO_OK)
        mm = collio__check_same_i64(comm, (int64_t)o->backend, "opts.backend");
    if (mm == COLLIO_OK)
        mm = collio__check_same_i64(comm, o->base_offset, "opts.base_offset");
    if (mm == COLLIO_OK)
        mm = collio__check_same_i64(comm, o->sync, "opts.sync");
    return mm != COLLIO_OK ? mm : collio__agree(comm, rc);
}

int collio_file_open(MPI_Comm comm, const char *path, collio_file_mode mode,
                     const collio_file_options *opts, collio_file **out)
{
    collio__error_begin();
    if (out)
        *out = NULL;
    int rc = collio__mpi_usable("collio_file_open");
    if (rc != COLLIO_OK)
        return rc;
    collio__jobs_drain();        /* (the queued requests' collectives come first) */
    if (comm == MPI_COMM_NULL) { /* no communicator to tell the others: local */
        collio__error_set(COLLIO_ERR_ARG, "collio_file_open: comm is MPI_COMM_NULL");
        return COLLIO_ERR_ARG;
    }
    collio_file_options defaults;
    collio_file_options_init(&defaults);
    const collio_file_options *o = opts ? opts : &defaults;

    collio_file *f = calloc(1, sizeof *f);
    rc = f ? COLLIO_OK : COLLIO_ERR_NOMEM;
    MPI_Comm dup = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
        free(f); /* no communicator to agree on */
        collio__error_set(COLLIO_ERR_MPI, "collio_file_open: MPI_Comm_dup failed");
        return COLLIO_ERR_MPI;
    }
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc == COLLIO_OK) {
        f->comm = dup;
        f->fd = -1;
        f->lock_fd = -1;
        f->fh = MPI_FILE_NULL;
        f->coll_fh = MPI_FILE_NULL;
        f->mode = mode;
        f->fresh_from = mode == COLLIO_FILE_CREATE ? 0 : INT64_MAX;
        f->opts = *o;
        MPI_Comm_rank(dup, &f->rank);
        MPI_Comm_size(dup, &f->nranks);
        rc = check_args(path, mode, o, out);
    }
    if (rc == COLLIO_OK) {
        f->path = dup_str(path);
        rc = f->path ? COLLIO_OK : COLLIO_ERR_NOMEM;
    }
    /* Path, mode, backend, base offset and sync must match (a backend
     * mismatch would leave MPI-IO ranks alone in the collective open).
     * Compared also where a rank's own checks failed: a value that differs
     * across ranks is MISMATCH on every rank, valid or not on its own (as
     * for layouts and plans), and its agreed text replaces the local one. */
    int64_t args[6] = {0, 0, (int64_t)mode, (int64_t)o->backend, o->base_offset, o->sync};
    collio__str_key(path, args);
    if (!collio__all_ok_and_same(dup, rc, args, 6)) /* (one Allreduce if so) */
        rc = compare_args(dup, path, mode, o, rc);
    if (rc != COLLIO_OK) {
        if (f)
            f->comm = MPI_COMM_NULL;
        file_free(f);
        MPI_Comm_free(&dup);
        return rc;
    }

    f->ops = o->backend == COLLIO_BACKEND_MPIIO ? &collio__file_mpiio_ops
                                                : &collio__file_posix_ops;
    rc = setup(f);
    if (f->ops == &collio__file_mpiio_ops)
        rc = collio__agree(f->comm, rc); /* every rank or none in MPI's open */
    /* POSIX's open is each rank's own; MPI-IO's is collective */
    if (rc == COLLIO_OK)
        rc = f->ops->open(f, collio__file_data_path(f), 0);
    rc = collio__agree(f->comm, rc);
    if (rc != COLLIO_OK) {
        /* Close where it opened; MPI-IO opens agree among themselves,
         * so the collective close has all ranks or none. */
        f->ops->close(f);
        collio__agree(f->comm, COLLIO_OK); /* all closed before the unlink */
        discard_tmp(f);
    }
    if (rc != COLLIO_OK) {
        file_free(f);
        return rc;
    }
    *out = f;
    return COLLIO_OK;
}

/* Collective: closes the lazy collective MPI-IO handle, if open. */
static int close_collective_handle(collio_file *f)
{
    if (!f->coll_fh_open)
        return COLLIO_OK;
    f->coll_fh_open = 0;
    return PMPI_File_close(&f->coll_fh) == MPI_SUCCESS ? COLLIO_OK : COLLIO_ERR_IO;
}

int collio_file_close(collio_file **fp)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_file_close");
    if (rc == COLLIO_OK && (!fp || !*fp)) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_file_close: the file is NULL");
    }
    if (rc != COLLIO_OK)
        return rc;
    collio_file *f = *fp;
    *fp = NULL;
    int writing = f->mode != COLLIO_FILE_READ;
    collio__jobs_drain(); /* its requests run; those not completed fail it */
    int pending = collio__jobs_forget(NULL, f, NULL);
    rc = close_collective_handle(f);
    if (rc == COLLIO_OK && pending > 0) {
        rc = COLLIO_ERR_STATE;
        collio__error_set(rc,
                          "collio_file_close: %d request(s) on %s not completed "
                          "(collio_wait): not committed",
                          pending, f->path);
    } else if (rc == COLLIO_OK && writing && f->failed) {
        rc = COLLIO_ERR_IO;
        collio__error_set(rc, "%s is not %s: an earlier call on it failed (%s)", f->path,
                          f->mode == COLLIO_FILE_CREATE
                              ? "committed, the previous file stays"
                              : "complete",
                          f->why);
    }
    rc = collio__agree(f->comm, rc);
    if (rc == COLLIO_OK && writing && f->opts.sync) {
        /* Collective for MPI-IO (MPI_File_sync), local fsync for POSIX. */
        rc = collio__agree(f->comm, f->ops->sync(f));
    }
    /* Close on every rank (collective for MPI-IO); a failing close can
     * report deferred write errors (e.g. NFS), so it counts for writers. */
    int crc = f->ops->close(f);
    if (rc == COLLIO_OK && writing)
        rc = crc;
    rc = collio__agree(f->comm, rc);

    if (f->mode == COLLIO_FILE_CREATE) {
        int rrc = COLLIO_OK;
        if (f->rank == 0 && rc == COLLIO_OK) {
            if (rename(f->tmp_path, f->path) != 0) {
                int e = errno;
                rrc = COLLIO_ERR_IO;
                collio__error_set(rrc, "rename %s to %s: %s", f->tmp_path, f->path,
                                  strerror(e));
            } else {
                free(f->tmp_path); /* committed: nothing to discard */
                f->tmp_path = NULL;
                if (f->opts.sync)
                    rrc = fsync_dir_of(f->path);
            }
        }
        discard_tmp(f); /* a failed one; then the lock goes */
        int agreed = collio__agree(f->comm, rrc);
        if (rc == COLLIO_OK)
            rc = agreed;
    }
    file_free(f);
    return rc;
}

int collio_file_abort(collio_file **fp)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_file_abort");
    if (rc == COLLIO_OK && (!fp || !*fp)) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_file_abort: the file is NULL");
    }
    if (rc != COLLIO_OK)
        return rc;
    collio__jobs_drain(); /* (its requests fail: orphans) */
    collio__jobs_forget(NULL, *fp, NULL);
    collio_file *f = *fp;
    *fp = NULL;
    /* Errors while closing a discarded file do not matter. */
    (void)close_collective_handle(f);
    (void)f->ops->close(f);
    /* Every rank has closed before rank 0 removes the temporary. */
    rc = collio__agree(f->comm, COLLIO_OK);
    discard_tmp(f);
    file_free(f);
    return rc;
}

void collio__file_mark_failed(collio_file *f)
{
    /* the first agreed detail (a failed pwrite sets only the flag) */
    if (f->why[0] == '\0')
        snprintf(f->why, sizeof f->why, "%s", collio_last_error());
    f->failed = 1;
}

int collio__file_sub_open(collio_file *f, MPI_Comm comm, collio_file **out)
{
    *out = NULL;
    collio_file *s = calloc(1, sizeof *s);
    int rc = s != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    if (rc == COLLIO_OK) {
        s->comm = MPI_COMM_NULL;
        s->fd = -1;
        s->lock_fd = -1; /* the temporary's lock is f's: file_free must not
                            close a descriptor 0 it never had */
        s->fh = MPI_FILE_NULL;
        s->coll_fh = MPI_FILE_NULL;
        s->mode = f->mode;
        s->opts = f->opts;
        s->call_off = f->call_off; /* opened inside one call: its offset */
        s->holes = f->holes;       /* and its sparse layout */
        s->fresh_from = f->fresh_from;
        s->fs_key = f->fs_key; /* the same file system */
        s->fs_networked = f->fs_networked;
        s->ops = f->ops;
        s->path = dup_str(f->path);
        s->tmp_path = f->tmp_path != NULL ? dup_str(f->tmp_path) : NULL;
        if (s->path == NULL || (f->tmp_path != NULL && s->tmp_path == NULL))
            rc = COLLIO_ERR_NOMEM;
    }
    if (rc == COLLIO_OK && MPI_Comm_dup(comm, &s->comm) != MPI_SUCCESS) {
        s->comm = MPI_COMM_NULL;
        rc = COLLIO_ERR_MPI;
    }
    if (rc == COLLIO_OK) {
        MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(s->comm, &s->rank);
        MPI_Comm_size(s->comm, &s->nranks);
    }
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK) {
        /* the data file exists already: opened, never created */
        rc = collio__agree(comm, s->ops->open(s, collio__file_data_path(s), 0));
        if (rc != COLLIO_OK)
            s->ops->close(s);
    }
    if (rc != COLLIO_OK) {
        file_free(s);
        return rc;
    }
    *out = s;
    return COLLIO_OK;
}

int collio__file_sub_close(collio_file *f, collio_file **sub)
{
    collio_file *s = *sub;
    *sub = NULL;
    if (s == NULL)
        return COLLIO_OK;
    int rc = close_collective_handle(s);
    int crc = s->ops->close(s);
    if (rc == COLLIO_OK)
        rc = crc;
    if (s->failed || (rc != COLLIO_OK && s->mode != COLLIO_FILE_READ))
        f->failed = 1; /* the inner plan's agreed detail reaches f from there */
    rc = collio__agree(s->comm, rc);
    file_free(s);
    return rc;
}

int collio__file_collective_handle(collio_file *f, MPI_File *out)
{
    int rc = COLLIO_OK;
    if (!f->coll_fh_open) {
        int amode = f->mode == COLLIO_FILE_READ ? MPI_MODE_RDONLY : MPI_MODE_RDWR;
        if (PMPI_File_open(f->comm, collio__file_data_path(f), amode, f->opts.info,
                           &f->coll_fh)
            != MPI_SUCCESS) {
            rc = COLLIO_ERR_OPEN;
        } else {
            f->coll_fh_open = 1;
            if (PMPI_File_set_errhandler(f->coll_fh, MPI_ERRORS_RETURN) != MPI_SUCCESS)
                rc = COLLIO_ERR_MPI;
        }
        rc = collio__agree(f->comm, rc);
        if (rc != COLLIO_OK)
            close_collective_handle(f);
    }
    if (rc == COLLIO_OK)
        *out = f->coll_fh;
    return rc;
}
