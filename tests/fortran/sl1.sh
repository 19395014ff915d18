#!/usr/bin/env bash
# tests/fortran/sl1.sh MPIRUN NP EXAMPLE REF -- the Fortran SL1 test: the
# example (examples/fortran/stem2_sl1.F90, Fortran bindings) writes the
# STEM-II SL1 array at NP ranks, then the C reference
# (tests/fortran/sl1_ref.c) writes the same array through the C library and
# checks that both files are equal byte for byte. Twice: with multiphase
# and its defaults, then with subgroup and hints (groups of 2, inner
# multiphase with the hypercube exchange) -- the example's report must show
# that the hints reached the plan (the exchange that ran, the options it
# ran with).
set -euo pipefail
mpirun=$1 np=$2 example=$3 ref=$4
dir=${COLLIO_TEST_TMPDIR:-/tmp}
f="$dir/fortran-sl1-np$np-$$.bin"
trap 'rm -f "$f"' EXIT
"$mpirun" "$np" "$example" "$f" multiphase
"$mpirun" "$np" "$ref" "$f"
rm -f "$f"
out=$("$mpirun" "$np" "$example" "$f" subgroup \
      "subgroup.group=2, subgroup.inner=multiphase, multiphase.exchange=hypercube")
echo "$out"
for want in "with subgroup in .* s, exchange hypercube$" "^  subgroup.group = 2$" \
            "^  subgroup.inner = multiphase$" "^  multiphase.exchange = hypercube$"; do
  grep -q -- "$want" <<<"$out" || { echo "sl1.sh: no line '$want' in the report" >&2; exit 1; }
done
"$mpirun" "$np" "$ref" "$f"
