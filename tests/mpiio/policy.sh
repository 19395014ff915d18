#!/usr/bin/env bash
# tests/mpiio/policy.sh NP IO_MPIIO -- the interposer's take-or-pass
# policy measured (interposer/policy.c, docs/mpiio.md "Never slower than
# the MPI library") on files of one rank each (MPI_COMM_SELF, io_mpiio
# --mode self: 24 writes then 24 reads of one pattern, every rank its own
# file, checked by the program through MPI and POSIX):
#   1. collio made slow on purpose (COLLIO_HINTS: serial in 64-byte
#      rounds): per operation, collio's first call (its plan), then two of
#      MPI's and two of collio's in turn, timed -- then MPI keeps the
#      pattern: the log says so, and the rest of the calls go to MPI,
#      measured slower, then straight (a streak of 8);
#   2. as users run: the same trials, and the rest of the calls go where
#      the logged times say -- collio's where the least of its times was
#      below 0.9 of the least of MPI's (CMIO_KEEP_MARGIN), else MPI's;
#   3. a long streak (40,000 calls MPI keeps) decides in full rarely: at
#      its 256th call, 512th ... then every 16,384th (CMIO_RESAMPLE,
#      CMIO_RESAMPLE_MAX): 8 such calls, where every 256th would be 156.
# Rank 0's report and log (COLLIO_MPIIO_REPORT, COLLIO_MPIIO_LOG).
set -uo pipefail
np=$1 prog=$2
lib=${COLLIO_MPIIO_LIB:-}
mpirun=${COLLIO_MPIRUN:-$(dirname "$0")/../../scripts/mpirun}
[ -n "$lib" ] && [ -f "$lib" ] || { echo "policy.sh: no interposer (COLLIO_MPIIO_LIB)"; exit 77; }
dir=$(mktemp -d "${COLLIO_TEST_TMPDIR:-${TMPDIR:-/tmp}}/policy.XXXXXX")
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
steps=24

# n OP WHY: the report's count of OP calls passed for WHY (a pattern), or taken
n() {
  sed -n "/collective $1 calls:/,/collective \(write\|read\) calls:\|auto priced/p" "$dir/report" |
    grep -E "passed to MPI: .*$2" | sed -n 's/.*passed to MPI: *\([0-9]*\) .*/\1/p' |
    awk '{s += $1} END {print s + 0}'
}
taken() { grep -m1 "collective $1 calls:" "$dir/report" | sed -n 's/.* \([0-9]*\) taken.*/\1/p'; }
run() { # HINTS [STEPS NX]
  local steps=${2:-$steps} nx=${3:-30000}
  rm -f "$dir/report" "$dir/log"
  COLLIO_HINTS="$1" COLLIO_MPIIO_REPORT="$dir/report" COLLIO_MPIIO_LOG=1 \
    COLLIO_CALIBRATION=$dir/cal.json \
    "$mpirun" "$np" sh -c 'LD_PRELOAD="'"$lib"'${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"' sh \
    "$prog" "$dir/data" --mode self --steps "$steps" --nx "$nx" --bx 100 \
    >"$dir/out" 2>"$dir/log" || fail "the program failed: $(tail -3 "$dir/out" "$dir/log")"
  grep -q "mode=self.*: ok" "$dir/out" || fail "the program's check: $(cat "$dir/out")"
  sed "s/^/  [report] /" "$dir/report"
  grep "collio_mpiio: rank 0: pattern" "$dir/log" | head -4 | sed "s/^/  [log] /"
}

echo "== collio slow on purpose: MPI keeps it"
run "auto.only=serial,serial.chunk_bytes=64"
for op in write read; do
  [ "$(n $op "MPI's own collective timed")" = 2 ] || fail "$op: not two trials of MPI's"
  # writes: collio's first (its plan), two timed; reads: the plan is the
  # writes', so two timed
  want=3
  [ $op = read ] && want=2
  [ "$(taken $op)" = $want ] || fail "$op: $(taken $op) taken, want $want"
  grep -q "rank 0: pattern .* $op: .*: MPI keeps it" "$dir/log" || fail "$op: no verdict for MPI"
  [ $(($(n $op "measured slower") + $(n $op "straight there"))) -ge $((steps - 5)) ] ||
    fail "$op: the calls after the verdict did not all go to MPI"
  [ "$(n $op "straight there")" -ge 1 ] || fail "$op: no streak"
done

echo "== as users run: the times decide"
run ""
for op in write read; do
  [ "$(n $op "MPI's own collective timed")" = 2 ] || fail "$op: not two trials of MPI's"
  v=$(grep -m1 "rank 0: pattern .* $op: " "$dir/log")
  if grep -q "collio keeps it" <<<"$v"; then
    [ "$(taken $op)" = $((steps - 2)) ] || fail "$op: collio keeps it, $(taken $op) taken"
  elif grep -q "MPI keeps it" <<<"$v"; then
    [ "$(taken $op)" -le 3 ] || fail "$op: MPI keeps it, $(taken $op) taken"
  else
    fail "$op: no verdict in the log"
  fi
  # the verdict follows the times it quotes
  python3 - "$v" <<'PY' || fail "$op: the verdict does not follow its times: $v"
import re, sys
m = re.search(r"collio ([0-9.e+-]+) s, MPI ([0-9.e+-]+) s .*: (\w+) keeps", sys.argv[1])
c, mpi, who = float(m.group(1)), float(m.group(2)), m.group(3)
sys.exit(0 if (who == "collio") == (c < 0.9 * mpi) else 1)
PY
done
echo "== a long streak: decided in full at its 256th, 512th ... call"
long=40000
run "auto.only=serial,serial.chunk_bytes=64" $long 3000
for op in write read; do
  full=$(n $op "measured slower") straight=$(n $op "straight there")
  echo "  $op: $full decided in full after the verdict, $straight straight"
  # the verdict's streak of 8 (CMIO_PASS_STREAK) and its resamples: at 256,
  # 512, ... 16384, 32768 -- 8 of them
  [ "$full" -ge 9 ] && [ "$full" -le 20 ] || fail "$op: $full calls decided in full"
  [ "$straight" -ge $((long - 30)) ] || fail "$op: only $straight calls straight to MPI"
done
[ $status = 0 ] && rm -rf "$dir" && echo "policy.sh: $np ranks: ok"
exit $status
