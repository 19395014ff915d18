/*
 * testutil.h -- the small check framework and the independent references
 * the MPI tests of collio use.
 *
 * Checks follow PnetCDF's CHECK_ERR_ALL idea: every rank counts its own
 * passed / failed checks and prints each failure with file:line, rank and
 * the current case; tu_finish() sums the counts over ranks, rank 0 prints
 * "N passed, M failed" on its own line, and the exit code is nonzero if any
 * rank failed anything. Skipped cases (e.g. cross-rank errors at 1 rank)
 * are counted apart, never as passed.
 *
 * The references never ask the library: the expected file is built from
 * bench/pattern.h alone (element i at base + i*esize), and which global
 * indices a rank holds (in buffer order) is enumerated here from the
 * definitions of each layout kind (block-cyclic, MPI_Type_create_darray,
 * explicit list) -- not from the library's segments.
 *
 * Bounds are half-open, [start, end), everywhere. Element sizes up to
 * 4096 bytes (the checkers' scratch element).
 */
#ifndef COLLIO_TESTUTIL_H
#define COLLIO_TESTUTIL_H

#include "collio.h"
#include "pattern.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* --------------------------------------------------------------- checks */

typedef struct tu_ctx {
    MPI_Comm comm; /* MPI_COMM_WORLD */
    int rank, nranks;
    const char *name; /* test name, part of temp file names */
    int64_t passed, failed, skipped;
    int64_t messages;   /* failure messages printed (capped) */
    int verbose;        /* env COLLIO_TEST_VERBOSE=1: print every case */
    char casedesc[256]; /* what is being tested now; printed with failures */
    char tmpdir[512];
    long pid0;          /* rank 0's pid, broadcast: unique per run */
    int64_t counter;    /* temp paths made so far (same on every rank) */
    const char *filter; /* argv[1]: only cases whose description contains it */
    int thread_level;   /* tu_init_threads: MPI's answer */
} tu_ctx;

/* The values of hints multiphase.exchange and replicas.policy in the
 * order docs/options.md lists them (the stats of the same keys hold
 * them; mpi_options checks the names against the catalogue), and their
 * names. */
enum {
    TU_EXCHANGE_AUTO,
    TU_EXCHANGE_HYPERCUBE,
    TU_EXCHANGE_DIRECT,
    TU_EXCHANGE_NODE_DIRECT,
    TU_EXCHANGE_NODE_HYPERCUBE,
    TU_EXCHANGE__COUNT
};
enum {
    TU_REPLICAS_AUTO,
    TU_REPLICAS_OWNER,
    TU_REPLICAS_IDG,
    TU_REPLICAS_RANDOM,
    TU_REPLICAS_FIRST,
    TU_REPLICAS_DOMAIN,
    TU_REPLICAS__COUNT
};
#define tu_exchange_name(x) collio_option_value_name("multiphase.exchange", (x))
#define tu_replicas_name(x) collio_option_value_name("replicas.policy", (x))
/* auto's candidate c: value c + 1 of hint auto.only */
#define tu_candidate_name(c) collio_option_value_name("auto.only", (c) + 1)

/* MPI_Init + context; arms a watchdog alarm (env COLLIO_TEST_TIMEOUT
 * seconds, default 500) so that a hang ends the test instead of blocking
 * ctest. argv[1], if given, filters cases by substring (tu_case_enabled). */
void tu_init(tu_ctx *t, int *argc, char ***argv, const char *name);
/* tu_init through MPI_Init_thread(MPI_THREAD_MULTIPLE); t->thread_level: what
 * MPI gave. */
void tu_init_threads(tu_ctx *t, int *argc, char ***argv, const char *name);

/* Sums counts over ranks, prints the summary on rank 0, removes this run's
 * temp files, MPI_Finalize. Returns the process exit code (0 = all passed). */
int tu_finish(tu_ctx *t);

/* Sets the description of the current case (printed with failures and,
 * when verbose, at once on rank 0). */
void tu_case(tu_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 if the current case description matches the argv filter (or none). */
int tu_case_enabled(const tu_ctx *t);

/* Local check: counts one pass or one failure on this rank. Returns cond. */
int tu_check_(tu_ctx *t, int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define TU_CHECK(t, cond, ...) tu_check_((t), !!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Local: rc must equal `want` (messages give both codes' texts). */
int tu_check_rc_(tu_ctx *t, int rc, int want, const char *file, int line,
                 const char *what);
#define TU_RC(t, rc, want, what)                                                         \
    tu_check_rc_((t), (rc), (want), __FILE__, __LINE__, (what))

/* Collective: rc must equal `want` on this rank AND be the same on every
 * rank (the library promises one code everywhere). Returns 1 on every rank
 * iff every rank got `want`. */
int tu_check_rc_all_(tu_ctx *t, int rc, int want, const char *file, int line,
                     const char *what);
#define TU_RC_ALL(t, rc, want, what)                                                     \
    tu_check_rc_all_((t), (rc), (want), __FILE__, __LINE__, (what))

/* Collective: 1 on every rank iff `ok` is true on every rank. */
int tu_all(const tu_ctx *t, int ok);

/* ---------------------------------------------------- hints and stats */

/* Local: a new set of hints from a "KEY=VALUE,..." list (printf format;
 * "" gives an empty set), through collio_hints_parse. A failure counts a
 * failed check (naming the list and collio_last_error) and returns NULL,
 * which collio_plan_create takes as the defaults -- so a test that meant
 * other options fails visibly. Free with collio_hints_free. */
collio_hints *tu_hints_(tu_ctx *t, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define TU_HINTS(t, ...) tu_hints_((t), __FILE__, __LINE__, __VA_ARGS__)

/* Local: collio_plan_stat(p, key); a failure counts a failed check and
 * gives -1. (A success counts nothing: the caller checks the value.) */
double tu_stat_(tu_ctx *t, const collio_plan *p, const char *key, const char *file,
                int line);
#define TU_STAT(t, p, key) tu_stat_((t), (p), (key), __FILE__, __LINE__)

/* Local: collio_plan_stat_values(p, key, v, max): the values in use of a
 * statistic of many (one per exchange phase, ...), how many there are
 * returned; a failure counts a failed check and gives 0. */
int tu_stat_values_(tu_ctx *t, const collio_plan *p, const char *key, double *v, int max,
                    const char *file, int line);
#define TU_STAT_VALUES(t, p, key, v, max)                                                \
    tu_stat_values_((t), (p), (key), (v), (max), __FILE__, __LINE__)

/* Local: the value the plan runs with for hint KEY (collio_plan_hints,
 * collio_hints_get) into out[0..n); a failure or a key the plan does not
 * report counts a failed check and gives "". Returns out. */
char *tu_plan_hint_(tu_ctx *t, const collio_plan *p, const char *key, char *out, size_t n,
                    const char *file, int line);
#define TU_PLAN_HINT(t, p, key, out)                                                     \
    tu_plan_hint_((t), (p), (key), (out), sizeof(out), __FILE__, __LINE__)

/* Counts a skipped case (call on every rank with the same reason). */
void tu_skip(tu_ctx *t, const char *why);

/* ----------------------------------------------------------- temp files */

/* Collective: a fresh path "<dir>/collio-<test>-np<P>-<pid0>-<n>-<tag>",
 * dir = $COLLIO_TEST_TMPDIR or /tmp. Same string on every rank. */
void tu_temp_path(tu_ctx *t, const char *tag, char *out, size_t outlen);

/* Collective: rank 0 removes path (ignoring errors); barrier. */
void tu_remove(tu_ctx *t, const char *path);

/* Collective: rank 0 lists entries of path's directory, other than path
 * itself, whose name contains path's file name (e.g. a temporary left by a
 * CREATE). Returns that count on every rank. */
int tu_count_strays(tu_ctx *t, const char *path);

/* Collective: rank 0 writes exactly `n` bytes `data` to path (created or
 * truncated) with plain POSIX; barrier. Returns 1 on success everywhere. */
int tu_posix_put(tu_ctx *t, const char *path, const void *data, size_t n);

/* Collective: one collio_write (writing = 1, file opened CREATE) or
 * collio_read (0, opened READ) of buf through plan p, with file options fo
 * (NULL: defaults), then close; each step checked to succeed on every
 * rank. Returns 1 if all did. */
int tu_plan_io(tu_ctx *t, collio_plan *p, const char *path, const collio_file_options *fo,
               int writing, void *buf, size_t bytes);

/* Collective: rank 0 reads the whole file; returns malloc'd bytes and
 * *n on every rank (broadcast), or NULL if it does not exist. */
unsigned char *tu_posix_get(tu_ctx *t, const char *path, size_t *n);

/* ------------------------------------------------- independent reference */

/* Header byte j (for files with a base offset): depends on j only. */
unsigned char tu_header_byte(int64_t j);

/* Whole expected file: `base` header bytes (tu_header_byte, or zeros when
 * header == 0) then element i for i in [0, nglobal), from pattern.h alone.
 * Returns malloc'd bytes, *n = base + nglobal*esize. */
unsigned char *tu_expected_file(int64_t nglobal, size_t esize, uint64_t seed,
                                int64_t base, int header, size_t *n);

/* Collective: checks the file at path against the expectation with plain
 * POSIX reads: its size is exactly base + nglobal*esize, elements are the
 * pattern of `seed` (each rank checks a slice of the elements), and, when
 * check_header, bytes [0, base) are tu_header_byte(). Returns the total
 * number of mismatching bytes (+1 for a wrong size, +1 if unreadable) on
 * every rank; counts one check when `count` is set (set 0 to probe that
 * the checker itself catches corruption). */
int64_t tu_check_file(tu_ctx *t, const char *path, int64_t nglobal, size_t esize,
                      uint64_t seed, int64_t base, int check_header, int count);

/* ---------------------------------------------- independent enumeration */

typedef enum tu_kind { TU_BLOCK_CYCLIC = 0, TU_DARRAY, TU_INDEX_LIST } tu_kind;

/* A layout, described so that both the library layout and the independent
 * enumeration can be made from it. */
typedef struct tu_layout_desc {
    tu_kind kind;
    char name[160];
    size_t esize;
    int64_t nglobal;
    /* block-cyclic */
    int64_t nx, bx;
    /* darray */
    int ndims;
    int64_t gsizes[COLLIO_MAX_DIMS];
    collio_distrib distribs[COLLIO_MAX_DIMS];
    int64_t dargs[COLLIO_MAX_DIMS];
    int psizes[COLLIO_MAX_DIMS];
    collio_order order;
    /* index list: this rank's indices in buffer order (owned; malloc'd) */
    int64_t nlocal;
    int64_t *idx;
} tu_layout_desc;

void tu_desc_block_cyclic(tu_layout_desc *d, int64_t nx, int64_t bx, size_t esize);

/* psizes may be NULL: then a grid from MPI_Dims_create over the dims
 * that are not NONE. dargs may be NULL (all COLLIO_DARG_DEFAULT). */
void tu_desc_darray(tu_layout_desc *d, int nranks, int ndims, const int64_t gsizes[],
                    const collio_distrib distribs[], const int64_t dargs[],
                    const int psizes[], collio_order order, size_t esize);

/* Index-list variants (all deterministic in `seed`, same on every rank):
 *  TU_IL_SHUFFLED : a random permutation of [0, nglobal) cut into pieces of
 *                   skewed sizes (every third rank empty), random order;
 *  TU_IL_SCATTER  : each index to a random rank, increasing order;
 *  TU_IL_REVERSED : contiguous pieces, each in decreasing order. */
typedef enum tu_il_kind { TU_IL_SHUFFLED = 0, TU_IL_SCATTER, TU_IL_REVERSED } tu_il_kind;
void tu_desc_index_list(tu_layout_desc *d, int rank, int nranks, int64_t nglobal,
                        tu_il_kind how, uint64_t seed, size_t esize);

void tu_desc_free(tu_layout_desc *d);

/* The library layout for d (collective; returns the library's code). */
int tu_desc_make(const tu_layout_desc *d, MPI_Comm comm, collio_layout **out);

/* Independent enumeration: the global indices rank `rank` of `nranks`
 * holds, in buffer order (malloc'd, *n of them). From the definitions:
 * block-cyclic: block b = [b*bx, min((b+1)*bx, nx)) belongs to b mod P;
 * darray: per dimension, BLOCK(b) index i -> coord i / b, CYCLIC(k) index
 * i -> coord (i / k) mod p, NONE -> 0; grid row-major in rank; local
 * sub-array packed in the array's order (C: last index fastest);
 * index list: the list. Returns 0 on success. */
int tu_enumerate(const tu_layout_desc *d, int rank, int nranks, int64_t **idx,
                 int64_t *n);

/* Collective sanity check of the enumeration itself: the lists of all ranks
 * partition [0, nglobal), and for darrays they equal the type map of MPI's
 * own MPI_Type_create_darray (a third, independent source). Counts checks. */
void tu_check_enumeration(tu_ctx *t, const tu_layout_desc *d);

/* Packed buffer: element k gets the pattern of global index idx[k]. */
void tu_fill(unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
             uint64_t seed);

/* Number of bytes where buf differs from the packed pattern (0 = equal);
 * *first gets the first differing element position k (or -1). */
int64_t tu_compare(const unsigned char *buf, const int64_t *idx, int64_t n, size_t esize,
                   uint64_t seed, int64_t *first);

/* Deterministic 64-bit generator for test data (splitmix64 stream). */
uint64_t tu_rand(uint64_t *state);

/* Which node each rank of t->comm runs on, asked of MPI
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), not of the library: dense
 * node indices in order of each node's lowest rank, as collio numbers
 * them. Collective. */
typedef struct tu_node_map {
    int M;                      /* nodes */
    int *node_of, *lidx, *size; /* [P] node of each rank, its index among
                                   the node's ranks; [M] ranks per node */
} tu_node_map;
void tu_node_map_make(tu_ctx *t, tu_node_map *nm);
void tu_node_map_free(tu_node_map *nm);

#endif /* COLLIO_TESTUTIL_H */
