/*
 * machine/calibration_store.c -- writing the calibration file
 * (calibration.c reads it; docs/auto.md gives its format): a whole file
 * (collio_calibration_save), or one measurement merged into what the file
 * holds (collio_calibration_store), as `collio-bench calibrate` and
 * strategy auto's measurement at an uncalibrated first call do.
 *
 * Concurrent writers. Jobs of one user share the file, and two of them
 * may measure at once (two first calls on new file systems, or the same
 * one). Each write goes to a temporary of its own beside the file and is
 * renamed over it, so a reader sees one whole file or the other, never a
 * mix; and a store reads, merges and writes under an exclusive lock of
 * FILE.lock (flock(2), released by the kernel if the process dies), so
 * that entries two jobs add at once are both kept. Where the file system
 * has no locks (ENOLCK), the store goes on without: the file stays whole,
 * and at worst one job's entry is measured again by a later job.
 */
#include "base/base.h"
#include "machine/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef COLLIO_HAVE_JSONC
#include <json-c/json.h>

static double fs_num(const collio_fs_costs *fs, const collio__cal_num *n)
{
    return *(const double *)((const char *)fs + n->offset);
}

static json_object *link_json(double lat, double bw)
{
    json_object *l = json_object_new_object();
    json_object_object_add(l, "latency_s", json_object_new_double(lat));
    json_object_object_add(l, "bandwidth_Bps", json_object_new_double(bw));
    return l;
}

/* The terms of kind "call" under "calls" by their strategy's name (as
 * files always had them), every other one under "terms" by its key
 * (calibration.c reads both). Into the entry e. */
static void terms_json(json_object *e, const collio_fs_costs *fs)
{
    json_object *calls = json_object_new_object(), *terms = json_object_new_object();
    json_object_object_add(calls, "ranks", json_object_new_int(fs->call_ranks));
    json_object_object_add(calls, "ranks_per_node",
                           json_object_new_int(fs->call_ranks_per_node));
    for (int i = 0; i < fs->nterms && i < COLLIO_CAL_TERMS_MAX; i++) {
        const collio_cost_term *t = &fs->terms[i];
        json_object *v = json_object_new_object();
        json_object_object_add(v, "write_s", json_object_new_double(t->write_s));
        json_object_object_add(v, "read_s", json_object_new_double(t->read_s));
        size_t n = 0;
        if (strcmp(collio__cost_term_kind(t->key, &n), "call") == 0) {
            char name[48];
            snprintf(name, sizeof name, "%.*s", (int)n, t->key);
            json_object_object_add(calls, name, v);
        } else {
            json_object_object_add(terms, t->key, v);
        }
    }
    if (fs->call_ranks > 0)
        json_object_object_add(e, "calls", calls);
    else
        json_object_put(calls);
    json_object_object_add(e, "terms", terms);
}

static json_object *to_json(const collio_calibration *c)
{
    json_object *root = json_object_new_object();
    json_object *net = json_object_new_object();
    json_object_object_add(root, "format", json_object_new_string("collio-calibration"));
    json_object_object_add(root, "version", json_object_new_int(1));
    json_object_object_add(net, "intra_node",
                           link_json(c->latency_s[0], c->bandwidth_Bps[0]));
    json_object_object_add(net, "inter_node",
                           link_json(c->latency_s[1], c->bandwidth_Bps[1]));
    json_object_object_add(root, "network", net);
    json_object_object_add(root, "copy_Bps", json_object_new_double(c->copy_Bps));
    json_object_object_add(root, "piece_s", json_object_new_double(c->piece_s));
    json_object_object_add(root, "cores_per_node",
                           json_object_new_int(c->cores_per_node));
    json_object_object_add(root, "shm_window",
                           json_object_new_boolean(c->shm_window != 0));
    json_object *fss = json_object_new_array();
    for (int i = 0; i < c->nfs && i < COLLIO_CALIBRATION_MAX_FS; i++) {
        const collio_fs_costs *fs = &c->fs[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "type", json_object_new_string(fs->id.type));
        json_object_object_add(o, "mount", json_object_new_string(fs->id.mount));
        json_object_object_add(o, "source", json_object_new_string(fs->id.source));
        json_object_object_add(o, "magic", json_object_new_int64((int64_t)fs->id.magic));
        if (fs->mpi[0] != '\0')
            json_object_object_add(o, "mpi", json_object_new_string(fs->mpi));
        json_object_object_add(o, "method",
                               json_object_new_string(fs->quick ? "quick" : "full"));
        for (int k = 0; k < collio__cal_fs_nnums; k++)
            json_object_object_add(
                o, collio__cal_fs_nums[k].key,
                json_object_new_double(fs_num(fs, &collio__cal_fs_nums[k])));
        terms_json(o, fs);
        if (fs->ninterleaved > 0) {
            json_object *arr = json_object_new_array();
            for (int k = 0; k < fs->ninterleaved && k < COLLIO_CAL_INTERLEAVED_MAX; k++) {
                json_object *e = json_object_new_object();
                json_object_object_add(e, "bytes",
                                       json_object_new_double(fs->interleaved_bytes[k]));
                json_object_object_add(
                    e, "write_s", json_object_new_double(fs->write_interleaved_s[k]));
                json_object_object_add(e, "read_s",
                                       json_object_new_double(fs->read_interleaved_s[k]));
                json_object_array_add(arr, e);
            }
            json_object_object_add(o, "interleaved", arr);
        }
        json_object_array_add(fss, o);
    }
    json_object_object_add(root, "filesystems", fss);
    return root;
}

/* mkdir -p of the directory part of path. */
static void make_parent_dirs(const char *path)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", path);
    for (char *s = d + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        mkdir(d, 0755);
        *s = '/';
    }
}

/* COLLIO_OK if nothing is at path or a regular file is; else IO, said. */
static int regular_or_none(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)
        && !(S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode))) {
        collio__error_set(COLLIO_ERR_IO,
                          "calibration file %.900s: not a regular file: not replaced",
                          path);
        return COLLIO_ERR_IO;
    }
    return COLLIO_OK;
}

/* c as JSON into a temporary of this process beside path, renamed over
 * it. */
static int write_whole(const char *path, const collio_calibration *c)
{
    char tmp[4300], host[64] = "";
    gethostname(host, sizeof host - 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp, sizeof tmp, "%s.tmp.%.60s.%ld.%lx", path, host, (long)getpid(),
             (unsigned long)ts.tv_nsec);
    json_object *root = to_json(c);
    const char *text = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    int ok = f != NULL && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    ok = (f != NULL && fclose(f) == 0) && ok;
    int err = errno;
    json_object_put(root);
    if (!ok || rename(tmp, path) != 0) {
        err = ok ? errno : err;
        if (fd >= 0)
            unlink(tmp);
        collio__error_set(COLLIO_ERR_IO, "calibration file %.900s: %s", path,
                          strerror(err));
        return COLLIO_ERR_IO;
    }
    return COLLIO_OK;
}

/* The default path where path is NULL, into def. */
static int resolve(const char *path, char *def, size_t n, const char **out)
{
    *out = path;
    if (path != NULL)
        return COLLIO_OK;
    int rc = collio_calibration_path(def, n);
    *out = def;
    return rc;
}

int collio_calibration_save(const char *path, const collio_calibration *c)
{
    char def[4096];
    if (c == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_calibration_save: c is NULL");
        return COLLIO_ERR_ARG;
    }
    int rc = resolve(path, def, sizeof def, &path);
    if (rc == COLLIO_OK)
        rc = regular_or_none(path);
    if (rc != COLLIO_OK)
        return rc;
    make_parent_dirs(path);
    return write_whole(path, c);
}

/* How long a store waits for another one's lock before it gives up. */
#define LOCK_WAIT_S 10.0

/* The lock of path (FILE.lock): its descriptor, -1 where this file system
 * has no locks (go on without), -2 (said) where another process held it
 * for LOCK_WAIT_S. */
static int lock_path(const char *path)
{
    char lp[4200];
    snprintf(lp, sizeof lp, "%s.lock", path);
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    for (double waited = 0; waited < LOCK_WAIT_S; waited += 0.02) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            close(fd); /* (ENOLCK, ...: no locks here) */
            return -1;
        }
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    close(fd);
    collio__error_set(COLLIO_ERR_IO,
                      "calibration file %.900s: locked by another process "
                      "for %.0f s",
                      path, LOCK_WAIT_S);
    return -2;
}

/* The slot of fs in c: its file system's with the same rank layout and
 * MPI library, else a new one at the end (the oldest entry dropped when c
 * is full). */
static int slot_for(collio_calibration *c, const collio_fs_costs *fs)
{
    for (int i = 0; i < c->nfs; i++) {
        const collio_fs_costs *e = &c->fs[i];
        if (strcmp(e->id.type, fs->id.type) == 0
            && strcmp(e->id.source, fs->id.source) == 0
            && strcmp(e->id.mount, fs->id.mount) == 0 && strcmp(e->mpi, fs->mpi) == 0
            && (e->call_ranks <= 0 || fs->call_ranks <= 0
                || (e->call_ranks_per_node == fs->call_ranks_per_node
                    && (e->call_ranks > e->call_ranks_per_node)
                           == (fs->call_ranks > fs->call_ranks_per_node))))
            return i;
    }
    if (c->nfs == COLLIO_CALIBRATION_MAX_FS) {
        memmove(&c->fs[0], &c->fs[1], (COLLIO_CALIBRATION_MAX_FS - 1) * sizeof c->fs[0]);
        c->nfs--;
    }
    return c->nfs++;
}

int collio_calibration_store(const char *path, const collio_calibration *machine,
                             const collio_fs_costs *fs)
{
    char def[4096];
    if (fs == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_calibration_store: fs is NULL");
        return COLLIO_ERR_ARG;
    }
    int rc = resolve(path, def, sizeof def, &path);
    if (rc == COLLIO_OK)
        rc = regular_or_none(path);
    if (rc != COLLIO_OK)
        return rc;
    make_parent_dirs(path);
    int lock = lock_path(path);
    if (lock == -2)
        return COLLIO_ERR_IO;
    static collio_calibration c; /* (large) */
    if (collio_calibration_load(path, &c) != COLLIO_OK)
        collio_calibration_defaults(&c); /* none, or corrupt: replaced */
    if (machine != NULL) {
        collio_calibration m = *machine;
        m.nfs = c.nfs;
        memcpy(m.fs, c.fs, sizeof m.fs);
        c = m;
    }
    c.fs[slot_for(&c, fs)] = *fs;
    rc = write_whole(path, &c);
    if (lock >= 0)
        close(lock); /* (releases the lock) */
    return rc;
}

#else /* !COLLIO_HAVE_JSONC */

int collio_calibration_save(const char *path, const collio_calibration *c)
{
    (void)path;
    (void)c;
    collio__error_set(COLLIO_ERR_UNSUPPORTED,
                      "collio was built without json-c: no calibration file is written");
    return COLLIO_ERR_UNSUPPORTED;
}

int collio_calibration_store(const char *path, const collio_calibration *machine,
                             const collio_fs_costs *fs)
{
    (void)path, (void)machine, (void)fs;
    collio__error_set(COLLIO_ERR_UNSUPPORTED,
                      "collio was built without json-c: no calibration file is written");
    return COLLIO_ERR_UNSUPPORTED;
}

#endif
