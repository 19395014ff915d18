# cmake/collio-mpi-flavour.cmake -- COLLIO_MPI_FLAVOUR: mpich, openmpi or
# empty, the MPI this build found (after find_package(MPI)). The
# interposer's Fortran entry points and the tests of the parallel I/O
# libraries (tests/mpiio/mpiio-libs.cmake) depend on it.
include_guard(GLOBAL)
set(COLLIO_MPI_FLAVOUR "")
if("${MPI_C_LIBRARY_VERSION_STRING}" MATCHES "MPICH"
   OR "${MPI_C_LIBRARIES}" MATCHES "mpich")
  set(COLLIO_MPI_FLAVOUR mpich)
elseif("${MPI_C_LIBRARY_VERSION_STRING}" MATCHES "Open MPI"
       OR "${MPI_C_LIBRARIES}" MATCHES "openmpi|/libmpi\\.so")
  set(COLLIO_MPI_FLAVOUR openmpi)
endif()
