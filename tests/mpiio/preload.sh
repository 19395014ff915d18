#!/bin/sh
# tests/mpiio/preload.sh LIB PROGRAM [ARGS...] -- run PROGRAM (one rank of
# a launched job) with LIB preloaded in front of whatever LD_PRELOAD the
# launcher gives it (scripts/mpirun preloads a shim under MPICH).
lib=$1
shift
LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"
