/*
 * domains.c -- file domains: pure integer arithmetic (no MPI), shared by
 * the strategies and the layouts, unit-tested in tests/unit_multiphase.c.
 *
 * The nglobal elements are cut into P contiguous, balanced domains:
 * domain d = [lo(d), lo(d+1)) with lo(d) = d*q + min(d, r),
 * q = nglobal / P, r = nglobal % P (the first r domains hold one element
 * more). Half-open bounds everywhere; no d*nglobal product, so no overflow.
 */
#include "base/base.h"

void collio__domain_range(int64_t nglobal, int ndomains, int d, int64_t *lo, int64_t *hi)
{
    int64_t q = nglobal / ndomains, r = nglobal % ndomains;
    *lo = (int64_t)d * q + (d < r ? d : r);
    *hi = (int64_t)(d + 1) * q + (d + 1 < r ? d + 1 : r);
}

int collio__domain_of(int64_t nglobal, int ndomains, int64_t x)
{
    int64_t q = nglobal / ndomains, r = nglobal % ndomains;
    if (x < r * (q + 1))
        return (int)(x / (q + 1));
    return (int)(r + (x - r * (q + 1)) / q);
}
