#!/usr/bin/env bash
# autocal_race.sh MPIRUN BENCH DIR ROUNDS -- two MPI jobs, of 1 and of 3
# ranks (two rank layouts of one file system), start at once with the same
# calibration file that does not exist yet: each job's first auto write
# measures the file system (docs/auto.md, "Calibration without a step")
# and stores its entry at about the same moment, ROUNDS times, a fresh
# file each round. Afterwards the file must be one valid calibration
# (Python's json module, an independent reader) holding both jobs' quick
# entries, and no temporary of it may be left.
set -u
mpirun=$1 bench=$2 dir=$3 rounds=$4
mkdir -p "$dir"
status=0
for r in $(seq "$rounds"); do
  cal=$dir/collio-race-$$-$r.json
  rm -f "$cal" "$cal.lock"
  for np in 1 3; do
    COLLIO_CALIBRATION=$cal "$mpirun" "$np" "$bench" vector --nx 30000 --bx 16 \
      --strategies auto --reps 1 --ops write --dir "$dir" --quiet >/dev/null &
    eval "job$np=\$!"
  done
  wait "$job1"; r1=$?
  wait "$job3"; r3=$?
  [ $r1 = 0 ] && [ $r3 = 0 ] || { echo "FAIL: round $r: job exit codes $r1 and $r3"; status=1; }
  python3 - "$cal" <<'PY' || status=1
import json, sys
path = sys.argv[1]
c = json.load(open(path))
assert c["format"] == "collio-calibration" and c["version"] == 1, "not a calibration"
quick = sorted(fs["calls"]["ranks"] for fs in c["filesystems"] if fs.get("method") == "quick")
assert quick == [1, 3], f"{path}: quick entries of {quick} ranks, want both jobs' [1, 3]"
PY
  left=$(find "$dir" -maxdepth 1 -name "collio-race-$$-$r.json.tmp.*" | wc -l)
  [ "$left" = 0 ] || { echo "FAIL: round $r: $left temporaries left"; status=1; }
  rm -f "$cal" "$cal.lock"
done
[ $status = 0 ] && echo "autocal_race: $rounds rounds, the file valid with both jobs' entries"
exit $status
