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

static const char *csv_header =
    "workload,strategy,ranks,nx,bx,rep,op,inspect_s,exchange_s,file_s,"
    "total_s,verified,phases,bytes_sent,messages,file_requests,peak_rss_mb,"
    "phase0_s,phase1_s,phase2_s,phase3_s,phase4_s,phase5_s,phase6_s,"
    "phase7_s,shape,esize,backend,file_requests_max,file_bytes,"
    "plan_bytes_max,extra_rss_mb,local_mb,destroy_input,copy_s,work_mb,rounds,"
    "variant,exchange,shared_memory,warmup_s,size,group,split_s,gather_s,"
    "replicas,load,nodes,intervals_per_rank,avg_interval,replicated_pct,lb_pct,"
    "classify_s,schedule_s,fill_bytes,nodes_spanned,messages_offnode,bytes_offnode,"
    "messages_offnode_max,fs_type,fs_mount,fs_source,fs_magic,hole_every,create_s\n";

/* The statistics the fixed columns show (by their own name or another:
 * nphases is `phases`, plan_bytes `plan_bytes_max`, work_bytes `work_mb`,
 * nrounds `rounds`, nnodes `nodes_spanned`, replicas.policy `replicas`,
 * multiphase.exchange `exchange`, subgroup.group `group`, ...). Every
 * other statistic of the catalogue gets a column named by its key, after
 * `hints`. */
static const char *const fixed_stats[] = {
    "inspect_s",
    "exchange_s",
    "copy_s",
    "file_s",
    "total_s",
    "bytes_sent",
    "messages",
    "file_requests",
    "file_bytes",
    "nphases",
    "plan_bytes",
    "work_bytes",
    "nrounds",
    "nnodes",
    "messages_offnode",
    "bytes_offnode",
    "replicas.policy",
    "replicas.intervals_per_rank",
    "replicas.avg_interval",
    "replicas.replicated_pct",
    "replicas.lb_pct",
    "replicas.classify_s",
    "replicas.schedule_s",
    "replicas.fill_bytes",
    "multiphase.exchange",
    "multiphase.shared_memory",
    "subgroup.split_s",
    "subgroup.gather_s",
    "subgroup.group",
};

int bench_extra_stats(const char **keys, int max)
{
    int n = 0;
    for (int i = 0; i < collio_stat_count() && n < max; i++) {
        collio_stat_info st;
        if (collio_stat_describe(i, &st) != COLLIO_OK)
            continue;
        int fixed = 0;
        for (size_t k = 0; k < sizeof fixed_stats / sizeof fixed_stats[0] && !fixed; k++)
            fixed = strcmp(fixed_stats[k], st.key) == 0;
        if (!fixed)
            keys[n++] = st.key;
    }
    return n;
}

FILE *bench_csv_open(const char *path, const char *const *extra, int nextra)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fwrite(csv_header, 1, strlen(csv_header) - 1, f); /* without its newline */
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

void bench_csv_row(FILE *f, const collio_bench_config *cfg, const bench_fs *fs,
                   int nranks, const bench_case *c, const bench_variant *v,
                   const bench_row *r, int nextra)
{
    fprintf(f, "%s,%s,%d,%lld,%lld,%d,%s,%.6f,%.6f,%.6f,%.6f,",
            bench_workload_of(cfg->workload)->name, v->strategy, nranks, (long long)c->nx,
            (long long)c->bx, r->rep, r->op == BENCH_OP_READ ? "read" : "write",
            r->inspect_s, r->exchange_s, r->file_s, r->total_s);
    if (r->verified >= 0)
        fprintf(f, "%d", r->verified);
    fprintf(f, ",%d,%lld,%lld,%lld,%.1f", r->nphases, (long long)r->bytes_sent,
            (long long)r->messages, (long long)r->file_requests, r->peak_rss_mb);
    for (int i = 0; i < COLLIO_BENCH_PHASE_COLS; i++) {
        if (i < r->nphases)
            fprintf(f, ",%.6f", r->phase_s[i]);
        else
            fputc(',', f);
    }
    /* (the variant label is quoted: "multiphase(k=2,r=3)" has a comma) */
    fprintf(f, ",%s,%zu,%s,%lld,%lld,%lld,%.1f,%.1f,%d,%.6f,%.1f,%d,\"%s\",%s,%d,%.6f,",
            c->shape ? c->shape->name : "", bench_case_esize(c, cfg),
            cfg->backend == COLLIO_BACKEND_MPIIO ? "mpiio" : "posix",
            (long long)r->file_requests_max, (long long)r->file_bytes,
            (long long)r->plan_bytes_max, r->extra_rss_mb, r->local_mb, v->destroy_input,
            r->copy_s, r->work_mb, r->nrounds, v->label,
            r->exchange > 0 ? collio_option_value_name("multiphase.exchange", r->exchange)
                            : "",
            r->shared_memory, r->warmup_s);
    if (c->size > 0)
        fprintf(f, "%lld", (long long)c->size);
    fprintf(f, ",%d,%.6f,%.6f,", r->group, r->split_s, r->gather_s);
    /* replicated layouts (the mesh workload); empty otherwise */
    const __typeof__(r->replicas) *rs = &r->replicas;
    if (rs->policy > 0)
        fprintf(f, "%s,%lld,%lld,%.2f,%.2f,%.2f,%.2f,%.6f,%.6f,%lld,",
                collio_option_value_name("replicas.policy", rs->policy),
                (long long)c->load, (long long)c->nx, rs->intervals_per_rank,
                rs->avg_interval, rs->replicated_pct, rs->lb_pct, rs->classify_s,
                rs->schedule_s, (long long)rs->fill_bytes);
    else
        fputs(",,,,,,,,,,", f);
    fprintf(f, "%d,%lld,%lld,%lld,", r->nnodes, (long long)r->messages_offnode,
            (long long)r->bytes_offnode, (long long)r->messages_offnode_max);
    /* where the file lived */
    put_quoted(f, fs->type);
    fputc(',', f);
    put_quoted(f, fs->mount);
    fputc(',', f);
    put_quoted(f, fs->source);
    fprintf(f, ",0x%lx,", fs->magic);
    /* sparse: every hole_every-th block a hole; empty otherwise */
    if (c->hole_every > 0)
        fprintf(f, "%lld", (long long)c->hole_every);
    fprintf(f, ",%.6f,", r->create_s);
    /* the plan's hints that differ from the defaults: "K=V;K=V" (no comma
       in a hint's text) */
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
