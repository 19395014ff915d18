#!/usr/bin/env bash
# tests/checks_catch.sh -- the structure checks fail where they should:
# scripts/check-cycles on small trees with a circle through each kind of
# name it follows -- a library file calling an MPI entry point the
# interposer defines (through its naming macro), the interposer calling
# the library's public API; internal names; an object's initializer --
# and passes the same trees without it. Independent of the real sources:
# the trees are written here.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d "${TMPDIR:-/tmp}/checks.XXXXXX")
trap 'rm -rf "$t"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
tree() { rm -rf "$t/r"; mkdir -p "$t/r/src/files" "$t/r/src/core" "$t/r/interposer"; }
expect() { # WANT(0|1) WHAT
  "$here/scripts/check-cycles" --root "$t/r" >"$t/out" 2>&1
  local rc=$?
  sed "s/^/  /" "$t/out"
  [ "$rc" = "$1" ] || fail "$2: check-cycles exited $rc, not $1"
}

echo "== the interposer's circle: the library opens through MPI_File_open"
tree
cat >"$t/r/src/files/file.c" <<'C'
int collio_file_open(int comm, const char *path)
{
    return MPI_File_open(comm, path, 0, 0, 0);
}
C
cat >"$t/r/interposer/wrappers.c" <<'C'
#define CMIO_NAME(name) name
static int track(int comm, const char *path) { return collio_file_open(comm, path); }
int CMIO_NAME(MPI_File_open)(int comm, const char *path, int amode, int info, void *fh)
{
    int rc = PMPI_File_open(comm, path, amode, info, fh);
    return rc ? rc : track(comm, path);
}
C
expect 1 "library -> interposer -> library"
grep -q "src/files/file.c -> interposer/wrappers.c (MPI_File_open)" "$t/out" ||
  fail "the cycle does not name MPI_File_open"
echo "== the same, the library through PMPI"
sed -i 's/return MPI_File_open/return PMPI_File_open/' "$t/r/src/files/file.c"
expect 0 "through PMPI"

echo "== internal names and an object's initializer"
tree
cat >"$t/r/src/core/plan.c" <<'C'
const int collio__plan_table = 3;
int collio__plan_make(void) { return collio__file_size(); }
C
cat >"$t/r/src/files/file.c" <<'C'
struct opts { int collio__plan_make; };
int collio__file_size(void) { return collio__plan_table; }
C
expect 1 "plan.c -> file.c -> plan.c (an object)"
echo "== a member of the same name is not a use"
sed -i 's/return collio__plan_table;/struct opts o = {0}; return o.collio__plan_make;/' \
  "$t/r/src/files/file.c"
expect 0 "a member"
echo "== a static struct object is not shared"
cat >"$t/r/src/files/file.c" <<'C'
static struct {
    int n;
} collio__plan_table = {0};
int collio__file_size(void) { return collio__plan_table.n; }
C
expect 0 "a file's own static struct"

exit $status
