# shellcheck shell=bash
# scripts/hosts-lib.sh -- the emulated cluster's machinery, sourced by
# scripts/hosts (compute hosts) and scripts/pfs (compute hosts + storage
# hosts serving a networked file system). Not a command of its own.
#
# A host is a Linux network namespace collioN with the address 10.77.0.N
# on eth0, joined to the bridge br-collio (10.77.0.1, the machine itself)
# by the veth pair cvethN / eth0. One emulated cluster at a time: the
# callers take /tmp/collio-hosts.lock (hosts_lock) and tear everything
# down on exit, and before they start, whatever a killed run left
# (hosts_teardown): the networked file system's mounts under
# $COLLIO_PFS_ROOT, the processes inside our namespaces (glusterd, bricks,
# FUSE clients, MPI daemons), the links, the namespaces, the bridge.
#
# The caller sets `prog` (its name, for messages) before sourcing.
prog=${prog:-scripts/hosts}

HOSTS_BR=br-collio
HOSTS_NET=10.77.0
HOSTS_LOCK=/tmp/collio-hosts.lock
# Where scripts/pfs keeps its state (glusterd's, the bricks, the mounts);
# fixed, so that the teardown finds what a killed run left there.
COLLIO_PFS_ROOT=/tmp/collio-pfs

hosts_skip() {
  echo "$prog: SKIPPED: $*" >&2
  if [ "${CI:-}" = true ]; then
    echo "$prog: under CI a skip is a failure" >&2
    exit 1
  fi
  exit 77
}

# hosts_parse SPEC: per_host (ranks of each compute host), nhosts, np.
hosts_parse() {
  local spec=$1 b
  per_host=()
  if [[ $spec =~ ^([0-9]+)x([0-9]+)$ ]]; then
    for ((b = 0; b < BASH_REMATCH[1]; b++)); do per_host+=("${BASH_REMATCH[2]}"); done
  elif [[ $spec =~ ^[0-9]+(\+[0-9]+)*$ ]]; then
    IFS=+ read -r -a per_host <<< "$spec"
  else
    echo "$prog: bad SPEC '$spec' (AxB or B1+B2+...)" >&2
    exit 2
  fi
  nhosts=${#per_host[@]}
  np=0
  for b in "${per_host[@]}"; do
    if [ "$b" -lt 1 ]; then echo "$prog: a host needs >= 1 rank" >&2; exit 2; fi
    np=$((np + b))
  done
  if [ "$nhosts" -lt 1 ] || [ "$nhosts" -gt 200 ]; then
    echo "$prog: 1..200 hosts" >&2
    exit 2
  fi
}

# hosts_check: root, iproute2, util-linux, an Open MPI build -- or skip.
hosts_check() {
  local here=$1 build mpiexec
  [ "$(id -u)" = 0 ] || hosts_skip "needs root to make network namespaces"
  command -v ip >/dev/null 2>&1 || hosts_skip "no 'ip' (iproute2)"
  command -v unshare >/dev/null 2>&1 || hosts_skip "no 'unshare' (util-linux)"
  if [ -n "${COLLIO_HOSTS_RATE:-}" ]; then
    command -v tc >/dev/null 2>&1 || hosts_skip "COLLIO_HOSTS_RATE needs 'tc' (iproute2)"
  fi
  build=${COLLIO_BUILD_DIR:-$here/build}
  mpiexec=${COLLIO_MPIEXEC:-}
  if [ -z "$mpiexec" ] && [ -s "$build/collio-mpiexec.txt" ]; then
    mpiexec=$(head -n1 "$build/collio-mpiexec.txt")
  fi
  "${mpiexec:-mpiexec}" --version 2>&1 | grep -q "Open MPI\|OpenRTE" ||
    hosts_skip "multi-host runs use Open MPI's rsh launcher; this build's MPI is not Open MPI"
}

hosts_lock() {
  exec 9> "$HOSTS_LOCK"
  flock 9
}

# Every host of ours and everything in it, also what a killed run left.
hosts_teardown() {
  local l ns m p pids=() socks=() i
  # 1. the networked file system's mounts (FUSE clients) under its root:
  # unmounted lazily, so that a client that no longer answers cannot
  # block us
  if [ -d "$COLLIO_PFS_ROOT" ]; then
    # (our mount points have no blanks: /proc/mounts would escape them)
    awk -v r="$COLLIO_PFS_ROOT/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r |
      while read -r m; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
      done
  fi
  # 2. every process inside our namespaces (glusterd, its bricks, FUSE
  # clients, MPI daemons of a killed run): ours, since the namespaces are
  for ns in $(ip netns list 2>/dev/null | awk '/^collio[0-9]+/ {print $1}'); do
    for p in $(ip netns pids "$ns" 2>/dev/null); do pids+=("$p"); done
  done
  if [ ${#pids[@]} -gt 0 ]; then
    # GlusterFS bricks keep their control socket in /var/run/gluster
    # whatever glusterd's run directory: note those of our bricks (-S)
    for p in "${pids[@]}"; do
      while read -r m; do socks+=("$m"); done < <(
        tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null | grep -A1 -x -- -S |
          grep '^/var/run/gluster/[0-9a-f]*\.socket$')
    done
    kill "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < 10; i++)); do
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && break; done || break
      sleep 0.1
    done
    kill -9 "${pids[@]}" 2>/dev/null || true
  fi
  [ ${#socks[@]} -eq 0 ] || rm -f "${socks[@]}"
  # 3. the links, the namespaces, the bridge. The veth ends are deleted
  # first and explicitly: the kernel frees a deleted namespace's devices
  # asynchronously, and a following run would find them still there.
  for l in $(ip -o link show 2>/dev/null | sed -n 's/^[0-9]*: \(cveth[0-9]*\)@.*/\1/p'); do
    ip link del "$l" 2>/dev/null || true
  done
  for ns in $(ip netns list 2>/dev/null | awk '/^collio[0-9]+/ {print $1}'); do
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$HOSTS_BR" 2>/dev/null || true
  # 4. the file system's state (glusterd's, the bricks) and the run's files
  if [ -d "$COLLIO_PFS_ROOT" ]; then
    rm -rf "$COLLIO_PFS_ROOT" 2>/dev/null || true
  fi
  rm -rf "${work:-}"
  # the run directories of killed runs (under the lock no other run lives)
  rm -rf /tmp/collio-hosts.??????
}

hosts_bridge() {
  ip link add "$HOSTS_BR" type bridge 2>/dev/null || hosts_skip "cannot create a bridge (no CAP_NET_ADMIN?)"
  ip addr add "$HOSTS_NET.1/24" dev "$HOSTS_BR"
  ip link set "$HOSTS_BR" up
}

# hosts_add N: host collioN at 10.77.0.N, its link shaped to
# COLLIO_HOSTS_RATE both ways where that is set.
hosts_add() {
  local h=$1 ns=collio$1
  ip netns add "$ns" || hosts_skip "cannot create network namespace $ns"
  ip link add "cveth$h" type veth peer name eth0 netns "$ns"
  ip link set "cveth$h" master "$HOSTS_BR" up
  ip netns exec "$ns" ip addr add "$HOSTS_NET.$h/24" dev eth0
  ip netns exec "$ns" ip link set eth0 up
  ip netns exec "$ns" ip link set lo up
  if [ -n "${COLLIO_HOSTS_RATE:-}" ]; then
    tc qdisc replace dev "cveth$h" root tbf rate "$COLLIO_HOSTS_RATE" burst 64kb latency 50ms
    ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate "$COLLIO_HOSTS_RATE" \
      burst 64kb latency 50ms
  fi
}

# hosts_compute: compute hosts 2 .. nhosts+1 and their hostfile in $work.
hosts_compute() {
  local i h
  : > "$work/hostfile"
  for ((i = 0; i < nhosts; i++)); do
    h=$((i + 2))
    hosts_add "$h"
    echo "$HOSTS_NET.$h slots=${per_host[$i]}" >> "$work/hostfile"
  done
}

# hosts_exec COMMAND...: runs it with the cluster's environment; exits
# with its status.
hosts_exec() {
  local rc
  export COLLIO_HOSTFILE=$work/hostfile COLLIO_HOSTS_NP=$np COLLIO_HOSTS_NET=$HOSTS_NET.0/24
  # Shaped links: each tbf queue holds up to 50 ms of data. With the
  # kernel's autotuned socket buffers every TCP flow keeps that queue full,
  # and the ACKs of the data coming the other way wait behind it, so
  # all-to-all traffic runs ~1.3x slower than the link. A 32 KiB send buffer
  # (64 KiB once the kernel doubles it: 5 ms at 100 Mbit/s) keeps the queues
  # short; scripts/mpirun and scripts/netrate use COLLIO_TCP_SNDBUF (docs/mpi.md).
  if [ -n "${COLLIO_HOSTS_RATE:-}" ]; then
    export COLLIO_TCP_SNDBUF=${COLLIO_TCP_SNDBUF:-32768}
  fi
  set +e
  # (without the lock's descriptor: what COMMAND leaves running after a
  # killed run must not hold the lock that the next run needs to clean up)
  "$@" 9>&-
  rc=$?
  set -e
  exit $rc
}
