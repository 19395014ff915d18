/*
 * replicas/plan.c -- plans on replicated layouts: the inspector resolves
 * the replicas above the strategies, so every strategy composes with every
 * policy unchanged.
 *
 * At plan creation: classify (replicas/classify.c), choose the writers
 * (replicas/policy.c), tell each holder which of its elements it writes,
 * and make the "writer layout" -- the elements this rank writes, in its
 * buffer order; a partition of [0, nglobal), so an ordinary index list --
 * on which the plan's strategy is planned. A write packs the written
 * elements out of the user's stream (runs of consecutive positions; no
 * copy at all on a rank that writes everything it holds) and runs the
 * strategy. A read runs the strategy into the writer stream and fills the
 * other replicas from their writers with one MPI_Alltoallv whose lists
 * were made here, once.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "core/core.h"
#include "replicas/replicas.h"

#include <stdint.h>
#include <string.h>

/* The section "replicas": its options (hints "replicas.NAME") and its
 * stats (collio_plan_stat "replicas.NAME"; seed 003 section 6.2: an
 * interval is a run of consecutive elements written by one rank). All
 * zero on plans of other layouts. */
enum { OPT_POLICY, OPT_SEED };
static const collio__option repl_options[] = {
    [OPT_POLICY] = {"policy", COLLIO__OPT_NAME, COLLIO__REPLICAS_AUTO, 0,
                    COLLIO__REPLICAS_COUNT - 1, collio__replicas_names, NULL,
                    "which holder of a replicated element writes it (docs/replicas.md)"},
    [OPT_SEED] = {"seed", COLLIO__OPT_U64, 0, 0, 0, NULL, NULL,
                  "the random policy's seed"},
};
enum {
    ST_POLICY,
    ST_HELD,
    ST_WRITTEN,
    ST_INTERVALS,
    ST_INTERVALS_PER_RANK,
    ST_AVG_INTERVAL,
    ST_REPLICATED_PCT,
    ST_LB_PCT,
    ST_CLASSIFY_S,
    ST_SCHEDULE_S,
    ST_FILL_BYTES,
    NSTATS
};
static const collio__stat repl_stats[NSTATS] = {
    [ST_POLICY] = {"policy", 0, 0,
                   "the policy that ran (auto resolved; its name: "
                   "collio_option_value_name of replicas.policy)"},
    [ST_HELD] = {"held", 0, 0, "elements this rank holds, replicas included"},
    [ST_WRITTEN] = {"written", 0, 0, "elements this rank writes"},
    [ST_INTERVALS] = {"intervals", 0, 0, "intervals this rank writes"},
    [ST_INTERVALS_PER_RANK] = {"intervals_per_rank", 0, 0, "intervals of all ranks / P"},
    [ST_AVG_INTERVAL] = {"avg_interval", 0, 0, "nglobal / intervals of all ranks"},
    [ST_REPLICATED_PCT] = {"replicated_pct", 0, 0,
                           "elements held by more than one rank, %"},
    [ST_LB_PCT] = {"lb_pct", 0, 0,
                   "load balance: (max - min) / avg of the elements written per rank, %"},
    [ST_CLASSIFY_S] = {"classify_s", 0, 0,
                       "inspector: node classification (holders of each element)"},
    [ST_SCHEDULE_S] = {"schedule_s", 0, 0,
                       "inspector: the writer choice, its answer, the read's fill plan"},
    [ST_FILL_BYTES] = {"fill_bytes", 1, 1,
                       "last read: bytes this rank sent to fill the replicas it does not "
                       "write"},
};
const collio__section collio__replicas_section = {"replicas", repl_options, 2, repl_stats,
                                                  NSTATS};

static int64_t ropt(const collio_plan *p, int i)
{
    return p->opts.v[collio__option_base(&collio__replicas_section) + i];
}

static double *rstat(collio_plan *p, int i)
{
    return &p->statv[collio__stat_base(&collio__replicas_section) + i];
}

struct collio__repl {
    collio_layout *user; /* the replicated layout (the plan's copy) */
    int identity;        /* writes all it holds: writer stream = user stream */
    collio__ext *runs;   /* written runs: user stream mem -> writer stream off */
    int64_t nruns;
    /* the read's fill, in elements: this rank sends writer-stream elements
     * send_pos[] and receives user-stream elements recv_pos[], grouped by
     * rank as scount/sdispl and rcount/rdispl say */
    int *scount, *sdispl, *rcount, *rdispl;
    int64_t *send_pos, *recv_pos, nsend, nrecv;
    int any_fill;      /* some rank receives: the Alltoallv runs */
    MPI_Datatype elem; /* esize contiguous bytes */
    char *sbuf, *rbuf; /* the fill's buffers, kept under plan.keep_buffers */
};

void collio__repl_free(collio__repl **rp)
{
    if (rp == NULL || *rp == NULL)
        return;
    collio__repl *r = *rp;
    collio_layout_free(&r->user);
    free(r->runs);
    free(r->scount);
    free(r->sdispl);
    free(r->rcount);
    free(r->rdispl);
    free(r->send_pos);
    free(r->recv_pos);
    collio__bigbuf_free(r->sbuf);
    collio__bigbuf_free(r->rbuf);
    if (r->elem != MPI_DATATYPE_NULL)
        MPI_Type_free(&r->elem);
    free(r);
    *rp = NULL;
}

int collio__repl_identity(const collio__repl *r)
{
    return r->identity;
}

const collio_layout *collio__repl_user_layout(const collio__repl *r)
{
    return r->user;
}

collio__repl_work collio__repl_work_of(const collio_plan *p)
{
    collio__repl_work w = {0, 0, 0, 0, 0};
    const collio__repl *r = p->repl;
    if (r == NULL)
        return w;
    const double es = (double)r->user->esize;
    w.runs = r->identity ? 0 : (double)r->nruns;
    if (!r->any_fill)
        return w;
    w.fill_elements = (double)(r->nsend + r->nrecv);
    w.fill_bytes = w.fill_elements * es;
    w.fill_sent = (double)r->nsend * es;
    for (int q = 0; q < p->nranks; q++)
        w.fill_peers += q != p->rank && r->scount[q] > 0;
    return w;
}

/* Global index of every user stream element. */
static int64_t *stream_indices(const collio_layout *l)
{
    collio__ext *e;
    int64_t ne;
    if (collio__segs_flatten(l->segs, l->nsegs, &e, &ne) != COLLIO_OK)
        return NULL;
    int64_t *idx = malloc((size_t)(l->nlocal > 0 ? l->nlocal : 1) * sizeof *idx);
    for (int64_t i = 0; idx != NULL && i < ne; i++)
        for (int64_t t = 0; t < e[i].len; t++)
            idx[e[i].mem + t] = e[i].off + t;
    free(e);
    return idx;
}

/* Local: the writer layout, the runs that select it, and wmap: the
 * writer stream position of each user stream element (-1: not written
 * here). */
static int writer_layout(collio_plan *p, collio__repl *r, const int64_t *idx,
                         const int32_t *wr, collio_layout **out, int64_t *wmap,
                         int64_t *nw)
{
    const collio_layout *u = r->user;
    *nw = 0;
    int64_t *widx = malloc((size_t)(u->nlocal > 0 ? u->nlocal : 1) * sizeof *widx);
    r->runs = malloc((size_t)(u->nlocal > 0 ? u->nlocal : 1) * sizeof *r->runs);
    if (!widx || !r->runs) {
        free(widx);
        return COLLIO_ERR_NOMEM;
    }
    for (int64_t i = 0; i < u->nlocal; i++) {
        wmap[i] = -1;
        if (wr[i] != p->rank)
            continue;
        collio__ext *last = r->nruns > 0 ? &r->runs[r->nruns - 1] : NULL;
        if (last && last->mem + last->len == i)
            last->len++;
        else
            r->runs[r->nruns++] = (collio__ext){*nw, 1, i};
        wmap[i] = *nw;
        widx[(*nw)++] = idx[i];
    }
    r->identity = *nw == u->nlocal;
    int rc =
        collio__layout_new(p->comm, COLLIO__LAYOUT_INDEX_LIST, u->nglobal, u->esize, out);
    collio__segvec sv = {0};
    if (rc == COLLIO_OK)
        rc = collio__index_list_segs(*nw, widx, &sv);
    if (rc == COLLIO_OK) {
        (*out)->segs = sv.v;
        (*out)->nsegs = sv.n;
        sv.v = NULL;
        rc = collio__layout_finish(*out);
    }
    collio__segvec_free(&sv);
    free(widx);
    return rc;
}

/* Collective: the read's fill lists. Each rank asks the writer of every
 * element it holds but does not write for it, by the element's position
 * in the writer's own stream (the classification told it), which the
 * writer maps to its writer stream: no search. */
static int fill_plan(collio_plan *p, collio__repl *r, const int32_t *wr,
                     const int64_t *wupos, const int64_t *wmap, int64_t nw, int rc)
{
    int P = p->nranks;
    const collio_layout *u = r->user;
    r->scount = calloc((size_t)P, sizeof(int));
    r->sdispl = calloc((size_t)P, sizeof(int));
    r->rcount = calloc((size_t)P, sizeof(int));
    r->rdispl = calloc((size_t)P, sizeof(int));
    int *fillp = calloc((size_t)P, sizeof(int));
    int64_t nask = u->nlocal - nw;
    r->recv_pos = malloc((size_t)(nask > 0 ? nask : 1) * sizeof *r->recv_pos);
    int64_t *ask = malloc((size_t)(nask > 0 ? nask : 1) * sizeof *ask);
    int64_t *asked = NULL;
    if (rc == COLLIO_OK
        && !(r->scount && r->sdispl && r->rcount && r->rdispl && r->recv_pos && ask
             && fillp))
        rc = COLLIO_ERR_NOMEM; /* (rc: a local failure before, agreed below) */
    /* requests grouped by writer (rcount: what this rank will receive) */
    if (rc == COLLIO_OK) {
        for (int64_t i = 0; i < u->nlocal; i++)
            if (wr[i] != p->rank)
                r->rcount[wr[i]]++;
        int64_t total;
        rc = collio__displs(r->rcount, r->rdispl, P, &total);
        for (int64_t i = 0; rc == COLLIO_OK && i < u->nlocal; i++)
            if (wr[i] != p->rank) {
                int64_t s = r->rdispl[wr[i]] + fillp[wr[i]]++;
                ask[s] = wupos[i];
                r->recv_pos[s] = i;
            }
        r->nrecv = nask;
    }
    /* the requests to the writers; what each rank is asked for comes back */
    int64_t t = 0;
    rc = collio__alltoall_records(p->comm, rc, ask, 1, r->rcount, r->rdispl, r->scount,
                                  r->sdispl, &asked, &t);
    r->nsend = t;
    if (rc == COLLIO_OK) {
        r->send_pos = malloc((size_t)(t > 0 ? t : 1) * sizeof *r->send_pos);
        if (!r->send_pos)
            rc = COLLIO_ERR_NOMEM;
    }
    for (int64_t k = 0; rc == COLLIO_OK && k < r->nsend; k++) {
        int64_t pos = asked[k];
        /* the classification promised this rank writes it: else a bug */
        if (pos < 0 || pos >= u->nlocal || wmap[pos] < 0)
            rc = COLLIO_ERR_MPI;
        else
            r->send_pos[k] = wmap[pos];
    }
    if (rc == COLLIO_OK
        && (MPI_Type_contiguous((int)u->esize, MPI_BYTE, &r->elem) != MPI_SUCCESS
            || MPI_Type_commit(&r->elem) != MPI_SUCCESS))
        rc = COLLIO_ERR_MPI;
    free(ask);
    free(asked);
    free(fillp);
    return collio__agree(p->comm, rc);
}

/* Collective: seed 003's plan statistics, counted where the writers are
 * known in file order -- on the domain ranks: an interval starts at every
 * element whose writer differs from the previous element's. One
 * MPI_Reduce_scatter_block gives each rank its intervals, one
 * MPI_Allgather the plan-wide figures (and whether any read must fill). */
static int plan_stats(collio_plan *p, const collio__repl_dom *d, const int32_t *writer,
                      int32_t prev, int64_t nw)
{
    collio__repl *r = p->repl;
    int P = p->nranks;
    int64_t n = d->hi - d->lo, intervals = 0;
    *rstat(p, ST_HELD) = (double)r->user->nlocal;
    *rstat(p, ST_WRITTEN) = (double)nw;
    int64_t *starts = calloc((size_t)P, sizeof *starts);
    int64_t *all = malloc((size_t)P * 4 * sizeof *all);
    int rc = collio__agree(p->comm, starts && all ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc == COLLIO_OK) {
        for (int64_t j = 0; j < n; j++) {
            starts[writer[j]] += writer[j] != prev;
            prev = writer[j];
        }
        if (MPI_Reduce_scatter_block(starts, &intervals, 1, MPI_INT64_T, MPI_SUM, p->comm)
            != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
    }
    *rstat(p, ST_INTERVALS) = (double)intervals;
    int64_t mine[4] = {intervals, nw, d->nreplicated, r->nrecv};
    if (rc == COLLIO_OK
        && MPI_Allgather(mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, p->comm)
               != MPI_SUCCESS)
        rc = COLLIO_ERR_MPI;
    if (rc == COLLIO_OK) {
        int64_t sum[4] = {0, 0, 0, 0}, mn = INT64_MAX, mx = 0;
        for (int q = 0; q < P; q++) {
            for (int k = 0; k < 4; k++)
                sum[k] += all[4 * q + k];
            mn = all[4 * q + 1] < mn ? all[4 * q + 1] : mn;
            mx = all[4 * q + 1] > mx ? all[4 * q + 1] : mx;
        }
        int64_t ng = p->layout->nglobal;
        *rstat(p, ST_INTERVALS_PER_RANK) = (double)sum[0] / P;
        *rstat(p, ST_AVG_INTERVAL) = sum[0] > 0 ? (double)ng / (double)sum[0] : 0;
        *rstat(p, ST_REPLICATED_PCT) = ng > 0 ? 100.0 * (double)sum[2] / (double)ng : 0;
        double avg = (double)sum[1] / P;
        *rstat(p, ST_LB_PCT) = avg > 0 ? 100.0 * (double)(mx - mn) / avg : 0;
        r->any_fill = sum[3] > 0;
    }
    free(starts);
    free(all);
    return collio__agree(p->comm, rc);
}

int collio__repl_plan(collio_plan *p, collio_layout *user,
                      const collio__strategy *strategy)
{
    collio__repl *r = calloc(1, sizeof *r);
    int rc = collio__agree(p->comm, r ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc != COLLIO_OK) {
        collio_layout_free(&user);
        return rc;
    }
    r->user = user;
    r->elem = MPI_DATATYPE_NULL;
    p->repl = r;
    int policy = (int)ropt(p, OPT_POLICY);
    if (policy == COLLIO__REPLICAS_AUTO) /* what the strategy prefers, else IDG */
        policy = strategy->replicas_auto != NULL
                     ? collio__replicas_of(strategy->replicas_auto)
                     : COLLIO__REPLICAS_IDG;
    if (policy <= COLLIO__REPLICAS_AUTO) /* (a name no policy has: the default) */
        policy = COLLIO__REPLICAS_IDG;
    *rstat(p, ST_POLICY) = policy;

    double t0 = collio__now();
    collio__repl_dom d;
    rc = collio__repl_classify(p->comm, user, &d);
    *rstat(p, ST_CLASSIFY_S) = collio__now() - t0;
    if (rc != COLLIO_OK)
        return rc;

    t0 = collio__now();
    int P = p->nranks;
    int64_t n = d.hi - d.lo, nw = 0, nl = user->nlocal > 0 ? user->nlocal : 1;
    int32_t *writer = malloc((size_t)(n > 0 ? n : 1) * sizeof *writer);
    int64_t *ans = malloc((size_t)nl * sizeof *ans),
            *wmap = malloc((size_t)nl * sizeof *wmap);
    int32_t *wr = malloc((size_t)nl * sizeof *wr);
    int64_t *idx = stream_indices(user);
    int32_t prev = -1;
    rc = collio__agree(p->comm,
                       writer && ans && wmap && wr && idx ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc == COLLIO_OK)
        rc = collio__repl_schedule(p->comm, &d, user->nglobal, policy,
                                   (uint64_t)ropt(p, OPT_SEED), strategy->rank_domain,
                                   writer, &prev);
    if (rc == COLLIO_OK) {
        /* an unreplicated element is its owner's to write, at its own
         * position; the holders of replicated ones are told */
        for (int64_t i = 0; i < user->nlocal; i++)
            ans[i] = user->owned[i] ? i * P + p->rank : -1;
        rc = collio__repl_tell(p->comm, &d, writer, ans, user->nlocal);
    }
    if (rc == COLLIO_OK) {
        for (int64_t i = 0; i < user->nlocal && rc == COLLIO_OK; i++)
            if (ans[i] < 0)
                rc = COLLIO_ERR_MPI; /* a halo copy nobody told about: a bug */
        for (int64_t i = 0; i < user->nlocal && rc == COLLIO_OK; i++) {
            wr[i] = (int32_t)(ans[i] % P);
            ans[i] /= P; /* now the writer's stream position */
        }
        /* local; fill_plan agrees on its result first thing */
        if (rc == COLLIO_OK)
            rc = writer_layout(p, r, idx, wr, &p->layout, wmap, &nw);
        rc = fill_plan(p, r, wr, ans, wmap, nw, rc);
    }
    *rstat(p, ST_SCHEDULE_S) = collio__now() - t0;
    if (rc == COLLIO_OK)
        rc = plan_stats(p, &d, writer, prev, nw);
    collio__repl_dom_free(&d);
    free(writer);
    free(ans);
    free(wmap);
    free(wr);
    free(idx);
    return rc;
}

void collio__repl_select(const collio__repl *r, const char *user_stream, char *out)
{
    size_t es = r->user->esize;
    for (int64_t k = 0; k < r->nruns; k++)
        memcpy(out + (size_t)r->runs[k].off * es,
               user_stream + (size_t)r->runs[k].mem * es, (size_t)r->runs[k].len * es);
}

int collio__repl_fill(collio_plan *p, const char *writer_stream, char *user_stream)
{
    collio__repl *r = p->repl;
    size_t es = r->user->esize;
    double t0 = collio__now();
    if (writer_stream != user_stream)
        for (int64_t k = 0; k < r->nruns; k++)
            memcpy(user_stream + (size_t)r->runs[k].mem * es,
                   writer_stream + (size_t)r->runs[k].off * es,
                   (size_t)r->runs[k].len * es);
    if (!r->any_fill)
        return COLLIO_OK;
    r->sbuf = collio__plan_buf(r->sbuf, (size_t)r->nsend * es);
    r->rbuf = collio__plan_buf(r->rbuf, (size_t)r->nrecv * es);
    char *sbuf = r->sbuf, *rbuf = r->rbuf;
    int rc = collio__agree(p->comm, sbuf && rbuf ? COLLIO_OK : COLLIO_ERR_NOMEM);
    if (rc == COLLIO_OK) {
        for (int64_t k = 0; k < r->nsend; k++)
            memcpy(sbuf + (size_t)k * es, writer_stream + (size_t)r->send_pos[k] * es,
                   es);
        if (MPI_Alltoallv(sbuf, r->scount, r->sdispl, r->elem, rbuf, r->rcount, r->rdispl,
                          r->elem, p->comm)
            != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
    }
    if (rc == COLLIO_OK)
        for (int64_t k = 0; k < r->nrecv; k++)
            memcpy(user_stream + (size_t)r->recv_pos[k] * es, rbuf + (size_t)k * es, es);
    r->sbuf = collio__plan_buf_done(p, r->sbuf);
    r->rbuf = collio__plan_buf_done(p, r->rbuf);
    *rstat(p, ST_FILL_BYTES) = (double)(r->nsend * (int64_t)es);
    for (int q = 0; q < p->nranks; q++) { /* the Alltoallv's point-to-point part */
        if (q != p->rank && r->scount[q] > 0)
            collio__count_p2p(p, q, r->scount[q] * (int64_t)es);
        if (q != p->rank && r->rcount[q] > 0)
            collio__count_p2p(p, q, 0);
    }
    p->stats.exchange_s += collio__now() - t0;
    return rc;
}
