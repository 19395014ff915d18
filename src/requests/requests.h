/*
 * requests/requests.h -- requests: a request's state, its options and
 * statistics (section "request" of the catalogue), and what runs a batch
 * of them (the files of src/requests/).
 */
#ifndef COLLIO_REQUESTS_REQUESTS_H
#define COLLIO_REQUESTS_REQUESTS_H

#include "collio.h"

#include "base/base.h"

enum { COLLIO__REQ_START = 0, COLLIO__REQ_THREAD, COLLIO__REQ_SNAPSHOT };
enum {
    COLLIO__REQ_ST_MERGED = 0,
    COLLIO__REQ_ST_THREAD,
    COLLIO__REQ_ST_WAIT_S,
    COLLIO__REQ_ST_OVERLAP
};

struct collio_request {
    collio__job job; /* the queue's view of it */
    collio_plan *plan;
    collio_file *file;
    int64_t offset;
    void *buf; /* the caller's, or the snapshot */
    size_t bytes;
    int writing;
    const char *fn; /* the call that started it, for its errors */
    void *snapshot; /* request.snapshot: the copy of a write's data */
    int pre_rc;     /* an error found when it started (this rank's) */
    int rc;         /* its agreed code, once it has run */
    char why[512];  /* collio_last_error() of its run, when rc fails */
};

/* A request's option i and stat i on plan p (request.c). */
int64_t collio__req_opt(const collio_plan *p, int i);
void collio__req_stat_set(collio_plan *p, int i, double v);

/* Sets r->job's fields from the request: its communicator, what it joins
 * and how a batch of them runs (run.c). */
void collio__req_init_job(collio_request *r);

#endif /* COLLIO_REQUESTS_REQUESTS_H */
