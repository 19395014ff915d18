/*
 * strategies/auto/choose.c -- an auto plan's calls: the choice for a file
 * system and operation, made at its first call (or at plan creation,
 * auto.c), then run, measured and learned from.
 *
 * The choice. The file's costs depend on the file system the file lives
 * on, which the plan learns at the first write or read there (rank 0
 * identifies it at open, collio_fs_identify, and every rank holds its key
 * and kind). Where an entry of the calibration covers it, the entry's
 * costs price the call; where none does and the plan may (auto.calibrate,
 * COLLIO_AUTO_CALIBRATE), the file system is measured there and then
 * (autocal.c) and its new entry prices it -- this call and every later
 * one, of this plan and, through the calibration file, of later runs;
 * otherwise the built-in costs of its kind, local or networked. The model
 * (model.c) predicts every candidate; the cheapest one's plan is made
 * (unless it was at creation) -- an ordinary plan of that strategy on the
 * same layout, handed this plan's hints and the candidate's own -- and
 * kept: later calls on the same file system run it directly.
 *
 * Learning. Each call's time (the chosen plan's run, its maximum over
 * the ranks, agreed for free by the next call's reduction: core/execute.c)
 * is recorded for the candidate that ran; learn.c decides from them
 * whether the model was wrong, and which candidate runs next. The
 * decisions come from agreed figures only, so every rank switches at the
 * same call; COLLIO_AUTO_LOG=1 says each one on rank 0's standard error.
 */
#include "base/base.h"
#include "machine/machine.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"
#include "autocal.h"
#include "state.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void collio__auto_predict_for(const auto_plan *ap, int k, int op, double t[AUTO_MAX_CAND])
{
    collio_fs_costs generic;
    collio__fs_costs_default(&generic, k == FS_NETWORKED);
    collio__auto_predict_scaled(&ap->shape, &ap->calib,
                                k >= 0 ? &ap->calib.fs[k] : &generic, op == 0,
                                ap->learned[op][KEY(k)].corr, t);
}

int collio__auto_keep_only(const collio_plan *p, double t[AUTO_MAX_CAND])
{
    int only = (int)collio__opt(p, OPT_ONLY) - 1; /* -1: any */
    if (only < 0)
        return 0;
    if (isinf(t[only]))
        return -1;
    for (int i = 0; i < collio__auto_ncand(); i++)
        if (i != only)
            t[i] = INFINITY;
    return 0;
}

int collio__auto_make_inner(collio_plan *p, auto_plan *ap, int i)
{
    const collio__candidate *cand = collio__auto_cand(i);
    collio_hints *h = NULL;
    int rc = collio__optvals_to_hints(&p->opts, &h);
    for (int j = 0; j < COLLIO__CAND_HINTS && cand->hint_key[j] != NULL; j++)
        if (rc == COLLIO_OK)
            rc = collio_hints_set(h, cand->hint_key[j], cand->hint_value[j]);
    rc = collio__plan_create_inner(p, collio__auto_cand_strategy(i)->section.name, h, rc,
                                   &ap->inner[i]);
    collio_hints_free(&h);
    if (rc == COLLIO_OK) { /* the chosen plan's inspector is this plan's too */
        p->stats.plan_bytes += ap->inner[i]->stats.plan_bytes;
        p->stats.inspect_s += ap->inner[i]->stats.inspect_s;
    }
    return rc;
}

/* Rank 0, where COLLIO_AUTO_LOG is set: one line to standard error. */
static void say(const collio_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const collio_plan *p, const char *fmt, ...)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("COLLIO_AUTO_LOG");
        on = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    }
    if (!on || p->rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "collio auto: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Collective: where no entry covers the call's file system and the plan
 * may measure, its entry measured into the plan (*k the new entry), the
 * machine's constants too where no calibration file gave them. A failed
 * measurement leaves *k alone (the built-in costs price it), said in the
 * stats, not as the call's error. */
static void measure(collio_plan *p, auto_plan *ap, int *k, const char *where,
                    uint64_t fs_key)
{
    if (*k >= 0 || !ap->autocal || where == NULL)
        return;
    static collio_calibration machine; /* (large; plan calls are not thread safe) */
    collio_fs_costs fs;
    double secs = 0;
    int rc = collio__auto_measure(p, where, fs_key, &ap->calib, &machine, &fs, &secs);
    ap->calibrate_s += secs;
    collio__stat_set(p, ST_CALIBRATE_S, ap->calibrate_s);
    collio__stat_set(p, ST_CALIBRATE_ERROR, rc);
    if (rc != COLLIO_OK) {
        say(p, "measuring the file system of %s failed (%s): built-in costs", where,
            collio_last_error());
        collio__error_begin(); /* not this call's error */
        return;
    }
    int i = ap->calib.nfs < COLLIO_CALIBRATION_MAX_FS ? ap->calib.nfs++
                                                      : COLLIO_CALIBRATION_MAX_FS - 1;
    if (!ap->calib.from_file) { /* the machine's constants: measured too */
        collio_calibration c = machine;
        c.nfs = ap->calib.nfs;
        memcpy(c.fs, ap->calib.fs, sizeof c.fs);
        ap->calib = c;
    }
    ap->calib.fs[i] = fs;
    ap->fs_key[i] = fs_key != 0 ? fs_key : collio__fs_key(&fs.id);
    ap->measured[i] = 1;
    for (int op = 0; op < 2; op++) {
        collio__auto_learn_init(&ap->learned[op][KEY(i)]);
        ap->choice[op][KEY(i)] = -1;
    }
    *k = i;
    say(p, "measured %s on %s (%s) in %.3f s", fs.id.type, fs.id.mount, where, secs);
}

int collio__auto_choose(collio_plan *p, auto_plan *ap, int *k, int op, const char *where,
                        uint64_t fs_key)
{
    int rc = COLLIO_OK;
    if (ap->choice[op][KEY(*k)] >= 0)
        return COLLIO_OK;
    measure(p, ap, k, where, fs_key);
    const int key = KEY(*k);
    if (ap->choice[op][key] >= 0) /* (an entry measured for the other operation) */
        return COLLIO_OK;
    double t[AUTO_MAX_CAND];
    collio__auto_predict_for(ap, *k, op, t);
    memcpy(ap->predicted[op][key], t, sizeof t);
    if (collio__auto_keep_only(p, t) != 0) { /* the same on every rank */
        int only = (int)collio__opt(p, OPT_ONLY) - 1;
        collio__error_set(COLLIO_ERR_ARG,
                          "auto.only=%s cannot run with %d ranks (a group or "
                          "phase count beyond what they allow)",
                          collio__auto_cand(only)->label, p->nranks);
        return COLLIO_ERR_ARG;
    }
    /* the cheapest candidate whose plan can be made: the plan's hints
     * may not suit a candidate (multiphase.exchange = direct with the
     * fewer phases of multiphase_k1), which its plan creation says (ARG,
     * on every rank) */
    do {
        int i = collio__auto_pick(t);
        if (ap->refused[i]) { /* (at plan creation, its message then cleared) */
            rc = COLLIO_ERR_ARG;
            collio__error_set(rc, "auto: %s's plan refused this plan's hints",
                              collio__auto_cand(i)->label);
        } else {
            rc = ap->inner[i] == NULL ? collio__auto_make_inner(p, ap, i) : COLLIO_OK;
        }
        if (rc == COLLIO_OK)
            ap->choice[op][key] = i;
        ap->refused[i] |= rc == COLLIO_ERR_ARG;
        t[i] = INFINITY;
    } while (rc == COLLIO_ERR_ARG && !isinf(t[collio__auto_pick(t)]));
    if (rc == COLLIO_OK)
        collio__error_begin(); /* a candidate refused is not this call's error */
    return rc;
}

/* Local: the calibration entry of f's file system; without one
 * FS_NETWORKED or FS_LOCAL, as its kind. The file knows its file system's
 * key and kind (rank 0 identified it at open, every rank holds both) and
 * every rank holds the same calibration and keys: no message. */
static int fs_entry(const auto_plan *ap, const collio_file *f)
{
    for (int k = 0; k < ap->calib.nfs; k++)
        if (ap->fs_key[k] == collio__file_fs_key(f))
            return k;
    return collio__file_networked(f) ? FS_NETWORKED : FS_LOCAL;
}

static const char *const why_text[] = {[AUTO_SWITCH_NONE] = "",
                                       [AUTO_SWITCH_CORRECTED] = "the model corrected",
                                       [AUTO_SWITCH_TRIAL] = "a close runner-up tried",
                                       [AUTO_SWITCH_MEASURED] =
                                           "another ranks faster than it measured"};
static const char *const term_text[AUTO_NTERMS] = {"per-request", "per-byte", "per-call"};

/* Collective (every rank decides alike, from agreed figures): the last
 * execution's time recorded for the candidate that ran; where learn.c
 * switches, the new candidate's plan made and taken for that file system
 * and operation. A candidate whose plan is refused stays refused; the
 * choice then stays. */
static int learn_from_last(collio_plan *p, auto_plan *ap)
{
    const int op = ap->last.op, key = ap->last.key, cur = ap->last.cand;
    ap->last.cand = -1;
    if (!ap->learn || cur < 0 || p->exec_prev_max_s < 0 || ap->choice[op][key] != cur)
        return COLLIO_OK;
    collio__auto_learn *l = &ap->learned[op][key];
    collio__auto_learn_record(l, cur, p->exec_prev_max_s);
    const int k = key - 2;
    collio_fs_costs generic;
    collio__fs_costs_default(&generic, k == FS_NETWORKED);
    collio__auto_event ev;
    const int to = collio__auto_learn_next(l, cur, &ap->shape, &ap->calib,
                                           k >= 0 ? &ap->calib.fs[k] : &generic, op == 0,
                                           ap->refused, ap->predicted[op][key], &ev);
    if (ev.term >= 0)
        say(p, "%s by %s: measured %.3g s, predicted %.3g s: %s costs x%.2f",
            op == 0 ? "write" : "read", collio__auto_cand(cur)->label, ev.measured_s,
            ev.predicted_s, term_text[ev.term], ev.factor);
    if (to == cur)
        return COLLIO_OK;
    int rc = ap->inner[to] == NULL ? collio__auto_make_inner(p, ap, to) : COLLIO_OK;
    if (rc == COLLIO_ERR_ARG) { /* (everywhere) its hints refused: stay */
        ap->refused[to] = 1;
        collio__error_begin();
        return COLLIO_OK;
    }
    if (rc != COLLIO_OK)
        return rc;
    ap->choice[op][key] = to;
    collio__stat_add(p, ST_SWITCHES, 1);
    collio__stat_set(p, ST_SWITCH_FROM, cur);
    collio__stat_set(p, ST_SWITCH_TO, to);
    collio__stat_set(p, ST_SWITCH_WHY, ev.why);
    collio__stat_set(p, ST_SWITCH_MEASURED_S, ev.measured_s);
    collio__stat_set(p, ST_SWITCH_PREDICTED_S, ev.predicted_s);
    say(p, "%s: %s -> %s (%s; %s measured %.3g s, %s %s %.3g s)",
        op == 0 ? "write" : "read", collio__auto_cand(cur)->label,
        collio__auto_cand(to)->label, why_text[ev.why], collio__auto_cand(cur)->label,
        ev.measured_s, collio__auto_cand(to)->label,
        ev.to_measured ? "measured" : "predicted", ev.to_s);
    return COLLIO_OK;
}

/* Local: the stats of a call priced with entry k for operation op. */
static void call_stats(collio_plan *p, const auto_plan *ap, const collio_file *f, int k,
                       int op)
{
    const int key = KEY(k);
    collio__stat_set(p, op == 0 ? ST_WRITE_CHOICE : ST_READ_CHOICE, ap->choice[op][key]);
    collio__stat_set(p, ST_CALIBRATED, k >= 0);
    collio__stat_set(p, ST_PRICED_BY, k < 0 ? 0 : ap->measured[k] ? 2 : 1);
    collio__stat_set(p, ST_NETWORKED, collio__file_networked(f));
    for (int c = 0; c < collio__auto_ncand(); c++)
        collio__stat_set(p, ST_PREDICTED + c, ap->predicted[op][key][c]);
    collio__stat_set(p, ST_MADE_S, ap->made_s);
}

/* Collective: the choice for f and operation op, made where not yet. */
static int choice_for(collio_plan *p, auto_plan *ap, const collio_file *f, int op, int *k)
{
    *k = fs_entry(ap, f);
    if (ap->choice[op][KEY(*k)] >= 0)
        return COLLIO_OK;
    double t0 = collio__now();
    int rc =
        collio__auto_choose(p, ap, k, op, collio__file_path(f), collio__file_fs_key(f));
    ap->made_s += collio__now() - t0;
    return rc;
}

int collio__auto_exec(collio_plan *p, collio_file *f, char *stream, int writing)
{
    auto_plan *ap = p->impl;
    double t0 = collio__now();
    const int op = writing ? 0 : 1;
    int k, rc = learn_from_last(p, ap);
    if (rc == COLLIO_OK)
        rc = choice_for(p, ap, f, op, &k);
    else
        k = fs_entry(ap, f);
    call_stats(p, ap, f, k, op);
    collio__stat_set(p, ST_CHOOSE_S, collio__now() - t0);
    if (rc != COLLIO_OK) /* (no candidate's plan: rc says why) */
        return rc;
    int i = ap->choice[op][KEY(k)];
    /* the chosen plan runs on this plan's ranks: this plan's execution
     * agrees on the code (plan.c), once, and times it for learning
     * (p->exec_s), the choosing set aside */
    p->exec_skip_s = collio__now() - t0; /* (choosing: not the candidate's time) */
    rc = collio__plan_run_unagreed(ap->inner[i], f, stream, writing, p->scratch != NULL);
    ap->last.op = op, ap->last.key = KEY(k), ap->last.cand = i;
    collio__stats_add_inner(p, ap->inner[i]);
    return rc;
}

int collio__auto_prepare(collio_plan *p, collio_file *f, int writing)
{
    auto_plan *ap = p->impl;
    int k;
    int rc = choice_for(p, ap, f, writing ? 0 : 1, &k);
    call_stats(p, ap, f, k, writing ? 0 : 1);
    return rc;
}

void collio__auto_predict_call(const collio_plan *p, const collio_file *f, int writing,
                               int *candidate, double *seconds)
{
    const auto_plan *ap = p->impl;
    int k = fs_entry(ap, f);
    const int op = writing ? 0 : 1;
    double t[AUTO_MAX_CAND];
    collio__auto_predict_for(ap, k, op, t);
    *candidate = ap->choice[op][KEY(k)];
    if (*candidate < 0)
        *candidate = collio__auto_pick(t);
    *seconds = t[*candidate];
}
