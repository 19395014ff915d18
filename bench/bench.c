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
    bench_row *rows;
    int nrows, cap;
    FILE *csv;   /* rank 0 */
    bench_fs fs; /* rank 0: the file system of cfg->dir */
    char path[COLLIO_BENCH_PATH_LEN + 64];
    collio_bench_summary sum;
} bench_ctx;

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

/* Reduces this rank's figures of the last execution of plan into *r. */
static void reduce_row(bench_ctx *x, const collio_plan *plan, double rss0_kb,
                       double hwm_kb, size_t local_bytes, bench_row *r)
{
    collio_stats st;
    memset(&st, 0, sizeof st);
    collio_plan_stats(plan, &st);
    enum { NMAX = 21 + COLLIO_BENCH_PHASE_COLS };
    double mx[NMAX] = {
        st.inspect_s, st.exchange_s, st.file_s, st.total_s, hwm_kb / 1024.0,
        (hwm_kb - rss0_kb) / 1024.0, (double)local_bytes / (1024.0 * 1024.0),
        (double)st.file_requests, (double)st.plan_bytes, (double)st.nphases, st.copy_s,
        (double)st.work_bytes / (1024.0 * 1024.0), (double)st.nrounds,
        (double)st.multiphase.exchange, (double)st.multiphase.shared_memory,
        st.subgroup.split_s,
        /* the gather / scatter as the masters see it: a
           member's gather_s of a read includes waiting for
           the master's file access */
        st.subgroup.master ? st.subgroup.gather_s : 0.0, (double)st.subgroup.group,
        st.replicas.classify_s, st.replicas.schedule_s, (double)st.messages_offnode};
    for (int i = 0; i < COLLIO_BENCH_PHASE_COLS; i++)
        mx[21 + i] = i < st.nphases && i < COLLIO_MAX_PHASES ? st.phase_s[i] : 0.0;
    double gmx[NMAX];
    MPI_Allreduce(mx, gmx, NMAX, MPI_DOUBLE, MPI_MAX, x->comm);
    int64_t sm[7] = {st.bytes_sent,         st.messages,      st.file_requests,
                     st.file_bytes,         st.bytes_offnode, st.messages_offnode,
                     st.replicas.fill_bytes};
    int64_t gsm[7];
    MPI_Allreduce(sm, gsm, 7, MPI_INT64_T, MPI_SUM, x->comm);
    r->replicas = st.replicas; /* plan-wide figures: the same on every rank */
    r->replicas.classify_s = gmx[18];
    r->replicas.schedule_s = gmx[19];
    r->replicas.fill_bytes = gsm[6];
    r->bytes_offnode = gsm[4];
    r->messages_offnode = gsm[5];
    r->messages_offnode_max = (int64_t)gmx[20];
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
    r->nphases = (int)gmx[9];
    if (r->nphases > COLLIO_BENCH_PHASE_COLS)
        r->nphases = COLLIO_BENCH_PHASE_COLS; /* columns phase0..7 only */
    for (int i = 0; i < COLLIO_BENCH_PHASE_COLS; i++)
        r->phase_s[i] = gmx[21 + i];
    r->split_s = gmx[15];
    r->gather_s = gmx[16];
    r->group = (int)gmx[17];
    r->nrounds = (int)gmx[12];
    r->exchange = (int)gmx[13];
    r->shared_memory = (int)gmx[14];
    r->copy_s = gmx[10];
    r->work_mb = gmx[11];
    r->bytes_sent = gsm[0];
    r->messages = gsm[1];
    r->file_requests = gsm[2];
    r->file_bytes = gsm[3];
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
    x->rows[x->nrows++] = *r;
    x->sum.runs++;
    x->sum.verified += r->verified == 1;
    x->sum.failed += r->verified == 0;
    if (x->csv)
        bench_csv_row(x->csv, x->cfg, &x->fs, x->nranks, &x->cases[r->ci],
                      &x->vars[r->vi], r);
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
 * {elements}, an array in its Fortran order, a mesh field as {nodes,
 * load}. Collective; the library's agreed code. */
static int keep_h5(bench_ctx *x, const bench_case *c, int vi)
{
    const collio_bench_config *cfg = x->cfg;
    const size_t es = bench_case_esize(c, cfg);
    char raw[sizeof cfg->dir + sizeof c->label + 32], h5[sizeof raw + 4];
    snprintf(raw, sizeof raw, "%s/collio-bench-%s-v%d.raw", cfg->dir, c->label, vi);
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
            dims[nd++] = c->nx;
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
        int64_t bad = bench_check_file(x->comm, x->path, c->nx, bench_case_esize(c, cfg),
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
    for (int vi = 0; vi < x->nvars; vi++) {
        collio_plan_options po;
        collio_plan_options_init(&po);
        po.multiphase.phases = x->vars[vi].phases;
        po.subgroup.group = x->vars[vi].group;
        po.subgroup.inner = x->vars[vi].inner[0] ? x->vars[vi].inner : NULL;
        po.multiphase.write_rounds = x->vars[vi].rounds;
        po.multiphase.exchange = x->vars[vi].exchange;
        po.multiphase.shared_memory = x->vars[vi].shm;
        po.destroy_input = cfg->destroy_input;
        po.replicas.policy = x->vars[vi].replicas;
        rc = collio_plan_create(x->comm, l, x->vars[vi].strategy, &po, &plans[vi]);
        if (rc) {
            say_error(x, c, &x->vars[vi], "collio_plan_create", rc);
            plans[vi] = NULL;
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
                           .warmup_s = warm[vi][BENCH_OP_WRITE]};
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
                               .warmup_s = warm[vi][BENCH_OP_READ]};
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

/* "multiphase(k=2,r=3,x=direct)": the options a variant list varies. */
static void variant_label(bench_variant *v, int show_rounds, int show_exchange,
                          int show_shm)
{
    char opt[48] = "";
    size_t n = 0;
    if (v->phases > 0)
        n += (size_t)snprintf(opt + n, sizeof opt - n, ",k=%d", v->phases);
    if (show_rounds && n < sizeof opt)
        n += (size_t)snprintf(opt + n, sizeof opt - n, ",r=%d", v->rounds);
    if (show_exchange && n < sizeof opt)
        n += (size_t)snprintf(opt + n, sizeof opt - n, ",x=%s",
                              collio_exchange_name(v->exchange));
    if (show_shm && n < sizeof opt)
        n += (size_t)snprintf(opt + n, sizeof opt - n, ",shm=%d", v->shm);
    char label[sizeof v->label];
    if (n > 0)
        snprintf(label, sizeof label, "%s(%s)", v->strategy, opt + 1);
    else
        snprintf(label, sizeof label, "%s", v->strategy);
    memcpy(v->label, label, sizeof label);
}

/* Strategy variants from --strategies (or all registered) and --phases. */
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
        int mp = strcmp(s, "multiphase") == 0;
        int nk = mp && cfg->nphases > 0 ? cfg->nphases : 1;
        int nr = mp && cfg->nrounds > 0 ? cfg->nrounds : 1;
        int ne = mp && cfg->nexchange > 0 ? cfg->nexchange : 1;
        int ns = mp && cfg->nshm > 0 ? cfg->nshm : 1;
        int sg = strcmp(s, "subgroup") == 0;
        int ng = sg && cfg->ngroups > 0 ? cfg->ngroups : 1;
        int ni = sg && cfg->ninners > 0 ? cfg->ninners : 1;
        /* one variant per replica policy; the non-canonical reference
         * ("block": each rank's data in one piece, the limit) once, with
         * the balanced owner policy */
        int np = cfg->nreplicas > 0 && canon ? cfg->nreplicas : 1;
        for (int kk = 0; kk < nk * nr * ne * ns * ng * ni * np; kk++) {
            int k = kk / np; /* replica policies innermost */
            if (x->nvars >= MAX_VARIANTS)
                return COLLIO_ERR_ARG;
            bench_variant *v = &x->vars[x->nvars++];
            snprintf(v->strategy, sizeof v->strategy, "%s", s);
            /* phases outermost, shared_memory innermost; defaults: all
             * phases, automatic rounds and exchange, shared memory on.
             * subgroup: groups outer, inner strategies inner. */
            int m = k / (ng * ni), q = k % (ng * ni);
            v->phases = mp && cfg->nphases > 0 ? cfg->phases[m / (nr * ne * ns)] : 0;
            v->rounds = mp && cfg->nrounds > 0 ? cfg->rounds[m / (ne * ns) % nr] : 0;
            v->exchange = mp && cfg->nexchange > 0 ? cfg->exchange[m / ns % ne] : 0;
            v->shm = mp && cfg->nshm > 0 ? cfg->shm[m % ns] : 1;
            v->group = sg && cfg->ngroups > 0 ? cfg->groups[q / ni] : 0;
            snprintf(v->inner, sizeof v->inner, "%s",
                     sg && cfg->ninners > 0 ? cfg->inners[q % ni] : "");
            v->canonical = canon;
            variant_label(v, mp && cfg->nrounds > 0, mp && cfg->nexchange > 0,
                          mp && cfg->nshm > 0);
            if (sg && (cfg->ngroups > 0 || cfg->ninners > 0))
                snprintf(v->label, sizeof v->label, "subgroup(g=%d,%s)", v->group,
                         v->inner[0] ? v->inner : "two_phase");
            v->replicas = cfg->nreplicas == 0 ? 0
                          : canon             ? cfg->replicas[kk % np]
                                              : COLLIO_REPLICAS_OWNER;
            if (cfg->nreplicas > 0 && canon) {
                char base[sizeof v->label];
                memcpy(base, v->label, sizeof base);
                snprintf(v->label, sizeof v->label, "%.100s/%s", base,
                         collio_replicas_name(v->replicas));
            }
        }
    }
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
        } else if (cfg->csv[0] && !(x->csv = bench_csv_open(cfg->csv))) {
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
    free(x->rows);
    free(x);
    return rc;
}
