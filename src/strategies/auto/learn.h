/*
 * strategies/auto/learn.h -- what an auto plan learns from its own calls
 * (learn.c; docs/auto.md, "Learning from its own calls"). Pure: from the
 * calls' times, agreed over the ranks before they get here, and the
 * model; so every rank learns the same and switches at the same call.
 */
#ifndef COLLIO_AUTO_LEARN_H
#define COLLIO_AUTO_LEARN_H

#include "model.h"

/* A candidate is judged after this many measured calls (its first call,
 * which makes its buffers, not counted), by the median of the last
 * AUTO_LEARN_KEEP. */
#define AUTO_LEARN_CALLS 3
#define AUTO_LEARN_KEEP 5
/* The model's typical error: over docs/auto.md's grid half the predictions
 * are within 1.37x of the measured time. A candidate measured beyond this
 * factor of its prediction, either way, corrects the model. */
#define AUTO_LEARN_ERROR 1.5
/* Another candidate must rank faster than the chosen one's measured time
 * by this fraction to be switched to; an untried one that ranks faster
 * by less is a tie the model cannot break: it is tried, once. */
#define AUTO_LEARN_MARGIN 0.10
/* At most this many switches per file system and operation of a plan
 * (the trial and its return included), and one trial: no flapping,
 * whatever the times do. */
#define AUTO_LEARN_SWITCHES 4
/* A choice settled and run AUTO_LEARN_LONG calls (a pattern written
 * again and again: a time step loop, the interposer's cached patterns)
 * measures the untried runner-up predicted closest to it, once, where
 * that prediction is within AUTO_LEARN_LONG_ERROR of the choice's
 * median: the band that holds 85-100 % of the model's predictions of
 * each canonical strategy over docs/auto.md's grids, inside which the
 * model cannot tell the two apart; the trial (its plan and 4 calls, each
 * at most about that factor slower) is paid back by the calls to come
 * where it wins. */
#define AUTO_LEARN_LONG 20
#define AUTO_LEARN_LONG_ERROR 2.0

typedef enum {
    AUTO_SWITCH_NONE = 0,
    AUTO_SWITCH_CORRECTED, /* the model, corrected, ranks another first */
    AUTO_SWITCH_TRIAL,     /* a runner-up within the margin, tried once */
    AUTO_SWITCH_MEASURED   /* another ranks faster (by its own median or its
                              prediction) than the one that ran measured */
} collio__auto_switch_why;

/* What one file system and operation of a plan has learned. */
typedef struct collio__auto_learn {
    int runs[AUTO_MAX_CAND]; /* executions of each candidate */
    int n[AUTO_MAX_CAND];    /* of them measured (the first is not), at most KEEP kept */
    double t[AUTO_MAX_CAND][AUTO_LEARN_KEEP]; /* the last ones, seconds (a ring) */
    /* what a judged candidate's median says of the model: the group of
     * constants that dominates its prediction (-1: not judged yet), and
     * the factor on that group that would predict the median */
    int dom[AUTO_MAX_CAND];
    double implied[AUTO_MAX_CAND];
    double corr[AUTO_NTERMS]; /* the corrections (collio__auto_predict_scaled) */
    int switches;
    int trial_from; /* a trial runs: the candidate it left, else -1 */
    int tried;      /* the one trial was made */
    int settled;    /* nothing left to learn: the choice stays */
} collio__auto_learn;

/* One decision, for the stats and the log. */
typedef struct collio__auto_event {
    int from, to; /* candidates (to == from: no switch) */
    collio__auto_switch_why why;
    int term;           /* the group corrected, -1: none */
    double factor;      /* ... by this factor */
    double measured_s;  /* from's median */
    double predicted_s; /* from's prediction before the correction */
    double to_s;        /* to's median where it ran before, else its
                           prediction (to_measured 0) */
    int to_measured;
} collio__auto_event;

void collio__auto_learn_init(collio__auto_learn *l);

/* One call of candidate c took `seconds` (the slowest rank's). */
void collio__auto_learn_record(collio__auto_learn *l, int c, double seconds);

/* After a record of `cur`: the candidate to run from the next call on
 * (cur: it stays), and *ev what was decided. pred[] holds every
 * candidate's prediction with l's corrections (collio__auto_predict_scaled
 * with l->corr, INFINITY where one cannot run) and is updated when the
 * model is corrected; refused[i]: candidate i's plan could not be made.
 * The shape and costs are those pred was computed from. */
int collio__auto_learn_next(collio__auto_learn *l, int cur, const collio__cost_shape *s,
                            const collio_calibration *c, const collio_fs_costs *fs,
                            int writing, const char *refused, double pred[AUTO_MAX_CAND],
                            collio__auto_event *ev);

#endif /* COLLIO_AUTO_LEARN_H */
