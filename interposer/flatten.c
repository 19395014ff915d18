/*
 * flatten.c -- MPI datatypes as byte blocks (see flatten.h). Two passes:
 *  1. describe(): walks the type's envelope/contents tree (the only MPI calls)
 *     into an array of int64 words: per node its combiner, size, lb, extent,
 *     integers, addresses, then its children. That array is the cache key
 *     (compared exactly, behind a hash): the size of the description, not of
 *     the type map. lb and extent of every node are MPI's own.
 *  2. build(): on a miss, the description as blocks (no MPI calls). A dense
 *     child repeated is one block; otherwise one step per output block.
 * A flat held (cmio_flatten_hold: a file view's) outlives its eviction.
 * Subarray and darray from element positions: index (i_0..i_n-1) lies at
 * linear(i) * extent(oldtype), in lexicographic order with the last (C) or the
 * first (Fortran) dimension fastest; darray's process grid is row-major
 * whatever the order (MPI-3.1 4.1.3, 4.1.4).
 */
#include "flatten.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The *_INTEGER combiners (MPI-1 Fortran, removed in MPI-3.0): Open MPI
 * without MPI-1 compatibility keeps only their enum slots. */
#if defined(OPEN_MPI) && !(OMPI_ENABLE_MPI1_COMPAT)
#define CB_HVECTOR_INTEGER OMPI_WAS_MPI_COMBINER_HVECTOR_INTEGER
#define CB_HINDEXED_INTEGER OMPI_WAS_MPI_COMBINER_HINDEXED_INTEGER
#define CB_STRUCT_INTEGER OMPI_WAS_MPI_COMBINER_STRUCT_INTEGER
#else
#define CB_HVECTOR_INTEGER MPI_COMBINER_HVECTOR_INTEGER
#define CB_HINDEXED_INTEGER MPI_COMBINER_HINDEXED_INTEGER
#define CB_STRUCT_INTEGER MPI_COMBINER_STRUCT_INTEGER
#endif

#define MAX_DEPTH 64 /* nesting of derived types */
#define MAX_DIMS 32  /* subarray / darray dimensions */

/* Combiners of predefined types (no contents, never freed). */
#define LEAF(c)                                                                          \
    ((c) == MPI_COMBINER_NAMED || (c) == MPI_COMBINER_F90_REAL                           \
     || (c) == MPI_COMBINER_F90_COMPLEX || (c) == MPI_COMBINER_F90_INTEGER)

/* ---- growable arrays */

typedef struct words {
    int64_t n, cap, *w;
} words;

/* Room for n more words. */
static int wreserve(words *k, int64_t n)
{
    if (k->n + n > k->cap) {
        int64_t cap = k->cap ? 2 * k->cap : 64;
        cap = cap < k->n + n ? k->n + n : cap;
        int64_t *w = realloc(k->w, (size_t)cap * sizeof *w);
        if (!w)
            return MPI_ERR_NO_MEM;
        k->w = w;
        k->cap = cap;
    }
    return MPI_SUCCESS;
}

static int wpushv(words *k, const int64_t *v, int64_t n)
{
    int rc = wreserve(k, n);
    if (rc)
        return rc;
    memcpy(k->w + k->n, v, (size_t)n * sizeof *v);
    k->n += n;
    return MPI_SUCCESS;
}

/* ---- pass 1: the description */

/* Frees a type returned by MPI_Type_get_contents unless predefined. */
static void release(MPI_Datatype *t)
{
    int ni, na, nd, comb;
    if (MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb) == MPI_SUCCESS && !LEAF(comb))
        MPI_Type_free(t);
}

/* Words of a leaf: its handle (identity) and its type map as two blocks
 * [0, a) and [off, off + size - a): the C pair types hold a padded int
 * (MPI_SHORT_INT: bytes 0-1 and 4-7); the others are one block [0, size). */
static int describe_leaf(MPI_Datatype t, int64_t size, words *k)
{
    int64_t a = size, h = 0;
    if (t == MPI_SHORT_INT)
        a = sizeof(short);
    else if (t == MPI_LONG_INT)
        a = sizeof(long);
    else if (t == MPI_FLOAT_INT)
        a = sizeof(float);
    else if (t == MPI_DOUBLE_INT)
        a = sizeof(double);
    else if (t == MPI_LONG_DOUBLE_INT)
        a = sizeof(long double);
    /* struct { T a; int b; }: b at the next multiple of int's alignment */
    int64_t off = (a + (int64_t) _Alignof(int) - 1) / _Alignof(int) * _Alignof(int);
    if (a >= size || off < a)
        a = size, off = size;
    memcpy(&h, &t, sizeof t < sizeof h ? sizeof t : sizeof h);
    int64_t v[3] = {h, a, off};
    return wpushv(k, v, 3);
}

/* get_contents' integer and address arrays, kept from call to call (a
 * node's are copied into the description before its children are
 * described): fresh arrays of megabytes would fault in page by page on
 * every call. */
static int *g_ints;
static MPI_Aint *g_aints;
static int64_t g_nints, g_naints;
static words g_desc; /* the description of the type being flattened, kept too */

static int contents_room(int ni, int na)
{
    if (ni + 1 > g_nints) {
        int *v = realloc(g_ints, ((size_t)ni + 1) * sizeof *v);
        if (!v)
            return MPI_ERR_NO_MEM;
        g_ints = v, g_nints = ni + 1;
    }
    if (na + 1 > g_naints) {
        MPI_Aint *v = realloc(g_aints, ((size_t)na + 1) * sizeof *v);
        if (!v)
            return MPI_ERR_NO_MEM;
        g_aints = v, g_naints = na + 1;
    }
    return MPI_SUCCESS;
}

static int describe(MPI_Datatype t, words *k, int depth)
{
    int ni, na, nd, comb, rc;
    MPI_Count size, lb, ext;
    if (depth > MAX_DEPTH || MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS
        || MPI_Type_size_x(t, &size) != MPI_SUCCESS
        || MPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (size == MPI_UNDEFINED || size < 0 || ni < 0 || na < 0 || nd < 0)
        return MPI_ERR_ARG; /* MPI itself overflowed */
    int64_t hd[7] = {comb, size, lb, ext, ni, na, nd};
    if ((rc = wpushv(k, hd, LEAF(comb) ? 4 : 7)))
        return rc;
    if (LEAF(comb))
        return describe_leaf(t, size, k);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    int *ints = NULL;
    MPI_Aint *aints = NULL;
    if (!types || contents_room(ni, na)) {
        rc = MPI_ERR_NO_MEM;
    } else if (ints = g_ints, aints = g_aints,
               MPI_Type_get_contents(t, ni, na, nd, ints, aints, types) != MPI_SUCCESS) {
        rc = MPI_ERR_TYPE;
    } else {
        /* (an hindexed of 524,288 blocks: a million words, in one go) */
        if (!(rc = wreserve(k, (int64_t)ni + na))) {
            int64_t *w = k->w + k->n;
            for (int i = 0; i < ni; i++)
                w[i] = ints[i];
            for (int i = 0; i < na; i++)
                w[ni + i] = aints[i];
            k->n += (int64_t)ni + na;
        }
        for (int i = 0; i < nd; i++) {
            if (!rc)
                rc = describe(types[i], k, depth + 1);
            release(&types[i]);
        }
    }
    free(types);
    return rc;
}

/* ---- pass 2: blocks from the description */

typedef struct cursor {
    const int64_t *w, *end;
} cursor;

/* Blocks of an n-dimensional array of elements ch (extent cext) of global
 * sizes gs, the indices of dimension d in the runs r[d] (off = first index,
 * len = count, increasing), in C (fastest last) or Fortran order. */
static int grid(cmio_extents *out, const cmio_extents *ch, int64_t cext, int n,
                const int64_t *gs, const cmio_extents *r, int c_order)
{
    int dim[MAX_DIMS];
    int64_t st[MAX_DIMS], ri[MAX_DIMS] = {0}, q[MAX_DIMS] = {0}, all = 1, t;
    for (int j = 0; j < n; j++) {
        dim[j] = c_order ? j : n - 1 - j; /* slowest first */
        if (r[j].n == 0)
            return MPI_SUCCESS;
        if (MUL(all, gs[j], &all))
            return MPI_ERR_ARG;
    }
    if (MUL(all, cext < 0 ? -cext : cext, &t))
        return MPI_ERR_ARG; /* so no position below overflows */
    st[dim[n - 1]] = 1;
    for (int j = n - 2; j >= 0; j--)
        st[dim[j]] = st[dim[j + 1]] * gs[dim[j + 1]];
    const cmio_extents *fast = &r[dim[n - 1]];
    for (;;) {
        int64_t off = 0;
        for (int j = 0; j < n - 1; j++)
            off += (r[dim[j]].off[ri[j]] + q[j]) * st[dim[j]];
        for (int64_t i = 0; i < fast->n; i++) {
            int rc = cmio_extents_emit(out, ch, (off + fast->off[i]) * cext, fast->len[i],
                                       cext);
            if (rc)
                return rc;
        }
        int j = n - 2;
        for (; j >= 0; j--) {
            const cmio_extents *rd = &r[dim[j]];
            if (++q[j] < rd->len[ri[j]])
                break;
            q[j] = 0;
            if (++ri[j] < rd->n)
                break;
            ri[j] = 0;
        }
        if (j < 0)
            return MPI_SUCCESS;
    }
}

/* The runs of global indices this process owns in one darray dimension. */
static int darray_runs(cmio_extents *r, int64_t g, int64_t dist, int64_t darg, int64_t p,
                       int64_t coord)
{
    int rc = MPI_SUCCESS;
    if (g < 0 || p <= 0)
        return MPI_ERR_ARG;
    if (dist == MPI_DISTRIBUTE_NONE)
        return cmio_extents_push(r, 0, g);
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        if (b <= 0 && g > 0)
            return MPI_ERR_ARG;
        int64_t s = coord * b;
        return s < g ? cmio_extents_push(r, s, g - s < b ? g - s : b) : MPI_SUCCESS;
    }
    if (dist != MPI_DISTRIBUTE_CYCLIC)
        return MPI_ERR_TYPE;
    int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    if (k <= 0)
        return MPI_ERR_ARG;
    for (int64_t s = coord * k; s < g && rc == MPI_SUCCESS; s += k * p)
        rc = cmio_extents_push(r, s, g - s < k ? g - s : k);
    return rc;
}

/* SUBARRAY (darray == 0) or DARRAY from its integers i[0..ni). */
static int array(cmio_extents *out, const cmio_extents *ch, int64_t cext,
                 const int64_t *i, int64_t ni, int darray)
{
    cmio_extents r[MAX_DIMS];
    int64_t gs[MAX_DIMS], n = darray ? (ni > 2 ? i[2] : 0) : (ni > 0 ? i[0] : 0);
    int rc = MPI_SUCCESS;
    if (n < 1 || n > MAX_DIMS || ni < (darray ? 4 * n + 4 : 3 * n + 2))
        return MPI_ERR_TYPE;
    const int64_t *v = darray ? i + 3 : i + 1;
    int64_t order = v[darray ? 4 * n : 3 * n], rank = darray ? i[1] : 0;
    memset(r, 0, sizeof r);
    for (int64_t d = n - 1; d >= 0 && rc == MPI_SUCCESS; d--) { /* row-major grid */
        gs[d] = v[d];
        if (!darray) {
            if (v[n + d] < 0 || v[2 * n + d] < 0 || v[n + d] + v[2 * n + d] > gs[d])
                rc = MPI_ERR_ARG;
            else
                rc = cmio_extents_push(&r[d], v[2 * n + d], v[n + d]);
            continue;
        }
        int64_t p = v[3 * n + d];
        rc = darray_runs(&r[d], gs[d], v[n + d], v[2 * n + d], p, p > 0 ? rank % p : 0);
        rank = p > 0 ? rank / p : 0;
    }
    if (rc == MPI_SUCCESS)
        rc = grid(out, ch, cext, (int)n, gs, r, order == MPI_ORDER_C);
    for (int d = 0; d < n; d++)
        cmio_extents_free(&r[d]);
    return rc;
}

/* A description that does not fit its combiner (checked before any child). */
// clang-format off
#define NEED(cond) do { if (!(cond)) return MPI_ERR_TYPE; } while (0)
// clang-format on

static int build(cursor *c, cmio_extents *out, int64_t *ext)
{
    if (c->end - c->w < 4)
        return MPI_ERR_TYPE;
    int64_t comb = c->w[0], size = c->w[1];
    *ext = c->w[3];
    c->w += 4;
    if (LEAF(comb)) {
        if (c->end - c->w < 3)
            return MPI_ERR_TYPE;
        int64_t a = c->w[1], off = c->w[2];
        c->w += 3;
        int rc = cmio_extents_push(out, 0, a);
        return rc ? rc : cmio_extents_push(out, off, size - a);
    }
    if (c->end - c->w < 3)
        return MPI_ERR_TYPE;
    int64_t ni = c->w[0], na = c->w[1], nd = c->w[2];
    c->w += 3;
    if (c->end - c->w < ni + na)
        return MPI_ERR_TYPE;
    const int64_t *i = c->w, *a = c->w + ni;
    c->w += ni + na;
    cmio_extents ch = {0};
    int64_t cx, n = ni > 0 ? i[0] : 0, d, bl;
    int rc = MPI_SUCCESS;
    NEED(n >= 0 && (nd == 1 || comb == MPI_COMBINER_STRUCT || comb == CB_STRUCT_INTEGER));
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the child's type map, MPI's bounds */
        rc = build(c, out, &cx);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        NEED(ni == 1);
        if (!(rc = build(c, &ch, &cx)))
            rc = cmio_extents_emit(out, &ch, 0, n, cx);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case CB_HVECTOR_INTEGER:
        NEED(comb == MPI_COMBINER_VECTOR ? ni == 3 : ni == 2 && na == 1);
        if ((rc = build(c, &ch, &cx)))
            break;
        for (int64_t j = 0; j < n && !rc; j++) {
            if (comb == MPI_COMBINER_VECTOR ? MUL(j * i[2], cx, &d) : MUL(j, a[0], &d))
                rc = MPI_ERR_ARG;
            else
                rc = cmio_extents_emit(out, &ch, d, i[1], cx);
        }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case CB_HINDEXED_INTEGER:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        int blk =
            comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
        int h = comb != MPI_COMBINER_INDEXED && comb != MPI_COMBINER_INDEXED_BLOCK;
        NEED(ni == (blk ? 2 : 1) + (h ? 0 : n) + (blk ? 0 : n) && na == (h ? n : 0));
        if ((rc = build(c, &ch, &cx)))
            break;
        for (int64_t j = 0; j < n && !rc; j++) {
            bl = blk ? i[1] : i[1 + j];
            if (h)
                d = a[j];
            else if (MUL(i[(blk ? 2 : 1 + n) + j], cx, &d))
                rc = MPI_ERR_ARG;
            if (!rc)
                rc = cmio_extents_emit(out, &ch, d, bl, cx);
        }
        break;
    }
    case MPI_COMBINER_STRUCT:
    case CB_STRUCT_INTEGER:
        NEED(ni == n + 1 && na == n && nd == n);
        for (int64_t j = 0; j < n && !rc; j++) {
            ch.n = 0;
            if (!(rc = build(c, &ch, &cx)))
                rc = cmio_extents_emit(out, &ch, a[j], i[1 + j], cx);
        }
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        if (!(rc = build(c, &ch, &cx)))
            rc = array(out, &ch, cx, i, ni, comb == MPI_COMBINER_DARRAY);
        break;
    default:
        rc = MPI_ERR_TYPE;
    }
    cmio_extents_free(&ch);
    return rc;
}

/* ---- the cache */

typedef struct entry {
    cmio_flat f; /* first: a cmio_flat * of the cache is its entry */
    int64_t *key, nkey;
    uint64_t hash, used;
    int64_t holds; /* cmio_flatten_hold's not yet released */
    int cached;    /* 0: evicted while held, freed at its last release */
} entry;

static entry *cache[CMIO_FLATTEN_CACHE_MAX];
static int ncache;
static uint64_t ticks;

static void entry_free(entry *e)
{
    free(e->f.disp);
    free(e->f.len);
    free(e->key);
    free(e->f.pre);
    free(e);
}

/* Out of the cache: freed now, or at the last release of a hold. */
static void evict(entry *e)
{
    if (e->holds > 0)
        e->cached = 0;
    else
        entry_free(e);
}

void cmio_flatten_cache_clear(void)
{
    for (int i = 0; i < ncache; i++)
        evict(cache[i]);
    ncache = 0;
    free(g_ints);
    free(g_aints);
    free(g_desc.w);
    g_ints = NULL, g_aints = NULL, g_nints = g_naints = 0;
    memset(&g_desc, 0, sizeof g_desc);
}

void cmio_flat_release(const cmio_flat *f)
{
    entry *e = (entry *)(uintptr_t)f; /* (the cache's own entry) */
    if (e != NULL && --e->holds == 0 && !e->cached)
        entry_free(e);
}

static uint64_t hash_words(const words *k)
{
    uint64_t h = 14695981039346656037ull;
    for (int64_t i = 0; i < k->n; i++) {
        h ^= (uint64_t)k->w[i];
        h *= 1099511628211ull;
        h ^= h >> 31;
    }
    return h;
}

/* The flat of e's key (pass 2) and its summary fields. */
static int flat_of(entry *e, MPI_Datatype t)
{
    cmio_extents b = {0};
    cursor c = {e->key, e->key + e->nkey};
    MPI_Count tlb, text;
    int64_t ext, sum = 0;
    int rc = build(&c, &b, &ext);
    cmio_flat *f = &e->f;
    f->n = b.n, f->disp = b.off, f->len = b.len;
    if (rc)
        return rc;
    if (c.w != c.end)
        return MPI_ERR_TYPE;
    f->size = e->key[1], f->lb = e->key[2], f->extent = e->key[3];
    if (MPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    f->true_lb = tlb, f->true_extent = text;
    f->monotonic = 1;
    if (!(f->pre = malloc(((size_t)f->n + 1) * sizeof *f->pre)))
        return MPI_ERR_NO_MEM;
    for (int64_t i = 0; i < f->n; i++) {
        f->pre[i] = sum;
        sum += f->len[i];
        if (i > 0 && f->disp[i - 1] + f->len[i - 1] > f->disp[i])
            f->monotonic = 0;
    }
    f->pre[f->n] = sum;
    if (sum != f->size)
        return MPI_ERR_TYPE; /* a type map we do not understand */
    f->tile_monotonic =
        f->monotonic && f->extent > 0
        && (f->n == 0 || f->disp[f->n - 1] + f->len[f->n - 1] <= f->disp[0] + f->extent);
    return MPI_SUCCESS;
}

static entry *lookup_or_make(MPI_Datatype t, int *rc_out);

int cmio_flatten(MPI_Datatype t, const cmio_flat **out)
{
    int rc;
    entry *e = lookup_or_make(t, &rc);
    *out = e != NULL ? &e->f : NULL;
    return rc;
}

int cmio_flatten_hold(MPI_Datatype t, const cmio_flat **out)
{
    int rc;
    entry *e = lookup_or_make(t, &rc);
    if (e != NULL)
        e->holds++;
    *out = e != NULL ? &e->f : NULL;
    return rc;
}

/* t's cache entry (found, or made and cached), or NULL and *rc_out the
 * error class. */
static entry *lookup_or_make(MPI_Datatype t, int *rc_out)
{
    words k = g_desc;
    k.n = 0;
    *rc_out = MPI_SUCCESS;
    if (t == MPI_DATATYPE_NULL) {
        *rc_out = MPI_ERR_TYPE;
        return NULL;
    }
    int rc = describe(t, &k, 0);
    g_desc = k; /* (its array may have moved) */
    uint64_t h = hash_words(&k);
    for (int i = 0; i < ncache && !rc; i++) {
        entry *e = cache[i];
        if (e->hash == h && e->nkey == k.n
            && memcmp(e->key, k.w, (size_t)k.n * sizeof *k.w) == 0) {
            e->used = ++ticks;
            return e;
        }
    }
    entry *e = rc ? NULL : calloc(1, sizeof *e);
    if (e && !(e->key = malloc((size_t)(k.n > 0 ? k.n : 1) * sizeof *k.w))) {
        free(e);
        e = NULL;
    }
    if (!e) {
        *rc_out = rc ? rc : MPI_ERR_NO_MEM;
        return NULL;
    }
    memcpy(e->key, k.w, (size_t)k.n * sizeof *k.w);
    e->nkey = k.n, e->hash = h, e->used = ++ticks, e->cached = 1;
    if ((rc = flat_of(e, t))) {
        entry_free(e);
        *rc_out = rc;
        return NULL;
    }
    if (ncache == CMIO_FLATTEN_CACHE_MAX) { /* evict the least recently used */
        int lru = 0;
        for (int i = 1; i < ncache; i++)
            if (cache[i]->used < cache[lru]->used)
                lru = i;
        evict(cache[lru]);
        cache[lru] = cache[--ncache];
    }
    cache[ncache++] = e;
    return e;
}
