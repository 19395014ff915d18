/*
 * testutil.c -- check counting, temp files, and the independent references
 * (expected file bytes, per-rank index enumeration) of the MPI tests.
 * See testutil.h for the contract. Nothing here calls into the library
 * except tu_desc_make (which builds the layout under test) and
 * collio_strerror for messages.
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

void tu_init(tu_ctx *t, int *argc, char ***argv, const char *name)
{
    memset(t, 0, sizeof *t);
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

/* ----------------------------------------------------- layout descriptions */

uint64_t tu_rand(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void tu_desc_block_cyclic(tu_layout_desc *d, int64_t nx, int64_t bx, size_t esize)
{
    memset(d, 0, sizeof *d);
    d->kind = TU_BLOCK_CYCLIC;
    d->nx = nx;
    d->bx = bx;
    d->esize = esize;
    d->nglobal = nx;
    snprintf(d->name, sizeof d->name, "block_cyclic(nx=%lld,bx=%lld,esize=%zu)",
             (long long)nx, (long long)bx, esize);
}

static const char *tu_dist_name(collio_distrib x)
{
    return x == COLLIO_DIST_NONE ? "N" : x == COLLIO_DIST_BLOCK ? "B" : "C";
}

void tu_desc_darray(tu_layout_desc *d, int nranks, int ndims, const int64_t gsizes[],
                    const collio_distrib distribs[], const int64_t dargs[],
                    const int psizes[], collio_order order, size_t esize)
{
    memset(d, 0, sizeof *d);
    d->kind = TU_DARRAY;
    d->ndims = ndims;
    d->order = order;
    d->esize = esize;
    d->nglobal = 1;
    int dims[COLLIO_MAX_DIMS] = {0};
    for (int k = 0; k < ndims; k++) {
        d->gsizes[k] = gsizes[k];
        d->distribs[k] = distribs[k];
        d->dargs[k] = dargs ? dargs[k] : COLLIO_DARG_DEFAULT;
        d->nglobal *= gsizes[k];
        dims[k] = distribs[k] == COLLIO_DIST_NONE ? 1 : 0;
    }
    if (psizes) {
        for (int k = 0; k < ndims; k++)
            d->psizes[k] = psizes[k];
    } else {
        MPI_Dims_create(nranks, ndims, dims);
        for (int k = 0; k < ndims; k++)
            d->psizes[k] = dims[k];
    }
    int len = snprintf(d->name, sizeof d->name, "darray(%s,",
                       order == COLLIO_ORDER_C ? "C" : "F");
    for (int k = 0; k < ndims && len < (int)sizeof d->name; k++)
        len +=
            snprintf(d->name + len, sizeof d->name - (size_t)len, "%s%lld:%s%lld/p%d",
                     k ? "x" : "", (long long)d->gsizes[k], tu_dist_name(d->distribs[k]),
                     (long long)d->dargs[k], d->psizes[k]);
    if (len < (int)sizeof d->name)
        snprintf(d->name + len, sizeof d->name - (size_t)len, ",esize=%zu)", esize);
}

/* Skewed piece sizes for index lists: every third rank (1, 4, 7, ...)
 * empty when P > 1, the others weighted unevenly; sum = nglobal. */
static void tu_skewed_sizes(int nranks, int64_t nglobal, int64_t *sizes)
{
    int64_t w[1024], total = 0, given = 0;
    int last = 0;
    for (int r = 0; r < nranks; r++) {
        w[r] = (nranks > 1 && r % 3 == 1) ? 0 : 1 + (r * 5) % 7;
        total += w[r];
        if (w[r])
            last = r;
    }
    for (int r = 0; r < nranks; r++) {
        sizes[r] = nglobal * w[r] / total;
        given += sizes[r];
    }
    sizes[last] += nglobal - given;
}

void tu_desc_index_list(tu_layout_desc *d, int rank, int nranks, int64_t nglobal,
                        tu_il_kind how, uint64_t seed, size_t esize)
{
    static const char *names[] = {"shuffled", "scatter", "reversed"};
    memset(d, 0, sizeof *d);
    d->kind = TU_INDEX_LIST;
    d->nglobal = nglobal;
    d->esize = esize;
    snprintf(d->name, sizeof d->name, "index_list(%s,n=%lld,seed=%llu,esize=%zu)",
             names[how], (long long)nglobal, (unsigned long long)seed, esize);
    int64_t *sizes = calloc((size_t)nranks, sizeof *sizes);
    int64_t *all = malloc(((size_t)nglobal + 1) * sizeof *all);
    uint64_t st = seed;
    tu_skewed_sizes(nranks, nglobal, sizes);
    int64_t start = 0;
    for (int r = 0; r < rank; r++)
        start += sizes[r];
    d->idx = malloc(((size_t)nglobal + 1) * sizeof *d->idx);
    d->nlocal = 0;
    if (how == TU_IL_SHUFFLED) {
        for (int64_t i = 0; i < nglobal; i++)
            all[i] = i;
        for (int64_t i = nglobal - 1; i > 0; i--) { /* Fisher-Yates */
            int64_t j = (int64_t)(tu_rand(&st) % (uint64_t)(i + 1));
            int64_t x = all[i];
            all[i] = all[j];
            all[j] = x;
        }
        for (int64_t k = 0; k < sizes[rank]; k++)
            d->idx[d->nlocal++] = all[start + k];
    } else if (how == TU_IL_SCATTER) {
        for (int64_t i = 0; i < nglobal; i++) {
            int owner = (int)(tu_rand(&st) % (uint64_t)nranks);
            if (nranks > 1 && owner % 3 == 1)
                owner = 0;
            if (owner == rank)
                d->idx[d->nlocal++] = i;
        }
    } else {
        for (int64_t k = sizes[rank] - 1; k >= 0; k--)
            d->idx[d->nlocal++] = start + k;
    }
    free(all);
    free(sizes);
}

void tu_desc_free(tu_layout_desc *d)
{
    free(d->idx);
    d->idx = NULL;
}

int tu_desc_make(const tu_layout_desc *d, MPI_Comm comm, collio_layout **out)
{
    switch (d->kind) {
    case TU_BLOCK_CYCLIC:
        return collio_layout_block_cyclic(comm, d->nx, d->bx, d->esize, out);
    case TU_DARRAY:
        return collio_layout_darray(comm, d->ndims, d->gsizes, d->distribs, d->dargs,
                                    d->psizes, d->order, d->esize, out);
    case TU_INDEX_LIST:
        return collio_layout_index_list(comm, d->nglobal, d->nlocal,
                                        d->nlocal ? d->idx : NULL, d->esize, out);
    }
    return -1;
}

/* ------------------------------------------------------------ enumeration */

/* The indices of dimension k this grid coordinate holds, increasing. */
static int64_t tu_dim_local(const tu_layout_desc *d, int k, int coord, int64_t *out)
{
    int64_t g = d->gsizes[k], p = d->psizes[k], n = 0;
    switch (d->distribs[k]) {
    case COLLIO_DIST_NONE:
        for (int64_t i = 0; i < g; i++)
            out[n++] = i;
        break;
    case COLLIO_DIST_BLOCK: {
        int64_t b = d->dargs[k] > 0 ? d->dargs[k] : (g + p - 1) / p;
        for (int64_t i = 0; i < g; i++)
            if (i / b == coord)
                out[n++] = i;
        break;
    }
    case COLLIO_DIST_CYCLIC: {
        int64_t c = d->dargs[k] > 0 ? d->dargs[k] : 1;
        for (int64_t i = 0; i < g; i++)
            if ((i / c) % p == coord)
                out[n++] = i;
        break;
    }
    }
    return n;
}

static int tu_enum_darray(const tu_layout_desc *d, int rank, int64_t **idx, int64_t *n)
{
    int nd = d->ndims, coord[COLLIO_MAX_DIMS];
    int64_t *loc[COLLIO_MAX_DIMS], nloc[COLLIO_MAX_DIMS], stride[COLLIO_MAX_DIMS];
    int r = rank;
    for (int k = nd - 1; k >= 0; k--) { /* grid row-major in rank */
        coord[k] = r % d->psizes[k];
        r /= d->psizes[k];
    }
    int64_t total = 1;
    for (int k = 0; k < nd; k++) {
        loc[k] = malloc(((size_t)d->gsizes[k] + 1) * sizeof(int64_t));
        nloc[k] = tu_dim_local(d, k, coord[k], loc[k]);
        total *= nloc[k];
    }
    /* Element strides of the global array in its order. */
    for (int k = 0; k < nd; k++) {
        stride[k] = 1;
        if (d->order == COLLIO_ORDER_C)
            for (int j = k + 1; j < nd; j++)
                stride[k] *= d->gsizes[j];
        else
            for (int j = 0; j < k; j++)
                stride[k] *= d->gsizes[j];
    }
    int64_t *out = malloc(((size_t)total + 1) * sizeof *out);
    int64_t pos[COLLIO_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t g = 0;
        for (int k = 0; k < nd; k++)
            g += loc[k][pos[k]] * stride[k];
        out[e] = g;
        /* odometer: the fastest dimension of the order first */
        for (int s = 0; s < nd; s++) {
            int k = d->order == COLLIO_ORDER_C ? nd - 1 - s : s;
            if (++pos[k] < nloc[k])
                break;
            pos[k] = 0;
        }
    }
    for (int k = 0; k < nd; k++)
        free(loc[k]);
    *idx = out;
    *n = total;
    return 0;
}

int tu_enumerate(const tu_layout_desc *d, int rank, int nranks, int64_t **idx, int64_t *n)
{
    if (d->kind == TU_BLOCK_CYCLIC) {
        int64_t cnt = 0, nblocks = (d->nx + d->bx - 1) / d->bx;
        for (int64_t b = rank; b < nblocks; b += nranks)
            cnt += (b + 1) * d->bx < d->nx ? d->bx : d->nx - b * d->bx;
        int64_t *out = malloc(((size_t)cnt + 1) * sizeof *out), k = 0;
        for (int64_t b = rank; b < nblocks; b += nranks)
            for (int64_t i = b * d->bx; i < (b + 1) * d->bx && i < d->nx; i++)
                out[k++] = i;
        *idx = out;
        *n = cnt;
        return 0;
    }
    if (d->kind == TU_DARRAY)
        return tu_enum_darray(d, rank, idx, n);
    int64_t *out = malloc(((size_t)d->nlocal + 1) * sizeof *out);
    if (d->nlocal)
        memcpy(out, d->idx, (size_t)d->nlocal * sizeof *out);
    *idx = out;
    *n = d->nlocal;
    return 0;
}

/* The local index list MPI's own darray type gives: pack a global array
 * whose element i holds i through the type; the packed stream lists the
 * rank's global indices in its local (type map) order. */
static int64_t tu_mpi_darray_indices(const tu_layout_desc *d, int rank, int nranks,
                                     int64_t **idx)
{
    int gs[COLLIO_MAX_DIMS], ds[COLLIO_MAX_DIMS], da[COLLIO_MAX_DIMS],
        ps[COLLIO_MAX_DIMS];
    for (int k = 0; k < d->ndims; k++) {
        gs[k] = (int)d->gsizes[k];
        ps[k] = d->psizes[k];
        ds[k] = d->distribs[k] == COLLIO_DIST_NONE    ? MPI_DISTRIBUTE_NONE
                : d->distribs[k] == COLLIO_DIST_BLOCK ? MPI_DISTRIBUTE_BLOCK
                                                      : MPI_DISTRIBUTE_CYCLIC;
        da[k] = d->dargs[k] > 0 ? (int)d->dargs[k] : MPI_DISTRIBUTE_DFLT_DARG;
    }
    MPI_Datatype t;
    MPI_Type_create_darray(nranks, rank, d->ndims, gs, ds, da, ps,
                           d->order == COLLIO_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                           MPI_INT64_T, &t);
    MPI_Type_commit(&t);
    int size = 0;
    MPI_Type_size(t, &size);
    int64_t n = size / 8;
    int64_t *glob = malloc(((size_t)d->nglobal + 1) * sizeof *glob);
    for (int64_t i = 0; i < d->nglobal; i++)
        glob[i] = i;
    int64_t *out = malloc(((size_t)n + 1) * sizeof *out);
    int pos = 0;
    MPI_Pack(glob, 1, t, out, (int)(n * 8), &pos, MPI_COMM_SELF);
    MPI_Type_free(&t);
    free(glob);
    *idx = out;
    return n;
}

void tu_check_enumeration(tu_ctx *t, const tu_layout_desc *d)
{
    int64_t *idx = NULL, n = 0, bad = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    int *cnt = calloc((size_t)d->nglobal + 1, sizeof *cnt);
    int *sum = calloc((size_t)d->nglobal + 1, sizeof *sum);
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= d->nglobal)
            bad++;
        else
            cnt[idx[k]]++;
    }
    MPI_Allreduce(cnt, sum, (int)d->nglobal, MPI_INT, MPI_SUM, t->comm);
    for (int64_t i = 0; i < d->nglobal; i++)
        bad += sum[i] != 1;
    TU_CHECK(t, bad == 0, "reference enumeration of %s is not a partition (%lld bad)",
             d->name, (long long)bad);
    if (d->kind == TU_DARRAY) {
        int64_t *m = NULL;
        int64_t nm = tu_mpi_darray_indices(d, t->rank, t->nranks, &m), diff = nm != n;
        for (int64_t k = 0; !diff && k < n; k++)
            diff += m[k] != idx[k];
        TU_CHECK(t, diff == 0,
                 "reference enumeration of %s differs from "
                 "MPI_Type_create_darray (%lld vs %lld elements)",
                 d->name, (long long)n, (long long)nm);
        free(m);
    }
    free(cnt);
    free(sum);
    free(idx);
}

void tu_fill(unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
             uint64_t seed)
{
    for (int64_t k = 0; k < n; k++)
        collio_pattern_element((uint64_t)idx[k], seed, esize, buf + (size_t)k * esize);
}

int64_t tu_compare(const unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
                   uint64_t seed, int64_t *first)
{
    unsigned char want[4096];
    int64_t bad = 0;
    *first = -1;
    for (int64_t k = 0; k < n; k++) {
        collio_pattern_element((uint64_t)idx[k], seed, esize, want);
        if (memcmp(buf + (size_t)k * esize, want, esize) != 0) {
            for (size_t j = 0; j < esize; j++)
                bad += buf[(size_t)k * esize + j] != want[j];
            if (*first < 0)
                *first = k;
        }
    }
    return bad;
}
