/*
 * internal/machine.h -- the machine's constants for the cost model
 * (machine/calibration.c) and which file system holds a path
 * (machine/fs_id.c). Part of collio_internal.h, which includes every part
 * in order.
 */
#ifndef COLLIO_INTERNAL_MACHINE_H
#define COLLIO_INTERNAL_MACHINE_H

/* The file costs of a file system no calibration measured (type
 * "default"; docs/auto.md lists them). */
void collio__fs_costs_default(collio_fs_costs *fs);

#endif /* COLLIO_INTERNAL_MACHINE_H */
