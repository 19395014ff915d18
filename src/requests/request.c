/*
 * request.c -- collio's requests: a collio_write_at / collio_read_at
 * started now and completed later (include/collio.h, docs/requests.md).
 * A request is a job of the queue (base/jobs.c), which runs it on the
 * helper thread or in a completion call; requests/run.c runs a batch;
 * their options and statistics are requests/section.c's.
 */
#include "base/base.h"
#include "options/options.h"
#include "core/core.h"
#include "requests/requests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int start(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                 size_t buf_bytes, int writing, collio_request **req, const char *fn)
{
    collio__error_begin();
    int rc = collio__mpi_usable(fn);
    if (rc == COLLIO_OK && plan == NULL) {
        rc = COLLIO_ERR_ARG; /* no plan, no communicator: NULL on every rank */
        collio__error_set(rc, "%s: the plan is NULL", fn);
    }
    if (req != NULL)
        *req = NULL;
    if (rc != COLLIO_OK)
        return rc;
    collio_request *r = calloc(1, sizeof *r);
    if (r == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "%s: no memory for a request", fn);
        return COLLIO_ERR_NOMEM; /* (the others' then wait: as any lost rank) */
    }
    *r = (collio_request){.plan = plan,
                          .file = f,
                          .offset = offset,
                          .buf = buf,
                          .bytes = buf_bytes,
                          .writing = writing,
                          .fn = fn};
    if (req == NULL) { /* run all the same, failing, so that the others' fail */
        r->pre_rc = COLLIO_ERR_ARG;
        collio__error_set(r->pre_rc, "%s: req is NULL", fn);
        snprintf(r->why, sizeof r->why, "%s", collio_last_error());
    } else if (writing && buf != NULL && collio__req_opt(plan, COLLIO__REQ_SNAPSHOT)) {
        r->snapshot = collio__bigbuf_alloc(buf_bytes > 0 ? buf_bytes : 1);
        if (r->snapshot == NULL) {
            r->pre_rc = COLLIO_ERR_NOMEM;
            snprintf(r->why, sizeof r->why, "%s: no memory for the snapshot", fn);
        } else {
            memcpy(r->snapshot, buf, buf_bytes);
            r->buf = r->snapshot;
        }
    }
    collio__req_init_job(r);
    collio__jobs_submit(&r->job);
    if (req != NULL)
        *req = r;
    return r->pre_rc == COLLIO_ERR_ARG ? COLLIO_ERR_ARG : COLLIO_OK;
}

int collio_iwrite_at(collio_plan *plan, collio_file *f, int64_t offset, const void *buf,
                     size_t buf_bytes, collio_request **req)
{
    return start(plan, f, offset, (void *)buf, buf_bytes, 1, req, "collio_iwrite_at");
}

int collio_iwrite(collio_plan *plan, collio_file *f, const void *buf, size_t buf_bytes,
                  collio_request **req)
{
    return start(plan, f, 0, (void *)buf, buf_bytes, 1, req, "collio_iwrite");
}

int collio_iread_at(collio_plan *plan, collio_file *f, int64_t offset, void *buf,
                    size_t buf_bytes, collio_request **req)
{
    return start(plan, f, offset, buf, buf_bytes, 0, req, "collio_iread_at");
}

int collio_iread(collio_plan *plan, collio_file *f, void *buf, size_t buf_bytes,
                 collio_request **req)
{
    return start(plan, f, 0, buf, buf_bytes, 0, req, "collio_iread");
}

/* Local, once r has run: its code and message, the waiting statistics on
 * its plan; frees r. since: when the completion call began. */
static int complete(collio_request **req, double since)
{
    collio_request *r = *req;
    double now = collio__now();
    int rc = r->rc;
    collio__jobs_retire(&r->job);
    if (r->job.orphan && rc == COLLIO_OK) {
        rc = COLLIO_ERR_STATE;
        snprintf(r->why, sizeof r->why,
                 "%s: its plan was freed or its file closed before it was completed",
                 r->fn);
    }
    if (rc != COLLIO_OK)
        collio__error_set(rc, "%s", r->why);
    if (!r->job.orphan) {
        double run = r->job.t_end - r->job.t_start;
        double before = since - r->job.t_start;
        double overlap = run <= 0 || before >= run ? 1 : before <= 0 ? 0 : before / run;
        collio__req_stat_set(r->plan, COLLIO__REQ_ST_WAIT_S, now - since);
        collio__req_stat_set(r->plan, COLLIO__REQ_ST_OVERLAP, overlap);
    }
    collio__bigbuf_free(r->snapshot);
    free(r);
    *req = NULL;
    return rc;
}

int collio_wait(collio_request **req)
{
    collio__error_begin();
    if (req == NULL || *req == NULL)
        return COLLIO_OK;
    double t0 = collio__now();
    collio__jobs_wait(&(*req)->job);
    return complete(req, t0);
}

int collio_test(collio_request **req, int *done)
{
    collio__error_begin();
    if (done != NULL)
        *done = 1;
    if (req == NULL || *req == NULL)
        return COLLIO_OK;
    double t0 = collio__now();
    int d = collio__jobs_test(&(*req)->job);
    if (done != NULL)
        *done = d;
    return d ? complete(req, t0) : COLLIO_OK;
}

int collio_waitall(int n, collio_request *reqs[], int codes[])
{
    collio__error_begin();
    double t0 = collio__now();
    int rc = COLLIO_OK;
    char why[sizeof((collio_request *)0)->why] = "";
    for (int i = 0; i < n && reqs != NULL; i++) {
        int c = COLLIO_OK;
        if (reqs[i] != NULL) {
            collio__jobs_wait(&reqs[i]->job); /* (the first runs them all) */
            c = complete(&reqs[i], t0);
        }
        if (codes != NULL)
            codes[i] = c;
        if (c != COLLIO_OK && rc == COLLIO_OK) {
            rc = c;
            snprintf(why, sizeof why, "%s", collio_last_error());
        }
    }
    if (rc != COLLIO_OK)
        collio__error_set(rc, "%s", why);
    return rc;
}

int collio_testall(int n, collio_request *reqs[], int *done, int codes[])
{
    collio__error_begin();
    int all = 1;
    for (int i = 0; i < n && reqs != NULL; i++)
        if (reqs[i] != NULL && !collio__jobs_test(&reqs[i]->job))
            all = 0;
    if (done != NULL)
        *done = all;
    return all ? collio_waitall(n, reqs, codes) : COLLIO_OK;
}

int collio_request_notify(collio_request *req, void (*fn)(void *arg), void *arg)
{
    collio__error_begin();
    if (req == NULL || fn == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_request_notify: %s is NULL",
                          req == NULL ? "req" : "fn");
        return COLLIO_ERR_ARG;
    }
    if (!collio__jobs_notify(&req->job, fn, arg)) {
        collio__error_set(COLLIO_ERR_STATE,
                          "collio_request_notify: nothing runs the request in the "
                          "background (no helper thread, or it is held): complete it "
                          "with collio_wait or collio_test");
        return COLLIO_ERR_STATE;
    }
    return COLLIO_OK;
}

int collio_progress(void)
{
    collio__jobs_progress();
    return COLLIO_OK;
}
