/*
 * mpi_flip.c -- a generator of one-rank flips. For every collective call
 * of the public API (include/collio.h) and every argument of it, a table
 * lists how the argument is flipped -- to another valid value, to an
 * invalid one, to NULL -- and the documented code the call must then
 * return. Each row runs once with the flip applied on ONE rank only (the
 * "odd" rank, which rotates with the case index so that every rank gets
 * to be the odd one out) and checks, on EVERY rank:
 *   - the code is the expected one, the same everywhere (TU_RC_ALL);
 *   - for an error, collio_last_error() is non-empty, identical on every
 *     rank of the call's communicator, starts with "rank " and, where the
 *     row says so, names the odd rank and the argument;
 *   - handles are NULL after a failed constructor / open / plan_create;
 *   - no file changed: a failed open, write or read leaves the previous
 *     file at every path involved byte-identical (compared with plain POSIX
 *     reads, tu_posix_get), creates no file at a flipped path and leaves no
 *     temporary beside it (tu_count_strays); a CREATE file whose write or
 *     read failed closes with COLLIO_ERR_IO on every rank;
 *   - within a bound: every case runs under its own alarm
 *     (COLLIO_FLIP_CASE_TIMEOUT seconds, default 60), whose handler names
 *     the case and _exit(2)s -- a hang fails with the case's name.
 * Rules of the tables (the library's documented semantics):
 *   - a value that differs across ranks is COLLIO_ERR_MISMATCH on every
 *     rank, also when the odd rank's value would be invalid on its own
 *     (invalid, NULL or overflowing): the difference wins; plan options
 *     are hints, and a hint value that does not parse never becomes a
 *     value: collio_hints_set rejects it on the odd rank (locally), and
 *     in the odd rank's COLLIO_HINTS it is that rank's error (ARG, or
 *     STRATEGY for an unknown strategy name) on every rank, naming
 *     COLLIO_HINTS and the key;
 *   - an argument that is this rank's own (an index list's idx / nlocal /
 *     owned, a buffer, its size, the file handle of collio_write) gives its
 *     own code (RANGE, OVERLAP, COVERAGE, ARG, BUFSIZE, STATE) on every
 *     rank;
 *   - a NULL `out` pointer on one rank is ARG on every rank;
 *   - handles come from collective calls: they are never NULL on one rank
 *     only here (the library cannot tell the others), only on all ranks:
 *     ARG everywhere. Where no communicator is left to agree on (a NULL
 *     plan, a NULL file to close), the text is the same on every rank but
 *     carries no "rank R: " prefix (T_LOCAL), as no rank can be named.
 * Each table also has a control row ("nothing" flipped, or a flip to an
 * equal value such as hints NULL for the defaults) that must succeed, so
 * that an error of the other rows is the flip's. Rows whose value can only
 * differ with two or more ranks are counted as skipped at 1 rank.
 *
 * At the end rank 0 prints the case table: cases per call, run, skipped,
 * failed.
 *
 * Usage: mpi_flip [FILTER]   (only cases whose description contains it)
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ the rows */

/* What the error text must say beyond being the same everywhere and
 * starting with "rank ": */
enum {
    T_ODD,   /* it starts "rank ODD: " (the odd rank found the error) */
    T_NAMES, /* it names "rank ODD" (a mismatch names the differing rank) */
    T_ANY,   /* any rank (found by a domain owner, or by every rank) */
    T_LOCAL  /* no communicator to agree on (NULL plan on every rank): the
                same text everywhere, no rank prefix possible */
};

/* Ranks a row needs. */
enum { NEED1 = 1, NEED2 = 2, NEED_EVEN4 = 4 };

typedef struct flip {
    const char *arg;   /* the argument flipped */
    const char *how;   /* to what */
    int what;          /* the call's selector of that argument */
    int k;             /* an index (dimension, option) where one is needed */
    int64_t v;         /* the flipped value */
    int want;          /* the code expected on every rank */
    int need;          /* NEED1, NEED2 (the value must differ), NEED_EVEN4 */
    int text;          /* T_* */
    const char *names; /* the error text contains this (NULL: not checked) */
} flip;

#define MM COLLIO_ERR_MISMATCH
#define NFL(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Selectors shared by every call. */
enum { A_NONE = 0, A_OUT };

/* ------------------------------------------------------ per-call counts */

enum { C_BC, C_DA, C_IL, C_REP, C_PLAN, C_OPEN, C_CLOSE, C_WRITE, C_READ, C_H5, C_N };
static const char *const call_names[C_N] = {
    "collio_layout_block_cyclic",
    "collio_layout_darray",
    "collio_layout_index_list",
    "collio_layout_index_list_replicated",
    "collio_plan_create",
    "collio_file_open",
    "collio_file_close / collio_file_abort",
    "collio_write",
    "collio_read",
    "collio_describe_h5",
};
static struct {
    int64_t cases, run, skipped, failed;
} counts[C_N];

static int64_t ncase; /* rows generated so far: the same on every rank */

/* ------------------------------------------------------------ the bound */

static char alarm_msg[700];
static size_t alarm_len;
static time_t deadline; /* testutil's watchdog, taken over (0: none) */
static unsigned case_secs = 60;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, alarm_msg, alarm_len);
    (void)w;
    _exit(2);
}

/* Arms the alarm: `secs` (capped by the global deadline), then the
 * message the handler prints. */
static void arm(tu_ctx *t, unsigned secs, const char *what)
{
    int n = snprintf(alarm_msg, sizeof alarm_msg,
                     "[rank %d] mpi_flip TIMEOUT: %s {%s} did not finish in time\n",
                     t->rank, what, t->casedesc);
    alarm_len = n < 0                          ? 0
                : (size_t)n < sizeof alarm_msg ? (size_t)n
                                               : sizeof alarm_msg - 1;
    if (deadline) {
        time_t left = deadline - time(NULL);
        if (left < 1)
            left = 1;
        if (secs == 0 || (time_t)secs > left)
            secs = (unsigned)left;
    }
    alarm(secs);
}

static void arm_case(tu_ctx *t)
{
    arm(t, case_secs, "case");
}

/* Between cases: the global watchdog only. */
static void arm_global(tu_ctx *t)
{
    arm(t, 0, "setup after");
}

static void bound_init(tu_ctx *t)
{
    unsigned left = alarm(0); /* testutil's watchdog */
    deadline = left ? time(NULL) + (time_t)left : 0;
    const char *s = getenv("COLLIO_FLIP_CASE_TIMEOUT");
    if (s && atoi(s) > 0)
        case_secs = (unsigned)atoi(s);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    arm_global(t);
}

/* ------------------------------------------------------------ the driver */

typedef int (*run_fn)(tu_ctx *t, void *env, const flip *f, int odd, MPI_Comm *cc);
typedef void (*post_fn)(tu_ctx *t, void *env, const flip *f, int odd, int rc);

static int needs_met(tu_ctx *t, int need)
{
    if (need == NEED2 && t->nranks < 2) {
        tu_skip(t, "a value can differ across ranks only with 2 or more");
        return 0;
    }
    if (need == NEED_EVEN4 && (t->nranks < 4 || t->nranks % 2 != 0)) {
        tu_skip(t, "needs an even number of ranks >= 4");
        return 0;
    }
    return 1;
}

/* The error text of the call just made, on the call's communicator cc. */
static void check_text(tu_ctx *t, MPI_Comm cc, const flip *f, int odd)
{
    char mine[512], root[512], pre[32];
    snprintf(mine, sizeof mine, "%s", collio_last_error());
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, cc);
    TU_CHECK(t, mine[0] != '\0', "collio_last_error() is empty after an error");
    TU_CHECK(t, strcmp(mine, root) == 0,
             "collio_last_error() differs from rank 0's: '%s' here, '%s' on rank 0", mine,
             root);
    if (f->text != T_LOCAL)
        TU_CHECK(t, strncmp(mine, "rank ", 5) == 0,
                 "collio_last_error() '%s' does not start with \"rank \"", mine);
    if (f->text == T_ODD) {
        snprintf(pre, sizeof pre, "rank %d: ", odd);
        TU_CHECK(t, strncmp(mine, pre, strlen(pre)) == 0,
                 "collio_last_error() '%s' should start with '%s'", mine, pre);
    } else if (f->text == T_NAMES) {
        snprintf(pre, sizeof pre, "rank %d", odd);
        TU_CHECK(t, strstr(mine, pre) != NULL,
                 "collio_last_error() '%s' should name '%s'", mine, pre);
    }
    if (f->names)
        TU_CHECK(t, strstr(mine, f->names) != NULL,
                 "collio_last_error() '%s' should name '%s'", mine, f->names);
}

/* Runs every row of a table: the odd rank rotates with the case index. */
static void run_flips(tu_ctx *t, int call, const char *label, const flip *fl, int n,
                      void *env, run_fn run, post_fn post)
{
    for (int i = 0; i < n; i++) {
        const flip *f = &fl[i];
        int odd = (int)(ncase++ % t->nranks);
        tu_case(t, "%s: %s = %s%s%s, on rank %d", call_names[call], f->arg, f->how,
                label[0] ? " " : "", label, odd);
        if (!tu_case_enabled(t))
            continue;
        counts[call].cases++;
        if (!needs_met(t, f->need)) {
            counts[call].skipped++;
            continue;
        }
        counts[call].run++;
        int64_t before = t->failed;
        arm_case(t);
        MPI_Comm cc = t->comm;
        int rc = run(t, env, f, odd, &cc);
        TU_RC_ALL(t, rc, f->want, "the flipped call");
        if (rc != COLLIO_OK)
            check_text(t, cc, f, odd);
        if (post)
            post(t, env, f, odd, rc);
        arm_global(t);
        if (!tu_all(t, t->failed == before)) {
            counts[call].failed++;
            if (t->rank == 0) {
                printf("FAILED CASE {%s}\n", t->casedesc);
                fflush(stdout);
            }
        }
    }
}

/* --------------------------------------------------------- file helpers */

/* Collective: the file at path holds exactly want[0..n) (want NULL: the
 * path does not exist). */
static void check_same_file(tu_ctx *t, const char *path, const unsigned char *want,
                            size_t n, const char *what)
{
    size_t gotn = 0;
    unsigned char *got = tu_posix_get(t, path, &gotn);
    if (want == NULL)
        TU_CHECK(t, got == NULL, "%s: %s exists (%zu bytes) but must not", what, path,
                 gotn);
    else
        TU_CHECK(t, got && gotn == n && memcmp(got, want, n) == 0,
                 "%s: %s is not byte-identical (%s, %zu bytes, want %zu)", what, path,
                 got ? "differs" : "missing", gotn, n);
    free(got);
}

static void check_no_strays(tu_ctx *t, const char *path, const char *what)
{
    TU_CHECK(t, tu_count_strays(t, path) == 0, "%s: a temporary is left beside %s", what,
             path);
}

/* A pointer that is not NULL and not a valid handle: a failed call must
 * set *out to NULL. */
static char bogus[64];
#define BOGUS ((void *)bogus)

static void layout_done(tu_ctx *t, int rc, collio_layout **l, int noout)
{
    if (noout)
        return;
    if (rc != COLLIO_OK) {
        TU_CHECK(t, *l == NULL, "*out is NULL after a failed layout constructor");
        *l = NULL;
    } else {
        collio_layout_free(l);
    }
}

/* ------------------------------------------------- block-cyclic layouts */

enum { BC_NX = 10, BC_BX, BC_ESIZE };

static const flip bc_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"nx", "1001", BC_NX, 0, 1001, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"nx", "0", BC_NX, 0, 0, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"nx", "-1 (invalid)", BC_NX, 0, -1, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"nx", "INT64_MAX/4 (nx*esize overflows)", BC_NX, 0, INT64_MAX / 4, MM, NEED2,
     T_NAMES, "nx, bx or esize"},
    {"bx", "8", BC_BX, 0, 8, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"bx", "0 (invalid)", BC_BX, 0, 0, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"bx", "-3 (invalid)", BC_BX, 0, -3, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"esize", "4", BC_ESIZE, 0, 4, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"esize", "0 (invalid)", BC_ESIZE, 0, 0, MM, NEED2, T_NAMES, "nx, bx or esize"},
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

static int bc_run(tu_ctx *t, void *env, const flip *f, int odd, MPI_Comm *cc)
{
    (void)env;
    (void)cc;
    int64_t nx = 1000, bx = 7;
    size_t es = 8;
    int noout = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case BC_NX:
            nx = f->v;
            break;
        case BC_BX:
            bx = f->v;
            break;
        case BC_ESIZE:
            es = (size_t)f->v;
            break;
        case A_OUT:
            noout = 1;
            break;
        }
    }
    collio_layout *l = BOGUS;
    int rc = collio_layout_block_cyclic(t->comm, nx, bx, es, noout ? NULL : &l);
    layout_done(t, rc, &l, noout);
    return rc;
}

/* ----------------------------------------------------------- darrays */

enum {
    DA_NDIMS = 20,
    DA_GSIZE,
    DA_DISTRIB,
    DA_DARG,
    DA_PSIZE,
    DA_PSIZE_PLUS1,
    DA_PSIZES_OTHER,
    DA_GSIZES_NULL,
    DA_DISTRIBS_NULL,
    DA_DARGS_NULL,
    DA_PSIZES_NULL,
    DA_ORDER,
    DA_ESIZE
};

#define DA_MM(arg, how, what, k, v)                                                      \
    {                                                                                    \
        arg, how, what, k, v, MM, NEED2, T_NAMES, "the arguments (ndims, gsizes"         \
    }

static const flip da_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    DA_MM("ndims", "3 (a third dimension of size 1)", DA_NDIMS, 0, 3),
    DA_MM("ndims", "1", DA_NDIMS, 0, 1),
    DA_MM("ndims", "0 (invalid)", DA_NDIMS, 0, 0),
    DA_MM("ndims", "9 (invalid)", DA_NDIMS, 0, 9),
    DA_MM("gsizes[0]", "11", DA_GSIZE, 0, 11),
    DA_MM("gsizes[0]", "0 (invalid)", DA_GSIZE, 0, 0),
    DA_MM("gsizes[1]", "13", DA_GSIZE, 1, 13),
    DA_MM("gsizes[1]", "-1 (invalid)", DA_GSIZE, 1, -1),
    DA_MM("gsizes[0]", "2^62 (the array's bytes overflow)", DA_GSIZE, 0,
          INT64_C(1) << 62),
    DA_MM("distribs[0]", "CYCLIC", DA_DISTRIB, 0, COLLIO_DIST_CYCLIC),
    DA_MM("distribs[0]", "7 (not a collio_distrib)", DA_DISTRIB, 0, 7),
    DA_MM("distribs[1]", "BLOCK (with its darg 2)", DA_DISTRIB, 1, COLLIO_DIST_BLOCK),
    DA_MM("distribs[1]", "NONE", DA_DISTRIB, 1, COLLIO_DIST_NONE),
    DA_MM("dargs[0]", "10", DA_DARG, 0, 10),
    DA_MM("dargs[0]", "-1 (invalid)", DA_DARG, 0, -1),
    DA_MM("dargs[0]", "1 (BLOCK too small)", DA_DARG, 0, 1),
    DA_MM("dargs[1]", "3", DA_DARG, 1, 3),
    DA_MM("dargs[1]", "0 (the default)", DA_DARG, 1, 0),
    DA_MM("dargs[1]", "-2 (invalid)", DA_DARG, 1, -2),
    DA_MM("dargs", "NULL (all default)", DA_DARGS_NULL, 0, 0),
    DA_MM("psizes", "{1, P} (another grid)", DA_PSIZES_OTHER, 0, 0),
    DA_MM("psizes[0]", "0 (invalid)", DA_PSIZE, 0, 0),
    DA_MM("psizes[1]", "psizes[1] + 1 (grid != P)", DA_PSIZE_PLUS1, 1, 0),
    DA_MM("gsizes", "NULL", DA_GSIZES_NULL, 0, 0),
    DA_MM("distribs", "NULL", DA_DISTRIBS_NULL, 0, 0),
    DA_MM("psizes", "NULL", DA_PSIZES_NULL, 0, 0),
    DA_MM("order", "FORTRAN", DA_ORDER, 0, COLLIO_ORDER_FORTRAN),
    DA_MM("order", "7 (not a collio_order)", DA_ORDER, 0, 7),
    DA_MM("esize", "8", DA_ESIZE, 0, 8),
    DA_MM("esize", "0 (invalid)", DA_ESIZE, 0, 0),
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

/* Base: 10 x 12, BLOCK (default darg) x CYCLIC(2), over the grid
 * MPI_Dims_create gives, C order, 4-byte elements. Arrays hold
 * COLLIO_MAX_DIMS entries (dimensions past ndims: size 1, NONE). */
static int da_run(tu_ctx *t, void *env, const flip *f, int odd, MPI_Comm *cc)
{
    (void)env;
    (void)cc;
    int ndims = 2;
    int64_t g[COLLIO_MAX_DIMS], a[COLLIO_MAX_DIMS];
    collio_distrib ds[COLLIO_MAX_DIMS];
    int ps[COLLIO_MAX_DIMS];
    for (int d = 0; d < COLLIO_MAX_DIMS; d++) {
        g[d] = 1;
        a[d] = 0;
        ds[d] = COLLIO_DIST_NONE;
        ps[d] = 1;
    }
    int dims[2] = {0, 0};
    MPI_Dims_create(t->nranks, 2, dims);
    g[0] = 10;
    g[1] = 12;
    ds[0] = COLLIO_DIST_BLOCK;
    ds[1] = COLLIO_DIST_CYCLIC;
    a[1] = 2;
    ps[0] = dims[0];
    ps[1] = dims[1];
    collio_order order = COLLIO_ORDER_C;
    size_t es = 4;
    const int64_t *gp = g, *ap = a;
    const collio_distrib *dp = ds;
    const int *pp = ps;
    int noout = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case DA_NDIMS:
            ndims = (int)f->v;
            break;
        case DA_GSIZE:
            g[f->k] = f->v;
            break;
        case DA_DISTRIB:
            ds[f->k] = (collio_distrib)f->v;
            break;
        case DA_DARG:
            a[f->k] = f->v;
            break;
        case DA_PSIZE:
            ps[f->k] = (int)f->v;
            break;
        case DA_PSIZE_PLUS1:
            ps[f->k]++;
            break;
        case DA_PSIZES_OTHER:
            ps[0] = 1;
            ps[1] = t->nranks;
            break;
        case DA_GSIZES_NULL:
            gp = NULL;
            break;
        case DA_DISTRIBS_NULL:
            dp = NULL;
            break;
        case DA_DARGS_NULL:
            ap = NULL;
            break;
        case DA_PSIZES_NULL:
            pp = NULL;
            break;
        case DA_ORDER:
            order = (collio_order)f->v;
            break;
        case DA_ESIZE:
            es = (size_t)f->v;
            break;
        case A_OUT:
            noout = 1;
            break;
        }
    }
    collio_layout *l = BOGUS;
    int rc = collio_layout_darray(t->comm, ndims, gp, dp, ap, pp, order, es,
                                  noout ? NULL : &l);
    layout_done(t, rc, &l, noout);
    return rc;
}

/* -------------------------------------------------------- index lists */

#define NG 1000 /* elements of the index-list layouts */

/* This rank's contiguous share [lo, hi) of NG. */
static void share(const tu_ctx *t, int r, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)r * NG / t->nranks;
    *hi = (int64_t)(r + 1) * NG / t->nranks;
}

enum {
    IL_NGLOBAL = 40,
    IL_NGLOBAL_LO,
    IL_ESIZE,
    IL_NLOCAL,
    IL_DROP,
    IL_IDX_NULL,
    IL_IDX0,
    IL_DUP,
    IL_OTHERS
};

#define IL_MM(arg, how, what, v)                                                         \
    {                                                                                    \
        arg, how, what, 0, v, MM, NEED2, T_NAMES, "nglobal or esize"                     \
    }

static const flip il_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    IL_MM("nglobal", "1001", IL_NGLOBAL, 1001),
    IL_MM("nglobal", "this rank's lowest index (its indices then out of range)",
          IL_NGLOBAL_LO, 0),
    IL_MM("nglobal", "-1 (invalid)", IL_NGLOBAL, -1),
    IL_MM("nglobal", "INT64_MAX/4 (nglobal*esize overflows)", IL_NGLOBAL, INT64_MAX / 4),
    IL_MM("esize", "4", IL_ESIZE, 4),
    IL_MM("esize", "0 (invalid)", IL_ESIZE, 0),
    {"nlocal", "-1 (invalid)", IL_NLOCAL, 0, -1, COLLIO_ERR_ARG, NEED1, T_ODD,
     "nlocal is negative"},
    {"nlocal", "one less (an element dropped)", IL_DROP, 0, 0, COLLIO_ERR_COVERAGE, NEED1,
     T_ANY, "is held by no rank"},
    {"idx", "NULL with nlocal > 0", IL_IDX_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD,
     "idx is NULL"},
    {"idx[0]", "nglobal (out of range)", IL_IDX0, 0, NG, COLLIO_ERR_RANGE, NEED1, T_ODD,
     "is outside [0, 1000)"},
    {"idx[0]", "-1 (out of range)", IL_IDX0, 0, -1, COLLIO_ERR_RANGE, NEED1, T_ODD,
     "is outside [0, 1000)"},
    {"idx[1]", "idx[0] (a duplicate)", IL_DUP, 0, 0, COLLIO_ERR_OVERLAP, NEED1, T_ODD,
     "held twice by this rank"},
    {"idx[0]", "an element of the next rank", IL_OTHERS, 0, 0, COLLIO_ERR_OVERLAP, NEED2,
     T_ANY, "is held by two ranks"},
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

/* Base: rank r holds its share in decreasing order. */
static int il_run(tu_ctx *t, void *env, const flip *f, int odd, MPI_Comm *cc)
{
    (void)env;
    (void)cc;
    int64_t lo, hi, nglobal = NG;
    share(t, t->rank, &lo, &hi);
    int64_t n = hi - lo;
    int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx);
    for (int64_t i = 0; i < n; i++)
        idx[i] = hi - 1 - i;
    const int64_t *ip = idx;
    size_t es = 8;
    int noout = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case IL_NGLOBAL:
            nglobal = f->v;
            break;
        case IL_NGLOBAL_LO:
            nglobal = lo;
            break;
        case IL_ESIZE:
            es = (size_t)f->v;
            break;
        case IL_NLOCAL:
            n = f->v;
            break;
        case IL_DROP:
            n--;
            break;
        case IL_IDX_NULL:
            ip = NULL;
            break;
        case IL_IDX0:
            idx[0] = f->v;
            break;
        case IL_DUP:
            idx[1] = idx[0];
            break;
        case IL_OTHERS:
            idx[0] = hi % NG;
            break;
        case A_OUT:
            noout = 1;
            break;
        }
    }
    collio_layout *l = BOGUS;
    int rc = collio_layout_index_list(t->comm, nglobal, n, ip, es, noout ? NULL : &l);
    layout_done(t, rc, &l, noout);
    free(idx);
    return rc;
}

/* ----------------------------------------------- replicated index lists */

enum {
    RP_NGLOBAL = 60,
    RP_ESIZE,
    RP_OWNED2,
    RP_HALO_OWNED,
    RP_OWN_UNOWNED,
    RP_DROP,
    RP_DUP,
    RP_IDX0,
    RP_OWNED_NULL,
    RP_IDX_NULL,
    RP_NLOCAL
};

#define RP_MM(arg, how, what, v)                                                         \
    {                                                                                    \
        arg, how, what, 0, v, MM, NEED2, T_NAMES, "nglobal or esize"                     \
    }

static const flip rp_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    RP_MM("nglobal", "1001", RP_NGLOBAL, 1001),
    RP_MM("nglobal", "-1 (invalid)", RP_NGLOBAL, -1),
    RP_MM("esize", "4", RP_ESIZE, 4),
    RP_MM("esize", "0 (invalid)", RP_ESIZE, 0),
    {"owned[i]", "2 (not 0 or 1)", RP_OWNED2, 0, 2, COLLIO_ERR_ARG, NEED1, T_ODD,
     "is not 0 or 1"},
    {"owned[i]", "255 (not 0 or 1)", RP_OWNED2, 0, 255, COLLIO_ERR_ARG, NEED1, T_ODD,
     "is not 0 or 1"},
    {"owned[halo]", "1 (an element owned twice)", RP_HALO_OWNED, 0, 0, COLLIO_ERR_OVERLAP,
     NEED2, T_ANY, "is owned by two ranks"},
    {"owned[own]", "0 (an element owned by none)", RP_OWN_UNOWNED, 0, 0,
     COLLIO_ERR_COVERAGE, NEED1, T_ANY, NULL},
    {"nlocal", "one less (an owned element dropped)", RP_DROP, 0, 0, COLLIO_ERR_COVERAGE,
     NEED1, T_ANY, NULL},
    {"nlocal", "-1 (invalid)", RP_NLOCAL, 0, -1, COLLIO_ERR_ARG, NEED1, T_ODD,
     "a negative count"},
    {"idx[last]", "idx[last-1] (held twice by one rank)", RP_DUP, 0, 0,
     COLLIO_ERR_OVERLAP, NEED1, T_ANY, "is held twice by rank"},
    {"idx[0]", "nglobal (out of range)", RP_IDX0, 0, NG, COLLIO_ERR_RANGE, NEED1, T_ODD,
     "is outside [0, 1000)"},
    {"idx[0]", "-5 (out of range)", RP_IDX0, 0, -5, COLLIO_ERR_RANGE, NEED1, T_ODD,
     "is outside [0, 1000)"},
    {"owned", "NULL with nlocal > 0", RP_OWNED_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD,
     "idx or owned is NULL"},
    {"idx", "NULL with nlocal > 0", RP_IDX_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD,
     "idx or owned is NULL"},
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

/* Base: rank r holds the halo elements lo-1 (r > 0) and hi (r < P-1),
 * owned by its neighbours, then its own share in decreasing order. */
static int rp_run(tu_ctx *t, void *env, const flip *f, int odd, MPI_Comm *cc)
{
    (void)env;
    (void)cc;
    int64_t lo, hi, nglobal = NG;
    share(t, t->rank, &lo, &hi);
    int64_t *idx = malloc((size_t)(hi - lo + 2) * sizeof *idx);
    unsigned char *own = malloc((size_t)(hi - lo + 2));
    int64_t n = 0, nh;
    if (t->rank > 0) {
        idx[n] = lo - 1;
        own[n++] = 0;
    }
    if (t->rank < t->nranks - 1) {
        idx[n] = hi;
        own[n++] = 0;
    }
    nh = n;
    for (int64_t i = hi - 1; i >= lo; i--) {
        idx[n] = i;
        own[n++] = 1;
    }
    const int64_t *ip = idx;
    const unsigned char *op = own;
    size_t es = 8;
    int noout = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case RP_NGLOBAL:
            nglobal = f->v;
            break;
        case RP_ESIZE:
            es = (size_t)f->v;
            break;
        case RP_OWNED2:
            own[nh] = (unsigned char)f->v;
            break;
        case RP_HALO_OWNED:
            own[0] = 1; /* nh >= 1 at P >= 2 */
            break;
        case RP_OWN_UNOWNED:
            own[n - 1] = 0;
            break;
        case RP_DROP:
            n--;
            break;
        case RP_NLOCAL:
            n = f->v;
            break;
        case RP_DUP:
            idx[n - 1] = idx[n - 2];
            break;
        case RP_IDX0:
            idx[0] = f->v;
            break;
        case RP_OWNED_NULL:
            op = NULL;
            break;
        case RP_IDX_NULL:
            ip = NULL;
            break;
        case A_OUT:
            noout = 1;
            break;
        }
    }
    collio_layout *l = BOGUS;
    int rc = collio_layout_index_list_replicated(t->comm, nglobal, n, ip, op, es,
                                                 noout ? NULL : &l);
    layout_done(t, rc, &l, noout);
    free(idx);
    free(own);
    return rc;
}

/* ------------------------------------------------------------- plans */

enum {
    PL_OPTS_NULL = 80,
    PL_HINTS_EMPTY,
    PL_ENV_DEFAULTS,
    PL_ENV_OVER,
    PL_STRATEGY,
    PL_STRATEGY_NEXT,
    PL_OPT,
    PL_LAYOUT, /* k: which other layout on the odd rank */
    PL_LAYOUT_REV_ALL,
    PL_COMM_REV_ALL,
    PL_LAYOUT_NULL_ALL,
    PL_SPLITS
};

/* Other layouts (PL_LAYOUT's k). */
enum { LY_REV, LY_1001, LY_ESIZE4, LY_INDEX, LY_REPL, LY_DUP, LY_N };

/* Option flips (PL_OPT's k): one hint, as text. A value the hint
 * parser takes (local OK) goes into the odd rank's collio_hints: its
 * options then differ from the others', MISMATCH on every rank. One it
 * rejects (local ARG, STRATEGY: collio_hints_set says so on the odd rank,
 * naming the key) cannot be held by a set; it reaches the plan through
 * the odd rank's COLLIO_HINTS instead (set before the call, unset after),
 * whose parse fails on that rank before any value is compared: that code
 * on every rank, the odd rank's text naming COLLIO_HINTS and the key
 * (PL_BADROW). */
enum {
    O_DESTROY1,
    O_DESTROY2,
    O_CHUNK,
    O_CHUNK0,
    O_IOV,
    O_IOV0,
    O_PHASES1,
    O_PHASES_NEG,
    O_PHASES_BIG,
    O_KEEP0,
    O_KEEP2,
    O_ROUNDS_NEG1,
    O_ROUNDS2,
    O_ROUNDS63,
    O_X_HYPER,
    O_X_DIRECT,
    O_X_NODE_DIRECT,
    O_X_NODE_HYPER,
    O_X_BAD,
    O_X_NEG,
    O_SHM0,
    O_SHM2,
    O_GROUP2,
    O_GROUP_NEG,
    O_INNER_INDEP,
    O_INNER_SAME,
    O_INNER_UNKNOWN,
    O_INNER_SUBGROUP,
    O_INNER_BLOCK,
    O_INNER_EMPTY,
    O_POLICY_FIRST,
    O_POLICY_BAD,
    O_POLICY_NEG,
    O_SEED,
};

typedef struct opt_flip {
    const char *key, *value;
    int local; /* what collio_hints_set returns for it */
} opt_flip;

static const opt_flip opt_flips[] = {
#define O_ROW(id, key, value, local) [id] = {key, value, local}
    O_ROW(O_DESTROY1, "plan.destroy_input", "1", COLLIO_OK),
    O_ROW(O_DESTROY2, "plan.destroy_input", "2", COLLIO_ERR_ARG),
    O_ROW(O_CHUNK, "serial.chunk_bytes", "4096", COLLIO_OK),
    O_ROW(O_CHUNK0, "serial.chunk_bytes", "0", COLLIO_ERR_ARG),
    O_ROW(O_IOV, "independent.max_iov", "3", COLLIO_OK),
    O_ROW(O_IOV0, "independent.max_iov", "0", COLLIO_ERR_ARG),
    O_ROW(O_PHASES1, "multiphase.phases", "1", COLLIO_OK),
    O_ROW(O_PHASES_NEG, "multiphase.phases", "-1", COLLIO_ERR_ARG),
    O_ROW(O_PHASES_BIG, "multiphase.phases", "33", COLLIO_ERR_ARG),
    O_ROW(O_KEEP0, "plan.keep_buffers", "0", COLLIO_OK),
    O_ROW(O_KEEP2, "plan.keep_buffers", "2", COLLIO_ERR_ARG),
    O_ROW(O_ROUNDS_NEG1, "multiphase.write_rounds", "-1", COLLIO_OK),
    O_ROW(O_ROUNDS2, "multiphase.write_rounds", "2", COLLIO_OK),
    O_ROW(O_ROUNDS63, "multiphase.write_rounds", "63", COLLIO_ERR_ARG),
    O_ROW(O_X_HYPER, "multiphase.exchange", "hypercube", COLLIO_OK),
    O_ROW(O_X_DIRECT, "multiphase.exchange", "direct", COLLIO_OK),
    O_ROW(O_X_NODE_DIRECT, "multiphase.exchange", "node-direct", COLLIO_OK),
    O_ROW(O_X_NODE_HYPER, "multiphase.exchange", "node-hypercube", COLLIO_OK),
    O_ROW(O_X_BAD, "multiphase.exchange", "5", COLLIO_ERR_ARG),
    O_ROW(O_X_NEG, "multiphase.exchange", "-1", COLLIO_ERR_ARG),
    O_ROW(O_SHM0, "multiphase.shared_memory", "0", COLLIO_OK),
    O_ROW(O_SHM2, "multiphase.shared_memory", "2", COLLIO_ERR_ARG),
    O_ROW(O_GROUP2, "subgroup.group", "2", COLLIO_OK),
    O_ROW(O_GROUP_NEG, "subgroup.group", "-1", COLLIO_ERR_ARG),
    O_ROW(O_INNER_INDEP, "subgroup.inner", "independent", COLLIO_OK),
    O_ROW(O_INNER_SAME, "subgroup.inner", "two_phase", COLLIO_OK),
    O_ROW(O_INNER_UNKNOWN, "subgroup.inner", "no-such-strategy", COLLIO_ERR_STRATEGY),
    O_ROW(O_INNER_SUBGROUP, "subgroup.inner", "subgroup", COLLIO_OK),
    O_ROW(O_INNER_BLOCK, "subgroup.inner", "block", COLLIO_OK),
    O_ROW(O_INNER_EMPTY, "subgroup.inner", "", COLLIO_ERR_STRATEGY),
    O_ROW(O_POLICY_FIRST, "replicas.policy", "first", COLLIO_OK),
    O_ROW(O_POLICY_BAD, "replicas.policy", "6", COLLIO_ERR_ARG),
    O_ROW(O_POLICY_NEG, "replicas.policy", "-1", COLLIO_ERR_ARG),
    O_ROW(O_SEED, "replicas.seed", "7", COLLIO_OK),
#undef O_ROW
};

#define PL_OPTROW(arg, how, k)                                                           \
    {                                                                                    \
        arg, how, PL_OPT, k, 0, MM, NEED2, T_NAMES, "plan options (hints) differ"        \
    }
#define PL_BADROW(arg, how, k, code)                                                     \
    {                                                                                    \
        arg, how, PL_OPT, k, 0, code, NEED1, T_ODD, "COLLIO_HINTS: hint " arg            \
    }

static const flip pl_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"hints", "NULL (the defaults)", PL_OPTS_NULL, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"strategy", "the next registered name", PL_STRATEGY_NEXT, 0, 0, MM, NEED2, T_NAMES,
     "the strategy name differs"},
    {"strategy", "\"no-such-strategy\" (unknown)", PL_STRATEGY, 0, 0, MM, NEED2, T_NAMES,
     "the strategy name differs"},
    {"strategy", "\"\" (empty)", PL_STRATEGY, 0, 1, MM, NEED2, T_NAMES,
     "the strategy name differs"},
    {"strategy", "NULL", PL_STRATEGY, 0, 2, MM, NEED2, T_NAMES,
     "the strategy name differs"},
    {"hints", "an empty set (the defaults)", PL_HINTS_EMPTY, 0, 0, COLLIO_OK, NEED1,
     T_ANY, NULL},
    {"COLLIO_HINTS", "the defaults spelled out", PL_ENV_DEFAULTS, 0, 0, COLLIO_OK, NEED1,
     T_ANY, NULL},
    {"COLLIO_HINTS", "multiphase.phases=1 over the same hints", PL_ENV_OVER, 0, 0, MM,
     NEED2, T_NAMES, "plan options (hints) differ"},
    PL_OPTROW("plan.destroy_input", "1", O_DESTROY1),
    PL_BADROW("plan.destroy_input", "2 (invalid)", O_DESTROY2, COLLIO_ERR_ARG),
    PL_OPTROW("serial.chunk_bytes", "4096", O_CHUNK),
    PL_BADROW("serial.chunk_bytes", "0 (invalid)", O_CHUNK0, COLLIO_ERR_ARG),
    PL_OPTROW("independent.max_iov", "3", O_IOV),
    PL_BADROW("independent.max_iov", "0 (invalid)", O_IOV0, COLLIO_ERR_ARG),
    PL_OPTROW("multiphase.phases", "1", O_PHASES1),
    PL_BADROW("multiphase.phases", "-1 (invalid)", O_PHASES_NEG, COLLIO_ERR_ARG),
    PL_BADROW("multiphase.phases", "33 (invalid)", O_PHASES_BIG, COLLIO_ERR_ARG),
    PL_OPTROW("plan.keep_buffers", "0", O_KEEP0),
    PL_BADROW("plan.keep_buffers", "2 (invalid)", O_KEEP2, COLLIO_ERR_ARG),
    PL_OPTROW("multiphase.write_rounds", "-1", O_ROUNDS_NEG1),
    PL_OPTROW("multiphase.write_rounds", "2", O_ROUNDS2),
    PL_BADROW("multiphase.write_rounds", "63 (invalid)", O_ROUNDS63, COLLIO_ERR_ARG),
    PL_OPTROW("multiphase.exchange", "hypercube", O_X_HYPER),
    PL_OPTROW("multiphase.exchange", "direct", O_X_DIRECT),
    PL_OPTROW("multiphase.exchange", "node-direct", O_X_NODE_DIRECT),
    PL_OPTROW("multiphase.exchange", "node-hypercube", O_X_NODE_HYPER),
    PL_BADROW("multiphase.exchange", "\"5\" (TU_EXCHANGE__COUNT, not a name)", O_X_BAD,
              COLLIO_ERR_ARG),
    PL_BADROW("multiphase.exchange", "\"-1\" (not a name)", O_X_NEG, COLLIO_ERR_ARG),
    PL_OPTROW("multiphase.shared_memory", "0", O_SHM0),
    PL_BADROW("multiphase.shared_memory", "2 (invalid)", O_SHM2, COLLIO_ERR_ARG),
    PL_OPTROW("subgroup.group", "2", O_GROUP2),
    PL_BADROW("subgroup.group", "-1 (invalid)", O_GROUP_NEG, COLLIO_ERR_ARG),
    PL_OPTROW("subgroup.inner", "independent", O_INNER_INDEP),
    /* the default spelled out is the default (an option, not a pointer) */
    {"subgroup.inner", "two_phase (the default spelled out)", PL_OPT, O_INNER_SAME, 0,
     COLLIO_OK, NEED1, T_ANY, NULL},
    PL_BADROW("subgroup.inner", "no-such-strategy (unknown)", O_INNER_UNKNOWN,
              COLLIO_ERR_STRATEGY),
    PL_OPTROW("subgroup.inner", "subgroup (invalid for subgroup)", O_INNER_SUBGROUP),
    PL_OPTROW("subgroup.inner", "block (invalid for subgroup)", O_INNER_BLOCK),
    PL_BADROW("subgroup.inner", "\"\" (empty)", O_INNER_EMPTY, COLLIO_ERR_STRATEGY),
    PL_OPTROW("replicas.policy", "first", O_POLICY_FIRST),
    PL_BADROW("replicas.policy", "\"6\" (TU_REPLICAS__COUNT, not a name)", O_POLICY_BAD,
              COLLIO_ERR_ARG),
    PL_BADROW("replicas.policy", "\"-1\" (not a name)", O_POLICY_NEG, COLLIO_ERR_ARG),
    PL_OPTROW("replicas.seed", "7", O_SEED),
    {"layout", "made on the world in reverse order (key -rank)", PL_LAYOUT, LY_REV, 0, MM,
     NEED2, T_ODD, "another communicator"},
    {"layout", "made on a duplicate of the world (same group, same order)", PL_LAYOUT,
     LY_DUP, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"layout", "nx 1001", PL_LAYOUT, LY_1001, 0, MM, NEED2, T_NAMES, "the layouts"},
    {"layout", "esize 4", PL_LAYOUT, LY_ESIZE4, 0, MM, NEED2, T_NAMES, "the layouts"},
    {"layout", "an index list (the same nglobal and esize)", PL_LAYOUT, LY_INDEX, 0, MM,
     NEED2, T_NAMES, "the layouts"},
    {"layout", "a replicated index list (the same nglobal, esize)", PL_LAYOUT, LY_REPL, 0,
     MM, NEED2, T_NAMES, "the layouts"},
    {"layout (every rank)", "made on the world in reverse order", PL_LAYOUT_REV_ALL, 0, 0,
     MM, NEED2, T_ANY, "another communicator"},
    {"comm (every rank)", "the world in reverse order, the layout the world's",
     PL_COMM_REV_ALL, 0, 0, MM, NEED2, T_ANY, "another communicator"},
    {"comm and layout (every rank)",
     "plan on halves split by rank % 2, layout on halves split by rank < P/2", PL_SPLITS,
     0, 0, MM, NEED_EVEN4, T_ANY, "another communicator"},
    {"layout (every rank)", "NULL", PL_LAYOUT_NULL_ALL, 0, 0, COLLIO_ERR_ARG, NEED1,
     T_ANY, "layout is NULL"},
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

typedef struct plan_env {
    const char *strategy, *next; /* the plans' strategy, the next registered */
    collio_layout *l;            /* block-cyclic 1000/7/8 on the world */
    collio_layout *other[LY_N];  /* PL_LAYOUT's alternatives */
    collio_layout *lsplit;       /* on splitB (even P >= 4) */
    MPI_Comm rev, dup, splitA, splitB;
} plan_env;

static int pl_run(tu_ctx *t, void *envp, const flip *f, int odd, MPI_Comm *cc)
{
    plan_env *e = envp;
    int me = t->rank == odd;
    /* every rank: one valid hint of every section, so that the odd rank's
     * flip changes a set that is not empty (PL_OPTS_NULL: NULL there) */
    collio_hints *h = TU_HINTS(t, "plan.keep_buffers=1,replicas.seed=0");
    const collio_hints *op = h;
    const char *env = NULL; /* the odd rank's COLLIO_HINTS */
    const collio_layout *l = e->l;
    const char *s = e->strategy;
    MPI_Comm comm = t->comm;
    int noout = 0;
    switch (f->what) {
    case PL_OPTS_NULL:
        if (me)
            op = NULL;
        break;
    case PL_HINTS_EMPTY:
        collio_hints_free(&h);
        h = TU_HINTS(t, "%s", "");
        op = h;
        break;
    case PL_ENV_DEFAULTS:
        if (me)
            env = "plan.keep_buffers=1,multiphase.exchange=auto,subgroup.inner=two_phase";
        break;
    case PL_ENV_OVER:
        if (me)
            env = "multiphase.phases=1";
        break;
    case PL_STRATEGY:
        if (me)
            s = f->v == 0 ? "no-such-strategy" : f->v == 1 ? "" : NULL;
        break;
    case PL_STRATEGY_NEXT:
        if (me)
            s = e->next;
        break;
    case PL_OPT:
        if (me) {
            const opt_flip *o = &opt_flips[f->k];
            int rc = collio_hints_set(h, o->key, o->value);
            TU_RC(t, rc, o->local, "collio_hints_set of the flipped value");
            if (rc != COLLIO_OK)
                TU_CHECK(t, strstr(collio_last_error(), o->key) != NULL,
                         "collio_hints_set: '%s' should name %s", collio_last_error(),
                         o->key);
            if (o->local != COLLIO_OK) {
                static char text[128];
                snprintf(text, sizeof text, "%s=%s", o->key, o->value);
                env = text;
            }
        }
        break;
    case PL_LAYOUT:
        if (me)
            l = e->other[f->k];
        break;
    case PL_LAYOUT_REV_ALL:
        l = e->other[LY_REV];
        break;
    case PL_COMM_REV_ALL:
        comm = e->rev;
        break;
    case PL_SPLITS:
        comm = e->splitA;
        l = e->lsplit;
        break;
    case PL_LAYOUT_NULL_ALL:
        l = NULL;
        break;
    case A_OUT:
        noout = me;
        break;
    }
    *cc = comm;
    collio_plan *p = BOGUS;
    if (env != NULL)
        setenv("COLLIO_HINTS", env, 1);
    int rc = collio_plan_create(comm, l, s, op, noout ? NULL : &p);
    if (env != NULL)
        unsetenv("COLLIO_HINTS");
    collio_hints_free(&h);
    if (!noout && rc != COLLIO_OK) {
        TU_CHECK(t, p == NULL, "*out is NULL after a failed collio_plan_create");
        p = NULL;
    }
    if (!noout && rc == COLLIO_OK)
        collio_plan_free(&p);
    return rc;
}

static void plan_section(tu_ctx *t)
{
    plan_env e;
    memset(&e, 0, sizeof e);
    int P = t->nranks, r = t->rank;
    MPI_Comm_split(t->comm, 0, -r, &e.rev);
    MPI_Comm_dup(t->comm, &e.dup);
    e.splitA = e.splitB = MPI_COMM_NULL;
    int ok = collio_layout_block_cyclic(t->comm, 1000, 7, 8, &e.l) == COLLIO_OK;
    ok &= collio_layout_block_cyclic(e.rev, 1000, 7, 8, &e.other[LY_REV]) == COLLIO_OK;
    ok &= collio_layout_block_cyclic(e.dup, 1000, 7, 8, &e.other[LY_DUP]) == COLLIO_OK;
    ok &= collio_layout_block_cyclic(t->comm, 1001, 7, 8, &e.other[LY_1001]) == COLLIO_OK;
    ok &=
        collio_layout_block_cyclic(t->comm, 1000, 7, 4, &e.other[LY_ESIZE4]) == COLLIO_OK;
    int64_t lo, hi;
    share(t, r, &lo, &hi);
    int64_t *idx = malloc((size_t)(hi - lo + 1) * sizeof *idx);
    unsigned char *own = malloc((size_t)(hi - lo + 1));
    for (int64_t i = lo; i < hi; i++) {
        idx[i - lo] = i;
        own[i - lo] = 1;
    }
    ok &= collio_layout_index_list(t->comm, NG, hi - lo, idx, 8, &e.other[LY_INDEX])
          == COLLIO_OK;
    ok &= collio_layout_index_list_replicated(t->comm, NG, hi - lo, idx, own, 8,
                                              &e.other[LY_REPL])
          == COLLIO_OK;
    free(idx);
    free(own);
    if (P >= 4 && P % 2 == 0) {
        MPI_Comm_split(t->comm, r % 2, r, &e.splitA);
        MPI_Comm_split(t->comm, r < P / 2, r, &e.splitB);
        ok &= collio_layout_block_cyclic(e.splitB, 1000, 7, 8, &e.lsplit) == COLLIO_OK;
    }
    tu_case(t, "collio_plan_create: the layouts of the plan cases");
    if (!TU_CHECK(t, tu_all(t, ok), "every layout of the plan cases made"))
        goto out;
    int ns = collio_strategy_count();
    for (int s = 0; s < ns; s++) {
        e.strategy = collio_strategy_name(s);
        e.next = collio_strategy_name((s + 1) % ns);
        char label[96];
        snprintf(label, sizeof label, "[strategy=%s]", e.strategy);
        /* NULL names the default strategy, "auto": under it a NULL on one
         * rank is the same name */
        flip rows[NFL(pl_flips)];
        memcpy(rows, pl_flips, sizeof rows);
        for (int i = 0; i < NFL(pl_flips); i++)
            if (rows[i].what == PL_STRATEGY && rows[i].v == 2
                && strcmp(e.strategy, "auto") == 0) {
                rows[i].how = "NULL (the default, auto: the same)";
                rows[i].want = COLLIO_OK;
                rows[i].need = NEED1;
                rows[i].text = T_ANY;
                rows[i].names = NULL;
            }
        run_flips(t, C_PLAN, label, rows, NFL(pl_flips), &e, pl_run, NULL);
    }
out:
    collio_layout_free(&e.l);
    for (int k = 0; k < LY_N; k++)
        collio_layout_free(&e.other[k]);
    collio_layout_free(&e.lsplit);
    MPI_Comm_free(&e.rev);
    MPI_Comm_free(&e.dup);
    if (e.splitA != MPI_COMM_NULL)
        MPI_Comm_free(&e.splitA);
    if (e.splitB != MPI_COMM_NULL)
        MPI_Comm_free(&e.splitB);
}

/* ------------------------------------------------------------- opens */

enum {
    OP_PATH = 100, /* v: 0 another path, 1 NULL, 2 "" */
    OP_MODE,
    OP_BACKEND,
    OP_BASE,
    OP_SYNC,
    OP_OPTS_NULL
};

static const flip op_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"path", "another path", OP_PATH, 0, 0, MM, NEED2, T_NAMES, "the path differs"},
    {"path", "NULL", OP_PATH, 0, 1, MM, NEED2, T_NAMES, "the path differs"},
    {"path", "\"\" (empty)", OP_PATH, 0, 2, MM, NEED2, T_NAMES, "the path differs"},
    {"mode", "CREATE", OP_MODE, 0, COLLIO_FILE_CREATE, MM, NEED2, T_NAMES,
     "the mode differs"},
    {"mode", "INPLACE", OP_MODE, 0, COLLIO_FILE_INPLACE, MM, NEED2, T_NAMES,
     "the mode differs"},
    {"mode", "READ", OP_MODE, 0, COLLIO_FILE_READ, MM, NEED2, T_NAMES,
     "the mode differs"},
    {"mode", "7 (not a collio_file_mode)", OP_MODE, 0, 7, MM, NEED2, T_NAMES,
     "the mode differs"},
    {"opts.backend", "the other backend", OP_BACKEND, 0, -1, MM, NEED2, T_NAMES,
     "opts.backend differs"},
    {"opts.backend", "5 (not a collio_backend)", OP_BACKEND, 0, 5, MM, NEED2, T_NAMES,
     "opts.backend differs"},
    {"opts.base_offset", "8", OP_BASE, 0, 8, MM, NEED2, T_NAMES,
     "opts.base_offset differs"},
    {"opts.base_offset", "-1 (invalid)", OP_BASE, 0, -1, MM, NEED2, T_NAMES,
     "opts.base_offset differs"},
    {"opts.sync", "1", OP_SYNC, 0, 1, MM, NEED2, T_NAMES, "opts.sync differs"},
    {"opts.sync", "2 (invalid)", OP_SYNC, 0, 2, MM, NEED2, T_NAMES, "opts.sync differs"},
    {"opts", "NULL (the defaults)", OP_OPTS_NULL, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"out", "NULL", A_OUT, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "out is NULL"},
};

typedef struct open_env {
    collio_file_mode mode; /* the base mode */
    collio_backend be;     /* the base backend */
    char path[1024], other[1100];
    unsigned char *prev;
    size_t prevn;
    collio_file *f;
} open_env;

/* The rows under one base (mode, backend): a mode row equal to the base's
 * mode is no flip and is left out; opts NULL means the defaults, POSIX:
 * under an MPI-IO base it is a backend that differs. */
static int op_rows(const open_env *e, flip *rows)
{
    int n = 0;
    for (int i = 0; i < NFL(op_flips); i++) {
        const flip *f = &op_flips[i];
        if (f->what == OP_MODE && f->v == (int64_t)e->mode)
            continue;
        rows[n] = *f;
        if (f->what == OP_OPTS_NULL && e->be != COLLIO_BACKEND_POSIX) {
            rows[n].want = MM;
            rows[n].need = NEED2;
            rows[n].text = T_NAMES;
            rows[n].names = "opts.backend differs";
        }
        n++;
    }
    return n;
}

static int op_run(tu_ctx *t, void *envp, const flip *f, int odd, MPI_Comm *cc)
{
    (void)cc;
    open_env *e = envp;
    tu_posix_put(t, e->path, e->prev, e->prevn);
    tu_remove(t, e->other);
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = e->be;
    const collio_file_options *op = &o;
    const char *path = e->path;
    collio_file_mode mode = e->mode;
    int noout = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case OP_PATH:
            path = f->v == 0 ? e->other : f->v == 1 ? NULL : "";
            break;
        case OP_MODE:
            mode = (collio_file_mode)f->v;
            break;
        case OP_BACKEND:
            o.backend = f->v >= 0                       ? (collio_backend)f->v
                        : e->be == COLLIO_BACKEND_POSIX ? COLLIO_BACKEND_MPIIO
                                                        : COLLIO_BACKEND_POSIX;
            break;
        case OP_BASE:
            o.base_offset = f->v;
            break;
        case OP_SYNC:
            o.sync = (int)f->v;
            break;
        case OP_OPTS_NULL:
            op = NULL;
            break;
        case A_OUT:
            noout = 1;
            break;
        }
    }
    e->f = BOGUS;
    int rc = collio_file_open(t->comm, path, mode, op, noout ? NULL : &e->f);
    if (noout || rc != COLLIO_OK) {
        if (!noout)
            TU_CHECK(t, e->f == NULL, "*out is NULL after a failed collio_file_open");
        e->f = NULL;
    }
    return rc;
}

static void op_post(tu_ctx *t, void *envp, const flip *f, int odd, int rc)
{
    (void)odd;
    (void)f;
    open_env *e = envp;
    /* what opened (the controls) is discarded: abort leaves the path */
    int has = tu_all(t, e->f != NULL) ? 1 : tu_all(t, e->f == NULL) ? 0 : -1;
    TU_CHECK(t, has >= 0, "a file handle on some ranks only");
    if (has == 1)
        TU_RC_ALL(t, collio_file_abort(&e->f), COLLIO_OK, "abort");
    (void)rc;
    check_same_file(t, e->path, e->prev, e->prevn, "the previous file");
    check_same_file(t, e->other, NULL, 0, "the flipped path");
    check_no_strays(t, e->path, "open");
    check_no_strays(t, e->other, "open");
}

/* The open rows under one base mode and backend. */
static void open_section(tu_ctx *t, collio_file_mode mode, collio_backend be)
{
    static const char *const mode_names[] = {"CREATE", "INPLACE", "READ"};
    open_env e;
    memset(&e, 0, sizeof e);
    e.mode = mode;
    e.be = be;
    tu_temp_path(t, "open", e.path, sizeof e.path);
    snprintf(e.other, sizeof e.other, "%s.other", e.path);
    e.prev = tu_expected_file(321, 4, 99, 0, 0, &e.prevn);
    char label[96];
    snprintf(label, sizeof label, "[base mode=%s backend=%s]", mode_names[mode],
             be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio");
    flip rows[NFL(op_flips)];
    int n = op_rows(&e, rows);
    run_flips(t, C_OPEN, label, rows, n, &e, op_run, op_post);
    tu_remove(t, e.path);
    free(e.prev);
}

/* ------------------------------------------------- closes and aborts */

/* Their one argument is a handle: NULL on every rank or on none. */
enum { CL_CLOSE_NULL = 110, CL_CLOSE_STAR_NULL, CL_ABORT_NULL, CL_ABORT_STAR_NULL };

static const flip cl_flips[] = {
    {"(nothing)", "close and abort of files open on every rank", A_NONE, 0, 0, COLLIO_OK,
     NEED1, T_ANY, NULL},
    {"collio_file_close(fp) (every rank)", "fp NULL", CL_CLOSE_NULL, 0, 0, COLLIO_ERR_ARG,
     NEED1, T_LOCAL, "the file is NULL"},
    {"collio_file_close(fp) (every rank)", "*fp NULL", CL_CLOSE_STAR_NULL, 0, 0,
     COLLIO_ERR_ARG, NEED1, T_LOCAL, "the file is NULL"},
    {"collio_file_abort(fp) (every rank)", "fp NULL", CL_ABORT_NULL, 0, 0, COLLIO_ERR_ARG,
     NEED1, T_LOCAL, "the file is NULL"},
    {"collio_file_abort(fp) (every rank)", "*fp NULL", CL_ABORT_STAR_NULL, 0, 0,
     COLLIO_ERR_ARG, NEED1, T_LOCAL, "the file is NULL"},
};

static int cl_run(tu_ctx *t, void *envp, const flip *f, int odd, MPI_Comm *cc)
{
    (void)odd;
    (void)cc;
    const char *path = envp;
    collio_file *fl = NULL;
    switch (f->what) {
    case CL_CLOSE_NULL:
        return collio_file_close(NULL);
    case CL_CLOSE_STAR_NULL:
        return collio_file_close(&fl);
    case CL_ABORT_NULL:
        return collio_file_abort(NULL);
    case CL_ABORT_STAR_NULL:
        return collio_file_abort(&fl);
    }
    int rc = collio_file_open(t->comm, path, COLLIO_FILE_INPLACE, NULL, &fl);
    if (rc == COLLIO_OK)
        rc = collio_file_close(&fl);
    if (rc == COLLIO_OK)
        rc = collio_file_open(t->comm, path, COLLIO_FILE_CREATE, NULL, &fl);
    if (rc == COLLIO_OK)
        rc = collio_file_abort(&fl);
    return rc;
}

static void close_section(tu_ctx *t)
{
    char path[1024];
    tu_temp_path(t, "close", path, sizeof path);
    run_flips(t, C_CLOSE, "", cl_flips, NFL(cl_flips), path, cl_run, NULL);
    tu_remove(t, path);
}

/* ---------------------------------------------------- writes and reads */

enum {
    W_BYTES = 120, /* v added to buf_bytes */
    W_BUF_NULL,
    W_BUF_NULL_0,
    W_FILE_NULL,
    W_FILE_REV,
    W_FILE_REV_ALL,
    W_FILE_READ,
    W_FILE_READ_ALL,
    W_PLAN_NULL_ALL,
    W_FILE_NULL_ALL,
    W_HUGE_BASE_ALL
};

static const flip wr_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"buf_bytes", "+1", W_BYTES, 0, 1, COLLIO_ERR_BUFSIZE, NEED1, T_ODD, "buf_bytes is"},
    {"buf_bytes", "-1", W_BYTES, 0, -1, COLLIO_ERR_BUFSIZE, NEED1, T_ODD, "buf_bytes is"},
    {"buf, buf_bytes", "NULL, 0", W_BUF_NULL_0, 0, 0, COLLIO_ERR_BUFSIZE, NEED1, T_ODD,
     "buf_bytes is 0"},
    {"buf", "NULL (buf_bytes > 0)", W_BUF_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD,
     "buf is NULL"},
    {"file", "NULL", W_FILE_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "the file is NULL"},
    {"file", "opened on the world in reverse order", W_FILE_REV, 0, 0, MM, NEED2, T_ODD,
     "another communicator"},
    {"file (every rank)", "opened on the world in reverse order", W_FILE_REV_ALL, 0, 0,
     MM, NEED2, T_ANY, "another communicator"},
    {"file", "opened READ", W_FILE_READ, 0, 0, COLLIO_ERR_STATE, NEED1, T_ODD,
     "opened for reading only"},
    {"file (every rank)", "opened READ", W_FILE_READ_ALL, 0, 0, COLLIO_ERR_STATE, NEED1,
     T_ANY, "opened for reading only"},
    {"file (every rank)", "NULL", W_FILE_NULL_ALL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ANY,
     "the file is NULL"},
    {"plan (every rank)", "NULL", W_PLAN_NULL_ALL, 0, 0, COLLIO_ERR_ARG, NEED1, T_LOCAL,
     "the plan is NULL"},
    {"file (every rank)", "opened with base_offset INT64_MAX - 100", W_HUGE_BASE_ALL, 0,
     0, COLLIO_ERR_OVERFLOW, NEED1, T_ANY, "overflow 64 bits"},
};

/* Reads: the write rows that apply (no STATE: every mode can be read). */
static const flip rd_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    {"buf_bytes", "+1", W_BYTES, 0, 1, COLLIO_ERR_BUFSIZE, NEED1, T_ODD, "buf_bytes is"},
    {"buf_bytes", "-1", W_BYTES, 0, -1, COLLIO_ERR_BUFSIZE, NEED1, T_ODD, "buf_bytes is"},
    {"buf, buf_bytes", "NULL, 0", W_BUF_NULL_0, 0, 0, COLLIO_ERR_BUFSIZE, NEED1, T_ODD,
     "buf_bytes is 0"},
    {"buf", "NULL (buf_bytes > 0)", W_BUF_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD,
     "buf is NULL"},
    {"file", "NULL", W_FILE_NULL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ODD, "the file is NULL"},
    {"file", "opened on the world in reverse order", W_FILE_REV, 0, 0, MM, NEED2, T_ODD,
     "another communicator"},
    {"file (every rank)", "opened on the world in reverse order", W_FILE_REV_ALL, 0, 0,
     MM, NEED2, T_ANY, "another communicator"},
    {"file (every rank)", "NULL", W_FILE_NULL_ALL, 0, 0, COLLIO_ERR_ARG, NEED1, T_ANY,
     "the file is NULL"},
    {"plan (every rank)", "NULL", W_PLAN_NULL_ALL, 0, 0, COLLIO_ERR_ARG, NEED1, T_LOCAL,
     "the plan is NULL"},
    {"file (every rank)", "opened with base_offset INT64_MAX - 100", W_HUGE_BASE_ALL, 0,
     0, COLLIO_ERR_OVERFLOW, NEED1, T_ANY, "overflow 64 bits"},
};

typedef struct io_env {
    const char *strategy;
    collio_backend be;
    int reading;     /* rows of collio_read, else collio_write */
    int read_create; /* reads: on a CREATE file after a good write */
    collio_plan *plan;
    MPI_Comm rev;
    int64_t *idx, n; /* this rank's indices (the reference) */
    size_t bytes;    /* collio_layout_buffer_bytes */
    unsigned char *buf, *back;
    /* path: the target (previous content prev, or the full file for
     * reads); path2: the reverse-order file's; path3: a READ file */
    char path[1024], path2[1024], path3[1024];
    unsigned char *prev, *full;
    size_t prevn, fulln;
    collio_file *f, *frev, *frd; /* this case's */
    int used_f, used_rev, used_rd;
} io_env;

static int open_be(MPI_Comm comm, const char *path, collio_file_mode mode,
                   collio_backend be, int64_t base, collio_file **f)
{
    collio_file_options o;
    collio_file_options_init(&o);
    o.backend = be;
    o.base_offset = base;
    return collio_file_open(comm, path, mode, &o, f);
}

static int io_run(tu_ctx *t, void *envp, const flip *f, int odd, MPI_Comm *cc)
{
    (void)cc;
    io_env *e = envp;
    int me = t->rank == odd;
    e->f = e->frev = e->frd = NULL;
    /* which files this row opens, on every rank */
    int w = f->what;
    e->used_f = w != W_FILE_REV_ALL && w != W_FILE_READ_ALL && w != W_FILE_NULL_ALL;
    e->used_rev = w == W_FILE_REV || w == W_FILE_REV_ALL;
    e->used_rd = w == W_FILE_READ || w == W_FILE_READ_ALL;
    int huge = w == W_HUGE_BASE_ALL;
    int64_t base = huge ? INT64_MAX - 100 : 0;
    int ok = 1;
    if (e->used_f) {
        if (e->reading && !e->read_create) {
            tu_posix_put(t, e->path, e->full, e->fulln);
            ok &= TU_RC_ALL(
                t, open_be(t->comm, e->path, COLLIO_FILE_READ, e->be, base, &e->f),
                COLLIO_OK, "open READ");
        } else {
            tu_posix_put(t, e->path, e->prev, e->prevn);
            ok &= TU_RC_ALL(
                t, open_be(t->comm, e->path, COLLIO_FILE_CREATE, e->be, base, &e->f),
                COLLIO_OK, "open CREATE");
            if (ok && e->reading && !huge) /* the data to read, in the temporary */
                ok &= TU_RC_ALL(t, collio_write(e->plan, e->f, e->buf, e->bytes),
                                COLLIO_OK, "the good write before the read");
        }
    }
    if (e->used_rev) {
        if (e->reading) {
            tu_posix_put(t, e->path2, e->full, e->fulln);
            ok &= TU_RC_ALL(
                t, open_be(e->rev, e->path2, COLLIO_FILE_READ, e->be, 0, &e->frev),
                COLLIO_OK, "open READ on the reversed world");
        } else {
            tu_posix_put(t, e->path2, e->prev, e->prevn);
            ok &= TU_RC_ALL(
                t, open_be(e->rev, e->path2, COLLIO_FILE_CREATE, e->be, 0, &e->frev),
                COLLIO_OK, "open CREATE on the reversed world");
        }
    }
    if (e->used_rd) {
        tu_posix_put(t, e->path3, e->full, e->fulln);
        ok &=
            TU_RC_ALL(t, open_be(t->comm, e->path3, COLLIO_FILE_READ, e->be, 0, &e->frd),
                      COLLIO_OK, "open READ");
    }
    if (!ok)
        return -1; /* counted as failed; post cleans up */
    collio_plan *plan = e->plan;
    collio_file *file = e->f;
    unsigned char *buf = e->reading ? e->back : e->buf;
    size_t bytes = e->bytes;
    switch (w) {
    case W_BYTES:
        if (me)
            bytes = (size_t)((int64_t)bytes + f->v);
        break;
    case W_BUF_NULL:
        if (me)
            buf = NULL;
        break;
    case W_BUF_NULL_0:
        if (me) {
            buf = NULL;
            bytes = 0;
        }
        break;
    case W_FILE_NULL:
        if (me)
            file = NULL;
        break;
    case W_FILE_REV:
        if (me)
            file = e->frev;
        break;
    case W_FILE_REV_ALL:
        file = e->frev;
        break;
    case W_FILE_READ:
        if (me)
            file = e->frd;
        break;
    case W_FILE_READ_ALL:
        file = e->frd;
        break;
    case W_FILE_NULL_ALL:
        file = NULL;
        break;
    case W_PLAN_NULL_ALL:
        plan = NULL;
        break;
    }
    if (e->reading) {
        memset(e->back, 0, e->bytes + 1);
        return collio_read(plan, file, buf, bytes);
    }
    return collio_write(plan, file, buf, bytes);
}

static void io_post(tu_ctx *t, void *envp, const flip *f, int odd, int rc)
{
    (void)odd;
    io_env *e = envp;
    int control = f->want == COLLIO_OK;
    if (control && e->reading && rc == COLLIO_OK) {
        int64_t first = -1;
        TU_CHECK(t, tu_compare(e->back, e->idx, e->n, 8, 5, &first) == 0,
                 "the control read's data (first wrong element %lld)", (long long)first);
    }
    if (e->used_f) {
        /* a failed write or read leaves the file failed: a CREATE file
         * closes with IO everywhere, a READ file closes fine */
        int creating = !e->reading || e->read_create;
        int want = creating && rc != COLLIO_OK ? COLLIO_ERR_IO : COLLIO_OK;
        if (creating && control && e->reading)
            want = COLLIO_OK; /* a good write and a good read: committed */
        /* at 1 rank a row that hands the call another file (or none) on
         * "one" rank leaves this file untouched: a close would commit it */
        int w = f->what;
        int unused = t->nranks == 1 && (w == W_FILE_NULL || w == W_FILE_READ);
        int crc = unused ? collio_file_abort(&e->f) : collio_file_close(&e->f);
        if (unused)
            want = COLLIO_OK;
        TU_RC_ALL(t, crc, want, unused ? "abort the file" : "close the file");
        if (crc != COLLIO_OK && crc == want) {
            flip ft = {
                "close", "", 0, 0, 0, want, NEED1, T_ANY, "an earlier call on it failed"};
            check_text(t, t->comm, &ft, 0);
        }
        TU_CHECK(t, e->f == NULL, "close sets *f = NULL");
        if (!creating)
            check_same_file(t, e->path, e->full, e->fulln, "the file read");
        else if (control && !unused)
            TU_CHECK(t, tu_check_file(t, e->path, 1000, 8, 5, 0, 0, 1) == 0,
                     "the control's file is the expected one");
        else
            check_same_file(t, e->path, e->prev, e->prevn,
                            "the previous file after a failed call");
        check_no_strays(t, e->path, "the target");
    }
    if (e->used_rev) {
        int want = !e->reading && rc != COLLIO_OK ? COLLIO_ERR_IO : COLLIO_OK;
        TU_RC_ALL(t, collio_file_close(&e->frev), want,
                  "close the file opened on the reversed world");
        if (e->reading)
            check_same_file(t, e->path2, e->full, e->fulln, "the reversed world's file");
        else
            check_same_file(t, e->path2, e->prev, e->prevn,
                            "the reversed world's previous file");
        check_no_strays(t, e->path2, "the reversed world's file");
    }
    if (e->used_rd) {
        TU_RC_ALL(t, collio_file_close(&e->frd), COLLIO_OK, "close the READ file");
        check_same_file(t, e->path3, e->full, e->fulln, "the READ file");
        check_no_strays(t, e->path3, "the READ file");
    }
}

static void io_section(tu_ctx *t, const char *strategy, collio_backend be, MPI_Comm rev)
{
    io_env e;
    memset(&e, 0, sizeof e);
    e.strategy = strategy;
    e.be = be;
    e.rev = rev;
    const char *bn = be == COLLIO_BACKEND_POSIX ? "posix" : "mpiio";
    tu_case(t, "collio_write/collio_read: the plan of strategy=%s backend=%s", strategy,
            bn);
    collio_layout *l = NULL;
    int rc = collio_layout_block_cyclic(t->comm, 1000, 7, 8, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(t->comm, l, strategy, NULL, &e.plan);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "the layout and plan")) {
        collio_layout_free(&l);
        return;
    }
    e.bytes = collio_layout_buffer_bytes(l);
    collio_layout_free(&l);
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 1000, 7, 8);
    tu_enumerate(&d, t->rank, t->nranks, &e.idx, &e.n);
    tu_desc_free(&d);
    TU_CHECK(t, e.bytes == (size_t)e.n * 8, "buffer bytes of the layout");
    e.buf = malloc(e.bytes + 16);
    e.back = malloc(e.bytes + 16);
    tu_fill(e.buf, e.idx, e.n, 8, 5);
    e.prev = tu_expected_file(321, 4, 99, 0, 0, &e.prevn);
    e.full = tu_expected_file(1000, 8, 5, 0, 0, &e.fulln);
    tu_temp_path(t, strategy, e.path, sizeof e.path);
    tu_temp_path(t, "rev", e.path2, sizeof e.path2);
    tu_temp_path(t, "rd", e.path3, sizeof e.path3);
    char label[128];
    snprintf(label, sizeof label, "[strategy=%s backend=%s]", strategy, bn);
    run_flips(t, C_WRITE, label, wr_flips, NFL(wr_flips), &e, io_run, io_post);
    e.reading = 1;
    snprintf(label, sizeof label, "[strategy=%s backend=%s file=READ]", strategy, bn);
    run_flips(t, C_READ, label, rd_flips, NFL(rd_flips), &e, io_run, io_post);
    e.read_create = 1;
    snprintf(label, sizeof label, "[strategy=%s backend=%s file=CREATE after a write]",
             strategy, bn);
    run_flips(t, C_READ, label, rd_flips, NFL(rd_flips), &e, io_run, io_post);
    tu_remove(t, e.path);
    tu_remove(t, e.path2);
    tu_remove(t, e.path3);
    collio_plan_free(&e.plan);
    free(e.idx);
    free(e.buf);
    free(e.back);
    free(e.prev);
    free(e.full);
}

/* ------------------------------------------------------------- HDF5 */

enum {
    H5_H5PATH = 140, /* v: 0 another, 1 NULL, 2 "" */
    H5_RAWPATH,
    H5_BASE,
    H5_TYPE,
    H5_NDIMS,
    H5_DIM0,
    H5_DIMS_NULL,
    H5_FORTRAN,
    H5_DATASET /* v: 0 "other", 1 NULL ("data", the same) */
};

#define H5_MM(arg, how, what, v)                                                         \
    {                                                                                    \
        arg, how, what, 0, v, MM, NEED2, T_NAMES, "the arguments of collio_describe_h5"  \
    }

static const flip h5_flips[] = {
    {"(nothing)", "the same on every rank", A_NONE, 0, 0, COLLIO_OK, NEED1, T_ANY, NULL},
    H5_MM("h5_path", "another path", H5_H5PATH, 0),
    H5_MM("h5_path", "NULL", H5_H5PATH, 1),
    H5_MM("h5_path", "\"\" (empty)", H5_H5PATH, 2),
    H5_MM("raw_path", "another raw file", H5_RAWPATH, 0),
    H5_MM("raw_path", "NULL", H5_RAWPATH, 1),
    H5_MM("raw_path", "\"\" (empty)", H5_RAWPATH, 2),
    H5_MM("base_offset", "8", H5_BASE, 8),
    H5_MM("base_offset", "-1 (invalid)", H5_BASE, -1),
    H5_MM("type", "INT64 (the same size)", H5_TYPE, COLLIO_H5_INT64),
    H5_MM("type", "COLLIO_H5__COUNT (invalid)", H5_TYPE, COLLIO_H5__COUNT),
    H5_MM("type", "-1 (invalid)", H5_TYPE, -1),
    H5_MM("ndims", "2 (dims {1000, 1})", H5_NDIMS, 2),
    H5_MM("ndims", "0 (invalid)", H5_NDIMS, 0),
    H5_MM("ndims", "33 (invalid)", H5_NDIMS, 33),
    H5_MM("dims[0]", "500", H5_DIM0, 500),
    H5_MM("dims[0]", "0 (invalid)", H5_DIM0, 0),
    H5_MM("dims[0]", "2^62 (overflows)", H5_DIM0, INT64_C(1) << 62),
    H5_MM("dims", "NULL", H5_DIMS_NULL, 0),
    H5_MM("fortran_order", "1", H5_FORTRAN, 1),
    H5_MM("fortran_order", "2 (invalid)", H5_FORTRAN, 2),
    H5_MM("dataset", "\"other\"", H5_DATASET, 0),
    {"dataset", "NULL (means \"data\", the others' name)", H5_DATASET, 0, 1, COLLIO_OK,
     NEED1, T_ANY, NULL},
};

typedef struct h5_env {
    char h5[1024], other[1100], raw[1024], raw2[1024];
    unsigned char *prev;
    size_t prevn;
} h5_env;

static int h5_run(tu_ctx *t, void *envp, const flip *f, int odd, MPI_Comm *cc)
{
    (void)cc;
    h5_env *e = envp;
    tu_posix_put(t, e->h5, e->prev, e->prevn);
    tu_remove(t, e->other);
    const char *h5 = e->h5, *raw = e->raw, *ds = "data";
    int64_t base = 0, dims[33];
    for (int i = 0; i < 33; i++)
        dims[i] = 1;
    dims[0] = 1000;
    const int64_t *dp = dims;
    int type = COLLIO_H5_FLOAT64, ndims = 1, fortran = 0;
    if (t->rank == odd) {
        switch (f->what) {
        case H5_H5PATH:
            h5 = f->v == 0 ? e->other : f->v == 1 ? NULL : "";
            break;
        case H5_RAWPATH:
            raw = f->v == 0 ? e->raw2 : f->v == 1 ? NULL : "";
            break;
        case H5_BASE:
            base = f->v;
            break;
        case H5_TYPE:
            type = (int)f->v;
            break;
        case H5_NDIMS:
            ndims = (int)f->v;
            break;
        case H5_DIM0:
            dims[0] = f->v;
            break;
        case H5_DIMS_NULL:
            dp = NULL;
            break;
        case H5_FORTRAN:
            fortran = (int)f->v;
            break;
        case H5_DATASET:
            ds = f->v == 0 ? "other" : NULL;
            break;
        }
    }
    return collio_describe_h5(t->comm, h5, raw, base, type, ndims, dp, fortran, ds);
}

static void h5_post(tu_ctx *t, void *envp, const flip *f, int odd, int rc)
{
    (void)f;
    (void)odd;
    h5_env *e = envp;
    if (rc != COLLIO_OK)
        check_same_file(t, e->h5, e->prev, e->prevn, "the previous .h5");
    check_same_file(t, e->other, NULL, 0, "the flipped .h5 path");
    check_no_strays(t, e->h5, "describe_h5");
}

static void h5_section(tu_ctx *t)
{
    h5_env e;
    memset(&e, 0, sizeof e);
    tu_temp_path(t, "h5", e.h5, sizeof e.h5);
    snprintf(e.other, sizeof e.other, "%s.other", e.h5);
    tu_temp_path(t, "raw", e.raw, sizeof e.raw);
    tu_temp_path(t, "raw2", e.raw2, sizeof e.raw2);
    size_t n = 0;
    unsigned char *raw = tu_expected_file(1000, 8, 5, 0, 0, &n);
    tu_posix_put(t, e.raw, raw, n);
    tu_posix_put(t, e.raw2, raw, n);
    free(raw);
    e.prev = tu_expected_file(77, 1, 42, 0, 0, &e.prevn); /* not even HDF5 */
    if (!collio_have_h5()) {
        for (int i = 0; i < NFL(h5_flips); i++) {
            ncase++;
            tu_case(t, "%s: %s = %s", call_names[C_H5], h5_flips[i].arg, h5_flips[i].how);
            if (!tu_case_enabled(t))
                continue;
            counts[C_H5].cases++;
            counts[C_H5].skipped++;
            tu_skip(t, "collio was built without HDF5");
        }
    } else {
        run_flips(t, C_H5, "", h5_flips, NFL(h5_flips), &e, h5_run, h5_post);
    }
    tu_remove(t, e.h5);
    tu_remove(t, e.raw);
    tu_remove(t, e.raw2);
    free(e.prev);
}

/* ------------------------------------------------------------- main */

static void print_table(tu_ctx *t)
{
    int64_t all[C_N][4];
    MPI_Reduce((int64_t *)counts, all, 4 * C_N, MPI_INT64_T, MPI_MAX, 0, t->comm);
    if (t->rank != 0)
        return;
    printf("mpi_flip at %d ranks: cases per call (failed: cases with a failed check)\n",
           t->nranks);
    printf("  %-40s %6s %6s %8s %7s\n", "call", "cases", "run", "skipped", "failed");
    int64_t s[4] = {0, 0, 0, 0};
    for (int c = 0; c < C_N; c++) {
        printf("  %-40s %6lld %6lld %8lld %7lld\n", call_names[c], (long long)all[c][0],
               (long long)all[c][1], (long long)all[c][2], (long long)all[c][3]);
        for (int k = 0; k < 4; k++)
            s[k] += all[c][k];
    }
    printf("  %-40s %6lld %6lld %8lld %7lld\n", "total", (long long)s[0], (long long)s[1],
           (long long)s[2], (long long)s[3]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_flip");
    bound_init(&t);

    run_flips(&t, C_BC, "", bc_flips, NFL(bc_flips), NULL, bc_run, NULL);
    run_flips(&t, C_DA, "", da_flips, NFL(da_flips), NULL, da_run, NULL);
    run_flips(&t, C_IL, "", il_flips, NFL(il_flips), NULL, il_run, NULL);
    run_flips(&t, C_REP, "", rp_flips, NFL(rp_flips), NULL, rp_run, NULL);
    plan_section(&t);
    for (int be = 0; be < 2; be++)
        for (int m = COLLIO_FILE_CREATE; m <= COLLIO_FILE_READ; m++)
            open_section(&t, (collio_file_mode)m, (collio_backend)be);
    close_section(&t);
    MPI_Comm rev;
    MPI_Comm_split(t.comm, 0, -t.rank, &rev);
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        if (collio_strategy_is_canonical(name) != 1)
            continue;
        io_section(&t, name, COLLIO_BACKEND_POSIX, rev);
        io_section(&t, name, COLLIO_BACKEND_MPIIO, rev);
    }
    MPI_Comm_free(&rev);
    h5_section(&t);

    alarm(0);
    print_table(&t);
    return tu_finish(&t);
}
