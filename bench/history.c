/*
 * history.c -- collio-history: a climate model's history file, NVARS
 * float64 variables of one decomposition one after the other in one file,
 * written three ways in one run (docs/requests.md, "Many variables in one
 * exchange"):
 *
 *   mpiio     one MPI_File_write_at_all per variable through an indexed
 *             view (as PIO and E3SM write them: bench/mpiio_history.c);
 *   blocking  one collio_write_at per variable, one plan;
 *   waitall   one collio_iwrite_at per variable on a plan with hint
 *             request.start=wait, then one collio_waitall: every variable
 *             in one exchange and one file pass.
 *
 * The decomposition: the global vector cut into runs (--run 1: single
 * elements; else RUN/2 .. 3*RUN/2 elements, lengths from a seeded
 * generator), dealt round-robin, --pieces runs per rank -- the same as
 * collio-mpiio-history's -- or with --random 1 each to a random rank (still
 * --pieces per rank): a random index list; or with --map FILE [--decomp D]
 * decomposition D (default 1) of an E3SM-IO decomposition map in its HDF5
 * form (bench/e3sm_map.h: the elements each process of an E3SM run wrote,
 * dealt to this run's ranks as E3SM-IO deals them; --pieces and --run
 * then unused; --expect-held N: exit 1 unless the ranks hold N elements
 * in all, a test's check of the map's reading). The rank's runs are a
 * collio_layout_extents.
 * Each record is a new file; the modes alternate record by record (the
 * first record of each is a warm-up, not counted: it opens the plans and,
 * without a calibration, measures the file system). The time of a record:
 * from a barrier to the slowest rank's end of its last write or wait
 * (the file's open and close not included). The last record of every
 * mode is read back and compared element by element.
 *
 * usage: collio-history [--vars N] [--pieces N] [--run N] [--reps N]
 *                       [--dir DIR] [--seed S] [--random 0|1] [--strategy S]
 *                       [--hints H] [--map FILE [--decomp D]] [--expect-held N]
 * Prints a table (mode, median seconds, ratio to waitall) on rank 0 and
 * a CSV line per mode with . Exit 0, 1 on a mismatch or a failed
 * call, 2 usage. Run it through scripts/mpirun N.
 */
#include "collio.h"

#include "bench_mpi.h"
#include "e3sm_map.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { M_MPIIO, M_BLOCKING, M_WAITALL, M__COUNT };
static const char *const mode_names[] = {"mpiio", "blocking", "waitall"};

static double value(long v, int64_t g)
{
    return (double)(v + 1) * 1e9 + (double)g;
}

static void check(int rc, const char *what)
{
    if (rc != COLLIO_OK) {
        fprintf(stderr, "collio-history: %s: %s\n", what, collio_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

typedef struct decomp {
    long vars, pieces;
    int64_t nx, mine;
    int64_t *off, *len; /* the rank's runs, elements */
} decomp;

/* One record of mode m into path; returns the slowest rank's seconds. */
static double record(int m, const decomp *d, collio_plan *plan, collio_plan *held,
                     MPI_Datatype ft, const double *buf, const char *path)
{
    if (m == M_MPIIO) {
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &fh)
            != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long v = 0; v < d->vars; v++)
            MPI_File_write_at_all(fh, (MPI_Offset)(v * d->mine), buf + v * d->mine,
                                  (int)d->mine, MPI_DOUBLE, MPI_STATUS_IGNORE);
        double t = bench_maxed(MPI_Wtime() - t0);
        MPI_File_close(&fh);
        return t;
    }
    collio_file *f = NULL;
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &f), "open");
    size_t bytes = (size_t)d->mine * sizeof(double);
    int64_t vbytes = d->nx * (int64_t)sizeof(double);
    collio_request **r = calloc((size_t)d->vars, sizeof *r);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long v = 0; v < d->vars; v++) {
        if (m == M_BLOCKING)
            check(collio_write_at(plan, f, v * vbytes, buf + v * d->mine, bytes),
                  "collio_write_at");
        else
            check(collio_iwrite_at(held, f, v * vbytes, buf + v * d->mine, bytes, &r[v]),
                  "collio_iwrite_at");
    }
    if (m == M_WAITALL)
        check(collio_waitall((int)d->vars, r, NULL), "collio_waitall");
    double t = bench_maxed(MPI_Wtime() - t0);
    check(collio_file_close(&f), "close");
    free(r);
    return t;
}

/* The file of the last record read back through collio and compared. */
static long long verify(const decomp *d, collio_plan *plan, const double *buf,
                        const char *path)
{
    collio_file *f = NULL;
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, NULL, &f), "reopen");
    double *back = malloc((size_t)d->mine * sizeof *back + 1);
    long long bad = 0;
    for (long v = 0; v < d->vars; v++) {
        memset(back, 0, (size_t)d->mine * sizeof *back);
        check(collio_read_at(plan, f, v * d->nx * (int64_t)sizeof(double), back,
                             (size_t)d->mine * sizeof *back),
              "collio_read_at");
        for (int64_t k = 0; k < d->mine; k++)
            bad += back[k] != buf[v * d->mine + k];
    }
    check(collio_file_close(&f), "close");
    free(back);
    long long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long vars = 20, pieces = 4000, run = 1, reps = 5, seed = 7, deal = 0, dnum = 1,
         expect = -1;
    const char *dir = ".", *hints = "", *strategy = NULL, *map = NULL;
    int ok = 1;
    for (int i = 1; i < argc && ok; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[++i] : NULL;
        long *to = strcmp(o, "--vars") == 0          ? &vars
                   : strcmp(o, "--pieces") == 0      ? &pieces
                   : strcmp(o, "--run") == 0         ? &run
                   : strcmp(o, "--reps") == 0        ? &reps
                   : strcmp(o, "--seed") == 0        ? &seed
                   : strcmp(o, "--random") == 0      ? &deal
                   : strcmp(o, "--decomp") == 0      ? &dnum
                   : strcmp(o, "--expect-held") == 0 ? &expect
                                                     : NULL;
        if (v != NULL && to != NULL)
            *to = atol(v);
        else if (v != NULL && strcmp(o, "--dir") == 0)
            dir = v;
        else if (v != NULL && strcmp(o, "--hints") == 0)
            hints = v;
        else if (v != NULL && strcmp(o, "--strategy") == 0)
            strategy = v;
        else if (v != NULL && strcmp(o, "--map") == 0)
            map = v;
        else
            ok = 0;
    }
    if (!ok || vars < 1 || pieces < 1 || run < 1 || reps < 1 || dnum < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: collio-history [--vars N] [--pieces N] [--run N] "
                            "[--reps N] [--dir DIR] [--seed S] [--random 0|1] "
                            "[--strategy S] [--hints H] [--map FILE [--decomp D]] "
                            "[--expect-held N]\n");
        MPI_Finalize();
        return 2;
    }
    int64_t mnx = 0, mn = 0, *moff = NULL, *mlen = NULL;
    if (map != NULL) { /* every rank reads it; any rank's failure stops all */
        char why[512] = "";
        int bad = e3sm_map_read(map, (int)dnum, rank, P, &mnx, &mn, &moff, &mlen, why,
                                sizeof why)
                  != 0,
            any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (bad)
                fprintf(stderr, "collio-history: rank %d: --map: %s\n", rank, why);
            MPI_Finalize();
            return 2;
        }
        if (mnx > INT32_MAX) { /* (the MPI-IO mode's int displacements) */
            if (rank == 0)
                fprintf(stderr, "collio-history: --map: %lld elements: too many\n",
                        (long long)mnx);
            MPI_Finalize();
            return 2;
        }
        pieces = (long)mn;
    }
    decomp d = {vars,
                pieces,
                0,
                0,
                malloc((size_t)(pieces > 0 ? pieces : 1) * sizeof(int64_t)),
                malloc((size_t)(pieces > 0 ? pieces : 1) * sizeof(int64_t))};
    int *blen = malloc((size_t)(pieces > 0 ? pieces : 1) * sizeof *blen),
        *bdisp = malloc((size_t)(pieces > 0 ? pieces : 1) * sizeof *bdisp);
    uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    /* run k to rank k mod P, or (--random 1) to a random rank whose
     * pieces are not all dealt yet */
    int *left = malloc((size_t)P * sizeof *left);
    for (int q = 0; q < P; q++)
        left[q] = (int)pieces;
    for (int64_t j = 0; map != NULL && j < mn; j++) { /* the map's runs */
        d.off[j] = moff[j], d.len[j] = mlen[j];
        blen[j] = (int)mlen[j], bdisp[j] = (int)moff[j];
        d.mine += mlen[j];
    }
    if (map != NULL)
        d.nx = mnx;
    free(moff), free(mlen);
    for (int64_t k = 0, j = 0; map == NULL && k < (int64_t)pieces * P; k++) {
        int len =
            run == 1 ? 1 : (int)(run / 2 + (int64_t)(bench_rnd(&s) % (uint64_t)run) + 1);
        int to = (int)(k % P);
        if (deal) {
            to = (int)(bench_rnd(&s) % (uint64_t)P);
            while (left[to] == 0)
                to = (to + 1) % P;
        }
        left[to]--;
        if (to == rank) {
            d.off[j] = d.nx, d.len[j] = len;
            blen[j] = len, bdisp[j] = (int)d.nx;
            d.mine += len, j++;
        }
        d.nx += len;
    }
    free(left);
    MPI_Datatype idx, ft;
    MPI_Type_indexed((int)pieces, blen, bdisp, MPI_DOUBLE, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)d.nx * 8, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&idx);
    double *buf = malloc((size_t)d.mine * vars * sizeof *buf);
    for (long v = 0; v < vars; v++)
        for (int64_t j = 0, at = 0; j < pieces; j++)
            for (int64_t e = 0; e < d.len[j]; e++)
                buf[v * d.mine + at++] = value(v, d.off[j] + e);
    collio_layout *l = NULL;
    check(collio_layout_extents(MPI_COMM_WORLD, pieces, d.off, d.len, sizeof(double), &l),
          "layout");
    collio_hints *h = NULL, *hh = NULL;
    check(collio_hints_create(&h), "hints");
    check(collio_hints_create(&hh), "hints");
    check(collio_hints_parse(h, hints), "--hints");
    check(collio_hints_parse(hh, hints), "--hints");
    check(collio_hints_set(hh, "request.start", "wait"), "request.start");
    collio_plan *plan = NULL, *held = NULL;
    check(collio_plan_create(MPI_COMM_WORLD, l, strategy, h, &plan), "plan");
    check(collio_plan_create(MPI_COMM_WORLD, l, strategy, hh, &held), "plan (held)");
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char path[M__COUNT][1200];
    double *t[M__COUNT];
    for (int m = 0; m < M__COUNT; m++) {
        snprintf(path[m], sizeof path[m], "%s/collio-history-%ld-%s.dat", dir, pid,
                 mode_names[m]);
        t[m] = malloc((size_t)reps * sizeof *t[m]);
    }
    for (long r = -1; r < reps; r++) /* record -1: the warm-up */
        for (int m = 0; m < M__COUNT; m++) {
            double x = record(m, &d, plan, held, ft, buf, path[m]);
            if (r >= 0)
                t[m][r] = x;
        }
    long long bad = 0;
    for (int m = 0; m < M__COUNT; m++)
        bad += verify(&d, plan, buf, path[m]);
    long long nheld = 0, mine = (long long)d.mine;
    MPI_Allreduce(&mine, &nheld, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (expect >= 0 && nheld != expect) { /* (--expect-held: a test's check of the map) */
        if (rank == 0)
            fprintf(stderr, "collio-history: the ranks hold %lld elements, not %ld\n",
                    nheld, expect);
        bad++;
    }
    double med[M__COUNT];
    for (int m = 0; m < M__COUNT; m++)
        med[m] = bench_median(t[m], (int)reps);
    double merged = 0, fig[2][3];
    collio_plan_stat(held, "request.merged", &merged);
    const char *keys[3] = {"total_s", "exchange_s", "file_s"};
    for (int k = 0; k < 3; k++) { /* the last execution's, the slowest rank's */
        collio_plan_stat(plan, keys[k], &fig[0][k]);
        collio_plan_stat(held, keys[k], &fig[1][k]);
        fig[0][k] = bench_maxed(fig[0][k]);
        fig[1][k] = bench_maxed(fig[1][k]);
    }
    if (rank == 0) {
        if (map != NULL)
            printf(
                "history: %ld float64 variables of %lld elements, decomposition %ld of "
                "%s, %d ranks, %ld records (median)\n",
                vars, (long long)d.nx, dnum, map, P, reps);
        else
            printf("history: %ld float64 variables of %lld elements, %ld runs of %ld per "
                   "rank, %d ranks, %ld records (median)\n",
                   vars, (long long)d.nx, pieces, run, P, reps);
        printf("%-9s %12s %10s\n", "mode", "seconds", "/waitall");
        for (int m = 0; m < M__COUNT; m++)
            printf("%-9s %12.6f %10.2f\n", mode_names[m], med[m],
                   med[m] / med[M_WAITALL]);
        printf("waitall: %g requests per execution\n", merged);
        printf("last execution, slowest rank: blocking (one variable) total %.6f s, "
               "exchange %.6f s, file %.6f s; waitall total %.6f s, exchange %.6f s, "
               "file %.6f s\n",
               fig[0][0], fig[0][1], fig[0][2], fig[1][0], fig[1][1], fig[1][2]);
        if (bad)
            fprintf(stderr, "collio-history: %lld elements read back wrong\n", bad);
        for (int m = 0; m < M__COUNT; m++)
            unlink(path[m]);
    }
    MPI_Type_free(&ft);
    collio_plan_free(&plan);
    collio_plan_free(&held);
    collio_layout_free(&l);
    collio_hints_free(&h);
    collio_hints_free(&hh);
    free(buf), free(blen), free(bdisp), free(d.off), free(d.len);
    for (int m = 0; m < M__COUNT; m++)
        free(t[m]);
    MPI_Finalize();
    return bad ? 1 : 0;
}
