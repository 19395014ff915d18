/*
 * mpi_subgroup.c -- the "subgroup" strategy (seed 002): for every group
 * size g (1, 2, 3, 4, P and 0 = one group per node), every inner strategy
 * (serial, independent, two_phase, multiphase) and every layout kind
 * (block-cyclic, N-d arrays in C and Fortran order, index lists with empty
 * ranks), one plan writes three times and reads back three times; each
 * file is compared with the independent expectation (testutil: element i =
 * pattern(i, seed)), each read with the packed pattern of the rank's
 * indices as enumerated by the test. The plan's group statistics are
 * checked against the grouping rule of collio.h, computed here (the node
 * grouping from MPI_Comm_split_type asked by the test itself). Bad options
 * -- g < 0, an unknown inner strategy, subgroup or block as the inner one,
 * options that differ between ranks -- give the documented code on every
 * rank.
 *
 * Usage: mpi_subgroup [FILTER] (only cases whose description contains it).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCALLS 3

static const char *const inners[] = {"serial", "independent", "two_phase", "multiphase"};
#define NINNERS ((int)(sizeof inners / sizeof inners[0]))

/* The group of `rank` by collio.h's rule: its size, the number of groups
 * and whether rank is a master. */
typedef struct grouping {
    int size, ngroups, master;
} grouping;

static grouping consecutive(int g, int rank, int nranks)
{
    grouping r;
    int first = rank / g * g;
    r.size = first + g <= nranks ? g : nranks - first;
    r.ngroups = (nranks + g - 1) / g;
    r.master = rank == first;
    return r;
}

/* g = 0: one group per node; all ranks on one node (P > 1): groups of 4. */
static grouping by_node(tu_ctx *t)
{
    MPI_Comm node;
    MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &node);
    int nsize, nrank;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_free(&node);
    if (nsize == t->nranks && t->nranks > 1)
        return consecutive(4, t->rank, t->nranks);
    grouping r = {nsize, 0, nrank == 0};
    MPI_Allreduce(&r.master, &r.ngroups, 1, MPI_INT, MPI_SUM, t->comm);
    return r;
}

static void check_grouping(tu_ctx *t, const collio_plan *p, int g)
{
    grouping want = g > 0 ? consecutive(g, t->rank, t->nranks) : by_node(t);
    collio_stats s;
    collio_plan_stats(p, &s);
    TU_CHECK(t,
             s.subgroup.group == want.size && s.subgroup.ngroups == want.ngroups
                 && s.subgroup.master == want.master,
             "group %d / %d groups / master %d, want %d / %d / %d", s.subgroup.group,
             s.subgroup.ngroups, s.subgroup.master, want.size, want.ngroups, want.master);
    TU_CHECK(t, s.subgroup.split_s >= 0.0 && s.subgroup.split_s <= s.inspect_s,
             "split_s %g is a part of inspect_s %g", s.subgroup.split_s, s.inspect_s);
    TU_CHECK(t, s.subgroup.gather_s >= 0.0 && s.subgroup.gather_s <= s.total_s,
             "gather_s %g is a part of total_s %g", s.subgroup.gather_s, s.total_s);
    /* only masters touch the file */
    if (!want.master)
        TU_CHECK(t, s.file_requests == 0 && s.file_bytes == 0,
                 "a member did %lld file requests", (long long)s.file_requests);
}

/* One plan of layout d with group g and inner strategy `inner`: NCALLS
 * writes (each file checked), each followed by a read (checked). */
static void roundtrips(tu_ctx *t, const tu_layout_desc *d, int g, const char *inner)
{
    tu_case(t, "%s g=%d inner=%s", d->name, g, inner);
    if (!tu_case_enabled(t))
        return;
    collio_layout *l = NULL;
    int rc = tu_desc_make(d, t->comm, &l);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "layout"))
        return;
    collio_plan_options o;
    collio_plan_options_init(&o);
    o.subgroup.group = g;
    o.subgroup.inner = inner;
    collio_plan *p = NULL;
    rc = collio_plan_create(t->comm, l, "subgroup", &o, &p);
    collio_layout_free(&l);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan_create"))
        return;
    TU_CHECK(t, strcmp(collio_plan_strategy(p), "subgroup") == 0, "plan's strategy name");
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "sg", path, sizeof path);
    for (int c = 0; c < NCALLS; c++) {
        uint64_t seed = 100 + (uint64_t)c;
        tu_fill(buf, idx, n, d->esize, seed);
        if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
            break;
        int64_t bad = tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1);
        TU_CHECK(t, bad == 0, "call %d: file differs in %lld bytes", c, (long long)bad);
        int64_t first = -1;
        TU_CHECK(t, tu_compare(buf, idx, n, d->esize, seed, &first) == 0,
                 "call %d: write changed the user's buffer", c);
        check_grouping(t, p, g);
        memset(back, 0, bytes + 1);
        if (!tu_plan_io(t, p, path, NULL, 0, back, bytes))
            break;
        int64_t diff = tu_compare(back, idx, n, d->esize, seed, &first);
        TU_CHECK(t, diff == 0, "call %d: read differs in %lld bytes (element %lld)", c,
                 (long long)diff, (long long)first);
        check_grouping(t, p, g);
    }
    tu_remove(t, path);
    free(buf);
    free(back);
    free(idx);
    collio_plan_free(&p);
}

/* A plan with options o must fail with `want` on every rank. */
static void expect_error(tu_ctx *t, const collio_plan_options *o, int want,
                         const char *what)
{
    tu_case(t, "bad options: %s", what);
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 1000, 3, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    TU_RC_ALL(t, rc, COLLIO_OK, "layout");
    collio_plan *p = NULL;
    rc = collio_plan_create(t->comm, l, "subgroup", o, &p);
    TU_RC_ALL(t, rc, want, what);
    TU_CHECK(t, p == NULL, "no plan after an error");
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_desc_free(&d);
}

static void bad_options(tu_ctx *t)
{
    collio_plan_options o;
    collio_plan_options_init(&o);
    o.subgroup.group = -1;
    expect_error(t, &o, COLLIO_ERR_ARG, "group = -1");
    collio_plan_options_init(&o);
    o.subgroup.inner = "no-such-strategy";
    expect_error(t, &o, COLLIO_ERR_STRATEGY, "unknown inner strategy");
    o.subgroup.inner = "subgroup";
    expect_error(t, &o, COLLIO_ERR_ARG, "subgroup as its own inner strategy");
    o.subgroup.inner = "block";
    expect_error(t, &o, COLLIO_ERR_ARG, "block (not canonical) as the inner strategy");
    if (t->nranks < 2) {
        tu_skip(t, "options that differ between ranks need 2 ranks");
        return;
    }
    collio_plan_options_init(&o);
    o.subgroup.group = t->rank == t->nranks - 1 ? 3 : 2;
    expect_error(t, &o, COLLIO_ERR_MISMATCH, "group differs on the last rank");
    collio_plan_options_init(&o);
    o.subgroup.inner = t->rank == 0 ? "independent" : "two_phase";
    expect_error(t, &o, COLLIO_ERR_MISMATCH, "inner strategy differs on rank 0");
    collio_plan_options_init(&o);
    o.subgroup.inner = t->rank == 0 ? "nonsense" : "two_phase";
    expect_error(t, &o, COLLIO_ERR_MISMATCH, "unknown inner strategy on rank 0 only");
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_subgroup");
    const int P = t.nranks;

    enum { NDESC = 5 };
    tu_layout_desc d[NDESC];
    tu_desc_block_cyclic(&d[0], 5003, 1, 4);
    tu_desc_block_cyclic(&d[1], 4099, 7, 12);
    const int64_t g3[3] = {13, 10, 9};
    const collio_distrib bb[3] = {COLLIO_DIST_BLOCK, COLLIO_DIST_CYCLIC,
                                  COLLIO_DIST_NONE};
    tu_desc_darray(&d[2], P, 3, g3, bb, NULL, NULL, COLLIO_ORDER_C, 8);
    tu_desc_darray(&d[3], P, 3, g3, bb, NULL, NULL, COLLIO_ORDER_FORTRAN, 4);
    tu_desc_index_list(&d[4], t.rank, P, 3001, TU_IL_SHUFFLED, 11, 3);

    const int groups[] = {1, 2, 3, 4, P, 0};
    for (int gi = 0; gi < (int)(sizeof groups / sizeof groups[0]); gi++)
        for (int k = 0; k < NINNERS; k++)
            for (int i = 0; i < NDESC; i++)
                roundtrips(&t, &d[i], groups[gi], inners[k]);
    bad_options(&t);
    for (int i = 0; i < NDESC; i++)
        tu_desc_free(&d[i]);
    return tu_finish(&t);
}
