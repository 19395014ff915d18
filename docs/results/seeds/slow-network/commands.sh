# slow-network: the seeds' slow network with a networked file system: scripts/pfs-results (4 hosts x 2 ranks, GlusterFS on 2 storage hosts, 100 Mbit/s and unshaped, beside ext4)
COLLIO_PFS_REPS=3 COLLIO_PFS_MAX_TIME=20 scripts/pfs-results docs/results/seeds/slow-network
