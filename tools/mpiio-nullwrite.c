/*
 * mpiio-nullwrite.c -- LD_PRELOAD shim for a measurement: the collective
 * MPI-IO writes (MPI_File_write_all, MPI_File_write_at_all) return at once
 * with a status that says every byte was written, and write nothing.
 * Everything else, MPI_File_set_view included, is the MPI library's.
 * Not part of libcollio; never preload it with libcollio_mpiio.so.
 *
 * Why: timed under it, an I/O library's write call (PnetCDF's
 * ncmpi_put_varn_all, HDF5's H5Dwrite) costs what that library and the
 * MPI calls it makes around the write cost -- its request processing,
 * the datatypes it builds and commits, MPI_File_set_view with them --
 * with the data movement free. No interposer under that library can make
 * its call faster than that floor (docs/mpiio.md, "Measured").
 * `collio-mpiio-bench --no-verify` runs under it (the file stays empty).
 */
#include <mpi.h>

static int done(MPI_Status *st, int count, MPI_Datatype dt)
{
    if (st != MPI_STATUS_IGNORE) {
        int size = 0;
        MPI_Type_size(dt, &size);
        /* as a completed write reports it: every element of the call */
        MPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)count * size);
        MPI_Status_set_cancelled(st, 0);
    }
    return MPI_SUCCESS;
}

int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt,
                       MPI_Status *st)
{
    (void)fh;
    (void)buf;
    return done(st, count, dt);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count,
                          MPI_Datatype dt, MPI_Status *st)
{
    (void)fh;
    (void)off;
    (void)buf;
    return done(st, count, dt);
}
