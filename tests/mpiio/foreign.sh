#!/usr/bin/env bash
# tests/mpiio/foreign.sh NP PROGRAM LIB MPIEXEC -- an interposer preloaded
# under a program of another MPI library than its own (docs/mpiio.md, "MPIs
# and languages"): PROGRAM (io_mpiio, built for the MPI of MPIEXEC) runs
# with LIB (built for the other MPI) in LD_PRELOAD, launched by MPIEXEC
# through scripts/mpirun. It must run as if LIB were not there: exit 0,
# its own check "ok" (written, read back and checked through MPI and POSIX),
# no collio report (COLLIO_MPIIO_REPORT is set; LIB does nothing), and
# LIB's one line on standard error saying so, naming both MPIs -- once, for
# rank 0.
set -uo pipefail
np=$1 prog=$2 lib=$3 mpiexec=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpirun=$here/../../scripts/mpirun
[ -x "$mpiexec" ] || { echo "foreign.sh: no $mpiexec: skipped"; exit 77; }
dir=$(mktemp -d "${COLLIO_TEST_TMPDIR:-${TMPDIR:-/tmp}}/foreign.XXXXXX")
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
COLLIO_MPIEXEC=$mpiexec COLLIO_MPIIO_REPORT=$dir/report \
  "$mpirun" "$np" sh -c 'LD_PRELOAD="'"$lib"'${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"' sh \
  "$prog" "$dir/data" --mode all --type darray --bx 16 >"$dir/out" 2>"$dir/err"
rc=$?
sed "s/^/  [out] /" "$dir/out"
sed "s/^/  [err] /" "$dir/err" | head -20
[ $rc = 0 ] || fail "exit status $rc"
grep -q "mode=all .*: ok" "$dir/out" || fail "the program's own check did not pass"
lines=$(grep -c "collio_mpiio: this interposer was built for .*, the program runs" "$dir/err")
[ "$lines" = 1 ] || fail "$lines lines saying the interposer stays out, want 1"
[ ! -e "$dir/report" ] || fail "a collio report was written: the interposer did something"
grep -q "MPI_File_open from .*$(basename "$lib")" "$dir/out" ||
  fail "the program's MPI_File_open is not the preloaded library's (the preload was ignored)"
[ $status = 0 ] && rm -rf "$dir" && echo "foreign.sh: $(basename "$lib") under $(basename "$mpiexec"): stayed out"
exit $status
