# The floor on the emulated cluster (docs/mpiio.md, "On a networked file
# system"): 4 hosts x 2 ranks, the file on GlusterFS (2 storage hosts),
# links unshaped, no calibration file; plain, write free
# (tools/mpiio-nullwrite.c) and with the interposer, one after the other.
o=docs/results/mpiio/floor/pfs
COLLIO_CALIBRATION=/nonexistent scripts/pfs 4x2+2 sh -c "
  scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
    --bx 1,16 --reps 3 --dir \"\$COLLIO_PFS_DIR\" > $o/plain.csv
  LD_PRELOAD=$PWD/build/mpiio-nullwrite.so \
    scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
    --bx 1,16 --reps 3 --dir \"\$COLLIO_PFS_DIR\" --no-verify > $o/nullwrite.csv
  LD_PRELOAD=$PWD/build/libcollio_mpiio.so COLLIO_MPIIO_REPORT=$PWD/$o/report.txt \
    scripts/mpirun 8 build/bench/collio-mpiio-bench --api mpiio,hdf5,pnetcdf \
    --bx 1,16 --reps 3 --dir \"\$COLLIO_PFS_DIR\" > $o/collio.csv"
