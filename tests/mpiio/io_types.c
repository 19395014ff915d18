/*
 * io_types.c -- MPI-IO through views and memory types of every datatype
 * combiner (docs/mpiio-tests.md): the calls the interposer must take with
 * COLLIO_MPIIO=force, end to end.
 *
 * For each case of a table, every rank builds a filetype and a memory
 * datatype (named, dup, contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct, subarray in C and Fortran order,
 * darray block / cyclic(k) / none in C and Fortran order, resized with lb
 * and extent, resized of resized, hvector / contiguous / darray of resized
 * with lb != 0, pair types with a hole, a derived etype, nestings; memory
 * types with gaps and negative displacements). The ranks' filetypes are
 * disjoint (a displacement per rank, an interleaving, or a subarray /
 * darray decomposition). Each case has its own region of the file
 * (REGION bytes); rank 0 first fills the whole file with a known pattern
 * through POSIX, so the holes between the ranks' data are checked too.
 *
 * Per case: MPI_File_set_view (disp > 0 in some), then write_at_all
 * (explicit offset, > 0 in some) or write_all (after a seek) alternately;
 * MPI_Get_count and MPI_Get_elements of the status must be count and
 * count * (basic elements of the memory type); write_all must move the
 * individual file pointer by the data's etypes. Then read_at_all or
 * read_all into a zeroed buffer through the same memory type: every byte
 * of the type map must equal the written buffer's, every other byte of the
 * buffer (the memory type's gaps) must still be 0.
 *
 * Expected values are the test's own: each constructor below builds the MPI
 * type and, beside it, its type map byte by byte from the MPI standard's
 * definition of the combiner (only the children's lb and extent come from
 * MPI_Type_get_extent); the map's size must equal MPI_Type_size and its
 * span MPI_Type_get_true_extent. At the end rank 0 reads the whole file with
 * POSIX read() and checks every byte: the pattern where no rank wrote, each
 * rank's data where the map of its view puts it.
 *
 * usage: io_types FILE [--case N] [--no-skip]
 *   --case N: case N alone (the others keep the background);
 *   --no-skip: also the cases this MPI's MPI-IO is known to get wrong.
 * Prints "ok" or "FAIL" per case; exits 1 on any mismatch.
 *
 * MPICH before 4.1 (ROMIO's own flattening) writes wrong files for resized
 * types with lb != 0 inside other types, resized of resized and the pair
 * types with a hole (tests/mpi_flatten.c, pmodels/mpich#2088, #7169):
 * those cases are skipped there, with a message.
 */
#include "mpiio_common.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define ROMIO_FLATTEN_BUGS 1
#else
#define ROMIO_FLATTEN_BUGS 0
#endif

#define REGION 65536 /* bytes of the file per case */
#define NCASES 29

/* ------------------------------------------------ types with their maps */

/* An MPI datatype and its type map computed here: pos[k] is the
 * displacement of data byte k, in type-map order. */
typedef struct tm {
    MPI_Datatype dt;
    int derived;
    int64_t n, cap, *pos;
    int64_t lb, ext; /* MPI_Type_get_extent */
    int64_t elems;   /* basic elements (what MPI_Get_elements counts) */
} tm;

#define MAXMADE 512
static tm *made[MAXMADE];
static int nmade;
static long shadow_bad; /* maps that disagree with MPI's size / true extent */
static int cur_case = -1, cur_rank = -1; /* whose types are being made */

static tm *tnew(void)
{
    tm *t = (tm *)calloc(1, sizeof *t);
    if (!t || nmade == MAXMADE) {
        fprintf(stderr, "io_types: too many types\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    made[nmade++] = t;
    return t;
}

static void free_made(void)
{
    while (nmade > 0) {
        tm *t = made[--nmade];
        if (t->derived)
            MPI_Type_free(&t->dt);
        free(t->pos);
        free(t);
    }
}

static void tput(tm *t, int64_t p)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->pos = (int64_t *)realloc(t->pos, (size_t)t->cap * sizeof *t->pos);
        if (!t->pos)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    t->pos[t->n++] = p;
}

/* Appends the map of c at displacement base. */
static void tcopy(tm *t, const tm *c, int64_t base)
{
    for (int64_t k = 0; k < c->n; k++)
        tput(t, base + c->pos[k]);
    t->elems += c->elems;
}

/* Commits a derived type and checks the map against MPI's size and true
 * extent. */
static tm *tfin(tm *t, const char *what)
{
    MPI_Count size, lb, ext, tlb, text;
    t->derived = 1;
    MPI_Type_commit(&t->dt);
    MPI_Type_size_x(t->dt, &size);
    MPI_Type_get_extent_x(t->dt, &lb, &ext);
    MPI_Type_get_true_extent_x(t->dt, &tlb, &text);
    t->lb = lb, t->ext = ext;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t k = 0; k < t->n; k++) {
        lo = t->pos[k] < lo ? t->pos[k] : lo;
        hi = t->pos[k] + 1 > hi ? t->pos[k] + 1 : hi;
    }
    if (size != t->n || (t->n > 0 && (lo != tlb || hi - lo != text))) {
        fprintf(stderr,
                "io_types: case %d, rank %d's %s: the map computed here has %lld bytes "
                "over [%lld, %lld); MPI says size %lld, true lb %lld, true extent %lld\n",
                cur_case, cur_rank, what, (long long)t->n, (long long)lo, (long long)hi,
                (long long)size, (long long)tlb, (long long)text);
        shadow_bad++;
    }
    return t;
}

typedef struct {
    short a;
    int b;
} short_int;

static tm *t_named(MPI_Datatype d)
{
    tm *t = tnew();
    int size = 0;
    MPI_Type_size(d, &size);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(d, &lb, &ext);
    t->dt = d, t->lb = lb, t->ext = ext, t->elems = 1;
    if (d == MPI_SHORT_INT) { /* a hole between the short and the int */
        for (int k = 0; k < (int)sizeof(short); k++)
            tput(t, k);
        for (int k = 0; k < (int)sizeof(int); k++)
            tput(t, (int64_t)offsetof(short_int, b) + k);
        t->elems = 2;
    } else {
        for (int k = 0; k < size; k++)
            tput(t, k);
        if (d == MPI_2INT)
            t->elems = 2;
    }
    return t;
}

static tm *t_dup(const tm *o)
{
    tm *t = tnew();
    MPI_Type_dup(o->dt, &t->dt);
    tcopy(t, o, 0);
    return tfin(t, "dup");
}

static tm *t_contig(int n, const tm *o)
{
    tm *t = tnew();
    MPI_Type_contiguous(n, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        tcopy(t, o, i * o->ext);
    return tfin(t, "contiguous");
}

static tm *t_vector(int n, int bl, int stride, const tm *o)
{
    tm *t = tnew();
    MPI_Type_vector(n, bl, stride, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl; k++)
            tcopy(t, o, ((int64_t)i * stride + k) * o->ext);
    return tfin(t, "vector");
}

static tm *t_hvector(int n, int bl, MPI_Aint stride, const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_hvector(n, bl, stride, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl; k++)
            tcopy(t, o, (int64_t)i * stride + k * o->ext);
    return tfin(t, "hvector");
}

static tm *t_indexed(int n, const int *bl, const int *d, const tm *o)
{
    tm *t = tnew();
    MPI_Type_indexed(n, bl, d, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl[i]; k++)
            tcopy(t, o, ((int64_t)d[i] + k) * o->ext);
    return tfin(t, "indexed");
}

static tm *t_hindexed(int n, const int *bl, const MPI_Aint *d, const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_hindexed(n, bl, d, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl[i]; k++)
            tcopy(t, o, d[i] + k * o->ext);
    return tfin(t, "hindexed");
}

static tm *t_indexed_block(int n, int bl, const int *d, const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_indexed_block(n, bl, d, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl; k++)
            tcopy(t, o, ((int64_t)d[i] + k) * o->ext);
    return tfin(t, "indexed_block");
}

static tm *t_hindexed_block(int n, int bl, const MPI_Aint *d, const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_hindexed_block(n, bl, d, o->dt, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl; k++)
            tcopy(t, o, d[i] + k * o->ext);
    return tfin(t, "hindexed_block");
}

static tm *t_struct(int n, const int *bl, const MPI_Aint *d, tm *const *o)
{
    tm *t = tnew();
    MPI_Datatype ts[16];
    for (int i = 0; i < n; i++)
        ts[i] = o[i]->dt;
    MPI_Type_create_struct(n, bl, d, ts, &t->dt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < bl[i]; k++)
            tcopy(t, o[i], d[i] + k * o[i]->ext);
    return tfin(t, "struct");
}

static tm *t_resized(const tm *o, MPI_Aint lb, MPI_Aint ext)
{
    tm *t = tnew();
    MPI_Type_create_resized(o->dt, lb, ext, &t->dt);
    tcopy(t, o, 0);
    return tfin(t, "resized");
}

/* The elements idx[d][0..cnt[d]) of an nd-array of o with global sizes g,
 * in C (last index fastest) or Fortran (first fastest) order, element at
 * linear index (row- / column-major) times extent(o). */
static void t_grid(tm *t, int nd, const int *g, int *const *idx, const int *cnt,
                   int order, const tm *o)
{
    int q[8] = {0};
    for (int d = 0; d < nd; d++)
        if (cnt[d] == 0)
            return;
    for (;;) {
        int64_t lin = 0;
        if (order == MPI_ORDER_C)
            for (int d = 0; d < nd; d++)
                lin = lin * g[d] + idx[d][q[d]];
        else
            for (int d = nd - 1; d >= 0; d--)
                lin = lin * g[d] + idx[d][q[d]];
        tcopy(t, o, lin * o->ext);
        /* next index tuple: the fastest dimension first */
        int d = order == MPI_ORDER_C ? nd - 1 : 0, step = order == MPI_ORDER_C ? -1 : 1;
        for (; d >= 0 && d < nd; d += step) {
            if (++q[d] < cnt[d])
                break;
            q[d] = 0;
        }
        if (d < 0 || d >= nd)
            return;
    }
}

static tm *t_subarray(int nd, const int *g, const int *sub, const int *st, int order,
                      const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_subarray(nd, g, sub, st, order, o->dt, &t->dt);
    int *idx[8] = {0}, cnt[8] = {0};
    for (int d = 0; d < nd; d++) {
        idx[d] = (int *)mpiio_xmalloc((size_t)sub[d] * sizeof(int));
        cnt[d] = sub[d];
        for (int i = 0; i < sub[d]; i++)
            idx[d][i] = st[d] + i;
    }
    t_grid(t, nd, g, idx, cnt, order, o);
    for (int d = 0; d < nd; d++)
        free(idx[d]);
    return tfin(t, "subarray");
}

/* MPI-3.1 4.1.4: the process grid is row-major whatever the order; block
 * (default darg: ceil(g/p)), cyclic(k) (default k = 1) or none. */
static tm *t_darray(int size, int r, int nd, const int *g, const int *dist,
                    const int *darg, const int *ps, int order, const tm *o)
{
    tm *t = tnew();
    MPI_Type_create_darray(size, r, nd, g, dist, darg, ps, order, o->dt, &t->dt);
    int *idx[8] = {0}, cnt[8] = {0}, coord[8] = {0}, rem = r;
    for (int d = nd - 1; d >= 0; d--) {
        coord[d] = rem % ps[d];
        rem /= ps[d];
    }
    for (int d = 0; d < nd; d++) {
        idx[d] = (int *)mpiio_xmalloc((size_t)g[d] * sizeof(int));
        cnt[d] = 0;
        for (int i = 0; i < g[d]; i++) {
            int mine;
            if (dist[d] == MPI_DISTRIBUTE_NONE) {
                mine = 1;
            } else if (dist[d] == MPI_DISTRIBUTE_BLOCK) {
                int b = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g[d] + ps[d] - 1) / ps[d]
                                                            : darg[d];
                mine = i / b == coord[d];
            } else {
                int k = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg[d];
                mine = (i / k) % ps[d] == coord[d];
            }
            if (mine)
                idx[d][cnt[d]++] = i;
        }
    }
    t_grid(t, nd, g, idx, cnt, order, o);
    for (int d = 0; d < nd; d++)
        free(idx[d]);
    return tfin(t, "darray");
}

#define I(...) ((const int[]){__VA_ARGS__})
#define A(...) ((const MPI_Aint[]){__VA_ARGS__})
#define T(...) ((tm *const[]){__VA_ARGS__})

/* ------------------------------------------------------------- the cases */

typedef struct kase {
    const char *name;
    tm *ft, *mt, *et;
    int64_t disp; /* the view's, from the case's region */
    int64_t off;  /* in etypes: the explicit offset, or where write_all seeks */
    int count;
    int romio_bug; /* plain MPI-IO is wrong here (ROMIO_FLATTEN_BUGS) */
} kase;

/* Block distribution of g over p: coordinate c's start and count. */
static void block(int g, int p, int c, int *st, int *cnt)
{
    int q = g / p, rem = g % p;
    *cnt = q + (c < rem);
    *st = c * q + (c < rem ? c : rem);
}

/* [0, n) cut into pieces of 1..maxlen (a fixed sequence), dealt
 * round-robin: rank r's pieces in increasing order. Returns how many. */
static int pieces(int n, int maxlen, int P, int r, int *len, int *off)
{
    uint64_t s = 12345;
    int k = 0, mine = 0;
    for (int at = 0; at < n; k++) {
        int l = 1 + (int)(mpiio_rng(&s) % (uint64_t)maxlen);
        l = l < n - at ? l : n - at;
        if (k % P == r) {
            len[mine] = l;
            off[mine++] = at;
        }
        at += l;
    }
    return mine;
}

/* Case c for rank r of P: fills k (types made in `made`). */
static void make_case(int c, int P, int r, kase *k)
{
    memset(k, 0, sizeof *k);
    cur_case = c, cur_rank = r;
    tm *INT = t_named(MPI_INT), *SHORT = t_named(MPI_SHORT), *DBL = t_named(MPI_DOUBLE),
       *FLT = t_named(MPI_FLOAT), *CHR = t_named(MPI_CHAR), *BYTE = t_named(MPI_BYTE);
    int dims[3] = {0, 0, 0}, st[3], sub[3], coord[3];
    k->et = BYTE;
    switch (c) {
    case 0:
        k->name = "named int, a displacement per rank, offset 3";
        k->ft = INT, k->et = INT, k->mt = INT;
        k->count = 40, k->off = 3, k->disp = 8 + (int64_t)r * 43 * 4;
        break;
    case 1:
        k->name = "dup of dup of resized vector (file), dup of vector (mem)";
        k->ft = t_dup(t_dup(t_resized(t_vector(5, 2, 2 * P, DBL), 0, 80 * P)));
        k->mt = t_dup(t_vector(3, 1, 2, DBL));
        k->et = DBL, k->count = 7, k->disp = 16 + 16 * r;
        break;
    case 2:
        k->name = "contiguous of contiguous (file), contiguous of resized int (mem)";
        k->ft = t_resized(t_contig(3, t_contig(2, INT)), 0, 24 * P);
        k->mt = t_contig(4, t_resized(INT, 0, 8));
        k->et = INT, k->count = 5, k->off = 2, k->disp = 5 + 24 * r;
        break;
    case 3:
        k->name = "struct of vector of short, etype short, offset 2 (mem vector)";
        k->ft = t_resized(t_struct(1, I(1), A(6 * r), T(t_vector(4, 3, 3 * P, SHORT))), 0,
                          24 * P);
        k->mt = t_vector(6, 2, 5, SHORT);
        k->et = SHORT, k->count = 3, k->off = 2;
        break;
    case 4:
        k->name = "hvector of float (file and mem)";
        k->ft = t_resized(t_hvector(3, 2, 24 * P, FLT), 0, 72 * P);
        k->mt = t_hvector(2, 3, 20, FLT);
        k->et = FLT, k->count = 4, k->off = 1, k->disp = 32 + 8 * r;
        break;
    case 5: {
        k->name = "indexed, irregular pieces (file), indexed with gaps (mem)";
        int len[240], off[240], n = pieces(240, 5, P, r, len, off);
        k->ft = t_resized(t_indexed(n, len, off, INT), 0, 240 * 4);
        k->mt = t_indexed(3, I(2, 3, 1), I(0, 4, 10), INT);
        k->et = INT, k->disp = 12;
        k->count = (int)(k->ft->n / 4 * 3 / 2 / 6 + 1);
        break;
    }
    case 6: {
        k->name = "hindexed of struct {char, double} (holes), mem hindexed of char";
        tm *el = t_struct(2, I(1, 1), A(0, 8), T(CHR, DBL));
        int len[100], off[100], n = pieces(100, 3, P, r, len, off);
        MPI_Aint d[100];
        for (int i = 0; i < n; i++)
            d[i] = (MPI_Aint)off[i] * el->ext;
        k->ft = t_resized(t_hindexed(n, len, d, el), 0, 100 * el->ext);
        k->mt = t_hindexed(2, I(5, 4), A(3, 20), CHR);
        k->off = 9, k->count = (int)(k->ft->n / 9);
        break;
    }
    case 7: {
        k->name = "indexed_block of float (file and mem)";
        int d[6];
        for (int j = 0; j < 6; j++)
            d[j] = 3 * (r + P * j);
        k->ft = t_resized(t_indexed_block(6, 3, d, FLT), 0, 72 * P);
        k->mt = t_indexed_block(3, 2, I(0, 3, 7), FLT);
        k->et = FLT, k->count = 5, k->disp = 40;
        break;
    }
    case 8: {
        k->name = "hindexed_block of double, mem with a negative displacement";
        MPI_Aint d[4];
        for (int j = 0; j < 4; j++)
            d[j] = 16 * r + 16 * P * j;
        k->ft = t_resized(t_hindexed_block(4, 2, d, DBL), 0, 64 * P);
        k->mt = t_hindexed_block(3, 1, A(-8, 8, 24), DBL);
        k->et = DBL, k->count = 5, k->disp = 8;
        break;
    }
    case 9:
        k->name = "struct of char, int, vector of short (file); struct, decreasing (mem)";
        k->ft = t_resized(t_struct(3, I(3, 2, 1), A(32 * r, 32 * r + 4, 32 * r + 16),
                                   T(CHR, INT, t_vector(2, 1, 2, SHORT))),
                          0, 32 * P);
        k->mt = t_struct(3, I(1, 1, 2), A(8, 0, 20), T(DBL, SHORT, CHR));
        k->count = 5, k->disp = 3;
        break;
    case 10: {
        k->name = "subarray C 2-d decomposition (file), subarray with a halo (mem)";
        MPI_Dims_create(P, 2, dims);
        int g[2] = {20, 18};
        coord[0] = r / dims[1], coord[1] = r % dims[1];
        for (int d = 0; d < 2; d++)
            block(g[d], dims[d], coord[d], &st[d], &sub[d]);
        k->ft = t_subarray(2, g, sub, st, MPI_ORDER_C, INT);
        k->mt = t_subarray(2, I(sub[0] + 2, sub[1] + 2), sub, I(1, 1), MPI_ORDER_C, INT);
        k->et = INT, k->count = 1, k->disp = 64;
        break;
    }
    case 11: {
        k->name = "subarray Fortran 3-d decomposition, two tiles";
        MPI_Dims_create(P, 3, dims);
        int g[3] = {7, 6, 5};
        coord[0] = r / (dims[1] * dims[2]), coord[1] = r / dims[2] % dims[1];
        coord[2] = r % dims[2];
        for (int d = 0; d < 3; d++)
            block(g[d], dims[d], coord[d], &st[d], &sub[d]);
        k->ft = t_subarray(3, g, sub, st, MPI_ORDER_FORTRAN, SHORT);
        k->mt = SHORT, k->et = SHORT;
        k->count = 2 * sub[0] * sub[1] * sub[2];
        break;
    }
    case 12:
        k->name = "darray C block x block (default, uneven)";
        MPI_Dims_create(P, 2, dims);
        k->ft =
            t_darray(P, r, 2, I(17, 13), I(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK),
                     I(MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG), dims,
                     MPI_ORDER_C, INT);
        k->mt = INT, k->et = INT, k->count = (int)(k->ft->n / 4), k->disp = 20;
        break;
    case 13:
        k->name = "darray Fortran cyclic(2) x cyclic(3), mem resized double (gaps)";
        MPI_Dims_create(P, 2, dims);
        k->ft =
            t_darray(P, r, 2, I(19, 11), I(MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC),
                     I(2, 3), dims, MPI_ORDER_FORTRAN, DBL);
        k->mt = t_resized(DBL, 0, 16);
        k->et = DBL, k->count = (int)(k->ft->n / 8);
        break;
    case 14:
        k->name = "darray C block(3) x none x cyclic, offset 1";
        dims[1] = 1;
        MPI_Dims_create(P, 3, dims);
        k->ft =
            t_darray(P, r, 3, I(3 * dims[0] - 1, 3, 5),
                     I(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC),
                     I(3, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG), dims,
                     MPI_ORDER_C, INT);
        k->mt = INT, k->et = INT, k->count = (int)(k->ft->n / 4), k->off = 1;
        k->disp = 4;
        break;
    case 15:
        k->name = "darray Fortran block x cyclic(2) of vector of short (holes)";
        MPI_Dims_create(P, 2, dims);
        k->ft = t_darray(P, r, 2, I(3 * dims[0] - 1, 8),
                         I(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC),
                         I(MPI_DISTRIBUTE_DFLT_DARG, 2), dims, MPI_ORDER_FORTRAN,
                         t_vector(2, 1, 2, SHORT));
        k->mt = BYTE, k->count = (int)k->ft->n;
        break;
    case 16:
        k->name = "resized lb 4 (inside the data), extent 12P+8";
        k->ft = t_resized(t_contig(3, INT), 4, 12 * P + 8);
        k->mt = INT, k->et = INT, k->count = 10, k->off = 1, k->disp = 100 + 12 * r;
        break;
    case 17:
        k->name = "resized of resized (file and mem)";
        k->ft = t_resized(t_resized(t_vector(2, 1, 3, INT), -8, 40), 8, 24 * P);
        k->mt = t_resized(t_resized(INT, -4, 12), 0, 8);
        k->et = INT, k->count = 7, k->disp = 16 + 16 * r;
        k->romio_bug = ROMIO_FLATTEN_BUGS;
        break;
    case 18:
        k->name = "hvector of resized lb -4 (file and mem)";
        k->ft = t_resized(t_hvector(3, 2, 16 * P + 8, t_resized(INT, -4, 12)), 0,
                          3 * (16 * P + 8));
        k->mt = t_hvector(2, 2, 28, t_resized(INT, -4, 8));
        k->et = INT, k->count = 4, k->off = 0, k->disp = 8 + 16 * r;
        k->romio_bug = ROMIO_FLATTEN_BUGS;
        break;
    case 19:
        k->name = "contiguous of resized double lb -8 (filetype lb < 0)";
        k->ft = t_contig(4, t_resized(DBL, -8, 8 * P));
        k->mt = DBL, k->et = DBL, k->count = 10, k->disp = 8 + 8 * r;
        break;
    case 20:
        k->name = "darray 1-d cyclic(2) of resized int lb -4 (darray lower bound)";
        k->ft = t_darray(P, r, 1, I(5 * P + 2), I(MPI_DISTRIBUTE_CYCLIC), I(2), I(P),
                         MPI_ORDER_C, t_resized(INT, -4, 12));
        k->mt = INT, k->et = INT, k->count = (int)(k->ft->n / 4) + 1, k->disp = 4;
        k->romio_bug = ROMIO_FLATTEN_BUGS;
        break;
    case 21:
        k->name = "mem darray Fortran of resized short lb -2, file darray of short";
        MPI_Dims_create(P, 2, dims);
        k->mt = t_darray(P, r, 2, I(3 * dims[0] - 1, 2 * dims[1] + 3),
                         I(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC),
                         I(MPI_DISTRIBUTE_DFLT_DARG, 2), dims, MPI_ORDER_FORTRAN,
                         t_resized(SHORT, -2, 6));
        k->ft = t_darray(P, r, 2, I(3 * dims[0] - 1, 2 * dims[1] + 3),
                         I(MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC),
                         I(MPI_DISTRIBUTE_DFLT_DARG, 2), dims, MPI_ORDER_FORTRAN, SHORT);
        k->et = SHORT, k->count = 1, k->disp = 2;
        k->romio_bug = ROMIO_FLATTEN_BUGS;
        break;
    case 22:
        k->name = "vector of MPI_SHORT_INT (a hole in the pair), mem contiguous";
        k->ft = t_resized(t_vector(3, 1, P, t_named(MPI_SHORT_INT)), 0, 24 * P);
        k->mt = t_contig(2, t_named(MPI_SHORT_INT));
        k->count = 4, k->disp = 8 * r;
        k->romio_bug = ROMIO_FLATTEN_BUGS;
        break;
    case 23:
        k->name = "etype contiguous(2, int), offset 3 etypes";
        k->et = t_contig(2, INT);
        k->ft = t_resized(t_vector(3, 1, P, k->et), 0, 24 * P);
        k->mt = INT, k->count = 14, k->off = 3, k->disp = 8 * r;
        break;
    case 24: {
        k->name = "struct of subarray and hvector of indexed_block of resized short";
        tm *inner = t_indexed_block(2, 2, I(0, 5), t_resized(SHORT, 0, 4));
        tm *h = t_hvector(2, 1, 40, inner);
        tm *sa = t_subarray(1, I(4 * P), I(2), I(2 * r), MPI_ORDER_C, INT);
        k->ft =
            t_resized(t_struct(2, I(1, 1), A(0, 16 * P + 80 * r), T(sa, h)), 0, 96 * P);
        k->mt = t_hvector(3, 1, 10, t_contig(2, SHORT));
        k->count = 4;
        break;
    }
    case 25:
        k->name = "zero count on some ranks";
        k->ft = t_resized(t_contig(4, INT), 0, 16 * P);
        k->mt = INT, k->et = INT, k->count = r % 3 == 1 ? 0 : 8, k->disp = 16 * r;
        break;
    case 26: {
        k->name = "subarray of resized struct {short, char}, mem resized chars";
        tm *el = t_resized(t_struct(2, I(1, 1), A(0, 4), T(SHORT, CHR)), 0, 8);
        k->ft = t_subarray(2, I(5, 3 * P), I(5, 3), I(0, 3 * r), MPI_ORDER_C, el);
        k->mt = t_resized(t_contig(3, CHR), 0, 5);
        k->count = 15, k->disp = 24;
        break;
    }
    case 27:
        k->name = "etype with a hole (resized int, extent 8), offset 2 etypes";
        k->et = t_resized(INT, 0, 8);
        k->ft = t_resized(t_contig(3, k->et), 0, 24 * P);
        k->mt = INT, k->count = 7, k->off = 2, k->disp = 4 + 24 * r;
        break;
    default: {
        k->name = "darray 1-d cyclic(4) of struct, partial last block, byte mem";
        tm *el = t_resized(t_struct(2, I(1, 1), A(0, 4), T(SHORT, CHR)), 0, 8);
        k->ft = t_darray(P, r, 1, I(7 * P + 3), I(MPI_DISTRIBUTE_CYCLIC), I(4), I(P),
                         MPI_ORDER_C, el);
        k->mt = BYTE, k->count = (int)k->ft->n + 5, k->off = 1;
        break;
    }
    }
}

/* ----------------------------------------------------------------- values */

/* The background pattern: 1..127 (never 0, never data). */
static unsigned char fill(int64_t pos)
{
    return (unsigned char)(1 + mpiio_mix32((uint32_t)pos * 2654435761U) % 127);
}

/* Data byte j of rank r in case c: 128..255. */
static unsigned char data(int c, int r, int64_t j)
{
    return (unsigned char)(0x80
                           | (mpiio_mix32((uint32_t)(c * 1000003 + r * 7919)
                                          ^ (uint32_t)j * 0x9e3779b1U)
                              & 0x7f));
}

/* count copies of t in memory: [lo, hi) relative to the buffer's address,
 * and where stream byte j lies: copy j / n at j/n * ext + pos[j % n]. */
static void mem_span(const tm *t, int count, int64_t *lo, int64_t *hi)
{
    *lo = 0, *hi = 0;
    for (int64_t i = 0; i < count; i++)
        for (int64_t k = 0; k < t->n; k++) {
            int64_t p = i * t->ext + t->pos[k];
            *lo = p < *lo ? p : *lo;
            *hi = p + 1 > *hi ? p + 1 : *hi;
        }
}

static int64_t mem_pos(const tm *t, int64_t j)
{
    return j / t->n * t->ext + t->pos[j % t->n];
}

/* The file byte of the view's data byte s (from the view's start). */
static int64_t file_pos(const kase *k, int64_t s)
{
    return k->disp + s / k->ft->n * k->ft->ext + k->ft->pos[s % k->ft->n];
}

/* ------------------------------------------------------------------- run */

static int rank, P;
static const char *usage = "usage: io_types FILE [--case N] [--no-skip]\n";

static long check_status(const char *what, MPI_Status *st, const kase *k)
{
    int cnt = -1, el = -1, size = 0;
    long bad = 0;
    MPI_Type_size(k->mt->dt, &size);
    MPI_Get_count(st, k->mt->dt, &cnt);
    MPI_Get_elements(st, k->mt->dt, &el);
    /* the whole access: count * MPI_Type_size(mt) bytes, so count items
     * (a type of size 0: 0), and count times the basic elements of the map
     * built here (a pair type counts 2) */
    int64_t bytes = (int64_t)k->count * size, want_cnt = size > 0 ? bytes / size : 0;
    if (cnt != want_cnt || el != (int64_t)k->count * k->mt->elems) {
        fprintf(stderr,
                "rank %d: %s: %s: MPI_Get_count %d (expected %lld), MPI_Get_elements "
                "%d (expected %lld)\n",
                rank, k->name, what, cnt, (long long)want_cnt, el,
                (long long)k->count * k->mt->elems);
        bad++;
    }
    return bad;
}

static long run_case(MPI_File fh, int c, const kase *k)
{
    long bad = 0;
    int esize = 0, rc;
    MPI_Type_size(k->et->dt, &esize);
    int64_t lo, hi, nbytes = (int64_t)k->count * k->mt->n;
    mem_span(k->mt, k->count, &lo, &hi);
    size_t span = (size_t)(hi - lo) + 32;
    unsigned char *wall = (unsigned char *)mpiio_xmalloc(span);
    unsigned char *rall = (unsigned char *)mpiio_xmalloc(span);
    unsigned char *mask = (unsigned char *)calloc(span, 1);
    memset(wall, 0x55, span);
    memset(rall, 0, span);
    unsigned char *wbuf = wall + 16 - lo, *rbuf = rall + 16 - lo, *mbuf = mask + 16 - lo;
    for (int64_t j = 0; j < nbytes; j++) {
        wbuf[mem_pos(k->mt, j)] = data(c, rank, j);
        mbuf[mem_pos(k->mt, j)] = 1;
    }
    if (nbytes > 0 && file_pos(k, k->off * esize + nbytes - 1) >= REGION) {
        fprintf(stderr, "rank %d: case %d does not fit its region\n", rank, c);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Status st;
    MPI_Offset base = (MPI_Offset)c * REGION, pos = -1;
    rc = MPI_File_set_view(fh, base + k->disp, k->et->dt, k->ft->dt, "native",
                           MPI_INFO_NULL);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: MPI_File_set_view failed\n", rank, k->name);
        return 1;
    }
    int at = c % 2 == 0; /* write_at_all on even cases, write_all on odd */
    if (at) {
        rc = MPI_File_write_at_all(fh, k->off, wbuf, k->count, k->mt->dt, &st);
    } else {
        MPI_File_seek(fh, k->off, MPI_SEEK_SET);
        rc = MPI_File_write_all(fh, wbuf, k->count, k->mt->dt, &st);
        MPI_File_get_position(fh, &pos);
        if (pos != k->off + nbytes / esize) {
            fprintf(stderr,
                    "rank %d: %s: after write_all the pointer is at %lld, not %lld\n",
                    rank, k->name, (long long)pos, (long long)(k->off + nbytes / esize));
            bad++;
        }
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: write failed (%d)\n", rank, k->name, rc);
        bad++;
    }
    bad += check_status(at ? "write_at_all" : "write_all", &st, k);

    int rat = (c / 2) % 2 == 0; /* read_at_all or read_all, the other rhythm */
    if (rat) {
        rc = MPI_File_read_at_all(fh, k->off, rbuf, k->count, k->mt->dt, &st);
    } else {
        MPI_File_seek(fh, k->off, MPI_SEEK_SET);
        rc = MPI_File_read_all(fh, rbuf, k->count, k->mt->dt, &st);
        MPI_File_get_position(fh, &pos);
        if (pos != k->off + nbytes / esize) {
            fprintf(stderr,
                    "rank %d: %s: after read_all the pointer is at %lld, not %lld\n",
                    rank, k->name, (long long)pos, (long long)(k->off + nbytes / esize));
            bad++;
        }
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: read failed (%d)\n", rank, k->name, rc);
        bad++;
    }
    bad += check_status(rat ? "read_at_all" : "read_all", &st, k);
    long wrong = 0;
    for (size_t i = 0; i < span; i++) {
        unsigned char want = mask[i] ? wall[i] : 0;
        if (rall[i] != want) {
            if (!wrong)
                fprintf(stderr,
                        "rank %d: %s: read back: byte %lld of the buffer is 0x%02x, "
                        "expected 0x%02x (%s; first mismatch)\n",
                        rank, k->name, (long long)((int64_t)i - 16 + lo), rall[i], want,
                        mask[i] ? "data" : "a gap of the memory type");
            wrong++;
        }
    }
    if (wrong)
        fprintf(stderr, "rank %d: %s: %ld bytes of the buffer wrong after the read\n",
                rank, k->name, wrong);
    free(wall);
    free(rall);
    free(mask);
    return bad + wrong;
}

/* Rank 0: the whole file through POSIX, against the expected image. */
static long posix_check(const char *path, const int *skipped)
{
    const int64_t size = (int64_t)NCASES * REGION;
    unsigned char *want = (unsigned char *)mpiio_xmalloc((size_t)size);
    unsigned char *got = (unsigned char *)mpiio_xmalloc((size_t)size);
    short *owner = (short *)calloc((size_t)REGION, sizeof(short));
    long bad = 0;
    for (int64_t i = 0; i < size; i++)
        want[i] = fill(i);
    for (int c = 0; c < NCASES; c++) {
        if (skipped[c])
            continue;
        memset(owner, 0, (size_t)REGION * sizeof(short));
        for (int q = 0; q < P; q++) {
            kase k;
            make_case(c, P, q, &k);
            int esize = (int)k.et->n;
            int64_t nbytes = (int64_t)k.count * k.mt->n;
            for (int64_t j = 0; j < nbytes; j++) {
                int64_t p = file_pos(&k, k.off * esize + j);
                if (p < 0 || p >= REGION || owner[p]) {
                    fprintf(stderr, "io_types: case %d: rank %d's byte at %lld %s\n", c,
                            q, (long long)p,
                            p < 0 || p >= REGION ? "outside the region"
                                                 : "overlaps another rank's");
                    bad++;
                    break;
                }
                owner[p] = (short)(q + 1);
                want[(int64_t)c * REGION + p] = data(c, q, j);
            }
            free_made();
        }
    }
    struct stat sb;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(path);
        free(want);
        free(got);
        free(owner);
        return bad + 1;
    }
    if ((int64_t)sb.st_size != size) {
        fprintf(stderr, "io_types: %s is %lld bytes, expected %lld\n", path,
                (long long)sb.st_size, (long long)size);
        bad++;
    }
    int64_t n = 0;
    while (n < size) {
        ssize_t r = read(fd, got + n, (size_t)(size - n));
        if (r <= 0)
            break;
        n += r;
    }
    close(fd);
    for (int c = 0; c < NCASES; c++) {
        long wrong = 0;
        for (int64_t i = (int64_t)c * REGION; i < (int64_t)(c + 1) * REGION; i++) {
            int g = i < n ? got[i] : -1;
            if (g != want[i]) {
                if (!wrong)
                    fprintf(stderr,
                            "io_types: POSIX read: case %d, byte %lld of its region is "
                            "%d, expected %d (%s; first mismatch)\n",
                            c, (long long)(i - (int64_t)c * REGION), g, want[i],
                            want[i] >= 0x80 ? "a rank's data" : "the background");
                wrong++;
            }
        }
        if (wrong)
            fprintf(stderr, "io_types: POSIX read: case %d: %ld bytes wrong\n", c, wrong);
        bad += wrong;
    }
    free(want);
    free(got);
    free(owner);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    mpiio_report_interposer("io_types", rank);
    const char *path = NULL, *v;
    int only = -1, noskip = 0;
    for (int i = 1; i < argc; i++) {
        if ((v = mpiio_opt(&i, argc, argv, "--case")))
            only = (int)mpiio_parse_i64("--case", v);
        else if (strcmp(argv[i], "--no-skip") == 0)
            noskip = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else
            mpiio_usage_exit(rank, usage, argv[i]);
    }
    if (!path)
        mpiio_usage_exit(rank, usage, NULL);

    /* the background, through POSIX, before MPI opens the file */
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        unsigned char *bg = (unsigned char *)mpiio_xmalloc(REGION);
        for (int c = 0; fd >= 0 && c < NCASES; c++) {
            for (int64_t i = 0; i < REGION; i++)
                bg[i] = fill((int64_t)c * REGION + i);
            if (write(fd, bg, REGION) != REGION)
                perror("write");
        }
        if (fd < 0 || close(fd) != 0)
            perror(path);
        free(bg);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh)
        != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long failed = 0;
    int skipped[NCASES] = {0};
    for (int c = 0; c < NCASES; c++) {
        kase k;
        make_case(c, P, rank, &k);
        if ((k.romio_bug && !noskip) || (only >= 0 && c != only)) {
            skipped[c] = 1;
            if (rank == 0 && only < 0)
                printf("io_types: case %d (%s): skipped: this MPICH's ROMIO writes it "
                       "wrong (MPICH < 4.1)\n",
                       c, k.name);
            free_made();
            continue;
        }
        long bad = mpiio_sum(run_case(fh, c, &k), MPI_COMM_WORLD);
        failed += bad;
        if (rank == 0)
            printf("%s case %d: %s\n", bad ? "FAIL" : "ok", c, k.name);
        free_made();
    }
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long bad = posix_check(path, skipped);
        printf("%s POSIX read of the whole file\n", bad ? "FAIL" : "ok");
        failed += bad;
    }
    failed += mpiio_sum(shadow_bad, MPI_COMM_WORLD);
    MPI_Bcast(&failed, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_types: P=%d: %s\n", P, failed ? "MISMATCH" : "ok");
    MPI_Finalize();
    return failed ? 1 : 0;
}
