#!/usr/bin/env bash
# A history file of 20 float64 variables of one decomposition, 16 ranks,
# pieces of one element dealt to random ranks, 4,000 per rank; medians of
# 5 records; a new empty HOME (no calibration). Outputs: history-node.txt,
# history-pfs.txt.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HOME=$(mktemp -d) scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --pieces 4000 --run 1 --random 1 --reps 5 --dir /tmp \
  | tee docs/results/requests/history-node.txt
HOME=$(mktemp -d) scripts/pfs 4x4+2 sh -c 'scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --pieces 4000 --run 1 --random 1 --reps 5 --dir "$COLLIO_PFS_DIR"' \
  | grep -v '^scripts/pfs' | tee docs/results/requests/history-pfs.txt
