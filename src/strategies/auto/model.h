/*
 * strategies/auto/model.h -- the cost model of strategy "auto" (model.c):
 * from statistics of a layout that every rank reduces together, and the
 * machine's constants (a calibration), the predicted time of one
 * collio_write or collio_read by each candidate. Pure arithmetic, no MPI:
 * the same inputs give the same choice on every rank, and the unit test
 * (tests/unit_auto_model.c) checks it against hand-computed values.
 */
#ifndef COLLIO_AUTO_MODEL_H
#define COLLIO_AUTO_MODEL_H

#include "collio.h"

/* The candidates: a strategy, and the hint auto hands it on top of the
 * plan's own (NULL: none). Their order is the order of the stats and of a
 * tie (the earlier wins). */
enum {
    AUTO_SERIAL = 0,
    AUTO_INDEPENDENT,
    AUTO_TWO_PHASE,
    AUTO_MULTIPHASE,
    AUTO_SUBGROUP_G2,
    AUTO_SUBGROUP_G4,
    AUTO_SUBGROUP_G8,
    AUTO_MULTIPHASE_K1, /* the hypercube stopped after k phases, then list I/O */
    AUTO_MULTIPHASE_K2,
    AUTO_MULTIPHASE_K3,
    AUTO_SUBGROUP_G2_LIST, /* subgroup whose masters write by list I/O */
    AUTO_SUBGROUP_G4_LIST,
    AUTO_SUBGROUP_G8_LIST,
    AUTO_NCAND
};
/* Hints a candidate hands its strategy, at most this many */
#define AUTO_CAND_HINTS 2
typedef struct collio__auto_candidate {
    const char *label;    /* "subgroup_g4": the stat predicted_<label>_s */
    const char *strategy; /* a registered strategy */
    const char *hint_key[AUTO_CAND_HINTS], *hint_value[AUTO_CAND_HINTS]; /* NULL: none */
    int group;  /* subgroup's g, else 0 */
    int phases; /* multiphase's phases when fewer than all, else 0 */
    int list;   /* subgroup: 1 where its masters write by list I/O */
} collio__auto_candidate;
extern const collio__auto_candidate collio__auto_candidates[AUTO_NCAND];
/* The values of hint auto.only: "any", then every candidate's label in
 * the candidates' order (value i + 1 is candidate i). */
extern const char *const collio__auto_only_names[AUTO_NCAND + 1];

/* What the model knows of a layout (the same on every rank: reduced). */
typedef struct collio__auto_shape {
    int nranks, nnodes;
    int ranks_per_node; /* on the fullest node */
    int cores_per_node; /* on the smallest node */
    double bytes_total; /* bytes in the file */
    double bytes_max;   /* most bytes on one rank */
    double pieces_max;  /* most file-contiguous pieces on one rank */
    double pieces_total;
    double moved_max; /* most bytes of one rank outside its own file
                         domain (of P balanced ones): what an exchange
                         into file domains moves */
    int adjoin;       /* 1: consecutive ranks' pieces adjoin in the file
                         (block-cyclic), so gathering them merges pieces */
    int intra_phases; /* leading hypercube phases j whose partners r and
                         r XOR 2^j share a node for every r */
    int mp_rounds;    /* multiphase's synchronised rounds beyond its
                         smallest call's (its table's profile) */
    int mp_copies;    /* > 0: multiphase's exchange copies every byte
                         this many times into the node's shared window
                         (its table's profile), 0: the general terms */
    /* replicated layouts, the most of one rank (0 without replicas): the
     * runs of the written elements' selection (writes) and copy (reads),
     * and a read's fill of the replicas a rank does not write -- elements
     * and bytes copied into and out of its buffers, bytes sent, ranks sent
     * to */
    double repl_runs, fill_elements, fill_bytes, fill_sent, fill_peers;
} collio__auto_shape;

/* The predicted time (seconds) of one write (writing = 1) or read by every
 * candidate into t[], with the network and memory constants of c and the
 * file costs fs; a candidate that cannot run (subgroup with g > P,
 * multiphase with k phases where P needs no more than k) gets INFINITY. */
void collio__auto_predict(const collio__auto_shape *s, const collio_calibration *c,
                          const collio_fs_costs *fs, int writing, double t[AUTO_NCAND]);

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
void collio__auto_predict_scaled(const collio__auto_shape *s, const collio_calibration *c,
                                 const collio_fs_costs *fs, int writing,
                                 const double corr[AUTO_NTERMS], double t[AUTO_NCAND]);

/* The candidate of least predicted time (the earlier on a tie). */
int collio__auto_pick(const double t[AUTO_NCAND]);

#endif /* COLLIO_AUTO_MODEL_H */
