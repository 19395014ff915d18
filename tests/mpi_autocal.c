/*
 * mpi_autocal.c -- strategy auto's costs without a calibration step
 * (docs/auto.md, "Calibration without a step", "Learning from its own
 * calls"), at every rank count and on the emulated hosts:
 *
 *  - a fresh calibration file (none yet): the first write of an auto plan
 *    measures the file's file system (auto.priced_by 2, auto.calibrate_s >
 *    0), the same on every rank, and the file then holds a quick entry for
 *    that file system with this job's ranks -- read back as text, not
 *    through the library's reader alone; the read after it measures
 *    nothing more; a second plan starts priced from the stored entry
 *    (priced_by 1, calibrate_s 0) and chooses what the first chose;
 *  - auto.calibrate=0 and COLLIO_AUTO_CALIBRATE=0: the built-in costs
 *    (priced_by 0), no file written;
 *  - a FIFO and a file whose boolean is a string as the calibration file:
 *    no hang, auto.calibration_error says why (IO, ARG);
 *  - learning: a calibration wrong by 10x on purpose (list I/O's request
 *    costs a tenth of what was measured) makes the plan start on list
 *    I/O where the measured calibration does not; within a bounded number
 *    of calls it leaves list I/O -- corrected (auto.switch_why 1) --, every
 *    rank at the same call, and ends on the measured calibration's choice
 *    -- or on one that calibration predicts within the model's error of
 *    it, a tie the correction may break either way -- unless its own later
 *    measurements said otherwise (a trial or a return); with
 *    auto.learn=0 it stays on list I/O.
 * Every file written is checked byte for byte. The calibrations live in
 * this test's own temporary files (COLLIO_CALIBRATION).
 */
#include "collio.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { INDEPENDENT = 1 };

/* Collective: a stat, checked the same on every rank; rank 0's value. */
static double same_stat(tu_ctx *t, const collio_plan *p, const char *key)
{
    double v = TU_STAT(t, p, key), lo = v, hi = v;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, t->comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, t->comm);
    TU_CHECK(t, lo == hi, "%s differs across ranks: %g .. %g", key, lo, hi);
    MPI_Bcast(&v, 1, MPI_DOUBLE, 0, t->comm);
    return v;
}

typedef struct vec {
    tu_layout_desc d;
    int64_t *idx, n;
    collio_layout *l;
    unsigned char *buf, *back;
} vec;

static int vec_make(tu_ctx *t, vec *v, int64_t nx, int64_t bx)
{
    memset(v, 0, sizeof *v);
    tu_desc_block_cyclic(&v->d, nx, bx, 4);
    tu_enumerate(&v->d, t->rank, t->nranks, &v->idx, &v->n);
    v->buf = malloc((size_t)v->n * 4 + 1);
    v->back = malloc((size_t)v->n * 4 + 1);
    tu_fill(v->buf, v->idx, v->n, 4, 5);
    return TU_RC_ALL(t, tu_desc_make(&v->d, t->comm, &v->l), COLLIO_OK, "layout");
}

static void vec_free(vec *v)
{
    collio_layout_free(&v->l);
    tu_desc_free(&v->d);
    free(v->idx);
    free(v->buf);
    free(v->back);
}

/* Collective: a write of v through p into path, checked byte for byte. */
static int write_checked(tu_ctx *t, collio_plan *p, vec *v, const char *path)
{
    if (!tu_plan_io(t, p, path, NULL, 1, v->buf, (size_t)v->n * 4))
        return 0;
    return TU_CHECK(t, tu_check_file(t, path, v->d.nglobal, 4, 5, 0, 0, 0) == 0,
                    "the file's bytes");
}

/* Collective: a read of path through p, compared with what was written. */
static int read_checked(tu_ctx *t, collio_plan *p, vec *v, const char *path)
{
    memset(v->back, 0, (size_t)v->n * 4 + 1);
    if (!tu_plan_io(t, p, path, NULL, 0, v->back, (size_t)v->n * 4))
        return 0;
    int64_t first = -1;
    return TU_CHECK(t, tu_compare(v->back, v->idx, v->n, 4, 5, &first) == 0,
                    "read back (first wrong element %lld)", (long long)first);
}

static collio_plan *auto_plan(tu_ctx *t, vec *v, const char *hints)
{
    collio_plan *p = NULL;
    collio_hints *h = TU_HINTS(t, "%s", hints);
    TU_RC_ALL(t, collio_plan_create(t->comm, v->l, "auto", h, &p), COLLIO_OK, "plan");
    collio_hints_free(&h);
    return p;
}

/* Collective: 1 on every rank if rank 0 finds the file's text holds a
 * quick entry made with this job's ranks. */
static int file_has_quick_entry(tu_ctx *t, const char *cal)
{
    size_t n = 0;
    unsigned char *text = tu_posix_get(t, cal, &n);
    int ok = text != NULL;
    if (ok) {
        char *s = realloc(text, n + 1), want[64];
        s[n] = '\0';
        snprintf(want, sizeof want, "\"ranks\": %d,", t->nranks);
        ok = strstr(s, "\"method\": \"quick\"") != NULL && strstr(s, want) != NULL
             && strstr(s, "\"format\": \"collio-calibration\"") != NULL;
        free(s);
    }
    return ok;
}

static void case_first_call_measures(tu_ctx *t, vec *v, const char *cal, const char *path)
{
    setenv("COLLIO_CALIBRATION", cal, 1);
    unsetenv("COLLIO_AUTO_CALIBRATE");
    collio_plan *p = auto_plan(t, v, "");
    if (p == NULL)
        return;
    TU_CHECK(t, TU_STAT(t, p, "auto.calibrate_s") == 0, "nothing measured at creation");
    if (write_checked(t, p, v, path)) {
        TU_CHECK(t, same_stat(t, p, "auto.priced_by") == 2, "the first write: measured");
        TU_CHECK(t, same_stat(t, p, "auto.calibrate_error") == 0, "no error measuring");
        TU_CHECK(t, same_stat(t, p, "auto.calibrated") == 1, "calibrated");
    }
    double took = TU_STAT(t, p, "auto.calibrate_s"); /* (this rank's time) */
    TU_CHECK(t, took > 0 && took < 30, "auto.calibrate_s %g", took);
    TU_CHECK(t, file_has_quick_entry(t, cal), "%s holds a quick entry for %d ranks", cal,
             t->nranks);
    collio_calibration c;
    collio_fs_id id;
    collio_fs_identify(path, &id);
    TU_CHECK(t, collio_calibration_load(cal, &c) == COLLIO_OK && c.nfs >= 1,
             "the stored file loads");
    double rpn = same_stat(t, p, "auto.link_Bps") == 0 ? t->nranks : -1;
    if (rpn > 0) /* one node: every rank on it */
        TU_CHECK(t, collio_calibration_find_covering(&c, &id, t->nranks, t->nranks) >= 0,
                 "an entry covers this job");
    if (read_checked(t, p, v, path)) {
        TU_CHECK(t, same_stat(t, p, "auto.priced_by") == 2, "the read: the same entry");
        TU_CHECK(t, TU_STAT(t, p, "auto.calibrate_s") == took, "the read measured again");
    }
    double first_choice = same_stat(t, p, "auto.write_choice");
    collio_plan_free(&p);

    /* a later plan (as a later run): priced from the stored entry */
    p = auto_plan(t, v, "");
    if (p != NULL && write_checked(t, p, v, path)) {
        TU_CHECK(t, same_stat(t, p, "auto.priced_by") == 1, "a later plan: stored");
        TU_CHECK(t, TU_STAT(t, p, "auto.calibrate_s") == 0, "a later plan measured");
        TU_CHECK(t, same_stat(t, p, "auto.write_choice") == first_choice,
                 "the same choice from the stored entry");
    }
    collio_plan_free(&p);
}

static void case_off(tu_ctx *t, vec *v, const char *cal, const char *path,
                     const char *hints, const char *env)
{
    setenv("COLLIO_CALIBRATION", cal, 1);
    if (env != NULL)
        setenv("COLLIO_AUTO_CALIBRATE", env, 1);
    collio_plan *p = auto_plan(t, v, hints);
    if (p != NULL && write_checked(t, p, v, path)) {
        TU_CHECK(t, same_stat(t, p, "auto.priced_by") == 0, "built-in costs");
        TU_CHECK(t, TU_STAT(t, p, "auto.calibrate_s") == 0, "nothing measured");
    }
    size_t n = 0;
    unsigned char *text = tu_posix_get(t, cal, &n);
    TU_CHECK(t, text == NULL, "no calibration file written");
    free(text);
    collio_plan_free(&p);
    unsetenv("COLLIO_AUTO_CALIBRATE");
}

/* Rank 0: the calibration at `from` with list I/O's request costs of
 * every entry a tenth, saved at `to`. */
static void make_wrong(tu_ctx *t, const char *from, const char *to)
{
    if (t->rank == 0) {
        collio_calibration c;
        collio_calibration_load(from, &c);
        for (int k = 0; k < c.nfs; k++) {
            collio_fs_costs *fs = &c.fs[k];
            fs->write_request_s /= 10, fs->read_request_s /= 10;
            for (int i = 0; i < fs->ninterleaved; i++)
                fs->write_interleaved_s[i] /= 10, fs->read_interleaved_s[i] /= 10;
        }
        collio_calibration_save(to, &c);
    }
    MPI_Barrier(t->comm);
}

/* The most calls learning takes: each candidate is judged after
 * 1 + 3 calls (learn.h), at most 4 switches. */
#define LEARN_BOUND (1 + 4 * 4 + 2)

/* The model's typical error (AUTO_LEARN_ERROR, strategies/auto/learn.h):
 * two candidates a calibration predicts within it of each other are a tie
 * that a correction learned from measured calls may break either way. */
#define MODEL_ERROR 1.5

/* Collective: the first write's choice of an auto plan of v with hints
 * under the calibration at cal (-1 on a failure); *pred_of (if not NULL)
 * gets that plan's predicted seconds of candidate `of` ("auto.predicted_
 * <name>_s") and *pred_choice those of its choice. */
static int first_choice(tu_ctx *t, vec *v, const char *cal, const char *path, int of,
                        double *pred_of, double *pred_choice)
{
    setenv("COLLIO_CALIBRATION", cal, 1);
    collio_plan *p = auto_plan(t, v, "auto.learn=0");
    int c = -1;
    if (p != NULL && write_checked(t, p, v, path)) {
        c = (int)same_stat(t, p, "auto.write_choice");
        char key[96];
        if (pred_of != NULL && of >= 0) {
            snprintf(key, sizeof key, "auto.predicted_%s_s", tu_candidate_name(of));
            *pred_of = same_stat(t, p, key);
        }
        if (pred_choice != NULL) {
            snprintf(key, sizeof key, "auto.predicted_%s_s", tu_candidate_name(c));
            *pred_choice = same_stat(t, p, key);
        }
    }
    collio_plan_free(&p);
    return c;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void case_learning(tu_ctx *t, const char *cal, const char *path)
{
    /* a layout where the wrong file makes list I/O the choice and the
     * measured one does not: pieces of 256 B to 16 KiB (list I/O pays a
     * request each, which the wrong file prices at a tenth) */
    char wrong[512];
    tu_temp_path(t, "wrong.json", wrong, sizeof wrong);
    make_wrong(t, cal, wrong);
    static const int64_t bxs[] = {64, 256, 1024, 4096};
    vec v;
    int truth = -1, found = 0;
    for (size_t b = 0; b < sizeof bxs / sizeof bxs[0] && !found; b++) {
        if (!vec_make(t, &v, 2000000, bxs[b])) {
            vec_free(&v);
            break;
        }
        truth = first_choice(t, &v, cal, path, -1, NULL, NULL);
        found = truth >= 0 && truth != INDEPENDENT
                && first_choice(t, &v, wrong, path, -1, NULL, NULL) == INDEPENDENT;
        if (!found)
            vec_free(&v);
    }
    if (!found) {
        tu_skip(t, "the wrong calibration does not move the choice to list I/O here");
        tu_remove(t, wrong);
        return;
    }
    setenv("COLLIO_CALIBRATION", wrong, 1);
    collio_plan *p = auto_plan(t, &v, "auto.learn=0");
    /* learn=0: list I/O to the end; its calls' times (the slowest rank's,
     * after the first, which makes its buffers) against the wrong file's
     * prediction of them */
    double secs[LEARN_BOUND];
    int ncalls = 0;
    for (int i = 0; p != NULL && i < LEARN_BOUND; i++) {
        if (!write_checked(t, p, &v, path))
            break;
        double mine = TU_STAT(t, p, "total_s"), slowest = mine;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, t->comm);
        if (i > 0)
            secs[ncalls++] = slowest;
    }
    TU_CHECK(t, same_stat(t, p, "auto.write_choice") == INDEPENDENT,
             "auto.learn=0 moved");
    TU_CHECK(t, same_stat(t, p, "auto.switches") == 0, "auto.learn=0 switched");
    char key[96];
    snprintf(key, sizeof key, "auto.predicted_%s_s", tu_candidate_name(INDEPENDENT));
    double pred = p != NULL ? same_stat(t, p, key) : 0;
    collio_plan_free(&p);
    qsort(secs, (size_t)ncalls, sizeof *secs, cmp_double);
    double med = ncalls > 0 ? secs[ncalls / 2] : 0;
    /* Learning corrects a model whose calls depart from its prediction by
     * more than its typical error. The wrong file prices list I/O's
     * requests at a tenth, but what that does to a call's time depends on
     * how much of it the requests are on this machine at this moment
     * (another test beside this one, the page cache): where the calls
     * measured within twice the prediction either way, the premise is not
     * there and learning rightly stays -- a failure here once in many CI
     * runs, 0 switches -- so the case is skipped, saying so. (Twice: beyond
     * MODEL_ERROR, as the test times the calls a little otherwise than the
     * learner does.) */
    const double premise = 2.0;
    if (!(med > premise * pred || med * premise < pred)) {
        char why[256];
        snprintf(
            why, sizeof why,
            "list I/O's calls measured %.3g s against the wrong prediction's %.3g s: "
            "within twice of it, nothing for learning to correct",
            med, pred);
        tu_skip(t, why);
        tu_remove(t, wrong);
        vec_free(&v);
        return;
    }

    p = auto_plan(t, &v, "");
    int left_at = -1, choice = -1;
    for (int i = 0; p != NULL && i < LEARN_BOUND; i++) {
        if (!write_checked(t, p, &v, path))
            break;
        choice = (int)same_stat(t, p, "auto.write_choice"); /* (checked on every rank) */
        if (left_at < 0 && choice != INDEPENDENT)
            left_at = i;
    }
    /* judged after its first call and 3 more: the fifth runs another */
    TU_CHECK(t, left_at == 4, "list I/O left at call %d, not the fifth", left_at);
    double why = same_stat(t, p, "auto.switch_why"), n = same_stat(t, p, "auto.switches");
    /* back on list I/O only after it left it, by a return (the one it
     * switched to measured slower than list I/O's own calls, why 3) or by
     * the model corrected again with both candidates' measured calls (why
     * 1) -- on this 2-core machine with another test beside it, which of
     * the two measures faster varies from run to run (both outcomes were
     * seen here, also before requests existed); never by the wrong file's
     * tenth */
    TU_CHECK(t, choice != INDEPENDENT || (n > 1 && (why == 3 || why == 1)),
             "ended on list I/O (%g switches, the last why %g)", n, why);
    TU_CHECK(t, n >= 1 && n <= 4, "%g switches", n);
    /* the last switch: the first (the corrected model), or what a trial
     * or the plan's own measurements decided after it. The corrected
     * model is the wrong one with list I/O's group scaled by what the
     * calls measured, not the measured calibration itself: where that
     * calibration predicts the candidate learning ended on within the
     * model's error of its own choice, either is right. */
    double tie_s = 0, truth_s = 0;
    if (choice >= 0 && choice != truth)
        first_choice(t, &v, cal, path, choice, &tie_s, &truth_s);
    TU_CHECK(t,
             choice == truth || (n > 1 && (why == 1 || why == 2 || why == 3))
                 || (truth_s > 0 && tie_s <= MODEL_ERROR * truth_s),
             "ended on %s (predicted %.3g s), the measured calibration picks %s (%.3g s) "
             "(last switch why %g)",
             tu_candidate_name(choice), tie_s, tu_candidate_name(truth), truth_s, why);
    TU_CHECK(t, n > 1 || why == 1, "the first switch: the corrected model (why %g)", why);
    collio_plan_free(&p);
    tu_remove(t, wrong);
    vec_free(&v);
}

/* A calibration path that is no regular file or holds ill-typed values:
 * plan creation returns (no hang: a FIFO would block an open for
 * reading), the call writes right, auto.calibration_error says why (IO:
 * not a file; ARG: refused), and the call is priced by a measurement or
 * the built-in costs, never by what was refused. */
static void case_bad_file(tu_ctx *t, vec *v, const char *path)
{
    char fifo[512], typed[512];
    tu_temp_path(t, "fifo.json", fifo, sizeof fifo);
    tu_temp_path(t, "typed.json", typed, sizeof typed);
    if (t->rank == 0) {
        unlink(fifo);
        if (mkfifo(fifo, 0600) != 0)
            perror("mkfifo");
        FILE *f = fopen(typed, "w");
        fputs("{ \"format\": \"collio-calibration\", \"version\": 1, \"network\": {"
              " \"intra_node\": { \"latency_s\": 1e-6, \"bandwidth_Bps\": 5e9 },"
              " \"inter_node\": { \"latency_s\": 2e-5, \"bandwidth_Bps\": 1e9 } },"
              " \"copy_Bps\": 5e9, \"piece_s\": 1e-8, \"cores_per_node\": 2,"
              " \"shm_window\": \"true\", \"filesystems\": [] }",
              f);
        fclose(f);
    }
    MPI_Barrier(t->comm);
    const char *paths[2] = {fifo, typed};
    const int want[2] = {COLLIO_ERR_IO, COLLIO_ERR_ARG};
    for (int k = 0; k < 2; k++) {
        setenv("COLLIO_CALIBRATION", paths[k], 1);
        collio_plan *p = auto_plan(t, v, "auto.calibrate=0");
        if (p != NULL && write_checked(t, p, v, path)) {
            TU_CHECK(t, same_stat(t, p, "auto.calibration_error") == want[k],
                     "%s: calibration_error %g, want %d",
                     k ? "a string boolean" : "a FIFO",
                     same_stat(t, p, "auto.calibration_error"), want[k]);
            TU_CHECK(t, same_stat(t, p, "auto.priced_by") == 0, "the built-in costs");
        }
        collio_plan_free(&p);
    }
    tu_remove(t, fifo);
    tu_remove(t, typed);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_autocal");
    char cal[512], off[512], path[512];
    tu_temp_path(&t, "cal.json", cal, sizeof cal);
    tu_temp_path(&t, "off.json", off, sizeof off);
    tu_temp_path(&t, "data", path, sizeof path);
    vec v;
    if (vec_make(&t, &v, 100003, 4096)) {
        tu_case(&t, "a fresh calibration file: the first write measures, once");
        case_first_call_measures(&t, &v, cal, path);
        tu_case(&t, "auto.calibrate=0: the built-in costs, no file");
        case_off(&t, &v, off, path, "auto.calibrate=0", NULL);
        tu_case(&t, "COLLIO_AUTO_CALIBRATE=0: the built-in costs, no file");
        case_off(&t, &v, off, path, "", "0");
        tu_case(&t, "a FIFO and a string boolean as the calibration: refused, no hang");
        case_bad_file(&t, &v, path);
    }
    vec_free(&v);
    tu_case(&t, "a calibration wrong by 10x: learning leaves its choice");
    case_learning(&t, cal, path);
    tu_remove(&t, path);
    tu_remove(&t, cal);
    tu_remove(&t, off);
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", cal);
    tu_remove(&t, lock);
    return tu_finish(&t);
}
