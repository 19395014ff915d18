# The floor of each API's write call: the same workload plain, with the
# write free (tools/mpiio-nullwrite.c) and with the interposer, in one
# session, one after the other (docs/mpiio.md, "Measured").
d=/tmp/mb; o=docs/results/mpiio/floor; mkdir -p $d
scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
  --bx 1,16,256,4096,65536 --reps 3 --dir $d > $o/plain.csv
LD_PRELOAD=$PWD/build/mpiio-nullwrite.so \
  scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
  --bx 1,16,256,4096,65536 --reps 3 --dir $d --no-verify > $o/nullwrite.csv
LD_PRELOAD=$PWD/build/libcollio_mpiio.so COLLIO_MPIIO_REPORT=$o/report.txt \
  scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
  --bx 1,16,256,4096,65536 --reps 3 --dir $d > $o/collio.csv
