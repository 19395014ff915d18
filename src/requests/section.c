/*
 * section.c -- the requests' options and statistics: the catalogue's
 * section "request" (docs/options.md lists them), and their values on a
 * plan.
 */
#include "base/base.h"
#include "options/options.h"
#include "core/core.h"
#include "requests/requests.h"

static const char *const start_names[] = {"now", "wait"};
static const collio__option req_options[] = {
    [COLLIO__REQ_START] = {"start", COLLIO__OPT_NAME, 0, 0, 1, start_names, NULL,
                           "now: a request may run as soon as it is started (in the "
                           "background where a helper thread runs); wait: it is held "
                           "until a completion call, which runs it, so that requests "
                           "waited for together run as one execution"},
    [COLLIO__REQ_THREAD] = {"thread", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                            "run requests on a helper thread where MPI gives "
                            "MPI_THREAD_MULTIPLE (and COLLIO_PROGRESS_THREAD is not 0)"},
    [COLLIO__REQ_SNAPSHOT] = {"snapshot", COLLIO__OPT_BOOL, 0, 0, 1, NULL, NULL,
                              "a write request copies the caller's data when it starts "
                              "(the buffer may be reused at once; the copy counts in "
                              "work_bytes)"},
};
static const collio__stat req_stats[] = {
    [COLLIO__REQ_ST_MERGED] = {"merged", 1, 0,
                               "requests the last execution ran (1: a request alone; 0: "
                               "a blocking call)"},
    [COLLIO__REQ_ST_THREAD] = {"thread", 1, 0,
                               "1: the last request ran on the helper thread, 0: in the "
                               "caller's thread"},
    [COLLIO__REQ_ST_WAIT_S] = {"wait_s", 1, 0,
                               "seconds the last completed request's wait (or test) "
                               "blocked"},
    [COLLIO__REQ_ST_OVERLAP] = {"overlap", 1, 0,
                                "of the last completed request's execution, the fraction "
                                "done before its wait began"},
};
const collio__section collio__request_section = {
    "request", req_options, (int)(sizeof req_options / sizeof req_options[0]), req_stats,
    (int)(sizeof req_stats / sizeof req_stats[0])};

int64_t collio__req_opt(const collio_plan *p, int i)
{
    return p->opts.v[collio__option_base(&collio__request_section) + i];
}

void collio__req_stat_set(collio_plan *p, int i, double v)
{
    p->statv[collio__stat_base(&collio__request_section) + i] = v;
}
