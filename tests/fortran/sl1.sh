#!/usr/bin/env bash
# tests/fortran/sl1.sh MPIRUN NP EXAMPLE REF -- the Fortran SL1 test: the
# example (examples/fortran/stem2_sl1.F90, Fortran bindings, multiphase)
# writes the STEM-II SL1 array at NP ranks, then the C reference
# (tests/fortran/sl1_ref.c) writes the same array through the C library and
# checks that both files are equal byte for byte.
set -euo pipefail
mpirun=$1 np=$2 example=$3 ref=$4
dir=${COLLIO_TEST_TMPDIR:-/tmp}
f="$dir/fortran-sl1-np$np-$$.bin"
trap 'rm -f "$f"' EXIT
"$mpirun" "$np" "$example" "$f" multiphase
"$mpirun" "$np" "$ref" "$f"
