/*
 * plan_inner.c -- a plan made by another plan's strategy (auto's chosen
 * one), or on another layout of its ranks (k of its executions stacked
 * in one, for the requests: collio__plan_create_on): it shares the outer plan's
 * communicator, node map and checks, so only its options are resolved and its strategy's
 * check and plan() run (collio__plan_create_inner, core/core.h).
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "core/core.h"

#include <string.h>

int collio__plan_create_inner(const collio_plan *outer, const char *strategy,
                              const collio_hints *hints, int rc, collio_plan **out)
{
    return collio__plan_create_on(outer, outer->layout, strategy, hints, rc, out);
}

int collio__plan_create_on(const collio_plan *outer, const collio_layout *layout,
                           const char *strategy, const collio_hints *hints, int rc,
                           collio_plan **out)
{
    const collio__strategy *s = collio__strategy_find(strategy);
    collio_plan *p = calloc(1, sizeof *p);
    if (rc == COLLIO_OK)
        rc = p == NULL ? COLLIO_ERR_NOMEM : s == NULL ? COLLIO_ERR_STRATEGY : COLLIO_OK;
    *out = NULL;
    if (p != NULL) {
        p->comm = MPI_COMM_NULL;
        p->exec_s = p->exec_prev_max_s = -1;
        p->rank = outer->rank;
        p->nranks = outer->nranks;
        p->oversubscribed = outer->oversubscribed;
        p->stats.nnodes = outer->stats.nnodes;
        p->statv = calloc((size_t)collio__nstats_all() + 1, sizeof *p->statv);
        p->node_of = malloc((size_t)outer->nranks * sizeof *p->node_of);
        if (rc == COLLIO_OK && (p->statv == NULL || p->node_of == NULL))
            rc = COLLIO_ERR_NOMEM;
    }
    if (rc == COLLIO_OK) {
        memcpy(p->node_of, outer->node_of, (size_t)outer->nranks * sizeof *p->node_of);
        rc = collio__optvals_resolve(hints, 0, &p->opts); /* (outer's: env in) */
        if (rc == COLLIO_OK)
            p->opts_digest = collio__optvals_digest(&p->opts);
    }
    if (rc == COLLIO_OK && layout->owned != NULL) {
        rc = COLLIO_ERR_ARG; /* (outer resolved its replicas: never the case) */
        collio__error_set(rc, "an inner plan of a replicated layout");
    }
    if (rc == COLLIO_OK)
        rc = collio__layout_clone(layout, &p->layout);
    if (rc == COLLIO_OK) { /* the same options everywhere: the same verdict */
        p->own_opt = collio__option_base(&s->section);
        p->own_stat = collio__stat_base(&s->section);
        p->own_section = collio__section_find(s->section.name, strlen(s->section.name));
        if (s->check != NULL)
            rc = s->check(p);
    }
    /* A plan() that communicates must start on every rank or on none;
     * a light one (local: light_plan) runs where the checks passed, and
     * the one agreement after it covers both */
    const int light = s != NULL && s->light_plan;
    if (!light)
        rc = collio__agree(outer->comm, rc);
    if (rc == COLLIO_OK) {
        p->comm = outer->comm;
        p->comm_borrowed = 1;
        double t0 = collio__now();
        p->strategy = s;
        rc = s->plan(p);
        p->stats.inspect_s = collio__now() - t0;
    }
    if (rc == COLLIO_OK || light)
        rc = collio__agree(outer->comm, rc);
    if (rc != COLLIO_OK) {
        if (p != NULL)
            p->comm_borrowed = 1; /* never free outer's */
        collio__plan_destroy(p);
        return rc;
    }
    *out = p;
    return COLLIO_OK;
}
