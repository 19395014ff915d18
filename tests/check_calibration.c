/*
 * check_calibration.c -- ctest bench_calibrate_npN's check through the
 * library (bench/calibrate_test.py runs it): `check_calibration FILE DIR`
 * loads FILE with collio_calibration_load and exits 0 if it was read
 * (from_file == 1) with exactly one file system entry, the one of DIR
 * (collio_fs_identify, collio_calibration_find_fs); else 1, saying why.
 * Local: no MPI calls.
 */
#include "collio.h"

#include <stdio.h>
#include <string.h>

static collio_calibration cal; /* large: static */

int main(int argc, char **argv)
{
    collio_fs_id id;
    if (argc != 3) {
        fprintf(stderr, "usage: check_calibration FILE DIR\n");
        return 2;
    }
    int rc = collio_calibration_load(argv[1], &cal);
    collio_fs_identify(argv[2], &id);
    const char *why = rc != COLLIO_OK      ? collio_last_error()
                      : cal.from_file != 1 ? "from_file is not 1"
                      : cal.nfs != 1       ? "not exactly one file system entry"
                      : strcmp(cal.fs[0].id.type, id.type) != 0
                          ? "another file system type"
                      : collio_calibration_find_fs(&cal, &id) != 0
                          ? "collio_calibration_find_fs does not find DIR's entry"
                          : NULL;
    if (why != NULL) {
        fprintf(stderr, "check_calibration %s (dir %s, %s): %s\n", argv[1], argv[2],
                id.type, why);
        return 1;
    }
    printf("check_calibration: %s loads, one entry (%s on %s)\n", argv[1], id.type,
           id.mount);
    return 0;
}
