# tests/mpiio/mpiio-libs.cmake -- finds the parallel I/O libraries that the
# real-library tests (tests/mpiio/) and collio-mpiio-bench (bench/) use,
# and keeps only those built against the same MPI as this build. Included
# from both directories; runs once (targets are GLOBAL).
#
# Sets, as INTERNAL cache variables (visible in every directory), and
# reports with STATUS messages:
#   COLLIO_MPI_FLAVOUR         openmpi | mpich | "" (unknown)
#   COLLIO_MPIIO_HAVE_HDF5     parallel HDF5: PkgConfig::COLLIO_PHDF5
#                              (pkg-config hdf5-openmpi or hdf5-mpich: never
#                              the plain name hdf5, an alternative that may
#                              point at either MPI)
#   COLLIO_MPIIO_HAVE_PNETCDF  PnetCDF: PkgConfig::COLLIO_PNETCDF
#   COLLIO_MPIIO_HAVE_NETCDF4  parallel netCDF-4: PkgConfig::COLLIO_NETCDF_MPI
#                              plus COLLIO_NETCDF_MPI_INCLUDE (Debian's
#                              netcdf-mpi.pc names /usr/include, the headers
#                              are in its prefix)
# Debian builds PnetCDF and netcdf-mpi against one MPI only (Open MPI):
# each library is checked with ldd for the MPI it loads.
include_guard(GLOBAL)

include(${PROJECT_SOURCE_DIR}/cmake/collio-mpi-flavour.cmake)

set(COLLIO_MPIIO_HAVE_HDF5 OFF)
set(COLLIO_MPIIO_HAVE_PNETCDF OFF)
set(COLLIO_MPIIO_HAVE_NETCDF4 OFF)
find_package(PkgConfig QUIET)
find_program(COLLIO_LDD ldd)

# _collio_mpiio_same_mpi(VAR LIBS...): VAR is ON when the first shared
# library in LIBS loads this build's MPI (by ldd: libmpich.so for MPICH,
# libmpi.so for Open MPI), with the reason in VAR_WHY otherwise.
function(_collio_mpiio_same_mpi var)
  set(${var} OFF PARENT_SCOPE)
  set(lib "")
  foreach(l ${ARGN})
    if(l MATCHES "\\.so" AND EXISTS "${l}")
      set(lib ${l})
      break()
    endif()
  endforeach()
  if(NOT lib)
    set(${var}_WHY "no shared library among '${ARGN}'" PARENT_SCOPE)
    return()
  endif()
  if(NOT COLLIO_MPI_FLAVOUR)
    set(${var}_WHY "cannot tell this build's MPI (MPI_C_LIBRARIES=${MPI_C_LIBRARIES})"
        PARENT_SCOPE)
    return()
  endif()
  if(NOT COLLIO_LDD)
    set(${var}_WHY "no ldd to check ${lib}" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${COLLIO_LDD} ${lib} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(out MATCHES "libmpich\\.so")
    set(theirs mpich)
  elseif(out MATCHES "libmpi\\.so")
    set(theirs openmpi)
  else()
    set(${var}_WHY "${lib} loads no MPI library that ldd shows" PARENT_SCOPE)
    return()
  endif()
  if(theirs STREQUAL COLLIO_MPI_FLAVOUR)
    set(${var} ON PARENT_SCOPE)
  else()
    set(${var}_WHY "${lib} is built against ${theirs}, this build uses ${COLLIO_MPI_FLAVOUR}"
        PARENT_SCOPE)
  endif()
endfunction()

if(PkgConfig_FOUND AND COLLIO_MPI_FLAVOUR)
  # parallel HDF5 of this MPI
  pkg_check_modules(COLLIO_PHDF5 QUIET IMPORTED_TARGET GLOBAL hdf5-${COLLIO_MPI_FLAVOUR})
  if(COLLIO_PHDF5_FOUND)
    _collio_mpiio_same_mpi(_ok ${COLLIO_PHDF5_LINK_LIBRARIES})
    if(_ok)
      set(COLLIO_MPIIO_HAVE_HDF5 ON)
      message(STATUS "collio: mpiio tests: parallel HDF5 ${COLLIO_PHDF5_VERSION} "
                     "(hdf5-${COLLIO_MPI_FLAVOUR})")
    else()
      message(STATUS "collio: mpiio tests: HDF5 skipped: ${_ok_WHY}")
    endif()
  else()
    message(STATUS "collio: mpiio tests: HDF5 skipped: no pkg-config hdf5-${COLLIO_MPI_FLAVOUR} "
                   "(apt-get install libhdf5-${COLLIO_MPI_FLAVOUR}-dev)")
  endif()
  # PnetCDF
  pkg_check_modules(COLLIO_PNETCDF QUIET IMPORTED_TARGET GLOBAL pnetcdf)
  if(COLLIO_PNETCDF_FOUND)
    _collio_mpiio_same_mpi(_ok ${COLLIO_PNETCDF_LINK_LIBRARIES})
    if(_ok)
      set(COLLIO_MPIIO_HAVE_PNETCDF ON)
      message(STATUS "collio: mpiio tests: PnetCDF ${COLLIO_PNETCDF_VERSION}")
    else()
      message(STATUS "collio: mpiio tests: PnetCDF skipped: ${_ok_WHY}")
    endif()
  else()
    message(STATUS "collio: mpiio tests: PnetCDF skipped: no pkg-config pnetcdf "
                   "(apt-get install libpnetcdf-dev)")
  endif()
  # parallel netCDF-4
  pkg_check_modules(COLLIO_NETCDF_MPI QUIET IMPORTED_TARGET GLOBAL netcdf-mpi)
  if(COLLIO_NETCDF_MPI_FOUND)
    pkg_get_variable(_prefix netcdf-mpi prefix)
    find_path(COLLIO_NETCDF_MPI_INCLUDE netcdf_par.h HINTS ${_prefix}/include
              NO_DEFAULT_PATH)
    find_path(COLLIO_NETCDF_MPI_INCLUDE netcdf_par.h HINTS ${COLLIO_NETCDF_MPI_INCLUDEDIR})
    _collio_mpiio_same_mpi(_ok ${COLLIO_NETCDF_MPI_LINK_LIBRARIES})
    if(NOT COLLIO_NETCDF_MPI_INCLUDE)
      message(STATUS "collio: mpiio tests: netCDF-4 skipped: no netcdf_par.h")
    elseif(_ok)
      set(COLLIO_MPIIO_HAVE_NETCDF4 ON)
      message(STATUS "collio: mpiio tests: parallel netCDF-4 ${COLLIO_NETCDF_MPI_VERSION}")
    else()
      message(STATUS "collio: mpiio tests: netCDF-4 skipped: ${_ok_WHY}")
    endif()
  else()
    message(STATUS "collio: mpiio tests: netCDF-4 skipped: no pkg-config netcdf-mpi "
                   "(apt-get install libnetcdf-mpi-dev)")
  endif()
elseif(NOT COLLIO_MPI_FLAVOUR)
  message(STATUS "collio: mpiio tests: HDF5, PnetCDF, netCDF-4 skipped: cannot tell "
                 "this build's MPI (MPI_C_LIBRARIES=${MPI_C_LIBRARIES})")
else()
  message(STATUS "collio: mpiio tests: HDF5, PnetCDF, netCDF-4 skipped: no pkg-config")
endif()
set(COLLIO_MPI_FLAVOUR "${COLLIO_MPI_FLAVOUR}" CACHE INTERNAL "MPI of this build")
foreach(_v HDF5 PNETCDF NETCDF4)
  set(COLLIO_MPIIO_HAVE_${_v} ${COLLIO_MPIIO_HAVE_${_v}} CACHE INTERNAL "mpiio: ${_v} usable")
endforeach()
