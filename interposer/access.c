/*
 * access.c -- the byte extents of one MPI-IO access (see flatten.h): the
 * view's filetype tiled from disp, the offset skipped in etypes, and the
 * memory type's blocks, both in the order the data is taken from memory.
 */
#include "flatten.h"

/* The block of f holding data byte r of a tile (0 <= r < size), and r's
 * offset in it. */
static int64_t find_block(const cmio_flat *f, int64_t *r)
{
    int64_t lo = 0, hi = f->n - 1; /* last i with pre[i] <= r */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (f->pre[mid] <= *r)
            lo = mid;
        else
            hi = mid - 1;
    }
    *r -= f->pre[lo];
    return lo;
}

static int file_extents(const cmio_flat *ff, int64_t disp, int64_t skip, int64_t bytes,
                        cmio_extents *file)
{
    int64_t tile = skip / ff->size, r = skip % ff->size, base, i, o;
    int rc;
    if (MUL(tile, ff->extent, &base) || ADD(base, disp, &base))
        return MPI_ERR_ARG;
    if (ff->n == 1 && ff->len[0] == ff->extent) { /* dense: one extent */
        if (ADD(base, ff->disp[0], &o) || ADD(o, r, &o) || o < 0)
            return MPI_ERR_ARG;
        return cmio_extents_push(file, o, bytes);
    }
    i = find_block(ff, &r);
    while (bytes > 0) {
        int64_t piece = ff->len[i] - r < bytes ? ff->len[i] - r : bytes;
        if (ADD(base, ff->disp[i], &o) || ADD(o, r, &o) || o < 0)
            return MPI_ERR_ARG;
        if ((rc = cmio_extents_push(file, o, piece)))
            return rc;
        bytes -= piece;
        r = 0;
        if (++i == ff->n) {
            i = 0;
            if (ADD(base, ff->extent, &base))
                return MPI_ERR_ARG;
        }
    }
    return MPI_SUCCESS;
}

int cmio_access_extents(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        MPI_Offset offset, MPI_Datatype memtype, int64_t count,
                        cmio_extents *file, cmio_extents *mem)
{
    const cmio_flat *ff;
    MPI_Count esize;
    file->n = mem->n = file->bytes = mem->bytes = 0;
    if (disp < 0 || offset < 0 || count < 0)
        return MPI_ERR_ARG;
    if (etype == MPI_DATATYPE_NULL || MPI_Type_size_x(etype, &esize) != MPI_SUCCESS
        || esize == MPI_UNDEFINED)
        return MPI_ERR_TYPE;
    int rc = cmio_flatten_hold(filetype, &ff);
    if (rc)
        return rc;
    rc = cmio_access_extents_flat(disp, (int64_t)esize, ff, offset, memtype, count, file,
                                  mem);
    cmio_flat_release(ff);
    return rc;
}

int cmio_access_extents_flat(MPI_Offset disp, int64_t esize, const cmio_flat *ff,
                             MPI_Offset offset, MPI_Datatype memtype, int64_t count,
                             cmio_extents *file, cmio_extents *mem)
{
    const cmio_flat *mf;
    int64_t bytes, skip;
    int rc;
    file->n = mem->n = file->bytes = mem->bytes = 0;
    if (disp < 0 || offset < 0 || count < 0 || esize < 0)
        return MPI_ERR_ARG;
    if ((rc = cmio_flatten(memtype, &mf)))
        return rc;
    if (MUL(count, mf->size, &bytes) || MUL((int64_t)offset, esize, &skip))
        return MPI_ERR_ARG;
    cmio_extents m = {mf->n, mf->n, mf->disp, mf->len, 0};
    if ((rc = cmio_extents_emit(mem, &m, 0, count, mf->extent)))
        return rc;
    if (bytes > 0
        && (rc = ff->size ? file_extents(ff, disp, skip, bytes, file) : MPI_ERR_ARG))
        return rc;
    file->bytes = mem->bytes = bytes;
    return MPI_SUCCESS;
}
