# seed004-fast-ethernet: seed 004 Figs. 16 and 19: 100 MB, P = 16 on 4 hosts x 4 ranks at 100 Mbit/s (the file on the machine's ext4, as the seeds' PVFS stayed on Myrinet)
COLLIO_HOSTS_RATE=100mbit scripts/hosts 4x4 scripts/results-run --inner seed004-fast-ethernet
# which runs, on the emulated hosts:
scripts/netrate 16 > docs/results/seeds/seed004-fast-ethernet/netrate-before.txt
scripts/mpirun 16 build/bench/collio-bench calibrate --dir results/seeds-data --out docs/results/seeds/seed004-fast-ethernet/calibration.json > docs/results/seeds/seed004-fast-ethernet/calibrate.txt
COLLIO_CALIBRATION=docs/results/seeds/seed004-fast-ethernet/calibration.json scripts/mpirun 16 build/bench/collio-bench vector --nx 26214400 --bx 1,16,256,4096,65536 --strategies independent,two_phase,multiphase,auto,block --exchange auto,hypercube --write-rounds -1 --reps 5 --max-time 30 --ops write --dir results/seeds-data --csv docs/results/seeds/seed004-fast-ethernet/vector-100MB-p16-4x4-100mbit.csv --quiet > docs/results/seeds/seed004-fast-ethernet/vector-100MB-p16-4x4-100mbit.txt
scripts/netrate 16 > docs/results/seeds/seed004-fast-ethernet/netrate-after.txt
