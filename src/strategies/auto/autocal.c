/*
 * strategies/auto/autocal.c -- where strategy auto's costs come from: the
 * calibration file (read by rank 0, cached per process), the entries of
 * it that cover a plan's rank layout, and -- where no entry covers the
 * file system of a call -- a measurement made there and then
 * (collio_calibrate at COLLIO_CALIBRATE_QUICK, in the file's directory)
 * and kept in the calibration file for later runs (docs/auto.md,
 * "Calibration without a step").
 *
 * A measurement that could not be stored (a read-only home) is kept by
 * rank 0 for the process, so that the next plan whose rank 0 it is finds
 * it; a file system whose measurement failed (a directory it cannot write
 * to) is not measured again by the process. Both lists are rank 0's:
 * what it says is what every rank of a plan does (inputs.c, and one
 * broadcast below).
 */
#include "base/base.h"
#include "machine/machine.h"
#include "core/core.h"
#include "autocal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* This process's measurements that the calibration file does not hold
 * (storing failed), and file systems whose measurement failed. */
#define KEPT_MAX 8
static collio_fs_costs kept[KEPT_MAX];
static int nkept;
static uint64_t failed_key[KEPT_MAX];
static int nfailed;

/* Rank 0: the calibration file at the default path, read again only when
 * the path, its size or its modification time changed since the last
 * plan of this process (plans are made often; the file rarely changes).
 * Its code, as collio_calibration_load's. Not thread safe, as plan
 * creation is not. */
static int cached_load(collio_calibration *c)
{
    static char path[4096];
    static struct stat seen;
    static int have, code;
    static collio_calibration cache;
    char now[4096];
    struct stat st;
    int rc = collio_calibration_path(now, sizeof now);
    int exists = rc == COLLIO_OK && stat(now, &st) == 0;
    if (exists && have && strcmp(now, path) == 0 && st.st_size == seen.st_size
        && st.st_mtim.tv_sec == seen.st_mtim.tv_sec
        && st.st_mtim.tv_nsec == seen.st_mtim.tv_nsec && st.st_ino == seen.st_ino) {
        *c = cache;
        return code;
    }
    rc = rc == COLLIO_OK ? collio_calibration_load(now, c) : rc;
    if (rc != COLLIO_OK)
        collio_calibration_defaults(c);
    collio__error_begin(); /* advice, not an error of this plan */
    have = exists;         /* a missing file is looked for again next time */
    if (exists)
        seen = st;
    snprintf(path, sizeof path, "%s", now);
    cache = *c;
    code = rc;
    return rc;
}

int collio__auto_load(collio_calibration *c, int ranks, int rpn, char *measured)
{
    static collio_calibration all; /* (large) */
    int rc = cached_load(&all);
    *c = all;
    c->nfs = 0;
    for (int i = 0; i < all.nfs && i < COLLIO_CALIBRATION_MAX_FS; i++)
        if (collio_calibration_covers(&all.fs[i], ranks, rpn)) {
            measured[c->nfs] = 0;
            c->fs[c->nfs++] = all.fs[i];
        }
    for (int i = 0; i < nkept && c->nfs < COLLIO_CALIBRATION_MAX_FS; i++)
        if (collio_calibration_covers(&kept[i], ranks, rpn)
            && collio_calibration_find_covering(c, &kept[i].id, ranks, rpn) < 0) {
            measured[c->nfs] = 1;
            c->fs[c->nfs++] = kept[i];
        }
    return rc;
}

int collio__auto_calibrate_env(void)
{
    const char *v = getenv("COLLIO_AUTO_CALIBRATE");
    return v == NULL || v[0] == '\0' || strcmp(v, "0") != 0;
}

/* The directory a path lies in (the path itself where it is one). */
static void dir_of(const char *where, char *dir, size_t n)
{
    struct stat st;
    snprintf(dir, n, "%s", where);
    if (stat(where, &st) == 0 && S_ISDIR(st.st_mode))
        return;
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, n, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
}

/* Rank 0: the measurement stored, or kept for the process where that
 * failed. */
static void keep(const collio_calibration *machine, const collio_fs_costs *fs)
{
    if (collio_calibration_store(NULL, machine, fs) == COLLIO_OK)
        return;
    int i = 0;
    while (i < nkept
           && !(collio__fs_key(&kept[i].id) == collio__fs_key(&fs->id)
                && collio_calibration_covers(&kept[i], fs->call_ranks,
                                             fs->call_ranks_per_node)))
        i++;
    if (i == KEPT_MAX)
        i = KEPT_MAX - 1;
    kept[i] = *fs;
    nkept += i == nkept;
}

int collio__auto_measure(collio_plan *p, const char *where, uint64_t key,
                         const collio_calibration *from, collio_calibration *machine,
                         collio_fs_costs *fs, double *seconds)
{
    double t0 = collio__now();
    int skip = 0;
    for (int i = 0; p->rank == 0 && i < nfailed; i++)
        skip |= failed_key[i] == key;
    if (MPI_Bcast(&skip, 1, MPI_INT, 0, p->comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    if (skip) {
        collio__error_set(COLLIO_ERR_IO, "auto: measuring this file system failed before "
                                         "in this process");
        return COLLIO_ERR_IO;
    }
    char dir[4096];
    dir_of(where, dir, sizeof dir);
    const collio_calibrate_opts opts = {COLLIO_CALIBRATE_QUICK, 0, 0};
    *machine = *from;
    int rc = collio_calibrate(p->comm, dir, &opts, machine, fs, NULL);
    *seconds = collio__now() - t0;
    if (p->rank == 0 && rc == COLLIO_OK)
        /* the network and memory constants of a calibration file stay */
        keep(from->from_file ? NULL : machine, fs);
    else if (p->rank == 0 && nfailed < KEPT_MAX)
        failed_key[nfailed++] = key;
    return rc;
}
