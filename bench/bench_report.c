/*
 * bench_report.c -- what collio-bench prints: one CSV row per run (column
 * names are an interface: later versions add columns, never rename them)
 * and, at the end, a table of median times per case x strategy with the
 * ratio to `block`, the physical limit every strategy is compared to.
 */
#include "bench_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The columns, in order; after them `hints` and the extra statistics.
 * The ones bench_columns.c knows show a section's statistic; the others
 * are the run's own (bench_csv_row). */
static const char *const csv_columns[] = {"workload",
                                          "strategy",
                                          "ranks",
                                          "nx",
                                          "bx",
                                          "rep",
                                          "op",
                                          "inspect_s",
                                          "exchange_s",
                                          "file_s",
                                          "total_s",
                                          "verified",
                                          "phases",
                                          "bytes_sent",
                                          "messages",
                                          "file_requests",
                                          "peak_rss_mb",
                                          "phase0_s",
                                          "phase1_s",
                                          "phase2_s",
                                          "phase3_s",
                                          "phase4_s",
                                          "phase5_s",
                                          "phase6_s",
                                          "phase7_s",
                                          "shape",
                                          "esize",
                                          "backend",
                                          "file_requests_max",
                                          "file_bytes",
                                          "plan_bytes_max",
                                          "extra_rss_mb",
                                          "local_mb",
                                          "destroy_input",
                                          "copy_s",
                                          "work_mb",
                                          "rounds",
                                          "variant",
                                          "exchange",
                                          "shared_memory",
                                          "warmup_s",
                                          "size",
                                          "group",
                                          "split_s",
                                          "gather_s",
                                          "replicas",
                                          "load",
                                          "nodes",
                                          "intervals_per_rank",
                                          "avg_interval",
                                          "replicated_pct",
                                          "lb_pct",
                                          "classify_s",
                                          "schedule_s",
                                          "fill_bytes",
                                          "nodes_spanned",
                                          "messages_offnode",
                                          "bytes_offnode",
                                          "messages_offnode_max",
                                          "fs_type",
                                          "fs_mount",
                                          "fs_source",
                                          "fs_magic",
                                          "hole_every",
                                          "create_s"};
enum { NCSV = (int)(sizeof csv_columns / sizeof csv_columns[0]) };

/* The statistics that get a column named by their key: every one of one
 * value but section "plan"'s (the fields of collio_stats, which the
 * run's own columns show: inspect_s, ..., plan_bytes as plan_bytes_max,
 * work_bytes as work_mb, nnodes as nodes_spanned) and those
 * bench_columns.c shows under a name of their own. */
int bench_extra_stats(const char **keys, int max)
{
    int n = 0;
    for (int i = 0; i < collio_stat_count() && n < max; i++) {
        collio_stat_info st;
        if (collio_stat_describe(i, &st) != COLLIO_OK)
            continue;
        int shown = st.count > 1 || strchr(st.key, '.') == NULL;
        for (int k = 0; k < bench_stat_column_count() && !shown; k++)
            shown = strcmp(bench_stat_column_key(k), st.key) == 0;
        if (!shown)
            keys[n++] = st.key;
    }
    return n;
}

FILE *bench_csv_open(const char *path, const char *const *extra, int nextra)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    for (int i = 0; i < NCSV; i++)
        fprintf(f, "%s%s", i ? "," : "", csv_columns[i]);
    fputs(",hints", f);
    for (int i = 0; i < nextra; i++)
        fprintf(f, ",%s", extra[i]);
    fputc('\n', f);
    fflush(f);
    return f;
}

/* A statistic's value: an integer as one, else 6 significant digits. */
static void put_stat(FILE *f, double v)
{
    if (v == (double)(int64_t)v && v > -9.0e15 && v < 9.0e15)
        fprintf(f, ",%lld", (long long)v);
    else
        fprintf(f, ",%.6g", v);
}

/* A CSV field in double quotes (quotes inside doubled). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Column NAME of the run's own (not a statistic of a section). */
static void put_own(FILE *f, const char *name, const collio_bench_config *cfg,
                    const bench_fs *fs, int nranks, const bench_case *c,
                    const bench_variant *v, const bench_row *r)
{
#define IS(n) (strcmp(name, n) == 0)
    const int replicated = bench_stat_column_value(r->stat, "replicas") > 0;
    if (IS("workload"))
        fputs(bench_workload_of(cfg->workload)->name, f);
    else if (IS("strategy"))
        fputs(v->strategy, f);
    else if (IS("ranks"))
        fprintf(f, "%d", nranks);
    else if (IS("nx") || (IS("nodes") && replicated)) /* mesh: nodes = elements */
        fprintf(f, "%lld", (long long)c->nx);
    else if (IS("bx"))
        fprintf(f, "%lld", (long long)c->bx);
    else if (IS("rep"))
        fprintf(f, "%d", r->rep);
    else if (IS("op"))
        fputs(r->op == BENCH_OP_READ ? "read" : "write", f);
    else if (IS("inspect_s") || IS("exchange_s") || IS("file_s") || IS("total_s")
             || IS("copy_s") || IS("warmup_s") || IS("create_s"))
        fprintf(f, "%.6f",
                IS("inspect_s")    ? r->inspect_s
                : IS("exchange_s") ? r->exchange_s
                : IS("file_s")     ? r->file_s
                : IS("total_s")    ? r->total_s
                : IS("copy_s")     ? r->copy_s
                : IS("warmup_s")   ? r->warmup_s
                                   : r->create_s);
    else if (IS("verified")) {
        if (r->verified >= 0)
            fprintf(f, "%d", r->verified);
    } else if (IS("bytes_sent") || IS("messages") || IS("file_requests")
               || IS("file_requests_max") || IS("file_bytes") || IS("plan_bytes_max")
               || IS("messages_offnode") || IS("bytes_offnode")
               || IS("messages_offnode_max"))
        fprintf(f, "%lld",
                (long long)(IS("bytes_sent")          ? r->bytes_sent
                            : IS("messages")          ? r->messages
                            : IS("file_requests")     ? r->file_requests
                            : IS("file_requests_max") ? r->file_requests_max
                            : IS("file_bytes")        ? r->file_bytes
                            : IS("plan_bytes_max")    ? r->plan_bytes_max
                            : IS("messages_offnode")  ? r->messages_offnode
                            : IS("bytes_offnode")     ? r->bytes_offnode
                                                      : r->messages_offnode_max));
    else if (IS("peak_rss_mb") || IS("extra_rss_mb") || IS("local_mb") || IS("work_mb"))
        fprintf(f, "%.1f",
                IS("peak_rss_mb")    ? r->peak_rss_mb
                : IS("extra_rss_mb") ? r->extra_rss_mb
                : IS("local_mb")     ? r->local_mb
                                     : r->work_mb);
    else if (IS("shape"))
        fputs(c->shape ? c->shape->name : "", f);
    else if (IS("esize"))
        fprintf(f, "%zu", bench_case_esize(c, cfg));
    else if (IS("backend"))
        fputs(cfg->backend == COLLIO_BACKEND_MPIIO ? "mpiio" : "posix", f);
    else if (IS("destroy_input"))
        fprintf(f, "%d", v->destroy_input);
    else if (IS("variant")) /* quoted: "multiphase(k=2,r=3)" has a comma */
        fprintf(f, "\"%s\"", v->label);
    else if (IS("size") && c->size > 0)
        fprintf(f, "%lld", (long long)c->size);
    else if (IS("load") && replicated)
        fprintf(f, "%lld", (long long)c->load);
    else if (IS("nodes_spanned"))
        fprintf(f, "%d", r->nnodes);
    else if (IS("fs_type") || IS("fs_mount")
             || IS("fs_source")) /* where the file lived */
        put_quoted(f, IS("fs_type") ? fs->type : IS("fs_mount") ? fs->mount : fs->source);
    else if (IS("fs_magic"))
        fprintf(f, "0x%lx", fs->magic);
    else if (IS("hole_every") && c->hole_every > 0) /* sparse: every hole_every-th
                                                       block a hole */
        fprintf(f, "%lld", (long long)c->hole_every);
#undef IS
}

void bench_csv_row(FILE *f, const collio_bench_config *cfg, const bench_fs *fs,
                   int nranks, const bench_case *c, const bench_variant *v,
                   const bench_row *r, int nextra)
{
    for (int i = 0; i < NCSV; i++) {
        if (i > 0)
            fputc(',', f);
        if (!bench_stat_column_put(f, csv_columns[i], r->stat))
            put_own(f, csv_columns[i], cfg, fs, nranks, c, v, r);
    }
    /* the plan's hints that differ from the defaults: "K=V;K=V" (no comma
       in a hint's text) */
    fputc(',', f);
    fputs(v->hints_text, f);
    for (int i = 0; i < nextra; i++)
        put_stat(f, r->extra != NULL ? r->extra[i] : 0.0);
    fputc('\n', f);
    fflush(f);
}

/* Medians over the runs of (case, variant, op): med[0..3] = total_s,
 * inspect_s, exchange_s, file_s. Returns how many runs there were and
 * the verification verdict over them (ok only if every run verified). */
static int group_stats(const bench_row *rows, int nrows, int ci, int vi, int op,
                       double *tmp, double med[4], const char **verdict)
{
    int n = 0, ok = 0, bad = 0;
    for (int f = 0; f < 4; f++) {
        n = ok = bad = 0;
        for (int i = 0; i < nrows; i++) {
            const bench_row *r = &rows[i];
            if (r->ci != ci || r->vi != vi || r->op != op)
                continue;
            tmp[n++] = f == 0   ? r->total_s
                       : f == 1 ? r->inspect_s
                       : f == 2 ? r->exchange_s
                                : r->file_s;
            ok += r->verified == 1;
            bad += r->verified == 0;
        }
        med[f] = bench_median(tmp, n);
    }
    *verdict = bad ? "FAIL" : ok == n && n > 0 ? "ok" : "-";
    return n;
}

/* Strategy auto: "auto>multiphase", what its runs of (case, variant, op)
 * ran ("auto>a|b" where they differ). */
static void append_auto_choice(const bench_row *rows, int nrows, int ci, int vi, int op,
                               char *label, size_t n)
{
    int first = -1, mixed = -1;
    for (int i = 0; i < nrows; i++) {
        const bench_row *r = &rows[i];
        if (r->ci != ci || r->vi != vi || r->op != op || r->auto_choice < 0)
            continue;
        if (first < 0)
            first = r->auto_choice;
        else if (r->auto_choice != first)
            mixed = r->auto_choice;
    }
    /* (a candidate c is value c + 1 of hint auto.only) */
    const char *a = collio_option_value_name("auto.only", first + 1);
    const char *b = mixed >= 0 ? collio_option_value_name("auto.only", mixed + 1) : NULL;
    if (first < 0 || a == NULL)
        return;
    size_t len = strlen(label);
    snprintf(label + len, n - len, ">%s%s%s", a, b != NULL ? "|" : "",
             b != NULL ? b : "");
}

void bench_print_table(FILE *out, const collio_bench_config *cfg, const bench_fs *fs,
                       int nranks, const bench_case *cases, int ncases,
                       const bench_variant *vars, int nvars, const bench_row *rows,
                       int nrows)
{
    double *tmp = malloc(sizeof *tmp * (size_t)(nrows > 0 ? nrows : 1));
    if (!tmp)
        return;
    const bench_workload_ops *w = bench_workload_of(cfg->workload);
    fprintf(out, "\ncollio-bench %s: ", w->name);
    if (cfg->workload == COLLIO_BENCH_VECTOR || cfg->workload == COLLIO_BENCH_SPARSE)
        fprintf(out, "nx=%lld ", (long long)cfg->nx);
    if (cfg->workload == COLLIO_BENCH_SPARSE)
        fprintf(out, "holes=1/%lld ", (long long)cfg->hole_every);
    fprintf(out, "esize=%zu ranks=%d reps=%d backend=%s\n", cfg->esize, nranks, cfg->reps,
            cfg->backend == COLLIO_BACKEND_MPIIO ? "mpiio" : "posix");
    fprintf(out, "file system: %s, %s on %s\n", fs->type,
            fs->source[0] ? fs->source : "?", fs->mount[0] ? fs->mount : "?");
    fprintf(out, "median_s: whole collio_write/collio_read call, max over "
                 "ranks, median over reps; x block: ratio to block's median;\n"
                 "exchange_s, file_s: its parts; inspect_s: plan creation "
                 "(once per plan, not in median_s)\n");
    if (cfg->warmup > 0)
        fprintf(out,
                "each plan ran %d untimed warm-up call%s first (warmup_s "
                "in the CSV)\n",
                cfg->warmup, cfg->warmup > 1 ? "s" : "");
    for (int op = 0; op <= 1; op++) {
        if ((op == BENCH_OP_WRITE && !cfg->do_write)
            || (op == BENCH_OP_READ && !cfg->do_read))
            continue;
        fprintf(out, "\n%-5s  %-14s %-24s %10s %9s %10s %10s %10s %4s  %s\n", "op",
                w->case_column, "strategy", "median_s", "x block", "exchange_s", "file_s",
                "inspect_s", "reps", "verified");
        for (int ci = 0; ci < ncases; ci++) {
            double block_med = 0.0, med[4];
            const char *verdict;
            for (int vi = 0; vi < nvars; vi++)
                if (strcmp(vars[vi].strategy, "block") == 0
                    && group_stats(rows, nrows, ci, vi, op, tmp, med, &verdict))
                    block_med = med[0];
            for (int vi = 0; vi < nvars; vi++) {
                int n = group_stats(rows, nrows, ci, vi, op, tmp, med, &verdict);
                char label[sizeof vars[vi].label + 40];
                snprintf(label, sizeof label, "%s%s", vars[vi].label,
                         vars[vi].canonical ? "" : " (not canonical)");
                append_auto_choice(rows, nrows, ci, vi, op, label, sizeof label);
                if (n == 0) {
                    fprintf(out, "%-5s  %-14s %-24s %10s %9s %10s %10s %10s %4d  %s\n",
                            op ? "read" : "write", cases[ci].label, label, "-", "-", "-",
                            "-", "-", 0, "no runs");
                    continue;
                }
                char ratio[32] = "-";
                if (block_med > 0.0)
                    snprintf(ratio, sizeof ratio, "%.2f", med[0] / block_med);
                fprintf(out,
                        "%-5s  %-14s %-24s %10.5f %9s %10.5f %10.5f %10.5f %4d  %s\n",
                        op ? "read" : "write", cases[ci].label, label, med[0], ratio,
                        med[2], med[3], med[1], n, verdict);
            }
        }
    }
    fflush(out);
    free(tmp);
}
