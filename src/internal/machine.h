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

/* A 64-bit key of a file system's identity (type, mount point, source):
 * equal for equal identities (but for collisions), never 0. */
uint64_t collio__fs_key(const collio_fs_id *id);

#endif /* COLLIO_INTERNAL_MACHINE_H */
