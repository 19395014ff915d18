#!/usr/bin/env bash
# tests/mpiio/bench_floor.sh NP BENCH NULLWRITE [APIS]
#
# collio-mpiio-bench (BENCH) on NP ranks, small, three ways:
#   plain                      its read-back verifies (exit 0), and the
#                              MPI-IO file holds every element (nx * 4 bytes)
#   with the interposer        the same ($COLLIO_MPIIO_LIB; skipped where
#                              it is not set)
#   under NULLWRITE (tools/mpiio-nullwrite.c), --no-verify
#                              every timed write returns, and the MPI-IO
#                              file stays empty: the shim wrote nothing, so
#                              its times are the floor it claims to measure
# Each run prints one CSV line per (api, bx, rep): the count is checked.
# APIS: the bench's --api list (default mpiio). Environment: COLLIO_MPIRUN
# (default scripts/mpirun of this repository), COLLIO_TEST_TMPDIR.
# Exit status 0 ok, 1 a check failed, 2 usage.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 NP BENCH NULLWRITE [APIS]" >&2; exit 2; }
np=$1 bench=$2 null=$3 apis=${4:-mpiio}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mpirun=${COLLIO_MPIRUN:-$here/scripts/mpirun}
tmp=$(mktemp -d "${COLLIO_TEST_TMPDIR:-${TMPDIR:-/tmp}}/bench_floor.XXXXXX")
nx=10007 bxs=1,7 reps=2
napi=$(echo "$apis" | tr ',' '\n' | wc -l)
want_lines=$((napi * 2 * reps))
fail() { echo "bench_floor: $*" >&2; exit 1; }

# run NAME [env...] -- [bench options...]
run() {
    local name=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    mkdir -p "$tmp/$name"
    env "${envs[@]}" "$mpirun" "$np" "$bench" --api "$apis" --nx $nx --bx $bxs \
        --reps $reps --dir "$tmp/$name" --keep "$@" > "$tmp/$name.csv" \
        || fail "$name: collio-mpiio-bench failed (exit $?)"
    local lines
    lines=$(grep -c -v '^api,' "$tmp/$name.csv")
    [ "$lines" = "$want_lines" ] || fail "$name: $lines CSV lines, expected $want_lines"
}

mpiio_size() { stat -c %s "$tmp/$1/collio-mpiio-bench-mpiio.dat"; }

run plain --
case ",$apis," in
    *,mpiio,*)
        [ "$(mpiio_size plain)" = $((nx * 4)) ] \
            || fail "plain: the MPI-IO file has $(mpiio_size plain) bytes, expected $((nx * 4))"
        ;;
esac
if [ -n "${COLLIO_MPIIO_LIB:-}" ] && [ -f "$COLLIO_MPIIO_LIB" ]; then
    run collio LD_PRELOAD="$COLLIO_MPIIO_LIB" --
else
    echo "bench_floor: no COLLIO_MPIIO_LIB: the interposer's run skipped"
fi
run nullwrite LD_PRELOAD="$null" -- --no-verify
case ",$apis," in
    *,mpiio,*)
        [ "$(mpiio_size nullwrite)" = 0 ] \
            || fail "nullwrite: the MPI-IO file has $(mpiio_size nullwrite) bytes: the shim wrote"
        ;;
esac
rm -rf "$tmp"
echo "bench_floor: ok ($apis, $np ranks)"
