/*
 * pfs_fault.c -- a storage host becomes unreachable in the middle of a
 * write (run by tests/pfs_fault.sh inside scripts/pfs, which cuts the
 * link). For each strategy and backend asked for:
 *
 *  1. a previous file at the path (plain POSIX);
 *  2. CREATE, a first collio_write (succeeds: half the file's story is on
 *     the storage host); rank 0 asks the driver to cut the link of the
 *     storage host that holds the temporary (its brick, from GlusterFS's
 *     trusted.glusterfs.pathinfo) and waits until it is cut;
 *  3. a second collio_write and the close (or abort): an error on every
 *     rank, the same code everywhere (COLLIO_ERR_IO, or COLLIO_ERR_OPEN
 *     where the strategy opens the file inside the write), within a bound
 *     (the volume's network.ping-timeout makes the client give up; no
 *     hang);
 *  4. the driver restores the link; once every rank's client reaches the
 *     storage host again (each reads a probe file placed there before the
 *     cut), the previous file is intact, byte for byte;
 *  5. the failed writer's temporary, which could not be removed while its
 *     storage host was away, is unlocked once that host notices the
 *     client's lost connection (within a bound); a CREATE write then
 *     succeeds, byte-exact, and reaps it: no temporary left.
 *
 * Usage: pfs_fault CTLDIR STRATEGY/BACKEND... (e.g. multiphase/posix).
 * CTLDIR: a local directory shared with the driver: rank 0 writes
 * cut-K (the storage host's last address byte) and waits for cut-K.done;
 * writes restore-K and waits for restore-K.done.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define NX 262144 /* float32: 1 MiB */
#define BOUND_S 60.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Rank 0: writes `text` to CTLDIR/name, then waits for CTLDIR/name.done
 * (at most 120 s). Collective: 1 on every rank if the driver answered. */
static int ask_driver(tu_ctx *t, const char *ctl, const char *name, const char *text)
{
    int ok = 1;
    if (t->rank == 0) {
        char p[2048], q[2100];
        snprintf(p, sizeof p, "%s/%s.tmp", ctl, name);
        FILE *f = fopen(p, "w");
        ok = f && fputs(text, f) >= 0;
        if (f)
            fclose(f);
        snprintf(q, sizeof q, "%s/%s", ctl, name);
        ok = ok && rename(p, q) == 0; /* the driver sees it whole */
        snprintf(q, sizeof q, "%s/%s.done", ctl, name);
        double t0 = now();
        while (ok && access(q, F_OK) != 0) {
            if (now() - t0 > 120.0)
                ok = 0;
            usleep(20000);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
    return ok;
}

/* Rank 0: the storage host N (10.77.0.N, named hostN) whose brick holds
 * file, from GlusterFS's pathinfo "<POSIX(/brick):hostN:/brick/file>";
 * -1 if not found. */
static int storage_host_of(const char *file)
{
    char v[4096] = "";
    ssize_t n = getxattr(file, "trusted.glusterfs.pathinfo", v, sizeof v - 1);
    if (n <= 0)
        return -1;
    v[n] = '\0';
    const char *p = strstr(v, "POSIX(");
    p = p ? strstr(p, "):") : NULL;
    int h;
    if (!p || sscanf(p + 2, "host%d:", &h) != 1)
        return -1;
    return h;
}

/* Rank 0: makes a probe file on storage host `host` (creating
 * DIR/pfs-fault-probe-<pid>-<i> until GlusterFS places one there; the
 * others are removed) and returns its path in out (1), or 0. */
static int make_probe(tu_ctx *t, int host, char *out, size_t len)
{
    for (int i = 0; i < 256; i++) {
        snprintf(out, len, "%s/pfs-fault-probe-%ld-%d", t->tmpdir, t->pid0, i);
        FILE *f = fopen(out, "w");
        if (!f)
            return 0;
        int ok = fputs("probe\n", f) >= 0;
        ok = fclose(f) == 0 && ok;
        if (ok && storage_host_of(out) == host)
            return 1;
        unlink(out);
    }
    return 0;
}

/* Collective: every rank's client reaches the probe's storage host again:
 * it reads the probe (its data is on that host only). At most 60 s. */
static int wait_reconnected(tu_ctx *t, const char *probe)
{
    double t0 = now();
    int ok = 0;
    while (!ok && now() - t0 < 60.0) {
        char b[16] = "";
        FILE *f = fopen(probe, "r");
        ok = f && fgets(b, sizeof b, f) && strcmp(b, "probe\n") == 0;
        if (f)
            fclose(f);
        if (!ok)
            usleep(100000);
    }
    return tu_all(t, ok);
}

/* Collective: rank 0 counts the temporaries of path
 * (".<name>.collio-tmp.<digits>") and prints every other file beside it
 * whose name contains path's: Open MPI's OMPIO, whose collective open
 * makes a lock file "<temporary>-<id>-<pid>.lock" for its shared file
 * pointer, leaves it behind when its close cannot reach the storage
 * host; collio removes only what it made. */
static int count_temporaries(tu_ctx *t, const char *path)
{
    int n = 0;
    if (t->rank == 0) {
        const char *slash = strrchr(path, '/'), *base = slash + 1;
        char dir[1024], stem[512];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        snprintf(stem, sizeof stem, ".%s.collio-tmp.", base);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, base) == 0 || !strstr(e->d_name, base))
                continue;
            const char *q = strncmp(e->d_name, stem, strlen(stem)) == 0
                                ? e->d_name + strlen(stem)
                                : NULL;
            if (q && *q && strspn(q, "0123456789") == strlen(q))
                n++;
            else
                printf("beside %s, not collio's: %s\n", path, e->d_name);
        }
        if (d)
            closedir(d);
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, t->comm);
    return n;
}

static int plan_for(tu_ctx *t, const char *strategy, collio_plan **p, int64_t **idx,
                    int64_t *n)
{
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, NX, 1000, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, strategy, NULL, p);
    tu_enumerate(&d, t->rank, t->nranks, idx, n);
    collio_layout_free(&l);
    tu_desc_free(&d);
    return TU_RC_ALL(t, rc, COLLIO_OK, "plan");
}

static void cut_mid_write(tu_ctx *t, const char *ctl, int k, const char *strategy,
                          collio_backend be)
{
    double t_case = now();
    const char *bn = be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
    tu_case(t, "%s %s: a storage host unreachable mid-write", strategy, bn);
    char path[1024], tmp[1100], name[64];
    tu_temp_path(t, "fault", path, sizeof path);
    const char *slash = strrchr(path, '/');
    snprintf(tmp, sizeof tmp, "%.*s/.%s.collio-tmp.0", (int)(slash - path), path,
             slash + 1);
    size_t pn = 0;
    unsigned char *prev = tu_expected_file(4096, 4, 77, 0, 0, &pn);
    if (!TU_CHECK(t, tu_posix_put(t, path, prev, pn), "previous file written")) {
        free(prev);
        return;
    }
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = be;
    collio_plan *p = NULL;
    int64_t *idx = NULL, n = 0;
    if (plan_for(t, strategy, &p, &idx, &n)) {
        size_t bytes = (size_t)n * 4;
        unsigned char *buf = malloc(bytes + 1);
        tu_fill(buf, idx, n, 4, 5);
        collio_file *f = NULL;
        int rc = collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &fo, &f);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "open")) {
            rc = collio_write(p, f, buf, bytes);
            TU_RC_ALL(t, rc, COLLIO_OK, "the first write");
            int host = -1;
            char probe[1100] = "";
            if (t->rank == 0) {
                host = storage_host_of(tmp);
                if (host > 0 && !make_probe(t, host, probe, sizeof probe))
                    host = -2;
            }
            MPI_Bcast(&host, 1, MPI_INT, 0, t->comm);
            MPI_Bcast(probe, sizeof probe, MPI_CHAR, 0, t->comm);
            char text[32];
            snprintf(text, sizeof text, "%d\n", host);
            snprintf(name, sizeof name, "cut-%d", k);
            if (TU_CHECK(t, host > 0,
                         "the temporary's storage host (pathinfo of %s), a probe there",
                         tmp)
                && TU_CHECK(t, ask_driver(t, ctl, name, text),
                            "the driver cut the link")) {
                double t0 = now();
                tu_fill(buf, idx, n, 4, 6);
                rc = collio_write(p, f, buf, bytes);
                int wrc = rc;
                if (rc == COLLIO_OK)
                    rc = collio_file_close(&f);
                else
                    collio_file_abort(&f);
                double dt = now() - t0, mx = 0;
                MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, t->comm);
                /* COLLIO_ERR_IO; or COLLIO_ERR_OPEN where the strategy opens
                 * the file inside the write (subgroup's masters): GlusterFS
                 * answers a lookup whose storage host is away with ENOENT */
                int lo = rc, hi = rc;
                MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, t->comm);
                MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, t->comm);
                TU_CHECK(t, lo == hi && (rc == COLLIO_ERR_IO || rc == COLLIO_ERR_OPEN),
                         "%s: %s (%d) here, codes %d..%d over the ranks; want one code, "
                         "COLLIO_ERR_IO or COLLIO_ERR_OPEN",
                         wrc == COLLIO_OK ? "close" : "second write", collio_strerror(rc),
                         rc, lo, hi);
                TU_CHECK(t, mx < BOUND_S, "the error came after %.1f s (bound %.0f s)",
                         mx, BOUND_S);
                if (t->rank == 0)
                    printf("%s %s: %s from %s after %.1f s: %s\n", strategy, bn,
                           collio_strerror(rc),
                           wrc == COLLIO_OK ? "collio_file_close" : "collio_write", mx,
                           collio_last_error());
            } else if (f) {
                collio_file_abort(&f);
            }
            /* whatever happened: the link back, every client reconnected */
            snprintf(name, sizeof name, "restore-%d", k);
            TU_CHECK(t, ask_driver(t, ctl, name, "\n"), "the driver restored the link");
            if (probe[0]) {
                double t1 = now();
                TU_CHECK(t, wait_reconnected(t, probe),
                         "every client reaches the storage host again");
                if (t->rank == 0)
                    printf("%s %s: every client reached the storage host again after "
                           "%.1f s\n",
                           strategy, bn, now() - t1);
                if (t->rank == 0)
                    unlink(probe);
            }
        }
        free(buf);
    }
    collio_plan_free(&p);
    free(idx);
    size_t got = 0;
    unsigned char *now_ = tu_posix_get(t, path, &got);
    TU_CHECK(t, now_ != NULL && got == pn && memcmp(now_, prev, pn) == 0,
             "previous file intact (%zu bytes)", got);
    free(now_);
    free(prev);
    int strays = count_temporaries(t, path);
    if (t->rank == 0)
        printf("%s %s: %d temporar%s left after the failure\n", strategy, bn, strays,
               strays == 1 ? "y" : "ies");
    TU_CHECK(t, strays <= 1, "at most the failed writer's temporary left (%d)", strays);

    /* The failed writer's temporary could not be removed while its storage
     * host was away, and its lock, dropped by a release that never reached
     * that host, stays until the host notices the client's old connection
     * is gone (TCP keepalive). Wait for that (the lock free without
     * waiting, as a reaper tries it); then the next CREATE reaps it. */
    int free_ = 1;
    double waited = 0;
    if (t->rank == 0 && access(tmp, F_OK) == 0) {
        double t0 = now();
        free_ = 0;
        while (!free_ && now() - t0 < BOUND_S) {
            int fd = open(tmp, O_RDWR);
            struct flock fl;
            memset(&fl, 0, sizeof fl);
            fl.l_type = F_WRLCK;
            fl.l_whence = SEEK_SET;
            free_ = fd >= 0 && fcntl(fd, F_OFD_SETLK, &fl) == 0;
            if (fd >= 0)
                close(fd);
            if (!free_)
                usleep(100000);
        }
        waited = now() - t0;
        printf("%s %s: the failed writer's lock was dropped after %.1f s\n", strategy, bn,
               waited);
    }
    MPI_Bcast(&free_, 1, MPI_INT, 0, t->comm);
    TU_CHECK(t, free_, "the failed writer's lock is dropped within %.0f s", BOUND_S);

    tu_case(t, "%s %s: a write after the link came back", strategy, bn);
    if (plan_for(t, strategy, &p, &idx, &n)) {
        size_t bytes = (size_t)n * 4;
        unsigned char *buf = malloc(bytes + 1);
        tu_fill(buf, idx, n, 4, 7);
        if (tu_plan_io(t, p, path, &fo, 1, buf, bytes))
            TU_CHECK(t, tu_check_file(t, path, NX, 4, 7, 0, 0, 1) == 0,
                     "file differs from the expectation");
        else if (t->rank == 0)
            printf("%s %s: the write after failed: %s\n", strategy, bn,
                   collio_last_error());
        TU_CHECK(t, count_temporaries(t, path) == 0, "no temporary left");
        free(buf);
    }
    collio_plan_free(&p);
    free(idx);
    tu_remove(t, path);
    if (t->rank == 0)
        printf("%s %s: %.1f s in all\n", strategy, bn, now() - t_case);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "pfs_fault");
    t.filter = NULL;
    const char *dir = getenv("COLLIO_PFS_DIR");
    if (argc < 3 || !dir) {
        if (t.rank == 0)
            fprintf(stderr, "usage: pfs_fault CTLDIR STRATEGY/BACKEND... inside "
                            "scripts/pfs (tests/pfs_fault.sh)\n");
        tu_finish(&t);
        return 2;
    }
    snprintf(t.tmpdir, sizeof t.tmpdir, "%s", dir);
    for (int i = 2; i < argc; i++) {
        char s[64];
        snprintf(s, sizeof s, "%s", argv[i]);
        char *b = strchr(s, '/');
        if (b)
            *b++ = '\0';
        collio_backend be =
            b && strcmp(b, "mpiio") == 0 ? COLLIO_BACKEND_MPIIO : COLLIO_BACKEND_POSIX;
        cut_mid_write(&t, argv[1], i - 2, s, be);
    }
    return tu_finish(&t);
}
