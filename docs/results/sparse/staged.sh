#!/usr/bin/env bash
# Sparse writes and reads before and after the staging of short runs
# (src/files/holes.c, commit c0c555b): the commit before it built in
# /tmp/collio-before-staging, the current tree in build/, alternating in
# one session, one HOME for both (the first run measures the file system
# for auto, the rest find it). Outputs: staged-{node,pfs}-{before,after}-R.csv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
old=/tmp/collio-before-staging
if [ ! -x "$old/build/bench/collio-bench" ]; then
  rm -rf "$old"
  mkdir -p "$old"
  git -C "$repo" archive c0c555b^ | tar -x -C "$old"
  cmake -S "$old" -B "$old/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  make -C "$old/build" -j2 collio-bench >/dev/null
fi
cd "$repo"
export HOME=$(mktemp -d)
mkdir -p /tmp/sb
for r in 1 2; do
  for v in before after; do
    bin=build/bench/collio-bench
    [ $v = before ] && bin=$old/build/bench/collio-bench
    scripts/mpirun 8 $bin sparse --nx 4194304 --bx 1,16,256 \
      --strategies serial,multiphase,auto,block --reps 7 --max-time 5 \
      --ops write,read --dir /tmp/sb --csv "$here/staged-node-$v-$r.csv" >/dev/null
  done
done
scripts/pfs 4x2+2 sh -c "
  for v in before after; do
    bin=build/bench/collio-bench
    [ \$v = before ] && bin=$old/build/bench/collio-bench
    scripts/mpirun 8 \$bin sparse --nx 1048576 --bx 1,16,256,4096 \
      --strategies serial,multiphase,auto,block --reps 3 --max-time 5 \
      --ops write,read --dir \"\$COLLIO_PFS_DIR\" --csv $here/staged-pfs-\$v-1.csv >/dev/null
  done" | grep -v '^scripts/pfs'
python3 "$here/staged_report.py" "$here"
