/*
 * bench_mpi.h -- what the small MPI benchmark programs share
 * (collio-history, collio-overlap, collio-mpiio-history): their command
 * lines, the slowest rank's time, medians, and the seeded generator of
 * their decompositions.
 * Header-only: collio-mpiio-history is built from MPI alone.
 */
#ifndef COLLIO_BENCH_MPI_H
#define COLLIO_BENCH_MPI_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An option of a command line: "NAME VALUE" into *l (atol), *d (atof) or
 * *s, or a flag NAME alone setting *flag to 1 -- one of the four. */
typedef struct bench_opt {
    const char *name;
    long *l;
    double *d;
    const char **s;
    int *flag;
} bench_opt;

/* argv[1..argc) against opts[0..n): 1, or 0 at a word that is no option
 * or an option without its value. */
static inline int bench_parse(int argc, char **argv, const bench_opt *opts, int n)
{
    for (int i = 1; i < argc; i++) {
        const bench_opt *o = NULL;
        for (int k = 0; k < n && o == NULL; k++)
            if (strcmp(argv[i], opts[k].name) == 0)
                o = &opts[k];
        if (o == NULL)
            return 0;
        if (o->flag != NULL) {
            *o->flag = 1;
            continue;
        }
        if (i + 1 >= argc)
            return 0;
        const char *v = argv[++i];
        if (o->l != NULL)
            *o->l = atol(v);
        else if (o->d != NULL)
            *o->d = atof(v);
        else
            *o->s = v;
    }
    return 1;
}

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
