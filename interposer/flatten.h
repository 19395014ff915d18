/*
 * flatten.h -- MPI datatypes as byte blocks, and the byte extents of one
 * MPI-IO access through a file view (internal to libcollio_mpiio, prefix
 * cmio_). Uses only MPI's datatype functions (which the interposer does not
 * override): MPI_Type_get_envelope / _get_contents / _size_x / _get_extent_x
 * / _get_true_extent_x / _free. Not thread-safe (one global cache).
 */
#ifndef CMIO_FLATTEN_H
#define CMIO_FLATTEN_H

#include <mpi.h>
#include <stdint.h>

/* r = a + b, r = a * b; true on int64 overflow */
#define ADD(a, b, r) __builtin_add_overflow((a), (b), (r))
#define MUL(a, b, r) __builtin_mul_overflow((a), (b), (r))

/* Byte extents [off[i], off[i] + len[i]), n of them (cap allocated), and
 * their total where an access gives one. A block list is one too (off =
 * displacement). */
typedef struct cmio_extents {
    int64_t n, cap;
    int64_t *off, *len;
    int64_t bytes;
} cmio_extents;

/* Appends [d, d + l) to e, merged with the last extent where adjacent;
 * l = 0 appends nothing. MPI_ERR_ARG on overflow or l < 0, MPI_ERR_NO_MEM. */
int cmio_extents_push(cmio_extents *e, int64_t d, int64_t l);
/* Appends count copies of the blocks c, copy k at base + k * stride (one
 * extent where c is dense: one block as long as the stride). */
int cmio_extents_emit(cmio_extents *o, const cmio_extents *c, int64_t base, int64_t count,
                      int64_t stride);
void cmio_extents_free(cmio_extents *e);

/* One datatype's type map as byte blocks, in type-map order: block i covers
 * bytes [disp[i], disp[i]+len[i]) relative to the buffer address / view
 * origin. Adjacent blocks (disp[i]+len[i] == disp[i+1]) are merged. Blocks
 * of zero length are dropped. */
typedef struct cmio_flat {
    int64_t n; /* blocks */
    int64_t *disp, *len;
    int64_t *pre;       /* pre[i]: bytes in blocks 0..i-1 (pre[n] = size) */
    int64_t size;       /* MPI_Type_size: sum of len */
    int64_t lb, extent; /* MPI_Type_get_extent (these tile the type: copy k at
                           k*extent) */
    int64_t true_lb, true_extent;
    int monotonic; /* 1: disp strictly increasing and blocks do not overlap */
    /* 1: monotonic, and copies tiled at k*extent keep it so (extent > 0 and
     * the last block ends at or before disp[0] + extent): a legal filetype.
     * (An addition to the brief's struct.) */
    int tile_monotonic;
} cmio_flat;

/* Entries of the flatten cache (LRU, keyed by the type's whole
 * envelope/contents tree, not by its handle). */
#define CMIO_FLATTEN_CACHE_MAX 64

/* Flattens t (any derived or named type). The result is owned by the cache
 * (do not free); valid until cmio_flatten_cache_clear() or until
 * CMIO_FLATTEN_CACHE_MAX other distinct types have been flattened since its
 * last use. Returns MPI_SUCCESS or an MPI error class: MPI_ERR_TYPE for
 * MPI_DATATYPE_NULL, an unknown combiner or a type map that disagrees with
 * MPI_Type_size; MPI_ERR_ARG on int64 overflow or nonsense arguments;
 * MPI_ERR_NO_MEM. */
int cmio_flatten(MPI_Datatype t, const cmio_flat **out);
/* As cmio_flatten, and the result stays valid until cmio_flat_release(*out)
 * whatever the cache does meanwhile: a view holds its filetype's flat from
 * set_view on, so the interposer keeps no duplicate of the type (Open MPI's
 * MPI_Type_dup, and MPI_Type_get_contents of a dup, copy the type's whole
 * description: three copies of a 524,288-block filetype per PnetCDF call). */
int cmio_flatten_hold(MPI_Datatype t, const cmio_flat **out);
/* Ends a hold of cmio_flatten_hold (NULL: nothing). */
void cmio_flat_release(const cmio_flat *f);
/* Drops the cache's entries; held ones live on until released. */
void cmio_flatten_cache_clear(void);

/* Extents of one access, as MPI-IO defines it for a file view (disp, etype,
 * filetype) and an offset in etypes relative to the view (explicit offset,
 * or the individual file pointer), accessing `count` items of `memtype`:
 *   file: the byte extents in the file (absolute offsets: disp + ...), in
 *         the order the data is taken from memory (increasing for a legal
 *         view, i.e. when the filetype's flat has tile_monotonic);
 *         coalesced.
 *   mem:  the byte extents in the user buffer (relative to buf, may be
 *         negative), in order; coalesced.
 * Both have the same total bytes = count * size(memtype). The filetype
 * tiles the file from disp, copy k at disp + k*extent(filetype); offset
 * skips offset*size(etype) bytes of the view's data.
 * file and mem must be zero-initialised ({0}) or hold earlier results
 * (their arrays are reused); on return n and bytes describe this access.
 * Returns MPI_SUCCESS or an error class as cmio_flatten (MPI_ERR_ARG for a
 * negative disp, offset or count, a filetype of size 0 with data to access,
 * or a negative file offset). */
int cmio_access_extents(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        MPI_Offset offset, MPI_Datatype memtype, int64_t count,
                        cmio_extents *file, cmio_extents *mem);
/* The same with the filetype already flattened (ff, e.g. held by the view)
 * and the etype given by its size in bytes. */
int cmio_access_extents_flat(MPI_Offset disp, int64_t esize, const cmio_flat *ff,
                             MPI_Offset offset, MPI_Datatype memtype, int64_t count,
                             cmio_extents *file, cmio_extents *mem);

#endif
