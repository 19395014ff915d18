/*
 * plan.c -- plans: the inspector / executor split of every strategy; this
 * file makes plans (the inspector), core/execute.c runs them (the executor).
 *
 * collio_plan_create resolves the options (the defaults, the hints,
 * COLLIO_HINTS: options.c), checks the collective arguments and the
 * options' digest, asks the strategy's check hook what its table cannot
 * say, takes the plan's own copies (a duplicated communicator, a clone of
 * the layout, every option's value) and runs the strategy's plan() once: everything that
 * depends only on the layout is computed there (the inspector). collio_write /
 * collio_read then only move data (core/execute.c).
 *
 * Every collective step here is taken by every rank, also after a local
 * failure: local errors are carried to the next collio__agree.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"
#include "replicas/replicas.h"

void collio__plan_destroy(collio_plan *p)
{
    if (p == NULL)
        return;
    collio__plan_destroy(p->stack); /* (it borrows p's communicator) */
    if (p->strategy != NULL && p->strategy->free != NULL)
        p->strategy->free(p);
    collio_layout_free(&p->layout);
    collio__repl_free(&p->repl);
    collio__bigbuf_free(p->user_stream);
    collio__bigbuf_free(p->strat_stream);
    if (p->comm != MPI_COMM_NULL && !p->comm_borrowed)
        MPI_Comm_free(&p->comm);
    collio__optvals_free(&p->opts);
    free(p->statv);
    free(p->node_of);
    free(p);
}

/* Local: the layout was made on a communicator of the same group as comm,
 * in the same order (MPI_Comm_compare would say IDENT or CONGRUENT). */
static int same_group(MPI_Comm comm, const collio_layout *layout)
{
    MPI_Group g = MPI_GROUP_NULL;
    int cmp = MPI_UNEQUAL, size = 0;
    MPI_Comm_size(comm, &size);
    if (MPI_Comm_group(comm, &g) != MPI_SUCCESS) {
        collio__error_set(COLLIO_ERR_MPI, "collio_plan_create: MPI_Comm_group failed");
        return COLLIO_ERR_MPI;
    }
    if (layout->group != MPI_GROUP_NULL)
        MPI_Group_compare(layout->group, g, &cmp);
    MPI_Group_free(&g);
    if (cmp == MPI_IDENT)
        return COLLIO_OK;
    collio__error_set(COLLIO_ERR_MISMATCH,
                      "the layout was made on another communicator than the plan's "
                      "(%d ranks, this one rank %d of them; the plan's: %d ranks%s)",
                      layout->nranks, layout->rank, size,
                      cmp == MPI_SIMILAR ? ", the same processes in another order"
                                         : ", other processes");
    return COLLIO_ERR_MISMATCH;
}

/* Collective: the arguments every rank must agree on (rc: this rank's
 * result so far -- its hints resolved into p's values, or not); then the
 * strategy's check of what its option table cannot say. Returns the
 * agreed code. */
static int check_args(MPI_Comm comm, const collio_layout *layout, const char *strategy,
                      collio_plan *p, int rc, collio_plan **out)
{
    if (rc == COLLIO_OK && (layout == NULL || out == NULL)) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_plan_create: %s is NULL",
                          !layout ? "layout" : "out");
    }
    if (rc == COLLIO_OK)
        rc = same_group(comm, layout);

    /* What every rank's layout says of the file (a layout made on another
     * communicator may pass the group check on some ranks only). */
    uint64_t h = 0;
    if (layout != NULL) {
        h = collio__hash_mix(0x6c61796f, (uint64_t)layout->nglobal);
        h = collio__hash_mix(h, (uint64_t)layout->esize);
        h = collio__hash_mix(h, (uint64_t)layout->kind * 2 + (layout->owned != NULL));
    }
    int same_layout = collio__check_same_digest(
        comm, h, "the layouts (nglobal, esize, kind, replicated)");
    if (rc == COLLIO_OK && same_layout != COLLIO_OK)
        rc = same_layout;

    /* Same name everywhere (checked first: a name that differs is a
     * mismatch even when one of them is unknown), then known everywhere. */
    int same = collio__check_same_str(comm, strategy != NULL ? strategy : "",
                                      "the strategy name");
    if (rc == COLLIO_OK && same != COLLIO_OK)
        rc = same;
    const collio__strategy *s = collio__strategy_find(strategy);
    if (rc == COLLIO_OK && s == NULL) {
        rc = COLLIO_ERR_STRATEGY;
        collio__error_set(rc, "unknown strategy '%.64s'", strategy);
    }

    /* Every option of every section (options.c): one that differs could
     * make ranks take different collective paths. */
    uint64_t digest =
        p != NULL && p->opts.v != NULL ? collio__optvals_digest(&p->opts) : 0;
    if (p != NULL)
        p->opts_digest = digest; /* (the options never change after this) */
    int same_opts = collio__check_same_digest(comm, digest, "plan options (hints)");
    if (rc == COLLIO_OK && same_opts != COLLIO_OK)
        rc = same_opts;

    /* What the strategy's table cannot say, once the options are known to
     * be the same everywhere (so is the result; agreed all the same). */
    if (rc == COLLIO_OK) {
        p->own_opt = collio__option_base(&s->section);
        p->own_stat = collio__stat_base(&s->section);
        p->own_section = collio__section_find(s->section.name, strlen(s->section.name));
        if (s->check != NULL)
            rc = s->check(p);
    }
    return collio__agree(comm, rc);
}

/* collio_plan_create; with_env = 0: collio__plan_create_nested */
static int plan_create(MPI_Comm comm, const collio_layout *layout, const char *strategy,
                       const collio_hints *hints, int with_env, collio_plan **out)
{
    collio__error_begin();
    if (strategy == NULL)
        strategy = COLLIO__DEFAULT_STRATEGY;
    if (out != NULL)
        *out = NULL;
    int rc = collio__mpi_usable("collio_plan_create");
    if (rc != COLLIO_OK)
        return rc;
    if (comm == MPI_COMM_NULL) { /* no communicator to tell the others: local */
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_create: comm is MPI_COMM_NULL");
        return COLLIO_ERR_ARG;
    }
    static _Atomic uint64_t serials;
    collio_plan *p = calloc(1, sizeof *p);
    if (p != NULL) {
        p->serial = ++serials;
        p->comm = MPI_COMM_NULL;
        p->exec_s = p->exec_prev_max_s = -1;
        p->statv = calloc((size_t)collio__nstats_all() + 1, sizeof *p->statv);
        rc = p->statv != NULL ? collio__optvals_resolve(hints, with_env, &p->opts)
                              : COLLIO_ERR_NOMEM;
        if (rc == COLLIO_OK && with_env)
            rc = collio__alias_env_check();
    } else {
        rc = COLLIO_ERR_NOMEM;
    }
    if (rc == COLLIO_ERR_NOMEM)
        collio__error_set(rc, "collio_plan_create: no memory");
    rc = check_args(comm, layout, strategy, p, rc, out);
    if (rc != COLLIO_OK) {
        collio__plan_destroy(p);
        return rc;
    }
    if (MPI_Comm_dup(comm, &p->comm) != MPI_SUCCESS) {
        p->comm = MPI_COMM_NULL;
        rc = COLLIO_ERR_MPI;
    } else {
        /* MPI errors inside the library become collio errors, agreed on
         * every rank, never an abort; communicators split from this one
         * inherit the handler (windows and files set their own) */
        MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
    }
    MPI_Comm_rank(comm, &p->rank);
    MPI_Comm_size(comm, &p->nranks);
    if (rc == COLLIO_OK)
        rc = collio__layout_clone(layout, &p->layout);
    rc = collio__agree(comm, rc);
    if (rc == COLLIO_OK)
        rc = collio__plan_nodes(p);
    if (rc == COLLIO_OK) {
        int mates = 0; /* ranks on this rank's node */
        for (int q = 0; q < p->nranks; q++)
            mates += p->node_of[q] == p->node_of[p->rank];
        p->oversubscribed = collio__node_oversubscribed(p->comm, mates);
    }
    if (rc != COLLIO_OK) {
        collio__plan_destroy(p);
        return rc;
    }

    /* The inspector. Replicas are resolved first, above the strategies:
     * the strategy then plans the elements this rank writes, an ordinary
     * partition (replicas/plan.c). strategy is set only now, so that
     * collio__plan_destroy calls its free() only once its plan() has run. */
    double t0 = collio__now();
    if (p->layout->owned != NULL) {
        collio_layout *user = p->layout;
        p->layout = NULL;
        rc = collio__repl_plan(p, user, collio__strategy_find(strategy));
        if (rc != COLLIO_OK) {
            collio__plan_destroy(p);
            return rc;
        }
    }
    p->strategy = collio__strategy_find(strategy);
    rc = p->strategy->plan(p);
    p->stats.inspect_s = collio__now() - t0;
    rc = collio__agree(comm, rc);
    if (rc != COLLIO_OK) {
        collio__plan_destroy(p);
        return rc;
    }
    *out = p;
    return COLLIO_OK;
}

int collio_plan_create(MPI_Comm comm, const collio_layout *layout, const char *strategy,
                       const collio_hints *hints, collio_plan **out)
{
    collio__jobs_drain(); /* (the queued requests' collectives come first) */
    return plan_create(comm, layout, strategy, hints, 1, out);
}
int collio__plan_create_nested(MPI_Comm comm, const collio_layout *layout,
                               const char *strategy, const collio_hints *hints,
                               collio_plan **out)
{
    return plan_create(comm, layout, strategy, hints, 0, out);
}

int collio_plan_stats(const collio_plan *plan, collio_stats *out)
{
    collio__error_begin();
    if (plan == NULL || out == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_stats: %s is NULL",
                          plan == NULL ? "the plan" : "out");
        return COLLIO_ERR_ARG;
    }
    *out = plan->stats;
    return COLLIO_OK;
}

int collio_plan_hints(const collio_plan *plan, collio_hints **out)
{
    collio__error_begin();
    if (plan == NULL || out == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_hints: %s is NULL",
                          plan == NULL ? "the plan" : "out");
        return COLLIO_ERR_ARG;
    }
    return collio__optvals_to_hints(&plan->opts, out);
}

int collio_plan_predict(const collio_plan *plan, const collio_file *f, int writing,
                        int *candidate, double *seconds)
{
    collio__error_begin();
    if (plan == NULL || f == NULL || candidate == NULL || seconds == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_predict: an argument is NULL");
        return COLLIO_ERR_ARG;
    }
    *candidate = -1;
    *seconds = -1;
    if (plan->strategy->predict != NULL)
        plan->strategy->predict(plan, f, writing, candidate, seconds);
    return COLLIO_OK;
}

int collio_plan_prepare(collio_plan *plan, collio_file *f, int writing)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_plan_prepare");
    if (rc == COLLIO_OK && plan == NULL) {
        rc = COLLIO_ERR_ARG; /* (no communicator to tell the others: local) */
        collio__error_set(rc, "collio_plan_prepare: the plan is NULL");
    }
    if (rc != COLLIO_OK)
        return rc;
    if (f == NULL) {
        rc = COLLIO_ERR_ARG;
        collio__error_set(rc, "collio_plan_prepare: the file is NULL");
    }
    const int64_t same[2] = {writing != 0, f != NULL ? (int64_t)f->id : -1};
    if (!collio__all_ok_and_same(plan->comm, rc, same, 2)) {
        rc = collio__agree(plan->comm, rc);
        if (rc == COLLIO_OK)
            rc = collio__check_same_i64(plan->comm, same[0], "writing");
        if (rc == COLLIO_OK)
            rc = collio__check_same_i64(plan->comm, same[1], "the file");
        return rc;
    }
    if (plan->strategy->prepare != NULL)
        rc = collio__agree(plan->comm, plan->strategy->prepare(plan, f, writing != 0));
    return rc;
}

const char *collio_plan_strategy(const collio_plan *plan)
{
    return plan != NULL && plan->strategy != NULL ? plan->strategy->section.name : NULL;
}

/* A request on a plan freed before its completion: its file is not
 * committed (its caller never learnt whether it was written). */
static void abandoned(collio__job *j)
{
    collio__error_set(COLLIO_ERR_STATE,
                      "collio_plan_free: a request on the plan was not completed "
                      "(collio_wait): it fails, and its file is not committed");
    collio__file_mark_failed((collio_file *)j->file);
}

void collio_plan_free(collio_plan **plan)
{
    if (plan == NULL || *plan == NULL)
        return;
    if (collio__mpi_alive()) {
        collio__jobs_drain();
        collio__jobs_forget(*plan, NULL, abandoned);
        collio__plan_destroy(*plan);
    }
    /* else: MPI's objects are gone with MPI, and so must the plan's memory
     * stay (its strategy state holds MPI handles): left to the process */
    *plan = NULL;
}
