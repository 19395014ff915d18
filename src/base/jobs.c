/*
 * jobs.c -- the queue of collective work started now and finished later
 * (collio's requests, src/requests/), and who runs it: a helper thread
 * where MPI gives MPI_THREAD_MULTIPLE, else the application's thread in
 * its next completion call.
 *
 * Every rank submits the same jobs in the same order (each submission is
 * a collective call), and jobs run in that order, so every rank runs the
 * same collectives in the same order whichever thread runs them. Jobs at
 * the head that may run in one execution (job->joins) are taken together:
 * how many, the ranks agree on (the minimum of what each has queued, one
 * Allreduce on the job's own communicator), since one rank may have
 * queued more than another when its runner looks.
 *
 * A job submitted held (released = 0) waits for the next completion call
 * (collio__jobs_wait, _test, _progress, _drain), which runs it: so that
 * requests waited for together are taken together. One runner at a time: the helper
 * thread and a waiting application thread never run two jobs at once, and every other
 * collective entry of the library drains the queue first
 * (collio__jobs_drain), so that the background's collectives and the
 * application's never interleave on any rank.
 */
#include "base/base.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BATCH = 1024 };

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    collio__job *head, *tail; /* the queue, in submission order */
    collio__job live;         /* sentinel of the live list (submitted, not retired) */
    int busy;                 /* a runner is executing a batch */
    int thread;               /* 1: the helper thread runs */
    int stop;
    pthread_t tid;
} q = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .work = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER,
       .live = {.live_next = &q.live, .live_prev = &q.live}};

/* 1 on the thread that runs a batch, while it does: the library's own
 * calls made by a job (auto's calibration creates plans and opens files)
 * are part of it, and must not wait for the queue the job is in. */
static _Thread_local int in_job;

/* Under q.mu: the jobs at the head that may run together (the head's
 * batch as this rank sees it), at most max. */
static int local_batch(collio__job **batch, int max)
{
    int n = 0;
    for (collio__job *j = q.head; j != NULL && n < max && j->released; j = j->next) {
        if (n > 0 && (j->joins == NULL || !j->joins(q.head, j)))
            break;
        batch[n++] = j;
    }
    return n;
}

/* Runs the head's batch. Called with q.mu held and q.busy set by the
 * caller; returns with q.mu held, the batch done and q.busy cleared. */
static void run_head(int on_thread)
{
    collio__job *batch[MAX_BATCH];
    int n = local_batch(batch, MAX_BATCH);
    pthread_mutex_unlock(&q.mu);
    int agreed = n;
    if (MPI_Allreduce(&n, &agreed, 1, MPI_INT, MPI_MIN, batch[0]->comm) != MPI_SUCCESS)
        agreed = 1; /* (the job's own execution reports the MPI failure) */
    if (agreed < 1)
        agreed = 1;
    double t0 = collio__now();
    for (int i = 0; i < agreed; i++)
        batch[i]->t_start = t0;
    in_job = 1;
    batch[0]->run(batch, agreed, on_thread);
    in_job = 0;
    double t1 = collio__now();
    /* the notices, before the jobs count as done (a completion call then
     * returns after them), called without the lock: one may call into MPI
     * (MPI_Grequest_complete), whose own lock another thread may hold
     * while it waits for this queue's */
    struct {
        void (*fn)(void *);
        void *arg;
    } told[MAX_BATCH];
    int nt = 0;
    pthread_mutex_lock(&q.mu);
    for (int i = 0; i < agreed; i++) {
        batch[i]->ran = 1; /* (a notice asked from now on is called at once) */
        if (batch[i]->notify != NULL) {
            told[nt].fn = batch[i]->notify;
            told[nt++].arg = batch[i]->notify_arg;
            batch[i]->notify = NULL;
        }
    }
    if (nt > 0) {
        pthread_mutex_unlock(&q.mu);
        for (int i = 0; i < nt; i++)
            told[i].fn(told[i].arg);
        pthread_mutex_lock(&q.mu);
    }
    for (int i = 0; i < agreed; i++) {
        q.head = batch[i]->next;
        batch[i]->t_end = t1;
        batch[i]->state = COLLIO__JOB_DONE;
    }
    if (q.head == NULL)
        q.tail = NULL;
    q.busy = 0;
    pthread_cond_broadcast(&q.done);
    pthread_cond_broadcast(&q.work);
}

/* Under q.mu: the head may be run by the helper thread now. */
static int thread_can_run(void)
{
    return !q.busy && q.head != NULL && q.head->released && q.head->worker_ok;
}

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&q.mu);
    while (!q.stop) {
        if (!thread_can_run()) {
            pthread_cond_wait(&q.work, &q.mu);
            continue;
        }
        q.busy = 1;
        run_head(1);
    }
    pthread_mutex_unlock(&q.mu);
    return NULL;
}

/* At MPI_Finalize (MPI_COMM_SELF's attribute is deleted first, while MPI
 * still works): what is queued runs, the helper thread ends. */
static int at_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    collio__jobs_drain();
    pthread_mutex_lock(&q.mu);
    int joined = q.thread;
    q.stop = 1;
    q.thread = 0;
    pthread_cond_broadcast(&q.work);
    pthread_mutex_unlock(&q.mu);
    if (joined)
        pthread_join(q.tid, NULL);
    return MPI_SUCCESS;
}

/* MPI gives MPI_THREAD_MULTIPLE, and COLLIO_PROGRESS_THREAD is not "0". */
static int thread_available(void)
{
    int level = MPI_THREAD_SINGLE;
    if (MPI_Query_thread(&level) != MPI_SUCCESS || level != MPI_THREAD_MULTIPLE)
        return 0;
    const char *env = getenv("COLLIO_PROGRESS_THREAD");
    return env == NULL || strcmp(env, "0") != 0;
}

/* Under q.mu: the helper thread, started once (and the finalize hook). */
static void start_thread(void)
{
    if (q.thread || q.stop || !thread_available())
        return;
    int key;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, NULL)
            != MPI_SUCCESS
        || MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) != MPI_SUCCESS)
        return; /* no hook, no thread: the application's thread runs them */
    q.thread = pthread_create(&q.tid, NULL, helper, NULL) == 0;
}

void collio__jobs_submit(collio__job *j)
{
    pthread_mutex_lock(&q.mu);
    j->state = COLLIO__JOB_QUEUED;
    j->next = NULL;
    j->orphan = 0;
    j->notify = NULL;
    j->ran = 0;
    if (j->worker_ok)
        start_thread();
    j->worker_ok = j->worker_ok && q.thread;
    if (q.tail != NULL)
        q.tail->next = j;
    else
        q.head = j;
    q.tail = j;
    j->live_next = &q.live;
    j->live_prev = q.live.live_prev;
    q.live.live_prev->live_next = j;
    q.live.live_prev = j;
    pthread_cond_broadcast(&q.work);
    pthread_mutex_unlock(&q.mu);
}

/* Under q.mu. */
static void release_all(void)
{
    for (collio__job *j = q.head; j != NULL; j = j->next)
        j->released = 1;
    pthread_cond_broadcast(&q.work);
}

/* Until j is done (j NULL: until the queue is empty; own_only: until the
 * head is the helper thread's): the helper thread runs what it may, this
 * thread the rest. */
static void run_until(const collio__job *j, int own_only)
{
    if (in_job)
        return; /* (a job's own call: the job is under way) */
    pthread_mutex_lock(&q.mu);
    release_all();
    while (j != NULL ? j->state != COLLIO__JOB_DONE : q.head != NULL) {
        if (own_only && !q.busy && q.thread && q.head->worker_ok)
            break;
        if (q.busy || (q.thread && q.head->worker_ok)) {
            pthread_cond_wait(&q.done, &q.mu);
            continue;
        }
        q.busy = 1;
        run_head(0);
    }
    pthread_mutex_unlock(&q.mu);
}

void collio__jobs_wait(const collio__job *j)
{
    run_until(j, 0);
}

void collio__jobs_progress(void)
{
    run_until(NULL, 1);
}

int collio__jobs_test(const collio__job *j)
{
    pthread_mutex_lock(&q.mu);
    release_all();
    int done = j->state == COLLIO__JOB_DONE, helped = q.thread && j->worker_ok;
    pthread_mutex_unlock(&q.mu);
    if (!done && !helped) { /* nobody else will: run it now */
        run_until(j, 0);
        done = 1;
    }
    return done;
}

void collio__jobs_drain(void)
{
    if (in_job)
        return;
    pthread_mutex_lock(&q.mu);
    int idle = q.head == NULL;
    pthread_mutex_unlock(&q.mu);
    if (!idle)
        run_until(NULL, 0);
}

int collio__jobs_notify(collio__job *j, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&q.mu);
    int done = j->state == COLLIO__JOB_DONE || j->ran, background = q.thread;
    for (const collio__job *k = q.head; !done && background && k != NULL; k = k->next) {
        background = k->released && k->worker_ok;
        if (k == j)
            break;
    }
    if (!done && background) {
        j->notify = fn;
        j->notify_arg = arg;
    }
    pthread_mutex_unlock(&q.mu);
    if (done)
        fn(arg);
    return done || background;
}

void collio__jobs_retire(collio__job *j)
{
    pthread_mutex_lock(&q.mu);
    if (j->live_next != NULL) {
        j->live_prev->live_next = j->live_next;
        j->live_next->live_prev = j->live_prev;
        j->live_next = j->live_prev = NULL;
    }
    pthread_mutex_unlock(&q.mu);
}

int collio__jobs_forget(const void *plan, const void *file, void (*each)(collio__job *j))
{
    pthread_mutex_lock(&q.mu);
    int n = 0;
    for (collio__job *j = q.live.live_next; j != &q.live; j = j->live_next) {
        if (j->orphan || (plan != NULL && j->plan != plan)
            || (file != NULL && j->file != file))
            continue;
        j->orphan = 1;
        n++;
        if (each != NULL)
            each(j);
    }
    pthread_mutex_unlock(&q.mu);
    return n;
}
