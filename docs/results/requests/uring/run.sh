#!/usr/bin/env bash
# Background file writes: collio's helper thread against io_uring, one
# writer (uring_probe.c). Needs liburing-dev (Debian). Outputs: node.txt
# (this machine's ext4), pfs.txt (a compute host of the GlusterFS testbed,
# 4 hosts x 2 at 100 Mbit/s, 2 storage hosts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../.."
mkdir -p build
cc -O2 -Wall -Wextra -o build/uring_probe "$here/uring_probe.c" -luring -lpthread
for k in 1024 64 4; do build/uring_probe /tmp 16 $k 7; done | tee "$here/node.txt"
COLLIO_HOSTS_RATE=100mbit scripts/pfs 4x2+2 sh -c \
  'scripts/mpirun 1 build/uring_probe "$COLLIO_PFS_DIR" 16 1024 5;
   scripts/mpirun 1 build/uring_probe "$COLLIO_PFS_DIR" 16 64 5' \
  | grep -v '^scripts/pfs' | tee "$here/pfs.txt"
