#!/usr/bin/env bash
# The interposer out of the box (docs/mpiio.md, "Never slower than the MPI
# library"): unmodified programs plainly and with libcollio_mpiio.so
# preloaded, with no calibration file (each preloaded run starts from a
# calibration path where nothing is: the first pattern of 1 MiB or more
# measures its file system in its first call), in turns, in one session.
# Run from the repository's root on a quiet machine: about 25 minutes
# (PARTS=... runs some: peers, history, ior).
#   peers    the 16 MB float32 vector, 8 ranks, MPI-IO / HDF5 / PnetCDF:
#            bx = 4096, 65536 (7 writes each), bx = 1, 16 (3 writes each),
#            2 rounds
#   history  20 float64 variables of one decomposition (5,000 runs of ~100
#            elements per rank), write_at_all each, 16 ranks, 5 records, 2
#            rounds
#   ior      IOR -a MPIIO -c -t 1k -b 64k -s 8 (shared file) and with -F
#            (a file per process), 20 iterations, Open MPI and MPICH
#            (the interposer built for each), 2 and 4 ranks, IOR_ROUNDS
#            rounds (4; 8 for docs/mpiio.md) -- an iteration takes a
#            millisecond: runs' mean bandwidths spread by 20 % and more
#            here, so every iteration is kept and compared by the median
# IOR is not part of this repository: IOR_OMPI and IOR_MPICH name its
# binaries built against each MPI (here: github.com/hpc/ior 5fcf0ba,
# ./configure CC=mpicc.openmpi / CC=mpicc.mpich).
set -uo pipefail
o=docs/results/mpiio/out-of-the-box
d=${TMPDIR:-/tmp}/collio-ootb
mkdir -p "$d" "$o"
lib=$PWD/build/libcollio_mpiio.so
lib_mpich=$PWD/build/libcollio_mpiio_mpich.so
ior_ompi=${IOR_OMPI:-/work/ior-openmpi/bin/ior}
ior_mpich=${IOR_MPICH:-/work/ior-mpich/bin/ior}
cal=$d/calibration.json
fresh() { rm -f "$cal" "$cal.lock"; }
export COLLIO_CALIBRATION=$cal

# plain|collio NP PROGRAM ARGS...: one run, the interposer in the ranks'
# LD_PRELOAD for collio (before scripts/mpirun's own preloads)
run() {
  local mode=$1 np=$2
  shift 2
  if [ "$mode" = plain ]; then
    scripts/mpirun "$np" "$@"
  else
    fresh
    scripts/mpirun "$np" sh -c 'LD_PRELOAD="'"${PRELOAD:-$lib}"'${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"' sh "$@"
  fi
}

peers() { # MODE ROUND BX REPS
  run "$1" 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf --bx "$3" \
    --reps "$4" --dir "$d" | sed "s/^/$1,$2,/" >>"$o/peers.csv"
}
parts=${PARTS:-peers history ior} # (a part alone: PARTS=ior)
if [[ " $parts " == *" peers "* ]]; then
  echo "mode,round,api,bx,rep,nprocs,bytes,seconds,open_close_seconds" >"$o/peers.csv"
  for r in 1 2; do
    for m in plain collio; do peers $m $r 4096,65536 7; done
    for m in plain collio; do peers $m $r 1,16 3; done
  done
fi

if [[ " $parts " == *" history "* ]]; then
  echo "mode,round,vars,pieces,run,nprocs,bytes,seconds,median_call_s,open_close_s" \
    >"$o/history.csv"
  for r in 1 2; do
    for m in plain collio; do
      run $m 16 build/bench/collio-mpiio-history --vars 20 --pieces 5000 --run 100 \
        --reps 5 --dir "$d" | tail -n +2 | sed "s/^/$m,$r,/" >>"$o/history.csv"
    done
  done
fi

# IOR: every iteration's line (write and read: its bandwidth, open,
# write/read, close and total seconds, its number)
if [[ " $parts " == *" ior "* ]]; then
  echo "mode,round,mpi,np,layout,op,bw_MiBs,open_s,wrrd_s,close_s,total_s,iter" >"$o/ior.csv"
fi
ior() { # MODE ROUND MPI NP LAYOUT
  local bin=$ior_ompi pre=$lib flags=()
  [ "$3" = mpich ] && bin=$ior_mpich pre=$lib_mpich && export COLLIO_MPIEXEC=/usr/bin/mpiexec.mpich
  [ "$5" = fpp ] && flags=(-F)
  PRELOAD=$pre run "$1" "$4" "$bin" -a MPIIO -c -t 1k -b 64k -s 8 -i 20 "${flags[@]}" \
    -o "$d/ior.dat" | awk -v p="$1,$2,$3,$4,$5" \
    '/^(write|read) / && NF == 11 {print p "," $1 "," $2 "," $7 "," $8 "," $9 "," $10 "," $11}' \
    >>"$o/ior.csv"
  unset COLLIO_MPIEXEC
}
for r in $(seq "${IOR_ROUNDS:-4}"); do
  [[ " $parts " == *" ior "* ]] || break
  for mpi in ompi mpich; do
    for np in 2 4; do
      for layout in shared fpp; do
        for m in plain collio; do ior $m $r $mpi $np $layout; done
      done
    done
  done
done
python3 "$o/report.py" "$o"
