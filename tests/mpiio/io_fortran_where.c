/*
 * io_fortran_where.c -- part of io_fortran (io_fortran.f90): rank 0 prints
 * which object the Fortran MPI-IO entry points resolve to in the process's
 * global scope, where the program's own calls bind -- the MPI's Fortran
 * library when run plainly, libcollio_mpiio when it is LD_PRELOAD'ed
 * (tests/mpiio/compare.sh checks the "MPI_File_open from" line: here that
 * of the Fortran symbol mpi_file_open_, which a Fortran MPI_FILE_OPEN
 * calls). Called from Fortran through bind(C); io_fortran_f08_where, the
 * same for io_fortran_f08 (`use mpi_f08`).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#endif

#include <dlfcn.h>
#include <stdio.h>

static const char *where(const char *symbol)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, symbol);
    if (sym != NULL && dladdr(sym, &info) && info.dli_fname != NULL)
        return info.dli_fname;
    return "?";
}

void io_fortran_where(int rank);
void io_fortran_where(int rank)
{
    if (rank != 0)
        return;
    printf("io_fortran: MPI_File_open from %s\n", where("mpi_file_open_"));
    printf(
        "io_fortran: (Fortran mpi_file_write_all_ in %s; C MPI_File_write_all in %s)\n",
        where("mpi_file_write_all_"), where("MPI_File_write_all"));
    fflush(stdout);
}

/* The same line for io_fortran_f08 (`use mpi_f08`): where the f08 route's
 * open resolves -- Open MPI's mpi_f08 calls ompi_file_open_f (its mpif.h
 * binding's, or the interposer's when preloaded: interposer/fortran.c);
 * under MPICH the program calls mpi_file_open_f08_ itself (libmpichfort's,
 * or the interposer's: interposer/fortran_f08.f90). */
void io_fortran_f08_where(int rank);
void io_fortran_f08_where(int rank)
{
    if (rank != 0)
        return;
    const char *sym = dlsym(RTLD_DEFAULT, "ompi_file_open_f") != NULL
                          ? "ompi_file_open_f"
                          : "mpi_file_open_f08_";
    printf("io_fortran_f08 (%s): MPI_File_open from %s\n", sym, where(sym));
    fflush(stdout);
}
