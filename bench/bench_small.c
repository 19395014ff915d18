/*
 * bench_small.c -- the seed 002 workload: every rank writes (reads) one
 * contiguous piece of s bytes, the pieces in rank order -- small requests
 * from many processes, where the collective call's fixed costs dominate.
 * One case per --sizes value; the file holds P * s bytes. The layout is
 * block-cyclic with one block of s / esize elements per rank.
 */
#include "bench_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SIZES "1K,4K,16K,64K,256K,1M"

/* "16K" -> 16384; "1M" -> 1048576; plain bytes too. -1 if malformed. */
static int64_t parse_size(const char *t)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (errno || end == t || v < 1)
        return -1;
    int64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    if (*end != '\0' || v > INT64_MAX / mul)
        return -1;
    return (int64_t)v * mul;
}

int bench_small_parse_sizes(const char *arg, collio_bench_config *cfg, char *err,
                            size_t errlen)
{
    char buf[COLLIO_BENCH_PATH_LEN];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    cfg->nsizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int64_t v = parse_size(t);
        if (v < 1 || cfg->nsizes == COLLIO_BENCH_MAX_LIST) {
            snprintf(err, errlen, "bad --sizes value '%s' (bytes, or with K or M)", t);
            return -1;
        }
        cfg->sizes[cfg->nsizes++] = v;
    }
    if (cfg->nsizes == 0) {
        snprintf(err, errlen, "--sizes needs at least one size");
        return -1;
    }
    return 0;
}

static void size_label(int64_t s, char *out, size_t n)
{
    if (s % (1024 * 1024) == 0)
        snprintf(out, n, "%lldM", (long long)(s / (1024 * 1024)));
    else if (s % 1024 == 0)
        snprintf(out, n, "%lldK", (long long)(s / 1024));
    else
        snprintf(out, n, "%lld", (long long)s);
}

static int small_cases(MPI_Comm comm, const collio_bench_config *cfg, bench_case *cases,
                       int *ncases)
{
    int nranks;
    MPI_Comm_size(comm, &nranks);
    collio_bench_config dflt;
    const collio_bench_config *c = cfg;
    if (cfg->nsizes == 0) { /* the seed's sizes */
        char err[128];
        dflt = *cfg;
        bench_small_parse_sizes(DEFAULT_SIZES, &dflt, err, sizeof err);
        c = &dflt;
    }
    for (int i = 0; i < c->nsizes; i++) {
        int64_t s = c->sizes[i];
        if (s % (int64_t)cfg->esize != 0 || s / (int64_t)cfg->esize > INT64_MAX / nranks)
            return COLLIO_ERR_ARG; /* a size must hold whole elements */
        bench_case *k = &cases[i];
        size_label(s, k->label, sizeof k->label);
        k->shape = NULL;
        k->bx = s / (int64_t)cfg->esize;
        k->nx = k->bx * nranks;
        k->size = s;
    }
    *ncases = c->nsizes;
    return COLLIO_OK;
}

static int small_layout(MPI_Comm comm, const collio_bench_config *cfg,
                        const bench_case *c, collio_layout **out)
{
    return collio_layout_block_cyclic(comm, c->nx, c->bx, cfg->esize, out);
}

const bench_workload_ops bench_small_workload = {
    .name = "small",
    .case_column = "size",
    .cases = small_cases,
    .layout = small_layout,
};
