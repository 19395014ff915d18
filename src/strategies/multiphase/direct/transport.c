/*
 * direct/transport.c -- the direct transport of the multiphase strategy:
 * the plan's whole layout moved by one direct exchange (exchange.c) into
 * F, the domain each rank writes, which then goes to the file in one
 * request; reads the same backwards. Its state: the exchange
 * (collio__mp_direct), behind mp->state.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "../multiphase.h"

static const collio__mp_direct *state_of(const collio_plan *p)
{
    const collio__mp_plan *mp = p->impl;
    return mp->state;
}

/* Collective: F, the rank's domain buffer, as buffer 0. */
static int alloc_f(collio_plan *p, collio__mp_bufs *wb)
{
    const collio__mp_plan *mp = p->impl;
    const int64_t need[2] = {mp->fsize, 0};
    int rc = collio__mp_bufs_alloc(p, wb, need, 0);
    collio__stat_set(p, MP_STAT_NPHASES, 1);
    return rc;
}

static int direct_write(collio_plan *p, collio_file *f, const char *stream)
{
    const collio__mp_direct *d = state_of(p);
    collio__mp_bufs wb;
    int rc = alloc_f(p, &wb);
    if (rc != COLLIO_OK)
        return rc;
    /* (the stream is only read) */
    rc = collio__mp_direct_move(p, d, (char *)stream, wb.buf[0], 1, 0);
    if (rc == COLLIO_OK)
        rc = collio__mp_file_runs(p, &d->fin, f, wb.buf[0], 1);
    collio__mp_bufs_done(p, &wb);
    return rc;
}

/* A failed file read still takes part in the exchange (the others wait
 * for its messages); the error is returned at the end. */
static int direct_read(collio_plan *p, collio_file *f, char *stream)
{
    const collio__mp_direct *d = state_of(p);
    collio__mp_bufs wb;
    int rc = alloc_f(p, &wb);
    if (rc != COLLIO_OK)
        return rc;
    rc = collio__mp_file_runs(p, &d->fin, f, wb.buf[0], 0);
    int x = collio__mp_direct_move(p, d, stream, wb.buf[0], 0, 0);
    if (rc == COLLIO_OK)
        rc = x;
    collio__mp_bufs_done(p, &wb);
    return rc;
}

/* ---------------------------------------------------------- transport */

/* Collective: the plan's direct exchange over messages, every rank's
 * whole layout into the domain it writes. */
static int direct_build(collio_plan *p, collio__mp_plan *mp)
{
    const collio_layout *l = p->layout;
    int64_t lo, hi;
    collio__domain_range(l->nglobal, p->nranks,
                         collio__mp_domain_of_rank(p->nranks, p->rank), &lo, &hi);
    collio__stat_set(p, MP_STAT_NPHASES, 1);
    mp->fsize = hi - lo;
    collio__mp_direct *d = NULL;
    int rc = collio__mp_direct_new(p, l->segs, l->nsegs, COLLIO_OK, lo, lo, hi, 0, &d);
    mp->state = d; /* (freed by direct_plan_free, also after a failure) */
    if (rc == COLLIO_OK)
        rc = collio__mp_final_domain(&d->fin, lo, hi);
    rc = collio__agree(p->comm, rc);
    if (rc == COLLIO_OK)
        p->stats.plan_bytes = (int64_t)sizeof *mp + collio__mp_direct_bytes(d);
    return rc;
}

static void direct_plan_free(collio__mp_plan *mp)
{
    collio__mp_direct_free(mp->state);
    mp->state = NULL;
}

const collio__mp_transport collio__mp_transport_direct = {
    .name = "direct",
    .build = direct_build,
    .write = direct_write,
    .read = direct_read,
    .free = direct_plan_free,
};
