/*
 * files/files.h -- files: open and close, atomic create, the backends (POSIX, MPI-IO),
 * data access with holes (the files of src/files/).
 */
#ifndef COLLIO_FILES_FILES_H
#define COLLIO_FILES_FILES_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/base.h"
#include "layouts/layouts.h"
/* ------------------------------------------------------------------ files */

/* collio's own MPI-IO calls (the mpiio backend, two_phase's collective,
 * the file system's measurement) go to the profiling layer, PMPI_File_*:
 * a tool that wraps MPI-IO beneath the program -- collio's interposer,
 * Darshan's MPI-IO module -- sees the program's calls, never collio's
 * (which it would take for the program's, and re-enter). Darshan still
 * sees collio's file access at the POSIX level, where ROMIO and OMPIO
 * make it. */

typedef struct collio__file_ops {
    const char *name;
    int (*open)(collio_file *f, const char *path, int create);
    int (*close)(collio_file *f);
    int (*sync)(collio_file *f);
    /* absolute byte offsets; loops until done (short writes / EINTR) */
    int (*pwrite)(collio_file *f, int64_t off, const void *buf, size_t n);
    int (*pread)(collio_file *f, int64_t off, void *buf, size_t n);
    /* one file-contiguous range gathered from / scattered to iov[] */
    int (*pwritev)(collio_file *f, int64_t off, const struct iovec *iov, int niov);
    int (*preadv)(collio_file *f, int64_t off, const struct iovec *iov, int niov);
    int (*size)(collio_file *f, int64_t *bytes);
} collio__file_ops;

extern const collio__file_ops collio__file_posix_ops;
extern const collio__file_ops collio__file_mpiio_ops;

struct collio_file {
    MPI_Comm comm; /* dup */
    int rank, nranks;
    char *path;     /* target path */
    char *tmp_path; /* CREATE: temporary beside path, else NULL */
    collio_file_mode mode;
    collio_file_options opts;
    const collio__file_ops *ops;
    int fd;      /* POSIX backend */
    MPI_File fh; /* MPI-IO backend, or the collective handle below */
    int fh_open;
    MPI_File coll_fh; /* collective MPI-IO handle for two_phase (lazy) */
    int coll_fh_open;
    int64_t id;         /* drawn by rank 0 at open: the same on every rank of
                           this file, another for every other open */
    uint64_t fs_key;    /* collio__fs_key of its file system (rank 0's view) */
    int fs_networked;   /* collio_fs_is_networked of it (rank 0's view) */
    int failed;         /* a call on this file failed: do not commit */
    char why[400];      /* the first failure's agreed detail (for close) */
    int lock_fd;        /* CREATE, rank 0: holds the temporary's lock, else -1 */
    char *bounce;       /* POSIX reads in the copy's aliasing window (machine/alias.c):
                           page-aligned, made at first use, freed with f */
    char *sink;         /* reads of bridged holes (files/holes.c): made at first
                           use, freed with f */
    char *stage;        /* requests of small runs gathered or scattered
                           (files/holes.c): made at first use, freed with f */
    int64_t fresh_from; /* CREATE: no call has written at or beyond this
                           absolute byte yet (its bytes are zeros), else
                           INT64_MAX; raised at the end of every write */
    /* Set for the duration of one collio_write(_at) / collio_read(_at): */
    int64_t call_off;           /* the call's offset, added to base_offset */
    const collio__holes *holes; /* the plan's sparse layout: offsets given
                                   to the data access below are packed
                                   positions, mapped to the held runs */
};

/* Byte offset of the data's element 0 in this call (checked at the call's
 * start: collio__plan_exec's data_end). */
static inline int64_t collio__file_data_start(const collio_file *f)
{
    return f->opts.base_offset + f->call_off;
}

/* Absolute byte offset of relative [off, off + n), checked. */
static inline int collio__file_abs(const collio_file *f, int64_t off, size_t n,
                                   int64_t *abs)
{
    int64_t end;
    if (off < 0 || n > (size_t)INT64_MAX)
        return COLLIO_ERR_ARG;
    if (collio__add_i64(collio__file_data_start(f), off, abs) != COLLIO_OK
        || collio__add_i64(*abs, (int64_t)n, &end) != COLLIO_OK)
        return COLLIO_ERR_OVERFLOW;
    return COLLIO_OK;
}

/* Data access through f->holes (files/holes.c): [off, off + bytes of iov)
 * in packed bytes, split at the runs' ends into requests at their file
 * offsets. A failed write marks f failed. */
int collio__file_holes_access(collio_file *f, int64_t off, const struct iovec *iov,
                              int niov, int writing);

/* Local: a write or read on f failed (agreed over the plan's ranks):
 * collio_file_close commits nothing and says why. */
void collio__file_mark_failed(collio_file *f);

/* Temporaries of CREATE (files/tmp.c), rank 0 only. tmp_create sweeps the
 * temporaries of path whose writers are gone, then makes a new one beside
 * path, unique and locked: *tmp (malloc'd) its name, *lock_fd the
 * descriptor that holds the lock (kept open until the temporary is
 * renamed or removed). Errors (OPEN, NOMEM) are recorded. tmp_release
 * drops the lock (closes *lock_fd; -1 is a no-op) and sets it to -1. */
int collio__tmp_create(const char *path, char **tmp, int *lock_fd);
/* Local: 64 random bits (getrandom, else the clock), mixed with the pid
 * and a counter: never the same twice in a process. */
uint64_t collio__random64(void);
void collio__tmp_release(int *lock_fd);

/* Path the data is written to right now (tmp_path for CREATE). */
static inline const char *collio__file_data_path(const collio_file *f)
{
    return f->tmp_path ? f->tmp_path : f->path;
}

/* What a strategy may ask of a file, and tell it, without its fields. */
/* Local: the size of the file being written (its temporary's while an
 * atomic create runs), as its backend sees it. */
static inline int collio__file_size(collio_file *f, int64_t *bytes)
{
    return f->ops->size(f, bytes);
}
/* The MPI_Info the file was opened with (collio_file_options.info). */
static inline MPI_Info collio__file_info(const collio_file *f)
{
    return f->opts.info;
}
/* The file's path as the program named it, and its file system: its key
 * (collio__fs_key, rank 0's view) and whether it is a network hop away. */
static inline const char *collio__file_path(const collio_file *f)
{
    return f->path;
}
static inline uint64_t collio__file_fs_key(const collio_file *f)
{
    return f->fs_key;
}
static inline int collio__file_networked(const collio_file *f)
{
    return f->fs_networked;
}

/* Data access relative to the data start (base_offset added here). Record
 * failures in f->failed. */
int collio__file_write_at(collio_file *f, int64_t off, const void *buf, size_t n);
int collio__file_read_at(collio_file *f, int64_t off, void *buf, size_t n);
int collio__file_writev_at(collio_file *f, int64_t off, const struct iovec *iov,
                           int niov);
int collio__file_readv_at(collio_file *f, int64_t off, const struct iovec *iov, int niov);

/* Collective over comm, a subset of f's ranks (the others do not call):
 * a file object on the same data file (the temporary of a CREATE file),
 * same mode, backend, base offset and hints, for an inner plan that runs
 * on comm. It never creates, renames or removes anything. Its writes'
 * failures stay in sub->failed until collio__file_sub_close, which copies
 * them into f->failed and frees it (collective over comm). */
int collio__file_sub_open(collio_file *f, MPI_Comm comm, collio_file **sub);
int collio__file_sub_close(collio_file *f, collio_file **sub);

/* Collective: an MPI_File opened on every rank of f->comm on the data path
 * (opened on first use, closed with f). For strategies that use MPI-IO's
 * collective calls. */
int collio__file_collective_handle(collio_file *f, MPI_File *out);

#endif /* COLLIO_FILES_FILES_H */
