/*
 * strategies/auto/inputs.h -- what the model of strategy "auto" needs,
 * made the same on every rank in one MPI_Allreduce (inputs.c): the
 * layout's statistics and rank 0's calibration.
 */
#ifndef COLLIO_AUTO_INPUTS_H
#define COLLIO_AUTO_INPUTS_H

#include "replicas/replicas.h"
#include "model.h"

/* What each rank brings (local) and what every rank gets. */
typedef struct collio__auto_inputs {
    /* in: this rank's part; out: the maxima over ranks */
    double bytes, pieces, moved, node_ranks, cores;
    collio__repl_work repl; /* the replicas' work around the strategy (all 0
                               without replicas) */
    double pieces_total;    /* in: this rank's pieces; out: their sum */
    double elements_total;  /* in: this rank's elements; out: their sum */
    int code;               /* in: this rank's code so far; out: the largest (codes are
                               positive): nonzero where some rank failed */
    /* in: rank 0's (the others' are ignored); out: rank 0's everywhere */
    collio_calibration calib; /* the file systems' ids stay blank elsewhere */
    uint64_t fs_key[COLLIO_CALIBRATION_MAX_FS]; /* collio__fs_key of calib.fs[k] */
    char measured[COLLIO_CALIBRATION_MAX_FS];   /* 1: calib.fs[k] was measured by
                                                    rank 0's process, not read */
    int autocal;   /* 1: measure a file system no entry covers (rank 0's
                      options and environment decide) */
    int error;     /* the calibration's load code, -1: not asked */
    int dir_entry; /* auto.dir's file system's entry, else -1 (a local one)
                      or -2 (a networked one) without an entry; -3: no dir */
} collio__auto_inputs;

/* Collective over p's ranks, taken by every rank even after a local
 * failure: reduces *in (maxima of the statistics and codes, the sums of
 * the pieces and elements)
 * and puts rank 0's calibration, code and dir_entry in it on every rank
 * -- the calibration's broadcast folded into the reduction (rank 0 adds
 * its values, the others zeros). COLLIO_OK or COLLIO_ERR_MPI (this
 * rank's). */
int collio__auto_share(collio_plan *p, collio__auto_inputs *in);

#endif /* COLLIO_AUTO_INPUTS_H */
