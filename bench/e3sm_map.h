/*
 * e3sm_map.h -- a decomposition map of the E3SM-IO benchmark's (the
 * element-level map PIO recorded in an E3SM production run), read from
 * its HDF5 form for collio-history --map (docs/requests.md).
 *
 * The file, as E3SM-IO's map files (map_f_case_16p.h5 ...) hold it: per
 * decomposition D (1, 2, ...), on the root group
 *   attribute D<D>.dims        the global array's dimensions (ints; the
 *                              array is their product, in C order)
 *   dataset   D<D>.raw_nreqs   per process of the run that recorded it
 *                              (decomp_nprocs of them): its count of offsets
 *   dataset   D<D>.raw_offsets every process's offsets one after the
 *                              other: global element indices, 1-based, 0 =
 *                              no element (skipped)
 * or, without the raw form, D<D>.nreqs, D<D>.offsets (0-based) and
 * D<D>.lengths: runs. Rank r of P takes the processes E3SM-IO gives it
 * (decomp_nprocs / P of them, the first decomp_nprocs % P ranks one more;
 * ranks beyond decomp_nprocs none).
 */
#ifndef COLLIO_BENCH_E3SM_MAP_H
#define COLLIO_BENCH_E3SM_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Rank rank of P's elements of decomposition decomp (>= 1) of the map at
 * path: *n runs, sorted and coalesced, (*off)[i] (0-based global element)
 * and (*len)[i] (malloc'd; the caller frees them), of a global array of
 * *nx elements. 0, or -1 with the reason in why (a missing file, dataset
 * or attribute, offsets out of the array or held twice on this rank).
 * Local (every rank reads the file). Without HDF5 in the build: -1. */
int e3sm_map_read(const char *path, int decomp, int rank, int P, int64_t *nx, int64_t *n,
                  int64_t **off, int64_t **len, char *why, size_t why_len);

#endif
