#!/usr/bin/env bash
# concurrent_jobs.sh MPIRUN WRITER DIR NP ROUNDS -- two MPI jobs of NP
# ranks each write one target at the same time, ROUNDS times per strategy
# and backend (tests/concurrent_writer.c checks every commit: its close
# succeeds and the target is one job's whole vector). Afterwards no
# temporary of the target may be left, and the target must exist.
set -u
mpirun=$1 writer=$2 dir=$3 np=$4 rounds=$5
target=$dir/collio-concurrent-$$.bin
"$mpirun" "$np" "$writer" "$target" 42 "$rounds" & a=$!
"$mpirun" "$np" "$writer" "$target" 43 "$rounds" & b=$!
wait $a; ra=$?
wait $b; rb=$?
status=0
[ $ra = 0 ] && [ $rb = 0 ] || { echo "FAIL: job exit codes $ra and $rb"; status=1; }
left=$(find "$dir" -maxdepth 1 -name ".collio-concurrent-$$.bin.collio-tmp.*" | wc -l)
[ "$left" = 0 ] || { echo "FAIL: $left temporaries left"; status=1; }
[ -s "$target" ] || { echo "FAIL: no target"; status=1; }
rm -f "$target"
[ $status = 0 ] && echo "concurrent_jobs: both jobs committed every round, no temporary left"
exit $status
