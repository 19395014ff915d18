/*
 * unit_auto_learn.c -- what an auto plan learns from its own calls
 * (src/strategies/auto/learn.c), fed with times written here: the first
 * call of a candidate not counted and the median of the last ones; a
 * candidate measured 10x slower in its requests than predicted corrects
 * the per-request costs by 10 -- the factor worked out by hand below --
 * and the plan leaves it for the candidate the corrected model ranks
 * first; a measurement within the model's error corrects nothing; a
 * runner-up predicted a little faster than the choice measured is tried
 * once, and the faster of the two by their medians stays; a settled
 * choice run AUTO_LEARN_LONG calls tries a runner-up predicted within
 * AUTO_LEARN_LONG_ERROR of it, once; never more switches than
 * AUTO_LEARN_SWITCHES, and nothing else after the choice settled.
 */
#include "collio.h"
#include "strategies/auto/learn.h"
#include "unit_check.h"

#include <math.h>
#include <string.h>

enum { SERIAL = 0, INDEPENDENT = 1, MULTIPHASE = 3 };

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-6 * fabs(want);
}

/* One node of 4 ranks on 4 cores (no oversubscription), 1000 pieces of
 * 1 KiB per rank; memory and links fast; no calls' floors (no calls
 * measured). List I/O: 1000 requests of 10 us = 0.01 s, and the file's
 * 4,096,000 bytes at 1e9 B/s = 0.004096 s: 0.014096 s predicted. */
static void setup(collio__cost_shape *s, collio_calibration *c, collio_fs_costs *fs)
{
    *s = (collio__cost_shape){.nranks = 4,
                              .nnodes = 1,
                              .ranks_per_node = 4,
                              .cores_per_node = 4,
                              .bytes_total = 4096000,
                              .bytes_max = 1024000,
                              .pieces_max = 1000,
                              .pieces_total = 4000,
                              .moved_max = 768000,
                              .adjoin = 1,
                              .intra_phases = 2};
    collio_calibration_defaults(c);
    c->copy_Bps = 1e10;
    c->bandwidth_Bps[0] = 1e10;
    *fs = (collio_fs_costs){.write_request_s = 1e-5,
                            .write_Bps = 1e9,
                            .read_request_s = 1e-5,
                            .read_Bps = 1e9,
                            .mpiio_write_piece_s = 1e-4,
                            .mpiio_read_piece_s = 1e-4};
}

/* What every case starts from: the shape and costs above, nothing
 * learned, every candidate predicted, none refused. */
typedef struct fixture {
    collio__cost_shape s;
    collio_calibration c;
    collio_fs_costs fs;
    collio__auto_learn l;
    double pred[AUTO_MAX_CAND];
    char refused[AUTO_MAX_CAND];
} fixture;

static void fresh(fixture *x)
{
    setup(&x->s, &x->c, &x->fs);
    collio__auto_learn_init(&x->l);
    memset(x->refused, 0, sizeof x->refused);
    collio__auto_predict_scaled(&x->s, &x->c, &x->fs, 1, x->l.corr, x->pred);
}

static void record(collio__auto_learn *l, int c, double t, int n)
{
    for (int i = 0; i < n; i++)
        collio__auto_learn_record(l, c, t);
}

/* The median of the last AUTO_LEARN_KEEP calls, the first not counted. */
static void check_record(void)
{
    collio__auto_learn l;
    collio__auto_learn_init(&l);
    collio__auto_learn_record(&l, 2, 100.0); /* the first: not counted */
    CHECK(l.runs[2] == 1 && l.n[2] == 0, "the first call is not measured");
    const double t[] = {5, 1, 4, 2, 3, 9, 8};
    for (int i = 0; i < 7; i++)
        collio__auto_learn_record(&l, 2, t[i]);
    CHECK(l.n[2] == AUTO_LEARN_KEEP, "%d kept", l.n[2]);
    double v[AUTO_LEARN_KEEP];
    memcpy(v, l.t[2], sizeof v);
    double sum = 0;
    for (int i = 0; i < AUTO_LEARN_KEEP; i++)
        sum += v[i];
    CHECK(sum == 4 + 2 + 3 + 9 + 8, "the last five kept: sum %g", sum);
    collio__auto_learn_record(&l, 2, -1); /* (a call without a time) */
    CHECK(l.runs[2] == 8, "a negative time is not recorded");
}

static void check_correction(void)
{
    fixture x;
    fresh(&x);
    CHECK(near(x.pred[INDEPENDENT], 0.014096), "list I/O predicted %g, by hand 0.014096",
          x.pred[INDEPENDENT]);
    collio__auto_event ev;
    /* the requests really cost 100 us: 0.1 + 0.004096 s */
    const double m = 0.104096;
    record(&x.l, INDEPENDENT, 1.0, 1);
    record(&x.l, INDEPENDENT, m, AUTO_LEARN_CALLS - 1);
    int to = collio__auto_learn_next(&x.l, INDEPENDENT, &x.s, &x.c, &x.fs, 1, x.refused,
                                     x.pred, &ev);
    CHECK(to == INDEPENDENT && ev.term == -1, "not judged before %d calls",
          AUTO_LEARN_CALLS);
    record(&x.l, INDEPENDENT, m, 1);
    to = collio__auto_learn_next(&x.l, INDEPENDENT, &x.s, &x.c, &x.fs, 1, x.refused,
                                 x.pred, &ev);
    CHECK(ev.term == AUTO_TERM_REQUEST, "the per-request costs corrected (%d)", ev.term);
    /* f = 1 + (m - 0.014096) / 0.01 (the request terms' part) = 10 */
    CHECK(near(x.l.corr[AUTO_TERM_REQUEST], 10), "by %g, by hand 10",
          x.l.corr[AUTO_TERM_REQUEST]);
    CHECK(near(x.l.corr[AUTO_TERM_BYTE], 1) && near(x.l.corr[AUTO_TERM_CALL], 1),
          "the other groups untouched");
    CHECK(near(x.pred[INDEPENDENT], m), "list I/O now predicted %g, measured %g",
          x.pred[INDEPENDENT], m);
    int best = 0;
    for (int i = 1; i < collio__auto_ncand(); i++)
        if (x.pred[i] < x.pred[best])
            best = i;
    CHECK(to == best && to != INDEPENDENT && ev.why == AUTO_SWITCH_CORRECTED,
          "switched to the corrected model's first (%d), got %d why %d", best, to,
          ev.why);
    CHECK(x.l.switches == 1 && !x.l.settled, "one switch, not settled");

    /* the new choice measured as predicted: nothing to correct; no
     * runner-up predicted faster than it measured: settled */
    const double mb = x.pred[to];
    record(&x.l, to, mb, AUTO_LEARN_CALLS + 1);
    int from = to;
    to =
        collio__auto_learn_next(&x.l, from, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(ev.term == -1, "within the error: no correction");
    CHECK(to == from && x.l.settled, "settled on %d (%d)", from, to);
    record(&x.l, from, 10 * mb, AUTO_LEARN_CALLS + 1); /* whatever comes after */
    to =
        collio__auto_learn_next(&x.l, from, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == from, "settled: no more switches");
}

/* The candidates predicted fastest and next (the choice, the runner-up). */
static void first_two(const double *pred, int *cur, int *second)
{
    *cur = 0;
    *second = -1;
    for (int i = 1; i < collio__auto_ncand(); i++)
        if (pred[i] < pred[*cur])
            *cur = i;
    for (int i = 0; i < collio__auto_ncand(); i++)
        if (i != *cur && (*second < 0 || pred[i] < pred[*second]))
            *second = i;
}

/* A runner-up predicted faster than the choice measured by less than the
 * margin: tried once; its median slower: back; then settled. */
static void check_trial(void)
{
    fixture x;
    fresh(&x);
    int cur, second;
    first_two(x.pred, &cur, &second);
    /* the choice measured just above the runner-up's prediction, within
     * the model's error and the margin */
    const double m = x.pred[second] * 1.05;
    CHECK(m < AUTO_LEARN_ERROR * x.pred[cur], "the case is within the error");
    record(&x.l, cur, m, AUTO_LEARN_CALLS + 1);
    collio__auto_event ev;
    int to =
        collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == second && ev.why == AUTO_SWITCH_TRIAL, "the runner-up tried (%d, why %d)",
          to, ev.why);
    record(&x.l, second, m * 1.2, AUTO_LEARN_CALLS + 1); /* slower */
    int back = collio__auto_learn_next(&x.l, second, &x.s, &x.c, &x.fs, 1, x.refused,
                                       x.pred, &ev);
    CHECK(back == cur && ev.why == AUTO_SWITCH_MEASURED, "back to %d (%d, why %d)", cur,
          back, ev.why);
    record(&x.l, cur, m, 1);
    to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == cur && x.l.settled && x.l.tried, "one trial only, then settled");
    CHECK(x.l.switches == 2, "%d switches", x.l.switches);
}

/* Whatever the times, at most AUTO_LEARN_SWITCHES switches. */
static void check_bound(void)
{
    fixture x;
    fresh(&x);
    int cur = INDEPENDENT, switches = 0;
    for (int round = 0; round < 40; round++) {
        /* every candidate measured far slower than predicted */
        record(&x.l, cur, 1000 * x.pred[cur] + round, AUTO_LEARN_CALLS + 1);
        collio__auto_event ev;
        int to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused,
                                         x.pred, &ev);
        switches += to != cur;
        cur = to;
    }
    CHECK(switches <= AUTO_LEARN_SWITCHES && x.l.switches == switches,
          "%d switches, at most %d", switches, AUTO_LEARN_SWITCHES);
    /* a x.refused candidate is never switched to */
    collio__auto_learn_init(&x.l);
    collio__auto_predict_scaled(&x.s, &x.c, &x.fs, 1, x.l.corr, x.pred);
    memset(x.refused, 1, sizeof x.refused);
    x.refused[INDEPENDENT] = 0;
    record(&x.l, INDEPENDENT, 10 * x.pred[INDEPENDENT], AUTO_LEARN_CALLS + 1);
    collio__auto_event ev;
    CHECK(collio__auto_learn_next(&x.l, INDEPENDENT, &x.s, &x.c, &x.fs, 1, x.refused,
                                  x.pred, &ev)
              == INDEPENDENT,
          "every other candidate x.refused: it stays");
}

/* A settled choice, run AUTO_LEARN_LONG calls, with an untried runner-up
 * predicted within AUTO_LEARN_LONG_ERROR of its median: the runner-up is
 * tried once (not before the AUTO_LEARN_LONG-th call), measured faster it
 * stays, and nothing is tried again. A runner-up predicted beyond the
 * band is never tried. */
static void check_long_trial(void)
{
    fixture x;
    fresh(&x);
    int cur, second;
    first_two(x.pred, &cur, &second);
    /* the choice measured as predicted, or a little slower: within the
     * error of its prediction (nothing to correct), the runner-up
     * predicted slower than that (no trial at once) but within the error */
    double m = x.pred[second] / 1.3 > x.pred[cur] ? x.pred[second] / 1.3 : x.pred[cur];
    CHECK(m < AUTO_LEARN_ERROR * x.pred[cur] && x.pred[second] >= m
              && x.pred[second] < AUTO_LEARN_LONG_ERROR * m,
          "the case: choice %g s measured %g s, runner-up %g s", x.pred[cur], m,
          x.pred[second]);
    collio__auto_event ev;
    record(&x.l, cur, m, AUTO_LEARN_CALLS + 1);
    int to =
        collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == cur && x.l.settled && !x.l.tried, "settled on the choice (%d)", to);
    for (int i = AUTO_LEARN_CALLS + 1; i < AUTO_LEARN_LONG - 1; i++) {
        record(&x.l, cur, m, 1);
        to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred,
                                     &ev);
    }
    CHECK(to == cur, "nothing tried before call %d", AUTO_LEARN_LONG);
    record(&x.l, cur, m, 1);
    to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == second && ev.why == AUTO_SWITCH_TRIAL && x.l.switches == 1,
          "call %d: the runner-up tried (%d, why %d)", AUTO_LEARN_LONG, to, ev.why);
    record(&x.l, second, m / 2, AUTO_LEARN_CALLS + 1); /* faster */
    to = collio__auto_learn_next(&x.l, second, &x.s, &x.c, &x.fs, 1, x.refused, x.pred,
                                 &ev);
    CHECK(to == second && x.l.settled, "the faster runner-up stays (%d)", to);
    record(&x.l, second, m / 2, 3 * AUTO_LEARN_LONG);
    to = collio__auto_learn_next(&x.l, second, &x.s, &x.c, &x.fs, 1, x.refused, x.pred,
                                 &ev);
    CHECK(to == second && x.l.switches == 1, "one trial: nothing after (%d, %d switches)",
          to, x.l.switches);

    /* the only runner-up (the others x.refused) predicted beyond the band
     * of the choice's median: never tried */
    collio__auto_learn_init(&x.l);
    collio__auto_predict_scaled(&x.s, &x.c, &x.fs, 1, x.l.corr, x.pred);
    int far = cur;
    for (int i = 0; i < collio__auto_ncand(); i++)
        if (!isinf(x.pred[i]) && x.pred[i] > x.pred[far])
            far = i;
    memset(x.refused, 1, sizeof x.refused);
    x.refused[cur] = x.refused[far] = 0;
    const double fast = x.pred[cur] / 1.45; /* (within the error: no correction) */
    CHECK(x.pred[far] >= AUTO_LEARN_LONG_ERROR * fast,
          "the case: runner-up %g s, choice %g s", x.pred[far], fast);
    record(&x.l, cur, fast, 2 * AUTO_LEARN_LONG);
    to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    to = collio__auto_learn_next(&x.l, cur, &x.s, &x.c, &x.fs, 1, x.refused, x.pred, &ev);
    CHECK(to == cur && x.l.switches == 0, "beyond the band: not tried (%d)", to);
}

int main(void)
{
    check_record();
    check_correction();
    check_trial();
    check_long_trial();
    check_bound();
    return unit_summary("unit_auto_learn");
}
