/*
 * bench_workloads.c -- the one table of collio-bench's workloads. Adding a
 * workload is one new bench_<name>.c defining a bench_workload_ops, an enum
 * value in bench.h and one line here.
 */
#include "bench_internal.h"

#include <string.h>

static const bench_workload_ops *const workloads[] = {
    [COLLIO_BENCH_VECTOR] = &bench_vector_workload,
    [COLLIO_BENCH_ARRAY] = &bench_array_workload,
    [COLLIO_BENCH_SMALL] = &bench_small_workload,
    [COLLIO_BENCH_MESH] = &bench_mesh_workload,
    [COLLIO_BENCH_SPARSE] = &bench_sparse_workload,
};
#define NWORKLOADS ((int)(sizeof workloads / sizeof workloads[0]))

const bench_workload_ops *bench_workload_of(collio_bench_workload w)
{
    return (int)w >= 0 && (int)w < NWORKLOADS ? workloads[w] : NULL;
}

const bench_workload_ops *bench_workload_named(const char *name, collio_bench_workload *w)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (workloads[i] != NULL && strcmp(workloads[i]->name, name) == 0) {
            *w = (collio_bench_workload)i;
            return workloads[i];
        }
    return NULL;
}
