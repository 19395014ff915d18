/*
 * mpi_subgroup.c -- the "subgroup" strategy (seed 002): for every group
 * size g (1, 2, 3, 4, P and 0 = one group per node), every inner strategy
 * (serial, independent, two_phase, multiphase) and every layout kind
 * (block-cyclic, N-d arrays in C and Fortran order, index lists with empty
 * ranks), one plan writes three times and reads back three times; each
 * file is compared with the independent expectation (testutil: element i =
 * pattern(i, seed)), each read with the packed pattern of the rank's
 * indices as enumerated by the test. The plan's group statistics are
 * checked (collio_plan_stat "subgroup.*") against the grouping rule of
 * collio.h, computed here (the node grouping from MPI_Comm_split_type
 * asked by the test itself). Bad hints -- g < 0 and an unknown inner
 * strategy (rejected by collio_hints_set, and in COLLIO_HINTS on every
 * rank), subgroup or block as the inner one, hints that differ between
 * ranks -- give the documented code on every rank.
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
    double group = TU_STAT(t, p, "subgroup.group"),
           ngroups = TU_STAT(t, p, "subgroup.ngroups"),
           master = TU_STAT(t, p, "subgroup.master"),
           split = TU_STAT(t, p, "subgroup.split_s"),
           gather = TU_STAT(t, p, "subgroup.gather_s");
    TU_CHECK(t, group == want.size && ngroups == want.ngroups && master == want.master,
             "group %g / %g groups / master %g, want %d / %d / %d", group, ngroups,
             master, want.size, want.ngroups, want.master);
    TU_CHECK(t, split >= 0.0 && split <= s.inspect_s,
             "split_s %g is a part of inspect_s %g", split, s.inspect_s);
    TU_CHECK(t, gather >= 0.0 && gather <= s.total_s,
             "gather_s %g is a part of total_s %g", gather, s.total_s);
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
    collio_hints *o = TU_HINTS(t, "subgroup.group=%d,subgroup.inner=%s", g, inner);
    collio_plan *p = NULL;
    rc = collio_plan_create(t->comm, l, "subgroup", o, &p);
    collio_hints_free(&o);
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

/* A plan with the hints of `list` on this rank (and `env`, if not NULL,
 * as this rank's COLLIO_HINTS) must fail with `want` on every rank; with
 * `names`, collio_last_error() names it. */
static void expect_error(tu_ctx *t, const char *list, const char *env, int want,
                         const char *names, const char *what)
{
    tu_case(t, "bad options: %s", what);
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 1000, 3, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t->comm, &l);
    TU_RC_ALL(t, rc, COLLIO_OK, "layout");
    collio_hints *o = TU_HINTS(t, "%s", list);
    collio_plan *p = NULL;
    if (env != NULL)
        setenv("COLLIO_HINTS", env, 1);
    rc = collio_plan_create(t->comm, l, "subgroup", o, &p);
    if (env != NULL)
        unsetenv("COLLIO_HINTS");
    collio_hints_free(&o);
    TU_RC_ALL(t, rc, want, what);
    TU_CHECK(t, p == NULL, "no plan after an error");
    if (names != NULL)
        TU_CHECK(t, strstr(collio_last_error(), names) != NULL, "'%s' should name '%s'",
                 collio_last_error(), names);
    collio_plan_free(&p);
    collio_layout_free(&l);
    tu_desc_free(&d);
}

/* A value collio_hints_set rejects, locally, naming the key. */
static void expect_local(tu_ctx *t, const char *key, const char *value, int want)
{
    tu_case(t, "bad options: %s = '%s' rejected by collio_hints_set", key, value);
    collio_hints *h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set(h, key, value), want, "collio_hints_set");
    TU_CHECK(t, strstr(collio_last_error(), key) != NULL, "'%s' should name %s",
             collio_last_error(), key);
    TU_CHECK(t, collio_hints_count(h) == 0, "a rejected value is not kept");
    collio_hints_free(&h);
}

static void bad_options(tu_ctx *t)
{
    /* values the hint parser rejects never reach a plan but through
     * COLLIO_HINTS, where they fail it on every rank */
    expect_local(t, "subgroup.group", "-1", COLLIO_ERR_ARG);
    expect_error(t, "", "subgroup.group=-1", COLLIO_ERR_ARG, "subgroup.group",
                 "group = -1");
    expect_local(t, "subgroup.inner", "no-such-strategy", COLLIO_ERR_STRATEGY);
    expect_error(t, "", "subgroup.inner=no-such-strategy", COLLIO_ERR_STRATEGY,
                 "subgroup.inner", "unknown inner strategy");
    /* registered strategies subgroup cannot run: its check at plan time */
    expect_error(t, "subgroup.inner=subgroup", NULL, COLLIO_ERR_ARG, "subgroup.inner",
                 "subgroup as its own inner strategy");
    expect_error(t, "subgroup.inner=block", NULL, COLLIO_ERR_ARG, "subgroup.inner",
                 "block (not canonical) as the inner strategy");
    if (t->nranks < 2) {
        tu_skip(t, "options that differ between ranks need 2 ranks");
        return;
    }
    char list[64];
    snprintf(list, sizeof list, "subgroup.group=%d", t->rank == t->nranks - 1 ? 3 : 2);
    expect_error(t, list, NULL, COLLIO_ERR_MISMATCH, "plan options (hints) differ",
                 "group differs on the last rank");
    snprintf(list, sizeof list, "subgroup.inner=%s",
             t->rank == 0 ? "independent" : "two_phase");
    expect_error(t, list, NULL, COLLIO_ERR_MISMATCH, "plan options (hints) differ",
                 "inner strategy differs on rank 0");
    /* an unknown name in rank 0's COLLIO_HINTS only: rank 0's parse error
     * (it never becomes a value to compare), on every rank */
    expect_error(t, "subgroup.inner=two_phase",
                 t->rank == 0 ? "subgroup.inner=nonsense" : NULL, COLLIO_ERR_STRATEGY,
                 "rank 0: COLLIO_HINTS: hint subgroup.inner",
                 "unknown inner strategy on rank 0 only");
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
