/*
 * pfs_locks.c -- the locks atomic create relies on (src/files/tmp.c), on a
 * networked file system's FUSE mounts (scripts/pfs, docs/pfs.md): two
 * mounts of the volume by two clients (two compute hosts), and two opens
 * through one client. No MPI.
 *
 * For each lock kind the library may use -- fcntl(F_OFD_SETLK) exclusive
 * whole-file locks, and flock(2) LOCK_EX -- taken without waiting:
 *  - a second open through the same client is refused (EAGAIN/EWOULDBLOCK),
 *    so is an open through the other client;
 *  - an explicit unlock frees it at once for the other client;
 *  - a close without unlock frees it (the release travels asynchronously:
 *    within 2 s; the time is printed);
 *  - a holder killed by SIGKILL frees it (within 2 s; printed).
 *
 * Usage: pfs_locks [DIR_A DIR_B]; without arguments the first two host
 * mounts under $COLLIO_PFS_HOSTS_DIR (scripts/pfs sets it). Prints
 * "N passed, M failed" and exits 1 on a failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;

static void check(int ok, const char *what, const char *kind)
{
    if (ok)
        passed++;
    else
        failed++;
    printf("%s %s: %s\n", ok ? "ok  " : "FAIL", kind, what);
}

enum { OFD = 0, FLOCK = 1 };
static const char *kind_name[] = {"F_OFD_SETLK", "flock"};

/* 0 taken, 1 refused as held by another, -1 other error (errno). */
static int try_lock(int fd, int kind)
{
    if (kind == OFD) {
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
            return 0;
        return errno == EAGAIN || errno == EACCES ? 1 : -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    return errno == EWOULDBLOCK ? 1 : -1;
}

static int unlock(int fd, int kind)
{
    if (kind == OFD) {
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_UNLCK;
        fl.l_whence = SEEK_SET;
        return fcntl(fd, F_OFD_SETLK, &fl);
    }
    return flock(fd, LOCK_UN);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Seconds until fd's lock is free (it is then held), or -1 after 2 s. */
static double wait_free(int fd, int kind)
{
    double t0 = now();
    while (now() - t0 < 2.0) {
        if (try_lock(fd, kind) == 0)
            return now() - t0;
        usleep(200);
    }
    return -1.0;
}

static int open_rw(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

static void one_kind(const char *a, const char *b, int kind)
{
    const char *k = kind_name[kind];
    char name[64], msg[256];
    snprintf(name, sizeof name, "pfs_locks-%ld-%d", (long)getpid(), kind);
    int h = open_rw(a, name), same = open_rw(a, name), other = open_rw(b, name);
    if (h < 0 || same < 0 || other < 0) {
        check(0, "open the file through both clients", k);
        return;
    }
    check(try_lock(h, kind) == 0, "the first open takes the lock", k);
    check(try_lock(same, kind) == 1, "a second open through the same client is refused",
          k);
    check(try_lock(other, kind) == 1, "an open through the other client is refused", k);

    check(unlock(h, kind) == 0 && try_lock(other, kind) == 0,
          "after an explicit unlock the other client takes it at once", k);
    check(try_lock(h, kind) == 1, "... and then the first open is refused", k);
    unlock(other, kind);

    check(try_lock(h, kind) == 0, "the first open takes it again", k);
    close(h);
    double dt = wait_free(other, kind);
    snprintf(msg, sizeof msg,
             "a close without unlock frees it for the other client (%.4f s)", dt);
    check(dt >= 0, msg, k);
    unlock(other, kind);

    /* a holder that dies */
    int pfd[2];
    if (pipe(pfd) != 0) {
        check(0, "pipe", k);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open_rw(a, name);
        char c = try_lock(fd, kind) == 0 ? 'y' : 'n';
        if (write(pfd[1], &c, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c = 'n';
    if (read(pfd[0], &c, 1) != 1)
        c = 'n';
    check(c == 'y', "a child process takes it", k);
    check(try_lock(other, kind) == 1, "... the other client is refused", k);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    dt = wait_free(other, kind);
    snprintf(msg, sizeof msg, "the holder killed by SIGKILL frees it (%.4f s)", dt);
    check(dt >= 0, msg, k);
    close(pfd[0]);
    close(pfd[1]);
    close(same);
    close(other);
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", a, name);
    unlink(p);
}

int main(int argc, char **argv)
{
    char da[4096], db[4096];
    if (argc == 3) {
        snprintf(da, sizeof da, "%s", argv[1]);
        snprintf(db, sizeof db, "%s", argv[2]);
    } else {
        const char *hosts = getenv("COLLIO_PFS_HOSTS_DIR");
        struct dirent **e = NULL;
        int n = hosts ? scandir(hosts, &e, NULL, alphasort) : -1, got = 0;
        for (int i = 0; i < n; i++) {
            if (e[i]->d_name[0] != '.' && got < 2)
                snprintf(got++ ? db : da, sizeof da, "%s/%s", hosts, e[i]->d_name);
            free(e[i]);
        }
        free(e);
        if (got < 2) {
            fprintf(stderr,
                    "usage: pfs_locks DIR_A DIR_B (two clients' mounts), or inside "
                    "scripts/pfs with >= 2 compute hosts\n");
            return 2;
        }
    }
    printf("clients: %s and %s\n", da, db);
    one_kind(da, db, OFD);
    one_kind(da, db, FLOCK);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
