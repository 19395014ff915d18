#!/usr/bin/env bash
# The interposer's non-blocking calls (docs/mpiio.md, "Non-blocking
# calls"): collio-mpiio-history's 20 float64 variables of one
# decomposition (5,000 runs of ~100 elements per rank), one
# MPI_File_iwrite_at_all each, all started before one MPI_Waitall, against
# one MPI_File_write_at_all each; plainly and with libcollio_mpiio.so
# preloaded, with no calibration file (a new empty HOME and calibration
# path for every preloaded run), in turns, in one session. Run from the
# repository's root on a quiet machine: about 12 minutes.
#   history  16 ranks, 3 records a run, 2 rounds: plain blocking, plain
#            non-blocking (the MPI library's own iwrite_at_all), collio
#            blocking, collio non-blocking run in the starting calls (the
#            program at MPI_THREAD_SINGLE), collio non-blocking on collio's
#            helper thread (the program asks MPI_THREAD_MULTIPLE: --threads)
#   overlap  4 ranks, the same with --compute C between the starts and the
#            Waitall (every rank busy for C seconds, C = 0.25 s, about one
#            blocking record of collio's here), 5 records a run, 2 rounds
set -uo pipefail
o=docs/results/mpiio/nonblocking
d=${TMPDIR:-/tmp}/collio-nonblocking
mkdir -p "$d" "$o"
lib=$PWD/build/libcollio_mpiio.so
cal=$d/calibration.json
export COLLIO_CALIBRATION=$cal

# plain|collio NP PROGRAM ARGS...: one run, the interposer in the ranks'
# LD_PRELOAD for collio (before scripts/mpirun's own preloads)
run() {
  local mode=$1 np=$2
  shift 2
  if [ "$mode" = plain ]; then
    scripts/mpirun "$np" "$@"
  else
    rm -f "$cal" "$cal.lock"
    HOME=$(mktemp -d) scripts/mpirun "$np" \
      sh -c 'LD_PRELOAD="'"$lib"'${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"' sh "$@"
  fi
}

h="build/bench/collio-mpiio-history --vars 20 --pieces 5000 --run 100 --dir $d"
echo "part,lib,calls,round,vars,pieces,run,nprocs,bytes,seconds,median_call_s,open_close_s,mode,compute_s" \
  >"$o/history.csv"
for r in 1 2; do
  for c in "plain blocking" "plain nonblocking" "collio blocking" "collio nonblocking" \
           "collio threads"; do
    set -- $c
    args=()
    [ "$2" = nonblocking ] && args=(--nonblocking)
    [ "$2" = threads ] && args=(--nonblocking --threads)
    # shellcheck disable=SC2086
    run "$1" 16 $h --reps 3 "${args[@]}" | tail -n +2 | sed "s/^/history,$1,$2,$r,/" \
      >>"$o/history.csv"
  done
  for c in "plain nonblocking" "collio nonblocking" "collio threads"; do
    set -- $c
    args=(--nonblocking --compute 0.25)
    [ "$2" = threads ] && args+=(--threads)
    # shellcheck disable=SC2086
    run "$1" 4 $h --reps 5 "${args[@]}" | tail -n +2 | sed "s/^/overlap,$1,$2,$r,/" \
      >>"$o/history.csv"
  done
  for c in "plain blocking" "collio blocking"; do
    set -- $c
    # shellcheck disable=SC2086
    run "$1" 4 $h --reps 5 | tail -n +2 | sed "s/^/overlap,$1,$2,$r,/" >>"$o/history.csv"
  done
done
