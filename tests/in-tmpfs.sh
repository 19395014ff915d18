#!/bin/sh
# tests/in-tmpfs.sh DIR SIZE COMMAND... -- run COMMAND in a private mount
# namespace (unshare -m) where a tmpfs of SIZE is mounted over DIR: a small
# /dev/shm, or a full disk, for the fault-injection tests. Nothing outside
# the namespace sees the mount; it is gone when COMMAND ends.
# Without root or unshare it says why and exits 77 (ctest's skip code);
# under CI (CI=true) that is a failure (exit 1).
set -u
[ $# -ge 3 ] || { echo "usage: tests/in-tmpfs.sh DIR SIZE COMMAND..." >&2; exit 2; }
dir=$1 size=$2
shift 2
skip() {
  echo "in-tmpfs: SKIPPED: $*" >&2
  [ "${CI:-}" = true ] && { echo "in-tmpfs: under CI a skip is a failure" >&2; exit 1; }
  exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root to mount a tmpfs"
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
mkdir -p "$dir" || exit 1
unshare -m true 2>/dev/null || skip "cannot make a mount namespace (unshare -m)"
# make the mount private first, so that it cannot propagate to the host
exec unshare -m --propagation private sh -c '
  mount -t tmpfs -o size="$1" collio-test "$2" || exit 1
  shift 2
  exec "$@"' in-tmpfs "$size" "$dir" "$@"
