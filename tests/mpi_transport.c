/*
 * mpi_transport.c -- a multiphase transport defined outside the library
 * joins it by its own entry alone: "a transport is its folder and one
 * line in the transport table" (here collio__mp_transport_register, as a
 * program's own transport would; the built-in ones are one line of
 * MP_TRANSPORTS).
 *
 * The transport "owner-writes" is defined whole in this file: it moves
 * nothing between ranks -- each rank writes (reads) its own extents, one
 * file request per extent (collio__file_write_at / _read_at), its plan
 * the rank's extents in stream order, coalesced. Trivially correct, and
 * its requests are computed here from the layout's definition alone.
 * Registered first thing in main. Then:
 *  - registering it twice, or another one once the catalogue is in use,
 *    is refused (COLLIO_ERR_STATE);
 *  - it is the last exchange: collio_option_value_name / _value, and the
 *    values of hint multiphase.exchange (collio_option_describe);
 *  - multiphase.exchange=owner-writes writes and reads block-cyclic,
 *    index-list and darray layouts byte-exact against testutil's
 *    reference, with stat multiphase.exchange its number and the file
 *    requests its own; with fewer phases than all (P >= 3) the plan is
 *    refused on every rank (COLLIO_ERR_ARG), as for every exchange but
 *    the hypercube.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "files/files.h"
#include "core/core.h"
#include "strategies/multiphase/multiphase.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "owner-writes"

/* ------------------------------------------------------ the transport */

typedef struct owner_state {
    collio__ext *ext; /* the rank's extents, stream order, coalesced */
    int64_t n;
} owner_state;

static int owner_build(collio_plan *p, collio__mp_plan *mp)
{
    owner_state *s = calloc(1, sizeof *s);
    mp->state = s;
    if (s == NULL)
        return collio__agree(p->comm, COLLIO_ERR_NOMEM);
    int rc = collio__segs_flatten(p->layout->segs, p->layout->nsegs, &s->ext, &s->n);
    if (rc == COLLIO_OK)
        s->n = collio__exts_coalesce(s->ext, s->n);
    p->stats.plan_bytes = (int64_t)(sizeof *s + (size_t)s->n * sizeof *s->ext);
    return collio__agree(p->comm, rc);
}

static int owner_io(collio_plan *p, collio_file *f, char *stream, int writing)
{
    const collio__mp_plan *mp = p->impl;
    const owner_state *s = mp->state;
    const size_t es = p->layout->esize;
    double t0 = collio__now();
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < s->n && rc == COLLIO_OK; i++) {
        const collio__ext *e = &s->ext[i];
        char *at = stream + (size_t)e->mem * es;
        const size_t bytes = (size_t)e->len * es;
        rc = writing ? collio__file_write_at(f, e->off * (int64_t)es, at, bytes)
                     : collio__file_read_at(f, e->off * (int64_t)es, at, bytes);
        p->stats.file_requests++;
        p->stats.file_bytes += (int64_t)bytes;
    }
    p->stats.file_s += collio__now() - t0;
    return rc;
}

static int owner_write(collio_plan *p, collio_file *f, const char *stream)
{
    return owner_io(p, f, (char *)stream, 1);
}

static int owner_read(collio_plan *p, collio_file *f, char *stream)
{
    return owner_io(p, f, stream, 0);
}

static void owner_free(collio__mp_plan *mp)
{
    owner_state *s = mp->state;
    if (s != NULL)
        free(s->ext);
    free(s);
    mp->state = NULL;
}

static const collio__mp_transport owner_writes = {
    .name = NAME,
    .build = owner_build,
    .write = owner_write,
    .read = owner_read,
    .free = owner_free,
};

static const collio__mp_transport late = {
    .name = "late",
    .build = owner_build,
    .write = owner_write,
    .read = owner_read,
    .free = owner_free,
};

/* ------------------------------------------------------------ checks */

/* The requests owner-writes makes for this rank's part of d: its
 * elements in buffer order cut into maximal runs of consecutive indices
 * (from testutil's enumeration of the layout's definition). */
static int64_t want_requests(tu_ctx *t, const tu_layout_desc *d)
{
    int64_t *idx = NULL, n = 0, runs = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    for (int64_t k = 0; k < n; k++)
        runs += k + 1 == n || idx[k + 1] != idx[k] + 1;
    free(idx);
    return runs;
}

static int listed(tu_ctx *t, int first_rc)
{
    tu_case(t, "registered before anything else, listed last");
    TU_RC(t, first_rc, COLLIO_OK, "collio__mp_transport_register(" NAME ")");
    TU_RC(t, collio__mp_transport_register(&owner_writes), COLLIO_ERR_STATE,
          "the same name twice");
    int n = 0;
    while (tu_exchange_name(n) != NULL)
        n++;
    TU_CHECK(t, n == TU_EXCHANGE__COUNT + 1, "%d exchanges named, want %d", n,
             TU_EXCHANGE__COUNT + 1);
    int mine = collio_option_value("multiphase.exchange", NAME);
    TU_CHECK(t, mine == n - 1 && strcmp(tu_exchange_name(mine), NAME) == 0,
             NAME " is exchange %d of %d", mine, n);
    int described = 0;
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        if (collio_option_describe(i, &o) == COLLIO_OK
            && strcmp(o.key, "multiphase.exchange") == 0)
            described =
                strstr(o.range, NAME) != NULL && strstr(o.range, "hypercube") != NULL;
    }
    TU_CHECK(t, described, "multiphase.exchange's values do not list " NAME);
    /* the catalogue is in use now */
    TU_RC(t, collio__mp_transport_register(&late), COLLIO_ERR_STATE, "registered late");
    TU_CHECK(t, collio_option_value("multiphase.exchange", "late") < 0,
             "a refused transport is named");
    return mine;
}

static void roundtrip(tu_ctx *t, const tu_layout_desc *d, int mine)
{
    tu_case(t, "%s: multiphase.exchange=" NAME, d->name);
    if (!tu_case_enabled(t))
        return;
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    collio_hints *h = TU_HINTS(t, "multiphase.exchange=" NAME);
    collio_plan *p = NULL;
    int rc = collio_plan_create(t->comm, l, "multiphase", h, &p);
    collio_hints_free(&h);
    collio_layout_free(&l);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan"))
        return;
    TU_CHECK(t, TU_STAT(t, p, "multiphase.exchange") == mine,
             "stat multiphase.exchange %g", TU_STAT(t, p, "multiphase.exchange"));
    const int64_t want = want_requests(t, d);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "transport", path, sizeof path);
    const uint64_t seed = 71;
    tu_fill(buf, idx, n, d->esize, seed);
    if (tu_plan_io(t, p, path, NULL, 1, buf, bytes)) {
        collio_stats st;
        collio_plan_stats(p, &st);
        TU_CHECK(t, st.file_requests == want && st.file_bytes == (int64_t)bytes,
                 "write: %lld requests, %lld bytes; want %lld, %zu",
                 (long long)st.file_requests, (long long)st.file_bytes, (long long)want,
                 bytes);
        TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1) == 0,
                 "the file differs from the reference");
        memset(back, 0, bytes + 1);
        if (tu_plan_io(t, p, path, NULL, 0, back, bytes)) {
            int64_t first = -1;
            TU_CHECK(t, tu_compare(back, idx, n, d->esize, seed, &first) == 0,
                     "read back: first wrong element %lld", (long long)first);
        }
    }
    collio_plan_free(&p);
    tu_remove(t, path);
    free(buf);
    free(back);
    free(idx);
}

/* Fewer phases than all with a transport that is not the hypercube. */
static void fewer_phases(tu_ctx *t, const tu_layout_desc *d)
{
    tu_case(t, NAME " with multiphase.phases=1");
    if (!tu_case_enabled(t) || t->nranks < 3)
        return;
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    collio_hints *h = TU_HINTS(t, "multiphase.exchange=" NAME ",multiphase.phases=1");
    collio_plan *p = NULL;
    TU_RC_ALL(t, collio_plan_create(t->comm, l, "multiphase", h, &p), COLLIO_ERR_ARG,
              "fewer phases refused");
    TU_CHECK(t, p == NULL, "no plan after an error");
    collio_hints_free(&h);
    collio_layout_free(&l);
}

int main(int argc, char **argv)
{
    /* first thing: nothing has touched the catalogue yet */
    int reg = collio__mp_transport_register(&owner_writes);
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_transport");
    int mine = listed(&t, reg);
    tu_layout_desc bc, il, da;
    tu_desc_block_cyclic(&bc, 10007, 3, 4);
    tu_desc_index_list(&il, t.rank, t.nranks, 3001, TU_IL_SHUFFLED, 5, 8);
    const int64_t g[2] = {37, 23};
    const collio_distrib dist[2] = {COLLIO_DIST_CYCLIC, COLLIO_DIST_BLOCK};
    tu_desc_darray(&da, t.nranks, 2, g, dist, NULL, NULL, COLLIO_ORDER_FORTRAN, 12);
    roundtrip(&t, &bc, mine);
    roundtrip(&t, &il, mine);
    roundtrip(&t, &da, mine);
    fewer_phases(&t, &bc);
    tu_desc_free(&bc);
    tu_desc_free(&il);
    tu_desc_free(&da);
    return tu_finish(&t);
}
