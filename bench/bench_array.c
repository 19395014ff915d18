/*
 * bench_array.c -- the seed 001 workload: STEM-II arrays SL(x, y, z, l, ph),
 * float32 by default, Fortran order (x fastest), BLOCK-distributed over
 * dimension 1 (y) and not distributed elsewhere: collio_layout_darray with
 * psizes {1, P, 1, 1, 1}. Named shapes are the seed's SL1, SL2, SL3; any
 * X,Y,Z,L,PH may be given instead. One case per shape.
 */
#include "bench_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const collio_bench_shape named_shapes[] = {
    {"SL1", {61, 61, 15, 56, 3}}, /* 35.7 MB as float32 */
    {"SL2", {61, 61, 15, 56, 6}}, /* 71.4 MB */
    {"SL3", {92, 61, 15, 56, 3}}, /* 53.9 MB */
};
#define NNAMED ((int)(sizeof named_shapes / sizeof named_shapes[0]))

static int add_shape(collio_bench_config *cfg, const collio_bench_shape *s, char *err,
                     size_t errlen)
{
    if (cfg->nshapes >= COLLIO_BENCH_MAX_LIST) {
        snprintf(err, errlen, "too many --shape values");
        return -1;
    }
    cfg->shapes[cfg->nshapes++] = *s;
    return 0;
}

int bench_array_parse_shapes(const char *arg, collio_bench_config *cfg, char *err,
                             size_t errlen)
{
    int64_t v[COLLIO_BENCH_ARRAY_DIMS + 1];
    int n = bench_parse_i64_list(arg, v, COLLIO_BENCH_ARRAY_DIMS + 1);
    if (n == COLLIO_BENCH_ARRAY_DIMS) { /* X,Y,Z,L,PH */
        collio_bench_shape s;
        for (int d = 0; d < n; d++) {
            if (v[d] < 1) {
                snprintf(err, errlen, "--shape %s: sizes must be >= 1", arg);
                return -1;
            }
            s.gsizes[d] = v[d];
        }
        snprintf(s.name, sizeof s.name, "%lldx%lldx%lldx%lldx%lld", (long long)v[0],
                 (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4]);
        return add_shape(cfg, &s, err, errlen);
    }
    /* a comma list of names */
    char buf[COLLIO_BENCH_PATH_LEN];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < NNAMED; i++) {
            if (strcasecmp(tok, named_shapes[i].name) == 0) {
                if (add_shape(cfg, &named_shapes[i], err, errlen))
                    return -1;
                found = 1;
            }
        }
        if (!found) {
            snprintf(err, errlen, "--shape %s: expected SL1, SL2, SL3 or X,Y,Z,L,PH",
                     tok);
            return -1;
        }
    }
    return 0;
}

static int array_cases(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                       int *ncases)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    if (cfg->nshapes < 1)
        return COLLIO_ERR_ARG;
    for (int i = 0; i < cfg->nshapes; i++) {
        const collio_bench_shape *s = &cfg->shapes[i];
        bench_case *c = &cases[i];
        int64_t n = 1;
        for (int d = 0; d < COLLIO_BENCH_ARRAY_DIMS; d++) {
            if (s->gsizes[d] < 1 || n > INT64_MAX / s->gsizes[d])
                return COLLIO_ERR_ARG;
            n *= s->gsizes[d];
        }
        snprintf(c->label, sizeof c->label, "%s", s->name);
        c->shape = s;
        c->nx = n;
        c->bx = (s->gsizes[1] + nranks - 1) / nranks; /* BLOCK's default */
    }
    *ncases = cfg->nshapes;
    return COLLIO_OK;
}

static int array_layout(MPI_Comm comm, const collio_bench_config *cfg,
                        const bench_case *c, collio_layout **out)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    const collio_distrib distribs[COLLIO_BENCH_ARRAY_DIMS] = {
        COLLIO_DIST_NONE, COLLIO_DIST_BLOCK, COLLIO_DIST_NONE, COLLIO_DIST_NONE,
        COLLIO_DIST_NONE};
    const int64_t dargs[COLLIO_BENCH_ARRAY_DIMS] = {
        COLLIO_DARG_DEFAULT, COLLIO_DARG_DEFAULT, COLLIO_DARG_DEFAULT,
        COLLIO_DARG_DEFAULT, COLLIO_DARG_DEFAULT};
    const int psizes[COLLIO_BENCH_ARRAY_DIMS] = {1, nranks, 1, 1, 1};
    return collio_layout_darray(comm, COLLIO_BENCH_ARRAY_DIMS, c->shape->gsizes, distribs,
                                dargs, psizes, COLLIO_ORDER_FORTRAN, cfg->esize, out);
}

const bench_workload_ops bench_array_workload = {
    .name = "array",
    .case_column = "shape",
    .cases = array_cases,
    .layout = array_layout,
};
