# The model with the replicas' work priced (docs/auto.md, "replicas"):
# the 33k device mesh at P = 4, 8, 16, loads 1..500, every strategy and
# auto, write and read, 3 reps, with seed 000's mesh calibration, so that
# the predictions compare with docs/results/seeds/seed000-decision-mesh/'s
# (the same runs without the term). 2026-11-28, ~4 minutes.
for P in 4 8 16; do
  COLLIO_CALIBRATION=docs/results/seeds/seed000-decision-mesh/calibration.json \
    scripts/mpirun $P build/bench/collio-bench mesh --mesh results/meshes/device-33k.msh \
    --load 1,10,50,100,500 --reps 3 --max-time 10 --ops write,read --dir /tmp/md \
    --csv docs/results/auto/replicas-term/mesh-33k-p$P.csv --quiet
done
python3 scripts/auto_report.py docs/results/auto/replicas-term/*.csv
