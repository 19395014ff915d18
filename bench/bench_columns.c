/*
 * bench_columns.c -- the CSV columns that show a section's statistic (a
 * strategy's, the replica policy's) under a name of their own: `phases`
 * for multiphase.nphases, `replicas` for replicas.policy, ... They date
 * from before the statistics catalogue and scripts read them by name, so
 * they stay; this table is all the bench knows of them. How each is
 * reduced over ranks and printed is data here, not code: a new statistic
 * needs no line (it gets a column named by its key, bench_report.c).
 */
#include "bench_internal.h"

#include <string.h>

typedef enum { RED_MAX, RED_SUM } col_reduce;
typedef enum {
    FMT_INT,  /* a whole number */
    FMT_F6,   /* seconds, %.6f */
    FMT_F2,   /* %.2f */
    FMT_NAME, /* the value's name (the key is also an option of type name) */
} col_format;

typedef struct stat_column {
    const char *column;
    const char *key;   /* the statistic */
    int index;         /* of a statistic of many values: which */
    col_reduce reduce; /* over ranks */
    col_format format;
    const char *only;   /* non-NULL: only the ranks where this statistic is
                           not 0 count (the others give 0) */
    const char *unless; /* non-NULL: the column is empty unless the value
                           of column `unless` exceeds `above` */
    int above;
} stat_column;

/* In the CSV's order (bench_report.c places them among its own). */
static const stat_column columns[] = {
    {"phases", "multiphase.nphases", 0, RED_MAX, FMT_INT, NULL, NULL, 0},
    {"phase0_s", "multiphase.phase_s", 0, RED_MAX, FMT_F6, NULL, "phases", 0},
    {"phase1_s", "multiphase.phase_s", 1, RED_MAX, FMT_F6, NULL, "phases", 1},
    {"phase2_s", "multiphase.phase_s", 2, RED_MAX, FMT_F6, NULL, "phases", 2},
    {"phase3_s", "multiphase.phase_s", 3, RED_MAX, FMT_F6, NULL, "phases", 3},
    {"phase4_s", "multiphase.phase_s", 4, RED_MAX, FMT_F6, NULL, "phases", 4},
    {"phase5_s", "multiphase.phase_s", 5, RED_MAX, FMT_F6, NULL, "phases", 5},
    {"phase6_s", "multiphase.phase_s", 6, RED_MAX, FMT_F6, NULL, "phases", 6},
    {"phase7_s", "multiphase.phase_s", 7, RED_MAX, FMT_F6, NULL, "phases", 7},
    {"rounds", "multiphase.nrounds", 0, RED_MAX, FMT_INT, NULL, NULL, 0},
    {"exchange", "multiphase.exchange", 0, RED_MAX, FMT_NAME, NULL, "exchange", 0},
    {"shared_memory", "multiphase.shared_memory", 0, RED_MAX, FMT_INT, NULL, NULL, 0},
    {"group", "subgroup.group", 0, RED_MAX, FMT_INT, NULL, NULL, 0},
    {"split_s", "subgroup.split_s", 0, RED_MAX, FMT_F6, NULL, NULL, 0},
    /* the gather / scatter as the masters see it: a member's gather_s of a
       read includes waiting for its master's file access */
    {"gather_s", "subgroup.gather_s", 0, RED_MAX, FMT_F6, "subgroup.master", NULL, 0},
    {"replicas", "replicas.policy", 0, RED_MAX, FMT_NAME, NULL, "replicas", 0},
    {"intervals_per_rank", "replicas.intervals_per_rank", 0, RED_MAX, FMT_F2, NULL,
     "replicas", 0},
    {"avg_interval", "replicas.avg_interval", 0, RED_MAX, FMT_F2, NULL, "replicas", 0},
    {"replicated_pct", "replicas.replicated_pct", 0, RED_MAX, FMT_F2, NULL, "replicas",
     0},
    {"lb_pct", "replicas.lb_pct", 0, RED_MAX, FMT_F2, NULL, "replicas", 0},
    {"classify_s", "replicas.classify_s", 0, RED_MAX, FMT_F6, NULL, "replicas", 0},
    {"schedule_s", "replicas.schedule_s", 0, RED_MAX, FMT_F6, NULL, "replicas", 0},
    {"fill_bytes", "replicas.fill_bytes", 0, RED_SUM, FMT_INT, NULL, "replicas", 0},
};
enum { NCOLUMNS = (int)(sizeof columns / sizeof columns[0]) };
_Static_assert((int)NCOLUMNS <= (int)BENCH_STAT_COLUMNS,
               "bench_row.stat holds every column");

int bench_stat_column_count(void)
{
    return NCOLUMNS;
}

const char *bench_stat_column_key(int i)
{
    return i >= 0 && i < NCOLUMNS ? columns[i].key : NULL;
}

static int column_index(const char *column)
{
    for (int i = 0; i < NCOLUMNS; i++)
        if (strcmp(columns[i].column, column) == 0)
            return i;
    return -1;
}

/* This rank's value of column i (0 where the plan has no such statistic:
 * its strategy did not run). */
static double local_value(const collio_plan *plan, int i)
{
    const stat_column *c = &columns[i];
    double v = 0, only = 1, vals[64];
    if (c->only != NULL && collio_plan_stat(plan, c->only, &only) != COLLIO_OK)
        only = 0;
    if (only == 0)
        return 0;
    int n = 0;
    if (collio_plan_stat_values(plan, c->key, vals, 64, &n) != COLLIO_OK)
        return 0;
    if (c->index < n && c->index < 64)
        v = vals[c->index];
    return v;
}

void bench_stat_columns_reduce(MPI_Comm comm, const collio_plan *plan, double *out)
{
    double mx[NCOLUMNS], sm[NCOLUMNS], gmx[NCOLUMNS], gsm[NCOLUMNS];
    for (int i = 0; i < NCOLUMNS; i++) {
        const double v = local_value(plan, i);
        mx[i] = columns[i].reduce == RED_MAX ? v : 0;
        sm[i] = columns[i].reduce == RED_SUM ? v : 0;
    }
    MPI_Allreduce(mx, gmx, NCOLUMNS, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(sm, gsm, NCOLUMNS, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < NCOLUMNS; i++)
        out[i] = columns[i].reduce == RED_MAX ? gmx[i] : gsm[i];
}

double bench_stat_column_value(const double *vals, const char *column)
{
    int i = column_index(column);
    return i >= 0 ? vals[i] : 0;
}

int bench_stat_column_put(FILE *f, const char *column, const double *vals)
{
    int i = column_index(column);
    if (i < 0)
        return 0;
    const stat_column *c = &columns[i];
    if (c->unless != NULL && !(bench_stat_column_value(vals, c->unless) > c->above))
        return 1; /* empty */
    const double v = vals[i];
    switch (c->format) {
    case FMT_INT:
        fprintf(f, "%lld", (long long)v);
        break;
    case FMT_F6:
        fprintf(f, "%.6f", v);
        break;
    case FMT_F2:
        fprintf(f, "%.2f", v);
        break;
    case FMT_NAME: {
        const char *name = collio_option_value_name(c->key, (int)v);
        fputs(name != NULL ? name : "", f);
        break;
    }
    }
    return 1;
}
