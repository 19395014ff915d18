/*
 * strategies/auto/autocal.h -- where strategy auto's costs come from
 * (autocal.c): the calibration file's entries that cover a plan, and the
 * measurement at a first call on a file system none covers.
 */
#ifndef COLLIO_AUTO_AUTOCAL_H
#define COLLIO_AUTO_AUTOCAL_H

/* Rank 0: the calibration (the file, cached per process) with only the
 * file system entries that cover a plan of `ranks` ranks, `rpn` on the
 * fullest node (collio_calibration_covers), then this process's own
 * measurements that the file could not take; measured[k] 1 for those, 0
 * for the file's. Its code, as collio_calibration_load's (the defaults in
 * *c on an error). */
int collio__auto_load(collio_calibration *c, int ranks, int rpn, char *measured);

/* Local: 0 where COLLIO_AUTO_CALIBRATE is "0" (never measure), else 1. */
int collio__auto_calibrate_env(void);

/* Collective over p's ranks: measures the file system of `where` (a file
 * or a directory; its directory's) at COLLIO_CALIBRATE_QUICK, its entry
 * into *fs and the machine's constants into *machine (from `from`, the
 * plan's calibration), on every rank; rank 0 adds them to the calibration
 * file (the machine's only where `from` came from no file), or keeps them
 * for the process where it cannot. key: the file system's
 * (collio__fs_key): one whose measurement failed in this process is not
 * measured again (COLLIO_ERR_IO at once). *seconds: the time it took.
 * The agreed code. */
int collio__auto_measure(collio_plan *p, const char *where, uint64_t key,
                         const collio_calibration *from, collio_calibration *machine,
                         collio_fs_costs *fs, double *seconds);

#endif /* COLLIO_AUTO_AUTOCAL_H */
