#!/usr/bin/env bash
# tests/mpiio/compare.sh [--kind K] [--bytes] [--writes-taken] [--first-deferred] [--trial] [--unreached] [--keep] NP PROGRAM [ARGS...]
#
# Runs PROGRAM (one of tests/mpiio/io_*: it takes the output file as its
# first argument, writes, reads back and checks itself) on NP ranks twice:
# once plainly, once with the MPI-IO interposer LD_PRELOAD'ed
# ($COLLIO_MPIIO_LIB, e.g. build/libcollio_mpiio.so), each writing its own
# file, then compares the two files:
#   mpiio, pnetcdf  byte for byte (cmp); for pnetcdf also ncmpidump's
#                   output, to show where a difference lies
#   hdf5, netcdf4   h5dump -p output without its first line (the file
#                   name); ncdump's too where installed (netcdf4). Byte
#                   identity is reported, and required with --bytes (HDF5
#                   with --notimes and netCDF-4 files are deterministic)
# The sizes must be equal for every kind. The kind comes from PROGRAM's
# name (io_KIND) unless --kind says it. With --writes-taken, the preloaded
# run's COLLIO_MPIIO_REPORT must show every collective write taken by
# collio (none passed to MPI): a regression that hands calls back to MPI
# leaves the files equal, so only this catches it. With --first-deferred
# the report must show the first collective write passed to MPI as the
# first call of a pattern of large pieces (take.c) and every later write
# taken: at least two writes of one pattern. With --trial it must show the
# first write taken (its plan made) and the second handed to MPI as the
# timed trial of MPI's own collective (interposer/policy.c), every other
# write taken: at least two writes of one pattern.
# Each program prints which library MPI_File_open resolves to: the plain
# run must not get the interposer, the preloaded one must (so a preload the
# dynamic linker ignored fails the comparison) -- unless --unreached says
# that this program's route to MPI-IO passes the interposer by (MPICH's
# `use mpi_f08`, docs/mpiio.md): then neither run may get it, and the
# preloaded run's file must still equal the plain one's.
#
# Without COLLIO_MPIIO_LIB (unset, empty, or no such file) it runs the plain
# program twice and says so: the harness and the programs can be tested
# before the interposer exists.
#
# Environment: COLLIO_MPIIO_LIB (above); COLLIO_MPIRUN, the launcher
# (default scripts/mpirun of this repository, which honours
# COLLIO_BUILD_DIR); COLLIO_TEST_TMPDIR, where the files go (default
# $TMPDIR or /tmp; a fresh directory inside, removed on success unless
# --keep). Exit status: 0 equal, 1 a run failed or the files differ
# (the first difference is printed), 2 usage, 77 the program skipped
# itself (its plain run exited 77: e.g. no MPI-4 large-count forms).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kind="" bytes=0 keep=0 taken=0 deferred=0 trial=0 unreached=0
while [ $# -gt 0 ]; do
  case $1 in
    --kind) kind=$2; shift 2 ;;
    --kind=*) kind=${1#--kind=}; shift ;;
    --bytes) bytes=1; shift ;;
    --keep) keep=1; shift ;;
    --writes-taken) taken=1; shift ;;
    --first-deferred) deferred=1; shift ;;
    --trial) trial=1; shift ;;
    --unreached) unreached=1; shift ;;
    --) shift; break ;;
    -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: compare.sh [--kind mpiio|hdf5|pnetcdf|netcdf4] [--bytes] [--writes-taken] [--first-deferred] [--trial] [--unreached] [--keep] NP PROGRAM [ARGS...]" >&2
  exit 2
fi
np=$1 prog=$2
shift 2
if [ -z "$kind" ]; then
  case $(basename "$prog") in
    io_mpiio*) kind=mpiio ;;
    io_hdf5*) kind=hdf5 ;;
    io_pnetcdf*) kind=pnetcdf ;;
    io_netcdf4*) kind=netcdf4 ;;
    *) echo "compare.sh: cannot tell the kind of $prog: give --kind" >&2; exit 2 ;;
  esac
fi
case $kind in
  mpiio) ext=dat ;; hdf5) ext=h5 ;; pnetcdf|netcdf4) ext=nc ;;
  *) echo "compare.sh: unknown kind $kind" >&2; exit 2 ;;
esac
mpirun=${COLLIO_MPIRUN:-$here/../../scripts/mpirun}
base=${COLLIO_TEST_TMPDIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
dir=$(mktemp -d "$base/mpiio-compare.XXXXXX") || exit 1

lib=${COLLIO_MPIIO_LIB:-}
if [ -n "$lib" ] && [ ! -f "$lib" ]; then
  echo "compare.sh: COLLIO_MPIIO_LIB=$lib does not exist: running the plain program twice (no interposer)"
  lib=""
elif [ -z "$lib" ]; then
  echo "compare.sh: COLLIO_MPIIO_LIB unset: running the plain program twice (no interposer)"
fi
[ -z "$lib" ] || lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

fail() {
  echo "compare.sh: FAIL: $*" >&2
  echo "compare.sh: files kept in $dir" >&2
  exit 1
}

# run NAME PRELOAD: runs the program into $dir/NAME.$ext, output in NAME.log
run() {
  local name=$1 pre=$2 out=$dir/$1.$ext log=$dir/$1.log rc
  shift 2
  if [ -n "$pre" ]; then
    # the program gets the interposer in front of whatever LD_PRELOAD the
    # launcher gives the ranks (scripts/mpirun preloads a shim under MPICH)
    # shellcheck disable=SC2016 # expanded by the ranks' shell
    COLLIO_MPIIO_REPORT=$dir/$name.report \
      "$mpirun" "$np" /bin/sh -c 'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"' \
      "$pre" "$prog" "$out" "$@" >"$log" 2>&1
  else
    "$mpirun" "$np" "$prog" "$out" "$@" >"$log" 2>&1
  fi
  rc=$?
  sed "s/^/  [$name] /" "$log"
  if [ $rc = 77 ] && [ "$name" = plain ]; then # the program says: not here
    echo "compare.sh: the program skipped itself (exit 77)"
    rm -rf "$dir"
    exit 77
  fi
  [ $rc = 0 ] || fail "the $name run exited with status $rc"
  [ -f "$out" ] || fail "the $name run wrote no $out"
  if grep -q "cannot be preloaded" "$log"; then
    fail "the dynamic linker did not preload $pre"
  fi
  local from
  from=$(grep -m1 ": MPI_File_open from " "$log" | sed 's/.* from //')
  [ -n "$from" ] || fail "the $name run did not say where MPI_File_open comes from"
  if [ -n "$pre" ] && [ $unreached = 1 ]; then
    [ "$(basename "$from")" != "$(basename "$pre")" ] ||
      fail "--unreached: with LD_PRELOAD, MPI_File_open comes from the interposer ($from)"
  elif [ -n "$pre" ]; then
    [ "$(basename "$from")" = "$(basename "$pre")" ] ||
      fail "with LD_PRELOAD, MPI_File_open comes from '$from', not $pre"
  elif [ -n "$lib" ] && [ "$(basename "$from")" = "$(basename "$lib")" ]; then
    fail "the plain run got the interposer ($from)"
  fi
}

run plain "" "$@"
if [ -n "$lib" ]; then
  run collio "$lib" "$@"
  b=collio
  # MPICH names the MPI objects a process left allocated at MPI_Finalize:
  # the interposer must leave none beyond the program's own
  leaks() { grep -c "leaked handle pool objects" "$dir/$1.log"; }
  [ "$(leaks collio)" -le "$(leaks plain)" ] ||
    fail "the collio run left MPI objects allocated ($(leaks collio) leak lines, plain $(leaks plain))"
  sed "s/^/  [report] /" "$dir/collio.report" 2>/dev/null
  # the report's collective writes: seen and taken
  w=$(grep -m1 "collective write calls:" "$dir/collio.report" 2>/dev/null)
  seen=$(sed -n 's/.*calls: \([0-9]*\) seen.*/\1/p' <<<"$w")
  took=$(sed -n 's/.* \([0-9]*\) taken.*/\1/p' <<<"$w")
  if [ $taken = 1 ]; then
    [ -n "$seen" ] && [ "$seen" -gt 0 ] && [ "$seen" = "$took" ] ||
      fail "--writes-taken: collio took ${took:-?} of ${seen:-?} collective writes (report: $dir/collio.report)"
    # and it says which file costs auto priced them with: one count per
    # call auto ran, at most every call taken (a forced strategy's none)
    r=$(grep -m1 "collective read calls:" "$dir/collio.report" 2>/dev/null)
    rtook=$(sed -n 's/.* \([0-9]*\) taken.*/\1/p' <<<"$r")
    p=$(grep -m1 "auto priced the file system" "$dir/collio.report" 2>/dev/null)
    nums=$(grep -o '[0-9][0-9]*' <<<"$p" | paste -sd+)
    priced=$((${nums:-0}))
    [ -n "$priced" ] && [ "$priced" -gt 0 ] && [ "$priced" -le $((took + ${rtook:-0})) ] ||
      fail "--writes-taken: the report does not say how auto priced ${priced:-no} of its $((took + ${rtook:-0})) calls (report: $dir/collio.report)"
  fi
  if [ $trial = 1 ]; then
    wsec=$(sed -n '/collective write calls:/,/collective read calls:/p' "$dir/collio.report")
    made=$(grep -c " 1 first of a pattern (plan made)" <<<"$wsec")
    tried=$(grep -c "passed to MPI: *1 .*MPI's own collective timed" <<<"$wsec")
    [ -n "$seen" ] && [ "$seen" -ge 2 ] && [ "$took" = $((seen - 1)) ] && [ "$made" = 1 ] &&
      [ "$tried" = 1 ] ||
      fail "--trial: collio took ${took:-?} of ${seen:-?} collective writes, plans made at a first write: ${made:-0}, MPI's timed: ${tried:-0} (report: $dir/collio.report)"
  fi
  if [ $deferred = 1 ]; then
    # the write section's lines, up to the read section
    first=$(sed -n '/collective write calls:/,/collective read calls:/p' "$dir/collio.report" |
      grep -c "passed to MPI: *1 .*the first call of a pattern of large pieces")
    [ -n "$seen" ] && [ "$seen" -ge 2 ] && [ "$took" = $((seen - 1)) ] && [ "$first" = 1 ] ||
      fail "--first-deferred: collio took ${took:-?} of ${seen:-?} collective writes, the first of a pattern deferred: ${first:-0} (report: $dir/collio.report)"
  fi
else
  run plain2 "" "$@"
  b=plain2
fi
fa=$dir/plain.$ext fb=$dir/$b.$ext
echo "compare.sh: $kind, $np ranks: comparing plain.$ext and $b.$ext"

# dump_diff TOOL: the tools' output without the first line (it names the file)
dump_diff() {
  local tool=$1
  shift
  "$tool" "$@" "$fa" 2>&1 | tail -n +2 >"$dir/plain.$tool.txt"
  "$tool" "$@" "$fb" 2>&1 | tail -n +2 >"$dir/$b.$tool.txt"
  if ! diff -q "$dir/plain.$tool.txt" "$dir/$b.$tool.txt" >/dev/null; then
    echo "compare.sh: $tool output differs (first differences, plain < > $b):" >&2
    diff "$dir/plain.$tool.txt" "$dir/$b.$tool.txt" | head -n 20 >&2
    return 1
  fi
  echo "compare.sh: $tool output identical ($(wc -l <"$dir/plain.$tool.txt") lines)"
}

# byte_cmp [quiet]: cmp; details of the first difference unless quiet
byte_cmp() {
  local first
  if first=$(cmp "$fa" "$fb" 2>&1); then
    echo "compare.sh: files identical byte for byte"
    return 0
  fi
  if [ "${1:-}" = quiet ]; then
    echo "compare.sh: bytes differ: ${first##*differ: }"
    return 1
  fi
  echo "compare.sh: files differ: $first" >&2
  # the first differing byte: its offset, the float32 element it belongs to
  # in a raw vector file, and the bytes around it
  local off
  off=$(sed -n 's/.*byte \([0-9]*\).*/\1/p' <<<"$first")
  if [ -n "$off" ]; then
    # "differ: byte N" counts from 1; "EOF on A after byte N": A ends at N
    case $first in *EOF*) ;; *) off=$((off - 1)) ;; esac
    local start=$((off / 16 * 16))
    echo "  first difference at byte offset $off (float32 element $((off / 4)) of a raw vector)" >&2
    echo "  plain:" >&2
    od -A d -t x1 -j "$start" -N 32 "$fa" | sed 's/^/    /' >&2
    echo "  $b:" >&2
    od -A d -t x1 -j "$start" -N 32 "$fb" | sed 's/^/    /' >&2
    echo "  ($(cmp -l "$fa" "$fb" 2>/dev/null | wc -l) bytes differ within the shorter length)" >&2
  fi
  return 1
}

status=0
sa=$(stat -c %s "$fa") sb=$(stat -c %s "$fb")
if [ "$sa" != "$sb" ]; then
  echo "compare.sh: sizes differ: plain.$ext $sa bytes, $b.$ext $sb bytes" >&2
  status=1
fi
case $kind in
  mpiio)
    byte_cmp || status=1
    ;;
  pnetcdf)
    if ! byte_cmp; then
      status=1
      if command -v ncmpidump >/dev/null; then dump_diff ncmpidump; fi
    fi
    ;;
  hdf5 | netcdf4)
    command -v h5dump >/dev/null || fail "h5dump missing (apt-get install hdf5-tools)"
    dump_diff h5dump -p || status=1
    if [ "$kind" = netcdf4 ] && command -v ncdump >/dev/null; then
      dump_diff ncdump || status=1
    fi
    if [ $bytes = 1 ]; then
      byte_cmp || status=1
    elif ! byte_cmp quiet; then
      echo "compare.sh: (allowed for $kind without --bytes: HDF5 object modification times)"
    fi
    ;;
esac
if [ $status != 0 ]; then
  fail "plain.$ext and $b.$ext differ"
fi
if [ $keep = 1 ]; then
  echo "compare.sh: files kept in $dir"
else
  rm -rf "$dir"
fi
echo "compare.sh: OK ($kind, $np ranks${lib:+, interposer $(basename "$lib")})"
exit 0
