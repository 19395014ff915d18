/*
 * nonblocking.c -- the non-blocking collective calls collio takes
 * (MPI_File_iwrite_all, iwrite_at_all, iread_all, iread_at_all and the
 * split collectives' _begin/_end), completed where the application
 * completes them (docs/mpiio.md, "Non-blocking calls").
 *
 * take.c starts a taken call as a collio request on the pattern's plan
 * (collio_iwrite_at / collio_iread_at) and hands it here (a cmio_async).
 * Where collio's helper thread runs it (MPI gives MPI_THREAD_MULTIPLE),
 * the access moves while the application computes:
 *  - a non-blocking call returns an MPI generalized request
 *    (MPI_Grequest_start) that the helper thread completes
 *    (MPI_Grequest_complete, from collio_request_notify's callback) when
 *    the run ends; the application's MPI_Wait / MPI_Test / MPI_Waitall
 *    then call query_fn, which completes collio's request (it has run:
 *    collio_wait returns at once), unpacks a staged read and gives the
 *    status -- the bytes moved, as MPI's own call's status counts them --
 *    and the code;
 *  - a split collective keeps its access on the file; _end completes it.
 * Where nothing runs it in the background (no helper thread), the access
 * runs in the starting call -- every rank's, in the same order: a
 * completion call of MPI's cannot run collio's collectives -- and the
 * request is complete when the call returns.
 *
 * MPI's own MPI_Wait on a generalized request polls until it completes
 * (Open MPI's spins, yielding at best), on cores the helper threads need:
 * a history file's 20 variables took 1.2-2.4 s a record (median 1.9)
 * completed by MPI's MPI_Waitall, 1.0-1.8 s (median 1.3) with the wait
 * asleep (16 ranks on 2 cores, collio-mpiio-history). So MPI_Wait and
 * MPI_Waitall (wrappers.c) first wait for collio's own requests among
 * theirs where collio waits -- asleep on its queue, until the helper
 * thread has run them (cmio_async_sleep) -- and only then hand the call
 * to MPI, which finds them complete; MPI_Waitany and MPI_Waitsome wait
 * so for the first of them, where all their requests are collio's
 * (cmio_async_sleep_first). This cannot deadlock: the helper threads run
 * the requests whatever the application's threads do.
 *
 * Every access started is on a list until it is completed, so that a plan
 * evicted from take.c's cache, a file closed and MPI_Finalize complete
 * theirs first (MPI requires the application to have done so before the
 * close; if it has not, collio's close would otherwise fail).
 */
#include "cmio.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The outstanding accesses, under mu: the program's MPI_Wait may come from
 * any of its threads (MPI_THREAD_MULTIPLE); n_outstanding lets every other
 * wait of the program pass with one load. */
static cmio_async outstanding = {.next = &outstanding, .prev = &outstanding};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int n_outstanding = 0;

void cmio_async_track(cmio_async *a)
{
    pthread_mutex_lock(&mu);
    a->next = &outstanding;
    a->prev = outstanding.prev;
    outstanding.prev->next = a;
    outstanding.prev = a;
    atomic_fetch_add(&n_outstanding, 1);
    pthread_mutex_unlock(&mu);
}

/* Takes a off the list (once); 1 if it was on it. */
static int untrack(cmio_async *a)
{
    pthread_mutex_lock(&mu);
    int on = a->next != a && a->next != NULL;
    if (on) {
        a->next->prev = a->prev;
        a->prev->next = a->next;
        a->next = a->prev = a;
        atomic_fetch_sub(&n_outstanding, 1);
    }
    pthread_mutex_unlock(&mu);
    return on;
}

/* Local (collio's request has run, or runs here): completes a -- its
 * code, a staged read unpacked, the staging freed; off the list. */
static void finish(cmio_async *a)
{
    if (a->req == NULL)
        return;
    int rc = collio_wait(&a->req);
    if (rc == COLLIO_OK && !a->writing && a->staged != NULL) {
        int64_t at = 0;
        for (int64_t i = 0; i < a->mx.n; i++) {
            memcpy((char *)a->buf + a->mx.off[i], a->staged + at, (size_t)a->mx.len[i]);
            at += a->mx.len[i];
        }
    }
    free(a->staged);
    a->staged = NULL;
    cmio_extents_free(&a->mx);
    untrack(a);
    a->e = NULL;
    a->cf = NULL;
    /* (agreed by collio: the same class on every rank) */
    a->rc = rc == COLLIO_OK ? MPI_SUCCESS : MPI_ERR_IO;
    if (rc != COLLIO_OK)
        PMPI_File_call_errhandler(a->fh, MPI_ERR_IO);
}

/* Local: the outstanding accesses that match (under mu), into *out (up
 * to max); how many. match(a, ctx) decides. */
static int collect(int (*match)(const cmio_async *a, const void *ctx), const void *ctx,
                   cmio_async **out, int max)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    for (cmio_async *a = outstanding.next; a != &outstanding && n < max; a = a->next)
        if (match(a, ctx))
            out[n++] = a;
    pthread_mutex_unlock(&mu);
    return n;
}

typedef struct {
    const cmio_entry *e;
    const collio_file *cf;
} settle_ctx;

static int settle_match(const cmio_async *a, const void *ctx)
{
    const settle_ctx *c = ctx;
    return (c->e == NULL && c->cf == NULL) || (c->e != NULL && a->e == c->e)
           || (c->cf != NULL && a->cf == c->cf);
}

enum { BATCH = 64 };

void cmio_async_settle(const cmio_entry *e, const collio_file *cf)
{
    const settle_ctx c = {e, cf};
    cmio_async *got[BATCH];
    int n;
    while ((n = collect(settle_match, &c, got, BATCH)) > 0)
        for (int i = 0; i < n; i++)
            finish(got[i]); /* (each leaves the list) */
}

typedef struct {
    const MPI_Request *reqs;
    int n;
} sleep_ctx;

static int sleep_match(const cmio_async *a, const void *ctx)
{
    const sleep_ctx *c = ctx;
    for (int i = 0; i < c->n && a->greq != MPI_REQUEST_NULL; i++)
        if (c->reqs[i] == a->greq)
            return 1;
    return 0;
}

void cmio_async_sleep(const MPI_Request *reqs, int n)
{
    if (atomic_load(&n_outstanding) == 0)
        return; /* (the program's every other wait: one load) */
    const sleep_ctx c = {reqs, n};
    cmio_async *got[BATCH];
    int k;
    while ((k = collect(sleep_match, &c, got, BATCH)) > 0)
        for (int i = 0; i < k; i++)
            finish(got[i]);
}

void cmio_async_sleep_first(const MPI_Request *reqs, int n)
{
    if (atomic_load(&n_outstanding) == 0)
        return;
    int active = 0;
    for (int i = 0; i < n; i++)
        active += reqs[i] != MPI_REQUEST_NULL;
    cmio_async *got[BATCH];
    const sleep_ctx c = {reqs, n};
    /* (collect keeps the list's order: the earliest started first) */
    int k = active > 0 && active <= BATCH ? collect(sleep_match, &c, got, BATCH) : 0;
    if (k > 0 && k == active)
        finish(got[0]);
}

/* ------------------------------------------------ generalized requests */

void cmio_status_bytes(MPI_Status *st, MPI_Count bytes)
{
    MPI_Status_set_elements_x(st, MPI_BYTE, bytes);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
}

static void set_status(const cmio_async *a, MPI_Status *st)
{
    cmio_status_bytes(st, a->rc == MPI_SUCCESS ? a->bytes : 0);
}

static int query_fn(void *extra, MPI_Status *st)
{
    cmio_async *a = extra;
    finish(a); /* (the first call; it has run: collio_wait returns at once) */
    set_status(a, st);
    return a->rc;
}

static int free_fn(void *extra)
{
    cmio_async *a = extra;
    finish(a); /* (freed without a query: MPI_Request_free) */
    free(a);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete; /* a collective access is not cancelled */
    return MPI_SUCCESS;
}

/* collio_request_notify's callback, on the thread that ran the request:
 * nothing of collio's, only MPI's completion. */
static void ran(void *arg)
{
    MPI_Grequest_complete(((cmio_async *)arg)->greq);
}

int cmio_async_grequest(cmio_async *a, MPI_Request *req)
{
    MPI_Request greq = MPI_REQUEST_NULL;
    int rc = MPI_Grequest_start(query_fn, free_fn, cancel_fn, a, &greq);
    pthread_mutex_lock(&mu); /* (another thread's wait may be looking: collect) */
    a->greq = greq;
    pthread_mutex_unlock(&mu);
    if (rc != MPI_SUCCESS) { /* (MPI's own failure: the access still completes) */
        finish(a);
        free(a);
        *req = MPI_REQUEST_NULL;
        return rc;
    }
    *req = a->greq;
    const int writing = a->writing; /* (a may be completed and freed at once) */
    const int background = collio_request_notify(a->req, ran, a) == COLLIO_OK;
    if (!background) {
        finish(a); /* nothing runs it in the background: now */
        MPI_Grequest_complete(a->greq);
    }
    cmio_count_async(writing, background);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ split collectives */

static void nothing(void *arg)
{
    (void)arg;
}

void cmio_async_split(cmio_file *s, cmio_async *a)
{
    s->split_taken = 1;
    s->split_async = a;
    const int background = collio_request_notify(a->req, nothing, NULL) == COLLIO_OK;
    if (!background)
        finish(a); /* nothing runs it in the background: now */
    cmio_count_async(a->writing, background);
}

int cmio_async_end(cmio_file *s, MPI_Status *st)
{
    cmio_async *a = s->split_async;
    s->split_taken = 0;
    s->split_async = NULL;
    if (a == NULL) /* (no memory for it at _begin: that failed) */
        return MPI_ERR_NO_MEM;
    finish(a);
    int rc = a->rc;
    if (st != MPI_STATUS_IGNORE)
        set_status(a, st);
    free(a);
    return rc;
}
