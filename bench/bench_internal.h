/*
 * bench_internal.h -- pieces of collio-bench shared between its files:
 * cases (what is written), variants (how), rows (what one run measured),
 * and the helpers each file provides. Not part of any installed API.
 */
#ifndef COLLIO_BENCH_INTERNAL_H
#define COLLIO_BENCH_INTERNAL_H

#include "bench.h"

#include <stdint.h>
#include <stdio.h>

/* What is written: one vector block size, or one array shape. */
typedef struct bench_case {
    char label[COLLIO_BENCH_SHAPE_LEN]; /* "16" or "SL1" (table) */
    const collio_bench_shape *shape;    /* array only, else NULL */
    int64_t nx;                         /* elements in the file */
    int64_t bx;                         /* vector block; array y-block */
    int64_t size;                       /* small: bytes per rank, else 0 */
    size_t esize;                       /* bytes per element (mesh: 8 *
                                           load), 0: cfg->esize */
    int64_t load;                       /* mesh: values per node, else 0 */
    int64_t hole_every;                 /* sparse: K, every K-th block of bx
                                           (blocks K-1, 2K-1, ...) a hole;
                                           else 0: no holes */
    int64_t span;                       /* sparse: elements the file spans,
                                           data and holes; else 0 (= nx) */
} bench_case;

/* The element size of a case. */
static inline size_t bench_case_esize(const bench_case *c, const collio_bench_config *cfg)
{
    return c->esize ? c->esize : cfg->esize;
}

/* The elements the file of a case spans (holes included). */
static inline int64_t bench_case_span(const bench_case *c)
{
    return c->span ? c->span : c->nx;
}

/* The options swept in one bench run: the typed lists of the config and
 * its sweeps[] (bench_sweeps_of), one value list each, canonical hint text. */
#define BENCH_MAX_SWEEPS (COLLIO_BENCH_MAX_SWEEPS + 8)
#define BENCH_VALUE_LEN 64
typedef struct bench_sweep {
    char key[COLLIO_BENCH_KEY_LEN];
    char values[COLLIO_BENCH_MAX_LIST][BENCH_VALUE_LEN];
    int nvalues;
} bench_sweep;

/* How it is written: a strategy and its hints -- the config's --hints, then
 * one value of each sweep that applies to the strategy. */
typedef struct bench_variant {
    char strategy[COLLIO_BENCH_NAME_LEN];
    char label[256];            /* "multiphase(k=2,r=3)", "independent(max_iov=4)" */
    int pick[BENCH_MAX_SWEEPS]; /* the value of sweep j it runs, -1: none */
    collio_hints *hints;        /* what its plans are created with (owned) */
    char hints_text[COLLIO_BENCH_HINTS_LEN]; /* the plan's hints that differ
                                                from the defaults, "K=V;K=V" */
    int destroy_input;                       /* the plan's plan.destroy_input */
    int canonical;                           /* writes canonical order */
} bench_variant;

enum { BENCH_OP_WRITE = 0, BENCH_OP_READ = 1 };
/* Room for the columns of bench_columns.c (checked there). */
enum { BENCH_STAT_COLUMNS = 32 };

/* One timed run, reduced over ranks (times and memory: max; counters: sum
 * unless the name says max). verified: 1 ok, 0 failed, -1 not checked. */
typedef struct bench_row {
    int ci, vi, rep, op;
    double inspect_s, exchange_s, file_s, total_s;
    double copy_s;  /* the part of exchange_s in local copies */
    double work_mb; /* stats.work_bytes in MiB, max over ranks */
    int64_t bytes_sent, messages, file_requests, file_bytes;
    int64_t bytes_offnode, messages_offnode; /* the part with other nodes (sums) */
    int64_t messages_offnode_max;            /* ... the most on one rank */
    int nnodes;                              /* nodes the ranks run on */
    int64_t file_requests_max, plan_bytes_max;
    double peak_rss_mb;  /* VmHWM during the call, max over ranks */
    double extra_rss_mb; /* VmHWM - VmRSS before the call, max over ranks */
    double local_mb;     /* the rank's own data, max over ranks */
    double warmup_s;     /* the first warm-up call of (case, variant, op); 0: none */
    double create_s;     /* collio_plan_create of (case, variant): wall time
                            from a barrier, max over ranks */
    int auto_choice;     /* strategy auto: the candidate it ran
                            (value + 1 of hint auto.only), else -1 */
    double stat[BENCH_STAT_COLUMNS]; /* the columns of bench_columns.c, reduced */
    int verified;
    const double *extra; /* the statistics without a column of their own
                            (bench_extra_stats), max over ranks; valid
                            until the next run (add_row writes them out) */
} bench_row;

/* A workload: its name (CLI and CSV), the cases of a config (collective,
 * the same on every rank; COLLIO_ERR_ARG for a config it cannot run) and
 * the layout of one case (collective). One table line per workload in
 * bench_workloads.c. */
typedef struct bench_workload_ops {
    const char *name;
    const char *case_column; /* the table's case column: "bx", "shape" */
    int (*cases)(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                 int *ncases);
    int (*layout)(MPI_Comm comm, const collio_bench_config *cfg, const bench_case *c,
                  collio_layout **out);
} bench_workload_ops;

/* The workload of cfg->workload (never NULL for a valid enum value). */
const bench_workload_ops *bench_workload_of(collio_bench_workload w);
/* By CLI name; NULL if unknown. */
const bench_workload_ops *bench_workload_named(const char *name,
                                               collio_bench_workload *w);

/* ---- bench_vector.c: the seed 004 workload */
extern const bench_workload_ops bench_vector_workload;

/* ---- bench_array.c: the seed 001 workload (STEM-II SL arrays) */
/* Parses "SL1", "SL1,SL3" or "X,Y,Z,L,PH" and appends to cfg->shapes.
 * Returns 0, or -1 with a message in err. */
int bench_array_parse_shapes(const char *arg, collio_bench_config *cfg, char *err,
                             size_t errlen);
extern const bench_workload_ops bench_array_workload;

/* ---- bench_small.c: the seed 002 workload (one piece of s bytes per rank) */
/* Parses "1K,4K,16K,1M" (K = 1024, M = 1024^2) into cfg->sizes. Returns 0,
 * or -1 with a message in err. */
int bench_small_parse_sizes(const char *arg, collio_bench_config *cfg, char *err,
                            size_t errlen);
extern const bench_workload_ops bench_small_workload;

/* ---- bench_mesh.c: the seed 003 workload (a gmsh mesh, METIS parts) */
extern const bench_workload_ops bench_mesh_workload;
/* Nodes of the mesh the last mesh cases() loaded (0 before). */
int64_t bench_mesh_nodes(void);

/* ---- bench_sparse.c: the vector with holes (collio_layout_extents) */
extern const bench_workload_ops bench_sparse_workload;

/* ---- bench_verify.c: fill and check data against bench/pattern.h */
/* Local: buf element i = pattern(global_index(i), seed). */
void bench_fill(const collio_layout *l, uint64_t seed, unsigned char *buf);
/* Local: number of elements of buf that differ from the pattern. */
int64_t bench_check_buffer(const collio_layout *l, uint64_t seed,
                           const unsigned char *buf);
/* Collective: every rank preads its contiguous 1/P of the file's
 * bench_case_span(c) elements (plain POSIX, independent of layout and
 * strategy) and compares each element with the pattern of its index --
 * or, in a hole of a sparse case (element i with (i / bx) % K == K - 1,
 * K = hole_every), with zero bytes (the write made a fresh file); rank 0 also
 * checks the file size. Returns the number of bad elements (+1 for a bad
 * size or an unreadable file), summed over ranks, the same on every rank. */
int64_t bench_check_file(MPI_Comm comm, const char *path, const bench_case *c,
                         size_t esize, uint64_t seed);

/* ---- bench_sys.c: memory and small helpers */
double bench_vm_kb(const char *key);   /* "VmHWM", "VmRSS": kB, -1 unknown */
void bench_reset_peak(void);           /* resets VmHWM (clear_refs 5) */
double bench_median(double *v, int n); /* sorts v */
/* Splits a comma list into int64 values; returns count or -1. */
int bench_parse_i64_list(const char *s, int64_t *out, int max);
/* The file system that holds a directory, as this process sees it
 * (collio_fs_identify). */
typedef collio_fs_id bench_fs;
void bench_fs_of(const char *dir, bench_fs *fs);

/* ---- bench_hints.c: plan options (hints) as flags, sweeps and docs */
/* The option KEY of the catalogue: its index, or -1 (out filled if not
 * NULL). Local. */
int bench_option_find(const char *key, collio_option_info *out);
/* A flag of the catalogue: --KEY or one of the aliases (--phases, ...)
 * with its comma list `arg`, each value checked by collio_hints_set and
 * stored in cfg. Returns 0, 1 if `flag` is not one (cfg untouched), 2
 * with a message naming the key in err. Local. */
int bench_parse_option_flag(const char *flag, const char *arg, collio_bench_config *cfg,
                            char *err, size_t errlen);
/* --hints "K=V,...": checked, appended to cfg->hints. 0, or 2 (err). */
int bench_parse_hints(const char *arg, collio_bench_config *cfg, char *err,
                      size_t errlen);
/* The sweeps of cfg (sweeps[]; a later sweep of the same key replaces
 * the earlier), checked. COLLIO_OK, or
 * COLLIO_ERR_ARG with a message naming the key in err. Local. */
int bench_sweeps_of(const collio_bench_config *cfg, bench_sweep *out, int *n, char *err,
                    size_t errlen);
/* The generated part of the usage: one flag per option. */
int bench_usage_options(FILE *out);

/* ---- bench_columns.c: the CSV columns that show a section's statistic
 * under a name of their own (`phases`, `replicas`, ...) */
int bench_stat_column_count(void);
const char *bench_stat_column_key(int i); /* column i's statistic */
/* Collective: every such column's value for the plan's last call, reduced
 * over ranks, into out[0 .. bench_stat_column_count()). */
void bench_stat_columns_reduce(MPI_Comm comm, const collio_plan *plan, double *out);
/* The value of COLUMN among vals (0 if no such column). */
double bench_stat_column_value(const double *vals, const char *column);
/* If COLUMN is one of them: prints its value (or nothing, where it is
 * empty) and returns 1; else 0. */
int bench_stat_column_put(FILE *f, const char *column, const double *vals);

/* ---- bench_report.c: CSV rows and the median table */
/* The catalogue's statistics that no fixed CSV column shows, in catalogue
 * order (each then gets a column named by its key): up to max keys into
 * keys[], returns how many. Local. */
int bench_extra_stats(const char **keys, int max);
/* writes the header (the fixed columns, the file system's, hints, the
 * extra stats); NULL on error */
FILE *bench_csv_open(const char *path, const char *const *extra, int nextra);
/* fs: the file system of cfg->dir (columns fs_type, fs_mount, fs_source,
 * fs_magic) */
void bench_csv_row(FILE *f, const collio_bench_config *cfg, const bench_fs *fs,
                   int nranks, const bench_case *c, const bench_variant *v,
                   const bench_row *r, int nextra);
void bench_print_table(FILE *out, const collio_bench_config *cfg, const bench_fs *fs,
                       int nranks, const bench_case *cases, int ncases,
                       const bench_variant *vars, int nvars, const bench_row *rows,
                       int nrows);

#endif /* COLLIO_BENCH_INTERNAL_H */
