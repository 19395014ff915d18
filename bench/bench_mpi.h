/*
 * bench_mpi.h -- what the small MPI benchmark programs share
 * (collio-history, collio-overlap, collio-mpiio-history): the slowest
 * rank's time, medians, and the seeded generator of their decompositions.
 * Header-only: collio-mpiio-history is built from MPI alone.
 */
#ifndef COLLIO_BENCH_MPI_H
#define COLLIO_BENCH_MPI_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* xorshift64: the decompositions' run lengths and owners. */
static inline uint64_t bench_rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Collective over MPI_COMM_WORLD: the slowest rank's t. */
static inline double bench_maxed(double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

#endif /* COLLIO_BENCH_MPI_H */
