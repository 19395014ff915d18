# seed001-array-fast-ethernet: seed 001 Fig. 10: the same writes on 4 hosts x 2 ranks at 100 Mbit/s
COLLIO_HOSTS_RATE=100mbit scripts/hosts 4x2 scripts/results-run --inner seed001-array-fast-ethernet
# which runs, on the emulated hosts:
scripts/netrate 16 > docs/results/seeds/seed001-array-fast-ethernet/netrate-before.txt
scripts/mpirun 8 build/bench/collio-bench array --shape SL1,SL2,SL3 --strategies independent,multiphase,two_phase,serial,block --phases 1,2,3 --exchange hypercube --write-rounds -1 --reps 3 --max-time 30 --ops write --dir results/seeds-data --csv docs/results/seeds/seed001-array-fast-ethernet/array-p8-4x2-100mbit.csv --quiet > docs/results/seeds/seed001-array-fast-ethernet/array-p8-4x2-100mbit.txt
scripts/netrate 16 > docs/results/seeds/seed001-array-fast-ethernet/netrate-after.txt
