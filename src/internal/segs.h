/*
 * internal/segs.h -- segments: strided segments and flat extents (segs.c).
 * Part of collio_internal.h, which includes every part in order.
 */
#ifndef COLLIO_INTERNAL_SEGS_H
#define COLLIO_INTERNAL_SEGS_H

/* ------------------------------------------------------------- segments */

/*
 * A strided segment: `count` blocks of `len` consecutive global elements,
 * block k covering file elements [off + k*stride, off + k*stride + len).
 * In the rank's packed stream (its elements in layout order) the blocks are
 * consecutive: block k occupies stream [mem + k*len, mem + (k+1)*len).
 * Invariants: len >= 1, count >= 1, stride >= len when count > 1
 * (stride is ignored when count == 1; store len then).
 * A block-cyclic layout needs 1-2 segments per rank, whatever bx is.
 */
typedef struct collio__seg {
    int64_t off, len, stride, count, mem;
} collio__seg;

/* A flat extent: file elements [off, off+len) at stream position mem. */
typedef struct collio__ext {
    int64_t off, len, mem;
} collio__ext;

/* Growable array of segments. push() merges with the last segment when the
 * new block continues it (contiguous, or same stride and len). */
typedef struct collio__segvec {
    collio__seg *v;
    int64_t n, cap;
} collio__segvec;

int collio__segvec_push(collio__segvec *sv, int64_t off, int64_t len, int64_t mem);
int collio__segvec_push_seg(collio__segvec *sv, const collio__seg *s);
void collio__segvec_free(collio__segvec *sv);

/* Number of elements covered by segments. */
int64_t collio__segs_elements(const collio__seg *s, int64_t n);

/* All blocks of segs as flat extents, in stream order. *out is malloc'd. */
int collio__segs_flatten(const collio__seg *s, int64_t n, collio__ext **out,
                         int64_t *nout);

/* Part of segment s inside file elements [lo, hi): at most 3 segments
 * (partial head block, whole middle blocks, partial tail block), with
 * stream positions adjusted. Returns how many were written to out. */
int collio__seg_clip(const collio__seg *s, int64_t lo, int64_t hi, collio__seg out[3]);

/* Sort extents by file offset (stable for equal offsets). */
void collio__exts_sort_by_off(collio__ext *e, int64_t n);

/* The (off, len) pairs an owner received from P ranks -- rank q's count[q]
 * pairs at pairs[2 * displ[q]], each rank's sorted by off, as
 * collio__exts_to_domains sends them -- as extents sorted by off in out
 * (room for all; mem 0): a P-way merge, O(n log P), where a sort would
 * pass over the whole n several times; any rank's pairs out of order are
 * sorted all the same. */
void collio__exts_merge_sorted(collio__ext *out, const int64_t *pairs, const int *count,
                               const int *displ, int P);

/* Merge neighbours contiguous in both file and stream; returns new count. */
int64_t collio__exts_coalesce(collio__ext *e, int64_t n);

#endif /* COLLIO_INTERNAL_SEGS_H */
