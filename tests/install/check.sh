#!/usr/bin/env bash
# tests/install/check.sh SOURCE_DIR BUILD_DIR -- installs the built collio
# into a temporary prefix, then builds a downstream program against it twice:
# through the CMake package config (find_package(collio)) and through
# pkg-config with the MPI compiler wrapper, and runs both on 2 ranks; where
# the build has the Fortran bindings, a Fortran program through
# find_package(collio COMPONENTS Fortran) too.
set -euo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
mpicc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$mpicc" ] || mpicc=mpicc

# 1. CMake package config
cmake -S "$src/tests/install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$src/scripts/mpirun" 2 "$work/cmake/consumer" "$work/a.bin"

# 2. pkg-config
libdir=$(find "$work/prefix" -name collio.pc -printf '%h\n' | head -n1)
flags=$(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs collio)
# shellcheck disable=SC2086
"$mpicc" -std=c11 "$src/tests/install/consumer.c" -o "$work/consumer-pc" $flags \
         -Wl,-rpath,"$(dirname "$libdir")"
"$src/scripts/mpirun" 2 "$work/consumer-pc" "$work/b.bin"
cmp "$work/a.bin" "$work/b.bin"

# 3. Fortran bindings, where this build has them: find_package(collio
#    COMPONENTS Fortran), target collio::collio_fortran, module collio.
if [ -f "$work/prefix/include/collio.mod" ]; then
  mpif=$(sed -n 's/^MPI_Fortran_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  fc=$(sed -n 's/^CMAKE_Fortran_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  cmake -S "$src/tests/install/fortran" -B "$work/fortran" -DCMAKE_PREFIX_PATH="$work/prefix" \
        -DMPI_C_COMPILER="$mpicc" -DMPI_Fortran_COMPILER="${mpif:-mpif90}" \
        -DCMAKE_Fortran_COMPILER="${fc:-gfortran}" >/dev/null
  cmake --build "$work/fortran" >/dev/null
  "$src/scripts/mpirun" 2 "$work/fortran/fconsumer" "$work/c.bin"
  echo "install check: Fortran ok"
fi
echo "install check: ok"
