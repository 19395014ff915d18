/*
 * mpiio_common.h -- shared by the real-library test programs of
 * tests/mpiio/ (io_mpiio.c, io_hdf5.c, io_pnetcdf.c, io_netcdf4.c) and
 * bench/mpiio_bench.c: the expected values, the decompositions (1-D
 * block-cyclic, the irregular "climate" pieces, N-d block grids), option
 * parsing and the checks. Header only: every function is static inline.
 *
 * Expected values. Element g (global linear index) of variable `var` holds
 * mpiio_value(var, g): an integer in [1, 2^23], exact in float32, never 0
 * (so a hole left unwritten -- zeros -- never passes for data), distinct
 * between variables and time steps (the caller folds the step into var).
 * The value is a function of (var, g) only, never of the decomposition or
 * the library: the independent reference the programs compare against.
 *
 * The irregular ("climate") workload: [0, nx) is cut into consecutive
 * pieces of 1..8 elements (lengths from a PRNG with a fixed seed), the
 * pieces are shuffled (Fisher-Yates, same PRNG) and dealt round-robin:
 * the k-th piece of the shuffled list goes to rank k % P. Every rank thus
 * holds thousands of small pieces scattered over the whole vector, listed
 * in shuffled (not file) order, like the decomposition maps of a climate
 * model's unstructured grid written through PnetCDF varn.
 */
#ifndef COLLIO_MPIIO_COMMON_H
#define COLLIO_MPIIO_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#endif

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---------------------------------------------------------- */

static inline uint32_t mpiio_mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    return h ^ (h >> 16);
}

static inline float mpiio_value(int var, int64_t g)
{
    uint32_t h = (uint32_t)g * 0x9e3779b1U;
    h ^= mpiio_mix32((uint32_t)((uint64_t)g >> 32) + 0x27d4eb2fU * ((uint32_t)var + 1U));
    return (float)((mpiio_mix32(h) & 0x7fffffU) + 1U);
}

/* ---- pieces: runs of consecutive global elements ---------------------- */

typedef struct {
    int64_t off; /* first global element */
    int64_t len; /* elements */
} mpiio_piece;

typedef struct {
    mpiio_piece *p;
    int64_t n;     /* pieces */
    int64_t total; /* elements over all pieces */
} mpiio_pieces;

static inline void *mpiio_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "mpiio: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static inline void mpiio_pieces_free(mpiio_pieces *ps)
{
    free(ps->p);
    ps->p = NULL;
    ps->n = ps->total = 0;
}

/* Rank r's blocks of a 1-D block-cyclic layout of nx elements, block bx,
 * P ranks: global blocks r, r + P, r + 2P, ...; the last may be partial. */
static inline mpiio_pieces mpiio_block_cyclic(int64_t nx, int64_t bx, int P, int r)
{
    mpiio_pieces ps = {0, 0, 0};
    int64_t nblocks = (nx + bx - 1) / bx;
    int64_t mine = nblocks > r ? (nblocks - r + P - 1) / P : 0;
    ps.p = (mpiio_piece *)mpiio_xmalloc((size_t)mine * sizeof(mpiio_piece));
    for (int64_t b = r; b < nblocks; b += P) {
        int64_t off = b * bx;
        int64_t len = nx - off < bx ? nx - off : bx;
        ps.p[ps.n].off = off;
        ps.p[ps.n].len = len;
        ps.n++;
        ps.total += len;
    }
    return ps;
}

static inline uint64_t mpiio_rng(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Rank r's pieces of the irregular workload (see the top of this file),
 * in shuffled order. Deterministic in (nx, P, seed). */
static inline mpiio_pieces mpiio_irregular(int64_t nx, int P, int r, uint64_t seed)
{
    mpiio_pieces ps = {0, 0, 0};
    uint64_t s = seed * 0x2545f4914f6cdd1dULL + 1;
    int64_t cap = nx > 0 ? nx : 1, n = 0;
    mpiio_piece *all = (mpiio_piece *)mpiio_xmalloc((size_t)cap * sizeof(mpiio_piece));
    for (int64_t off = 0; off < nx; n++) {
        int64_t len = 1 + (int64_t)(mpiio_rng(&s) % 8);
        if (len > nx - off)
            len = nx - off;
        all[n].off = off;
        all[n].len = len;
        off += len;
    }
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(mpiio_rng(&s) % (uint64_t)(i + 1));
        mpiio_piece t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    ps.p = (mpiio_piece *)mpiio_xmalloc((size_t)(n / P + 1) * sizeof(mpiio_piece));
    for (int64_t k = r; k < n; k += P) {
        ps.p[ps.n++] = all[k];
        ps.total += all[k].len;
    }
    free(all);
    return ps;
}

static inline int mpiio_piece_cmp(const void *a, const void *b)
{
    int64_t x = ((const mpiio_piece *)a)->off, y = ((const mpiio_piece *)b)->off;
    return x < y ? -1 : x > y;
}

/* Sorts by offset (file order): what an MPI filetype or an HDF5 hyperslab
 * union needs. */
static inline void mpiio_pieces_sort(mpiio_pieces *ps)
{
    qsort(ps->p, (size_t)ps->n, sizeof(mpiio_piece), mpiio_piece_cmp);
}

/* The packed buffer of the pieces' expected values, in the pieces' order. */
static inline float *mpiio_pieces_expected(const mpiio_pieces *ps, int var)
{
    float *buf = (float *)mpiio_xmalloc((size_t)ps->total * sizeof(float));
    int64_t k = 0;
    for (int64_t i = 0; i < ps->n; i++)
        for (int64_t j = 0; j < ps->p[i].len; j++)
            buf[k++] = mpiio_value(var, ps->p[i].off + j);
    return buf;
}

/* ---- N-d block decomposition on a process grid (C order) --------------- */

typedef struct {
    int nd;
    int64_t gsize[3]; /* global sizes, slowest first */
    int64_t start[3]; /* this rank's block */
    int64_t count[3];
} mpiio_box;

static inline mpiio_box mpiio_grid_box(int nd, const int64_t *gsize, int P, int r)
{
    mpiio_box b;
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(P, nd, dims);
    b.nd = nd;
    int rem = r;
    for (int d = nd - 1; d >= 0; d--) {
        int c = rem % dims[d];
        rem /= dims[d];
        b.gsize[d] = gsize[d];
        b.start[d] = gsize[d] * c / dims[d];
        b.count[d] = gsize[d] * (c + 1) / dims[d] - b.start[d];
    }
    return b;
}

static inline int64_t mpiio_box_elems(const mpiio_box *b)
{
    int64_t n = 1;
    for (int d = 0; d < b->nd; d++)
        n *= b->count[d];
    return n;
}

/* Global linear index (C order) of the k-th element of the box. */
static inline int64_t mpiio_box_global(const mpiio_box *b, int64_t k)
{
    int64_t idx[3] = {0, 0, 0};
    for (int d = b->nd - 1; d >= 0; d--) {
        int64_t c = b->count[d] ? b->count[d] : 1;
        idx[d] = b->start[d] + k % c;
        k /= c;
    }
    int64_t g = 0;
    for (int d = 0; d < b->nd; d++)
        g = g * b->gsize[d] + idx[d];
    return g;
}

static inline float *mpiio_box_expected(const mpiio_box *b, int var)
{
    int64_t n = mpiio_box_elems(b);
    float *buf = (float *)mpiio_xmalloc((size_t)n * sizeof(float));
    for (int64_t k = 0; k < n; k++)
        buf[k] = mpiio_value(var, mpiio_box_global(b, k));
    return buf;
}

/* ---- checks ------------------------------------------------------------ */

/* Number of elements of got[0..n) that differ from want; prints the first
 * (its position in the buffer) and the count. */
static inline int64_t mpiio_compare(const char *what, int rank, const float *got,
                                    const float *want, int64_t n)
{
    int64_t bad = 0;
    for (int64_t k = 0; k < n; k++) {
        if (memcmp(&got[k], &want[k], sizeof(float)) != 0) {
            if (!bad)
                fprintf(stderr,
                        "rank %d: %s: element %lld is %.9g, expected %.9g "
                        "(first mismatch)\n",
                        rank, what, (long long)k, (double)got[k], (double)want[k]);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "rank %d: %s: %lld of %lld elements wrong\n", rank, what,
                (long long)bad, (long long)n);
    return bad;
}

/* Checks a whole variable read back in full: element g must be
 * mpiio_value(var, g). */
static inline int64_t mpiio_check_full(const char *what, int rank, const float *got,
                                       int var, int64_t n)
{
    int64_t bad = 0;
    for (int64_t g = 0; g < n; g++) {
        float want = mpiio_value(var, g);
        if (memcmp(&got[g], &want, sizeof(float)) != 0) {
            if (!bad)
                fprintf(stderr,
                        "rank %d: %s: global element %lld is %.9g, expected %.9g "
                        "(first mismatch)\n",
                        rank, what, (long long)g, (double)got[g], (double)want);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "rank %d: %s: %lld of %lld elements wrong\n", rank, what,
                (long long)bad, (long long)n);
    return bad;
}

/* Sum over the ranks of a local error count. */
static inline long long mpiio_sum(long long v, MPI_Comm comm)
{
    long long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, comm);
    return s;
}

/* ---- options ------------------------------------------------------------- */

/* Matches `--name VALUE` or `--name=VALUE` at argv[*i]; advances *i past a
 * separate value. Returns the value, or NULL when argv[*i] is another
 * option. Exits (on every rank: all parse the same argv) when the value
 * is missing. */
static inline const char *mpiio_opt(int *i, int argc, char **argv, const char *name)
{
    size_t l = strlen(name);
    if (strncmp(argv[*i], name, l) != 0)
        return NULL;
    if (argv[*i][l] == '=')
        return argv[*i] + l + 1;
    if (argv[*i][l] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "option %s needs a value\n", name);
        MPI_Finalize();
        exit(2);
    }
    return argv[++*i];
}

static inline int64_t mpiio_parse_i64(const char *name, const char *s)
{
    char *end = NULL;
    long long v = strtoll(s, &end, 0);
    if (!end || end == s || *end || v < 0) {
        fprintf(stderr, "option %s: bad value '%s'\n", name, s);
        MPI_Finalize();
        exit(2);
    }
    return (int64_t)v;
}

/* "a,b,c" -> up to max integers; returns how many. */
static inline int mpiio_parse_list(const char *name, const char *s, int64_t *out, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max) {
            fprintf(stderr, "option %s: more than %d values\n", name, max);
            MPI_Finalize();
            exit(2);
        }
        out[n++] = mpiio_parse_i64(name, tok);
    }
    return n;
}

static inline void mpiio_usage_exit(int rank, const char *usage, const char *bad)
{
    if (rank == 0) {
        if (bad)
            fprintf(stderr, "unknown argument '%s'\n", bad);
        fputs(usage, stderr);
    }
    MPI_Finalize();
    exit(2);
}

/* ---- which library serves MPI-IO ---------------------------------------- */

/* Rank 0 prints the object that MPI_File_open and MPI_File_write_all
 * resolve to in the process's global scope: libmpi when run plainly, the
 * interposer when it is LD_PRELOAD'ed (tests/mpiio/compare.sh checks this
 * line, so a preload that the dynamic linker ignored cannot pass unseen).
 * Needs _GNU_SOURCE for dladdr. */
static inline void mpiio_report_interposer(const char *prog, int rank)
{
    if (rank != 0)
        return;
    const char *names[2] = {"MPI_File_open", "MPI_File_write_all"};
    for (int k = 0; k < 2; k++) {
        Dl_info info;
        void *sym = dlsym(RTLD_DEFAULT, names[k]);
        const char *lib = "?";
        if (sym && dladdr(sym, &info) && info.dli_fname)
            lib = info.dli_fname;
        printf("%s: %s from %s\n", prog, names[k], lib);
    }
    fflush(stdout);
}

#endif /* COLLIO_MPIIO_COMMON_H */
