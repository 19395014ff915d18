/*
 * file_tmp.c -- the temporaries of atomic create (COLLIO_FILE_CREATE):
 * unique per writer, locked while their writer lives, swept when it is
 * gone. Local: rank 0 of a CREATE calls these.
 *
 * Name. "<dir>/.<name>.collio-tmp.<16 hex>" beside the target
 * "<dir>/<name>", so that the final rename(2) stays inside one directory
 * and is atomic. The 16 hex digits are random (getrandom, mixed with the
 * pid and the clock), so two writers of one target -- two jobs, or one job
 * that opens the target twice -- never share a temporary: each fills its
 * own and renames it onto the target at close; the last rename wins, and
 * the target is always one writer's whole file. Where ".<name>.collio-tmp."
 * plus the suffix would exceed NAME_MAX, the stem keeps the head of the
 * name and a hash of all of it: ".<head>~<16 hex>.collio-tmp.".
 *
 * Lock. The writer holds an exclusive lock on its temporary from its
 * creation until the rename (or removal): an open-file-description lock
 * (fcntl F_OFD_SETLK, Linux >= 3.15; it conflicts between two opens in
 * one process too, and closing another descriptor of the file does not
 * drop it), else flock(2). The kernel drops the lock when the process
 * dies, whatever kills it.
 *
 * Sweep. Before making its own, a writer removes the temporaries of the
 * same target whose writers are gone: for each name of the target's stem
 * it opens the file (never following a symbolic link; a planted link of
 * that name is removed), takes the lock without waiting -- a live writer
 * holds it, so that fails and the file stays -- and, holding the lock,
 * unlinks the name if it still names the file it locked. A writer that
 * created its file but has not locked it yet may lose it to a sweep; it
 * notices (its lock fails, or its name no longer names its file) and
 * starts again with a new name. So a killed job leaves at most one
 * temporary per target, and the next CREATE of that target removes it.
 *
 * Where the file system has no locks (the calls fail with ENOLCK,
 * EOPNOTSUPP or ENOSYS: e.g. Lustre mounted without -o flock), a temporary
 * is made unlocked and the sweep removes nothing, since it cannot tell a
 * live writer from a dead one: leftovers of killed jobs then stay until
 * removed by hand (docs/architecture.md, "Atomic create").
 */
#include "collio_internal.h"

#include <dirent.h>
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
enum { SUFFIX_HEX = 16, CREATE_TRIES = 16 };

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
    size_t n = strlen(name), fixed = 1 + (sizeof TMP_MARK - 1) + SUFFIX_HEX;
    if (n + fixed <= NAME_MAX) {
        snprintf(out, NAME_MAX + 1, ".%s%s", name, TMP_MARK);
        return 0;
    }
    size_t head = NAME_MAX - fixed - 1 - SUFFIX_HEX; /* "~" + hash */
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

/* Takes the exclusive lock on fd without waiting: 0 (held), 1 (someone
 * else holds it), or -1 with errno (no locks on this file system). */
static int try_lock(int fd)
{
#ifdef F_OFD_SETLK
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET; /* start 0, len 0: the whole file */
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

/* One entry of the stem: removed if its writer is gone. */
static void sweep_one(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        /* a symbolic link planted under a temporary's name: removed, never
         * followed; anything else that cannot be opened stays */
        if (errno == ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISLNK(st.st_mode))
            unlinkat(dirfd, name, 0);
        return;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && try_lock(fd) == 0
        && names_file(dirfd, name, fd))
        unlinkat(dirfd, name, 0); /* still locked: no writer can take it now */
    close(fd);                    /* drops the lock */
}

/* Removes the target's temporaries whose writers are gone. Best effort:
 * what cannot be read or removed stays, and the create goes on. */
static void sweep(const char *path, const char *stem)
{
    size_t dl = dir_len(path);
    char dir[PATH_MAX];
    if (dl >= sizeof dir)
        return;
    if (dl == 0)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dl, path);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    size_t sl = strlen(stem);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, stem, sl) != 0 || strlen(n + sl) != SUFFIX_HEX
            || strspn(n + sl, "0123456789abcdef") != SUFFIX_HEX)
            continue;
        sweep_one(dirfd(d), n);
    }
    closedir(d);
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
    sweep(path, stem);

    size_t dl = dir_len(path), n = dl + strlen(stem) + SUFFIX_HEX + 1;
    char *t = malloc(n);
    if (t == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "create %s: no memory for a name", path);
        return COLLIO_ERR_NOMEM;
    }
    mode_t um = umask(0); /* read the umask: a new file gets 0666 & ~umask */
    umask(um);
    for (int tries = 0; tries < CREATE_TRIES; tries++) {
        snprintf(t, n, "%.*s%s%016llx", (int)dl, path, stem,
                 (unsigned long long)collio__random64());
        int fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            int e = errno;
            collio__error_set(COLLIO_ERR_OPEN, "create %s (its temporary %s): %s", path,
                              t, strerror(e));
            free(t);
            return COLLIO_ERR_OPEN;
        }
        int lk = try_lock(fd);
        int e = errno;
        struct stat a, b;
        /* a sweep took it between our create and our lock: not ours */
        int ours = lk == 0 && fstat(fd, &a) == 0 && stat(t, &b) == 0
                   && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
        if (lk < 0 && no_locks(e))
            ours = 1; /* a file system without locks: unlocked */
        if (ours && fchmod(fd, 0666 & ~um) != 0) {
            e = errno;
            unlink(t);
            close(fd);
            collio__error_set(COLLIO_ERR_OPEN, "set the mode of %s: %s", t, strerror(e));
            free(t);
            return COLLIO_ERR_OPEN;
        }
        if (ours) {
            *tmp_out = t;
            *lock_fd = fd;
            return COLLIO_OK;
        }
        if (lk < 0) {
            unlink(t);
            close(fd);
            collio__error_set(COLLIO_ERR_OPEN, "lock the temporary %s: %s", t,
                              strerror(e));
            free(t);
            return COLLIO_ERR_OPEN;
        }
        close(fd); /* lost to a sweep, which removes it: again */
    }
    collio__error_set(COLLIO_ERR_OPEN,
                      "create a temporary beside %s: %d names taken or swept away", path,
                      CREATE_TRIES);
    free(t);
    return COLLIO_ERR_OPEN;
}

void collio__tmp_release(int *lock_fd)
{
    if (*lock_fd >= 0)
        close(*lock_fd);
    *lock_fd = -1;
}
