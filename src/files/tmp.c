/*
 * files/tmp.c -- the temporaries of atomic create (COLLIO_FILE_CREATE):
 * one per open, locked while its writer lives, removed by the next CREATE
 * of the target once the writer is gone. Local: rank 0 of a CREATE calls
 * these.
 *
 * Names. "<dir>/.<name>.collio-tmp.<n>" beside the target "<dir>/<name>"
 * (so that the final rename(2) stays inside one directory and is atomic),
 * n = 0, 1, 2, ...: numbered slots. Where ".<name>.collio-tmp." plus the
 * slot number would exceed NAME_MAX, the stem keeps the head of the name
 * and a hash of all of it: ".<head>~<16 hex>.collio-tmp.". Two writers of
 * one target (two jobs, or one job that opens it twice) never share a
 * slot: each fills its own temporary and renames it onto the target at
 * close; the last rename wins, and the target is always one writer's
 * whole file.
 *
 * Lock. The writer holds an exclusive lock on its temporary from its
 * creation until the rename (or removal): an open-file-description lock
 * (fcntl F_OFD_SETLK, Linux >= 3.15; it conflicts between two opens in
 * one process too, and closing another descriptor of the file does not
 * drop it) on one byte far beyond the data (LOCK_BYTE), else flock(2). The kernel drops
 * the lock when the process dies, whatever kills it.
 *
 * Taking a slot. A writer tries slot 0, 1, ... with O_CREAT | O_EXCL. A
 * slot that exists is reaped if its writer is gone: opened (never
 * following a symbolic link; a link planted under a slot's name is
 * removed), locked without waiting -- a live writer holds the lock, so
 * that fails and the slot is passed over -- and, holding the lock,
 * removed if its name still names the file locked; then the slot is tried
 * again. Once it has a slot, the writer reaps the others up to
 * SWEEP_SLOTS, so that every dead writer's temporary among them goes with
 * the next CREATE: a killed job leaves at most one temporary per target,
 * for one CREATE to find. All by name: a few lookups per CREATE, never a
 * scan of the directory (which on a parallel file system can hold
 * millions of entries). A writer that created its file but has not locked
 * it yet may lose it to a reaper; it notices (its lock fails, or its name
 * no longer names its file) and tries again.
 *
 * Where the file system has no locks (the calls fail with ENOLCK,
 * EOPNOTSUPP or ENOSYS: e.g. Lustre mounted without -o flock), a temporary
 * is made unlocked and nothing is reaped, since a live writer cannot be
 * told from a dead one: leftovers of killed jobs then stay until removed
 * by hand (docs/architecture.md, "Atomic create").
 */
#include "base/base.h"
#include "files/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static const char TMP_MARK[] = ".collio-tmp.";
/* SWEEP_SLOTS: the slots every CREATE looks at (a few lookups by name);
 * MAX_SLOTS: writers of one target at once; SLOT_DIGITS: its digits. */
enum { SWEEP_SLOTS = 16, MAX_SLOTS = 4096, SLOT_DIGITS = 4, MAX_RETRIES = 64 };

/* "<dir>/" of path ("" when it has none) and its length. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* The stem of target's temporaries: ".<name>.collio-tmp." or, when a
 * temporary's name would exceed NAME_MAX, ".<head>~<hash>.collio-tmp.";
 * written into out (NAME_MAX + 1 bytes). 0, or -1 if path names no file. */
static int tmp_stem(const char *path, char *out)
{
    const char *name = path + dir_len(path);
    if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return -1;
    size_t n = strlen(name), fixed = 1 + (sizeof TMP_MARK - 1) + SLOT_DIGITS;
    if (n + fixed <= NAME_MAX) {
        snprintf(out, NAME_MAX + 1, ".%s%s", name, TMP_MARK);
        return 0;
    }
    size_t head = NAME_MAX - fixed - 1 - 16; /* "~" + 16 hex of the hash */
    /* cut at a UTF-8 character boundary (names are bytes; keep them tidy) */
    while (head > 0 && ((unsigned char)name[head] & 0xC0) == 0x80)
        head--;
    snprintf(out, NAME_MAX + 1, ".%.*s~%016llx%s", (int)head, name,
             (unsigned long long)fnv1a(name), TMP_MARK);
    return 0;
}

uint64_t collio__random64(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30);
    }
    static _Atomic uint64_t counter;
    r ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
    r ^= counter++ * 0xff51afd7ed558ccdULL; /* two opens in one nanosecond */
    return r;
}

/* The byte the liveness lock covers: far beyond any data. The MPI-IO
 * library takes byte-range locks of its own on the data it writes into
 * the temporary (ROMIO's data sieving: fcntl F_SETLKW, a classic POSIX
 * lock, which an open-file-description lock on the same bytes blocks --
 * also in rank 0's own process); a lock on this one byte never meets
 * them. */
#define LOCK_BYTE ((off_t)1 << 62)

/* Takes the exclusive lock on fd without waiting: 0 (held), 1 (someone
 * else holds it), or -1 with errno (no locks on this file system). */
static int try_lock(int fd)
{
#ifdef F_OFD_SETLK
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = LOCK_BYTE;
    fl.l_len = 1;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
        return 0;
    if (errno == EAGAIN || errno == EACCES)
        return 1;
    if (errno != EINVAL) /* EINVAL: a kernel without OFD locks */
        return -1;
#endif
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    return errno == EWOULDBLOCK ? 1 : -1;
}

static int no_locks(int e)
{
    return e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS || e == EINVAL;
}

/* 1 if the entry `name` of dirfd is the file fd has open. */
static int names_file(int dirfd, const char *name, int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0
           && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* What reaping a slot found. */
enum { SLOT_FREE, SLOT_LIVE, SLOT_KEPT };

/* The slot `name` of dirfd exists (or did): removed if its writer is gone
 * or it is a planted symbolic link (SLOT_FREE: try it again), else
 * SLOT_LIVE (a writer holds its lock) or SLOT_KEPT (not ours to judge: no
 * locks on this file system, or not a regular file). */
static int reap(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (errno == ENOENT)
            return SLOT_FREE; /* gone meanwhile */
        /* a symbolic link planted under a slot's name: removed, never
         * followed; anything else that cannot be opened stays */
        if (errno == ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISLNK(st.st_mode) && unlinkat(dirfd, name, 0) == 0)
            return SLOT_FREE;
        return SLOT_KEPT;
    }
    struct stat st;
    int r = SLOT_KEPT;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        int lk = try_lock(fd);
        if (lk == 1)
            r = SLOT_LIVE;
        else if (lk == 0 && names_file(dirfd, name, fd) && unlinkat(dirfd, name, 0) == 0)
            r = SLOT_FREE; /* removed while locked: no writer can take it now */
    }
    close(fd); /* drops the lock */
    return r;
}

/* Rank 0: "<dir>" of path as a directory descriptor. */
static int open_dir(const char *path)
{
    size_t dl = dir_len(path);
    char dir[PATH_MAX];
    if (dl >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (dl == 0)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dl, path);
    return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Records a failure to make the temporary `t` of path. */
static int tmp_failed(const char *path, const char *t, int e)
{
    collio__error_set(COLLIO_ERR_OPEN, "create %s (its temporary %s): %s", path, t,
                      strerror(e));
    return COLLIO_ERR_OPEN;
}

int collio__tmp_create(const char *path, char **tmp_out, int *lock_fd)
{
    *tmp_out = NULL;
    *lock_fd = -1;
    char stem[NAME_MAX + 1];
    if (strlen(path + dir_len(path)) > NAME_MAX) {
        collio__error_set(COLLIO_ERR_OPEN, "create %s: %s", path, strerror(ENAMETOOLONG));
        return COLLIO_ERR_OPEN;
    }
    if (tmp_stem(path, stem) != 0) {
        collio__error_set(COLLIO_ERR_OPEN, "create '%s': the path names no file", path);
        return COLLIO_ERR_OPEN;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* rename onto a directory would fail at the end */
        collio__error_set(COLLIO_ERR_OPEN, "create %s: %s", path, strerror(EISDIR));
        return COLLIO_ERR_OPEN;
    }
    int dfd = open_dir(path);
    if (dfd < 0) {
        int e = errno;
        collio__error_set(COLLIO_ERR_OPEN, "create %s: its directory: %s", path,
                          strerror(e));
        return COLLIO_ERR_OPEN;
    }
    size_t dl = dir_len(path), n = dl + strlen(stem) + SLOT_DIGITS + 1;
    char *t = malloc(n), name[NAME_MAX + 1];
    if (t == NULL) {
        close(dfd);
        collio__error_set(COLLIO_ERR_NOMEM, "create %s: no memory for a name", path);
        return COLLIO_ERR_NOMEM;
    }
    mode_t um = umask(0); /* read the umask: a new file gets 0666 & ~umask */
    umask(um);
    int rc = COLLIO_ERR_OPEN, slot = 0, again = 0, fd = -1;
    for (; slot < MAX_SLOTS && again < MAX_RETRIES; slot++) {
        snprintf(name, sizeof name, "%s%d", stem, slot);
        snprintf(t, n, "%.*s%s", (int)dl, path, name);
        fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            int e = errno;
            if (e != EEXIST) {
                rc = tmp_failed(path, t, e);
                break;
            }
            int r = reap(dfd, name);
            if (r == SLOT_FREE) {
                slot--; /* the same slot again */
                again++;
            }
            continue;
        }
        int lk = try_lock(fd);
        int e = errno;
        if (lk < 0 && !no_locks(e)) {
            unlinkat(dfd, name, 0);
            close(fd);
            rc = tmp_failed(path, t, e);
            break;
        }
        /* a reaper took it between our create and our lock: not ours */
        if (lk == 1 || (lk == 0 && !names_file(dfd, name, fd))) {
            close(fd);
            fd = -1;
            slot--;
            again++;
            continue;
        }
        if (fchmod(fd, 0666 & ~um) != 0) {
            e = errno;
            unlinkat(dfd, name, 0);
            close(fd);
            rc = tmp_failed(path, t, e);
            break;
        }
        rc = COLLIO_OK;
        /* the dead writers' temporaries among the other slots go now */
        for (int q = slot + 1; lk == 0 && q < SWEEP_SLOTS; q++) {
            snprintf(name, sizeof name, "%s%d", stem, q);
            if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                reap(dfd, name);
        }
        break;
    }
    close(dfd);
    if (rc == COLLIO_OK) {
        *tmp_out = t;
        *lock_fd = fd;
        return COLLIO_OK;
    }
    if (slot >= MAX_SLOTS || again >= MAX_RETRIES)
        collio__error_set(COLLIO_ERR_OPEN,
                          "create %s: its %d temporary slots are taken by live writers",
                          path, MAX_SLOTS);
    free(t);
    return rc;
}

void collio__tmp_release(int *lock_fd)
{
    if (*lock_fd >= 0)
        close(*lock_fd);
    *lock_fd = -1;
}
