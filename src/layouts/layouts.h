/*
 * layouts/layouts.h -- layouts: what a rank holds -- the layout kinds, their strided
 * segments and flat extents, the held runs of sparse layouts (the files of
 * src/layouts/).
 */
#ifndef COLLIO_LAYOUTS_LAYOUTS_H
#define COLLIO_LAYOUTS_LAYOUTS_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

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

/* ---------------------------------------------------------------- layout */

typedef enum collio__mem_kind {
    COLLIO__MEM_PACKED = 0, /* buffer == packed stream */
    COLLIO__MEM_GLOBAL,     /* buffer is the global array, element i at i */
    COLLIO__MEM_DATATYPE    /* buffer described by an MPI datatype */
} collio__mem_kind;

typedef enum collio__layout_kind {
    COLLIO__LAYOUT_BLOCK_CYCLIC = 0,
    COLLIO__LAYOUT_DARRAY,
    COLLIO__LAYOUT_INDEX_LIST,
    COLLIO__LAYOUT_EXTENTS
} collio__layout_kind;

/* The held runs of a sparse extents layout (layouts/extents.c): the union of
 * every rank's extents, coalesced, in file order, the same on every rank.
 * The layout's segments index the data packed without its holes: run r's
 * file elements [off[r], off[r] + len[r]) are packed elements
 * [cum[r], cum[r] + len[r]). File accesses map back (files/holes.c). */
typedef struct collio__holes {
    int64_t n;                /* runs, >= 1 */
    int64_t *off, *len, *cum; /* per run */
    int64_t held;             /* elements held: the packed size */
    int64_t span;             /* file elements up to the last run's end */
    size_t esize;             /* bytes per element */
} collio__holes;

struct collio_layout {
    collio__layout_kind kind;
    int rank, nranks;  /* in the communicator the layout was built on */
    MPI_Group group;   /* that communicator's group (plans compare it with
                          theirs); MPI_GROUP_NULL in a plan's own clone */
    int64_t nglobal;   /* elements in the file */
    size_t esize;      /* bytes per element */
    int64_t nlocal;    /* elements this rank holds */
    collio__seg *segs; /* this rank's elements, in stream (buffer) order */
    int64_t nsegs;
    int file_ordered; /* 1: stream order is increasing file order */
    collio__mem_kind mem_kind;
    MPI_Datatype mem_type; /* MEM_DATATYPE: a dup, else MPI_DATATYPE_NULL */
    int mem_count;
    size_t mem_bytes;     /* bytes the user buffer must have */
    int64_t bx;           /* block-cyclic block size, else 0 (for reports) */
    unsigned char *owned; /* replicated index lists: owned[i] for stream
                             element i (0/1); NULL for every other layout */
    collio__holes *holes; /* sparse extents with holes: segs index the
                             packed data (nglobal = held elements); NULL
                             for every other layout */
};

/* Sparse extents (layouts/extents.c). run_of: the run holding file element
 * off (the last one starting at or before it); run_of_packed: the run
 * holding packed element pos. O(log runs). */
int64_t collio__holes_run_of(const collio__holes *h, int64_t off);
int64_t collio__holes_run_of_packed(const collio__holes *h, int64_t pos);
int collio__holes_clone(const collio__holes *in, collio__holes **out);
void collio__holes_free(collio__holes **h);
/* The layout's segments in file elements (split at the holes; the
 * segments themselves for a dense layout), appended to out. */
int collio__layout_file_segs(const collio_layout *l, collio__segvec *out);
/* File elements the data spans: nglobal, or the held runs' end. */
int64_t collio__layout_file_span(const collio_layout *l);

/* Pure index arithmetic of the layout kinds (no MPI): the segments rank
 * `rank` of `nranks` holds, in its stream order. Unit-tested against
 * brute-force enumeration. Arguments are assumed valid (the public
 * constructors check them). */
int collio__block_cyclic_segs(int64_t nx, int64_t bx, int nranks, int rank,
                              collio__segvec *out);
int collio__darray_segs(int ndims, const int64_t gsizes[],
                        const collio_distrib distribs[], const int64_t dargs[],
                        const int psizes[], collio_order order, int rank,
                        collio__segvec *out);
int collio__index_list_segs(int64_t nlocal, const int64_t idx[], collio__segvec *out);

/* The start of every public layout constructor (local): error_begin,
 * *out = NULL, MPI usable, comm not MPI_COMM_NULL; a failure here is
 * returned at once (no communicator to agree on). collio__layout_no_out
 * records "FN: out is NULL" and returns ARG (agreed like any other bad
 * argument: the constructor still takes part in its collectives). */
int collio__layout_begin(MPI_Comm comm, collio_layout **out, const char *fn);
int collio__layout_no_out(const char *fn);

/* Allocates a layout with the common fields set, segments empty. */
int collio__layout_new(MPI_Comm comm, collio__layout_kind kind, int64_t nglobal,
                       size_t esize, collio_layout **out);

/* The common end of the constructors: adopt sv (if rc and mism are OK),
 * finish, agree; frees *l on failure. Returns the agreed code. */
int collio__layout_conclude(MPI_Comm comm, collio_layout **l, collio__segvec *sv, int rc,
                            int mism);

/* Deep copy (segments and datatype), for plans to own. */
int collio__layout_clone(const collio_layout *in, collio_layout **out);

/* Sets nlocal, file_ordered and mem_bytes from segs; checks overflow. */
int collio__layout_finish(collio_layout *l);

/* Local: file extents e[0..n) cut at the boundaries of the P domains of
 * [0, nglobal) (collio__domain_range); each piece recorded for its owner
 * q as 2 int64 words (off, len) at buf + 2 * (displs[q] + counts[q]),
 * counts[q] incremented. buf NULL: only counts. Returns the pieces. */
int64_t collio__exts_to_domains(const collio__ext *e, int64_t n, int64_t nglobal, int P,
                                int64_t *counts, const int *displs, int64_t *buf);

/* Collective: checks that the segments of all ranks partition
 * [0, nglobal) (no range, overlap or coverage error); agrees on result. */
int collio__layout_validate(MPI_Comm comm, const collio_layout *l);

/* Stream <-> user buffer, for layouts whose memory is not packed. */
int collio__layout_pack(const collio_layout *l, const void *buf, void *stream);
int collio__layout_unpack(const collio_layout *l, const void *stream, void *buf);

/* Local (layouts/stack.c): unreplicated layouts l[0..k), dense or
 * sparse, of one element size (the same layout again, or others on the
 * same ranks), copy i shifted by shift[i] >= 0 file elements (one of
 * them 0), in the stream one after the other, as one layout on comm
 * (their ranks): sparse where the copies leave gaps. COLLIO_ERR_OVERLAP
 * if two copies' file spans meet, COLLIO_ERR_ARG for a replicated layout
 * or element sizes that differ. */
int collio__layout_stack(MPI_Comm comm, int k, const collio_layout *const l[],
                         const int64_t shift[], collio_layout **out);

#endif /* COLLIO_LAYOUTS_LAYOUTS_H */
