/*
 * strategies/auto/state.h -- an auto plan's state, shared by its
 * creation (auto.c) and its calls (choose.c).
 */
#ifndef COLLIO_AUTO_STATE_H
#define COLLIO_AUTO_STATE_H

#include "learn.h"
#include "model.h"
#include "tables.h"

/* The file costs a call is priced with: calibration entry k >= 0, or for
 * a file system without one the built-in costs of a local or of a
 * networked one (collio_fs_is_networked); NO_DIR: no auto.dir given.
 * Choices are kept per (operation, KEY(k)). */
enum { FS_LOCAL = -1, FS_NETWORKED = -2, NO_DIR = -3 };
#define KEY(k) ((k) + 2)
enum { NKEYS = COLLIO_CALIBRATION_MAX_FS + 2 };
/* The first entry a plan may meet: the calibrated ones, or without any
 * both kinds of built-in costs. */
#define FIRST_FS(ap) ((ap)->calib.nfs > 0 ? 0 : FS_NETWORKED)

typedef struct auto_plan {
    collio__cost_shape shape;
    collio_calibration calib; /* the entries that cover the plan's layout */
    uint64_t fs_key[COLLIO_CALIBRATION_MAX_FS]; /* of calib.fs[k] (ids: rank 0's) */
    char measured[COLLIO_CALIBRATION_MAX_FS];   /* 1: calib.fs[k] measured by this
                                                   process, not read from the file */
    int autocal;          /* measure a file system no entry covers */
    int learn;            /* learn from the calls (learn.c) */
    int choice[2][NKEYS]; /* candidate, or -1 before the first call */
    collio__exec_profile profiles[AUTO_MAX_CAND]; /* each candidate's (shape.profiles) */
    collio_plan *inner[AUTO_MAX_CAND];            /* made on first use */
    char refused[AUTO_MAX_CAND]; /* its plan creation said ARG (everywhere) */
    double predicted[2][NKEYS][AUTO_MAX_CAND]; /* with the learned corrections */
    collio__auto_learn learned[2][NKEYS];
    struct {
        int op, key, cand; /* what the last execution ran (cand -1: none) */
    } last;
    double made_s;      /* choosing at calls (making plans there), in total */
    double calibrate_s; /* measuring file systems, in total */
} auto_plan;

/* Collective (choose.c): the choice for calibration entry k (FS_LOCAL,
 * FS_NETWORKED: none covers the file system) and operation op (0 write, 1
 * read), made once: where no entry covers it and the plan may measure,
 * the file system of `where` is measured first (its entry then priced,
 * fs_key its key, 0: the measured id's); every candidate predicted, the
 * cheapest whose plan can be made made (unless made before) and kept.
 * *k becomes the entry used. Agreed code. */
int collio__auto_choose(collio_plan *p, auto_plan *ap, int *k, int op, const char *where,
                        uint64_t fs_key);

/* Local: every candidate's predicted time for entry k and operation op,
 * as learned so far. */
void collio__auto_predict_for(const auto_plan *ap, int k, int op,
                              double t[AUTO_MAX_CAND]);

/* Collective: candidate i's plan (choose.c). Agreed code. */
int collio__auto_make_inner(collio_plan *p, auto_plan *ap, int i);

/* Local: with auto.only, every other candidate's time made INFINITY; -1
 * where the one named cannot run (the same on every rank), else 0. */
int collio__auto_keep_only(const collio_plan *p, double t[AUTO_MAX_CAND]);

/* The strategy's calls (choose.c): its table's write / read, prepare and
 * predict. */
int collio__auto_exec(collio_plan *p, collio_file *f, char *stream, int writing);
int collio__auto_prepare(collio_plan *p, collio_file *f, int writing);
void collio__auto_predict_call(const collio_plan *p, const collio_file *f, int writing,
                               int *candidate, double *seconds);

#endif /* COLLIO_AUTO_STATE_H */
