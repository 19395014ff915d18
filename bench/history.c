/*
 * history.c -- collio-history: a climate model's history file, NVARS
 * float64 variables one after the other in one file, of one decomposition
 * or of several (variable v of decomposition v mod ND, as a model's
 * variables on cells, edges and levels), written three ways in one run
 * (docs/requests.md, "Many variables in one exchange"):
 *
 *   mpiio     one MPI_File_write_at_all per variable through an indexed
 *             view (as PIO and E3SM write them: bench/mpiio_history.c;
 *             with several decompositions a view per variable, its own);
 *   blocking  one collio_write_at per variable, a plan per decomposition;
 *   waitall   one collio_iwrite_at per variable on plans with hint
 *             request.start=wait, then one collio_waitall: every variable
 *             in one exchange and one file pass (the plans of several
 *             decompositions merge: docs/requests.md).
 *
 * A decomposition: the global vector cut into runs (--run 1: single
 * elements; else RUN/2 .. 3*RUN/2 elements, lengths from a seeded
 * generator, decomposition i's from seed + i), dealt round-robin, --pieces
 * runs per rank -- the same as collio-mpiio-history's -- or with --random 1
 * each to a random rank (still --pieces per rank): a random index list;
 * --decomps ND of them. Or with --map FILE [--decomp D[,D...]]
 * decompositions D (default 1) of an E3SM-IO decomposition map in its HDF5
 * form (bench/e3sm_map.h: the elements each process of an E3SM run wrote,
 * dealt to this run's ranks as E3SM-IO deals them; --pieces, --run and
 * --decomps then unused; --expect-held N: exit 1 unless the ranks hold N
 * elements in all, of every decomposition named, a test's check of the
 * map's reading). The rank's runs are a collio_layout_extents.
 * Each record is a new file; the modes alternate record by record (the
 * first record of each is a warm-up, not counted: it opens the plans and,
 * without a calibration, measures the file system). The time of a record:
 * from a barrier to the slowest rank's end of its last write or wait
 * (the file's open and close not included). The last record of every
 * mode is read back and compared element by element.
 *
 * usage: collio-history [--vars N] [--pieces N] [--run N] [--reps N]
 *                       [--dir DIR] [--seed S] [--random 0|1] [--decomps ND]
 *                       [--strategy S] [--hints H]
 *                       [--map FILE [--decomp D[,D...]]] [--expect-held N]
 * Prints a table (mode, median seconds, ratio to waitall) on rank 0. Exit
 * 0, 1 on a mismatch or a failed call, 2 usage. Run it through
 * scripts/mpirun N.
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

enum { MAX_DECOMPS = 16 };

/* One decomposition: the rank's runs (elements), its MPI file type, its
 * layout and plans (blocking, held). */
typedef struct decomp {
    int64_t nx, mine, pieces;
    int64_t *off, *len;
    MPI_Datatype ft;
    collio_layout *l;
    collio_plan *plan, *held;
} decomp;

/* The file: variable v of decomposition v mod nd at byte voff[v], its
 * data (the rank's elements) at vbuf[v]. */
typedef struct hist {
    long vars;
    int nd;
    decomp d[MAX_DECOMPS];
    int64_t *voff;
    double **vbuf;
} hist;

static const decomp *dec_of(const hist *h, long v)
{
    return &h->d[v % h->nd];
}

/* One record of mode m into path; returns the slowest rank's seconds. */
static double record(int m, const hist *h, const char *path)
{
    if (m == M_MPIIO) {
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &fh)
            != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        /* one decomposition: one view, variable v its v-th tile (as
         * mpiio_history.c); several: each variable's own view */
        if (h->nd == 1)
            MPI_File_set_view(fh, 0, MPI_DOUBLE, h->d[0].ft, "native", MPI_INFO_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long v = 0; v < h->vars; v++) {
            const decomp *d = dec_of(h, v);
            MPI_Offset at = (MPI_Offset)(v * d->mine);
            if (h->nd > 1) {
                MPI_File_set_view(fh, (MPI_Offset)h->voff[v], MPI_DOUBLE, d->ft, "native",
                                  MPI_INFO_NULL);
                at = 0;
            }
            MPI_File_write_at_all(fh, at, h->vbuf[v], (int)d->mine, MPI_DOUBLE,
                                  MPI_STATUS_IGNORE);
        }
        double t = bench_maxed(MPI_Wtime() - t0);
        MPI_File_close(&fh);
        return t;
    }
    collio_file *f = NULL;
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_CREATE, NULL, &f), "open");
    collio_request **r = calloc((size_t)h->vars, sizeof *r);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long v = 0; v < h->vars; v++) {
        const decomp *d = dec_of(h, v);
        size_t bytes = (size_t)d->mine * sizeof(double);
        if (m == M_BLOCKING)
            check(collio_write_at(d->plan, f, h->voff[v], h->vbuf[v], bytes),
                  "collio_write_at");
        else
            check(collio_iwrite_at(d->held, f, h->voff[v], h->vbuf[v], bytes, &r[v]),
                  "collio_iwrite_at");
    }
    if (m == M_WAITALL)
        check(collio_waitall((int)h->vars, r, NULL), "collio_waitall");
    double t = bench_maxed(MPI_Wtime() - t0);
    check(collio_file_close(&f), "close");
    free(r);
    return t;
}

/* The file of the last record read back through collio and compared. */
static long long verify(const hist *h, const char *path)
{
    collio_file *f = NULL;
    check(collio_file_open(MPI_COMM_WORLD, path, COLLIO_FILE_READ, NULL, &f), "reopen");
    long long bad = 0;
    for (long v = 0; v < h->vars; v++) {
        const decomp *d = dec_of(h, v);
        double *back = calloc((size_t)d->mine + 1, sizeof *back);
        check(
            collio_read_at(d->plan, f, h->voff[v], back, (size_t)d->mine * sizeof *back),
            "collio_read_at");
        for (int64_t k = 0; k < d->mine; k++)
            bad += back[k] != h->vbuf[v][k];
        free(back);
    }
    check(collio_file_close(&f), "close");
    long long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* Decomposition i of the map's dn (every rank reads it); 0, or 2 with
 * the reason printed (any rank's failure stops all). */
static int from_map(decomp *d, const char *map, int dn, int rank, int P)
{
    char why[512] = "";
    int64_t n = 0;
    int bad =
            e3sm_map_read(map, dn, rank, P, &d->nx, &n, &d->off, &d->len, why, sizeof why)
            != 0,
        any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (bad)
            fprintf(stderr, "collio-history: rank %d: --map: %s\n", rank, why);
        return 2;
    }
    if (d->nx > INT32_MAX) { /* (the MPI-IO mode's int displacements) */
        if (rank == 0)
            fprintf(stderr, "collio-history: --map: %lld elements: too many\n",
                    (long long)d->nx);
        return 2;
    }
    d->pieces = n;
    for (int64_t j = 0; j < n; j++)
        d->mine += d->len[j];
    return 0;
}

/* A made-up decomposition: run k to rank k mod P, or (deal) to a random
 * rank whose pieces are not all dealt yet. */
static void made_up(decomp *d, long pieces, long run, int deal, long seed, int rank,
                    int P)
{
    d->pieces = pieces;
    d->off = malloc((size_t)pieces * sizeof *d->off);
    d->len = malloc((size_t)pieces * sizeof *d->len);
    uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    int *left = malloc((size_t)P * sizeof *left);
    for (int q = 0; q < P; q++)
        left[q] = (int)pieces;
    for (int64_t k = 0, j = 0; k < (int64_t)pieces * P; k++) {
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
            d->off[j] = d->nx, d->len[j] = len;
            d->mine += len, j++;
        }
        d->nx += len;
    }
    free(left);
}

/* The decomposition's MPI file type, layout and plans. */
static void make_plans(decomp *d, const char *strategy, const char *hints)
{
    int64_t n = d->pieces > 0 ? d->pieces : 1;
    int *blen = malloc((size_t)n * sizeof *blen),
        *bdisp = malloc((size_t)n * sizeof *bdisp);
    for (int64_t j = 0; j < d->pieces; j++)
        blen[j] = (int)d->len[j], bdisp[j] = (int)d->off[j];
    MPI_Datatype idx;
    MPI_Type_indexed((int)d->pieces, blen, bdisp, MPI_DOUBLE, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)d->nx * 8, &d->ft);
    MPI_Type_commit(&d->ft);
    MPI_Type_free(&idx);
    free(blen), free(bdisp);
    check(collio_layout_extents(MPI_COMM_WORLD, d->pieces, d->off, d->len, sizeof(double),
                                &d->l),
          "layout");
    collio_hints *h = NULL, *hh = NULL;
    check(collio_hints_create(&h), "hints");
    check(collio_hints_create(&hh), "hints");
    check(collio_hints_parse(h, hints), "--hints");
    check(collio_hints_parse(hh, hints), "--hints");
    check(collio_hints_set(hh, "request.start", "wait"), "request.start");
    check(collio_plan_create(MPI_COMM_WORLD, d->l, strategy, h, &d->plan), "plan");
    check(collio_plan_create(MPI_COMM_WORLD, d->l, strategy, hh, &d->held),
          "plan (held)");
    collio_hints_free(&h);
    collio_hints_free(&hh);
}

static void decomp_free(decomp *d)
{
    if (d->ft != MPI_DATATYPE_NULL)
        MPI_Type_free(&d->ft);
    collio_plan_free(&d->plan);
    collio_plan_free(&d->held);
    collio_layout_free(&d->l);
    free(d->off), free(d->len);
}

/* --decomp's list "D[,D...]" into dn[]; their count, or 0 if malformed. */
static int parse_decomps(const char *list, int dn[MAX_DECOMPS])
{
    int n = 0;
    for (const char *c = list; *c != '\0';) {
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c || v < 1 || v > 1000000 || n == MAX_DECOMPS
            || (*end != ',' && *end != '\0'))
            return 0;
        dn[n++] = (int)v;
        c = *end == ',' ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long vars = 20, pieces = 4000, run = 1, reps = 5, seed = 7, deal = 0, nmade = 1,
         expect = -1;
    const char *dir = ".", *hints = "", *strategy = NULL, *map = NULL, *dlist = "1";
    const bench_opt opts[] = {
        {"--vars", .l = &vars},         {"--pieces", .l = &pieces},
        {"--run", .l = &run},           {"--reps", .l = &reps},
        {"--seed", .l = &seed},         {"--random", .l = &deal},
        {"--decomps", .l = &nmade},     {"--expect-held", .l = &expect},
        {"--dir", .s = &dir},           {"--hints", .s = &hints},
        {"--strategy", .s = &strategy}, {"--map", .s = &map},
        {"--decomp", .s = &dlist}};
    int ok = bench_parse(argc, argv, opts, (int)(sizeof opts / sizeof *opts));
    int dn[MAX_DECOMPS], nmap = parse_decomps(dlist, dn);
    if (!ok || vars < 1 || pieces < 1 || run < 1 || reps < 1 || nmap < 1 || nmade < 1
        || nmade > MAX_DECOMPS) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: collio-history [--vars N] [--pieces N] [--run N] "
                    "[--reps N] [--dir DIR] [--seed S] [--random 0|1] "
                    "[--decomps ND (1..%d)] [--strategy S] [--hints H] "
                    "[--map FILE [--decomp D[,D...]]] [--expect-held N]\n",
                    MAX_DECOMPS);
        MPI_Finalize();
        return 2;
    }
    hist h = {.vars = vars, .nd = map != NULL ? nmap : (int)nmade};
    for (int i = 0; i < MAX_DECOMPS; i++)
        h.d[i].ft = MPI_DATATYPE_NULL;
    for (int i = 0; i < h.nd; i++) {
        if (map != NULL && from_map(&h.d[i], map, dn[i], rank, P) != 0) {
            for (int j = 0; j <= i; j++)
                decomp_free(&h.d[j]);
            MPI_Finalize();
            return 2;
        }
        if (map == NULL)
            made_up(&h.d[i], pieces, run, (int)deal, seed + i, rank, P);
        make_plans(&h.d[i], strategy, hints);
    }
    h.voff = malloc((size_t)vars * sizeof *h.voff);
    h.vbuf = malloc((size_t)vars * sizeof *h.vbuf);
    for (long v = 0, at = 0; v < vars; v++) {
        const decomp *d = dec_of(&h, v);
        h.voff[v] = at;
        at += d->nx * (int64_t)sizeof(double);
        h.vbuf[v] = malloc((size_t)d->mine * sizeof(double) + 1);
        for (int64_t j = 0, k = 0; j < d->pieces; j++)
            for (int64_t e = 0; e < d->len[j]; e++)
                h.vbuf[v][k++] = value(v, d->off[j] + e);
    }
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
            double x = record(m, &h, path[m]);
            if (r >= 0)
                t[m][r] = x;
        }
    long long bad = 0;
    for (int m = 0; m < M__COUNT; m++)
        bad += verify(&h, path[m]);
    long long nheld = 0, mine = 0, nx = 0;
    for (int i = 0; i < h.nd; i++)
        mine += (long long)h.d[i].mine, nx += (long long)h.d[i].nx;
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
    collio_plan_stat(h.d[0].held, "request.merged", &merged);
    const char *keys[3] = {"total_s", "exchange_s", "file_s"};
    for (int k = 0; k < 3; k++) { /* the last execution's, the slowest rank's */
        collio_plan_stat(dec_of(&h, vars - 1)->plan, keys[k], &fig[0][k]);
        collio_plan_stat(h.d[0].held, keys[k], &fig[1][k]);
        fig[0][k] = bench_maxed(fig[0][k]);
        fig[1][k] = bench_maxed(fig[1][k]);
    }
    /* what strategy auto ran for one variable and for the merged batch */
    const char *ran[2] = {collio_plan_strategy(dec_of(&h, vars - 1)->plan),
                          collio_plan_strategy(h.d[0].held)};
    const collio_plan *ranp[2] = {dec_of(&h, vars - 1)->plan, h.d[0].held};
    for (int k = 0; k < 2; k++) {
        double c = -1;
        if (strcmp(ran[k], "auto") == 0
            && collio_plan_stat(ranp[k], "auto.write_choice", &c) == COLLIO_OK && c >= 0)
            ran[k] = collio_option_value_name("auto.only", (int)c + 1);
        if (ran[k] == NULL)
            ran[k] = "?";
    }
    if (rank == 0) {
        if (map != NULL)
            printf("history: %ld float64 variables, decomposition(s) %s of %s (%lld "
                   "elements), %d ranks, %ld records (median)\n",
                   vars, dlist, map, nx, P, reps);
        else
            printf(
                "history: %ld float64 variables of %d decomposition(s) (%lld "
                "elements), %ld runs of %ld per rank, %d ranks, %ld records (median)\n",
                vars, h.nd, nx, pieces, run, P, reps);
        printf("%-9s %12s %10s\n", "mode", "seconds", "/waitall");
        for (int m = 0; m < M__COUNT; m++)
            printf("%-9s %12.6f %10.2f\n", mode_names[m], med[m],
                   med[m] / med[M_WAITALL]);
        printf("waitall: %g requests per execution\n", merged);
        printf("last execution, slowest rank: blocking (one variable) total %.6f s, "
               "exchange %.6f s, file %.6f s; waitall total %.6f s, exchange %.6f s, "
               "file %.6f s\n",
               fig[0][0], fig[0][1], fig[0][2], fig[1][0], fig[1][1], fig[1][2]);
        printf("strategy run: blocking (one variable) %s; waitall %s\n", ran[0], ran[1]);
        if (bad)
            fprintf(stderr, "collio-history: %lld elements read back wrong\n", bad);
        for (int m = 0; m < M__COUNT; m++)
            unlink(path[m]);
    }
    for (int i = 0; i < h.nd; i++)
        decomp_free(&h.d[i]);
    for (long v = 0; v < vars; v++)
        free(h.vbuf[v]);
    free(h.vbuf), free(h.voff);
    for (int m = 0; m < M__COUNT; m++)
        free(t[m]);
    MPI_Finalize();
    return bad ? 1 : 0;
}
