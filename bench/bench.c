/*
 * bench.c -- the collio-bench driver, collio_bench_run(): for each case
 * (vector bx or array shape) it builds the layout and one plan per strategy
 * variant (the inspector, timed by the library), then for each rep and
 * variant: fills the buffer with pattern data (seed = rep, so every rep
 * writes different bytes), removes the previous file (as IOR does),
 * barrier, collio_write into a CREATE (atomic) file, close, verifies the
 * file with plain pread (canonical strategies), and, with --ops read,
 * collio_read through the same plan into a zeroed buffer and compares it
 * with the pattern. Reps are the outer loop so that noise (page-cache
 * writeback, other processes) spreads over all variants.
 * Times come from collio_plan_stats, reduced MAX over ranks.
 *
 * Every MPI/collio call here is made by all ranks in the same order; every
 * collio call agrees on its result, so a failing run is skipped by all
 * ranks together and the bench goes on with the next one.
 */
#include "bench_internal.h"

#include <ctype.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_VARIANTS (4 * COLLIO_BENCH_MAX_LIST)

typedef struct bench_ctx {
    MPI_Comm comm;
    int rank, nranks;
    const collio_bench_config *cfg;
    bench_case cases[COLLIO_BENCH_MAX_LIST];
    int ncases;
    bench_variant vars[MAX_VARIANTS];
    int nvars;
    bench_sweep sweeps[BENCH_MAX_SWEEPS]; /* the options swept */
    int nsweeps;
    collio_hints *global;    /* every variant's: --destroy-input, --hints */
    const char **extra_keys; /* statistics without a fixed CSV column */
    int nextra;
    double *extra_local, *extra_max; /* theirs in the last run: this rank's,
                                        max over ranks */
    bench_row *rows;
    int nrows, cap;
    FILE *csv;   /* rank 0 */
    bench_fs fs; /* rank 0: the file system of cfg->dir */
    char path[COLLIO_BENCH_PATH_LEN + 64];
    collio_bench_summary sum;
} bench_ctx;

static void note_plan_hints(bench_variant *v, const collio_plan *plan);

static void say_error(bench_ctx *x, const bench_case *c, const bench_variant *v,
                      const char *what, int rc)
{
    x->sum.errors++;
    if (x->rank == 0)
        fprintf(stderr, "collio-bench: %s%s%s %s: %s: %s (%s)\n",
                c->shape ? "" : bench_workload_of(x->cfg->workload)->case_column,
                c->shape ? "" : "=", c->label, v ? v->label : "", what,
                collio_strerror(rc), collio_last_error());
}

/* Memory of this rank before a call: freed heap memory is handed back
 * first, so that VmHWM - VmRSS counts what the call itself added. */
static double rss_before_call(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    bench_reset_peak();
    return bench_vm_kb("VmRSS");
}

/* A statistic of the plan by key (0 where the plan has no such one). */
static double stat(const collio_plan *plan, const char *key)
{
    double v = 0;
    return collio_plan_stat(plan, key, &v) == COLLIO_OK ? v : 0;
}

/* Reduces this rank's figures of the last execution of plan into *r. */
static void reduce_row(bench_ctx *x, const collio_plan *plan, double rss0_kb,
                       double hwm_kb, size_t local_bytes, bench_row *r)
{
    collio_stats st;
    memset(&st, 0, sizeof st);
    collio_plan_stats(plan, &st);
    enum { NMAX = 12 };
    double mx[NMAX] = {st.inspect_s,
                       st.exchange_s,
                       st.file_s,
                       st.total_s,
                       hwm_kb / 1024.0,
                       (hwm_kb - rss0_kb) / 1024.0,
                       (double)local_bytes / (1024.0 * 1024.0),
                       (double)st.file_requests,
                       (double)st.plan_bytes,
                       st.copy_s,
                       (double)st.work_bytes / (1024.0 * 1024.0),
                       (double)st.messages_offnode};
    double gmx[NMAX];
    MPI_Allreduce(mx, gmx, NMAX, MPI_DOUBLE, MPI_MAX, x->comm);
    int64_t sm[6] = {st.bytes_sent, st.messages,      st.file_requests,
                     st.file_bytes, st.bytes_offnode, st.messages_offnode};
    int64_t gsm[6];
    MPI_Allreduce(sm, gsm, 6, MPI_INT64_T, MPI_SUM, x->comm);
    r->bytes_offnode = gsm[4];
    r->messages_offnode = gsm[5];
    r->messages_offnode_max = (int64_t)gmx[11];
    r->nnodes = st.nnodes;
    r->inspect_s = gmx[0];
    r->exchange_s = gmx[1];
    r->file_s = gmx[2];
    r->total_s = gmx[3];
    r->peak_rss_mb = gmx[4];
    r->extra_rss_mb = gmx[5];
    r->local_mb = gmx[6];
    r->file_requests_max = (int64_t)gmx[7];
    r->plan_bytes_max = (int64_t)gmx[8];
    r->copy_s = gmx[9];
    r->work_mb = gmx[10];
    /* the columns that show a strategy's or the replicas' statistics */
    bench_stat_columns_reduce(x->comm, plan, r->stat);
    /* strategy auto: what it ran (the same on every rank) */
    r->auto_choice = -1;
    if (strcmp(collio_plan_strategy(plan), "auto") == 0)
        r->auto_choice = (int)stat(plan, r->op == BENCH_OP_READ ? "auto.read_choice"
                                                                : "auto.write_choice");
    r->bytes_sent = gsm[0];
    r->messages = gsm[1];
    r->file_requests = gsm[2];
    r->file_bytes = gsm[3];
    /* every other statistic of the catalogue, by key (the same keys on
     * every rank: one catalogue) */
    for (int i = 0; i < x->nextra; i++)
        x->extra_local[i] = stat(plan, x->extra_keys[i]);
    if (x->nextra > 0)
        MPI_Allreduce(x->extra_local, x->extra_max, x->nextra, MPI_DOUBLE, MPI_MAX,
                      x->comm);
    r->extra = x->extra_max;
}

static int add_row(bench_ctx *x, const bench_row *r)
{
    if (x->nrows == x->cap) {
        int cap = x->cap ? 2 * x->cap : 64;
        bench_row *p = realloc(x->rows, sizeof *p * (size_t)cap);
        if (!p)
            return COLLIO_ERR_NOMEM;
        x->rows = p;
        x->cap = cap;
    }
    x->rows[x->nrows] = *r;
    x->rows[x->nrows++].extra = NULL; /* valid until the next run: used below */
    x->sum.runs++;
    x->sum.verified += r->verified == 1;
    x->sum.failed += r->verified == 0;
    if (x->csv)
        bench_csv_row(x->csv, x->cfg, &x->fs, x->nranks, &x->cases[r->ci],
                      &x->vars[r->vi], r, x->nextra);
    return COLLIO_OK;
}

/* Collective: opens the run's file with the configured backend; says
 * what failed. Returns the agreed library code. */
static int open_bench_file(bench_ctx *x, const bench_case *c, const bench_variant *v,
                           collio_file_mode mode, collio_file **f)
{
    collio_file_options fo;
    collio_file_options_init(&fo);
    fo.backend = x->cfg->backend;
    int rc = collio_file_open(x->comm, x->path, mode, &fo, f);
    if (rc)
        say_error(x, c, v,
                  mode == COLLIO_FILE_READ ? "collio_file_open(READ)"
                                           : "collio_file_open(CREATE)",
                  rc);
    return rc;
}

/* The timed part of a run: open the file (CREATE to write, READ to read),
 * barrier, the collio call, close; the row gets the reduced stats and the
 * memory the call added. Says what failed; a read the strategy does not
 * support returns COLLIO_ERR_UNSUPPORTED quietly. Returns the agreed code. */
static int timed_call(bench_ctx *x, bench_row *r, collio_plan *plan, unsigned char *buf,
                      size_t bytes)
{
    const bench_case *c = &x->cases[r->ci];
    const bench_variant *v = &x->vars[r->vi];
    const int writing = r->op == BENCH_OP_WRITE;
    collio_file *f = NULL;
    int rc =
        open_bench_file(x, c, v, writing ? COLLIO_FILE_CREATE : COLLIO_FILE_READ, &f);
    if (rc)
        return rc;
    double rss0 = rss_before_call();
    /* --settle: the previous runs' dirty pages (the rename at close starts
     * ext4's writeback of a whole file) written back before the clock
     * starts, so that a run is not charged for another's flusher */
    if (x->cfg->settle)
        sync();
    MPI_Barrier(x->comm);
    rc = writing ? collio_write(plan, f, buf, bytes) : collio_read(plan, f, buf, bytes);
    double hwm = bench_vm_kb("VmHWM");
    int rc2 = collio_file_close(&f);
    reduce_row(x, plan, rss0, hwm, bytes, r);
    if (!writing && rc == COLLIO_ERR_UNSUPPORTED)
        return rc; /* the caller notes it once, not an error */
    if (rc || rc2) {
        say_error(x, c, v,
                  rc ? (writing ? "collio_write" : "collio_read") : "collio_file_close",
                  rc ? rc : rc2);
        return rc ? rc : rc2;
    }
    return COLLIO_OK;
}

/* --h5: the file of the last write of a canonical variant is kept (a hard
 * link, so that reads of the same rep still find x->path) as
 * DIR/collio-bench-CASE-vN.raw, and described for HDF5 tools beside it:
 * float32 or float64 elements by the element size (else bytes, with the
 * element as the fastest dimension); a vector or the small workload as
 * {elements}, a sparse vector as {elements spanned} (zeros in the holes),
 * an array in its Fortran order, a mesh field as {nodes, load}. CASE is
 * the label with anything but letters, digits, '.' and '-' as '_'
 * ("16 holes=1/4" -> "16_holes_1_4"). Collective; the library's agreed
 * code. */
static int keep_h5(bench_ctx *x, const bench_case *c, int vi)
{
    const collio_bench_config *cfg = x->cfg;
    const size_t es = bench_case_esize(c, cfg);
    char name[sizeof c->label];
    snprintf(name, sizeof name, "%s", c->label);
    for (char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
            *p = '_';
    char raw[sizeof cfg->dir + sizeof c->label + 32], h5[sizeof raw + 4];
    snprintf(raw, sizeof raw, "%s/collio-bench-%s-v%d.raw", cfg->dir, name, vi);
    snprintf(h5, sizeof h5, "%s.h5", raw);
    if (x->rank == 0) {
        unlink(raw);
        if (link(x->path, raw) != 0)
            fprintf(stderr, "collio-bench: --h5: cannot link %s to %s\n", x->path, raw);
    }
    int type = es == 4   ? COLLIO_H5_FLOAT32
               : es == 8 ? COLLIO_H5_FLOAT64
                         : COLLIO_H5_UINT8;
    int64_t dims[COLLIO_BENCH_ARRAY_DIMS + 1];
    int nd = 0, fortran = c->shape != NULL;
    if (c->load > 0) { /* mesh: load float64 values per node */
        type = COLLIO_H5_FLOAT64;
        dims[nd++] = c->nx;
        dims[nd++] = c->load;
    } else {
        if (type == COLLIO_H5_UINT8 && fortran)
            dims[nd++] = (int64_t)es; /* Fortran order: the fastest first */
        if (fortran)
            for (int i = 0; i < COLLIO_BENCH_ARRAY_DIMS; i++)
                dims[nd++] = c->shape->gsizes[i];
        else
            dims[nd++] = bench_case_span(c);
        if (type == COLLIO_H5_UINT8 && !fortran)
            dims[nd++] = (int64_t)es;
    }
    return collio_describe_h5(x->comm, h5, raw, 0, type, nd, dims, fortran, "data");
}

/* One write (and its verification). Returns the agreed library code. */
static int run_write(bench_ctx *x, bench_row *r, collio_plan *plan,
                     const collio_layout *l, unsigned char *buf, size_t bytes)
{
    const collio_bench_config *cfg = x->cfg;
    const bench_case *c = &x->cases[r->ci];
    const bench_variant *v = &x->vars[r->vi];
    bench_fill(l, (uint64_t)r->rep, buf);
    /* Every rep writes a fresh file, as IOR does (it removes the file
     * after each write test): CREATE renaming over the previous rep's file
     * would make ext4 (auto_da_alloc) start writing that file back, and
     * the flusher then competes with the next timed run for the cores. */
    if (x->rank == 0)
        unlink(x->path); /* before the collective open renames over it */
    int rc = timed_call(x, r, plan, buf, bytes);
    if (rc)
        return rc;
    r->verified = -1;
    if (v->canonical && cfg->verify) {
        int64_t bad = bench_check_file(x->comm, x->path, c, bench_case_esize(c, cfg),
                                       (uint64_t)r->rep);
        r->verified = bad == 0;
        if (bad && x->rank == 0)
            fprintf(stderr,
                    "collio-bench: %s %s rep %d: file has %lld bad "
                    "elements\n",
                    c->label, v->label, r->rep, (long long)bad);
    }
    if (cfg->h5 && v->canonical && r->rep == cfg->reps - 1)
        return keep_h5(x, c, r->vi);
    return COLLIO_OK;
}

/* One read of the file the last write made (seed r->rep), verified. */
static int run_read(bench_ctx *x, bench_row *r, collio_plan *plan, const collio_layout *l,
                    unsigned char *buf, size_t bytes)
{
    const collio_bench_config *cfg = x->cfg;
    const bench_case *c = &x->cases[r->ci];
    const bench_variant *v = &x->vars[r->vi];
    memset(buf, 0, bytes);
    int rc = timed_call(x, r, plan, buf, bytes);
    if (rc)
        return rc;
    r->verified = -1;
    if (v->canonical && cfg->verify) {
        int64_t bad = bench_check_buffer(l, (uint64_t)r->rep, buf), total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_INT64_T, MPI_SUM, x->comm);
        r->verified = total == 0;
        if (total && x->rank == 0)
            fprintf(stderr,
                    "collio-bench: %s %s rep %d: read back %lld bad "
                    "elements\n",
                    c->label, v->label, r->rep, (long long)total);
    }
    return COLLIO_OK;
}

static const char *verdict(int verified)
{
    return verified == 1 ? "ok" : verified == 0 ? "FAIL" : "-";
}

/* The untimed first calls of every variant of case ci (cfg->warmup): a
 * plan makes its work buffers (multiphase: its shared-memory window) in
 * its first call, and fresh memory faults in page by page; the reps then
 * time the plan as it is reused. The first call's time goes into warm
 * (and the CSV's warmup_s), verified like any other. */
static void warm_up(bench_ctx *x, int ci, collio_plan **plans, int *read_unsupported,
                    double warm[][2], const collio_layout *l, unsigned char *buf,
                    size_t bytes)
{
    const collio_bench_config *cfg = x->cfg;
    for (int k = 0; k < cfg->warmup; k++)
        for (int vi = 0; vi < x->nvars; vi++) {
            if (!plans[vi])
                continue;
            bench_row w = {.ci = ci, .vi = vi, .rep = k, .op = BENCH_OP_WRITE};
            if (run_write(x, &w, plans[vi], l, buf, bytes))
                continue; /* the reps say so again */
            x->sum.failed += w.verified == 0;
            if (k == 0)
                warm[vi][BENCH_OP_WRITE] = w.total_s;
            if (cfg->do_read && !read_unsupported[vi]) {
                bench_row r = {.ci = ci, .vi = vi, .rep = k, .op = BENCH_OP_READ};
                int rrc = run_read(x, &r, plans[vi], l, buf, bytes);
                if (rrc == COLLIO_ERR_UNSUPPORTED)
                    read_unsupported[vi] = 1;
                x->sum.failed += !rrc && r.verified == 0;
                if (k == 0 && !rrc)
                    warm[vi][BENCH_OP_READ] = r.total_s;
            }
        }
}

/* order[0..n-1]: the variants' order in rep `rep` -- 0..n-1 for rep 0,
 * else a Fisher-Yates shuffle driven by xorshift64 seeded with the rep. */
static void bench_variant_order(int *order, int n, int rep)
{
    uint64_t st = 0x9e3779b97f4a7c15ULL * (uint64_t)(rep + 1);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0 && rep > 0; i--) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        int j = (int)(st % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* All reps of all variants of case ci. */
static int run_case(bench_ctx *x, int ci)
{
    const collio_bench_config *cfg = x->cfg;
    const bench_case *c = &x->cases[ci];
    collio_layout *l = NULL;
    int rc = bench_workload_of(cfg->workload)->layout(x->comm, cfg, c, &l);
    if (rc) {
        say_error(x, c, NULL, "layout", rc);
        return COLLIO_OK; /* go on with the next case */
    }
    collio_plan *plans[MAX_VARIANTS] = {0};
    int read_unsupported[MAX_VARIANTS] = {0};
    double spent[MAX_VARIANTS] = {0}; /* agreed times: same on all ranks */
    double create[MAX_VARIANTS] = {0};
    for (int vi = 0; vi < x->nvars; vi++) {
        /* the hints were checked before any run; what the library rejects
         * here (options that do not go together, e.g. exchange=direct with
         * 1 <= phases < all) it rejects on every rank, and the variant is
         * skipped everywhere */
        MPI_Barrier(x->comm);
        double t0 = MPI_Wtime();
        rc = collio_plan_create(x->comm, l, x->vars[vi].strategy, x->vars[vi].hints,
                                &plans[vi]);
        create[vi] = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &create[vi], 1, MPI_DOUBLE, MPI_MAX, x->comm);
        if (rc) {
            say_error(x, c, &x->vars[vi], "collio_plan_create", rc);
            plans[vi] = NULL;
        } else {
            note_plan_hints(&x->vars[vi], plans[vi]);
        }
    }
    size_t bytes = collio_layout_buffer_bytes(l);
    unsigned char *buf = malloc(bytes ? bytes : 1);
    int nomem = !buf, anynomem = 0;
    MPI_Allreduce(&nomem, &anynomem, 1, MPI_INT, MPI_MAX, x->comm);
    rc = COLLIO_OK;
    if (anynomem) {
        say_error(x, c, NULL, "buffer", COLLIO_ERR_NOMEM);
        rc = COLLIO_ERR_NOMEM;
    }
    double warm[MAX_VARIANTS][2] = {{0}}; /* first warm-up call: write, read */
    if (!rc)
        warm_up(x, ci, plans, read_unsupported, warm, l, buf, bytes);
    /* Each rep runs the variants in its own order (rep 0 as given, the
     * others shuffled by a generator seeded with the rep number, the same
     * on every rank): no variant always runs first, after the previous
     * rep's verification and idle network links, or always right after a
     * given other one and the page cache it left, so medians compare
     * variants fairly. */
    int order[MAX_VARIANTS];
    for (int rep = 0; rep < cfg->reps && !rc; rep++) {
        bench_variant_order(order, x->nvars, rep);
        for (int k = 0; k < x->nvars && !rc; k++) {
            const int vi = order[k];
            if (!plans[vi] || (cfg->max_time > 0 && spent[vi] > cfg->max_time))
                continue;
            char line[256];
            bench_row w = {.ci = ci,
                           .vi = vi,
                           .rep = rep,
                           .op = BENCH_OP_WRITE,
                           .warmup_s = warm[vi][BENCH_OP_WRITE],
                           .create_s = create[vi]};
            int wrc = run_write(x, &w, plans[vi], l, buf, bytes);
            spent[vi] += w.total_s;
            int n = snprintf(
                line, sizeof line, "%s%s%s %s rep %d/%d:",
                c->shape ? "" : bench_workload_of(cfg->workload)->case_column,
                c->shape ? "" : "=", c->label, x->vars[vi].label, rep + 1, cfg->reps);
            if (!wrc && cfg->do_write) {
                rc = add_row(x, &w);
                n += snprintf(line + n, sizeof line - (size_t)n, " write %.4f s %s",
                              w.total_s, verdict(w.verified));
            } else if (wrc) {
                n += snprintf(line + n, sizeof line - (size_t)n, " write ERROR");
            }
            if (!wrc && cfg->do_read && !read_unsupported[vi]) {
                bench_row r = {.ci = ci,
                               .vi = vi,
                               .rep = rep,
                               .op = BENCH_OP_READ,
                               .warmup_s = warm[vi][BENCH_OP_READ],
                               .create_s = create[vi]};
                int rrc = run_read(x, &r, plans[vi], l, buf, bytes);
                spent[vi] += r.total_s;
                if (rrc == COLLIO_ERR_UNSUPPORTED) {
                    read_unsupported[vi] = 1;
                    n += snprintf(line + n, sizeof line - (size_t)n, " read unsupported");
                } else if (rrc) {
                    n += snprintf(line + n, sizeof line - (size_t)n, " read ERROR");
                } else {
                    if (!rc)
                        rc = add_row(x, &r);
                    n += snprintf(line + n, sizeof line - (size_t)n, " read %.4f s %s",
                                  r.total_s, verdict(r.verified));
                }
            }
            if (cfg->max_time > 0 && spent[vi] > cfg->max_time && rep + 1 < cfg->reps)
                snprintf(line + n, sizeof line - (size_t)n,
                         " (--max-time %g s reached: no more reps)", cfg->max_time);
            if (cfg->progress && x->rank == 0)
                fprintf(stderr, "[collio-bench] %s\n", line);
        }
    }
    free(buf);
    for (int vi = 0; vi < x->nvars; vi++)
        collio_plan_free(&plans[vi]);
    collio_layout_free(&l);
    if (x->rank == 0)
        unlink(x->path);
    MPI_Barrier(x->comm);
    return rc;
}

/* --------------------------------------------------------------- variants */

/* 1 if KEY is in section NAME ("multiphase.phases" in "multiphase"). */
static int in_section(const char *key, const char *name)
{
    size_t n = strlen(name);
    return strncmp(key, name, n) == 0 && key[n] == '.';
}

/* 1 if KEY's section is a registered strategy's (else "plan", "replicas"). */
static int strategy_section(const char *key)
{
    char sec[COLLIO_BENCH_KEY_LEN];
    const char *dot = strchr(key, '.');
    snprintf(sec, sizeof sec, "%.*s", dot ? (int)(dot - key) : 0, key);
    return collio_strategy_is_canonical(sec) >= 0;
}

/* The value of KEY a variant picks (pick[] of the sweeps), else the
 * config's --hints, else the catalogue's default, into out. */
static void value_of(const bench_ctx *x, const int *pick, const char *key, char *out,
                     size_t len)
{
    for (int j = 0; j < x->nsweeps; j++)
        if (pick[j] >= 0 && strcmp(x->sweeps[j].key, key) == 0) {
            snprintf(out, len, "%s", x->sweeps[j].values[pick[j]]);
            return;
        }
    int flag = 0;
    if (collio_hints_get(x->global, key, out, len, &flag) == COLLIO_OK && flag)
        return;
    collio_option_info o;
    snprintf(out, len, "%s", bench_option_find(key, &o) >= 0 ? o.deflt : "");
}

/* 1 if strategy s runs the strategy whose section KEY is in: an option of
 * s's own of type "strategy" (subgroup.inner) names it, in the variant. */
static int runs_section_of(const bench_ctx *x, const char *s, const int *pick,
                           const char *key)
{
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        char inner[BENCH_VALUE_LEN];
        if (collio_option_describe(i, &o) != COLLIO_OK || !in_section(o.key, s)
            || strcmp(o.type, "strategy") != 0)
            continue;
        value_of(x, pick, o.key, inner, sizeof inner);
        if (in_section(key, inner))
            return 1;
    }
    return 0;
}

/* 1 if s has an option of type "strategy" (it runs another strategy). */
static int runs_another(const char *s)
{
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        if (collio_option_describe(i, &o) == COLLIO_OK && in_section(o.key, s)
            && strcmp(o.type, "strategy") == 0)
            return 1;
    }
    return 0;
}

/* Appends text to the label's options part. */
static void part(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(buf);
    if (n < len)
        snprintf(buf + n, len - n, fmt, n ? "," : "", a, b);
}

/* The label: the strategy, with what the variant varies in parentheses --
 * multiphase's k= (phases, unless 0 = all), r= (write_rounds), x=
 * (exchange), shm= (shared_memory) whenever swept (also for subgroup with
 * inner multiphase); subgroup(g=G,INNER) whenever its group or inner is
 * swept; any other option NAME=V (its key in full for another section's)
 * where its sweep has several values -- and /POLICY for a swept replica
 * policy. */
static void variant_label(const bench_ctx *x, bench_variant *v)
{
    static const struct {
        const char *key, *name, *hide; /* hide: a value shown as nothing */
    } shorts[] = {{"multiphase.phases", "k", "0"},
                  {"multiphase.write_rounds", "r", NULL},
                  {"multiphase.exchange", "x", NULL},
                  {"multiphase.shared_memory", "shm", NULL}};
    char opt[sizeof v->label] = "", val[BENCH_VALUE_LEN], policy[BENCH_VALUE_LEN] = "";
    const char *s = v->strategy;
    int sg = 0;
    for (int j = 0; j < x->nsweeps; j++)
        sg |= v->pick[j] >= 0
              && (strcmp(x->sweeps[j].key, "subgroup.group") == 0
                  || strcmp(x->sweeps[j].key, "subgroup.inner") == 0);
    if (sg && strcmp(s, "subgroup") == 0) {
        value_of(x, v->pick, "subgroup.group", val, sizeof val);
        part(opt, sizeof opt, "%sg=%s%s", val, "");
        value_of(x, v->pick, "subgroup.inner", val, sizeof val);
        part(opt, sizeof opt, "%s%s%s", val, "");
    }
    for (int j = 0; j < x->nsweeps; j++) {
        const bench_sweep *w = &x->sweeps[j];
        if (v->pick[j] < 0
            || (sg && in_section(w->key, "subgroup")
                && (strcmp(w->key, "subgroup.group") == 0
                    || strcmp(w->key, "subgroup.inner") == 0)))
            continue;
        const char *value = w->values[v->pick[j]];
        if (strcmp(w->key, "replicas.policy") == 0) {
            snprintf(policy, sizeof policy, "%s", value);
            continue;
        }
        int k = 0, nk = (int)(sizeof shorts / sizeof shorts[0]);
        while (k < nk && strcmp(shorts[k].key, w->key) != 0)
            k++;
        if (k < nk) {
            if (shorts[k].hide == NULL || strcmp(value, shorts[k].hide) != 0)
                part(opt, sizeof opt, "%s%s=%s", shorts[k].name, value);
        } else if (w->nvalues > 1) {
            part(opt, sizeof opt, "%s%s=%s",
                 in_section(w->key, s) ? w->key + strlen(s) + 1 : w->key, value);
        }
    }
    char label[sizeof v->label];
    snprintf(label, sizeof label, "%s%s%s%s", s, opt[0] ? "(" : "", opt,
             opt[0] ? ")" : "");
    if (policy[0])
        snprintf(v->label, sizeof v->label, "%.200s/%s", label, policy);
    else
        memcpy(v->label, label, sizeof label);
}

/* The hints a variant's plans are created with: the config's (global),
 * then its value of each sweep, each checked; a non-canonical strategy
 * ("block") with a swept replica policy: owner, the balanced one. */
static int variant_hints(bench_ctx *x, bench_variant *v)
{
    collio_hints *h = NULL;
    int rc = collio_hints_create(&h);
    for (int i = 0; rc == COLLIO_OK && i < collio_hints_count(x->global); i++) {
        const char *key = collio_hints_key(x->global, i);
        char val[BENCH_VALUE_LEN * 4];
        int flag = 0;
        rc = collio_hints_get(x->global, key, val, sizeof val, &flag);
        if (rc == COLLIO_OK)
            rc = collio_hints_set(h, key, val);
    }
    int replicas_swept = 0;
    for (int j = 0; rc == COLLIO_OK && j < x->nsweeps; j++) {
        replicas_swept |= strcmp(x->sweeps[j].key, "replicas.policy") == 0;
        if (v->pick[j] >= 0)
            rc = collio_hints_set(h, x->sweeps[j].key, x->sweeps[j].values[v->pick[j]]);
    }
    if (rc == COLLIO_OK && replicas_swept && !v->canonical)
        rc = collio_hints_set(h, "replicas.policy", "owner");
    if (rc != COLLIO_OK) {
        if (x->rank == 0)
            fprintf(stderr, "collio-bench: %s: %s\n", v->label, collio_last_error());
        collio_hints_free(&h);
        return rc;
    }
    v->hints = h;
    return COLLIO_OK;
}

/* Strategy variants: for each strategy of --strategies (or every
 * registered one), one per combination of the values of the sweeps that
 * apply to it (the first sweep outermost): a sweep of its own section's
 * option, of a section of every strategy ("plan"; "replicas": canonical
 * strategies only), or of a strategy it runs (subgroup's inner), the
 * last pruned from the combinations that do not run it (and duplicates
 * dropped). Local: the same variants on every rank. */
static int make_variants(bench_ctx *x)
{
    const collio_bench_config *cfg = x->cfg;
    int n = cfg->nstrategies ? cfg->nstrategies : collio_strategy_count();
    if (n < 1) {
        if (x->rank == 0)
            fprintf(stderr, "collio-bench: no strategies registered\n");
        return COLLIO_ERR_STRATEGY;
    }
    for (int i = 0; i < n; i++) {
        const char *s = cfg->nstrategies ? cfg->strategies[i] : collio_strategy_name(i);
        int canon = s ? collio_strategy_is_canonical(s) : -1;
        if (canon < 0) {
            if (x->rank == 0) {
                fprintf(stderr,
                        "collio-bench: strategy '%s': %s (registered:", s ? s : "?",
                        collio_strerror(COLLIO_ERR_STRATEGY));
                for (int k = 0; k < collio_strategy_count(); k++)
                    fprintf(stderr, " %s", collio_strategy_name(k));
                fprintf(stderr, ")\n");
            }
            return COLLIO_ERR_STRATEGY;
        }
        /* the sweeps that may apply, and how many combinations */
        int applies[BENCH_MAX_SWEEPS], foreign[BENCH_MAX_SWEEPS];
        long long combos = 1;
        for (int j = 0; j < x->nsweeps; j++) {
            const char *key = x->sweeps[j].key;
            foreign[j] = strategy_section(key) && !in_section(key, s);
            applies[j] = foreign[j] ? runs_another(s)
                         : in_section(key, "replicas")
                             ? canon == 1
                             : !strategy_section(key) || in_section(key, s);
            if (applies[j])
                combos *= x->sweeps[j].nvalues;
            if (combos > MAX_VARIANTS * COLLIO_BENCH_MAX_LIST) {
                if (x->rank == 0)
                    fprintf(stderr,
                            "collio-bench: %s: more than %d variants (the values of its "
                            "sweeps crossed): sweep fewer values\n",
                            s, MAX_VARIANTS);
                return COLLIO_ERR_ARG;
            }
        }
        const int first = x->nvars;
        for (long long c = 0; c < combos; c++) {
            bench_variant v;
            memset(&v, 0, sizeof v);
            snprintf(v.strategy, sizeof v.strategy, "%s", s);
            v.canonical = canon;
            long long rest = c; /* the last sweep varies fastest */
            for (int j = x->nsweeps - 1; j >= 0; j--) {
                v.pick[j] = applies[j] ? (int)(rest % x->sweeps[j].nvalues) : -1;
                if (applies[j])
                    rest /= x->sweeps[j].nvalues;
            }
            for (int j = 0; j < x->nsweeps; j++)
                if (v.pick[j] >= 0 && foreign[j]
                    && !runs_section_of(x, s, v.pick, x->sweeps[j].key))
                    v.pick[j] = -1;
            int dup = 0;
            for (int k = first; k < x->nvars && !dup; k++)
                dup = memcmp(x->vars[k].pick, v.pick, sizeof v.pick) == 0;
            if (dup)
                continue;
            if (x->nvars >= MAX_VARIANTS) {
                if (x->rank == 0)
                    fprintf(stderr,
                            "collio-bench: more than %d variants (strategies x the "
                            "values of their sweeps): sweep fewer values\n",
                            MAX_VARIANTS);
                return COLLIO_ERR_ARG;
            }
            variant_label(x, &v);
            int rc = variant_hints(x, &v);
            if (rc)
                return rc;
            x->vars[x->nvars++] = v;
        }
    }
    return COLLIO_OK;
}

/* The plan's hints that differ from the defaults, "K=V;K=V" (the CSV's
 * hints column: what --hints, the sweeps and COLLIO_HINTS changed), and
 * its plan.destroy_input. */
static void note_plan_hints(bench_variant *v, const collio_plan *plan)
{
    collio_hints *h = NULL;
    if (collio_plan_hints(plan, &h) != COLLIO_OK)
        return;
    size_t n = 0, len = sizeof v->hints_text;
    v->hints_text[0] = '\0';
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        char val[BENCH_VALUE_LEN * 4];
        int flag = 0;
        if (collio_option_describe(i, &o) != COLLIO_OK
            || collio_hints_get(h, o.key, val, sizeof val, &flag) != COLLIO_OK || !flag)
            continue;
        if (strcmp(o.key, "plan.destroy_input") == 0)
            v->destroy_input = strcmp(val, "1") == 0;
        if (strcmp(val, o.deflt) == 0)
            continue;
        int w = snprintf(v->hints_text + n, len - n, "%s%s=%s", n ? ";" : "", o.key, val);
        if (w < 0 || (size_t)w >= len - n) { /* no room: mark the cut */
            v->hints_text[n] = '\0';
            if (n + 4 < len)
                strcat(v->hints_text, n ? ";..." : "...");
            break;
        }
        n += (size_t)w;
    }
    collio_hints_free(&h);
}

/* Before any collective: the sweeps (checked), the config's hints, and
 * the statistics the CSV gets a column each for. Local, the same on every
 * rank (the same config and catalogue), said by rank 0. */
static int prepare_options(bench_ctx *x)
{
    const collio_bench_config *cfg = x->cfg;
    char err[640] = "";
    int rc = bench_sweeps_of(cfg, x->sweeps, &x->nsweeps, err, sizeof err);
    if (rc == COLLIO_OK && (rc = collio_hints_create(&x->global)) != COLLIO_OK)
        snprintf(err, sizeof err, "%s", collio_last_error());
    if (rc == COLLIO_OK && cfg->destroy_input
        && (rc = collio_hints_set(x->global, "plan.destroy_input", "1")) != COLLIO_OK)
        snprintf(err, sizeof err, "%s", collio_last_error());
    if (rc == COLLIO_OK && cfg->hints[0]) {
        char hints[sizeof cfg->hints];
        memcpy(hints, cfg->hints, sizeof hints);
        hints[sizeof hints - 1] = '\0';
        if ((rc = collio_hints_parse(x->global, hints)) != COLLIO_OK)
            snprintf(err, sizeof err, "bad --hints '%.200s': %s", hints,
                     collio_last_error());
    }
    if (rc != COLLIO_OK) {
        if (x->rank == 0)
            fprintf(stderr, "collio-bench: %s\n", err);
        return COLLIO_ERR_ARG;
    }
    size_t nstat = (size_t)(collio_stat_count() > 0 ? collio_stat_count() : 1);
    x->extra_keys = calloc(nstat, sizeof *x->extra_keys);
    x->extra_local = calloc(nstat, sizeof *x->extra_local);
    x->extra_max = calloc(nstat, sizeof *x->extra_max);
    int nomem = !x->extra_keys || !x->extra_local || !x->extra_max, anynomem = 0;
    MPI_Allreduce(&nomem, &anynomem, 1, MPI_INT, MPI_MAX, x->comm);
    if (anynomem)
        return COLLIO_ERR_NOMEM;
    x->nextra = bench_extra_stats(x->extra_keys, (int)nstat);
    return COLLIO_OK;
}

/* Checks that can fail on rank 0 only (directory, CSV); agreed by Bcast. */
static int open_outputs(bench_ctx *x)
{
    const collio_bench_config *cfg = x->cfg;
    int rc = COLLIO_OK, pid = (int)getpid();
    if (x->rank == 0) {
        if (access(cfg->dir, W_OK) != 0) {
            fprintf(stderr, "collio-bench: --dir %s: not a writable directory\n",
                    cfg->dir);
            rc = COLLIO_ERR_OPEN;
        } else if (cfg->csv[0]
                   && !(x->csv = bench_csv_open(cfg->csv, x->extra_keys, x->nextra))) {
            fprintf(stderr, "collio-bench: --csv %s: cannot create\n", cfg->csv);
            rc = COLLIO_ERR_OPEN;
        }
        bench_fs_of(cfg->dir, &x->fs);
    }
    int msg[2] = {rc, pid};
    MPI_Bcast(msg, 2, MPI_INT, 0, x->comm);
    snprintf(x->path, sizeof x->path, "%s/collio-bench-%d.dat", cfg->dir, msg[1]);
    return msg[0];
}

/* Large allocations of this process always as fresh mappings. glibc
 * otherwise raises its mmap threshold each time a large block is freed,
 * so the per-case data buffer alternates between the heap and a mapping
 * from case to case; measured at P = 8, 16 MB, with multiphase and block
 * in one run: block took 0.018 s in every other case instead of 0.0034 s
 * (with the threshold fixed, either way: 0.0033-0.0036 s in every case). */
static void steady_allocation(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int collio_bench_run(MPI_Comm comm, const collio_bench_config *cfg,
                     collio_bench_summary *sum)
{
    steady_allocation();
    bench_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return COLLIO_ERR_NOMEM; /* before any collective: all ranks alike */
    x->comm = comm;
    x->cfg = cfg;
    MPI_Comm_rank(comm, &x->rank);
    MPI_Comm_size(comm, &x->nranks);
    int rc = cfg->reps >= 1 && cfg->esize >= 1 && (cfg->do_write || cfg->do_read)
                 ? COLLIO_OK
                 : COLLIO_ERR_ARG;
    if (!rc && bench_workload_of(cfg->workload) == NULL)
        rc = COLLIO_ERR_ARG;
    if (!rc)
        rc = bench_workload_of(cfg->workload)->cases(comm, cfg, x->cases, &x->ncases);
    if (!rc)
        rc = prepare_options(x);
    if (!rc)
        rc = make_variants(x);
    if (!rc)
        rc = open_outputs(x);
    for (int ci = 0; ci < x->ncases && !rc; ci++)
        rc = run_case(x, ci);
    if (!rc && x->rank == 0 && cfg->table_out)
        bench_print_table(cfg->table_out, cfg, &x->fs, x->nranks, x->cases, x->ncases,
                          x->vars, x->nvars, x->rows, x->nrows);
    if (x->csv)
        fclose(x->csv);
    if (sum)
        *sum = x->sum;
    for (int vi = 0; vi < x->nvars; vi++)
        collio_hints_free(&x->vars[vi].hints);
    collio_hints_free(&x->global);
    free(x->extra_keys);
    free(x->extra_local);
    free(x->extra_max);
    free(x->rows);
    free(x);
    return rc;
}
