/*
 * run.c -- running a batch of requests (base/jobs.c hands it over):
 * alone, each is collio_write_at / collio_read_at; k requests on one file
 * at k offsets -- of one plan, or of plans that merge (the same strategy,
 * options, element size and ranks: different decompositions, say) -- run
 * as ONE execution of a plan of the stacked layout (layouts/stack.c: the
 * requests' layouts at their offsets), made once per pattern of plans and
 * offsets and kept on the first request's plan -- one exchange and one
 * file pass for all of them, the k buffers one after the other in its
 * stream. Its inspector costs about k plans' (5 s for ten of a
 * history file's variables of 5,000 pieces per rank at 16 ranks, on 2
 * cores), so it is made for a batch the caller declares -- held together
 * by hint request.start=wait until a completion call, a history file's
 * record written again and again -- and not for requests that only
 * happened to queue up behind a running one: how many do varies from
 * one record to the next, and each new pattern would pay the inspector.
 * Those run one after the other. Only where the stacked file is the k files placed side
 * by side: a canonical strategy, dense, sparse or replicated layouts (of
 * replicated ones, the elements each rank writes stack), offsets apart
 * by whole elements, the variables' file spans apart -- and where the
 * strategy's own (not the MPI library's) collective runs it; otherwise
 * the batch runs one request after the other.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"
#include "replicas/replicas.h"
#include "requests/requests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plan can run stacked at all -- and gains by it: not the MPI
 * library's own collective, whose time grows faster than its pieces
 * (two_phase: 20 variables of 4,000 single-element pieces per rank at
 * 16 ranks, stacked, took 3x the 20 calls; docs/requests.md). On a
 * replicated layout what stacks is the plan's writer layout (the
 * elements this rank writes: a partition, replicas/plan.c); the replicas
 * are resolved per request around the one execution (put_chunk,
 * get_chunk). */
static int stackable(const collio_plan *p)
{
    return p->strategy->canonical && !p->strategy->mpi_collective
           && p->layout->owned == NULL && p->layout->nglobal > 0;
}

/* Plan q's requests may run in plan p's stacked plan: the same strategy
 * and options, one element size, the same ranks in the same order (the
 * stacked plan runs on p's communicator). What every rank decides alike:
 * the plans were made collectively, their options agreed. */
static int merges(const collio_plan *p, const collio_plan *q)
{
    if (p == q)
        return 1;
    int cmp = MPI_UNEQUAL;
    return p->strategy == q->strategy && p->layout->esize == q->layout->esize
           && p->opts_digest == q->opts_digest
           && MPI_Comm_compare(p->comm, q->comm, &cmp) == MPI_SUCCESS
           && (cmp == MPI_IDENT || cmp == MPI_CONGRUENT);
}

/* j stacks with head: both held together (above), on one file, plans
 * that merge. */
static int joins(const collio__job *head, const collio__job *j)
{
    const collio_request *a = (const collio_request *)head,
                         *b = (const collio_request *)j;
    if (a->file != b->file || a->writing != b->writing || !stackable(a->plan)
        || !stackable(b->plan) || collio__req_opt(a->plan, COLLIO__REQ_START) == 0
        || collio__req_opt(b->plan, COLLIO__REQ_START) == 0 || !merges(a->plan, b->plan))
        return 0;
    int64_t d = a->offset - b->offset, es = (int64_t)a->plan->layout->esize;
    return d % es == 0;
}

/* One request alone: the blocking call's own path. */
static void run_one(collio_request *r)
{
    r->rc = collio__agree(r->plan->comm, r->pre_rc);
    if (r->rc == COLLIO_OK)
        r->rc = collio__exec_at(r->plan, r->file, r->offset, r->buf, r->bytes, r->writing,
                                r->fn);
    else if (r->pre_rc == COLLIO_OK)
        snprintf(r->why, sizeof r->why, "%s: another rank's request failed to start",
                 r->fn);
    if (r->rc != COLLIO_OK && r->pre_rc == COLLIO_OK)
        snprintf(r->why, sizeof r->why, "%s", collio_last_error());
    if (r->rc != COLLIO_OK && r->file != NULL && r->writing)
        collio__file_mark_failed(r->file);
    if (r->snapshot != NULL) /* the copy is a work buffer of the call */
        r->plan->stats.work_bytes += (int64_t)r->bytes;
}

/* The plan of r[0..k)'s layouts at their offsets stacked (p->stack, made
 * or kept; p: r[0]'s plan), or an error (OVERLAP: they cannot stack).
 * key: the digest of the plans and offsets. Collective; agreed code. */
static int stack_plan(collio_plan *p, collio_request **r, int k, int64_t base,
                      uint64_t key)
{
    if (p->stack != NULL && p->stack_key == key)
        return COLLIO_OK;
    collio__plan_destroy(p->stack);
    p->stack = NULL;
    int64_t *shift = malloc((size_t)k * sizeof *shift);
    const collio_layout **ls = malloc((size_t)k * sizeof *ls);
    int rc = shift != NULL && ls != NULL ? COLLIO_OK : COLLIO_ERR_NOMEM;
    for (int i = 0; i < k && rc == COLLIO_OK; i++) {
        shift[i] = (r[i]->offset - base) / (int64_t)p->layout->esize;
        ls[i] = r[i]->plan->layout;
    }
    collio_layout *l = NULL;
    if (rc == COLLIO_OK)
        rc = collio__layout_stack(p->comm, k, ls, shift, &l);
    free(shift);
    free(ls);
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK) {
        collio_hints *h = NULL;
        rc = collio__optvals_to_hints(&p->opts, &h);
        rc = collio__plan_create_on(p, l, p->strategy->section.name, h, rc, &p->stack);
        collio_hints_free(&h);
    }
    collio_layout_free(&l);
    if (rc == COLLIO_OK)
        p->stack_key = key;
    return rc;
}

/* The stacked execution's figures become the plan's (its own plan's
 * description kept, and its replicas' figures: the stacked plan has
 * none). */
static void take_stats(collio_plan *p, const collio_plan *s, int64_t stream_bytes)
{
    double inspect = p->stats.inspect_s;
    int64_t plan_bytes = p->stats.plan_bytes;
    p->stats = s->stats;
    p->stats.inspect_s = inspect;
    p->stats.plan_bytes = plan_bytes;
    p->stats.work_bytes += stream_bytes;
    /* every section's figures but the replicas' [rb, rb + rn) */
    const int rb = collio__stat_base(&collio__replicas_section),
              re = rb + collio__replicas_section.nstats, n = collio__nstats_all();
    memcpy(p->statv, s->statv, (size_t)rb * sizeof *p->statv);
    memcpy(p->statv + re, s->statv + re, (size_t)(n - re) * sizeof *p->statv);
}

/* Request r's data in the stream: what its plan's strategy moves -- its
 * layout's local elements, packed (on a replicated layout the ones this
 * rank writes). */
static size_t chunk_of(const collio_request *r)
{
    const collio_layout *u = r->plan->layout;
    return (size_t)u->nlocal * u->esize;
}

/* The layout r's buffer follows: its plan's, or the replicated one. */
static const collio_layout *user_of(const collio_request *r)
{
    const collio_plan *p = r->plan;
    return p->repl != NULL ? collio__repl_user_layout(p->repl) : p->layout;
}

/* Bytes of a packed user stream r needs beside its buffer (replicated
 * layouts whose buffer is not packed), else 0. */
static size_t user_scratch(const collio_request *r)
{
    const collio_layout *u = user_of(r);
    if (r->plan->repl == NULL || u->mem_kind == COLLIO__MEM_PACKED)
        return 0;
    return (size_t)u->nlocal * u->esize;
}

/* Local: request r's buffer into its place `at` in the stream (scratch:
 * room for user_scratch(r)). */
static int put_chunk(collio_request *r, char *at, char *scratch)
{
    const collio_plan *p = r->plan;
    const collio_layout *u = user_of(r);
    const char *user = r->buf;
    if (p->repl == NULL && u->mem_kind == COLLIO__MEM_PACKED) {
        memcpy(at, r->buf, chunk_of(r));
        return COLLIO_OK;
    }
    if (p->repl == NULL)
        return collio__layout_pack(u, r->buf, at);
    if (u->mem_kind != COLLIO__MEM_PACKED) {
        int rc = collio__layout_pack(u, r->buf, scratch);
        if (rc != COLLIO_OK)
            return rc;
        user = scratch;
    }
    if (collio__repl_identity(p->repl))
        memcpy(at, user, chunk_of(r));
    else
        collio__repl_select(p->repl, user, at);
    return COLLIO_OK;
}

/* Request r's data from its place `at` in the stream into its buffer.
 * Collective on a replicated layout (the replicas it does not write come
 * from their writers: collio__repl_fill, agreed code); local otherwise. */
static int get_chunk(collio_request *r, char *at, char *scratch)
{
    collio_plan *p = r->plan;
    const collio_layout *u = user_of(r);
    if (p->repl == NULL && u->mem_kind == COLLIO__MEM_PACKED) {
        memcpy(r->buf, at, chunk_of(r));
        return COLLIO_OK;
    }
    if (p->repl == NULL)
        return collio__layout_unpack(u, at, r->buf);
    char *user = u->mem_kind == COLLIO__MEM_PACKED ? r->buf : scratch;
    int rc = collio__repl_fill(p, at, user);
    if (rc == COLLIO_OK && user != r->buf)
        rc = collio__layout_unpack(u, user, r->buf);
    return rc;
}

/* r[0..k) (plans that merge, on one file) as one execution of r[0]'s
 * plan's stacked plan. */
static int run_stacked(collio_request **r, int k)
{
    collio_plan *p = r[0]->plan;
    collio_file *f = r[0]->file;
    const int writing = r[0]->writing;
    const char *fn = "collio_waitall";
    int64_t base = r[0]->offset;
    for (int i = 1; i < k; i++)
        if (r[i]->offset < base)
            base = r[i]->offset;
    /* agreed: the offsets and sizes; this rank's own: which plans */
    uint64_t key = collio__hash_mix(0x5eed, (uint64_t)k), mine = key;
    int rc = COLLIO_OK;
    size_t total = 0;
    for (int i = 0; i < k; i++) {
        key = collio__hash_mix(key, (uint64_t)(r[i]->offset - base));
        key = collio__hash_mix(key, (uint64_t)r[i]->plan->layout->nglobal);
        mine = collio__hash_mix(mine, r[i]->plan->serial);
        total += chunk_of(r[i]);
        if (rc == COLLIO_OK)
            rc = r[i]->pre_rc != COLLIO_OK
                     ? r[i]->pre_rc
                     : collio__exec_check(r[i]->plan, f, r[i]->offset, r[i]->buf,
                                          r[i]->bytes, writing, r[i]->fn);
    }
    int64_t v;
    memcpy(&v, &key, sizeof v);
    rc = collio__agree_same(p->comm, rc, v, "the requests' offsets", NULL);
    if (rc == COLLIO_OK)
        rc = stack_plan(p, r, k, base, collio__hash_mix(key, mine));
    if (rc == COLLIO_ERR_OVERLAP) { /* they cannot stack: one after the other */
        collio__error_begin();
        for (int i = 0; i < k; i++)
            run_one(r[i]);
        return -1;
    }
    size_t scratch_bytes = 0;
    for (int i = 0; i < k; i++)
        if (user_scratch(r[i]) > scratch_bytes)
            scratch_bytes = user_scratch(r[i]);
    char *stream = rc == COLLIO_OK ? collio__bigbuf_alloc(total > 0 ? total : 1) : NULL;
    char *scratch =
        rc == COLLIO_OK && scratch_bytes > 0 ? collio__bigbuf_alloc(scratch_bytes) : NULL;
    if (rc == COLLIO_OK && (stream == NULL || (scratch_bytes > 0 && scratch == NULL)))
        rc = COLLIO_ERR_NOMEM;
    size_t at = 0;
    for (int i = 0; i < k && rc == COLLIO_OK && writing; at += chunk_of(r[i]), i++)
        rc = put_chunk(r[i], stream + at, scratch);
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK)
        rc = collio__exec_at(p->stack, f, base, stream, total, writing, fn);
    /* Reading: every request's data out of the stream, each plan's
     * replicas filled in turn (collectives in the same order on every
     * rank); a local failure waits for the agreement after the loop. */
    int local = COLLIO_OK;
    at = 0;
    for (int i = 0; i < k && rc == COLLIO_OK && !writing; at += chunk_of(r[i]), i++) {
        int c = get_chunk(r[i], stream + at, scratch);
        if (r[i]->plan->repl != NULL)
            rc = c; /* agreed */
        else if (local == COLLIO_OK)
            local = c;
    }
    if (!writing) /* (a local unpack cannot fail but on a bug: agreed all the same) */
        rc = collio__agree(p->comm, rc != COLLIO_OK ? rc : local);
    collio__bigbuf_free(stream);
    collio__bigbuf_free(scratch);
    int64_t snapshots = 0;
    for (int i = 0; i < k; i++)
        snapshots += r[i]->snapshot != NULL ? (int64_t)r[i]->bytes : 0;
    if (rc == COLLIO_OK && p->stack != NULL)
        take_stats(p, p->stack, (int64_t)total + snapshots);
    if (rc != COLLIO_OK && writing)
        collio__file_mark_failed(f);
    return rc;
}

static void run(collio__job **jobs, int n, int on_thread)
{
    collio_request **r = (collio_request **)jobs;
    int merged = n;
    if (n == 1) {
        run_one(r[0]);
    } else {
        int rc = run_stacked(r, n);
        merged = rc == -1 ? 1 : n;
        if (rc != -1) { /* (-1: each ran alone, with its own code) */
            char why[sizeof r[0]->why];
            snprintf(why, sizeof why, "%s", collio_last_error());
            for (int i = 0; i < n; i++) {
                r[i]->rc = rc;
                if (rc != COLLIO_OK && r[i]->pre_rc == COLLIO_OK)
                    snprintf(r[i]->why, sizeof r[i]->why, "%s", why);
            }
        }
    }
    for (int i = 0; i < n; i++) { /* every plan of the batch */
        collio__req_stat_set(r[i]->plan, COLLIO__REQ_ST_MERGED, merged);
        collio__req_stat_set(r[i]->plan, COLLIO__REQ_ST_THREAD, on_thread);
    }
}

void collio__req_init_job(collio_request *r)
{
    r->job.plan = r->plan;
    r->job.file = r->file;
    r->job.comm = r->plan->comm;
    /* held ones run in the completion call that releases them: the caller
     * waits then, and a hand-over to the helper thread would only add its
     * wake-up */
    r->job.released = collio__req_opt(r->plan, COLLIO__REQ_START) == 0;
    r->job.worker_ok =
        collio__req_opt(r->plan, COLLIO__REQ_THREAD) != 0 && r->job.released;
    r->job.joins = joins;
    r->job.run = run;
}
