/*
 * core/execute.c -- the executor: collio_write / collio_read (and _at) on a
 * plan that plan.c made.
 *
 * A call checks its arguments, packs a non-packed user buffer into the
 * rank's stream (its elements in layout order), runs the strategy,
 * unpacks, and agrees on the result so that every rank returns the same
 * code. Every collective step here is taken by every rank, also after a
 * local failure: local errors are carried to the next collio__agree.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "replicas/replicas.h"

#include <string.h>

/* Collective: the strategy's write or read, with p->scratch for its
 * duration. This rank's code. */
static int call_strategy(collio_plan *p, collio_file *f, char *stream, int writing,
                         int scratch)
{
    p->scratch = scratch ? stream : NULL;
    int rc = writing ? p->strategy->write(p, f, stream) : p->strategy->read(p, f, stream);
    p->scratch = NULL;
    return rc;
}

/* Collective: the strategy's part of one execution -- its call, the
 * agreement, the file failed after a failure. collio_write / collio_read
 * and collio__plan_exec end here. */
static int run_strategy(collio_plan *p, collio_file *f, char *stream, int writing,
                        int scratch)
{
    int rc = collio__agree(p->comm, call_strategy(p, f, stream, writing, scratch));
    if (rc != COLLIO_OK)
        collio__file_mark_failed(f);
    return rc;
}

/* One execution of p with its stats reset and its total_s measured:
 * `run` is call_strategy (unagreed) or run_strategy (agreed). */
static int timed(int (*run)(collio_plan *, collio_file *, char *, int, int),
                 collio_plan *p, collio_file *f, char *stream, int writing, int scratch)
{
    double t0 = collio__now();
    collio__stats_reset(p);
    int rc = run(p, f, stream, writing, scratch);
    p->stats.total_s = collio__now() - t0;
    return rc;
}

int collio__plan_run_unagreed(collio_plan *p, collio_file *f, char *stream, int writing,
                              int scratch)
{
    return timed(call_strategy, p, f, stream, writing, scratch);
}

int collio__plan_exec(collio_plan *p, collio_file *f, char *stream, int writing,
                      int scratch)
{
    return timed(run_strategy, p, f, stream, writing, scratch);
}

static int data_end(const collio_plan *p, const collio_file *f, int64_t offset,
                    int64_t *end);

/* The layout the user's buffer follows: the plan's own, or for replicated
 * data the replicated one (p->layout then holds what this rank writes). */
static const collio_layout *user_layout(const collio_plan *p)
{
    return p->repl != NULL ? collio__repl_user_layout(p->repl) : p->layout;
}

/* Local checks shared by write and read. */
static int check_exec(const collio_plan *p, const collio_file *f, int64_t offset,
                      const void *buf, size_t buf_bytes, int writing, const char *fn)
{
    if (f == NULL || (buf == NULL && buf_bytes > 0)) {
        collio__error_set(COLLIO_ERR_ARG, "%s: %s is NULL", fn,
                          f == NULL ? "the file" : "buf");
        return COLLIO_ERR_ARG;
    }
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(p->comm, f->comm, &cmp);
    if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT) {
        collio__error_set(COLLIO_ERR_MISMATCH,
                          "%s: the file %s was opened on another communicator than the "
                          "plan's (%d ranks, %d for the plan%s)",
                          fn, f->path, f->nranks, p->nranks,
                          cmp == MPI_SIMILAR ? ": the same processes in another order"
                                             : "");
        return COLLIO_ERR_MISMATCH;
    }
    if (buf_bytes != user_layout(p)->mem_bytes) {
        collio__error_set(COLLIO_ERR_BUFSIZE,
                          "%s: buf_bytes is %zu, the layout needs %zu", fn, buf_bytes,
                          user_layout(p)->mem_bytes);
        return COLLIO_ERR_BUFSIZE;
    }
    if (offset < 0) {
        collio__error_set(COLLIO_ERR_ARG, "%s: offset %lld is negative", fn,
                          (long long)offset);
        return COLLIO_ERR_ARG;
    }
    int64_t end;
    if (data_end(p, f, offset, &end) != COLLIO_OK) {
        collio__error_set(COLLIO_ERR_OVERFLOW,
                          "%s: base_offset %lld + offset %lld + the data's %lld x %zu "
                          "bytes overflow 64 bits",
                          fn, (long long)f->opts.base_offset, (long long)offset,
                          (long long)collio__layout_file_span(p->layout),
                          p->layout->esize);
        return COLLIO_ERR_OVERFLOW;
    }
    if (writing && f->mode != COLLIO_FILE_CREATE && f->mode != COLLIO_FILE_INPLACE) {
        collio__error_set(COLLIO_ERR_STATE, "%s: %s was opened for reading only", fn,
                          f->path);
        return COLLIO_ERR_STATE;
    }
    /* Every mode can be read: CREATE and INPLACE open read-write. */
    return COLLIO_OK;
}

/* Local: the data's end in the file, base + offset + span*esize bytes
 * (span: nglobal, or a sparse layout's last held element), must be
 * representable (OVERFLOW otherwise). */
static int data_end(const collio_plan *p, const collio_file *f, int64_t offset,
                    int64_t *end)
{
    int64_t data, start;
    int rc = collio__mul_i64(collio__layout_file_span(p->layout),
                             (int64_t)p->layout->esize, &data);
    if (rc == COLLIO_OK)
        rc = collio__add_i64(f->opts.base_offset, offset, &start);
    if (rc == COLLIO_OK)
        rc = collio__add_i64(start, data, end);
    return rc;
}

/* Local: the file must hold [base, base + offset + span*esize). */
static int check_size(const collio_plan *p, collio_file *f, int64_t offset)
{
    int64_t need;
    int rc = data_end(p, f, offset, &need);
    int64_t have = 0;
    if (rc == COLLIO_OK)
        rc = f->ops->size(f, &have);
    if (rc == COLLIO_OK && have < need) {
        rc = COLLIO_ERR_EOF;
        collio__error_set(rc, "%s has %lld bytes, the data ends at byte %lld",
                          collio__file_data_path(f), (long long)have, (long long)need);
    }
    return rc;
}

/*
 * The streams of one execution. The user's stream holds the rank's
 * elements in layout order: the user's buffer itself when the layout is
 * packed, else the library's own (un)packed from it. The strategy's stream is
 * the same, except on replicated layouts where this rank does not write
 * everything it holds: then it is the library's own, with the written
 * elements only. `scratch` is the stream the strategy may overwrite. The
 * library's own streams stay with the plan under plan.keep_buffers (the
 * default), as the strategies' work buffers do: a fresh one faults in,
 * page by page or a zeroed huge page at a time, in every call.
 */
typedef struct streams {
    char *user, *strat;
    int own_user, own_strat;
} streams;

static int streams_alloc(collio_plan *p, void *buf, streams *s)
{
    const collio_layout *u = user_layout(p);
    memset(s, 0, sizeof *s);
    s->user = buf;
    if (u->mem_kind != COLLIO__MEM_PACKED) {
        s->user = p->user_stream =
            collio__plan_buf(p->user_stream, (size_t)u->nlocal * u->esize);
        s->own_user = 1;
        if (s->user == NULL)
            return COLLIO_ERR_NOMEM;
    }
    s->strat = s->user;
    if (p->repl != NULL && !collio__repl_identity(p->repl)) {
        s->strat = p->strat_stream = collio__plan_buf(
            p->strat_stream, (size_t)p->layout->nlocal * p->layout->esize);
        s->own_strat = 1;
        if (s->strat == NULL)
            return COLLIO_ERR_NOMEM;
    }
    /* work buffers beyond the user's, as the strategies' own are */
    if (s->own_user)
        p->stats.work_bytes += u->nlocal * (int64_t)u->esize;
    if (s->own_strat)
        p->stats.work_bytes += p->layout->nlocal * (int64_t)p->layout->esize;
    return COLLIO_OK;
}

/* End of a call: the plan keeps its streams for the next one
 * (plan.keep_buffers) or frees them. */
static void streams_done(collio_plan *p)
{
    p->user_stream = collio__plan_buf_done(p, p->user_stream);
    p->strat_stream = collio__plan_buf_done(p, p->strat_stream);
}

/* Local: the user's buffer into the strategy's stream. */
static int streams_fill_write(collio_plan *p, const void *buf, streams *s)
{
    double tp = collio__now();
    int rc = COLLIO_OK;
    if (s->own_user)
        rc = collio__layout_pack(user_layout(p), buf, s->user);
    if (rc == COLLIO_OK && s->own_strat)
        collio__repl_select(p->repl, s->user, s->strat);
    if (s->own_user || s->own_strat) {
        p->stats.exchange_s += collio__now() - tp;
        p->stats.copy_s += collio__now() - tp;
    }
    return rc;
}

/* The end of every collio_write / collio_read: a call that failed, for
 * any reason, leaves the file failed (collio_file_close then commits
 * nothing). rc is agreed over the plan's ranks, so this is the same on
 * every rank. */
static int exec_end(collio_file *f, int rc)
{
    if (rc != COLLIO_OK && f != NULL)
        collio__file_mark_failed(f);
    return rc;
}

/* The start: MPI usable, a plan. Without a plan there is no communicator
 * to tell the others (handles come from collective calls: NULL on every
 * rank or on none). */
static int exec_begin(const collio_plan *plan, const char *fn)
{
    collio__error_begin();
    int rc = collio__mpi_usable(fn);
    if (rc == COLLIO_OK && plan == NULL) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "%s: the plan is NULL", fn);
    }
    return rc;
}

/* The call's offset and sparse map on f, for its duration (the strategy
 * and every file opened from f within the call see them). */
static void call_begin(collio_plan *p, collio_file *f, int64_t offset)
{
    f->call_off = offset;
    f->holes = p->layout->holes;
}

/* After a write on f, ended well or not: no byte at or beyond its data's
 * end has been written yet (what files/holes.c may write zeros over). */
static void call_wrote(const collio_plan *p, collio_file *f, int64_t offset)
{
    int64_t end;
    if (data_end(p, f, offset, &end) != COLLIO_OK)
        end = INT64_MAX; /* (checked at the call's start: never) */
    if (end > f->fresh_from)
        f->fresh_from = end;
}

static void call_end(collio_file *f)
{
    if (f != NULL) {
        f->call_off = 0;
        f->holes = NULL;
    }
}

/* The file and the offset of this call: one digest, the same everywhere;
 * in the same reduction, the last execution's time (p->exec_s) becomes
 * its maximum over the ranks (p->exec_prev_max_s). */
static int agree_target(collio_plan *p, int rc, const collio_file *f, int64_t offset)
{
    uint64_t h = collio__hash_mix((uint64_t)(f != NULL ? f->id : -1), (uint64_t)offset);
    int64_t v, ns = p->exec_s >= 0 ? (int64_t)(p->exec_s * 1e9) : -1;
    memcpy(&v, &h, sizeof v);
    rc = collio__agree_same(p->comm, rc, v, "the file or the offset", &ns);
    p->exec_prev_max_s = rc == COLLIO_OK && ns >= 0 ? (double)ns * 1e-9 : -1;
    p->exec_s = -1;
    return rc;
}

/* The execution's time on this rank (p->exec_s): from the reduction
 * that starts it (agree_target: every rank is in the call) to the
 * agreement that ends it -- both synchronise the ranks, so what a rank
 * measures is the collective's time, not the application's skew in
 * arriving --, less what the strategy set aside (auto's choosing). */
static void exec_timed(collio_plan *p, double since)
{
    p->exec_s = collio__now() - since - p->exec_skip_s;
    if (p->exec_s < 0)
        p->exec_s = 0;
}

static int write_at(collio_plan *plan, collio_file *f, int64_t offset, const void *buf,
                    size_t buf_bytes, const char *fn)
{
    int rc = exec_begin(plan, fn);
    if (rc != COLLIO_OK)
        return exec_end(f, rc);
    double t0 = collio__now();
    collio__stats_reset(plan);
    rc = check_exec(plan, f, offset, buf, buf_bytes, 1, fn);
    streams s = {0};
    if (rc == COLLIO_OK)
        rc = streams_alloc(plan, (void *)buf, &s);
    if (rc == COLLIO_OK)
        rc = streams_fill_write(plan, buf, &s);
    rc = agree_target(plan, rc, f, offset);
    if (rc == COLLIO_OK) {
        /* the user's packed buffer is scratch only if the user said so */
        int ours = s.own_strat || s.own_user;
        double ts = collio__now();
        plan->exec_skip_s = 0;
        call_begin(plan, f, offset);
        rc = run_strategy(plan, f, s.strat, 1,
                          ours || collio__plan_opt(plan, COLLIO__PLAN_DESTROY_INPUT));
        call_wrote(plan, f, offset);
        call_end(f);
        exec_timed(plan, ts);
    }
    streams_done(plan);
    plan->stats.total_s = collio__now() - t0;
    return exec_end(f, rc);
}

static int read_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                   size_t buf_bytes, const char *fn)
{
    int rc = exec_begin(plan, fn);
    if (rc != COLLIO_OK)
        return exec_end(f, rc);
    double t0 = collio__now();
    collio__stats_reset(plan);
    rc = check_exec(plan, f, offset, buf, buf_bytes, 0, fn);
    if (rc == COLLIO_OK)
        rc = check_size(plan, f, offset);
    streams s = {0};
    if (rc == COLLIO_OK)
        rc = streams_alloc(plan, buf, &s);
    rc = agree_target(plan, rc, f, offset);
    if (rc == COLLIO_OK) {
        double ts = collio__now();
        plan->exec_skip_s = 0;
        call_begin(plan, f, offset);
        rc = run_strategy(plan, f, s.strat, 0, 1); /* output: ours until return */
        call_end(f);
        if (rc == COLLIO_OK && plan->repl != NULL)
            rc = collio__repl_fill(plan, s.strat, s.user); /* collective */
        if (rc == COLLIO_OK && s.own_user) {
            double tp = collio__now();
            rc = collio__layout_unpack(user_layout(plan), s.user, buf);
            plan->stats.exchange_s += collio__now() - tp;
            plan->stats.copy_s += collio__now() - tp;
        }
        rc = collio__agree(plan->comm, rc);
        exec_timed(plan, ts);
    }
    streams_done(plan);
    plan->stats.total_s = collio__now() - t0;
    return exec_end(f, rc);
}

int collio__exec_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                    size_t buf_bytes, int writing, const char *fn)
{
    return writing ? write_at(plan, f, offset, buf, buf_bytes, fn)
                   : read_at(plan, f, offset, buf, buf_bytes, fn);
}

int collio__exec_check(const collio_plan *p, const collio_file *f, int64_t offset,
                       const void *buf, size_t buf_bytes, int writing, const char *fn)
{
    return check_exec(p, f, offset, buf, buf_bytes, writing, fn);
}

/* The blocking calls run after every request queued before them
 * (collio__jobs_drain: the same order of collectives on every rank). */
int collio_write(collio_plan *plan, collio_file *f, const void *buf, size_t buf_bytes)
{
    collio__jobs_drain();
    return write_at(plan, f, 0, buf, buf_bytes, "collio_write");
}

int collio_write_at(collio_plan *plan, collio_file *f, int64_t offset, const void *buf,
                    size_t buf_bytes)
{
    collio__jobs_drain();
    return write_at(plan, f, offset, buf, buf_bytes, "collio_write_at");
}

int collio_read(collio_plan *plan, collio_file *f, void *buf, size_t buf_bytes)
{
    collio__jobs_drain();
    return read_at(plan, f, 0, buf, buf_bytes, "collio_read");
}

int collio_read_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                   size_t buf_bytes)
{
    collio__jobs_drain();
    return read_at(plan, f, offset, buf, buf_bytes, "collio_read_at");
}
