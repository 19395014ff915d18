/*
 * mpi_files.c -- the shared file layer (src/file*.c, src/base/error.c) on every
 * rank count, with both backends (POSIX and MPI-IO).
 *
 * What is checked, each against an independent expectation computed here
 * (byte at file position p = exp_byte(p, seed), never read back through
 * the code under test) and with plain POSIX reads on rank 0:
 *  - CREATE: every rank writes its own region (write_at and writev_at) at a
 *    base offset; after close the file holds exactly the expected bytes,
 *    zeros before the base, and no temporary is left in the directory;
 *    READ then reads another rank's region back (read_at and readv_at).
 *  - atomic create: a previous file stays byte-identical when a write
 *    fails on one rank (a real EFBIG from RLIMIT_FSIZE; an offset overflow),
 *    close gives COLLIO_ERR_IO everywhere, no temporary left; same for
 *    abort.
 *  - open errors: missing directory (all modes) and missing file for READ
 *    give COLLIO_ERR_OPEN on every rank; differing paths or modes give
 *    COLLIO_ERR_MISMATCH; NULL path gives COLLIO_ERR_ARG.
 *  - reading past the end gives COLLIO_ERR_EOF; writing a READ file
 *    COLLIO_ERR_STATE.
 *  - INPLACE keeps the bytes it does not overwrite.
 *  - the lazy collective MPI-IO handle writes into the temporary.
 *  - collio__check_same_*, checked arithmetic, strerror.
 * Open MPI's OMPIO prints "mca_fbtl_posix_pwritev: error in (p)write(v):
 * File too large" for the deliberate EFBIG write: expected, not a failure.
 * Ranges are half-open [start, end).
 */
#include "base/base.h"
#include "files/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ctx {
    MPI_Comm comm;
    int rank, nranks;
    char dir[512];
    char stem[64];       /* unique per run: files_np<N>_<pid> */
    const char *backend; /* backend under test, for messages */
    int passed, failed;
} ctx;

/* ------------------------------------------------------------ helpers */

static uint8_t exp_byte(int64_t pos, uint64_t seed)
{
    uint64_t x = (uint64_t)pos ^ (seed * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return (uint8_t)(x ^ (x >> 31));
}

static void fill(uint8_t *b, int64_t pos, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = exp_byte(pos + (int64_t)i, seed);
}

/* Collective check: passes only if `ok` on every rank. */
static void check(ctx *c, int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, c->comm);
    if (all) {
        c->passed++;
    } else {
        c->failed++;
        if (c->rank == 0)
            fprintf(stderr, "FAIL (np=%d, %s): %s\n", c->nranks, c->backend, what);
    }
}

/* Collective: rc must equal `want` on every rank. */
static void check_rc(ctx *c, int rc, int want, const char *what)
{
    if (rc != want)
        fprintf(stderr, "  rank %d: %s: got %d (%s), want %d (%s)\n", c->rank, what, rc,
                collio_strerror(rc), want, collio_strerror(want));
    check(c, rc == want, what);
}

static void make_path(const ctx *c, char *out, size_t n, const char *test,
                      collio_backend be)
{
    snprintf(out, n, "%s/%s_%s_%s", c->dir, c->stem, test,
             be == COLLIO_BACKEND_MPIIO ? "mpiio" : "posix");
}

/* Rank 0: whole file into a malloc'd buffer; *len = -1 if unreadable. */
static uint8_t *slurp(const char *path, int64_t *len)
{
    *len = -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    uint8_t *b = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (b && got < (size_t)st.st_size) {
        ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (b && got == (size_t)st.st_size)
        *len = (int64_t)got;
    return b;
}

/* Rank 0: writes `n` bytes of exp_byte(., seed) as a complete file. */
static int put_file(const char *path, int64_t n, uint64_t seed)
{
    uint8_t *b = malloc((size_t)n + 1);
    fill(b, 0, (size_t)n, seed);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, b, (size_t)n) == (ssize_t)n;
    if (fd >= 0)
        close(fd);
    free(b);
    return ok;
}

/* Rank 0: does the file hold exactly n bytes of exp_byte(., seed)? */
static int file_is(const char *path, int64_t n, uint64_t seed)
{
    int64_t len;
    uint8_t *b = slurp(path, &len);
    int ok = len == n;
    for (int64_t i = 0; ok && i < n; i++)
        ok = b[i] == exp_byte(i, seed);
    free(b);
    return ok;
}

/* Rank 0: no ".<name>.collio-*" temporary left beside path. */
static int no_temp_left(const char *path)
{
    const char *name = strrchr(path, '/') + 1;
    char prefix[256];
    snprintf(prefix, sizeof prefix, ".%s.collio-", name);
    char dir[512];
    snprintf(dir, sizeof dir, "%.*s", (int)(name - path), path);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            ok = 0;
    closedir(d);
    return ok;
}

/* Bcast rank 0's verdict and count it. */
static void check_root(ctx *c, int ok_on_root, const char *what)
{
    MPI_Bcast(&ok_on_root, 1, MPI_INT, 0, c->comm);
    check(c, ok_on_root, what);
}

static collio_file_options opts_for(collio_backend be, int64_t base)
{
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = be;
    o.base_offset = base;
    return o;
}

/* Region of rank r: [region_off(r), region_off(r+1)), sizes differ. */
static int64_t region_off(int r)
{
    return (int64_t)r * 3000 + (int64_t)r * (r - 1) / 2 * 37;
}

/* ------------------------------------------------------------- tests */

static void test_create_and_read(ctx *c, collio_backend be)
{
    char path[768];
    make_path(c, path, sizeof path, "create", be);
    const int64_t base = 113;
    const uint64_t seed = 7;
    collio_file_options o = opts_for(be, base);
    o.sync = 1;
    collio_file *f = NULL;
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o, &f), COLLIO_OK,
             "create: open");
    if (!f)
        return;
    check(c, strcmp(collio_file_path(f), path) == 0, "create: file_path");

    int64_t lo = region_off(c->rank), hi = region_off(c->rank + 1);
    size_t n = (size_t)(hi - lo);
    uint8_t *buf = malloc(n);
    fill(buf, base + lo, n, seed);
    /* First half: two write_at calls; second half: writev_at with uneven
     * pieces, including an empty one. */
    size_t h = n / 2, q = h / 3;
    int rc = collio__file_write_at(f, lo, buf, q);
    if (rc == COLLIO_OK)
        rc = collio__file_write_at(f, lo + (int64_t)q, buf + q, h - q);
    struct iovec iov[4] = {{buf + h, 5},
                           {buf + h + 5, 0},
                           {buf + h + 5, (n - h - 5) / 2},
                           {buf + h + 5 + (n - h - 5) / 2, n - h - 5 - (n - h - 5) / 2}};
    if (rc == COLLIO_OK)
        rc = collio__file_writev_at(f, lo + (int64_t)h, iov, 4);
    check_rc(c, rc, COLLIO_OK, "create: writes");
    /* Read back own region from the temporary before close. */
    uint8_t *back = calloc(1, n);
    rc = collio__file_read_at(f, lo, back, n);
    check(c, rc == COLLIO_OK && memcmp(back, buf, n) == 0,
          "create: read back before close");
    MPI_File fh;
    rc = collio__file_collective_handle(f, &fh);
    check_rc(c, rc, COLLIO_OK, "create: collective handle");
    check_rc(c, collio_file_close(&f), COLLIO_OK, "create: close");
    check(c, f == NULL, "create: close sets NULL");

    int64_t total = base + region_off(c->nranks);
    if (c->rank == 0) {
        int64_t len;
        uint8_t *b = slurp(path, &len);
        int ok = len == total;
        for (int64_t i = 0; ok && i < total; i++)
            ok = b[i] == (i < base ? 0 : exp_byte(i, seed));
        free(b);
        struct stat st;
        ok = ok && stat(path, &st) == 0 && (st.st_mode & 0444) != 0;
        check_root(c, ok, "create: file bytes equal expectation");
        check_root(c, no_temp_left(path), "create: no temporary left");
    } else {
        check_root(c, 0, "");
        check_root(c, 0, "");
    }

    /* READ: each rank reads the next rank's region, readv in two pieces. */
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_READ, &o, &f), COLLIO_OK,
             "read: open");
    if (f) {
        int r = (c->rank + 1) % c->nranks;
        int64_t rlo = region_off(r);
        size_t rn = (size_t)(region_off(r + 1) - rlo);
        uint8_t *want = malloc(rn), *got = calloc(1, rn);
        fill(want, base + rlo, rn, seed);
        struct iovec riov[2] = {{got, rn / 3}, {got + rn / 3, rn - rn / 3}};
        rc = collio__file_readv_at(f, rlo, riov, 2);
        check(c, rc == COLLIO_OK && memcmp(got, want, rn) == 0, "read: readv_at");
        memset(got, 0, rn);
        rc = collio__file_read_at(f, rlo, got, rn);
        check(c, rc == COLLIO_OK && memcmp(got, want, rn) == 0, "read: read_at");
        check_rc(c, collio__file_write_at(f, 0, want, 1), COLLIO_ERR_STATE,
                 "read: write_at on READ file");
        int64_t sz = -1;
        rc = f->ops->size(f, &sz);
        check(c, rc == COLLIO_OK && sz == total, "read: size");
        /* Past the end: straddling, and wholly beyond. */
        int64_t end = region_off(c->nranks);
        check_rc(c, collio__file_read_at(f, end - 10, got, 20), COLLIO_ERR_EOF,
                 "read: read_at straddling EOF");
        check_rc(c, collio__file_read_at(f, end + 100, got, 1), COLLIO_ERR_EOF,
                 "read: read_at beyond EOF");
        struct iovec eiov[2] = {{got, 5}, {got + 5, 15}};
        check_rc(c, collio__file_readv_at(f, end - 10, eiov, 2), COLLIO_ERR_EOF,
                 "read: readv_at straddling EOF");
        check_rc(c, collio__file_read_at(f, -1, got, 1), COLLIO_ERR_ARG,
                 "read: negative offset");
        check_rc(c, collio__file_read_at(f, INT64_MAX - 50, got, 10), COLLIO_ERR_OVERFLOW,
                 "read: offset overflow");
        check_rc(c, collio_file_close(&f), COLLIO_OK, "read: close");
        free(want);
        free(got);
    }
    if (c->rank == 0)
        unlink(path);
    free(buf);
    free(back);
}

/* A previous file must survive a CREATE whose write fails on one rank.
 * how 0: a real EFBIG (RLIMIT_FSIZE); 1: offset overflow; 2: abort. */
static void test_atomic(ctx *c, collio_backend be, int how)
{
    static const char *names[] = {"atomic_efbig", "atomic_overflow", "atomic_abort"};
    char path[768], what[128];
    make_path(c, path, sizeof path, names[how], be);
    const int64_t prev_len = 5000;
    const uint64_t prev_seed = 99;
    int ok = c->rank != 0 || put_file(path, prev_len, prev_seed);
    check(c, ok, "atomic: previous file written");

    collio_file_options o = opts_for(be, 0);
    collio_file *f = NULL;
    snprintf(what, sizeof what, "%s: open", names[how]);
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o, &f), COLLIO_OK,
             what);
    if (!f)
        return;
    uint8_t buf[256];
    fill(buf, c->rank * 256, sizeof buf, 3);
    int rc = collio__file_write_at(f, c->rank * 256, buf, sizeof buf);
    snprintf(what, sizeof what, "%s: good write", names[how]);
    check_rc(c, rc, COLLIO_OK, what);
    int victim = c->nranks - 1;
    if (how == 0 && c->rank == victim) {
        struct rlimit old, lim;
        getrlimit(RLIMIT_FSIZE, &old);
        lim = old;
        lim.rlim_cur = 64 * 1024;
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &lim);
        rc = collio__file_write_at(f, 1 << 20, buf, sizeof buf);
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, prev);
        if (rc != COLLIO_ERR_IO)
            fprintf(stderr, "  efbig write gave %d\n", rc);
        rc = rc == COLLIO_ERR_IO ? COLLIO_OK : COLLIO_ERR_ARG;
    } else if (how == 1 && c->rank == victim) {
        rc = collio__file_write_at(f, INT64_MAX - 100, buf, sizeof buf);
        rc = rc == COLLIO_ERR_OVERFLOW ? COLLIO_OK : COLLIO_ERR_ARG;
    }
    snprintf(what, sizeof what, "%s: failing write reports its error", names[how]);
    check_rc(c, rc, COLLIO_OK, what);
    if (how == 2) {
        snprintf(what, sizeof what, "%s: abort", names[how]);
        check_rc(c, collio_file_abort(&f), COLLIO_OK, what);
    } else {
        snprintf(what, sizeof what, "%s: close gives IO", names[how]);
        check_rc(c, collio_file_close(&f), COLLIO_ERR_IO, what);
    }
    check(c, f == NULL, "atomic: handle set NULL");
    snprintf(what, sizeof what, "%s: previous file intact", names[how]);
    check_root(c, c->rank == 0 && file_is(path, prev_len, prev_seed), what);
    snprintf(what, sizeof what, "%s: no temporary left", names[how]);
    check_root(c, c->rank == 0 && no_temp_left(path), what);
    if (c->rank == 0)
        unlink(path);
}

/* Temporaries beside a target, as killed and live writers leave them
 * (".<name>.collio-tmp.<slot>"): a live writer's in slot 0 (a file this
 * test holds an open-file-description lock on, as a writer does), a
 * symbolic link planted in slot 1, a dead writer's in slot 2 (a plain
 * file nobody locks, read-only), another dead one in slot 15 (the last
 * one every CREATE looks at), and a file whose suffix is no slot number.
 * The next CREATE of the target takes slot 1 (the link removed, its
 * target untouched), removes slots 2 and 15 and leaves the live one and
 * the foreign one; after its close the target holds exactly the new data,
 * after an abort the previous file is intact. */
static void test_stale_temporary(ctx *c, collio_backend be)
{
    char path[768], dead[800], dead15[800], link_[800], live[800], foreign[800],
        victim[800];
    make_path(c, path, sizeof path, "stale", be);
    const char *name = strrchr(path, '/') + 1;
    int dl = (int)(name - path);
    snprintf(dead, sizeof dead, "%.*s.%s.collio-tmp.2", dl, path, name);
    snprintf(dead15, sizeof dead15, "%.*s.%s.collio-tmp.15", dl, path, name);
    snprintf(link_, sizeof link_, "%.*s.%s.collio-tmp.1", dl, path, name);
    snprintf(live, sizeof live, "%.*s.%s.collio-tmp.0", dl, path, name);
    snprintf(foreign, sizeof foreign, "%.*s.%s.collio-tmp.xyz", dl, path, name);
    snprintf(victim, sizeof victim, "%s.victim", path);
    for (int abort_it = 0; abort_it <= 1; abort_it++) {
        int ok = 1, live_fd = -1;
        if (c->rank == 0) {
            ok = put_file(path, 3000, 7) && put_file(dead, 1 << 20, 8)
                 && chmod(dead, 0400) == 0 && put_file(dead15, 10, 8)
                 && put_file(victim, 100, 9) && symlink(victim, link_) == 0
                 && put_file(live, 50, 10) && put_file(foreign, 60, 11);
            live_fd = open(live, O_RDWR);
            struct flock fl;
            memset(&fl, 0, sizeof fl);
            fl.l_type = F_WRLCK;
            fl.l_whence = SEEK_SET;
            ok = ok && live_fd >= 0 && fcntl(live_fd, F_OFD_SETLK, &fl) == 0;
        }
        check_root(c, ok, "stale: previous file and temporaries made");
        collio_file_options o = opts_for(be, 0);
        collio_file *f = NULL;
        check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o, &f),
                 COLLIO_OK, "stale: open beside leftover temporaries");
        if (!f)
            return;
        struct stat st;
        check_root(c,
                   c->rank == 0 && access(dead, F_OK) != 0 && access(dead15, F_OK) != 0
                       && lstat(link_, &st) == 0 && S_ISREG(st.st_mode)
                       && file_is(victim, 100, 9) && file_is(live, 50, 10)
                       && file_is(foreign, 60, 11),
                   "stale: the dead writers' and the link removed (the link's slot now "
                   "the new temporary), the live and foreign ones kept, the link's "
                   "target untouched");
        uint8_t buf[256];
        fill(buf, c->rank * 256, sizeof buf, 5);
        check_rc(c, collio__file_write_at(f, c->rank * 256, buf, sizeof buf), COLLIO_OK,
                 "stale: write");
        if (abort_it) {
            check_rc(c, collio_file_abort(&f), COLLIO_OK, "stale: abort");
            check_root(c, c->rank == 0 && file_is(path, 3000, 7),
                       "stale: previous file intact after abort");
        } else {
            check_rc(c, collio_file_close(&f), COLLIO_OK, "stale: close");
            check_root(c, c->rank == 0 && file_is(path, 256 * (int64_t)c->nranks, 5),
                       "stale: the target holds exactly the new data");
        }
        if (c->rank == 0) {
            close(live_fd);
            unlink(live);
            unlink(foreign);
            unlink(victim);
        }
        check_root(c, c->rank == 0 && no_temp_left(path), "stale: no temporary left");
    }
    if (c->rank == 0)
        unlink(path);
}

static void test_open_errors(ctx *c, collio_backend be)
{
    char path[768], bad[900];
    make_path(c, path, sizeof path, "openerr", be);
    snprintf(bad, sizeof bad, "%s_nodir/file", path);
    collio_file_options o = opts_for(be, 0);
    collio_file *f = (collio_file *)&o; /* must be set to NULL */
    check_rc(c, collio_file_open(c->comm, bad, COLLIO_FILE_CREATE, &o, &f),
             COLLIO_ERR_OPEN, "open: CREATE in missing directory");
    check(c, f == NULL, "open: *out NULL on failure");
    check_rc(c, collio_file_open(c->comm, bad, COLLIO_FILE_INPLACE, &o, &f),
             COLLIO_ERR_OPEN, "open: INPLACE in missing directory");
    check_rc(c, collio_file_open(c->comm, bad, COLLIO_FILE_READ, &o, &f), COLLIO_ERR_OPEN,
             "open: READ in missing directory");
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_READ, &o, &f),
             COLLIO_ERR_OPEN, "open: READ of a missing file");
    check_rc(c, collio_file_open(c->comm, c->dir, COLLIO_FILE_READ, &o, &f),
             COLLIO_ERR_OPEN, "open: READ of a directory");
    check_rc(c, collio_file_open(c->comm, c->dir, COLLIO_FILE_CREATE, &o, &f),
             COLLIO_ERR_OPEN, "open: CREATE onto a directory");
    check_rc(c, collio_file_open(c->comm, NULL, COLLIO_FILE_READ, &o, &f), COLLIO_ERR_ARG,
             "open: NULL path");
    check_rc(c, collio_file_open(c->comm, path, (collio_file_mode)7, &o, &f),
             COLLIO_ERR_ARG, "open: bad mode");
    if (c->nranks > 1) {
        char other[800];
        snprintf(other, sizeof other, "%s%s", path, c->rank == 1 ? "x" : "");
        check_rc(c, collio_file_open(c->comm, other, COLLIO_FILE_CREATE, &o, &f),
                 COLLIO_ERR_MISMATCH, "open: path differs on rank 1");
        collio_file_mode m = c->rank == 1 ? COLLIO_FILE_INPLACE : COLLIO_FILE_CREATE;
        check_rc(c, collio_file_open(c->comm, path, m, &o, &f), COLLIO_ERR_MISMATCH,
                 "open: mode differs on rank 1");
        collio_file_options o2 = opts_for(be, c->rank == 1 ? 8 : 0);
        check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o2, &f),
                 COLLIO_ERR_MISMATCH, "open: base offset differs on rank 1");
    }
    check_root(c, c->rank == 0 && access(path, F_OK) != 0 && no_temp_left(path),
               "open errors leave nothing behind");
}

static void test_inplace(ctx *c, collio_backend be)
{
    char path[768];
    make_path(c, path, sizeof path, "inplace", be);
    const int64_t base = 64, prev_len = 4000 + 64 * (int64_t)c->nranks;
    const uint64_t prev_seed = 11, seed = 12;
    int ok = c->rank != 0 || put_file(path, prev_len, prev_seed);
    check(c, ok, "inplace: previous file written");
    collio_file_options o = opts_for(be, base);
    collio_file *f = NULL;
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_INPLACE, &o, &f), COLLIO_OK,
             "inplace: open");
    if (!f)
        return;
    /* Rank r overwrites relative [64r, 64r + 32); the last rank also
     * writes [ext_lo, ext_lo + 50) past the old end. */
    uint8_t buf[64];
    fill(buf, base + 64 * c->rank, 32, seed);
    int rc = collio__file_write_at(f, 64 * c->rank, buf, 32);
    const int64_t ext_lo = prev_len - base - 20;
    if (rc == COLLIO_OK && c->rank == c->nranks - 1) {
        fill(buf, base + ext_lo, 50, seed);
        rc = collio__file_write_at(f, ext_lo, buf, 50);
    }
    check_rc(c, rc, COLLIO_OK, "inplace: writes");
    check_rc(c, collio_file_close(&f), COLLIO_OK, "inplace: close");
    if (c->rank == 0) {
        int64_t len;
        uint8_t *b = slurp(path, &len);
        int good = len == base + ext_lo + 50;
        for (int64_t i = 0; good && i < len; i++) {
            int64_t rel = i - base;
            int written = (rel >= 0 && rel < 64 * (int64_t)c->nranks && rel % 64 < 32)
                          || rel >= ext_lo;
            good = b[i] == exp_byte(i, written ? seed : prev_seed);
        }
        free(b);
        check_root(c, good, "inplace: bytes not written are kept");
        unlink(path);
    } else {
        check_root(c, 0, "");
    }
    /* INPLACE creates a missing file. */
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_INPLACE, &o, &f), COLLIO_OK,
             "inplace: open creates missing file");
    if (f)
        check_rc(c, collio_file_close(&f), COLLIO_OK, "inplace: close new");
    check_root(c, c->rank == 0 && access(path, F_OK) == 0, "inplace: file exists");
    if (c->rank == 0)
        unlink(path);
}

/* Collective MPI-IO handle: MPI_File_write_at_all into the temporary. */
static void test_collective_handle(ctx *c, collio_backend be)
{
    char path[768];
    make_path(c, path, sizeof path, "collh", be);
    collio_file_options o = opts_for(be, 0);
    collio_file *f = NULL;
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o, &f), COLLIO_OK,
             "collh: open");
    if (!f)
        return;
    MPI_File fh, fh2;
    int rc = collio__file_collective_handle(f, &fh);
    int rc2 = collio__file_collective_handle(f, &fh2); /* reused */
    check(c, rc == COLLIO_OK && rc2 == COLLIO_OK && fh == fh2, "collh: handle");
    uint8_t buf[100];
    fill(buf, 100 * c->rank, sizeof buf, 5);
    MPI_Status st;
    int mrc = rc == COLLIO_OK
                  ? MPI_File_write_at_all(fh, 100 * c->rank, buf, 100, MPI_BYTE, &st)
                  : MPI_ERR_OTHER;
    check(c, mrc == MPI_SUCCESS, "collh: write_at_all");
    check_rc(c, collio_file_close(&f), COLLIO_OK, "collh: close");
    check_root(c, c->rank == 0 && file_is(path, 100 * (int64_t)c->nranks, 5),
               "collh: file bytes");
    if (c->rank == 0)
        unlink(path);
}

static void test_error_helpers(ctx *c)
{
    int64_t r = 0;
    check(c,
          collio__mul_i64(INT64_MAX / 2, 3, &r) == COLLIO_ERR_OVERFLOW
              && collio__mul_i64(-4, 5, &r) == COLLIO_OK && r == -20
              && collio__mul_i64(INT64_MIN, -1, &r) == COLLIO_ERR_OVERFLOW
              && collio__add_i64(INT64_MAX, 1, &r) == COLLIO_ERR_OVERFLOW
              && collio__add_i64(INT64_MIN, -1, &r) == COLLIO_ERR_OVERFLOW
              && collio__add_i64(INT64_MAX - 1, 1, &r) == COLLIO_OK && r == INT64_MAX,
          "checked arithmetic");
    int texts = 1;
    for (int e = 0; e <= COLLIO_ERR__COUNT; e++)
        texts = texts && collio_strerror(e) && *collio_strerror(e);
    texts =
        texts
        && strcmp(collio_strerror(COLLIO_ERR_EOF), collio_strerror(COLLIO_ERR_IO)) != 0;
    check(c, texts && collio_strerror(-3) != NULL, "strerror texts");
    check_rc(c, collio__check_same_i64(c->comm, INT64_MIN, "x"), COLLIO_OK,
             "check_same_i64 equal (INT64_MIN)");
    check_rc(c, collio__check_same_str(c->comm, "abc", "s"), COLLIO_OK,
             "check_same_str equal");
    check_rc(c, collio__agree(c->comm, c->rank == c->nranks / 2 ? COLLIO_ERR_EOF : 0),
             COLLIO_ERR_EOF, "agree takes the max");
    if (c->nranks > 1) {
        char want[200];
        check_rc(c, collio__check_same_i64(c->comm, c->rank == 1 ? 5 : 4, "x"),
                 COLLIO_ERR_MISMATCH, "check_same_i64 differs");
        check(c,
              strcmp(collio_last_error(),
                     "rank 1: x differs across ranks: 4 on rank 0, 5 on rank 1")
                  == 0,
              "check_same_i64: the detail names the ranks and values");
        check_rc(
            c, collio__check_same_i64(c->comm, c->rank == 1 ? INT64_MIN : INT64_MAX, "y"),
            COLLIO_ERR_MISMATCH, "check_same_i64 extremes");
        check_rc(c, collio__check_same_str(c->comm, c->rank == 1 ? "abd" : "abc", "s"),
                 COLLIO_ERR_MISMATCH, "check_same_str differs");
        check(c,
              strcmp(collio_last_error(),
                     "rank 1: s differs across ranks: 'abc' on rank 0, 'abd' on rank 1")
                  == 0,
              "check_same_str: the detail quotes both strings");
        check_rc(c, collio__check_same_str(c->comm, c->rank == 1 ? NULL : "", "s"),
                 COLLIO_ERR_MISMATCH, "check_same_str NULL vs empty");
        /* the same code on ranks 1 and the last: the lowest one's text */
        collio__error_begin();
        int fail = c->rank == 1 || c->rank == c->nranks - 1;
        if (fail)
            collio__error_set(COLLIO_ERR_IO, "mine is %d", c->rank);
        check_rc(c, collio__agree(c->comm, fail ? COLLIO_ERR_IO : COLLIO_OK),
                 COLLIO_ERR_IO, "agree on a failure of two ranks");
        snprintf(want, sizeof want, "rank 1: mine is 1");
        check(c, strcmp(collio_last_error(), want) == 0,
              "agree: the lowest failing rank's text");
    }
}

/* More pieces than IOV_MAX (1024) and the MPI-IO batch: writev_at with
 * 3000 pieces of 0..4 bytes, read back with readv_at split differently. */
static void test_many_iov(ctx *c, collio_backend be)
{
    char path[768];
    make_path(c, path, sizeof path, "manyiov", be);
    enum { NP = 3000 };
    size_t n = 0;
    for (int i = 0; i < NP; i++)
        n += (size_t)((i + c->rank) % 5);
    /* Rank r's region starts after all lower ranks' regions (each < 6000). */
    int64_t lo = 6000 * (int64_t)c->rank;
    uint8_t *buf = malloc(n), *got = calloc(1, n);
    fill(buf, lo, n, 21);
    struct iovec *iov = malloc(NP * sizeof *iov);
    size_t pos = 0;
    for (int i = 0; i < NP; i++) {
        iov[i].iov_base = buf + pos;
        iov[i].iov_len = (size_t)((i + c->rank) % 5);
        pos += iov[i].iov_len;
    }
    collio_file_options o = opts_for(be, 0);
    collio_file *f = NULL;
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_CREATE, &o, &f), COLLIO_OK,
             "manyiov: open");
    if (f) {
        check_rc(c, collio__file_writev_at(f, lo, iov, NP), COLLIO_OK,
                 "manyiov: writev_at");
        check_rc(c, collio_file_close(&f), COLLIO_OK, "manyiov: close");
    }
    if (c->rank == 0) {
        int64_t len;
        uint8_t *b = slurp(path, &len);
        int ok = b != NULL;
        for (int r = 0; ok && r < c->nranks; r++) {
            size_t rn = 0;
            for (int i = 0; i < NP; i++)
                rn += (size_t)((i + r) % 5);
            for (size_t k = 0; ok && k < rn; k++)
                ok = b[6000 * r + (int64_t)k] == exp_byte(6000 * r + (int64_t)k, 21);
        }
        free(b);
        check_root(c, ok, "manyiov: file bytes");
    } else {
        check_root(c, 0, "");
    }
    /* Read back: 1-byte pieces, n of them (n <= 6000). */
    check_rc(c, collio_file_open(c->comm, path, COLLIO_FILE_READ, &o, &f), COLLIO_OK,
             "manyiov: open READ");
    if (f) {
        struct iovec *riov = malloc((n + 1) * sizeof *riov);
        for (size_t k = 0; k < n; k++) {
            riov[k].iov_base = got + k;
            riov[k].iov_len = 1;
        }
        int rc = collio__file_readv_at(f, lo, riov, (int)n);
        check(c, rc == COLLIO_OK && memcmp(got, buf, n) == 0, "manyiov: readv_at");
        check_rc(c, collio_file_close(&f), COLLIO_OK, "manyiov: close READ");
        free(riov);
    }
    if (c->rank == 0)
        unlink(path);
    free(iov);
    free(buf);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ctx c;
    memset(&c, 0, sizeof c);
    c.backend = "-";
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.nranks);
    const char *tmp = getenv("COLLIO_TEST_TMPDIR");
    snprintf(c.dir, sizeof c.dir, "%s", tmp && *tmp ? tmp : "/tmp");
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, c.comm);
    snprintf(c.stem, sizeof c.stem, "files_np%d_%d", c.nranks, pid);

    test_error_helpers(&c);
    const collio_backend backends[2] = {COLLIO_BACKEND_POSIX, COLLIO_BACKEND_MPIIO};
    for (int b = 0; b < 2; b++) {
        c.backend = backends[b] == COLLIO_BACKEND_MPIIO ? "mpiio" : "posix";
        test_create_and_read(&c, backends[b]);
        for (int how = 0; how < 3; how++)
            test_atomic(&c, backends[b], how);
        test_open_errors(&c, backends[b]);
        test_stale_temporary(&c, backends[b]);
        test_inplace(&c, backends[b]);
        test_collective_handle(&c, backends[b]);
        test_many_iov(&c, backends[b]);
    }

    if (c.rank == 0)
        printf("mpi_files np=%d: %d passed, %d failed\n", c.nranks, c.passed, c.failed);
    int bad = c.failed > 0, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, c.comm);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
