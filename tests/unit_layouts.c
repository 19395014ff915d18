/*
 * unit_layouts.c -- index arithmetic of the layout kinds against brute-force
 * enumeration, without mpirun: block-cyclic, darray (1-4 dims, C and Fortran,
 * BLOCK / CYCLIC(k) / NONE, several grids), index lists, and the local
 * layout helpers (finish, global_index, pack/unpack of a global array).
 *
 * The reference walks the definition, never the library: for block-cyclic,
 * owner(i) = (i / bx) % P in increasing i; for darray, each dimension's
 * owner coordinate and local index by the MPI_Type_create_darray formulas,
 * the rank row-major in the grid, the local position in the array order.
 * A second, fully external reference: the type map of MPI's own
 * MPI_Type_create_darray (MPI_Pack of an array holding its own indices),
 * for random cases; the only use of MPI here (singleton MPI_Init, no
 * mpirun).
 * Bounds are half-open [start, end).
 */
#include "layouts/layouts.h"

#include <stdio.h>
#include <string.h>

#define UNIT_RNG_SEED 0x9876543210fedcbaULL
#include "unit_check.h"

/* Global indices in stream order from segments (expanded element by
 * element, not through collio__segs_flatten); also checks invariants and
 * that stream positions are exactly 0, 1, 2, ... Returns count or -1. */
static int64_t expand(const collio__segvec *sv, int64_t *out, int64_t cap)
{
    int64_t p = 0;
    for (int64_t i = 0; i < sv->n; i++) {
        const collio__seg *s = &sv->v[i];
        if (s->len < 1 || s->count < 1 || (s->count > 1 && s->stride < s->len)
            || s->mem != p)
            return -1;
        for (int64_t k = 0; k < s->count; k++)
            for (int64_t t = 0; t < s->len; t++) {
                if (p >= cap)
                    return -1;
                out[p++] = s->off + k * (s->count > 1 ? s->stride : s->len) + t;
            }
    }
    return p;
}

/* ------------------------------------------------------- block-cyclic */

static void test_block_cyclic(void)
{
    static const int64_t nxs[] = {0, 1, 2, 7, 10, 63, 64, 65, 100, 1000, 1001};
    static const int64_t bxs[] = {1, 2, 3, 7, 8, 16, 100, 5000};
    enum { CAP = 2000 };
    static int64_t ref[CAP], got[CAP];
    for (size_t a = 0; a < sizeof nxs / sizeof *nxs; a++)
        for (size_t b = 0; b < sizeof bxs / sizeof *bxs; b++)
            for (int P = 1; P <= 9; P++)
                for (int r = 0; r < P; r++) {
                    int64_t nx = nxs[a], bx = bxs[b], n = 0;
                    for (int64_t i = 0; i < nx; i++)
                        if ((i / bx) % P == r)
                            ref[n++] = i;
                    collio__segvec sv = {0};
                    int rc = collio__block_cyclic_segs(nx, bx, P, r, &sv);
                    int64_t m = expand(&sv, got, CAP);
                    CHECK(rc == 0 && m == n && memcmp(ref, got, (size_t)n * 8) == 0
                              && sv.n <= 2,
                          "block-cyclic nx=%lld bx=%lld P=%d r=%d nsegs=%lld",
                          (long long)nx, (long long)bx, P, r, (long long)sv.n);
                    collio__segvec_free(&sv);
                }
    /* huge sizes: still 1-2 segments, computed in O(1) */
    collio__segvec sv = {0};
    int64_t nx = (int64_t)1 << 60;
    CHECK(collio__block_cyclic_segs(nx, 1, 8, 3, &sv) == 0 && sv.n == 1
              && sv.v[0].count == nx / 8 && sv.v[0].stride == 8 && sv.v[0].off == 3,
          "huge bx=1");
    collio__segvec_free(&sv);
    CHECK(collio__block_cyclic_segs(nx - 1, nx / 2, 3, 1, &sv) == 0 && sv.n == 1
              && sv.v[0].off == nx / 2 && sv.v[0].len == nx / 2 - 1,
          "huge bx partial");
    collio__segvec_free(&sv);
}

/* ------------------------------------------------------------ darray */

typedef struct darray_case {
    int nd;
    int64_t g[COLLIO_MAX_DIMS];
    collio_distrib dist[COLLIO_MAX_DIMS];
    int64_t darg[COLLIO_MAX_DIMS];
    int p[COLLIO_MAX_DIMS];
    collio_order order;
} darray_case;

/* Owner coordinate and local index of global index i along one dim. */
static void dim_owner(collio_distrib dist, int64_t g, int64_t darg, int p, int64_t i,
                      int *c, int64_t *li)
{
    if (dist == COLLIO_DIST_NONE) {
        *c = 0;
        *li = i;
    } else if (dist == COLLIO_DIST_BLOCK) {
        int64_t b = darg ? darg : (g + p - 1) / p;
        *c = (int)(i / b);
        *li = i - *c * b;
    } else {
        int64_t b = darg ? darg : 1;
        *c = (int)((i / b) % p);
        *li = (i / (b * p)) * b + i % b;
    }
}

/* Reference: for rank r, ref[local position] = global linear index. */
static int64_t darray_ref(const darray_case *dc, int r, int64_t *ref)
{
    int nd = dc->nd;
    int coord[COLLIO_MAX_DIMS];
    for (int d = nd - 1, t = r; d >= 0; d--) {
        coord[d] = t % dc->p[d];
        t /= dc->p[d];
    }
    int64_t lsize[COLLIO_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        lsize[d] = 0;
        for (int64_t i = 0; i < dc->g[d]; i++) {
            int c;
            int64_t li;
            dim_owner(dc->dist[d], dc->g[d], dc->darg[d], dc->p[d], i, &c, &li);
            if (c == coord[d])
                lsize[d]++;
        }
    }
    int64_t ntot = 1, nloc = 1;
    for (int d = 0; d < nd; d++) {
        ntot *= dc->g[d];
        nloc *= lsize[d];
    }
    for (int64_t lin = 0; lin < ntot; lin++) {
        int64_t idx[COLLIO_MAX_DIMS], t = lin;
        /* multi-index of lin in the file order */
        if (dc->order == COLLIO_ORDER_C)
            for (int d = nd - 1; d >= 0; d--) {
                idx[d] = t % dc->g[d];
                t /= dc->g[d];
            }
        else
            for (int d = 0; d < nd; d++) {
                idx[d] = t % dc->g[d];
                t /= dc->g[d];
            }
        int mine = 1;
        int64_t li[COLLIO_MAX_DIMS];
        for (int d = 0; d < nd; d++) {
            int c;
            dim_owner(dc->dist[d], dc->g[d], dc->darg[d], dc->p[d], idx[d], &c, &li[d]);
            mine &= c == coord[d];
        }
        if (!mine)
            continue;
        int64_t pos = 0;
        if (dc->order == COLLIO_ORDER_C)
            for (int d = 0; d < nd; d++)
                pos = pos * lsize[d] + li[d];
        else
            for (int d = nd - 1; d >= 0; d--)
                pos = pos * lsize[d] + li[d];
        ref[pos] = lin;
    }
    return nloc;
}

static int check_darray(const darray_case *dc, int64_t *ref, int64_t *got, int64_t cap,
                        int64_t *max_segs)
{
    int P = 1;
    for (int d = 0; d < dc->nd; d++)
        P *= dc->p[d];
    int ok = 1;
    for (int r = 0; r < P; r++) {
        int64_t n = darray_ref(dc, r, ref);
        collio__segvec sv = {0};
        int rc = collio__darray_segs(dc->nd, dc->g, dc->dist, dc->darg, dc->p, dc->order,
                                     r, &sv);
        int64_t m = expand(&sv, got, cap);
        int this_ok = rc == 0 && m == n && memcmp(ref, got, (size_t)n * 8) == 0;
        if (!this_ok && ok) {
            fprintf(stderr, "darray nd=%d order=%s rank %d of %d:", dc->nd,
                    dc->order == COLLIO_ORDER_C ? "C" : "F", r, P);
            for (int d = 0; d < dc->nd; d++)
                fprintf(stderr, " [g=%lld dist=%d darg=%lld p=%d]", (long long)dc->g[d],
                        (int)dc->dist[d], (long long)dc->darg[d], dc->p[d]);
            fprintf(stderr, " rc=%d n=%lld m=%lld\n", rc, (long long)n, (long long)m);
        }
        ok &= this_ok;
        if (max_segs && sv.n > *max_segs)
            *max_segs = sv.n;
        collio__segvec_free(&sv);
    }
    return ok;
}

static void test_darray_random(void)
{
    enum { CAP = 20000 };
    static int64_t ref[CAP], got[CAP];
    static const int grids[][4] = {{1, 1, 1, 1}, {2, 1, 1, 1}, {3, 1, 1, 1}, {2, 2, 1, 1},
                                   {1, 4, 1, 1}, {2, 3, 1, 1}, {2, 2, 2, 1}, {1, 2, 1, 3},
                                   {5, 1, 1, 1}, {1, 1, 1, 2}, {4, 2, 1, 1}};
    int ncases = 0;
    for (int trial = 0; trial < 2500; trial++) {
        darray_case dc;
        memset(&dc, 0, sizeof dc);
        dc.nd = 1 + (int)rndr(4);
        dc.order = rndr(2) ? COLLIO_ORDER_C : COLLIO_ORDER_FORTRAN;
        const int *gr = grids[rndr(sizeof grids / sizeof *grids)];
        int64_t total = 1;
        for (int d = 0; d < dc.nd; d++) {
            /* fold the grid dims beyond nd into the last one */
            dc.p[d] = gr[d];
            if (d == dc.nd - 1)
                for (int e = dc.nd; e < 4; e++)
                    dc.p[d] *= gr[e];
            int64_t gmax = dc.nd == 1 ? 200 : dc.nd == 2 ? 30 : dc.nd == 3 ? 12 : 7;
            dc.g[d] = 1 + rndr(gmax);
            int k = (int)rndr(3);
            if (dc.p[d] == 1 && k == 0)
                dc.dist[d] = COLLIO_DIST_NONE;
            else if (k == 1 || (k == 0 && dc.p[d] > 1))
                dc.dist[d] = COLLIO_DIST_BLOCK;
            else
                dc.dist[d] = COLLIO_DIST_CYCLIC;
            if (dc.dist[d] == COLLIO_DIST_BLOCK) {
                int64_t need = (dc.g[d] + dc.p[d] - 1) / dc.p[d];
                dc.darg[d] = rndr(2) ? 0 : need + rndr(3);
            } else if (dc.dist[d] == COLLIO_DIST_CYCLIC) {
                dc.darg[d] = rndr(3) ? 0 : 1 + rndr(5);
            }
            total *= dc.g[d];
        }
        if (total > CAP)
            continue;
        ncases++;
        CHECK(check_darray(&dc, ref, got, CAP, NULL), "darray random trial %d", trial);
    }
    CHECK(ncases > 1500, "enough darray cases: %d", ncases);
}

static void test_darray_compact(void)
{
    enum { CAP = 100000 };
    int64_t *ref = malloc(CAP * sizeof(int64_t)), *got = malloc(CAP * sizeof(int64_t));
    /* STEM-II SL(61,61,15,56,3), Fortran, BLOCK over dim 1, 8 ranks: one
     * strided segment per rank (segment count only: 9.4M elements) */
    darray_case sl = {5,
                      {61, 61, 15, 56, 3},
                      {COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE,
                       COLLIO_DIST_NONE, COLLIO_DIST_NONE},
                      {0},
                      {1, 8, 1, 1, 1},
                      COLLIO_ORDER_FORTRAN};
    int64_t maxs = 0, elems = 0;
    for (int r = 0; r < 8; r++) {
        collio__segvec sv = {0};
        collio__darray_segs(5, sl.g, sl.dist, sl.darg, sl.p, sl.order, r, &sv);
        if (sv.n > maxs)
            maxs = sv.n;
        elems += collio__segs_elements(sv.v, sv.n);
        collio__segvec_free(&sv);
    }
    CHECK(maxs == 1 && elems == 61 * 61 * 15 * 56 * 3,
          "STEM-II SL: %lld segments per rank (want 1)", (long long)maxs);
    /* the same shape, smaller, element by element */
    darray_case sls = sl;
    sls.g[0] = 13;
    sls.g[2] = 5;
    sls.g[3] = 7;
    maxs = 0;
    CHECK(check_darray(&sls, ref, got, CAP, &maxs) && maxs == 1, "small SL: %lld",
          (long long)maxs);
    /* cyclic(1) fastest dim: one strided segment per outer index */
    darray_case cy = {2,      {40, 66}, {COLLIO_DIST_NONE, COLLIO_DIST_CYCLIC},
                      {0, 1}, {1, 4},   COLLIO_ORDER_C};
    maxs = 0;
    CHECK(check_darray(&cy, ref, got, CAP, &maxs) && maxs == 40, "cyclic rows: %lld",
          (long long)maxs);
    /* ... unless the rows continue the stride (64 % 4 == 0): one segment */
    cy.g[1] = 64;
    maxs = 0;
    CHECK(check_darray(&cy, ref, got, CAP, &maxs) && maxs == 1, "cyclic merged: %lld",
          (long long)maxs);
    darray_case cy1 = {1, {1000}, {COLLIO_DIST_CYCLIC}, {0}, {7}, COLLIO_ORDER_C};
    maxs = 0;
    CHECK(check_darray(&cy1, ref, got, CAP, &maxs) && maxs <= 2, "1-d cyclic: %lld",
          (long long)maxs);
    /* 3-d C, block over the slowest dim: one contiguous slab */
    darray_case sl3 = {
        3,   {16, 20, 24}, {COLLIO_DIST_BLOCK, COLLIO_DIST_NONE, COLLIO_DIST_NONE},
        {0}, {5, 1, 1},    COLLIO_ORDER_C};
    maxs = 0;
    CHECK(check_darray(&sl3, ref, got, CAP, &maxs) && maxs == 1, "C slab: %lld",
          (long long)maxs);
    /* 8 dims, mixed */
    darray_case d8 = {8,
                      {3, 4, 2, 5, 3, 2, 4, 3},
                      {COLLIO_DIST_CYCLIC, COLLIO_DIST_NONE, COLLIO_DIST_BLOCK,
                       COLLIO_DIST_NONE, COLLIO_DIST_CYCLIC, COLLIO_DIST_NONE,
                       COLLIO_DIST_BLOCK, COLLIO_DIST_NONE},
                      {2, 0, 0, 0, 1, 0, 3, 0},
                      {2, 1, 2, 1, 2, 1, 2, 1},
                      COLLIO_ORDER_FORTRAN};
    CHECK(check_darray(&d8, ref, got, CAP, NULL), "8 dims F");
    d8.order = COLLIO_ORDER_C;
    CHECK(check_darray(&d8, ref, got, CAP, NULL), "8 dims C");
    free(ref);
    free(got);
}

/* MPI's darray type map as the reference: pack an array a[i] = i with the
 * darray type; the packed values are the global indices in local order. */
static void test_darray_vs_mpi(void)
{
    enum { CAP = 20000 };
    int64_t *glob = malloc(CAP * sizeof(int64_t)),
            *packed = malloc(CAP * sizeof(int64_t));
    int64_t *got = malloc(CAP * sizeof(int64_t));
    for (int64_t i = 0; i < CAP; i++)
        glob[i] = i;
    int cases = 0;
    for (int trial = 0; trial < 1500; trial++) {
        darray_case dc;
        memset(&dc, 0, sizeof dc);
        int gi[4], di[4], da[4], P = 1;
        int64_t tot = 1;
        dc.nd = 1 + (int)rndr(4);
        dc.order = rndr(2) ? COLLIO_ORDER_FORTRAN : COLLIO_ORDER_C;
        for (int d = 0; d < dc.nd; d++) {
            dc.g[d] = 1 + rndr(dc.nd == 1 ? 100 : 12);
            gi[d] = (int)dc.g[d];
            int k = (int)rndr(3);
            dc.p[d] = k == 0 ? 1 : 1 + (int)rndr(3);
            dc.dist[d] = k == 0   ? COLLIO_DIST_NONE
                         : k == 1 ? COLLIO_DIST_BLOCK
                                  : COLLIO_DIST_CYCLIC;
            di[d] = k == 0   ? MPI_DISTRIBUTE_NONE
                    : k == 1 ? MPI_DISTRIBUTE_BLOCK
                             : MPI_DISTRIBUTE_CYCLIC;
            da[d] = MPI_DISTRIBUTE_DFLT_DARG;
            if (k == 1 && rndr(2))
                dc.darg[d] = (dc.g[d] + dc.p[d] - 1) / dc.p[d] + rndr(3);
            if (k == 2 && rndr(2))
                dc.darg[d] = 1 + rndr(4);
            if (dc.darg[d])
                da[d] = (int)dc.darg[d];
            P *= dc.p[d];
            tot *= dc.g[d];
        }
        if (tot > CAP)
            continue;
        for (int r = 0; r < P; r++) {
            MPI_Datatype t;
            int sz = 0, pos = 0;
            MPI_Type_create_darray(P, r, dc.nd, gi, di, da, dc.p,
                                   dc.order == COLLIO_ORDER_C ? MPI_ORDER_C
                                                              : MPI_ORDER_FORTRAN,
                                   MPI_INT64_T, &t);
            MPI_Type_commit(&t);
            MPI_Type_size(t, &sz);
            MPI_Pack(glob, 1, t, packed, sz, &pos, MPI_COMM_SELF);
            MPI_Type_free(&t);
            collio__segvec sv = {0};
            int rc = collio__darray_segs(dc.nd, dc.g, dc.dist, dc.darg, dc.p, dc.order, r,
                                         &sv);
            int64_t m = expand(&sv, got, CAP);
            CHECK(rc == 0 && m == sz / 8 && memcmp(got, packed, (size_t)sz) == 0,
                  "darray vs MPI trial %d rank %d nd %d", trial, r, dc.nd);
            collio__segvec_free(&sv);
            cases++;
        }
    }
    CHECK(cases > 3000, "enough MPI darray cases: %d", cases);
    free(glob);
    free(packed);
    free(got);
}

/* --------------------------------------------------------- index list */

static void test_index_list(void)
{
    enum { N = 3000 };
    static int64_t idx[N], got[N];
    for (int trial = 0; trial < 500; trial++) {
        int64_t n = rndr(N);
        int kind = (int)rndr(4);
        for (int64_t i = 0; i < n; i++)
            idx[i] = kind == 0 ? i : kind == 1 ? 5 + 3 * i : kind == 2 ? n - 1 - i : i;
        if (kind == 3) /* random permutation with some runs kept */
            for (int64_t i = n - 1; i > 0; i--)
                if (rndr(3) == 0) {
                    int64_t j = rndr(i + 1), t = idx[i];
                    idx[i] = idx[j];
                    idx[j] = t;
                }
        collio__segvec sv = {0};
        int rc = collio__index_list_segs(n, idx, &sv);
        int64_t m = expand(&sv, got, N);
        CHECK(rc == 0 && m == n && memcmp(idx, got, (size_t)n * 8) == 0,
              "index list trial %d kind %d", trial, kind);
        if (kind == 0 || kind == 1)
            CHECK(sv.n <= 1, "regular list compact: %lld segs", (long long)sv.n);
        collio__segvec_free(&sv);
    }
}

/* ----------------------------------------- finish, global_index, pack */

static void test_local_helpers(void)
{
    for (int trial = 0; trial < 300; trial++) {
        int64_t nx = rndr(500), bx = 1 + rndr(20);
        int P = 1 + (int)rndr(6), r = (int)rndr(P);
        collio_layout l;
        memset(&l, 0, sizeof l);
        l.nranks = P;
        l.rank = r;
        l.nglobal = nx;
        l.esize = 1 + (size_t)rndr(5);
        l.mem_type = MPI_DATATYPE_NULL;
        collio__segvec sv = {0};
        collio__block_cyclic_segs(nx, bx, P, r, &sv);
        if (trial % 2) { /* reversed index list: not file-ordered */
            int64_t *tmp = malloc((size_t)(nx + 1) * 8), n = 0;
            for (int64_t i = nx - 1; i >= 0; i--)
                if ((i / bx) % P == r)
                    tmp[n++] = i;
            collio__segvec_free(&sv);
            collio__index_list_segs(n, tmp, &sv);
            free(tmp);
        }
        l.segs = sv.v;
        l.nsegs = sv.n;
        CHECK(collio__layout_finish(&l) == 0, "finish");
        int64_t n = 0;
        int ok = 1;
        int64_t *gi = malloc((size_t)(nx + 1) * 8);
        for (int64_t i = 0; i < nx; i++)
            if ((i / bx) % P == r)
                gi[n++] = i;
        if (trial % 2)
            for (int64_t i = 0; i < n / 2; i++) {
                int64_t t = gi[i];
                gi[i] = gi[n - 1 - i];
                gi[n - 1 - i] = t;
            }
        CHECK(l.nlocal == n && l.mem_bytes == (size_t)n * l.esize, "nlocal");
        if (trial % 2 == 0 || n <= 1)
            CHECK(l.file_ordered == 1, "ordered");
        else
            CHECK(l.file_ordered == 0, "reversed not ordered");
        for (int64_t i = 0; i < n; i++)
            ok &= collio_layout_global_index(&l, i) == gi[i];
        ok &= collio_layout_global_index(&l, -1) == -1
              && collio_layout_global_index(&l, n) == -1;
        CHECK(ok, "global_index trial %d", trial);
        /* pack / unpack with the full-size global array */
        collio_layout_set_memory_global(&l);
        CHECK(l.mem_bytes == (size_t)nx * l.esize, "global mem_bytes");
        size_t es = l.esize;
        unsigned char *glob = malloc((size_t)nx * es + 1);
        unsigned char *stream = malloc((size_t)n * es + 1);
        unsigned char *back = malloc((size_t)nx * es + 1);
        for (size_t b = 0; b < (size_t)nx * es; b++)
            glob[b] = (unsigned char)(b * 131 + 7);
        memset(back, 0xEE, (size_t)nx * es + 1);
        collio__layout_pack(&l, glob, stream);
        collio__layout_unpack(&l, stream, back);
        ok = 1;
        for (int64_t i = 0; i < n; i++)
            ok &= memcmp(stream + i * es, glob + gi[i] * es, es) == 0;
        int64_t owned = 0;
        for (int64_t i = 0; i < nx; i++) {
            int mine = (i / bx) % P == r;
            owned += mine;
            for (size_t b = 0; b < es; b++)
                ok &= back[i * es + b] == (mine ? glob[i * es + b] : 0xEE);
        }
        CHECK(ok && owned == n, "pack/unpack global trial %d", trial);
        free(glob);
        free(stream);
        free(back);
        free(gi);
        free(l.segs);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_darray_vs_mpi();
    test_block_cyclic();
    test_darray_random();
    test_darray_compact();
    test_index_list();
    test_local_helpers();
    int code = unit_summary("unit_layouts");
    MPI_Finalize();
    return code;
}
