/*
 * mpi_auto.c -- strategy "auto" (the default) decides the same on every
 * rank whatever calibration file each rank would see, and what it decides
 * follows rank 0's file:
 *
 *  - rank 0's file makes every file request and every piece packed cost
 *    1 s and the MPI library's collective I/O free, so two_phase (which
 *    packs nothing of its own) is the only cheap candidate; rank 1 sees
 *    a corrupt file, rank 2 none, the others a file that favours list I/O:
 *    every rank runs two_phase, calibrated, with no calibration error;
 *  - rank 0 sees no file, the others the two_phase-favouring one: every rank
 *    reports COLLIO_ERR_IO, uncalibrated, and the choice the built-in
 *    constants give (that of a plan with auto.use_calibration=0);
 *  - auto.use_calibration=0: no file read (calibration_error -1);
 *  - hints that the cheapest candidate refuses at its plan creation
 *    (multiphase.exchange=direct with 1 phase of several): the next
 *    cheapest runs, and the call succeeds;
 *  - auto.dir names the file's directory: the choices (two_phase, by rank
 *    0's file) and their plans are made at plan creation, the write and
 *    the read make none (auto.made_s, the time spent choosing at calls,
 *    stays 0) and the write runs that choice; a dir that differs between
 *    ranks is COLLIO_ERR_MISMATCH on every rank;
 *  - without auto.dir, the write's choice is made at plan creation where
 *    every file system of the calibration (or, with none, both the local
 *    and the networked built-in costs) leads to the same candidate; a
 *    calibration whose second file system favours another leaves it to
 *    the first write (made_s > 0), as do the built-in costs where a local
 *    disk would take a layout's pieces by list I/O and a networked file
 *    system not;
 *  - the last call's file system is local (auto.networked 0) where statfs
 *    says it is ext4, XFS, Btrfs, tmpfs or overlayfs;
 *  - the link between nodes auto prices (auto.link_Bps): 0 on one node,
 *    the file's across nodes, and without a file a measured one (not the
 *    built-in constant);
 *    the read's choice too where it is the write's or list I/O (a light
 *    plan: writes favouring two_phase, reads list I/O), but a read plan
 *    of another strategy (the other way round) waits for the first read;
 *  - COLLIO_HINTS set on rank 0 only, naming an option a candidate sets
 *    (subgroup.inner=two_phase under subgroup_g2_list): the candidate's
 *    value holds on every rank, in the masters' plan too;
 *  - auto.only names a candidate: every one of them runs through auto's
 *    plan with its own hints (its group, its phase count) and round-trips
 *    byte-exact, or, where P does not allow it, fails with ARG everywhere.
 *  - a replicated layout written by its owners against the plain layout
 *    of the same owned elements: every candidate's predicted time differs
 *    by the same, the replicas' work, more for a read than for a write.
 *
 * Each case writes the file through a NULL strategy (auto) and checks its
 * bytes against bench/pattern.h with plain POSIX, then reads it back.
 * Round trips of every layout kind under auto are in mpi_smoke_strategies,
 * mpi_roundtrip and mpi_replicas (they walk every strategy).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

enum {
    INDEPENDENT_CAND = 1,
    TWO_PHASE_CAND = 2,
    MULTIPHASE_CAND = 3,
    AUTO_SUBGROUP_G2_LIST_CAND = 10
};

/* How many nodes the ranks span (scripts/hosts). */
static int g_nodes = 1;

/* The candidate of least predicted time in the last run() (rank 0's). */
static int g_cheapest = -1;

/* File costs that favour two_phase (slow requests and pieces, free
 * collective I/O) or list I/O (free requests, slow collective I/O), for
 * writes and reads alike or each its own. */
static void favour_ops(collio_fs_costs *fs, int write_two_phase, int read_two_phase)
{
    fs->write_request_s = write_two_phase ? 1 : 1e-12;
    fs->read_request_s = read_two_phase ? 1 : 1e-12;
    fs->write_Bps = fs->read_Bps = 1e12;
    fs->mpiio_write_piece_s = write_two_phase ? 1e-12 : 1;
    fs->mpiio_read_piece_s = read_two_phase ? 1e-12 : 1;
}

static void favour(collio_fs_costs *fs, int favour_two_phase)
{
    favour_ops(fs, favour_two_phase, favour_two_phase);
}

/* A calibration for the file system of dir that favours two_phase or list
 * I/O (with slow memory, so that nothing packed is cheap); with
 * `other`, a second entry, for a file system no file of these tests is
 * on, that favours the other one. */
static void craft(const char *path, const char *dir, int favour_two_phase, int other)
{
    collio_calibration c;
    collio_calibration_defaults(&c);
    c.latency_s[0] = c.latency_s[1] = 1e-9;
    c.bandwidth_Bps[0] = c.bandwidth_Bps[1] = 1e12;
    c.copy_Bps = favour_two_phase ? 1e12 : 1e3;
    c.piece_s = 1;
    c.cores_per_node = 64;
    c.nfs = other ? 2 : 1;
    collio_fs_identify(dir, &c.fs[0].id);
    favour(&c.fs[0], favour_two_phase);
    if (other) {
        collio_fs_id *id = &c.fs[1].id;
        snprintf(id->type, sizeof id->type, "collio-test-fs");
        snprintf(id->mount, sizeof id->mount, "/collio-test-nowhere");
        snprintf(id->source, sizeof id->source, "none");
        id->magic = 0x636f6c6cUL;
        favour(&c.fs[1], !favour_two_phase);
    }
    if (collio_calibration_save(path, &c) != COLLIO_OK)
        fprintf(stderr, "craft %s: %s\n", path, collio_last_error());
}

/* A calibration of dir's file system alone where writes favour two_phase
 * and reads list I/O (split_read_list) or the other way round. */
static void craft_split(const char *path, const char *dir, int split_read_list)
{
    collio_calibration c;
    collio_calibration_defaults(&c);
    c.latency_s[0] = c.latency_s[1] = 1e-9;
    c.bandwidth_Bps[0] = c.bandwidth_Bps[1] = 1e12;
    c.copy_Bps = 1e3; /* nothing packed is cheap */
    c.piece_s = 1;
    c.cores_per_node = 64;
    c.nfs = 1;
    collio_fs_identify(dir, &c.fs[0].id);
    favour_ops(&c.fs[0], split_read_list, !split_read_list);
    if (collio_calibration_save(path, &c) != COLLIO_OK)
        fprintf(stderr, "craft %s: %s\n", path, collio_last_error());
}

/* Stat key of the plan, the same on every rank? Returns rank 0's value. */
static double same_stat(tu_ctx *t, const collio_plan *p, const char *key)
{
    double v = TU_STAT(t, p, key), lo = v, hi = v;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, t->comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, t->comm);
    TU_CHECK(t, lo == hi, "%s differs across ranks: %g .. %g", key, lo, hi);
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, t->comm);
    return v;
}

/* The last call's predicted time of every candidate into t[] (checked
 * the same on every rank); returns how many candidates there are, all of
 * them held in t[] (MAX_CANDIDATES: more fail the test). */
enum { MAX_CANDIDATES = 32 };
static int predicted(tu_ctx *t, const collio_plan *p, double out[MAX_CANDIDATES])
{
    int n = 0;
    for (; tu_candidate_name(n) != NULL && n < MAX_CANDIDATES; n++) {
        char key[64];
        snprintf(key, sizeof key, "auto.predicted_%s_s", tu_candidate_name(n));
        out[n] = same_stat(t, p, key);
    }
    TU_CHECK(t, tu_candidate_name(n) == NULL, "more than %d candidates", MAX_CANDIDATES);
    return n;
}

/* 1 if statfs(2) says path's directory is on a local file system. */
static int local_fs(const char *path)
{
    static const unsigned long local[] = {
        0xEF53UL /* ext2-4 */, 0x58465342UL /* XFS */, 0x9123683EUL /* Btrfs */,
        0x01021994UL /* tmpfs */, 0x794C7630UL /* overlayfs */};
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir)
        *slash = '\0';
    struct statfs sf;
    if (statfs(dir, &sf) != 0)
        return 0;
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if ((unsigned long)sf.f_type == local[i])
            return 1;
    return 0;
}

/* One write and read through a plan of `strategy` with `hints`; returns the
 * write's choice (rank 0's, checked the same everywhere) and the stats. */
static int run(tu_ctx *t, const char *strategy, const char *hints, double *calibrated,
               double *cal_error, int64_t bx)
{
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, bx == 1 ? 1000003 : 100003, bx, 4);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    int choice = -2;
    if (!TU_RC_ALL(t, tu_desc_make(&d, t->comm, &l), COLLIO_OK, "layout"))
        goto out;
    collio_hints *h = TU_HINTS(t, "%s", hints);
    int rc = collio_plan_create(t->comm, l, strategy, h, &p);
    collio_hints_free(&h);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
        goto out;
    TU_CHECK(t, strcmp(collio_plan_strategy(p), "auto") == 0, "the plan's strategy: %s",
             collio_plan_strategy(p));
    TU_CHECK(t, TU_STAT(t, p, "auto.write_choice") == -1, "no choice before a write");
    unsigned char *buf = malloc((size_t)n * 4 + 1), *back = malloc((size_t)n * 4 + 1);
    tu_fill(buf, idx, n, 4, 11);
    char path[512];
    tu_temp_path(t, "auto", path, sizeof path);
    if (tu_plan_io(t, p, path, NULL, 1, buf, (size_t)n * 4)) {
        TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 11, 0, 0, 0) == 0,
                 "the file's bytes");
        choice = (int)same_stat(t, p, "auto.write_choice");
        *calibrated = same_stat(t, p, "auto.calibrated");
        *cal_error = same_stat(t, p, "auto.calibration_error");
        /* the link between nodes it priced: none on one node; the file's
         * (every crafted file says 1e12 B/s); without a file measured, so
         * not the built-in constant */
        double link = same_stat(t, p, "auto.link_Bps");
        collio_calibration builtin;
        collio_calibration_defaults(&builtin);
        if (g_nodes == 1)
            TU_CHECK(t, link == 0, "one node: auto.link_Bps %g", link);
        else if (*calibrated == 1)
            TU_CHECK(t, link == 1e12, "auto.link_Bps %g, the file's 1e12", link);
        else if (*cal_error != 0)
            TU_CHECK(t, link > 0 && isfinite(link) && link != builtin.bandwidth_Bps[1],
                     "no calibration file: auto.link_Bps %g, measured (built-in %g)",
                     link, builtin.bandwidth_Bps[1]);
        double networked = same_stat(t, p, "auto.networked");
        TU_CHECK(t, !local_fs(path) || networked == 0,
                 "auto.networked %g on a local file system", networked);
        double pw[MAX_CANDIDATES]; /* the write's predictions: the cheapest */
        int nc = predicted(t, p, pw);
        g_cheapest = 0;
        for (int i = 1; i < nc; i++)
            if (pw[i] < pw[g_cheapest])
                g_cheapest = i;
        memset(back, 0, (size_t)n * 4 + 1);
        if (tu_plan_io(t, p, path, NULL, 0, back, (size_t)n * 4)) {
            int64_t first = -1;
            TU_CHECK(t, tu_compare(back, idx, n, 4, 11, &first) == 0,
                     "read back (first wrong element %lld)", (long long)first);
            TU_CHECK(t, same_stat(t, p, "auto.read_choice") >= 0, "a read choice");
        }
    }
    tu_remove(t, path);
    free(buf);
    free(back);
out:
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_desc_free(&d);
    free(idx);
    return choice;
}

/* auto.only = candidate i at bx: it runs, byte-exact both ways, where
 * this P allows it (subgroup_gG: G <= P; multiphase_kK: K phases fewer
 * than the ceil(log2 P) of all), with its group or phase count; else the
 * write is COLLIO_ERR_ARG on every rank and the file is never made. */
static void run_only(tu_ctx *t, int i, int64_t bx)
{
    const char *label = tu_candidate_name(i);
    int g = 0, k = 0, all = 0;
    while ((1 << all) < t->nranks)
        all++;
    sscanf(label, "subgroup_g%d", &g);
    sscanf(label, "multiphase_k%d", &k);
    int runs = (g == 0 || g <= t->nranks) && (k == 0 || k < all);
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 100003, bx, 4);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(&d, t->rank, t->nranks, &idx, &n);
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    collio_file *f = NULL;
    unsigned char *buf = calloc((size_t)n * 4 + 1, 1),
                  *back = calloc((size_t)n * 4 + 1, 1);
    char path[512];
    tu_temp_path(t, "only", path, sizeof path);
    if (!TU_RC_ALL(t, tu_desc_make(&d, t->comm, &l), COLLIO_OK, "layout"))
        goto out;
    collio_hints *h = TU_HINTS(t, "auto.only=%s", label);
    int rc = collio_plan_create(t->comm, l, NULL, h, &p);
    collio_hints_free(&h);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
        goto out;
    tu_fill(buf, idx, n, 4, 13);
    if (!runs) {
        rc = collio_file_open(t->comm, path, COLLIO_FILE_CREATE, NULL, &f);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "open")) {
            TU_RC_ALL(t, collio_write(p, f, buf, (size_t)n * 4), COLLIO_ERR_ARG,
                      "a candidate this P does not allow");
            collio_file_close(&f);
        }
        goto out;
    }
    if (!tu_plan_io(t, p, path, NULL, 1, buf, (size_t)n * 4))
        goto out;
    TU_CHECK(t, tu_check_file(t, path, d.nglobal, 4, 13, 0, 0, 0) == 0,
             "%s: the file's bytes", label);
    TU_CHECK(t, same_stat(t, p, "auto.write_choice") == i, "%s: the write ran %s", label,
             tu_candidate_name((int)TU_STAT(t, p, "auto.write_choice")));
    if (k > 0)
        TU_CHECK(t, same_stat(t, p, "multiphase.nphases") == k, "%s: %g phases", label,
                 TU_STAT(t, p, "multiphase.nphases"));
    if (g > 0) { /* (the last group may be smaller) */
        double most = TU_STAT(t, p, "subgroup.group");
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, t->comm);
        TU_CHECK(t, most == g, "%s: groups of %g", label, most);
    }
    if (tu_plan_io(t, p, path, NULL, 0, back, (size_t)n * 4)) {
        int64_t first = -1;
        TU_CHECK(t, tu_compare(back, idx, n, 4, 13, &first) == 0,
                 "%s: read back (first wrong element %lld)", label, (long long)first);
        TU_CHECK(t, same_stat(t, p, "auto.read_choice") == i, "%s: the read ran it",
                 label);
    }
out:
    tu_remove(t, path);
    free(buf);
    free(back);
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_desc_free(&d);
    free(idx);
}

/* A plan's case on the vector of 100003 float32 elements, block-cyclic
 * with bx = 4096: layout, this rank's elements and buffer, a file path. */
typedef struct vec_case {
    tu_layout_desc d;
    int64_t *idx, n;
    collio_layout *l;
    unsigned char *buf;
    char path[512];
} vec_case;

/* 1 if the layout was made (checked on every rank); vec_free after
 * either way. */
static int vec_make(tu_ctx *t, const char *name, int64_t bx, vec_case *v)
{
    memset(v, 0, sizeof *v);
    tu_desc_block_cyclic(&v->d, 100003, bx, 4);
    tu_enumerate(&v->d, t->rank, t->nranks, &v->idx, &v->n);
    v->buf = malloc((size_t)v->n * 4 + 1);
    tu_temp_path(t, name, v->path, sizeof v->path);
    return TU_RC_ALL(t, tu_desc_make(&v->d, t->comm, &v->l), COLLIO_OK, "layout");
}

static void vec_free(tu_ctx *t, vec_case *v)
{
    tu_remove(t, v->path);
    free(v->buf);
    collio_layout_free(&v->l);
    tu_desc_free(&v->d);
    free(v->idx);
}

/* auto.dir = dir with rank 0's calibration favouring two_phase. */
static void run_dir(tu_ctx *t, const char *dir)
{
    vec_case v;
    collio_plan *p = NULL;
    if (!vec_make(t, "autodir", 4096, &v))
        goto out;
    collio_hints *h = TU_HINTS(t, "auto.dir=%s", dir);
    int rc = collio_plan_create(t->comm, v.l, NULL, h, &p);
    collio_hints_free(&h);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create with auto.dir"))
        goto out;
    tu_fill(v.buf, v.idx, v.n, 4, 11);
    if (tu_plan_io(t, p, v.path, NULL, 1, v.buf, (size_t)v.n * 4)) {
        TU_CHECK(t, tu_check_file(t, v.path, v.d.nglobal, 4, 11, 0, 0, 0) == 0,
                 "the file's bytes");
        int c = (int)same_stat(t, p, "auto.write_choice");
        TU_CHECK(t, c == TWO_PHASE_CAND, "the choice: %d, want two_phase", c);
        /* (a choice made at a call costs that call time: made_s > 0) */
        double after = TU_STAT(t, p, "auto.made_s");
        TU_CHECK(t, after == 0, "auto.made_s %g after the write: chosen at the call",
                 after);
        if (tu_plan_io(t, p, v.path, NULL, 0, v.buf, (size_t)v.n * 4)) {
            after = TU_STAT(t, p, "auto.made_s");
            TU_CHECK(t, after == 0, "auto.made_s %g after the read: chosen at the call",
                     after);
        }
    }
    collio_plan_free(&p);
    /* a dir that differs between ranks */
    if (t->nranks > 1) {
        h = TU_HINTS(t, "auto.dir=%s/%s", dir, t->rank == 0 ? "a" : "b");
        rc = collio_plan_create(t->comm, v.l, NULL, h, &p);
        collio_hints_free(&h);
        TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "auto.dir differing between ranks");
    }
out:
    collio_plan_free(&p);
    vec_free(t, &v);
}

/* Without auto.dir, under calibration `cal`: is the write's choice made
 * at plan creation (auto.made_s still 0 after the first write, whose
 * choice must be `want`)? With read_want >= 0, the read's choice must be
 * read_want, made at plan creation (made_s still 0 after the first read)
 * where read_at_creation, else at that read. */
static void run_likely(tu_ctx *t, const char *cal, const char *hints, int64_t bx,
                       int want, int made_at_creation, int read_want,
                       int read_at_creation)
{
    setenv("COLLIO_CALIBRATION", cal, 1);
    vec_case v;
    collio_plan *p = NULL;
    if (!vec_make(t, "autolikely", bx, &v))
        goto out;
    collio_hints *h = TU_HINTS(t, "%s", hints);
    int rc = collio_plan_create(t->comm, v.l, NULL, h, &p);
    collio_hints_free(&h);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
        goto out;
    tu_fill(v.buf, v.idx, v.n, 4, 12);
    if (tu_plan_io(t, p, v.path, NULL, 1, v.buf, (size_t)v.n * 4)) {
        TU_CHECK(t, tu_check_file(t, v.path, v.d.nglobal, 4, 12, 0, 0, 0) == 0,
                 "the file's bytes");
        int c = (int)same_stat(t, p, "auto.write_choice");
        TU_CHECK(t, want < 0 || c == want, "the choice: %d, want %d", c, want);
        double made = TU_STAT(t, p, "auto.made_s");
        if (made_at_creation)
            TU_CHECK(t, made == 0, "auto.made_s %g: the write chose at the call", made);
        else
            TU_CHECK(t, made > 0, "auto.made_s %g: the write's choice made before it",
                     made);
        if (read_want >= 0) {
            memset(v.buf, 0, (size_t)v.n * 4);
            if (tu_plan_io(t, p, v.path, NULL, 0, v.buf, (size_t)v.n * 4)) {
                int64_t first = -1;
                TU_CHECK(t, tu_compare(v.buf, v.idx, v.n, 4, 12, &first) == 0,
                         "read back (first wrong element %lld)", (long long)first);
                c = (int)same_stat(t, p, "auto.read_choice");
                TU_CHECK(t, c == read_want, "the read's choice: %d, want %d", c,
                         read_want);
                double after = TU_STAT(t, p, "auto.made_s");
                if (read_at_creation)
                    TU_CHECK(t, after == made,
                             "auto.made_s %g after the read (%g before): the read "
                             "chose at the call",
                             after, made);
                else
                    TU_CHECK(t, after > made,
                             "auto.made_s %g after the read (%g before): the read's "
                             "choice made before it",
                             after, made);
            }
        }
    }
out:
    collio_plan_free(&p);
    vec_free(t, &v);
    unsetenv("COLLIO_CALIBRATION");
}

/* The predicted time of every candidate after a write and after a read
 * through an auto plan of l with hints (the same on every rank). */
static int predictions(tu_ctx *t, const collio_layout *l, int64_t nlocal,
                       const int64_t *idx, const char *hints, double pw[MAX_CANDIDATES],
                       double pr[MAX_CANDIDATES])
{
    collio_plan *p = NULL;
    collio_hints *h = TU_HINTS(t, "%s", hints);
    int rc = collio_plan_create(t->comm, l, NULL, h, &p);
    collio_hints_free(&h);
    int ok = TU_RC_ALL(t, rc, COLLIO_OK, "plan_create");
    unsigned char *buf = malloc((size_t)nlocal * 8 + 1);
    char path[512];
    tu_temp_path(t, "auto_repl", path, sizeof path);
    tu_fill(buf, idx, nlocal, 8, 5);
    for (int writing = 1; ok && writing >= 0; writing--) {
        ok = tu_plan_io(t, p, path, NULL, writing, buf, (size_t)nlocal * 8);
        if (ok)
            predicted(t, p, writing ? pw : pr);
    }
    tu_remove(t, path);
    free(buf);
    collio_plan_free(&p);
    return ok;
}

/* A replicated index list -- each rank's block of 4,000 elements and the
 * next rank's first 500 -- written by the owners (replicas.policy=owner),
 * against the plain index list of the same blocks: the writer layouts are
 * the same, so every candidate's predicted time differs by the replicas'
 * work alone (docs/auto.md): by the same for every candidate, by more for
 * a read (its fill) than for a write (the selection), and by more than
 * nothing. */
static void run_replicas_priced(tu_ctx *t)
{
    const int64_t B = 4000, H = 500, P = t->nranks;
    int64_t n = B + H, *idx = malloc((size_t)n * sizeof *idx);
    unsigned char *own = malloc((size_t)n);
    for (int64_t k = 0; k < n; k++) {
        idx[k] = k < B ? t->rank * B + k : (t->rank + 1) % P * B + (k - B);
        own[k] = k < B;
    }
    collio_layout *lr = NULL, *lp = NULL;
    double rw[MAX_CANDIDATES], rr[MAX_CANDIDATES], pw[MAX_CANDIDATES], pr[MAX_CANDIDATES];
    int ok =
        TU_RC_ALL(
            t, collio_layout_index_list_replicated(t->comm, B * P, n, idx, own, 8, &lr),
            COLLIO_OK, "replicated layout")
        && TU_RC_ALL(t, collio_layout_index_list(t->comm, B * P, B, idx, 8, &lp),
                     COLLIO_OK, "plain layout")
        && predictions(t, lr, n, idx, "auto.use_calibration=0,replicas.policy=owner", rw,
                       rr)
        && predictions(t, lp, B, idx, "auto.use_calibration=0", pw, pr);
    for (int i = 0; ok && i < MAX_CANDIDATES && tu_candidate_name(i) != NULL; i++) {
        if (isinf(pw[i])) {
            TU_CHECK(t, isinf(rw[i]) && isinf(rr[i]), "%s: cannot run either way",
                     tu_candidate_name(i));
            continue;
        }
        double dw = rw[i] - pw[i], dr = rr[i] - pr[i], dw0 = rw[0] - pw[0],
               dr0 = rr[0] - pr[0];
        TU_CHECK(
            t, fabs(dw - dw0) <= 1e-9 * dw0 && fabs(dr - dr0) <= 1e-9 * dr0,
            "%s: the replicas add %.9g (write) and %.9g (read), serial %.9g and %.9g",
            tu_candidate_name(i), dw, dr, dw0, dr0);
        if (i == 0)
            TU_CHECK(t, dw > 0 && dr > dw,
                     "the replicas add %.9g to a write, %.9g to a read", dw, dr);
    }
    collio_layout_free(&lr);
    collio_layout_free(&lp);
    free(idx);
    free(own);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_auto");
    /* the choices from the calibrations crafted here and from the built-in
     * costs: auto measures no file system itself here (tests/mpi_autocal.c
     * tests that) */
    setenv("COLLIO_AUTO_CALIBRATE", "0", 1);
    tu_node_map nodes;
    tu_node_map_make(&t, &nodes);
    g_nodes = nodes.M;
    tu_node_map_free(&nodes);
    char favour_two_phase[512], favour_list[512], corrupt[512], missing[512], two_fs[512];
    char split_list[512], split_two_phase[512];
    tu_temp_path(&t, "two_phase.json", favour_two_phase, sizeof favour_two_phase);
    tu_temp_path(&t, "list.json", favour_list, sizeof favour_list);
    tu_temp_path(&t, "corrupt.json", corrupt, sizeof corrupt);
    tu_temp_path(&t, "missing.json", missing, sizeof missing);
    tu_temp_path(&t, "two_fs.json", two_fs, sizeof two_fs);
    tu_temp_path(&t, "split_list.json", split_list, sizeof split_list);
    tu_temp_path(&t, "split_two_phase.json", split_two_phase, sizeof split_two_phase);
    const char *dir =
        getenv("COLLIO_TEST_TMPDIR") ? getenv("COLLIO_TEST_TMPDIR") : "/tmp";
    if (t.rank == 0) {
        craft(favour_two_phase, dir, 1, 0);
        craft(favour_list, dir, 0, 0);
        craft(two_fs, dir, 1, 1);
        craft_split(split_list, dir, 1);
        craft_split(split_two_phase, dir, 0);
        FILE *f = fopen(corrupt, "w");
        fputs("{ \"format\": \"collio-calibration\", \"version\": 1, \"netw", f);
        fclose(f);
    }
    MPI_Barrier(t.comm);
    double cal = -2, err = -2;

    tu_case(&t, "rank 0 favours two_phase, rank 1 corrupt, rank 2 none, others list I/O");
    setenv("COLLIO_CALIBRATION",
           t.rank == 0   ? favour_two_phase
           : t.rank == 1 ? corrupt
           : t.rank == 2 ? missing
                         : favour_list,
           1);
    int c1 = run(&t, NULL, "", &cal, &err, 4096);
    TU_CHECK(&t, c1 == TWO_PHASE_CAND, "the choice: %d (%s), want two_phase", c1,
             tu_candidate_name(c1) ? tu_candidate_name(c1) : "none");
    TU_CHECK(&t, cal == 1 && err == 0, "calibrated %g, calibration_error %g", cal, err);

    tu_case(&t, "rank 0 sees no file, the others favour two_phase");
    setenv("COLLIO_CALIBRATION", t.rank == 0 ? missing : favour_two_phase, 1);
    int c2 = run(&t, "auto", "", &cal, &err, 4096);
    TU_CHECK(&t, cal == 0 && err == COLLIO_ERR_IO, "calibrated %g, calibration_error %g",
             cal, err);
    int c_def = run(&t, "auto", "auto.use_calibration=0", &cal, &err, 4096);
    TU_CHECK(&t, c2 == c_def && c2 >= 0, "the built-in constants' choice: %d, want %d",
             c2, c_def);
    TU_CHECK(&t, cal == 0 && err == -1, "use_calibration=0: calibrated %g, error %g", cal,
             err);

    tu_case(&t, "hints the cheapest candidate refuses: the next one runs");
    if (t.nranks >= 4) {
        /* multiphase refuses exchange=direct with fewer phases than all
         * (ARG at its plan creation); at bx = 1 it is the cheapest */
        unsetenv("COLLIO_CALIBRATION");
        int c4 = run(&t, NULL,
                     "auto.use_calibration=0,multiphase.exchange=direct,"
                     "multiphase.phases=1",
                     &cal, &err, 1);
        TU_CHECK(&t, c4 >= 0 && c4 != MULTIPHASE_CAND, "the choice: %d, not multiphase",
                 c4);
        TU_CHECK(&t, g_cheapest == MULTIPHASE_CAND, "multiphase was the cheapest: %d",
                 g_cheapest);
    } else {
        tu_skip(&t, "multiphase takes any phase count at P < 4");
    }

    tu_case(&t, "auto.dir: the choice at plan creation");
    setenv("COLLIO_CALIBRATION", favour_two_phase, 1);
    run_dir(&t, dir);

    tu_case(&t, "no auto.dir: the write's choice at plan creation where every file "
                "system leads to it");
    run_likely(&t, favour_two_phase, "", 4096, TWO_PHASE_CAND, 1, TWO_PHASE_CAND, 1);
    run_likely(&t, two_fs, "", 4096, TWO_PHASE_CAND, 0, -1, 0); /* the other: list I/O */
    /* no calibration: the built-in costs of a local and of a networked file
     * system. 4-byte pieces, 25,000 per rank at 4 ranks: both gather them
     * (1 us a request locally, 300 us networked). 16 KiB pieces, a few per
     * rank: a local disk takes them as they are (list I/O), a networked one
     * gathers them into one request per rank: the write waits for its file
     * system (one rank: one piece, both the same) */
    run_likely(&t, missing, "auto.use_calibration=0", 1, -1, 1, -1, 0);
    run_likely(&t, missing, "auto.use_calibration=0", 4096, -1, t.nranks == 1, -1, 0);

    tu_case(&t, "no auto.dir: the read's choice at plan creation where its plan is "
                "light (list I/O), else at the first read");
    run_likely(&t, split_list, "", 4096, TWO_PHASE_CAND, 1, INDEPENDENT_CAND, 1);
    run_likely(&t, split_two_phase, "", 4096, INDEPENDENT_CAND, 1, TWO_PHASE_CAND, 0);

    tu_case(&t, "auto.only: every candidate through auto, where P allows it");
    unsetenv("COLLIO_CALIBRATION");
    for (int i = 0; tu_candidate_name(i) != NULL; i++) {
        run_only(&t, i, 1);
        run_only(&t, i, 16);
    }

    tu_case(&t, "COLLIO_HINTS on rank 0 only naming what a candidate sets "
                "(subgroup.inner): the candidate's value holds everywhere");
    /* subgroup_g2_list sets subgroup.inner=independent over the plan's
     * options; rank 0's environment says two_phase (the default: the
     * plan's options agree). Its masters' plan must take the candidate's
     * value on every rank, not the environment again on rank 0 only
     * (which made them differ: COLLIO_ERR_MISMATCH) */
    if (t.nranks >= 2) {
        if (t.rank == 0)
            setenv("COLLIO_HINTS", "subgroup.inner=two_phase", 1);
        run_only(&t, AUTO_SUBGROUP_G2_LIST_CAND, 16);
        unsetenv("COLLIO_HINTS");
    } else {
        tu_skip(&t, "one rank: no rank without the variable");
    }

    tu_case(&t, "a replicated layout: the replicas' work priced alike for every "
                "candidate");
    unsetenv("COLLIO_CALIBRATION");
    if (t.nranks >= 2)
        run_replicas_priced(&t);
    else
        tu_skip(&t, "one rank: no replicas");

    tu_case(&t, "every rank favours list I/O");
    setenv("COLLIO_CALIBRATION", favour_list, 1);
    int c3 = run(&t, NULL, "", &cal, &err, 4096);
    TU_CHECK(&t, c3 == INDEPENDENT_CAND, "the choice: %d, want independent", c3);
    unsetenv("COLLIO_CALIBRATION");

    tu_remove(&t, favour_two_phase);
    tu_remove(&t, favour_list);
    tu_remove(&t, corrupt);
    tu_remove(&t, two_fs);
    tu_remove(&t, split_list);
    tu_remove(&t, split_two_phase);
    return tu_finish(&t);
}
