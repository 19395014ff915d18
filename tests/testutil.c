/*
 * testutil.c -- check counting, temp files, and the independent reference
 * of the file bytes for the MPI tests (layout descriptions and per-rank
 * index enumeration are in testutil_layout.c).
 * See testutil.h for the contract. Nothing here calls into the library
 * except tu_desc_make (which builds the layout under test), the I/O and
 * hint/stat helpers (tu_plan_io, tu_hints_, tu_stat_, tu_plan_hint_) and
 * collio_strerror for messages; the references never do.
 *
 * Bounds are half-open, [start, end).
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TU_MAX_MESSAGES 40 /* failure messages printed per rank */

/* --------------------------------------------------------------- checks */

static void init(tu_ctx *t, int *argc, char ***argv, const char *name, int threads);

void tu_init(tu_ctx *t, int *argc, char ***argv, const char *name)
{
    init(t, argc, argv, name, 0);
}

void tu_init_threads(tu_ctx *t, int *argc, char ***argv, const char *name)
{
    init(t, argc, argv, name, 1);
}

static void init(tu_ctx *t, int *argc, char ***argv, const char *name, int threads)
{
    memset(t, 0, sizeof *t);
    if (threads)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &t->thread_level);
    else
        MPI_Init(argc, argv);
    t->comm = MPI_COMM_WORLD;
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->nranks);
    t->name = name;
    const char *v = getenv("COLLIO_TEST_VERBOSE");
    t->verbose = v && atoi(v) > 0;
    const char *dir = getenv("COLLIO_TEST_TMPDIR");
    snprintf(t->tmpdir, sizeof t->tmpdir, "%s", dir && *dir ? dir : "/tmp");
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, t->comm);
    t->pid0 = pid;
    if (*argc > 1 && (*argv)[1][0] != '-')
        t->filter = (*argv)[1];
    /* Watchdog: a hang in the library becomes a failed test, not a stuck
     * ctest. The default SIGALRM action terminates the process. */
    const char *to = getenv("COLLIO_TEST_TIMEOUT");
    unsigned secs = to ? (unsigned)atoi(to) : 500u; /* ctest kills at 600 */
    if (secs > 0)
        alarm(secs);
    snprintf(t->casedesc, sizeof t->casedesc, "(setup)");
}

/* Removes every file of this run (its names carry the run's unique
 * prefix; temporaries the library makes beside a path contain it too). */
static void tu_cleanup(tu_ctx *t)
{
    if (t->rank != 0)
        return;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "collio-%s-np%d-%ld-", t->name, t->nranks, t->pid0);
    DIR *d = opendir(t->tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strstr(e->d_name, prefix)) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", t->tmpdir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
}

int tu_finish(tu_ctx *t)
{
    int64_t in[2] = {t->passed, t->failed}, sum[2];
    int64_t skipped = 0;
    MPI_Allreduce(in, sum, 2, MPI_INT64_T, MPI_SUM, t->comm);
    MPI_Allreduce(&t->skipped, &skipped, 1, MPI_INT64_T, MPI_MAX, t->comm);
    const char *keep = getenv("COLLIO_TEST_KEEP");
    if (!(keep && atoi(keep) > 0))
        tu_cleanup(t);
    if (t->rank == 0) {
        if (skipped > 0)
            printf("%s: %lld case(s) skipped at %d rank(s)\n", t->name,
                   (long long)skipped, t->nranks);
        printf("%lld passed, %lld failed\n", (long long)sum[0], (long long)sum[1]);
        fflush(stdout);
    }
    MPI_Finalize();
    return sum[1] > 0 ? 1 : 0;
}

void tu_case(tu_ctx *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->casedesc, sizeof t->casedesc, fmt, ap);
    va_end(ap);
    if (t->verbose && t->rank == 0 && tu_case_enabled(t)) {
        printf("case: %s\n", t->casedesc);
        fflush(stdout);
    }
}

int tu_case_enabled(const tu_ctx *t)
{
    return !t->filter || strstr(t->casedesc, t->filter) != NULL;
}

static void tu_vfail(tu_ctx *t, const char *file, int line, const char *fmt, va_list ap)
{
    t->failed++;
    if (t->messages++ >= TU_MAX_MESSAGES) {
        if (t->messages == TU_MAX_MESSAGES + 1)
            fprintf(stderr, "[rank %d] further failure messages suppressed\n", t->rank);
        return;
    }
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "FAIL %s:%d [rank %d/%d] {%s} %s\n", file, line, t->rank, t->nranks,
            t->casedesc, msg);
    fflush(stderr);
}

int tu_check_(tu_ctx *t, int cond, const char *file, int line, const char *fmt, ...)
{
    if (cond) {
        t->passed++;
        return 1;
    }
    va_list ap;
    va_start(ap, fmt);
    tu_vfail(t, file, line, fmt, ap);
    va_end(ap);
    return 0;
}

collio_hints *tu_hints_(tu_ctx *t, const char *file, int line, const char *fmt, ...)
{
    char list[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(list, sizeof list, fmt, ap);
    va_end(ap);
    collio_hints *h = NULL;
    int rc = collio_hints_create(&h);
    if (rc == COLLIO_OK)
        rc = collio_hints_parse(h, list);
    if (rc != COLLIO_OK) {
        tu_check_(t, 0, file, line, "hints '%s': %s (%s)", list, collio_strerror(rc),
                  collio_last_error());
        collio_hints_free(&h);
    }
    return h;
}

double tu_stat_(tu_ctx *t, const collio_plan *p, const char *key, const char *file,
                int line)
{
    double v = -1;
    int rc = collio_plan_stat(p, key, &v);
    if (rc != COLLIO_OK) {
        tu_check_(t, 0, file, line, "collio_plan_stat %s: %s (%s)", key,
                  collio_strerror(rc), collio_last_error());
        return -1;
    }
    return v;
}

int tu_stat_values_(tu_ctx *t, const collio_plan *p, const char *key, double *v, int max,
                    const char *file, int line)
{
    int n = 0;
    int rc = collio_plan_stat_values(p, key, v, max, &n);
    if (rc != COLLIO_OK) {
        tu_check_(t, 0, file, line, "collio_plan_stat_values %s: %s (%s)", key,
                  collio_strerror(rc), collio_last_error());
        return 0;
    }
    return n;
}

char *tu_plan_hint_(tu_ctx *t, const collio_plan *p, const char *key, char *out, size_t n,
                    const char *file, int line)
{
    collio_hints *h = NULL;
    int flag = 0;
    out[0] = '\0';
    int rc = collio_plan_hints(p, &h);
    if (rc == COLLIO_OK)
        rc = collio_hints_get(h, key, out, n, &flag);
    if (rc != COLLIO_OK || !flag)
        tu_check_(t, 0, file, line, "collio_plan_hints %s: %s (%s)", key,
                  rc != COLLIO_OK ? collio_strerror(rc) : "not reported",
                  rc != COLLIO_OK ? collio_last_error() : "");
    collio_hints_free(&h);
    return out;
}

int tu_check_rc_(tu_ctx *t, int rc, int want, const char *file, int line,
                 const char *what)
{
    return tu_check_(t, rc == want, file, line, "%s: got %d (%s), want %d (%s)", what, rc,
                     collio_strerror(rc), want, collio_strerror(want));
}

int tu_check_rc_all_(tu_ctx *t, int rc, int want, const char *file, int line,
                     const char *what)
{
    int mm[2] = {-rc, rc}, res[2];
    MPI_Allreduce(mm, res, 2, MPI_INT, MPI_MAX, t->comm);
    int lo = -res[0], hi = res[1];
    int ok = rc == want && lo == hi;
    if (rc != want)
        tu_check_(t, 0, file, line, "%s: got %d (%s), want %d (%s)%s", what, rc,
                  collio_strerror(rc), want, collio_strerror(want),
                  lo != hi ? " [codes also differ across ranks]" : "");
    else if (lo != hi)
        tu_check_(t, 0, file, line, "%s: codes differ across ranks (min %d, max %d)",
                  what, lo, hi);
    else
        t->passed++;
    return tu_all(t, ok);
}

int tu_all(const tu_ctx *t, int ok)
{
    int in = ok ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, t->comm);
    return out;
}

void tu_skip(tu_ctx *t, const char *why)
{
    t->skipped++;
    if (t->rank == 0) {
        printf("SKIP {%s} %s\n", t->casedesc, why);
        fflush(stdout);
    }
}

/* ----------------------------------------------------------- temp files */

void tu_temp_path(tu_ctx *t, const char *tag, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/collio-%s-np%d-%ld-%lld-%s", t->tmpdir, t->name, t->nranks,
             t->pid0, (long long)t->counter++, tag);
}

void tu_remove(tu_ctx *t, const char *path)
{
    if (t->rank == 0)
        unlink(path);
    MPI_Barrier(t->comm);
}

int tu_count_strays(tu_ctx *t, const char *path)
{
    int n = 0;
    if (t->rank == 0) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        const char *base = path;
        if (slash) {
            *slash = '\0';
            base = path + (slash - dir) + 1;
        } else {
            snprintf(dir, sizeof dir, ".");
        }
        DIR *d = opendir(dir[0] ? dir : "/");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, base) != 0 && strstr(e->d_name, base)) {
                n++;
                fprintf(stderr, "[rank 0] stray file beside %s: %s\n", path, e->d_name);
            }
        }
        if (d)
            closedir(d);
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, t->comm);
    return n;
}

int tu_plan_io(tu_ctx *t, collio_plan *p, const char *path, const collio_file_options *fo,
               int writing, void *buf, size_t bytes)
{
    collio_file *f = NULL;
    int rc = collio_file_open(t->comm, path,
                              writing ? COLLIO_FILE_CREATE : COLLIO_FILE_READ, fo, &f);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, writing ? "open create" : "open read"))
        return 0;
    rc = writing ? collio_write(p, f, buf, bytes) : collio_read(p, f, buf, bytes);
    int ok = TU_RC_ALL(t, rc, COLLIO_OK, writing ? "write" : "read");
    rc = collio_file_close(&f);
    return TU_RC_ALL(t, rc, COLLIO_OK, writing ? "close" : "close read") && ok;
}

int tu_posix_put(tu_ctx *t, const char *path, const void *data, size_t n)
{
    int ok = 1;
    if (t->rank == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ok = fd >= 0;
        size_t done = 0;
        while (ok && done < n) {
            ssize_t w = pwrite(fd, (const char *)data + done, n - done, (off_t)done);
            if (w < 0 && errno == EINTR)
                continue;
            ok = w > 0;
            if (ok)
                done += (size_t)w;
        }
        if (fd >= 0 && close(fd) != 0)
            ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, t->comm);
    return ok;
}

unsigned char *tu_posix_get(tu_ctx *t, const char *path, size_t *n)
{
    long long len = -1;
    unsigned char *buf = NULL;
    if (t->rank == 0) {
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0) {
            len = (long long)st.st_size;
            buf = malloc((size_t)len + 1);
            long long done = 0;
            while (buf && done < len) {
                ssize_t r = pread(fd, buf + done, (size_t)(len - done), (off_t)done);
                if (r <= 0)
                    break;
                done += r;
            }
            if (!buf || done != len)
                len = -1;
        }
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, t->comm);
    if (len < 0) {
        free(buf);
        *n = 0;
        return NULL;
    }
    if (t->rank != 0)
        buf = malloc((size_t)len + 1);
    MPI_Bcast(buf, (int)len, MPI_BYTE, 0, t->comm);
    *n = (size_t)len;
    return buf;
}

/* ------------------------------------------------- independent reference */

unsigned char tu_header_byte(int64_t j)
{
    return (unsigned char)(0xC3 ^ (j * 31 + 7));
}

unsigned char *tu_expected_file(int64_t nglobal, size_t esize, uint64_t seed,
                                int64_t base, int header, size_t *n)
{
    size_t total = (size_t)base + (size_t)nglobal * esize;
    unsigned char *b = calloc(total + 1, 1);
    if (!b)
        return NULL;
    for (int64_t j = 0; header && j < base; j++)
        b[j] = tu_header_byte(j);
    for (int64_t i = 0; i < nglobal; i++)
        collio_pattern_element((uint64_t)i, seed, esize, b + base + (size_t)i * esize);
    *n = total;
    return b;
}

int64_t tu_check_file(tu_ctx *t, const char *path, int64_t nglobal, size_t esize,
                      uint64_t seed, int64_t base, int check_header, int count)
{
    int64_t bad = 0;
    long long size = -1;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0)
        size = (long long)st.st_size;
    long long want_size = (long long)base + (long long)nglobal * (long long)esize;
    char msg[384] = "";
    if (fd < 0) {
        bad++;
        snprintf(msg, sizeof msg, "cannot open %s: %s", path, strerror(errno));
    } else {
        if (t->rank == 0 && size != want_size) {
            bad++;
            snprintf(msg, sizeof msg, "file size %lld, want %lld", size, want_size);
        }
        /* This rank's slice of the elements: [lo, hi). */
        int64_t lo = nglobal * t->rank / t->nranks;
        int64_t hi = nglobal * (t->rank + 1) / t->nranks;
        size_t nb = (size_t)(hi - lo) * esize;
        unsigned char *got = calloc(nb + 1, 1), want[4096];
        size_t done = 0;
        while (got && done < nb) {
            ssize_t r = pread(fd, got + done, nb - done,
                              (off_t)(base + lo * (int64_t)esize + (int64_t)done));
            if (r <= 0)
                break;
            done += (size_t)r;
        }
        int64_t firstbad = -1;
        for (int64_t i = lo; got && i < hi; i++) {
            const unsigned char *g = got + (size_t)(i - lo) * esize;
            collio_pattern_element((uint64_t)i, seed, esize, want);
            for (size_t j = 0; j < esize; j++) {
                if (g[j] != want[j] || (size_t)(i - lo) * esize + j >= done) {
                    if (firstbad < 0) {
                        firstbad = i;
                        if (!msg[0])
                            snprintf(
                                msg, sizeof msg,
                                "element %lld byte %zu at file offset %lld: got 0x%02x "
                                "want 0x%02x%s",
                                (long long)i, j,
                                (long long)(base + i * (int64_t)esize + (int64_t)j), g[j],
                                want[j],
                                (size_t)(i - lo) * esize + j >= done ? " (short file)"
                                                                     : "");
                    }
                    bad++;
                }
            }
        }
        free(got);
        if (t->rank == 0 && check_header && base > 0) {
            unsigned char *h = malloc((size_t)base);
            ssize_t r = h ? pread(fd, h, (size_t)base, 0) : -1;
            int64_t hbad = r == base ? 0 : 1;
            for (int64_t j = 0; r == base && j < base; j++)
                if (h[j] != tu_header_byte(j)) {
                    if (!hbad && !msg[0])
                        snprintf(msg, sizeof msg, "header byte %lld changed",
                                 (long long)j);
                    hbad++;
                }
            bad += hbad;
            free(h);
        }
        close(fd);
    }
    if (count)
        TU_CHECK(t, bad == 0, "file %s: %lld bad byte(s); first: %s", path,
                 (long long)bad, msg);
    int64_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, t->comm);
    return total;
}

/* ------------------------------------------------------------ nodes */

void tu_node_map_make(tu_ctx *t, tu_node_map *nm)
{
    const int P = t->nranks;
    MPI_Comm node;
    MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &node);
    int leader = t->rank;
    MPI_Allreduce(&t->rank, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    int *lead = malloc((size_t)P * sizeof *lead);
    MPI_Allgather(&leader, 1, MPI_INT, lead, 1, MPI_INT, t->comm);
    nm->node_of = malloc((size_t)P * sizeof *nm->node_of);
    nm->lidx = malloc((size_t)P * sizeof *nm->lidx);
    nm->size = calloc((size_t)P, sizeof *nm->size);
    nm->M = 0;
    for (int r = 0; r < P; r++) {
        int id = 0; /* leaders below this rank's leader */
        for (int q = 0; q < lead[r]; q++)
            id += lead[q] == q;
        nm->node_of[r] = id;
        nm->lidx[r] = nm->size[id]++;
        nm->M += lead[r] == r;
    }
    free(lead);
}

void tu_node_map_free(tu_node_map *nm)
{
    free(nm->node_of);
    free(nm->lidx);
    free(nm->size);
}
