/*
 * strategies/auto/learn.c -- an auto plan learns from its own calls.
 *
 * The model's constants come from a calibration that may be wrong for
 * this plan: measured quickly, on another layout, at another moment of a
 * shared machine, or not at all (the built-in costs). Every call of the
 * chosen candidate is a measurement of it. Once a candidate has
 * AUTO_LEARN_CALLS of them (learn.h), their median is compared with its
 * prediction:
 *
 *  - the group of constants -- per request, per byte or per call
 *    (model.h) -- whose terms set the candidate apart from the others most
 *    (found by doubling each group in turn: a term every candidate pays
 *    alike, the file's bytes, ranks nothing), and the factor on it that
 *    would make the model predict the median, are noted. Where the median departs from
 * the prediction by more than the model's typical error (AUTO_LEARN_ERROR, either way),
 * that group is corrected by the geometric mean of the factors every candidate measured
 * so far implies for it -- one noisy candidate does not undo another's evidence -- and
 * every candidate is predicted again (a correction of list I/O's request costs also
 * prices the list I/O that multiphase_k and subgroup's masters do);
 *  - candidates then rank by their measured medians where they have run,
 *    by their corrected predictions where not: one that ranks first by
 *    more than AUTO_LEARN_MARGIN runs from the next call;
 *  - where none does but an untried runner-up is predicted faster than
 *    the chosen one was measured, by less than AUTO_LEARN_MARGIN -- a tie
 *    the model cannot break, leaning the runner-up's way -- it is tried,
 *    once: once judged, the faster of the two by their medians stays. (A
 *    runner-up predicted slower than the choice measured is not tried:
 *    a trial costs its plan and the calls it runs, and in a short run of
 *    calls those are a good part of them.)
 *
 * At most AUTO_LEARN_SWITCHES switches per file system and operation;
 * after that, or when nothing ranks above the choice and no runner-up is
 * close, the choice is settled -- but for one trial more where the plan
 * runs its choice AUTO_LEARN_LONG calls (a pattern written again and
 * again) and an untried runner-up is predicted within AUTO_LEARN_LONG_ERROR
 * of the choice's median: a tie the model cannot break, which the calls
 * to come pay to measure (long_trial). Then settled for the plan's
 * life.
 */
#include "learn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void collio__auto_learn_init(collio__auto_learn *l)
{
    memset(l, 0, sizeof *l);
    for (int g = 0; g < AUTO_NTERMS; g++)
        l->corr[g] = 1;
    for (int c = 0; c < collio__auto_ncand(); c++)
        l->dom[c] = -1;
    l->trial_from = -1;
}

void collio__auto_learn_record(collio__auto_learn *l, int c, double seconds)
{
    if (c < 0 || c >= collio__auto_ncand() || !(seconds >= 0))
        return;
    if (l->runs[c]++ == 0)
        return; /* (its first call made its buffers) */
    l->t[c][(l->runs[c] - 2) % AUTO_LEARN_KEEP] = seconds;
    l->n[c] = l->runs[c] - 1 < AUTO_LEARN_KEEP ? l->runs[c] - 1 : AUTO_LEARN_KEEP;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const collio__auto_learn *l, int c)
{
    double v[AUTO_LEARN_KEEP];
    memcpy(v, l->t[c], sizeof v);
    qsort(v, (size_t)l->n[c], sizeof v[0], cmp_double);
    return v[l->n[c] / 2];
}

static int judged(const collio__auto_learn *l, int c)
{
    return l->n[c] >= AUTO_LEARN_CALLS;
}

/* What candidate c's median m says of the uncorrected model: the group
 * of constants whose terms set c apart from the other candidates most --
 * its part of c's prediction less the least part it has in another
 * runnable candidate's (the terms are linear in each group's constants:
 * doubling a group adds its part once); a term every candidate pays
 * alike, the file's bytes, changes no ranking and is not what c's
 * measurement can be blamed on -- and the factor on that group that would
 * predict m. */
static void evidence(collio__auto_learn *l, int c, double m, const collio__cost_shape *s,
                     const collio_calibration *cal, const collio_fs_costs *fs,
                     int writing, const char *refused)
{
    double one[AUTO_NTERMS] = {1, 1, 1}, base[AUTO_MAX_CAND], excess = 0, part = 0;
    collio__auto_predict_scaled(s, cal, fs, writing, one, base);
    l->dom[c] = -1;
    for (int g = 0; g < AUTO_NTERMS; g++) {
        double two[AUTO_NTERMS] = {1, 1, 1}, t[AUTO_MAX_CAND], least = INFINITY;
        two[g] = 2;
        collio__auto_predict_scaled(s, cal, fs, writing, two, t);
        for (int i = 0; i < collio__auto_ncand(); i++)
            if (i != c && !refused[i] && !isinf(base[i]) && t[i] - base[i] < least)
                least = t[i] - base[i];
        double mine = t[c] - base[c], x = mine - (isinf(least) ? 0 : least);
        if (mine > 0 && x > excess)
            excess = x, part = mine, l->dom[c] = g;
    }
    if (l->dom[c] < 0)
        return;
    double f = 1 + (m - base[c]) / part;
    l->implied[c] = f < 1.0 / 64 ? 1.0 / 64 : f > 64 ? 64 : f;
}

/* Group g corrected by the geometric mean of what every judged candidate
 * dominated by it implies. */
static void correct(collio__auto_learn *l, int g)
{
    double sum = 0;
    int n = 0;
    for (int c = 0; c < collio__auto_ncand(); c++)
        if (judged(l, c) && l->dom[c] == g)
            sum += log(l->implied[c]), n++;
    if (n > 0)
        l->corr[g] = exp(sum / n);
}

/* A settled choice run AUTO_LEARN_LONG calls, no trial made yet: the
 * untried runner-up predicted closest, where its prediction is within
 * AUTO_LEARN_LONG_ERROR of the choice's median, tried (the trial
 * judged as any other: the faster of the two stays); asked once. */
static int long_trial(collio__auto_learn *l, int cur, const char *refused,
                      const double pred[AUTO_MAX_CAND], collio__auto_event *ev)
{
    if (l->tried || l->switches >= AUTO_LEARN_SWITCHES || l->runs[cur] < AUTO_LEARN_LONG)
        return cur;
    l->tried = 1;
    const double m = median(l, cur);
    int r = -1;
    for (int i = 0; i < collio__auto_ncand(); i++)
        if (i != cur && !judged(l, i) && !refused[i] && !isinf(pred[i])
            && (r < 0 || pred[i] < pred[r]))
            r = i;
    if (r < 0 || !(pred[r] < m * AUTO_LEARN_LONG_ERROR))
        return cur;
    l->settled = 0;
    l->switches++;
    l->trial_from = cur;
    ev->why = AUTO_SWITCH_TRIAL;
    ev->measured_s = m;
    ev->predicted_s = pred[cur];
    ev->to = r;
    ev->to_s = pred[r];
    return r;
}

int collio__auto_learn_next(collio__auto_learn *l, int cur, const collio__cost_shape *s,
                            const collio_calibration *c, const collio_fs_costs *fs,
                            int writing, const char *refused, double pred[AUTO_MAX_CAND],
                            collio__auto_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->from = ev->to = cur;
    ev->term = -1;
    if (cur < 0 || !judged(l, cur))
        return cur;
    if (l->settled)
        return long_trial(l, cur, refused, pred, ev);
    const double m = median(l, cur);
    ev->measured_s = m;
    ev->predicted_s = pred[cur];
    evidence(l, cur, m, s, c, fs, writing, refused);
    if (l->dom[cur] >= 0
        && (m > AUTO_LEARN_ERROR * pred[cur] || m * AUTO_LEARN_ERROR < pred[cur])) {
        double before = l->corr[l->dom[cur]];
        correct(l, l->dom[cur]);
        ev->term = l->dom[cur];
        ev->factor = l->corr[l->dom[cur]] / before;
        collio__auto_predict_scaled(s, c, fs, writing, l->corr, pred);
    }
    /* the ranking: what ran, by its median; what did not, as predicted */
    int best = -1;
    double eff[AUTO_MAX_CAND];
    for (int i = 0; i < collio__auto_ncand(); i++) {
        eff[i] = refused[i] || isinf(pred[i]) ? INFINITY
                 : judged(l, i)               ? median(l, i)
                                              : pred[i];
        if (!isinf(eff[i]) && (best < 0 || eff[i] < eff[best]))
            best = i;
    }
    int to = cur;
    if (l->trial_from >= 0) { /* the trial judged: the faster of the two stays */
        if (eff[l->trial_from] < m) {
            to = l->trial_from;
            ev->why = AUTO_SWITCH_MEASURED;
        }
        l->trial_from = -1;
    } else if (best >= 0 && best != cur && eff[best] < m * (1 - AUTO_LEARN_MARGIN)) {
        to = best;
        ev->why = ev->term >= 0 ? AUTO_SWITCH_CORRECTED : AUTO_SWITCH_MEASURED;
    } else if (!l->tried) {
        int r = -1; /* the closest untried runner-up */
        for (int i = 0; i < collio__auto_ncand(); i++)
            if (i != cur && !judged(l, i) && !isinf(eff[i]) && (r < 0 || eff[i] < eff[r]))
                r = i;
        if (r >= 0 && eff[r] < m) {
            to = r;
            ev->why = AUTO_SWITCH_TRIAL;
        }
    }
    if (to != cur && l->switches >= AUTO_LEARN_SWITCHES)
        to = cur, ev->why = AUTO_SWITCH_NONE;
    if (to == cur) {
        l->settled = 1;
    } else {
        l->switches++;
        if (ev->why == AUTO_SWITCH_TRIAL)
            l->tried = 1, l->trial_from = cur;
    }
    ev->to = to;
    ev->to_measured = judged(l, to);
    ev->to_s = eff[to];
    return to;
}
