/*
 * segs.c -- strided segments and flat extents: the one representation of
 * "which file elements, at which stream positions" that layouts produce and
 * every strategy consumes.
 *
 * A segment is `count` blocks of `len` elements, block k at file elements
 * [off + k*stride, off + k*stride + len) and stream positions
 * [mem + k*len, mem + (k+1)*len). Half-open bounds everywhere.
 *
 * Why segments and not flat lists: a block-cyclic layout with bx = 1 has
 * nx/P blocks per rank but only 1-2 segments, so the inspector's memory and
 * time stay independent of the block size until a strategy really needs
 * flat extents (collio__segs_flatten / collio__seg_clip).
 *
 * The sort is an LSD radix sort on the offset (stable; as many 11-bit passes
 * as the offset range needs) because the validator and strategies may sort
 * millions of extents.
 */
#include "base/base.h"
#include "layouts/layouts.h"

#include <limits.h>
#include <string.h>

/* ------------------------------------------------------------- segvec */

static int64_t seg_stream_end(const collio__seg *s)
{
    return s->mem + s->count * s->len;
}

static int segvec_append(collio__segvec *sv, const collio__seg *s)
{
    if (sv->n == sv->cap) {
        int64_t cap = sv->cap ? sv->cap * 2 : 16;
        if ((uint64_t)cap > SIZE_MAX / sizeof(collio__seg))
            return COLLIO_ERR_NOMEM;
        collio__seg *v = realloc(sv->v, (size_t)cap * sizeof(collio__seg));
        if (!v)
            return COLLIO_ERR_NOMEM;
        sv->v = v;
        sv->cap = cap;
    }
    sv->v[sv->n++] = *s;
    return COLLIO_OK;
}

/* One block [off, off+len) at stream position mem. Merges with the last
 * segment when the block follows it in the stream and either continues its
 * last block in the file (count == 1: len grows), or repeats its len at its
 * stride (count grows), or is a second equal-len block after a single block
 * (starts a stride). */
int collio__segvec_push(collio__segvec *sv, int64_t off, int64_t len, int64_t mem)
{
    if (len <= 0)
        return len == 0 ? COLLIO_OK : COLLIO_ERR_ARG;
    if (sv->n > 0) {
        collio__seg *l = &sv->v[sv->n - 1];
        if (seg_stream_end(l) == mem) {
            if (l->count == 1) {
                if (off == l->off + l->len) {
                    l->len += len;
                    l->stride = l->len;
                    return COLLIO_OK;
                }
                if (len == l->len && off > l->off + l->len) {
                    l->stride = off - l->off;
                    l->count = 2;
                    return COLLIO_OK;
                }
            } else if (len == l->len && off == l->off + l->count * l->stride) {
                l->count++;
                return COLLIO_OK;
            }
        }
    }
    collio__seg s = {off, len, len, 1, mem};
    return segvec_append(sv, &s);
}

/* A whole segment; merges with the last one when it continues it exactly
 * (same len and stride, next in file and stream), else is appended. */
int collio__segvec_push_seg(collio__segvec *sv, const collio__seg *in)
{
    collio__seg s = *in;
    if (s.len <= 0 || s.count <= 0)
        return (s.len == 0 || s.count == 0) ? COLLIO_OK : COLLIO_ERR_ARG;
    if (s.count == 1 || s.stride == s.len) { /* contiguous: one block */
        if (s.count > 1 && s.len > INT64_MAX / s.count)
            return COLLIO_ERR_OVERFLOW;
        return collio__segvec_push(sv, s.off, s.len * s.count, s.mem);
    }
    if (s.stride < s.len)
        return COLLIO_ERR_ARG;
    if (sv->n > 0) {
        collio__seg *l = &sv->v[sv->n - 1];
        if (seg_stream_end(l) == s.mem && l->len == s.len) {
            if (l->count > 1 && l->stride == s.stride
                && s.off == l->off + l->count * l->stride) {
                l->count += s.count;
                return COLLIO_OK;
            }
            if (l->count == 1 && s.off - l->off == s.stride) {
                l->stride = s.stride;
                l->count = 1 + s.count;
                return COLLIO_OK;
            }
        }
    }
    return segvec_append(sv, &s);
}

void collio__segvec_free(collio__segvec *sv)
{
    if (!sv)
        return;
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

/* ------------------------------------------------------------ queries */

int64_t collio__segs_elements(const collio__seg *s, int64_t n)
{
    int64_t t = 0;
    for (int64_t i = 0; i < n; i++)
        t += s[i].len * s[i].count;
    return t;
}

int collio__segs_flatten(const collio__seg *s, int64_t n, collio__ext **out,
                         int64_t *nout)
{
    int64_t nb = 0;
    for (int64_t i = 0; i < n; i++) {
        if (s[i].count > INT64_MAX - nb)
            return COLLIO_ERR_OVERFLOW;
        nb += s[i].count;
    }
    *out = NULL;
    *nout = 0;
    if ((uint64_t)nb > SIZE_MAX / sizeof(collio__ext))
        return COLLIO_ERR_NOMEM;
    collio__ext *e = malloc(nb > 0 ? (size_t)nb * sizeof(collio__ext) : 1);
    if (!e)
        return COLLIO_ERR_NOMEM;
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        const collio__seg *g = &s[i];
        int64_t off = g->off, mem = g->mem;
        for (int64_t k = 0; k < g->count; k++) {
            e[j].off = off;
            e[j].len = g->len;
            e[j].mem = mem;
            j++;
            off += g->stride;
            mem += g->len;
        }
    }
    *out = e;
    *nout = nb;
    return COLLIO_OK;
}

/* floor(a / b) for b > 0 */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Part of s inside file elements [lo, hi). Blocks are disjoint and
 * increasing (stride >= len), so the intersecting blocks are a range
 * [k0, k1] of which only the first and the last can be cut. */
int collio__seg_clip(const collio__seg *s, int64_t lo, int64_t hi, collio__seg out[3])
{
    if (hi <= lo || s->count < 1 || s->len < 1)
        return 0;
    int64_t stride = s->count > 1 ? s->stride : s->len;
    /* first block ending after lo: off + k*stride + len > lo */
    int64_t k0 = 0;
    if (lo - s->off - s->len >= 0)
        k0 = floordiv(lo - s->off - s->len, stride) + 1;
    /* last block starting before hi: off + k*stride < hi */
    if (hi - 1 - s->off < 0)
        return 0;
    int64_t k1 = floordiv(hi - 1 - s->off, stride);
    if (k1 > s->count - 1)
        k1 = s->count - 1;
    if (k0 > k1)
        return 0;
    int n = 0;
    int64_t ws = k0, we = k1 + 1; /* whole blocks [ws, we) */
    int64_t b0 = s->off + k0 * stride;
    int head_cut = b0 < lo || b0 + s->len > hi;
    if (k0 == k1) {
        int64_t a = b0 > lo ? b0 : lo;
        int64_t b = b0 + s->len < hi ? b0 + s->len : hi;
        out[0] = (collio__seg){a, b - a, b - a, 1, s->mem + k0 * s->len + (a - b0)};
        return 1;
    }
    if (head_cut) { /* only possible via lo (k1 > k0 starts before hi) */
        int64_t a = lo;
        int64_t b = b0 + s->len;
        out[n++] = (collio__seg){a, b - a, b - a, 1, s->mem + k0 * s->len + (a - b0)};
        ws = k0 + 1;
    }
    int64_t b1 = s->off + k1 * stride;
    int tail_cut = b1 + s->len > hi;
    if (tail_cut)
        we = k1;
    if (we > ws) {
        int64_t c = we - ws;
        out[n++] = (collio__seg){s->off + ws * stride, s->len, c > 1 ? stride : s->len, c,
                                 s->mem + ws * s->len};
    }
    if (tail_cut) {
        int64_t b = hi;
        out[n++] = (collio__seg){b1, b - b1, b - b1, 1, s->mem + k1 * s->len};
    }
    return n;
}

/* --------------------------------------------------------------- sort */

#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)

static int ext_cmp(const void *pa, const void *pb)
{
    const collio__ext *a = pa, *b = pb;
    if (a->off != b->off)
        return a->off < b->off ? -1 : 1;
    if (a->mem != b->mem)
        return a->mem < b->mem ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
}

static uint64_t ext_key(const collio__ext *e)
{
    return (uint64_t)e->off ^ ((uint64_t)1 << 63); /* order-preserving */
}

/* Stable LSD radix sort on off. Falls back to qsort (ties broken by mem,
 * then len) only if the scratch buffer cannot be allocated. */
void collio__exts_sort_by_off(collio__ext *e, int64_t n)
{
    if (n < 2)
        return;
    uint64_t kmin = ext_key(&e[0]), kmax = kmin;
    int sorted = 1;
    for (int64_t i = 1; i < n; i++) {
        uint64_t k = ext_key(&e[i]);
        if (k < ext_key(&e[i - 1]))
            sorted = 0;
        if (k < kmin)
            kmin = k;
        if (k > kmax)
            kmax = k;
    }
    if (sorted)
        return;
    if (n < 64) { /* insertion sort: stable */
        for (int64_t i = 1; i < n; i++) {
            collio__ext x = e[i];
            int64_t j = i;
            while (j > 0 && e[j - 1].off > x.off) {
                e[j] = e[j - 1];
                j--;
            }
            e[j] = x;
        }
        return;
    }
    collio__ext *tmp = collio__bigbuf_alloc((size_t)n * sizeof(collio__ext));
    size_t *cnt = malloc(RADIX_SIZE * sizeof(size_t));
    if (!tmp || !cnt) {
        collio__bigbuf_free(tmp);
        free(cnt);
        qsort(e, (size_t)n, sizeof(collio__ext), ext_cmp);
        return;
    }
    uint64_t range = kmax - kmin;
    collio__ext *src = e, *dst = tmp;
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += RADIX_BITS) {
        memset(cnt, 0, RADIX_SIZE * sizeof(size_t));
        for (int64_t i = 0; i < n; i++)
            cnt[((ext_key(&src[i]) - kmin) >> shift) & (RADIX_SIZE - 1)]++;
        size_t sum = 0;
        for (int b = 0; b < RADIX_SIZE; b++) {
            size_t c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[cnt[((ext_key(&src[i]) - kmin) >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        collio__ext *t = src;
        src = dst;
        dst = t;
    }
    if (src != e)
        memcpy(e, src, (size_t)n * sizeof(collio__ext));
    collio__bigbuf_free(tmp);
    free(cnt);
}

/* Heap of the ranks whose pairs are not all taken, keyed by their next
 * pair's offset: sift h[i] down. */
static void heap_down(int *h, int n, int i, const int64_t *pairs, const int64_t *at)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && pairs[2 * at[h[c + 1]]] < pairs[2 * at[h[c]]])
            c++;
        if (pairs[2 * at[h[c]]] >= pairs[2 * at[h[i]]])
            return;
        int t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

void collio__exts_merge_sorted(collio__ext *out, const int64_t *pairs, const int *count,
                               const int *displ, int P)
{
    int64_t n = 0;
    for (int q = 0; q < P; q++)
        n += count[q];
    int *h = malloc((size_t)(P > 0 ? P : 1) * sizeof *h);
    int64_t *at = malloc((size_t)(P > 0 ? P : 1) * sizeof *at);
    if (h == NULL || at == NULL) { /* copy, then sort */
        for (int q = 0, k = 0; q < P; q++)
            for (int i = 0; i < count[q]; i++, k++)
                out[k] = (collio__ext){pairs[2 * ((int64_t)displ[q] + i)],
                                       pairs[2 * ((int64_t)displ[q] + i) + 1], 0};
        free(h);
        free(at);
        collio__exts_sort_by_off(out, n);
        return;
    }
    int nh = 0;
    for (int q = 0; q < P; q++)
        if (count[q] > 0) {
            at[q] = displ[q];
            h[nh++] = q;
        }
    for (int i = nh / 2 - 1; i >= 0; i--)
        heap_down(h, nh, i, pairs, at);
    int sorted = 1;
    for (int64_t k = 0; k < n; k++) {
        int q = h[0];
        out[k] = (collio__ext){pairs[2 * at[q]], pairs[2 * at[q] + 1], 0};
        sorted &= k == 0 || out[k - 1].off <= out[k].off;
        if (++at[q] == (int64_t)displ[q] + count[q])
            h[0] = h[--nh];
        heap_down(h, nh, 0, pairs, at);
    }
    free(h);
    free(at);
    if (!sorted) /* a rank's pairs were out of order */
        collio__exts_sort_by_off(out, n);
}

/* Merge neighbours contiguous in file AND stream; drops empty extents. */
int64_t collio__exts_coalesce(collio__ext *e, int64_t n)
{
    int64_t j = -1;
    for (int64_t i = 0; i < n; i++) {
        if (e[i].len <= 0)
            continue;
        if (j >= 0 && e[j].off + e[j].len == e[i].off && e[j].mem + e[j].len == e[i].mem)
            e[j].len += e[i].len;
        else
            e[++j] = e[i];
    }
    return j + 1;
}
