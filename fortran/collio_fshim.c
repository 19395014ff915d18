/*
 * collio_fshim.c -- the C side of the Fortran bindings (module collio,
 * fortran/collio.F90). Part of libcollio_fortran, not of libcollio.
 *
 * Fortran's MPI handles are not C's: `use mpi` passes INTEGER handles and
 * `use mpi_f08` a type whose MPI_VAL component is that same integer. The
 * functions here take the integer (MPI_Fint) and convert it with
 * MPI_Comm_f2c / MPI_Type_f2c / MPI_Info_f2c before calling the library.
 * Buffers arrive as Fortran descriptors (ISO_Fortran_binding.h, assumed-rank
 * assumed-type dummies), so their byte size comes from the descriptor and
 * the Fortran caller never passes one. Every function returns the library's
 * code unchanged. The calls without MPI handles or buffers (hints, the
 * catalogue, statistics by key) are bound to the library directly.
 */
#include "collio.h"

#include <ISO_Fortran_binding.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* The Fortran mirror of collio_file_options: the MPI_Info as a Fortran
 * handle (type(collio_file_options) in collio.F90, bind(C)). */
typedef struct collio_f_file_options {
    int backend;
    int64_t base_offset;
    int sync;
    MPI_Fint info;
} collio_f_file_options;

/* Prototypes (this file's functions are called from Fortran only). */
int collio_f_sizeof(int which);
int64_t collio_f_stats_offset(int field);
int collio_f_version(int which);
int collio_f_hints_set_info(collio_hints *hints, MPI_Fint info);
int collio_f_layout_block_cyclic(MPI_Fint comm, int64_t nx, int64_t bx, size_t esize,
                                 collio_layout **out);
int collio_f_layout_darray(MPI_Fint comm, int ndims, const int64_t *gsizes,
                           const int *distribs, const int64_t *dargs, const int *psizes,
                           int order, size_t esize, collio_layout **out);
int collio_f_layout_index_list(MPI_Fint comm, int64_t nglobal, int64_t nlocal,
                               const int64_t *idx, size_t esize, collio_layout **out);
int collio_f_layout_index_list_replicated(MPI_Fint comm, int64_t nglobal, int64_t nlocal,
                                          const int64_t *idx, const unsigned char *owned,
                                          size_t esize, collio_layout **out);
int collio_f_layout_extents(MPI_Fint comm, int64_t n, const int64_t *off,
                            const int64_t *len, size_t esize, collio_layout **out);
int collio_f_layout_set_memory_datatype(collio_layout *layout, MPI_Fint type, int count);
void collio_f_file_options_init(collio_f_file_options *opts);
int collio_f_file_open(MPI_Fint comm, const char *path, int mode,
                       const collio_f_file_options *opts, collio_file **out);
int collio_f_plan_create(MPI_Fint comm, const collio_layout *layout, const char *strategy,
                         const collio_hints *hints, collio_plan **out);
int collio_f_describe_h5(MPI_Fint comm, const char *h5_path, const char *raw_path,
                         int64_t base_offset, int type, int ndims, const int64_t *dims,
                         int fortran_order, const char *dataset);
int collio_f_write(collio_plan *plan, collio_file *f, CFI_cdesc_t *buf);
int collio_f_read(collio_plan *plan, collio_file *f, CFI_cdesc_t *buf);
int collio_f_write_at(collio_plan *plan, collio_file *f, int64_t offset,
                      CFI_cdesc_t *buf);
int collio_f_read_at(collio_plan *plan, collio_file *f, int64_t offset, CFI_cdesc_t *buf);
int collio_f_istart(collio_plan *plan, collio_file *f, int64_t offset, CFI_cdesc_t *buf,
                    int writing, collio_request **req);

/* sizeof the structs the module mirrors (its self-check): 2 stats, 3
 * Fortran file options, 4 collio_option_info, 5 collio_stat_info; else 0. */
int collio_f_sizeof(int which)
{
    switch (which) {
    case 2:
        return (int)sizeof(collio_stats);
    case 3:
        return (int)sizeof(collio_f_file_options);
    case 4:
        return (int)sizeof(collio_option_info);
    case 5:
        return (int)sizeof(collio_stat_info);
    default:
        return 0;
    }
}

/* The byte offset of field `field` (0-based, in declaration order) of
 * collio_stats, -1 past the last: the module checks its mirror field by
 * field. */
int64_t collio_f_stats_offset(int field)
{
    static const size_t off[] = {
        offsetof(collio_stats, inspect_s),        offsetof(collio_stats, exchange_s),
        offsetof(collio_stats, copy_s),           offsetof(collio_stats, file_s),
        offsetof(collio_stats, total_s),          offsetof(collio_stats, bytes_sent),
        offsetof(collio_stats, messages),         offsetof(collio_stats, file_requests),
        offsetof(collio_stats, file_bytes),       offsetof(collio_stats, plan_bytes),
        offsetof(collio_stats, work_bytes),       offsetof(collio_stats, nnodes),
        offsetof(collio_stats, messages_offnode), offsetof(collio_stats, bytes_offnode),
    };
    if (field < 0 || field >= (int)(sizeof off / sizeof off[0]))
        return -1;
    return (int64_t)off[field];
}

/* COLLIO_VERSION_MAJOR (0), _MINOR (1), _PATCH (2) of the header the
 * library was built with; -1 else. */
int collio_f_version(int which)
{
    switch (which) {
    case 0:
        return COLLIO_VERSION_MAJOR;
    case 1:
        return COLLIO_VERSION_MINOR;
    case 2:
        return COLLIO_VERSION_PATCH;
    default:
        return -1;
    }
}

int collio_f_layout_block_cyclic(MPI_Fint comm, int64_t nx, int64_t bx, size_t esize,
                                 collio_layout **out)
{
    return collio_layout_block_cyclic(MPI_Comm_f2c(comm), nx, bx, esize, out);
}

int collio_f_layout_darray(MPI_Fint comm, int ndims, const int64_t *gsizes,
                           const int *distribs, const int64_t *dargs, const int *psizes,
                           int order, size_t esize, collio_layout **out)
{
    /* The enums as the library's own type (ndims outside [1, MAX]: the
     * library reports it; nothing is read then). */
    collio_distrib d[COLLIO_MAX_DIMS];
    int n = ndims >= 1 && ndims <= COLLIO_MAX_DIMS ? ndims : 0;
    for (int i = 0; i < n; i++)
        d[i] = (collio_distrib)distribs[i];
    return collio_layout_darray(MPI_Comm_f2c(comm), ndims, gsizes, d, dargs, psizes,
                                (collio_order)order, esize, out);
}

int collio_f_layout_index_list(MPI_Fint comm, int64_t nglobal, int64_t nlocal,
                               const int64_t *idx, size_t esize, collio_layout **out)
{
    return collio_layout_index_list(MPI_Comm_f2c(comm), nglobal, nlocal, idx, esize, out);
}

int collio_f_layout_index_list_replicated(MPI_Fint comm, int64_t nglobal, int64_t nlocal,
                                          const int64_t *idx, const unsigned char *owned,
                                          size_t esize, collio_layout **out)
{
    return collio_layout_index_list_replicated(MPI_Comm_f2c(comm), nglobal, nlocal, idx,
                                               owned, esize, out);
}

int collio_f_layout_set_memory_datatype(collio_layout *layout, MPI_Fint type, int count)
{
    return collio_layout_set_memory_datatype(layout, MPI_Type_f2c(type), count);
}

void collio_f_file_options_init(collio_f_file_options *opts)
{
    collio_file_options o;
    collio_file_options_init(&o);
    opts->backend = (int)o.backend;
    opts->base_offset = o.base_offset;
    opts->sync = o.sync;
    opts->info = MPI_Info_c2f(o.info);
}

int collio_f_file_open(MPI_Fint comm, const char *path, int mode,
                       const collio_f_file_options *opts, collio_file **out)
{
    collio_file_options o;
    collio_file_options_init(&o);
    if (opts != NULL) {
        o.backend = (collio_backend)opts->backend;
        o.base_offset = opts->base_offset;
        o.sync = opts->sync;
        o.info = MPI_Info_f2c(opts->info);
    }
    return collio_file_open(MPI_Comm_f2c(comm), path, (collio_file_mode)mode, &o, out);
}

int collio_f_plan_create(MPI_Fint comm, const collio_layout *layout, const char *strategy,
                         const collio_hints *hints, collio_plan **out)
{
    /* a blank (or absent) Fortran strategy is the default, as C's NULL */
    return collio_plan_create(MPI_Comm_f2c(comm), layout,
                              strategy != NULL && strategy[0] != '\0' ? strategy : NULL,
                              hints, out);
}

int collio_f_hints_set_info(collio_hints *hints, MPI_Fint info)
{
    return collio_hints_set_info(hints, MPI_Info_f2c(info));
}

/* Bytes of a (contiguous: the module's dummies are CONTIGUOUS) array. */
static size_t cfi_bytes(const CFI_cdesc_t *d)
{
    size_t n = d->elem_len;
    for (int r = 0; r < d->rank; r++)
        n *= (size_t)d->dim[r].extent;
    return n;
}

int collio_f_write(collio_plan *plan, collio_file *f, CFI_cdesc_t *buf)
{
    size_t n = cfi_bytes(buf);
    return collio_write(plan, f, n > 0 ? buf->base_addr : NULL, n);
}

int collio_f_read(collio_plan *plan, collio_file *f, CFI_cdesc_t *buf)
{
    size_t n = cfi_bytes(buf);
    return collio_read(plan, f, n > 0 ? buf->base_addr : NULL, n);
}

int collio_f_write_at(collio_plan *plan, collio_file *f, int64_t offset, CFI_cdesc_t *buf)
{
    size_t n = cfi_bytes(buf);
    return collio_write_at(plan, f, offset, n > 0 ? buf->base_addr : NULL, n);
}

int collio_f_read_at(collio_plan *plan, collio_file *f, int64_t offset, CFI_cdesc_t *buf)
{
    size_t n = cfi_bytes(buf);
    return collio_read_at(plan, f, offset, n > 0 ? buf->base_addr : NULL, n);
}

/* A request keeps the buffer's address: a buffer that is not contiguous
 * (a section the compiler would copy in and out around the call) cannot be
 * used -- its size is made one that cannot match, so that the request
 * fails with COLLIO_ERR_BUFSIZE on every rank instead of here alone. */
int collio_f_istart(collio_plan *plan, collio_file *f, int64_t offset, CFI_cdesc_t *buf,
                    int writing, collio_request **req)
{
    size_t n = CFI_is_contiguous(buf) ? cfi_bytes(buf) : (size_t)-1;
    void *b = n > 0 ? buf->base_addr : NULL;
    return writing ? collio_iwrite_at(plan, f, offset, b, n, req)
                   : collio_iread_at(plan, f, offset, b, n, req);
}

int collio_f_layout_extents(MPI_Fint comm, int64_t n, const int64_t *off,
                            const int64_t *len, size_t esize, collio_layout **out)
{
    return collio_layout_extents(MPI_Comm_f2c(comm), n, off, len, esize, out);
}

/* collio_describe_h5 with a Fortran communicator handle. */
int collio_f_describe_h5(MPI_Fint comm, const char *h5_path, const char *raw_path,
                         int64_t base_offset, int type, int ndims, const int64_t *dims,
                         int fortran_order, const char *dataset)
{
    return collio_describe_h5(MPI_Comm_f2c(comm), h5_path, raw_path, base_offset, type,
                              ndims, dims, fortran_order, dataset);
}
