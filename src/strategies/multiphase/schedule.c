/*
 * schedule.c -- the hypercube schedule of the multiphase
 * strategy: which rank exchanges with which in each phase, and which file
 * range it keeps. Pure integer arithmetic (no MPI), unit-tested in
 * tests/unit_multiphase.c; the file domains it splits are domains.c's.
 *
 * Recursive bisection along hypercube dimensions (phase ph = dimension ph,
 * lowest first, as in seed 004 Table 2). Before phase ph, the ranks with
 * the same low ph bits (r mod 2^ph == c) form a group; the group of c holds
 * the file range of a contiguous set of domains [base, base + g) where g is
 * the group's size. In phase ph the group splits by bit ph of the rank:
 * side 0 (bit clear, ceil(g/2) ranks) keeps the first ceil(g/2) domains,
 * side 1 the last floor(g/2). Rank r exchanges with r XOR 2^ph. When g is
 * odd the last rank of side 0 has no such partner (r XOR 2^ph >= P): this
 * "lonely" rank only sends, to r - 2^ph (a side-1 rank of its group, which
 * then receives from two ranks). Groups of one rank are idle. After
 * ceil(log2 P) phases every group is one rank, which holds exactly its
 * domain. For P = 2^n this is seed 004's algorithm: rank r ends with
 * domain bitreverse(r) (Table 4: ranks 0..3 -> domains 0, 2, 1, 3).
 */
#include "base/base.h"
#include "multiphase.h"

int collio__mp_nphases(int nranks)
{
    int n = 0;
    while (n < 31 && (1 << n) < nranks)
        n++;
    return n;
}

/* Walks the bisection for `steps` phases: the group's first domain and
 * size, and the rank's index inside the group (r >> steps). */
static void walk(int nranks, int rank, int steps, int *base, int *size, int *idx)
{
    int b = 0, g = nranks, j = rank;
    for (int i = 0; i < steps && g > 1; i++) {
        int g0 = (g + 1) / 2;
        if (j & 1) {
            b += g0;
            g = g / 2;
        } else {
            g = g0;
        }
        j >>= 1;
    }
    *base = b;
    *size = g;
    *idx = j;
}

int collio__mp_domain_of_rank(int nranks, int rank)
{
    int base, size, idx;
    walk(nranks, rank, 31, &base, &size, &idx);
    return base;
}

void collio__mp_step_of(int nranks, int64_t nglobal, int rank, int ph,
                        collio__mp_step *st)
{
    int base, g, j;
    walk(nranks, rank, ph, &base, &g, &j);
    st->group_size = g;
    st->partner = st->lonely_to = st->extra_from = -1;
    int64_t t;
    collio__domain_range(nglobal, nranks, base, &st->group_lo, &t);
    collio__domain_range(nglobal, nranks, base + g - 1, &t, &st->group_hi);
    if (g <= 1) { /* idle: keeps its whole range, exchanges nothing */
        st->side = 0;
        st->mid = st->group_hi;
        st->keep_lo = st->group_lo;
        st->keep_hi = st->group_hi;
        st->send_lo = st->send_hi = st->group_hi;
        return;
    }
    int g0 = (g + 1) / 2;
    collio__domain_range(nglobal, nranks, base + g0, &st->mid, &t);
    st->side = j & 1;
    if (st->side == 0) {
        st->keep_lo = st->group_lo;
        st->keep_hi = st->mid;
        st->send_lo = st->mid;
        st->send_hi = st->group_hi;
    } else {
        st->keep_lo = st->mid;
        st->keep_hi = st->group_hi;
        st->send_lo = st->group_lo;
        st->send_hi = st->mid;
    }
    int bit = 1 << ph;
    int x = rank ^ bit;
    if (x < nranks)
        st->partner = x;
    else
        st->lonely_to = rank - bit; /* side 0, the last of its group */
    if (st->side == 1 && (int64_t)rank + bit < nranks
        && (int64_t)rank + 2 * (int64_t)bit >= nranks)
        st->extra_from = rank + bit;
}
