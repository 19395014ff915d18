/*
 * strategies/auto/model.c -- the cost model of strategy "auto".
 *
 * The candidates are the strategies' own: each declares in its table
 * which forms of it auto may run and the formula that prices each
 * (collio__candidate, core/core.h; the formulas sit beside the
 * strategies, built from the terms of machine/cost.h, and docs/auto.md
 * derives them). The list is made once, walking the registry tier by
 * tier. To each candidate's terms the model adds what every candidate
 * pays alike or by its kind:
 *
 * The call's floor: the calibration times the smallest call of each base
 * strategy (its term "<strategy>.call": one 4-byte element per rank).
 * What it costs beyond what the terms predict for it is what every call
 * pays whatever its size -- its synchronisations (each waits for the
 * slowest rank; where a node's ranks outnumber its cores, for one to get
 * a core back: far more than latency_s, measured with the other ranks
 * idle), its requests. It is added to every candidate that makes that
 * call (its `floor`), scaled from the calibration's oversubscription
 * (call_ranks_per_node / cores) to the plan's (cpu).
 *
 * The replicas, on replicated layouts: the work that every candidate does
 * alike around its own (shape.repl_runs, fill_*): a write selects the
 * elements it writes from the user's stream, pack(repl_runs, bytes_max) *
 * cpu; a read copies them back the same way and fills the copies it does
 * not write from their writers -- single elements packed and unpacked,
 * pack(fill_elements, fill_bytes) * cpu, around one exchange of fill_sent
 * bytes to fill_peers ranks.
 */
#include "model.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- the candidates */

static struct {
    pthread_once_t once;
    int n;
    const collio__candidate *cand[AUTO_MAX_CAND];
    const collio__strategy *strategy[AUTO_MAX_CAND];
    const char *only[AUTO_MAX_CAND + 2];
    /* the base candidate whose call floors candidate i (-1: none), and
     * for a base candidate its call's term "<floor>.call" */
    int floor_base[AUTO_MAX_CAND];
    char floor_key[AUTO_MAX_CAND][48];
    int nterms;
    const char *terms[COLLIO_CAL_TERMS_MAX]; /* every strategy's cost_terms */
} cands = {PTHREAD_ONCE_INIT};

static void collect(void)
{
    collio__strategies_seal();
    int max_tier = 0;
    for (int i = 0; collio__strategy_at(i) != NULL; i++)
        for (int k = 0; k < collio__strategy_at(i)->ncandidates; k++)
            if (collio__strategy_at(i)->candidates[k].tier > max_tier)
                max_tier = collio__strategy_at(i)->candidates[k].tier;
    int dropped = 0;
    for (int tier = 0; tier <= max_tier; tier++)
        for (int i = 0; collio__strategy_at(i) != NULL; i++) {
            const collio__strategy *s = collio__strategy_at(i);
            for (int k = 0; k < s->ncandidates; k++) {
                if (s->candidates[k].tier != tier)
                    continue;
                if (cands.n == AUTO_MAX_CAND) {
                    dropped++;
                    continue;
                }
                cands.cand[cands.n] = &s->candidates[k];
                cands.strategy[cands.n++] = s;
            }
        }
    if (dropped > 0)
        fprintf(stderr, "collio: auto holds %d candidates; %d more left out\n",
                AUTO_MAX_CAND, dropped);
    for (int i = 0; collio__strategy_at(i) != NULL; i++)
        for (const char *const *k = collio__strategy_at(i)->cost_terms; k != NULL && *k;
             k++)
            if (cands.nterms < COLLIO_CAL_TERMS_MAX)
                cands.terms[cands.nterms++] = *k;
    for (int j = 0; j < cands.n; j++) {
        const collio__candidate *c = cands.cand[j];
        cands.floor_base[j] = -1;
        if (c->base && c->floor != NULL)
            snprintf(cands.floor_key[j], sizeof cands.floor_key[j], "%.42s.call",
                     c->floor);
        for (int i = 0; i < cands.n && c->floor != NULL && cands.floor_base[j] < 0; i++)
            if (cands.cand[i]->base && cands.cand[i]->floor != NULL
                && strcmp(cands.cand[i]->floor, c->floor) == 0)
                cands.floor_base[j] = i;
    }
    cands.only[0] = "any";
    for (int i = 0; i < cands.n; i++)
        cands.only[i + 1] = cands.cand[i]->label;
    cands.only[cands.n + 1] = NULL;
}

int collio__auto_ncand(void)
{
    pthread_once(&cands.once, collect);
    return cands.n;
}

const collio__candidate *collio__auto_cand(int i)
{
    return i >= 0 && i < collio__auto_ncand() ? cands.cand[i] : NULL;
}

const collio__strategy *collio__auto_cand_strategy(int i)
{
    return i >= 0 && i < collio__auto_ncand() ? cands.strategy[i] : NULL;
}

int collio__auto_term_keys(const char *const **keys)
{
    collio__auto_ncand();
    *keys = cands.terms;
    return cands.nterms;
}

const char *const *collio__auto_only_names(void)
{
    collio__auto_ncand();
    return cands.only;
}

/* ------------------------------------------------------------ the model */

/* Every candidate by its own terms, without the calls' floors. */
static void terms(const collio__cost *m, const collio__cost_shape *s,
                  double t[AUTO_MAX_CAND])
{
    const int n = collio__auto_ncand();
    for (int i = 0; i < n; i++) {
        collio__cost_shape own = *s;
        if (s->profiles != NULL) {
            own.sync_rounds = s->profiles[i].sync_rounds;
            own.shared_copies = s->profiles[i].shared_copies;
        }
        t[i] = cands.cand[i]->terms(m, &own, cands.cand[i]->arg);
    }
}

/* The calls' floors (above), per candidate: the smallest call of its
 * `floor` strategy as measured (term "<floor>.call"), scaled from the
 * calibration's oversubscription to this plan's, less what the terms of
 * that call's own candidate (`base`) predict for it -- one 4-byte element
 * per rank -- on this plan's ranks; never below 0. */
static void floors(const collio__cost *m, const collio__cost_shape *s,
                   double f[AUTO_MAX_CAND])
{
    collio__cost_shape tiny = *s;
    tiny.bytes_total = 4.0 * m->nranks, tiny.bytes_max = 4, tiny.pieces_max = 1;
    tiny.pieces_total = m->nranks, tiny.moved_max = 0, tiny.adjoin = 1;
    tiny.sync_rounds = 0; /* (rounds beyond the smallest call's: none in it;
                             its copies: the plan's, a few bytes either way) */
    collio__exec_profile own[AUTO_MAX_CAND];
    if (s->profiles != NULL) {
        for (int i = 0; i < collio__auto_ncand(); i++)
            own[i] = (collio__exec_profile){0, s->profiles[i].shared_copies};
        tiny.profiles = own;
    }
    collio__cost mt = *m;
    mt.file_bytes = tiny.bytes_total / m->fbw;
    double tt[AUTO_MAX_CAND], base[AUTO_MAX_CAND];
    terms(&mt, &tiny, tt);
    const int n = collio__auto_ncand();
    for (int i = 0; i < n; i++) {
        base[i] = 0;
        if (cands.floor_key[i][0] == '\0' || m->fs->call_ranks <= 0)
            continue;
        double v = collio__cost_term(m, cands.floor_key[i]) * m->cpu / m->cpu_cal - tt[i];
        base[i] = v > 0 ? v : 0;
    }
    for (int j = 0; j < n; j++)
        f[j] = cands.floor_base[j] >= 0 ? base[cands.floor_base[j]] : 0;
}

/* The replicas' work around every candidate (above). */
static double replicas(const collio__cost *m, const collio__cost_shape *s)
{
    double t =
        s->repl_runs > 0 ? collio__cost_pack(m, s->repl_runs, s->bytes_max) * m->cpu : 0;
    if (!m->writing && s->fill_elements > 0)
        t += collio__cost_pack(m, s->fill_elements, s->fill_bytes) * m->cpu
             + collio__cost_exchange(m, s->fill_sent, s->fill_peers);
    return t;
}

void collio__auto_predict(const collio__cost_shape *s, const collio_calibration *c,
                          const collio_fs_costs *fs, int writing, double t[AUTO_MAX_CAND])
{
    collio__cost m;
    collio__cost_setup(&m, s, c, fs, writing);
    terms(&m, s, t);
    double f[AUTO_MAX_CAND];
    floors(&m, s, f);
    const double repl = replicas(&m, s);
    for (int i = 0; i < collio__auto_ncand(); i++)
        t[i] += f[i] + repl;
}

int collio__auto_pick(const double t[AUTO_MAX_CAND])
{
    int best = 0;
    for (int i = 1; i < collio__auto_ncand(); i++)
        if (t[i] < t[best])
            best = i;
    return best;
}

/* The constants of each group (model.h), scaled: costs times corr[g],
 * rates divided by it. */
static void scale(collio_calibration *c, collio_fs_costs *fs,
                  const double corr[AUTO_NTERMS])
{
    const double rq = corr[AUTO_TERM_REQUEST], by = corr[AUTO_TERM_BYTE],
                 ca = corr[AUTO_TERM_CALL];
    fs->write_request_s *= rq, fs->read_request_s *= rq;
    fs->mpiio_write_piece_s *= rq, fs->mpiio_read_piece_s *= rq;
    for (int i = 0; i < COLLIO_CAL_INTERLEAVED_MAX; i++)
        fs->write_interleaved_s[i] *= rq, fs->read_interleaved_s[i] *= rq;
    c->piece_s *= rq;
    fs->write_Bps /= by, fs->read_Bps /= by;
    fs->mpiio_write_byte_s *= by, fs->mpiio_read_byte_s *= by;
    c->copy_Bps /= by, c->bandwidth_Bps[0] /= by, c->bandwidth_Bps[1] /= by;
    fs->mpiio_write_call_s *= ca, fs->mpiio_read_call_s *= ca;
    for (int i = 0; i < fs->nterms && i < COLLIO_CAL_TERMS_MAX; i++) {
        /* a strategy's term by its kind: per call or round, per byte */
        const char *kind = collio__cost_term_kind(fs->terms[i].key, NULL);
        double g = strcmp(kind, "byte") == 0                                 ? by
                   : strcmp(kind, "call") == 0 || strcmp(kind, "round") == 0 ? ca
                                                                             : 1;
        fs->terms[i].write_s *= g, fs->terms[i].read_s *= g;
    }
    c->latency_s[0] *= ca, c->latency_s[1] *= ca;
}

void collio__auto_predict_scaled(const collio__cost_shape *s, const collio_calibration *c,
                                 const collio_fs_costs *fs, int writing,
                                 const double corr[AUTO_NTERMS], double t[AUTO_MAX_CAND])
{
    /* (the calibration is large: a copy on the heap, not the stack, and
     * none kept between calls -- a plan may be used on any thread) */
    collio_calibration *cc = malloc(sizeof *cc);
    collio_fs_costs f = *fs;
    if (cc == NULL) { /* uncorrected, rather than nothing */
        collio__auto_predict(s, c, fs, writing, t);
        return;
    }
    *cc = *c;
    scale(cc, &f, corr);
    collio__auto_predict(s, cc, &f, writing, t);
    free(cc);
}
