# cmake/collio-interposer.cmake -- the MPI-IO interposer (src/mpiio/,
# docs/mpiio.md), one per MPI library the machine has:
#
#   libcollio_mpiio.so             the build's own MPI (MPI::MPI_C), with
#                                  libcollio_mpiio_<flavour>.so beside it
#                                  (a link) under the name of that MPI;
#   libcollio_mpiio_<other>.so     the other of Open MPI and MPICH, where its
#                                  compiler wrapper (mpicc.openmpi,
#                                  mpicc.mpich) is installed
#                                  (COLLIO_INTERPOSER_OTHER_MPI).
#
# A program preloads the one of its MPI; preloaded under another MPI, an
# interposer says so in one line and touches no call (wrappers.c,
# cmio_foreign). Each holds collio's code compiled against its MPI (no
# libcollio.so to find at run time), built without HDF5: a preloaded
# serial HDF5 would stand in for the application's parallel one.
include_guard(GLOBAL)
include(${PROJECT_SOURCE_DIR}/cmake/collio-mpi-flavour.cmake)

set(COLLIO_INTERPOSER_SOURCES src/mpiio/entry.c src/mpiio/wrappers.c src/mpiio/take.c
    src/mpiio/policy.c
    src/mpiio/report.c src/mpiio/flatten.c src/mpiio/extents.c src/mpiio/access.c
    src/mpiio/fortran.c)

# collio_add_interposer(TARGET OUTPUT_NAME MPI_TARGET): the core (collio's
# sources) and the shared library of the interposer, against the MPI of
# the interface target MPI_TARGET.
function(collio_add_interposer target output mpi)
  add_library(${target}_core STATIC ${COLLIO_SOURCES})
  target_include_directories(${target}_core
    PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(${target}_core PRIVATE _GNU_SOURCE)
  target_compile_options(${target}_core PRIVATE ${COLLIO_WARNINGS})
  target_link_libraries(${target}_core PUBLIC ${mpi})
  set_target_properties(${target}_core PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(COLLIO_JSONC AND JSONC_FOUND)
    target_compile_definitions(${target}_core PRIVATE COLLIO_HAVE_JSONC)
    target_include_directories(${target}_core PRIVATE ${JSONC_INCLUDE_DIRS})
    target_link_libraries(${target}_core PRIVATE ${COLLIO_JSONC_LIBRARY})
  endif()
  add_library(${target} SHARED ${COLLIO_INTERPOSER_SOURCES})
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${COLLIO_WARNINGS}>
                                           $<$<COMPILE_LANGUAGE:Fortran>:-Wall>)
  target_link_libraries(${target} PRIVATE ${target}_core ${mpi} ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output}
                        VERSION ${PROJECT_VERSION} SOVERSION 0
                        LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpiio/exports.map)
  target_link_options(${target} PRIVATE
                      "LINKER:--version-script=${PROJECT_SOURCE_DIR}/src/mpiio/exports.map")
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

collio_add_interposer(collio_mpiio collio_mpiio MPI::MPI_C)
# `use mpi_f08` under MPICH (its routines call PMPI_File_* themselves): the
# interposer defines them too, with gfortran's names and descriptors
# (src/mpiio/fortran_f08.f90; docs/mpiio.md "MPIs and languages").
if(COLLIO_HAVE_FORTRAN AND COLLIO_MPI_FLAVOUR STREQUAL "mpich"
   AND CMAKE_Fortran_COMPILER_ID STREQUAL "GNU")
  target_sources(collio_mpiio PRIVATE src/mpiio/fortran_f08.f90 src/mpiio/fortran_f08.c)
  set_target_properties(collio_mpiio PROPERTIES
    Fortran_MODULE_DIRECTORY ${PROJECT_BINARY_DIR}/mpiio_f08_mod)
  set(COLLIO_MPIIO_F08 ON)
else()
  set(COLLIO_MPIIO_F08 OFF)
endif()
if(COLLIO_MPI_FLAVOUR)
  # the build's own MPI's interposer under that MPI's name too
  set(_own ${PROJECT_BINARY_DIR}/libcollio_mpiio_${COLLIO_MPI_FLAVOUR}.so)
  add_custom_command(TARGET collio_mpiio POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:collio_mpiio> ${_own})
  install(FILES ${_own} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# The other MPI, from its compiler wrapper's flags.
option(COLLIO_INTERPOSER_OTHER_MPI
  "also build the interposer for the other of Open MPI and MPICH where installed" ON)
set(COLLIO_OTHER_MPI "")
if(COLLIO_INTERPOSER_OTHER_MPI AND COLLIO_MPI_FLAVOUR)
  if(COLLIO_MPI_FLAVOUR STREQUAL "openmpi")
    set(_other mpich)
    find_program(COLLIO_OTHER_MPICC mpicc.mpich)
    set(_compile_args -compile_info)
    set(_link_args -link_info)
  else()
    set(_other openmpi)
    find_program(COLLIO_OTHER_MPICC mpicc.openmpi)
    set(_compile_args -showme:compile)
    set(_link_args -showme:link)
  endif()
  if(COLLIO_OTHER_MPICC)
    execute_process(COMMAND ${COLLIO_OTHER_MPICC} ${_compile_args} OUTPUT_VARIABLE _cflags
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc1)
    execute_process(COMMAND ${COLLIO_OTHER_MPICC} ${_link_args} OUTPUT_VARIABLE _lflags
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc2)
  endif()
  if(COLLIO_OTHER_MPICC AND _rc1 EQUAL 0 AND _rc2 EQUAL 0)
    separate_arguments(_cflags UNIX_COMMAND "${_cflags}")
    separate_arguments(_lflags UNIX_COMMAND "${_lflags}")
    # the include directories and the libraries (MPICH's wrapper prints
    # its whole command: the compiler and the linker's options dropped)
    set(_inc "")
    set(_libs "")
    foreach(f ${_cflags})
      if(f MATCHES "^-I(.+)")
        list(APPEND _inc ${CMAKE_MATCH_1})
      endif()
    endforeach()
    foreach(f ${_lflags})
      if(f MATCHES "^-[Ll]")
        list(APPEND _libs ${f})
      endif()
    endforeach()
    add_library(collio_other_mpi INTERFACE IMPORTED)
    set_target_properties(collio_other_mpi PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "${_libs}")
    collio_add_interposer(collio_mpiio_other collio_mpiio_${_other} collio_other_mpi)
    set(COLLIO_OTHER_MPI ${_other})
    message(STATUS "collio: interposers for ${COLLIO_MPI_FLAVOUR} (libcollio_mpiio.so) "
                   "and ${_other} (libcollio_mpiio_${_other}.so)")
  endif()
endif()
