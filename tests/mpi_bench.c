/*
 * mpi_bench.c -- collio-bench as a library (bench/bench.h): a small run of
 * each workload through collio_bench_run must record every run, verify every
 * canonical file and read-back (nothing failed, no library error), and write
 * a CSV whose header has the documented column names and one row per run,
 * with verified = 1 for canonical strategies and empty for "block". An
 * unknown strategy must make the whole run fail with COLLIO_ERR_STRATEGY on
 * every rank. The counts are derived from the configuration, not from the
 * bench.
 */
#include "bench.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

static const char *const required[] = {
    "workload", "strategy",    "ranks",      "nx",      "bx",      "rep",
    "op",       "inspect_s",   "exchange_s", "file_s",  "total_s", "verified",
    "phases",   "peak_rss_mb", "phase0_s",   "fs_type", "fs_mount"};

/* Splits a CSV line in place at its commas, keeping empty fields and
 * commas inside double quotes ("subgroup(g=2,two_phase)"); returns the
 * number of fields (at most max). */
static int split_fields(char *line, char **field, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        field[n++] = p;
        int quoted = 0;
        while (*p && (quoted || *p != ','))
            quoted ^= *p++ == '"';
        if (!*p)
            break;
        *p++ = '\0';
    }
    return n;
}

/* Rank 0: checks the CSV: required columns, `want_rows` rows, verified
 * column 1 for canonical strategies and empty for non-canonical ones, and
 * the file system of the test's directory in every row: fs_magic is what
 * statfs(2) says here, fs_type is not empty. */
static void check_csv(tu_ctx *t, const char *path, int want_rows)
{
    if (t->rank != 0)
        return;
    FILE *f = fopen(path, "r");
    if (!TU_CHECK(t, f != NULL, "CSV %s exists", path))
        return;
    char line[4096];
    int cols = 0, strategy_col = -1, verified_col = -1, rows = 0;
    int type_col = -1, magic_col = -1;
    char names[96][32];
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, ",\n"); tok && cols < 96;
             tok = strtok(NULL, ",\n")) {
            snprintf(names[cols], sizeof names[cols], "%s", tok);
            if (strcmp(tok, "strategy") == 0)
                strategy_col = cols;
            if (strcmp(tok, "verified") == 0)
                verified_col = cols;
            if (strcmp(tok, "fs_type") == 0)
                type_col = cols;
            if (strcmp(tok, "fs_magic") == 0)
                magic_col = cols;
            cols++;
        }
    }
    struct statfs sf;
    char magic[32] = "?";
    if (statfs(t->tmpdir, &sf) == 0)
        snprintf(magic, sizeof magic, "0x%lx", (unsigned long)sf.f_type);
    for (size_t r = 0; r < sizeof required / sizeof *required; r++) {
        int found = 0;
        for (int c = 0; c < cols; c++)
            found |= strcmp(names[c], required[r]) == 0;
        TU_CHECK(t, found, "CSV header has column %s", required[r]);
    }
    while (fgets(line, sizeof line, f)) {
        rows++;
        char *field[96];
        int n = split_fields(line, field, 96);
        for (int k = 0; k < n; k++) {
            char *nl = strchr(field[k], '\n');
            if (nl)
                *nl = '\0';
        }
        TU_CHECK(t, type_col >= 0 && type_col < n && strlen(field[type_col]) > 2,
                 "row %d: fs_type '%s' names a file system", rows,
                 type_col >= 0 && type_col < n ? field[type_col] : "(none)");
        TU_CHECK(t,
                 magic_col >= 0 && magic_col < n && strcmp(field[magic_col], magic) == 0,
                 "row %d: fs_magic '%s', statfs says %s", rows,
                 magic_col >= 0 && magic_col < n ? field[magic_col] : "(none)", magic);
        if (strategy_col < 0 || verified_col < 0 || verified_col >= n)
            continue;
        int canonical = collio_strategy_is_canonical(field[strategy_col]);
        if (canonical == 1)
            TU_CHECK(t, strcmp(field[verified_col], "1") == 0,
                     "row %d (%s): verified '%s', want 1", rows, field[strategy_col],
                     field[verified_col]);
        else
            TU_CHECK(t, field[verified_col][0] == '\0',
                     "row %d (%s): verified '%s', want empty", rows, field[strategy_col],
                     field[verified_col]);
    }
    fclose(f);
    TU_CHECK(t, rows == want_rows, "CSV has %d rows, want %d", rows, want_rows);
}

static void base_config(tu_ctx *t, collio_bench_config *c, const char *csv)
{
    collio_bench_config_init(c);
    c->reps = 2;
    c->do_write = c->do_read = 1;
    c->progress = 0;
    c->table_out = NULL;
    snprintf(c->dir, sizeof c->dir, "%s", t->tmpdir);
    snprintf(c->csv, sizeof c->csv, "%s", csv);
}

/* Sweeps hint KEY over VALUES ("V1,V2"): one variant per value. */
static void sweep(collio_bench_config *c, const char *key, const char *values)
{
    collio_bench_sweep *s = &c->sweeps[c->nsweeps++];
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->values, sizeof s->values, "%s", values);
}

static void test_vector(tu_ctx *t)
{
    tu_case(t, "vector workload, every strategy, write and read");
    char csv[1024];
    tu_temp_path(t, "vector.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    c.workload = COLLIO_BENCH_VECTOR;
    c.nx = 50021; /* prime: no bx*P divides it */
    const int64_t bx[] = {1, 13, 5000};
    c.nbx = 3;
    memcpy(c.bx, bx, sizeof bx);
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int nstrat = collio_strategy_count(), ncanon = 0;
    for (int i = 0; i < nstrat; i++)
        ncanon += collio_strategy_is_canonical(collio_strategy_name(i)) == 1;
    int want_runs = c.nbx * nstrat * c.reps * 2;
    TU_CHECK(t, sum.runs == want_runs, "runs %d, want %d", sum.runs, want_runs);
    TU_CHECK(t, sum.failed == 0 && sum.errors == 0, "failed %d, errors %d", sum.failed,
             sum.errors);
    TU_CHECK(t, sum.verified >= c.nbx * ncanon * c.reps * 2,
             "verified %d, want >= %d (every canonical write and read)", sum.verified,
             c.nbx * ncanon * c.reps * 2);
    check_csv(t, csv, want_runs);
    tu_remove(t, csv);
}

static void test_array(tu_ctx *t)
{
    tu_case(t, "array workload, multiphase phases 1 and all, --destroy-input");
    char csv[1024];
    tu_temp_path(t, "array.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    c.workload = COLLIO_BENCH_ARRAY;
    c.nshapes = 1;
    snprintf(c.shapes[0].name, sizeof c.shapes[0].name, "7x11x3x4x2");
    const int64_t g[5] = {7, 11, 3, 4, 2};
    memcpy(c.shapes[0].gsizes, g, sizeof g);
    snprintf(c.strategies[0], COLLIO_BENCH_NAME_LEN, "multiphase");
    snprintf(c.strategies[1], COLLIO_BENCH_NAME_LEN, "serial");
    c.nstrategies = 2;
    sweep(&c, "multiphase.phases", "1,0");
    c.reps = 2;          /* rep 2 writes a buffer the library may have overwritten */
    c.destroy_input = 1; /* so the bench must refill it: verified below */
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int want_runs = (2 + 1) * 2 * 2; /* multiphase k=1, all; serial; write+read; reps */
    TU_CHECK(t, sum.runs == want_runs, "runs %d, want %d", sum.runs, want_runs);
    TU_CHECK(t, sum.failed == 0 && sum.errors == 0 && sum.verified == want_runs,
             "failed %d, errors %d, verified %d of %d", sum.failed, sum.errors,
             sum.verified, want_runs);
    check_csv(t, csv, want_runs);
    tu_remove(t, csv);
}

/* Rank 0: in the CSV, each row of variant "multiphase(r=R)" has `rounds`
 * == want[R == -1 ? 0 : 1] (writes and reads alike). Returns rows seen. */
static int check_rounds_csv(tu_ctx *t, const char *path, const int want[2])
{
    FILE *f = fopen(path, "r");
    if (!TU_CHECK(t, f != NULL, "CSV %s exists", path))
        return 0;
    char line[4096];
    int op_col = -1, rounds_col = -1, variant_col = -1, rows = 0;
    if (fgets(line, sizeof line, f)) {
        int c = 0;
        for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++) {
            if (strcmp(tok, "op") == 0)
                op_col = c;
            if (strcmp(tok, "rounds") == 0)
                rounds_col = c;
            if (strcmp(tok, "variant") == 0)
                variant_col = c;
        }
    }
    TU_CHECK(t, op_col >= 0 && rounds_col >= 0 && variant_col >= 0,
             "CSV has op, rounds, variant columns");
    while (op_col >= 0 && rounds_col >= 0 && variant_col >= 0
           && fgets(line, sizeof line, f)) {
        char *field[64];
        int n = split_fields(line, field, 64);
        if (variant_col >= n)
            continue;
        rows++;
        int one_pass = strstr(field[variant_col], "multiphase(r=-1") != NULL;
        int got = atoi(field[rounds_col]);
        int want_here = want[one_pass ? 0 : 1];
        TU_CHECK(t, got == want_here, "row %d (%s %s): rounds %d, want %d", rows,
                 field[op_col], field[variant_col], got, want_here);
    }
    fclose(f);
    return rows;
}

static void test_write_rounds(tu_ctx *t)
{
    tu_case(t, "vector workload, multiphase --write-rounds -1,2");
    char csv[1024];
    tu_temp_path(t, "rounds.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    c.workload = COLLIO_BENCH_VECTOR;
    c.nx = 4099 * (int64_t)t->nranks;
    c.nbx = 1;
    c.bx[0] = 3;
    snprintf(c.strategies[0], COLLIO_BENCH_NAME_LEN, "multiphase");
    c.nstrategies = 1;
    sweep(&c, "multiphase.write_rounds", "-1,2");
    /* rounds are the hypercube's (AUTO is direct on one node) */
    sweep(&c, "multiphase.exchange", "hypercube");
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int want_runs = 2 * 2 * c.reps; /* two variants, write + read */
    TU_CHECK(t, sum.runs == want_runs && sum.verified == want_runs && sum.failed == 0,
             "runs %d, verified %d, failed %d; want %d verified", sum.runs, sum.verified,
             sum.failed, want_runs);
    if (t->rank == 0) {
        /* 2 halvings = 3 rounds wherever there are phases (P >= 2) */
        const int want[2] = {0, t->nranks > 1 ? 3 : 0};
        int rows = check_rounds_csv(t, csv, want);
        TU_CHECK(t, rows == want_runs, "CSV rows %d, want %d", rows, want_runs);
    }
    tu_remove(t, csv);
}

/* Rank 0: each row's `exchange` column names what its variant asked for
 * ("multiphase(x=direct)" -> direct), and a direct row ran 1 phase.
 * Returns rows seen. */
static int check_exchange_csv(tu_ctx *t, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!TU_CHECK(t, f != NULL, "CSV %s exists", path))
        return 0;
    char line[4096];
    int x_col = -1, phases_col = -1, variant_col = -1, rows = 0;
    if (fgets(line, sizeof line, f)) {
        int c = 0;
        for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), c++) {
            if (strcmp(tok, "exchange") == 0)
                x_col = c;
            if (strcmp(tok, "phases") == 0)
                phases_col = c;
            if (strcmp(tok, "variant") == 0)
                variant_col = c;
        }
    }
    TU_CHECK(t, x_col >= 0 && phases_col >= 0 && variant_col >= 0,
             "CSV has exchange, phases, variant columns");
    while (x_col >= 0 && phases_col >= 0 && variant_col >= 0
           && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0'; /* exchange is the last column */
        char *field[64];
        int n = split_fields(line, field, 64);
        if (x_col >= n || variant_col >= n)
            continue;
        rows++;
        int direct = strstr(field[variant_col], "x=direct") != NULL;
        TU_CHECK(t, strcmp(field[x_col], direct ? "direct" : "hypercube") == 0,
                 "row %d (%s): exchange '%s'", rows, field[variant_col], field[x_col]);
        if (direct)
            TU_CHECK(t, atoi(field[phases_col]) == 1, "row %d: direct ran %s phases",
                     rows, field[phases_col]);
    }
    fclose(f);
    return rows;
}

static void test_exchange(tu_ctx *t)
{
    tu_case(t, "vector workload, multiphase --exchange hypercube,direct");
    char csv[1024];
    tu_temp_path(t, "exchange.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    c.workload = COLLIO_BENCH_VECTOR;
    c.nx = 3001 * (int64_t)t->nranks;
    c.nbx = 1;
    c.bx[0] = 7;
    snprintf(c.strategies[0], COLLIO_BENCH_NAME_LEN, "multiphase");
    c.nstrategies = 1;
    sweep(&c, "multiphase.exchange", "hypercube,direct");
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int want_runs = 2 * 2 * c.reps; /* two variants, write + read */
    TU_CHECK(t, sum.runs == want_runs && sum.verified == want_runs && sum.failed == 0,
             "runs %d, verified %d, failed %d; want %d verified", sum.runs, sum.verified,
             sum.failed, want_runs);
    if (t->rank == 0) {
        int rows = check_exchange_csv(t, csv);
        TU_CHECK(t, rows == want_runs, "CSV rows %d, want %d", rows, want_runs);
    }
    tu_remove(t, csv);
}

static void test_unknown_strategy(tu_ctx *t)
{
    tu_case(t, "unknown strategy");
    collio_bench_config c;
    base_config(t, &c, "");
    c.nx = 100;
    c.nbx = 1;
    c.bx[0] = 3;
    snprintf(c.strategies[0], COLLIO_BENCH_NAME_LEN, "no-such-strategy");
    c.nstrategies = 1;
    int rc = collio_bench_run(t->comm, &c, NULL);
    TU_RC_ALL(t, rc, COLLIO_ERR_STRATEGY, "collio_bench_run with an unknown strategy");
}

/* Rank 0: the CSV column `name`'s index in header line `line`, or -1. */
static int column_of(char *header, const char *name)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", header);
    char *field[128];
    int n = split_fields(copy, field, 128);
    for (int c = 0; c < n; c++) {
        char *nl = strchr(field[c], '\n');
        if (nl)
            *nl = '\0';
        if (strcmp(field[c], name) == 0)
            return c;
    }
    return -1;
}

/* The small workload: one piece of s bytes per rank; the CSV's size column
 * is the case's s, group is g's group size for subgroup rows. */
static void test_small(tu_ctx *t)
{
    tu_case(t, "small workload, subgroup g=2 inner independent, sizes 1K,12,4K");
    char csv[1024];
    tu_temp_path(t, "small.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    char err[256] = "";
    char *argv[] = {"collio-bench", "small",
                    "--sizes",      "1K,12,4K",
                    "--group",      "2",
                    "--inner",      "independent",
                    "--strategies", "subgroup,two_phase,independent,block"};
    int prc = collio_bench_parse(10, argv, &c, NULL, err, sizeof err);
    if (!TU_CHECK(t, prc == 0, "parse: %s", err))
        return;
    TU_CHECK(t,
             c.workload == COLLIO_BENCH_SMALL && c.nsizes == 3 && c.sizes[0] == 1024
                 && c.sizes[1] == 12 && c.sizes[2] == 4096 && c.nsweeps == 2
                 && strcmp(c.sweeps[0].key, "subgroup.group") == 0
                 && strcmp(c.sweeps[0].values, "2") == 0
                 && strcmp(c.sweeps[1].key, "subgroup.inner") == 0
                 && strcmp(c.sweeps[1].values, "independent") == 0,
             "parsed small options");
    c.progress = 0;
    c.table_out = NULL;
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int want_runs = 3 * 4 * c.reps * 2;
    TU_CHECK(t, sum.runs == want_runs && sum.failed == 0 && sum.errors == 0,
             "runs %d (want %d), failed %d, errors %d", sum.runs, want_runs, sum.failed,
             sum.errors);
    TU_CHECK(t, sum.verified == 3 * 3 * c.reps * 2, "verified %d, want %d", sum.verified,
             3 * 3 * c.reps * 2);
    check_csv(t, csv, want_runs);
    FILE *f = t->rank == 0 ? fopen(csv, "r") : NULL;
    char line[4096];
    if (f != NULL && fgets(line, sizeof line, f)) {
        int size_col = column_of(line, "size"), group_col = column_of(line, "group");
        int strat_col = column_of(line, "strategy"), nx_col = column_of(line, "nx");
        TU_CHECK(t, size_col >= 0 && group_col >= 0, "CSV has size and group columns");
        int want_group = t->nranks >= 2 ? 2 : 1;
        while (size_col >= 0 && group_col >= 0 && fgets(line, sizeof line, f)) {
            char *field[128];
            int n = split_fields(line, field, 128);
            if (n <= group_col || n <= size_col)
                continue;
            long long size = atoll(field[size_col]), nx = atoll(field[nx_col]);
            TU_CHECK(t,
                     (size == 1024 || size == 12 || size == 4096)
                         && nx * 4 == size * t->nranks,
                     "row size %lld bytes per rank, nx %lld", size, nx);
            if (strcmp(field[strat_col], "subgroup") == 0)
                TU_CHECK(t, atoi(field[group_col]) == want_group, "subgroup row group %s",
                         field[group_col]);
        }
    }
    if (f != NULL)
        fclose(f);
    /* sizes that do not hold whole elements, and malformed ones */
    collio_bench_config_init(&c);
    char *bad1[] = {"collio-bench", "small", "--sizes", "1X"};
    TU_CHECK(t, collio_bench_parse(4, bad1, &c, NULL, err, sizeof err) == 2,
             "--sizes 1X is a usage error");
    char *bad2[] = {"collio-bench", "small", "--inner", "block"};
    TU_CHECK(t, collio_bench_parse(4, bad2, &c, NULL, err, sizeof err) == 2,
             "--inner block is a usage error");
    /* flags without a value take none: each is seen, in any order */
    collio_bench_config_init(&c);
    char *flags[] = {"collio-bench", "small", "--quiet",
                     "--settle",     "--h5",  "--no-verify"};
    TU_CHECK(
        t,
        collio_bench_parse(6, flags, &c, NULL, err, sizeof err) == 0 && c.progress == 0
            && c.settle == 1 && c.h5 == 1 && c.verify == 0,
        "--quiet --settle --h5 --no-verify: progress %d settle %d h5 %d verify %d (%s)",
        c.progress, c.settle, c.h5, c.verify, err);
    tu_remove(t, csv);
}

/* The sparse workload: the vector with every K-th block a hole (here K = 3,
 * through the command line); every canonical file must hold the pattern
 * where held and zero bytes in the holes (the bench's own check), every
 * read-back verify; the CSV's hole_every column is K in every row. */
static void test_sparse(tu_ctx *t)
{
    tu_case(t, "sparse workload, every strategy, --hole-every 3, write and read");
    char csv[1024];
    tu_temp_path(t, "sparse.csv", csv, sizeof csv);
    collio_bench_config c;
    base_config(t, &c, csv);
    char err[256] = "";
    char *argv[] = {"collio-bench", "sparse",    "--nx",         "20011",
                    "--bx",         "1,13,4096", "--hole-every", "3"};
    int prc = collio_bench_parse(8, argv, &c, NULL, err, sizeof err);
    if (!TU_CHECK(t, prc == 0, "parse: %s", err))
        return;
    TU_CHECK(t,
             c.workload == COLLIO_BENCH_SPARSE && c.nx == 20011 && c.nbx == 3
                 && c.hole_every == 3,
             "parsed sparse options");
    c.progress = 0;
    c.table_out = NULL;
    collio_bench_summary sum;
    int rc = collio_bench_run(t->comm, &c, &sum);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_bench_run"))
        return;
    int nstrat = collio_strategy_count(), ncanon = 0;
    for (int i = 0; i < nstrat; i++)
        ncanon += collio_strategy_is_canonical(collio_strategy_name(i)) == 1;
    int want_runs = c.nbx * nstrat * c.reps * 2;
    TU_CHECK(t, sum.runs == want_runs && sum.failed == 0 && sum.errors == 0,
             "runs %d (want %d), failed %d, errors %d", sum.runs, want_runs, sum.failed,
             sum.errors);
    TU_CHECK(t, sum.verified >= c.nbx * ncanon * c.reps * 2,
             "verified %d, want >= %d (every canonical write and read)", sum.verified,
             c.nbx * ncanon * c.reps * 2);
    check_csv(t, csv, want_runs);
    FILE *f = t->rank == 0 ? fopen(csv, "r") : NULL;
    char line[4096];
    if (f != NULL && fgets(line, sizeof line, f)) {
        int k_col = column_of(line, "hole_every"), w_col = column_of(line, "workload");
        TU_CHECK(t, k_col >= 0 && w_col >= 0, "CSV has hole_every and workload columns");
        while (k_col >= 0 && w_col >= 0 && fgets(line, sizeof line, f)) {
            char *field[128];
            int n = split_fields(line, field, 128);
            if (n > k_col && n > w_col)
                TU_CHECK(
                    t,
                    strcmp(field[w_col], "sparse") == 0 && strcmp(field[k_col], "3") == 0,
                    "row workload '%s', hole_every '%s'", field[w_col], field[k_col]);
        }
    }
    if (f != NULL)
        fclose(f);
    collio_bench_config_init(&c);
    char *bad[] = {"collio-bench", "sparse", "--hole-every", "1"};
    TU_CHECK(t, collio_bench_parse(4, bad, &c, NULL, err, sizeof err) == 2,
             "--hole-every 1 is a usage error");
    tu_remove(t, csv);
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_bench");
    test_vector(&t);
    test_array(&t);
    test_small(&t);
    test_sparse(&t);
    test_write_rounds(&t);
    test_exchange(&t);
    test_unknown_strategy(&t);
    return tu_finish(&t);
}
