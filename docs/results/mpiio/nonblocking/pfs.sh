#!/usr/bin/env bash
# The interposer's non-blocking calls on the emulated cluster (docs/pfs.md):
# 4 hosts x 2 ranks at 100 Mbit/s, the file on GlusterFS served by 2
# storage hosts, no calibration file. collio-mpiio-history's 4 float64
# variables of one decomposition (2,000 runs of ~100 elements per rank,
# 51 MB a record): blocking (write_at_all each) first, its median record W
# (records 2-5); then with --compute W between the starts and one
# MPI_Waitall: run by collio's helper thread (--threads) and in the
# starting calls (the program at MPI_THREAD_SINGLE). Run from the
# repository's root on a quiet machine: about 5 minutes.
set -uo pipefail
o=docs/results/mpiio/nonblocking
export COLLIO_CALIBRATION=/nonexistent
HOME=$(mktemp -d) COLLIO_HOSTS_RATE=100mbit scripts/pfs 4x2+2 sh -c '
  o='"$o"'
  h="build/bench/collio-mpiio-history --vars 4 --pieces 2000 --run 100 --reps 5 --dir $COLLIO_PFS_DIR"
  run() { LD_PRELOAD=$PWD/build/libcollio_mpiio.so COLLIO_MPIIO_REPORT=$o/pfs-report.txt \
          scripts/mpirun 8 $h "$@"; }
  run > $o/pfs-blocking.csv
  w=$(tail -n 4 $o/pfs-blocking.csv | cut -d, -f6 | sort -n | sed -n 2p)
  echo "compute: $w s (the median blocking record)"
  run --nonblocking --threads --compute "$w" > $o/pfs-threads.csv
  run --nonblocking --compute "$w" > $o/pfs-start.csv'
