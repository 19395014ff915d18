#!/usr/bin/env bash
# A history file of 20 float64 variables of 3 decompositions (variable v
# of decomposition v mod 3), 16 ranks, pieces of one element dealt to
# random ranks, 4,000 per rank; medians of 5 records; a new empty HOME
# (no calibration). Outputs: decomps-node.txt, decomps-pfs.txt.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HOME=$(mktemp -d) scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --decomps 3 --pieces 4000 --run 1 --random 1 --reps 5 --dir /tmp \
  | tee docs/results/requests/decomps-node.txt
HOME=$(mktemp -d) scripts/pfs 4x4+2 sh -c 'scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --decomps 3 --pieces 4000 --run 1 --random 1 --reps 5 --dir "$COLLIO_PFS_DIR"' \
  | grep -v '^scripts/pfs' | tee docs/results/requests/decomps-pfs.txt

# A decomposition with holes (sparse layouts): the map generator of the
# tests (tests/e3sm_map_make.c) at 16 processes, D1 of 74,669 elements
# with every 7th held by nobody (64,002 held, single elements dealt at
# random); 20 variables of it. Outputs: sparse-node.txt, sparse-pfs.txt.
build/bench/e3sm_map_make /tmp/collio-map16.h5 16 74669
HOME=$(mktemp -d) scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --map /tmp/collio-map16.h5 --decomp 1 --reps 5 --dir /tmp \
  | tee docs/results/requests/sparse-node.txt
HOME=$(mktemp -d) scripts/pfs 4x4+2 sh -c 'scripts/mpirun 16 build/bench/collio-history \
  --vars 20 --map /tmp/collio-map16.h5 --decomp 1 --reps 5 --dir "$COLLIO_PFS_DIR"' \
  | grep -v '^scripts/pfs' | tee docs/results/requests/sparse-pfs.txt
