#!/usr/bin/env bash
# tests/pfs_fault.sh MPIRUN NP PROGRAM CASE... -- inside scripts/pfs: runs
# PROGRAM (tests/pfs_fault.c) on NP ranks with a control directory of its
# own and serves its requests there: cut-K names a storage host N, whose
# link goes down (its end on the bridge, cvethN: the host is unreachable,
# as if its network or its server failed); restore-K brings every cut
# link back. Each answered by a file NAME.done. Every link is restored on
# exit, whatever happens.
set -euo pipefail
if [ $# -lt 4 ] || [ -z "${COLLIO_PFS_DIR:-}" ]; then
  echo "usage: tests/pfs_fault.sh MPIRUN NP PROGRAM CASE... (inside scripts/pfs)" >&2
  exit 2
fi
mpirun=$1 np=$2 prog=$3
shift 3
ctl=$(mktemp -d /tmp/collio-pfs-fault.XXXXXX)
cut=()
restore() {
  local h
  for h in "${cut[@]}"; do ip link set "cveth$h" up || true; done
  cut=()
}
trap 'restore; rm -rf "$ctl"' EXIT

"$mpirun" "$np" "$prog" "$ctl" "$@" &
pid=$!
k=0
while kill -0 "$pid" 2>/dev/null; do
  if [ -f "$ctl/cut-$k" ] && [ ! -f "$ctl/cut-$k.done" ]; then
    h=$(head -n1 "$ctl/cut-$k")
    if [[ $h =~ ^[0-9]+$ ]] && ip link show "cveth$h" >/dev/null 2>&1; then
      ip link set "cveth$h" down
      cut+=("$h")
      echo "pfs_fault.sh: storage host 10.77.0.$h cut off" >&2
    fi
    touch "$ctl/cut-$k.done"
  fi
  if [ -f "$ctl/restore-$k" ]; then
    restore
    echo "pfs_fault.sh: links restored" >&2
    touch "$ctl/restore-$k.done"
    k=$((k + 1))
  fi
  sleep 0.05
done
set +e
wait "$pid"
rc=$?
exit $rc
