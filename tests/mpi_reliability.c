/*
 * mpi_reliability.c -- a checkpoint is never lost and never mixed:
 *
 *  1. Every way a collio_write or collio_read can fail (each argument
 *     check, a file opened on another communicator, a plan made on a
 *     smaller one, an overflowing base offset, a read of a temporary not
 *     written yet, a real write error) leaves the CREATE file failed:
 *     collio_file_close returns COLLIO_ERR_IO on every rank, says why, and
 *     the previous file stays byte for byte, no temporary left. Every
 *     canonical strategy, both backends.
 *  2. The layout's, the plan's and the file's communicators must be the
 *     same processes in the same order (congruent): else
 *     COLLIO_ERR_MISMATCH on every rank, nothing written.
 *  3. Concurrent writers of one target: the same target opened twice in
 *     one job, and two "jobs" (the two halves of the world, each with its
 *     own communicator, layout and plan) writing it at the same time. Each
 *     close commits its own whole data (checked right after it, closes in
 *     a fixed order), and free-running closes leave one writer's whole
 *     file. A writer that died (a child process killed while holding a
 *     temporary's lock) leaves a temporary the next CREATE removes; a live
 *     one's stays.
 *  4. Error texts: the same non-empty line on every rank, naming the rank,
 *     the argument, the path and errno's text where they exist.
 *
 * The expected bytes come from bench/pattern.h through testutil (never
 * from the library); the file is read back with plain POSIX.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NG = 1000, ES = 8, BX = 3 };

/* A writer's data: block-cyclic NG x ES over comm, pattern `seed`. */
typedef struct writer {
    MPI_Comm comm;
    collio_layout *l;
    collio_plan *p;
    unsigned char *buf;
    size_t bytes;
    int ok;
} writer;

static int writer_make(tu_ctx *t, MPI_Comm comm, const char *strategy, uint64_t seed,
                       writer *w)
{
    memset(w, 0, sizeof *w);
    w->comm = comm;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, NG, BX, ES);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, rank, size, &idx, &n);
    w->bytes = (size_t)n * ES;
    w->buf = malloc(w->bytes + 16);
    tu_fill(w->buf, idx, n, ES, seed);
    free(idx);
    int rc = collio_layout_block_cyclic(comm, NG, BX, ES, &w->l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(comm, w->l, strategy, NULL, &w->p);
    w->ok = tu_all(t, rc == COLLIO_OK);
    TU_CHECK(t, w->ok, "writer: layout and plan (%s)", collio_strerror(rc));
    return w->ok;
}

static void writer_free(writer *w)
{
    collio_plan_free(&w->p);
    collio_layout_free(&w->l);
    free(w->buf);
    w->buf = NULL;
}

static int open_be(MPI_Comm comm, const char *path, collio_file_mode mode,
                   collio_backend be, int64_t base, collio_file **f)
{
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = be;
    o.base_offset = base;
    return collio_file_open(comm, path, mode, &o, f);
}

/* Collective: rank 0's collio_last_error() equals this rank's, and it
 * contains every one of the (NULL-terminated) needles. */
static void same_detail(tu_ctx *t, const char *what, ...)
{
    char mine[512], root[512];
    snprintf(mine, sizeof mine, "%s", collio_last_error());
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, t->comm);
    TU_CHECK(t, strcmp(mine, root) == 0, "%s: detail differs from rank 0's: '%s' vs '%s'",
             what, mine, root);
    TU_CHECK(t, strncmp(mine, "rank ", 5) == 0, "%s: detail '%s' names no rank", what,
             mine);
    va_list ap;
    va_start(ap, what);
    for (const char *n = va_arg(ap, const char *); n != NULL;
         n = va_arg(ap, const char *))
        TU_CHECK(t, strstr(mine, n) != NULL, "%s: detail '%s' lacks '%s'", what, mine, n);
    va_end(ap);
}

/* Collective: the file at path is exactly `prev` (n bytes). */
static int file_equals(tu_ctx *t, const char *path, const unsigned char *prev, size_t n)
{
    size_t gotn = 0;
    unsigned char *got = tu_posix_get(t, path, &gotn);
    int ok = got != NULL && gotn == n && memcmp(got, prev, n) == 0;
    free(got);
    return ok;
}

/* ------------------------------------------------ 1. failed calls */

enum way {
    W_BUFSIZE,     /* write: buf_bytes + 1 on the last rank */
    W_NULLBUF,     /* write: buf NULL (bytes > 0) on rank 0 */
    W_NULLFILE,    /* write: file NULL on the last rank */
    W_OTHER_FILE,  /* write: the last rank passes another open of the target */
    W_OTHER_COMM,  /* write: the file opened on the world in reverse order */
    W_HALF_PLAN,   /* write: a plan made on half of the world */
    W_OVERFLOW,    /* write: base_offset + data beyond INT64_MAX */
    W_IO,          /* a write under a file size limit (EFBIG) on every rank */
    W_READ_EOF,    /* read of the temporary, not written yet: EOF */
    W_READ_BUFSIZE /* a good write, then a read with buf_bytes - 1 on rank 0 */
};
static const char *const way_name[] = {
    "BUFSIZE on the last rank",     "NULL buffer on rank 0",
    "NULL file on the last rank",   "another file on the last rank",
    "file on another communicator", "plan on half of the communicator",
    "OVERFLOW of base_offset",      "IO: file size limit",
    "read EOF of the temporary",    "read BUFSIZE on rank 0 after a good write"};
static const int way_code[] = {
    COLLIO_ERR_BUFSIZE,  COLLIO_ERR_ARG,      COLLIO_ERR_ARG,      COLLIO_ERR_MISMATCH,
    COLLIO_ERR_MISMATCH, COLLIO_ERR_MISMATCH, COLLIO_ERR_OVERFLOW, COLLIO_ERR_IO,
    COLLIO_ERR_EOF,      COLLIO_ERR_BUFSIZE};

static void failed_call(tu_ctx *t, const char *strategy, collio_backend be, enum way w,
                        MPI_Comm reversed)
{
    const int last = t->nranks - 1;
    if ((w == W_OTHER_COMM || w == W_HALF_PLAN || w == W_NULLFILE || w == W_OTHER_FILE)
        && t->nranks < 2) {
        tu_skip(t, "needs 2 or more ranks");
        return;
    }
    char path[1024];
    tu_temp_path(t, "failed", path, sizeof path);
    size_t prevn = 0;
    unsigned char *prev = tu_expected_file(333, 3, 77, 0, 0, &prevn);
    tu_posix_put(t, path, prev, prevn);

    MPI_Comm half = MPI_COMM_NULL;
    writer wr;
    int made;
    if (w == W_HALF_PLAN) {
        MPI_Comm_split(t->comm, t->rank % 2, t->rank, &half);
        made = writer_make(t, half, strategy, 5, &wr);
    } else {
        made = writer_make(t, t->comm, strategy, 5, &wr);
    }
    collio_file *f = NULL;
    int64_t base = w == W_OVERFLOW ? INT64_MAX - 100 : 0;
    MPI_Comm fcomm = w == W_OTHER_COMM ? reversed : t->comm;
    int orc = made ? open_be(fcomm, path, COLLIO_FILE_CREATE, be, base, &f) : -1;
    if (made && TU_RC_ALL(t, orc, COLLIO_OK, "open CREATE over a previous file")) {
        int rc;
        struct rlimit old, lim;
        getrlimit(RLIMIT_FSIZE, &old);
        switch (w) {
        case W_BUFSIZE:
            rc = collio_write(wr.p, f, wr.buf, wr.bytes + (t->rank == last));
            break;
        case W_NULLBUF:
            rc = collio_write(wr.p, f, t->rank == 0 ? NULL : wr.buf, wr.bytes);
            break;
        case W_NULLFILE:
            rc = collio_write(wr.p, t->rank == last ? NULL : f, wr.buf, wr.bytes);
            break;
        case W_OTHER_FILE: {
            collio_file *g = NULL;
            rc = open_be(fcomm, path, COLLIO_FILE_CREATE, be, base, &g);
            TU_RC_ALL(t, rc, COLLIO_OK, "a second open of the target");
            rc = collio_write(wr.p, t->rank == last ? g : f, wr.buf, wr.bytes);
            TU_RC_ALL(t, collio_file_close(&g), COLLIO_ERR_IO,
                      "the second open's close: not committed");
            break;
        }
        case W_IO:
            /* multiphase: a good write first, so that the plan's
             * shared-memory window (whose backing file the limit would stop
             * inside the MPI library) exists before the limit. Not the
             * others: under Open MPI's OMPIO a failed pwrite inside
             * MPI_File_write_all over bytes that already exist is not
             * reported (docs/architecture.md, "Errors and failures");
             * two_phase catches what cuts the file short. */
            if (strcmp(strategy, "multiphase") == 0) {
                rc = collio_write(wr.p, f, wr.buf, wr.bytes);
                TU_RC_ALL(t, rc, COLLIO_OK, "a good write before the limit");
            }
            lim = old;
            lim.rlim_cur = 64;
            setrlimit(RLIMIT_FSIZE, &lim);
            rc = collio_write(wr.p, f, wr.buf, wr.bytes);
            setrlimit(RLIMIT_FSIZE, &old);
            break;
        case W_READ_EOF:
            rc = collio_read(wr.p, f, wr.buf, wr.bytes);
            break;
        case W_READ_BUFSIZE: /* after a good write */
            rc = collio_write(wr.p, f, wr.buf, wr.bytes);
            TU_RC_ALL(t, rc, COLLIO_OK, "a good write before the read");
            rc = collio_read(wr.p, f, wr.buf, wr.bytes - (t->rank == 0 && wr.bytes > 0));
            break;
        default:
            rc = collio_write(wr.p, f, wr.buf, wr.bytes);
        }
        TU_RC_ALL(t, rc, way_code[w], way_name[w]);
        TU_CHECK(t, collio_last_error()[0] != '\0', "%s: a detail", way_name[w]);
        TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close after the failed call");
        same_detail(t, "close after a failed call", path, "is not committed", NULL);
        TU_CHECK(t, file_equals(t, path, prev, prevn),
                 "the previous file is byte-identical after a failed call + close");
        TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
    }
    if (made) {
        /* the same plan writes a good checkpoint afterwards */
        writer good;
        if (writer_make(t, t->comm, strategy, 6, &good)) {
            collio_file_options o;
            collio_file_options_init(&o);
            o.backend = be;
            TU_CHECK(t, tu_plan_io(t, good.p, path, &o, 1, good.buf, good.bytes),
                     "a good write after the failure");
            TU_CHECK(t, tu_check_file(t, path, NG, ES, 6, 0, 0, 0) == 0,
                     "the good write's file");
        }
        writer_free(&good);
    }
    writer_free(&wr);
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    free(prev);
    tu_remove(t, path);
}

/* ------------------------------------------- 2. communicators compared */

static void communicators(tu_ctx *t, const char *strategy, MPI_Comm reversed)
{
    tu_case(t, "communicators: layout / plan / file strategy=%s", strategy);
    if (!tu_case_enabled(t))
        return;
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    MPI_Comm dup;
    MPI_Comm_dup(t->comm, &dup);
    /* congruent: accepted */
    TU_RC_ALL(t, collio_layout_block_cyclic(dup, NG, BX, ES, &l), COLLIO_OK,
              "layout on a dup");
    TU_RC_ALL(t, collio_plan_create(t->comm, l, strategy, NULL, &p), COLLIO_OK,
              "a plan on the world for a layout made on its dup");
    collio_plan_free(&p);
    collio_layout_free(&l);
    if (t->nranks < 2) {
        tu_skip(t, "needs 2 or more ranks");
        MPI_Comm_free(&dup);
        return;
    }
    /* the same processes in reverse order */
    TU_RC_ALL(t, collio_layout_block_cyclic(reversed, NG, BX, ES, &l), COLLIO_OK,
              "layout on the reversed world");
    TU_RC_ALL(t, collio_plan_create(t->comm, l, strategy, NULL, &p), COLLIO_ERR_MISMATCH,
              "plan on the world, layout on the reversed world");
    same_detail(t, "layout on another communicator", "another communicator", NULL);
    TU_CHECK(t, p == NULL, "no plan after the mismatch");
    collio_layout_free(&l);
    /* two splits of equal sizes (at even P >= 4): other processes */
    if (t->nranks >= 4 && t->nranks % 2 == 0) {
        MPI_Comm a, b;
        MPI_Comm_split(t->comm, t->rank % 2, t->rank, &a);
        MPI_Comm_split(t->comm, t->rank / (t->nranks / 2), t->rank, &b);
        TU_RC_ALL(t, collio_layout_block_cyclic(a, NG, BX, ES, &l), COLLIO_OK,
                  "layout on a");
        int rc = collio_plan_create(b, l, strategy, NULL, &p);
        TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "layout on one split, plan on another");
        collio_plan_free(&p);
        collio_layout_free(&l);
        /* plan on a, file on b */
        writer w;
        if (writer_make(t, a, strategy, 9, &w)) {
            char path[1024];
            tu_temp_path(t, "splits", path, sizeof path);
            collio_file *f = NULL;
            if (TU_RC_ALL(
                    t, open_be(b, path, COLLIO_FILE_CREATE, COLLIO_BACKEND_POSIX, 0, &f),
                    COLLIO_OK, "open on b")) {
                TU_RC_ALL(t, collio_write(w.p, f, w.buf, w.bytes), COLLIO_ERR_MISMATCH,
                          "plan on one split, file on another");
                TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO,
                          "close: not committed");
                struct stat st;
                TU_CHECK(t, tu_all(t, stat(path, &st) != 0), "no file at the path");
            }
            tu_remove(t, path);
        }
        writer_free(&w);
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    MPI_Comm_free(&dup);
}

/* ---------------------------------------------- 3. concurrent writers */

/* Collective over the world: the target holds exactly seed's data. */
static int holds(tu_ctx *t, const char *path, uint64_t seed)
{
    return tu_check_file(t, path, NG, ES, seed, 0, 0, 0) == 0;
}

/* One job opens the same target twice; the closes commit in order. */
static void same_target_twice(tu_ctx *t, const char *strategy, collio_backend be)
{
    tu_case(t, "concurrent: the same target twice in one job strategy=%s backend=%d",
            strategy, (int)be);
    if (!tu_case_enabled(t))
        return;
    char path[1024];
    tu_temp_path(t, "twice", path, sizeof path);
    writer a, b;
    if (writer_make(t, t->comm, strategy, 11, &a)
        && writer_make(t, t->comm, strategy, 12, &b)) {
        collio_file *fa = NULL, *fb = NULL;
        TU_RC_ALL(t, open_be(t->comm, path, COLLIO_FILE_CREATE, be, 0, &fa), COLLIO_OK,
                  "open a");
        TU_RC_ALL(t, open_be(t->comm, path, COLLIO_FILE_CREATE, be, 0, &fb), COLLIO_OK,
                  "open b");
        TU_RC_ALL(t, collio_write(a.p, fa, a.buf, a.bytes), COLLIO_OK, "write a");
        TU_RC_ALL(t, collio_write(b.p, fb, b.buf, b.bytes), COLLIO_OK, "write b");
        TU_RC_ALL(t, collio_file_close(&fa), COLLIO_OK, "close a");
        TU_CHECK(t, holds(t, path, 11), "after a's close: a's whole data");
        TU_RC_ALL(t, collio_file_close(&fb), COLLIO_OK, "close b");
        TU_CHECK(t, holds(t, path, 12), "after b's close: b's whole data");
        TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
    }
    writer_free(&a);
    writer_free(&b);
    tu_remove(t, path);
}

/* Two jobs (the halves of the world) write one target at the same time. */
static void two_jobs(tu_ctx *t, const char *strategy, collio_backend be, int rep)
{
    tu_case(t, "concurrent: two jobs, one target strategy=%s backend=%d rep=%d", strategy,
            (int)be, rep);
    if (!tu_case_enabled(t))
        return;
    if (t->nranks < 2) {
        tu_skip(t, "needs 2 or more ranks");
        return;
    }
    int job = t->rank >= t->nranks / 2;
    MPI_Comm jc;
    MPI_Comm_split(t->comm, job, t->rank, &jc);
    uint64_t seed[2] = {21 + 2 * (uint64_t)rep, 22 + 2 * (uint64_t)rep};
    char path[1024];
    tu_temp_path(t, "jobs", path, sizeof path);
    writer w;
    if (writer_make(t, jc, strategy, seed[job], &w)) {
        for (int ordered = 1; ordered >= 0; ordered--) {
            collio_file *f = NULL;
            MPI_Barrier(t->comm); /* both jobs open and write at once */
            int rc = open_be(jc, path, COLLIO_FILE_CREATE, be, 0, &f);
            TU_CHECK(t, tu_all(t, rc == COLLIO_OK), "each job opens (%s)",
                     collio_strerror(rc));
            if (rc == COLLIO_OK)
                rc = collio_write(w.p, f, w.buf, w.bytes);
            TU_CHECK(t, tu_all(t, rc == COLLIO_OK), "each job writes (%s: %s)",
                     collio_strerror(rc), collio_last_error());
            if (ordered) {
                /* job 0 commits, then job 1: each close leaves its own data */
                for (int j = 0; j < 2; j++) {
                    int crc = COLLIO_OK;
                    if (job == j && f != NULL)
                        crc = collio_file_close(&f);
                    TU_CHECK(t, tu_all(t, crc == COLLIO_OK), "job %d's close", j);
                    TU_CHECK(t, holds(t, path, seed[j]),
                             "right after job %d's close the target is its whole data",
                             j);
                }
            } else {
                int crc = f != NULL ? collio_file_close(&f) : COLLIO_ERR_STATE;
                TU_CHECK(t, tu_all(t, crc == COLLIO_OK),
                         "both jobs' free-running closes");
                int is0 = holds(t, path, seed[0]), is1 = holds(t, path, seed[1]);
                TU_CHECK(t, is0 || is1,
                         "after free-running closes: one job's whole data");
            }
            TU_CHECK(t, tu_count_strays(t, path) == 0, "no temporary left");
        }
    }
    writer_free(&w);
    MPI_Comm_free(&jc);
    tu_remove(t, path);
}

/* A writer that dies holding its temporary: while it lives its temporary
 * stays; once it is killed, the next CREATE removes it. The "writer" is a
 * child of rank 0 that makes a temporary as the library names them and
 * takes the same open-file-description lock. */
static void dead_writer(tu_ctx *t)
{
    tu_case(t, "concurrent: a killed writer's temporary is swept");
    if (!tu_case_enabled(t))
        return;
    char path[1024], tmp[1100];
    tu_temp_path(t, "killed", path, sizeof path);
    const char *name = strrchr(path, '/') + 1;
    snprintf(tmp, sizeof tmp, "%.*s.%s.collio-tmp.0", (int)(name - path), path, name);
    pid_t child = -1;
    int ready = 1;
    if (t->rank == 0) {
        int pfd[2];
        ready = pipe(pfd) == 0;
        child = ready ? fork() : -1;
        if (child == 0) { /* no MPI here */
            int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
            struct flock fl;
            memset(&fl, 0, sizeof fl);
            fl.l_type = F_WRLCK;
            fl.l_whence = SEEK_SET;
            char ok = fd >= 0 && fcntl(fd, F_OFD_SETLK, &fl) == 0;
            if (write(pfd[1], &ok, 1) != 1)
                _exit(1);
            for (;;)
                pause();
        }
        char ok = 0;
        ready = child > 0 && read(pfd[0], &ok, 1) == 1 && ok;
        close(pfd[0]);
        close(pfd[1]);
    }
    TU_CHECK(t, tu_all(t, ready), "a child holds a locked temporary");
    writer w;
    if (ready && writer_make(t, t->comm, "independent", 31, &w)) {
        TU_CHECK(t, tu_plan_io(t, w.p, path, NULL, 1, w.buf, w.bytes),
                 "write while it lives");
        TU_CHECK(t, tu_count_strays(t, path) == 1, "the live writer's temporary stays");
        if (t->rank == 0) {
            kill(child, SIGKILL);
            waitpid(child, NULL, 0);
            child = -1;
        }
        MPI_Barrier(t->comm);
        TU_CHECK(t, tu_plan_io(t, w.p, path, NULL, 1, w.buf, w.bytes),
                 "write after its death");
        TU_CHECK(t, tu_count_strays(t, path) == 0, "the dead writer's temporary is gone");
        TU_CHECK(t, holds(t, path, 31), "the target");
    }
    if (t->rank == 0 && child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    writer_free(&w);
    if (t->rank == 0)
        unlink(tmp);
    tu_remove(t, path);
}

/* ----------------------------------------------------- 4. error texts */

static void texts(tu_ctx *t)
{
    tu_case(t, "texts: CREATE in a missing directory");
    if (tu_case_enabled(t)) {
        char path[1024], bad[1200];
        tu_temp_path(t, "nodir", path, sizeof path);
        snprintf(bad, sizeof bad, "%s.missing/x.bin", path);
        collio_file *f = NULL;
        TU_RC_ALL(t, collio_file_open(t->comm, bad, COLLIO_FILE_CREATE, NULL, &f),
                  COLLIO_ERR_OPEN, "create in a missing directory");
        same_detail(t, "create in a missing directory", "rank 0: ", bad,
                    "No such file or directory", NULL);
    }
    tu_case(t, "texts: a mismatch after another error keeps no stale text");
    if (tu_case_enabled(t) && t->nranks > 1) {
        collio_layout *l = NULL;
        TU_RC_ALL(t, collio_layout_block_cyclic(t->comm, INT64_MAX / 2, 1, 8, &l),
                  COLLIO_ERR_OVERFLOW, "an overflowing layout");
        same_detail(t, "overflow", "nx * esize", NULL);
        TU_RC_ALL(
            t, collio_layout_block_cyclic(t->comm, t->rank == 1 ? 999 : 1000, 1, 8, &l),
            COLLIO_ERR_MISMATCH, "nx differs on rank 1");
        same_detail(t, "nx differs", "rank 1: ", "nx, bx or esize differ", NULL);
        TU_CHECK(t, strstr(collio_last_error(), "overflow") == NULL,
                 "no stale text: '%s'", collio_last_error());
        char path[1024];
        tu_temp_path(t, "modes", path, sizeof path);
        collio_file *f = NULL;
        TU_RC_ALL(t,
                  collio_file_open(
                      t->comm, path,
                      t->rank == 1 ? COLLIO_FILE_INPLACE : COLLIO_FILE_CREATE, NULL, &f),
                  COLLIO_ERR_MISMATCH, "mode differs on rank 1");
        same_detail(t, "mode differs",
                    "rank 1: the mode differs across ranks: 0 on rank 0, 1 on rank 1",
                    NULL);
        collio_file_options o;
        collio_file_options_init(&o);
        o.base_offset = t->rank == 1 ? 8 : 0;
        TU_RC_ALL(t, collio_file_open(t->comm, path, COLLIO_FILE_CREATE, &o, &f),
                  COLLIO_ERR_MISMATCH, "base_offset differs on rank 1");
        same_detail(
            t, "base_offset differs",
            "rank 1: opts.base_offset differs across ranks: 0 on rank 0, 8 on rank 1",
            NULL);
        tu_remove(t, path);
    }
    tu_case(t, "texts: a failed rename at close names both paths and errno");
    if (tu_case_enabled(t)) {
        char path[1024], keep[1100];
        tu_temp_path(t, "rename", path, sizeof path);
        snprintf(keep, sizeof keep, "%s/keep", path);
        writer w;
        if (writer_make(t, t->comm, "serial", 41, &w)) {
            collio_file *f = NULL;
            if (TU_RC_ALL(t,
                          collio_file_open(t->comm, path, COLLIO_FILE_CREATE, NULL, &f),
                          COLLIO_OK, "open")) {
                TU_RC_ALL(t, collio_write(w.p, f, w.buf, w.bytes), COLLIO_OK, "write");
                /* the target becomes a non-empty directory before the commit */
                int ok = 1;
                if (t->rank == 0) {
                    ok = mkdir(path, 0700) == 0;
                    FILE *k = ok ? fopen(keep, "w") : NULL;
                    ok = k != NULL && fclose(k) == 0;
                }
                TU_CHECK(t, tu_all(t, ok), "a directory in the way");
                TU_RC_ALL(t, collio_file_close(&f), COLLIO_ERR_IO, "close: rename fails");
                same_detail(t, "rename", "rank 0: rename ", path, ".collio-tmp.",
                            "Is a directory", NULL);
                TU_CHECK(t, tu_count_strays(t, path) == 0, "the temporary is removed");
            }
        }
        writer_free(&w);
        if (t->rank == 0) {
            unlink(keep);
            rmdir(path);
        }
        MPI_Barrier(t->comm);
    }
    tu_case(t, "texts: target names of NAME_MAX bytes");
    if (tu_case_enabled(t)) {
        char path[1024], longp[1400], toolong[1400];
        tu_temp_path(t, "name", path, sizeof path);
        const char *name = strrchr(path, '/') + 1;
        int dl = (int)(name - path);
        /* a name of exactly 255 bytes: this run's prefix, then x's */
        snprintf(longp, sizeof longp, "%s", path);
        size_t have = strlen(name);
        for (size_t i = have; i < 255; i++)
            strcat(longp, "x");
        snprintf(toolong, sizeof toolong, "%sy", longp);
        writer w;
        if (writer_make(t, t->comm, "multiphase", 51, &w)) {
            TU_CHECK(t, tu_plan_io(t, w.p, longp, NULL, 1, w.buf, w.bytes),
                     "a 255-byte name: create and commit");
            TU_CHECK(t, holds(t, longp, 51), "a 255-byte name: the data");
            TU_CHECK(t, tu_count_strays(t, longp) == 0,
                     "a 255-byte name: no temporary left");
            collio_file *f = NULL;
            TU_RC_ALL(t, collio_file_open(t->comm, toolong, COLLIO_FILE_CREATE, NULL, &f),
                      COLLIO_ERR_OPEN, "a 256-byte name");
            same_detail(t, "a 256-byte name", "rank 0: ", toolong, "File name too long",
                        NULL);
            TU_CHECK(t, strstr(collio_last_error(), "leftover") == NULL,
                     "no word of leftovers");
        }
        writer_free(&w);
        tu_remove(t, longp);
        (void)dl;
    }
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_reliability");
    signal(SIGXFSZ, SIG_IGN);
    MPI_Comm reversed;
    MPI_Comm_split(t.comm, 0, t.nranks - t.rank, &reversed);

    texts(&t);
    dead_writer(&t);
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1)
            continue;
        communicators(&t, name, reversed);
        for (int be = 0; be < 2; be++) {
            for (int w = W_BUFSIZE; w <= W_READ_BUFSIZE; w++) {
                tu_case(&t, "failed call + close: %s strategy=%s backend=%s", way_name[w],
                        name, be ? "mpiio" : "posix");
                if (tu_case_enabled(&t))
                    failed_call(&t, name, (collio_backend)be, (enum way)w, reversed);
            }
            same_target_twice(&t, name, (collio_backend)be);
            for (int rep = 0; rep < 3; rep++)
                two_jobs(&t, name, (collio_backend)be, rep);
        }
    }
    MPI_Comm_free(&reversed);
    return tu_finish(&t);
}
