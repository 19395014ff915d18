/*
 * strategies/auto/model.h -- the cost model of strategy "auto" (model.c):
 * its candidates, as the strategies declare them in their tables
 * (collio__candidate, core/core.h), and from statistics of a layout that
 * every rank reduces together and the machine's constants (a
 * calibration), the predicted time of one collio_write or collio_read by
 * each. Pure arithmetic, no MPI: the same inputs give the same choice on
 * every rank, and the unit test (tests/unit_auto_model.c) checks it
 * against hand-computed values.
 */
#ifndef COLLIO_AUTO_MODEL_H
#define COLLIO_AUTO_MODEL_H

#include "collio.h"
#include "core/core.h"

/* The most candidates auto holds (the registry's, walked once: the rest
 * are left out, the first time said on standard error). */
enum { AUTO_MAX_CAND = 32 };

/* The candidates, in their order (core/core.h): how many, candidate i,
 * and the strategy that declares it. Built once from the registry (which
 * that seals). */
int collio__auto_ncand(void);
const collio__candidate *collio__auto_cand(int i);
const collio__strategy *collio__auto_cand_strategy(int i);
/* The calibration's terms every strategy owns (their tables' cost_terms,
 * in registry order; at most COLLIO_CAL_TERMS_MAX): into *keys, their
 * number. The same on every rank. */
int collio__auto_term_keys(const char *const **keys);
/* The values of hint auto.only: "any", then every candidate's label in
 * their order (value i + 1 is candidate i), then NULL. */
const char *const *collio__auto_only_names(void);

/* The predicted time (seconds) of one write (writing = 1) or read by every
 * candidate into t[] (the first collio__auto_ncand()), with the network
 * and memory constants of c and the file costs fs; a candidate that
 * cannot run (subgroup with g > P, multiphase with k phases where P needs
 * no more than k) gets INFINITY. Each candidate is priced with its
 * strategy's profile: s->profiles[i] where given, else s->sync_rounds and
 * s->shared_copies. */
void collio__auto_predict(const collio__cost_shape *s, const collio_calibration *c,
                          const collio_fs_costs *fs, int writing,
                          double t[AUTO_MAX_CAND]);

/* The model's constants in three groups, for what a plan learns from its
 * own calls (learn.c): per request (list I/O's requests, the MPI
 * library's collective per piece, packing per piece), per byte (the
 * file's, memory's and the links' rates, the MPI library's and serial's
 * costs per byte) and per call (the smallest calls' floors, the MPI
 * library's cost per call, multiphase's rounds, message latencies). */
enum { AUTO_TERM_REQUEST, AUTO_TERM_BYTE, AUTO_TERM_CALL, AUTO_NTERMS };

/* collio__auto_predict with each group's constants scaled by corr[g]
 * (costs multiplied, rates divided: corr[g] > 1 makes that group's terms
 * dearer; all 1: the model as calibrated). */
void collio__auto_predict_scaled(const collio__cost_shape *s, const collio_calibration *c,
                                 const collio_fs_costs *fs, int writing,
                                 const double corr[AUTO_NTERMS], double t[AUTO_MAX_CAND]);

/* The candidate of least predicted time (the earlier on a tie). */
int collio__auto_pick(const double t[AUTO_MAX_CAND]);

#endif /* COLLIO_AUTO_MODEL_H */
