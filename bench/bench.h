/*
 * bench.h -- collio-bench as a library (static lib collio_bench): a test can
 * fill a collio_bench_config and call collio_bench_run(); bench/main.c is
 * the thin command-line front end (collio_bench_parse + collio_bench_run).
 *
 * One run = one (case, strategy variant, rep, op): a case is a vector block
 * size bx or an array shape; a variant is a strategy with one value of each
 * plan option (hint) swept for it (--KEY V1,V2,...: one flag per option of
 * the catalogue, collio_option_describe). Each run is timed by the
 * library's own stats (max over ranks), its file verified byte-for-byte
 * against bench/pattern.h (canonical strategies), and reported as one CSV
 * row.
 */
#ifndef COLLIO_BENCH_H
#define COLLIO_BENCH_H

#include "collio.h"

#include <stdint.h>
#include <stdio.h>

#define COLLIO_BENCH_MAX_LIST 64 /* bx values, strategies, shapes, phases */
#define COLLIO_BENCH_NAME_LEN 64
#define COLLIO_BENCH_SHAPE_LEN 112 /* "XxYxZxLxPH", up to 19 digits each */
#define COLLIO_BENCH_PATH_LEN 1024
#define COLLIO_BENCH_ARRAY_DIMS 5  /* SL(x, y, z, l, ph) */
#define COLLIO_BENCH_PHASE_COLS 8  /* CSV columns phase0_s .. phase7_s */
#define COLLIO_BENCH_MAX_SWEEPS 32 /* options swept (--KEY V1,V2,...) */
#define COLLIO_BENCH_KEY_LEN 128   /* an option's key, "SECTION.NAME" */
#define COLLIO_BENCH_HINTS_LEN 1024

typedef enum collio_bench_workload {
    COLLIO_BENCH_VECTOR = 0, /* seed 004: block-cyclic float32 vector */
    COLLIO_BENCH_ARRAY,      /* seed 001: STEM-II SL arrays, BLOCK over y */
    COLLIO_BENCH_SMALL,      /* seed 002: one contiguous piece per rank */
    COLLIO_BENCH_MESH,       /* seed 003: fields on a gmsh mesh, METIS parts,
                                halo nodes replicated */
    COLLIO_BENCH_SPARSE      /* the vector with holes: every K-th block of bx
                                held by no rank (collio_layout_extents) */
} collio_bench_workload;

/* One array shape: a name (SL1 or "XxYxZxLxPH") and its global sizes. */
typedef struct collio_bench_shape {
    char name[COLLIO_BENCH_SHAPE_LEN];
    int64_t gsizes[COLLIO_BENCH_ARRAY_DIMS];
} collio_bench_shape;

/* One plan option swept: one variant per value, crossed with the other
 * sweeps of the variant's strategy (--KEY V1,V2,...). */
typedef struct collio_bench_sweep {
    char key[COLLIO_BENCH_KEY_LEN];     /* "SECTION.NAME", of the catalogue */
    char values[COLLIO_BENCH_PATH_LEN]; /* "V1,V2,...": hint text each */
} collio_bench_sweep;

/* Every plan option a run sweeps is in sweeps[] (one variant per value),
 * whichever flag named it: --KEY or one of the short aliases (--phases is
 * --multiphase.phases, ...; collio-bench --help lists them);
 * destroy_input = 1 is plan.destroy_input = 1 for every variant. */
typedef struct collio_bench_config {
    collio_bench_workload workload;
    int64_t nx;                        /* vector: elements */
    int64_t bx[COLLIO_BENCH_MAX_LIST]; /* vector: block sizes */
    int nbx;
    int64_t hole_every; /* sparse: every K-th block is a hole (4) */
    collio_bench_shape shapes[COLLIO_BENCH_MAX_LIST]; /* array: shapes */
    int nshapes;
    char strategies[COLLIO_BENCH_MAX_LIST][COLLIO_BENCH_NAME_LEN];
    int nstrategies;                 /* 0: every registered one */
    int reps;                        /* runs per (case, variant, op) */
    int warmup;                      /* untimed first calls per (case,
                                        variant) before the reps (1) */
    double max_time;                 /* s per (case, variant): stop its
                                        reps once exceeded; 0: never */
    int do_write, do_read;           /* --ops */
    size_t esize;                    /* bytes per element */
    char dir[COLLIO_BENCH_PATH_LEN]; /* where files go */
    char csv[COLLIO_BENCH_PATH_LEN]; /* CSV path, "" for none */
    int verify;                      /* 1: verify canonical files */
    int h5;                          /* 1: keep each case's last canonical
                                        file per variant, with an HDF5
                                        description (--h5) */
    collio_backend backend;
    int destroy_input; /* 1: plans may use the write buffer as scratch */
    int64_t sizes[COLLIO_BENCH_MAX_LIST]; /* small: bytes per rank */
    int nsizes;
    char mesh[COLLIO_BENCH_PATH_LEN];      /* mesh: the .msh file */
    char partition[COLLIO_BENCH_PATH_LEN]; /* mesh: METIS .npart file, ""
                                              = call METIS */
    int order_rcm;                         /* mesh: renumber nodes by RCM */
    int64_t loads[COLLIO_BENCH_MAX_LIST];  /* mesh: float64 values per node */
    int nloads;                            /* 0: one case, load 1 */
    collio_bench_sweep sweeps[COLLIO_BENCH_MAX_SWEEPS]; /* options swept */
    int nsweeps;
    char hints[COLLIO_BENCH_HINTS_LEN]; /* "K=V,K=V": every variant (--hints;
                                           a sweep of the same key wins) */
    int progress;                       /* 1: progress lines on stderr */
    int settle;                         /* 1: sync() before each timed call */
    FILE *table_out;                    /* rank 0's table; NULL: none */
} collio_bench_config;

/* What a whole bench run found (the same on every rank). */
typedef struct collio_bench_summary {
    int runs;     /* timed runs recorded */
    int verified; /* runs verified ok */
    int failed;   /* runs whose verification failed */
    int errors;   /* library calls that returned an error */
} collio_bench_summary;

/** Defaults: vector, nx = 1M, bx = 1, all strategies, 3 reps, write only,
 *  esize 4, dir ".", no CSV, verify on, POSIX, progress on, table to stdout;
 *  small: sizes 1K..1M; sparse: every 4th block a hole. */
void collio_bench_config_init(collio_bench_config *cfg);

/**
 * Parses argv (argv[1] is the workload) into cfg (initialised by the
 * caller). Every plan option's value is checked here through
 * collio_hints_set (the catalogue as it is: register a strategy before).
 * Returns 0 on success, 1 if help (--help) or the options' tables
 * (--options-markdown as the workload) were printed to `out`, 2 on a
 * usage error (message in err, naming the option's key). Local; every
 * rank parses the same argv, so every rank gets the same result.
 */
int collio_bench_parse(int argc, char **argv, collio_bench_config *cfg, FILE *out,
                       char *err, size_t errlen);

/** Usage text: the fixed options, then one flag --KEY per option of the
 *  catalogue as it is when called (collio_option_describe: every section's,
 *  a strategy registered by the program included) with its type, default,
 *  range and doc. Local. Returns COLLIO_OK, or the catalogue's error. */
int collio_bench_usage(FILE *out);

/** The option and statistic tables of docs/options.md, in Markdown, from
 *  the catalogue (collio_option_describe, collio_stat_describe): one
 *  table per section. Local (no MPI needed). Returns COLLIO_OK, or the
 *  catalogue's error. */
int collio_bench_options_markdown(FILE *out);

/**
 * Collective over comm. Runs the benchmark described by cfg: progress on
 * stderr (rank 0), the median table on cfg->table_out and CSV rows in
 * cfg->csv (rank 0). Returns COLLIO_OK, or an error code if the bench
 * could not run at all (bad config, unknown strategy, CSV not writable);
 * library errors during single runs and verification failures are counted
 * in *sum instead (sum may be NULL). The same result on every rank.
 */
int collio_bench_run(MPI_Comm comm, const collio_bench_config *cfg,
                     collio_bench_summary *sum);

/**
 * Collective over comm. `collio-bench calibrate [options]` (argv[1] is
 * "calibrate"; bench_calibrate.c): measures the constants of strategy
 * auto's cost model on this machine and saves them in the calibration
 * file. Returns the exit status, the same on every rank: 0 ok (or help
 * printed), 1 a measurement or the file failed (message on rank 0's
 * stderr), 2 usage error.
 */
int collio_bench_calibrate(MPI_Comm comm, int argc, char **argv);

#endif /* COLLIO_BENCH_H */
