#!/bin/sh
# tests/mpiio/exports.sh LIB -- the interposer exports the MPI entry points
# it stands in for and nothing else (interposer/exports.map): no collio_*
# or cmio_* symbol of its own may stand in for a libcollio the program
# loads. Exits 1 listing any other defined dynamic symbol, or when LIB
# exports none of the entry points.
lib=$1
[ -f "$lib" ] || { echo "exports.sh: no library '$lib'" >&2; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '{print $3}') || exit 1
other=$(printf '%s\n' "$syms" | grep -v -E \
  '^(MPI_File_[a-z_]+|MPI_Init|MPI_Init_thread|MPI_Finalize|MPI_Wait|MPI_Waitall|MPI_Waitany|MPI_Waitsome|mpi_file_[a-z_0-9]+_|mpi_finalize_(f08_)?|ompi_file_[a-z_]+_f|ompi_finalize_f)$' |
  grep -v '^$')
if [ -n "$other" ]; then
  echo "exports.sh: $lib exports symbols that are not MPI entry points:" >&2
  printf '  %s\n' $other >&2
  exit 1
fi
n=$(printf '%s\n' "$syms" | grep -c -E '^(MPI_File_write_all|mpi_file_write_all_)$')
[ "$n" = 2 ] || { echo "exports.sh: $lib lacks MPI_File_write_all or mpi_file_write_all_" >&2; exit 1; }
echo "exports.sh: $(printf '%s\n' "$syms" | grep -c .) symbols, all MPI entry points"
