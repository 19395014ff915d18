/*
 * mpi_plugin.c -- a strategy defined outside the library joins everything
 * by its own tables alone: "adding a strategy with one option and one
 * stat touches 2 files" (its file, and the registry -- here
 * collio__strategy_register, as a program's own strategy would).
 *
 * The strategy "plugin" is defined whole in this file: one option,
 * plugin.pieces (int 1..64, default 4: each extent of a rank is written
 * in that many file requests, at most one per element), and one stat,
 * plugin.calls (per call: the file requests of the last write or read).
 * Each rank writes (reads) its own extents with collio__file_write_at
 * (collio__file_read_at): trivially correct, and its request count is
 * computed here from the layout's definition alone. It is registered
 * first thing in main, before anything touches the catalogue. Then:
 *  - it is listed (collio_strategy_count / name / summary / canonical);
 *    registering it twice, or another one once the catalogue is in use,
 *    is refused (COLLIO_ERR_STATE);
 *  - its option is in collio_option_describe's catalogue (type, default,
 *    range, doc) and its stat in collio_stat_describe's;
 *  - plugin.pieces is set by collio_hints_set, collio_hints_parse,
 *    COLLIO_HINTS and MPI_Info (collio_hints_set_info), reported by
 *    collio_plan_hints (default included), range-checked (0 and 65:
 *    COLLIO_ERR_ARG naming the key, in COLLIO_HINTS on every rank) and
 *    compared across ranks (another value on one rank: MISMATCH on every
 *    rank);
 *  - its stat plugin.calls after a write and after a read equals the
 *    requests computed here, for several values of the option and
 *    layouts; other strategies' plans read it as 0; the round trip is
 *    byte-exact against testutil's reference; subgroup runs it as its
 *    inner strategy;
 *  - the benchmark's help lists it as a flag, --plugin.pieces
 *    (collio_bench_usage);
 *  - it is a candidate of auto by its table alone (plugin_x4: the
 *    strategy with plugin.pieces=4, its cost formula beside it): listed
 *    last among hint auto.only's values, a stat auto.predicted_plugin_x4_s,
 *    priced by its formula (above list I/O's prediction), and run by
 *    auto.only=plugin_x4 -- byte-exact, plugin.calls as 4 pieces make them;
 *  - its calibration terms are its table's too: collio_calibrate times its
 *    smallest call ("plugin.call", declared in cost_terms) and runs its
 *    measure hook once, which sets "plugin.piece" through the kit's timed
 *    write-and-read pair of one of its own plans.
 */
#include "base/base.h"
#include "layouts/layouts.h"
#include "options/options.h"
#include "files/files.h"
#include "core/core.h"
#include "testutil.h"

#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------- the strategy */

enum { OPT_PIECES };
static const collio__option plugin_options[] = {
    [OPT_PIECES] = {"pieces", COLLIO__OPT_INT, 4, 1, 64, NULL, NULL,
                    "file requests each extent of a rank is written in (at most one per "
                    "element)"},
};
enum { ST_CALLS };
static const collio__stat plugin_stats[] = {
    [ST_CALLS] = {"calls", 1, 0, "file requests of the last write or read"},
};

typedef struct plugin_plan {
    collio__ext *ext; /* the rank's extents, stream order, coalesced */
    int64_t n;
} plugin_plan;

static int plugin_plan_create(collio_plan *p)
{
    plugin_plan *pp = calloc(1, sizeof *pp);
    p->impl = pp;
    if (pp == NULL)
        return COLLIO_ERR_NOMEM;
    int rc = collio__segs_flatten(p->layout->segs, p->layout->nsegs, &pp->ext, &pp->n);
    if (rc == COLLIO_OK)
        pp->n = collio__exts_coalesce(pp->ext, pp->n);
    p->stats.plan_bytes = (int64_t)(sizeof *pp + (size_t)pp->n * sizeof *pp->ext);
    return rc;
}

static int plugin_io(collio_plan *p, collio_file *f, char *stream, int writing)
{
    const plugin_plan *pp = p->impl;
    const int64_t pieces = collio__opt(p, OPT_PIECES);
    const size_t es = p->layout->esize;
    double t0 = collio__now();
    int rc = COLLIO_OK;
    for (int64_t i = 0; i < pp->n && rc == COLLIO_OK; i++) {
        const collio__ext *e = &pp->ext[i];
        const int64_t k = e->len < pieces ? e->len : pieces;
        for (int64_t j = 0; j < k && rc == COLLIO_OK; j++) {
            const int64_t lo = e->len * j / k, hi = e->len * (j + 1) / k;
            char *at = stream + (size_t)(e->mem + lo) * es;
            const size_t bytes = (size_t)(hi - lo) * es;
            const int64_t off = (e->off + lo) * (int64_t)es;
            rc = writing ? collio__file_write_at(f, off, at, bytes)
                         : collio__file_read_at(f, off, at, bytes);
            collio__stat_add(p, ST_CALLS, 1);
            p->stats.file_requests++;
            p->stats.file_bytes += (int64_t)bytes;
        }
    }
    p->stats.file_s += collio__now() - t0;
    return rc;
}

static int plugin_write(collio_plan *p, collio_file *f, const char *stream)
{
    return plugin_io(p, f, (char *)stream, 1);
}

static int plugin_read(collio_plan *p, collio_file *f, char *stream)
{
    return plugin_io(p, f, stream, 0);
}

static void plugin_free(collio_plan *p)
{
    plugin_plan *pp = p->impl;
    if (pp != NULL)
        free(pp->ext);
    free(pp);
    p->impl = NULL;
}

/* As a candidate of auto (collio__candidate, core/core.h), priced with
 * the kit of machine/cost.h: each piece of a rank in PIECES requests of
 * list I/O at a quarter of its size, then the file's bytes -- dearer than
 * list I/O itself (one request per piece) by construction, so that the
 * test can tell the formula was used. It pays list I/O's call floor. */
enum { PIECES = 4 };
static double plugin_terms(const collio__cost *m, const collio__cost_shape *s, int arg)
{
    double piece = s->pieces_max > 0 ? s->bytes_max / s->pieces_max : 0;
    return arg * s->pieces_max * collio__cost_list_request(m, piece / arg) * m->cpu
           + m->file_bytes;
}

static const collio__candidate plugin_candidates[] = {
    {.label = "plugin_x4",
     .hint_key = {"plugin.pieces"},
     .hint_value = {"4"},
     .tier = 1,
     .floor = "independent",
     .terms = plugin_terms,
     .arg = PIECES},
};

/* Its calibration terms: the smallest call (timed by the calibration), and
 * one its own hook measures -- here the write and the read of 16 elements
 * per rank through a plan of its own, by the kit's timed pair. */
static const char *const plugin_cost_terms[] = {"plugin.call", "plugin.piece", NULL};
static int measured; /* the hook's runs on this rank */

static int plugin_measure(const collio__measure_kit *k)
{
    measured++;
    collio_layout *l = NULL;
    collio_plan *plan = NULL;
    unsigned char buf[64];
    double tw = 0, tr = 0;
    int rc = collio_layout_block_cyclic(k->comm, 16 * (int64_t)k->size, 4, 4, &l);
    if (rc == COLLIO_OK)
        rc = collio_plan_create(k->comm, l, "plugin", NULL, &plan);
    if (rc == COLLIO_OK)
        rc = k->time_pair(k, plan, buf, sizeof buf, &tw, &tr);
    if (rc == COLLIO_OK)
        rc = collio_fs_costs_set_term(k->fs, "plugin.piece", tw, tr);
    collio_plan_free(&plan);
    collio_layout_free(&l);
    return rc;
}

static const collio__strategy collio_strategy_plugin = {
    .section = {"plugin", plugin_options, 1, plugin_stats, 1},
    .summary =
        "a test's own: each rank writes its extents, in plugin.pieces requests each",
    .canonical = 1,
    .check = NULL,
    .plan = plugin_plan_create,
    .write = plugin_write,
    .read = plugin_read,
    .free = plugin_free,
    .replicas_auto = NULL,
    .rank_domain = NULL,
    .candidates = plugin_candidates,
    .ncandidates = 1,
    .cost_terms = plugin_cost_terms,
    .measure = plugin_measure,
};

/* Another one, for registrations that must be refused. */
static const collio__strategy collio_strategy_late = {
    .section = {"late", NULL, 0, NULL, 0},
    .summary = "registered too late",
    .canonical = 1,
    .plan = plugin_plan_create,
    .write = plugin_write,
    .read = plugin_read,
    .free = plugin_free,
};

/* ------------------------------------------------------------ checks */

/* The requests plugin makes for this rank's part of d with `pieces`: its
 * elements in buffer order cut into maximal runs of consecutive indices
 * (from testutil's enumeration of the layout's definition), each run
 * written in min(pieces, its length) requests. */
static int64_t want_calls(tu_ctx *t, const tu_layout_desc *d, int64_t pieces)
{
    int64_t *idx = NULL, n = 0, calls = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    for (int64_t k = 0, run = 0; k < n; k++) {
        run++;
        if (k + 1 == n || idx[k + 1] != idx[k] + 1) {
            calls += run < pieces ? run : pieces;
            run = 0;
        }
    }
    free(idx);
    return calls;
}

/* Collective: a plan of l by strategy with this rank's hints `list`
 * (NULL: none) and COLLIO_HINTS `env` (NULL: unset). */
static int plan_with(tu_ctx *t, const collio_layout *l, const char *strategy,
                     const char *list, const char *env, collio_plan **p)
{
    collio_hints *h = list ? TU_HINTS(t, "%s", list) : NULL;
    if (env != NULL)
        setenv("COLLIO_HINTS", env, 1);
    int rc = collio_plan_create(t->comm, l, strategy, h, p);
    if (env != NULL)
        unsetenv("COLLIO_HINTS");
    collio_hints_free(&h);
    if (rc != COLLIO_OK)
        TU_CHECK(t, *p == NULL, "no plan after an error");
    return rc;
}

static void same_text(tu_ctx *t)
{
    char mine[512], root[512];
    snprintf(mine, sizeof mine, "%s", collio_last_error());
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, t->comm);
    TU_CHECK(t, strcmp(mine, root) == 0, "error text '%s' here, '%s' on rank 0", mine,
             root);
}

static void registry(tu_ctx *t, int first_rc)
{
    tu_case(t, "registered before anything else, listed");
    TU_RC(t, first_rc, COLLIO_OK, "collio__strategy_register(plugin)");
    TU_RC(t, collio__strategy_register(&collio_strategy_plugin), COLLIO_ERR_STATE,
          "the same name twice");
    int found = 0;
    for (int i = 0; i < collio_strategy_count(); i++)
        found += strcmp(collio_strategy_name(i), "plugin") == 0;
    TU_CHECK(t, found == 1, "collio_strategy_name lists plugin %d times", found);
    TU_CHECK(t, collio_strategy_summary("plugin") == collio_strategy_plugin.summary,
             "its summary");
    TU_CHECK(t, collio_strategy_is_canonical("plugin") == 1, "canonical");
}

static void catalogue(tu_ctx *t)
{
    tu_case(t, "plugin.pieces in the catalogue, plugin.calls in the stats'");
    int found = -1;
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        if (collio_option_describe(i, &o) == COLLIO_OK
            && strcmp(o.key, "plugin.pieces") == 0) {
            found = i;
            TU_CHECK(t,
                     strcmp(o.type, "int") == 0 && strcmp(o.deflt, "4") == 0
                         && strcmp(o.range, "1..64") == 0
                         && strcmp(o.doc, plugin_options[0].doc) == 0,
                     "described as int, 4, 1..64 with its doc: %s, %s, %s", o.type,
                     o.deflt, o.range);
        }
    }
    /* the registry's order: the last section, so the last option */
    TU_CHECK(t, found == collio_option_count() - 1, "plugin.pieces at %d of %d", found,
             collio_option_count());
    int stat = 0;
    for (int i = 0; i < collio_stat_count(); i++) {
        collio_stat_info s;
        if (collio_stat_describe(i, &s) == COLLIO_OK
            && strcmp(s.key, "plugin.calls") == 0)
            stat += s.per_call == 1 && strcmp(s.doc, plugin_stats[0].doc) == 0;
    }
    TU_CHECK(t, stat == 1, "plugin.calls described once, per call");
    /* the catalogue is in use: no more registrations */
    TU_RC(t, collio__strategy_register(&collio_strategy_late), COLLIO_ERR_STATE,
          "a registration after the catalogue was used");
    TU_CHECK(t, collio_strategy_is_canonical("late") == -1, "not registered");
}

static void hints(tu_ctx *t, const collio_layout *l)
{
    char got[64];
    int flag = 0;
    tu_case(t, "plugin.pieces: collio_hints_set, _parse, _set_info, COLLIO_HINTS");
    collio_hints *h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set(h, "plugin.pieces", "8"), COLLIO_OK, "collio_hints_set");
    collio_hints_get(h, "plugin.pieces", got, sizeof got, &flag);
    TU_CHECK(t, flag && strcmp(got, "8") == 0, "set: '%s'", got);
    TU_RC(t, collio_hints_parse(h, " plugin.pieces = 16 "), COLLIO_OK,
          "collio_hints_parse");
    collio_hints_get(h, "plugin.pieces", got, sizeof got, &flag);
    TU_CHECK(t, flag && strcmp(got, "16") == 0, "parsed: '%s'", got);
    collio_hints_free(&h);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "plugin.pieces", "8");
    MPI_Info_set(info, "cb_nodes", "1");
    h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set_info(h, info), COLLIO_OK, "collio_hints_set_info");
    collio_hints_get(h, "plugin.pieces", got, sizeof got, &flag);
    TU_CHECK(t, flag && strcmp(got, "8") == 0 && collio_hints_count(h) == 1,
             "from MPI_Info: '%s', %d keys", got, collio_hints_count(h));
    /* the plan runs with it; COLLIO_HINTS over it; the default */
    static const struct {
        const char *list, *env, *want;
    } c[] = {{NULL, NULL, "4"},
             {"plugin.pieces=8", NULL, "8"},
             {NULL, "plugin.pieces=32", "32"},
             {"plugin.pieces=8", "plugin.pieces=2", "2"}};
    for (int i = 0; i < 4; i++) {
        collio_plan *p = NULL;
        int rc = plan_with(t, l, "plugin", c[i].list, c[i].env, &p);
        if (TU_RC_ALL(t, rc, COLLIO_OK, "plan")) {
            TU_PLAN_HINT(t, p, "plugin.pieces", got);
            TU_CHECK(t, strcmp(got, c[i].want) == 0,
                     "hints %s, COLLIO_HINTS %s: '%s', want %s",
                     c[i].list ? c[i].list : "-", c[i].env ? c[i].env : "-", got,
                     c[i].want);
        }
        collio_plan_free(&p);
    }
    collio_plan *p = NULL;
    if (TU_RC_ALL(t, collio_plan_create(t->comm, l, "independent", h, &p), COLLIO_OK,
                  "another strategy's plan")) {
        TU_PLAN_HINT(t, p, "plugin.pieces", got);
        TU_CHECK(t, strcmp(got, "8") == 0, "reported by another strategy's plan too");
    }
    collio_plan_free(&p);
    collio_hints_free(&h);

    tu_case(t, "plugin.pieces: 0 and 65 are out of range");
    static const char *const bad[] = {"0", "65", "-4", "four"};
    for (int i = 0; i < 4; i++) {
        h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set(h, "plugin.pieces", bad[i]), COLLIO_ERR_ARG, bad[i]);
        TU_CHECK(t, strstr(collio_last_error(), "plugin.pieces") != NULL,
                 "'%s' names the key", collio_last_error());
        MPI_Info_set(info, "plugin.pieces", bad[i]);
        TU_RC(t, collio_hints_set_info(h, info), COLLIO_ERR_ARG, "MPI_Info");
        char env[64];
        snprintf(env, sizeof env, "plugin.pieces=%s", bad[i]);
        /* in COLLIO_HINTS: every rank, whichever strategy */
        int rc = plan_with(t, l, i % 2 ? "serial" : "plugin", NULL, env, &p);
        if (TU_RC_ALL(t, rc, COLLIO_ERR_ARG, env)) {
            TU_CHECK(t,
                     strstr(collio_last_error(), "plugin.pieces") != NULL
                         && strstr(collio_last_error(), "COLLIO_HINTS") != NULL,
                     "'%s' names the key and COLLIO_HINTS", collio_last_error());
            same_text(t);
        }
        collio_plan_free(&p);
        collio_hints_free(&h);
    }
    MPI_Info_free(&info);

    tu_case(t, "plugin.pieces differs on one rank");
    if (t->nranks < 2) {
        tu_skip(t, "options that differ between ranks need 2 ranks");
        return;
    }
    for (int odd = 0; odd < t->nranks; odd++) {
        int rc = plan_with(t, l, odd % 2 ? "plugin" : "two_phase",
                           t->rank == odd ? "plugin.pieces=8" : "", NULL, &p);
        collio_plan_free(&p);
        if (TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "plugin.pieces=8 on one rank")) {
            char want[128];
            const int first = odd != 0 ? odd : 1;
            snprintf(want, sizeof want,
                     "rank %d: plan options (hints) differ between rank 0 and rank %d",
                     first, first);
            TU_CHECK(t, strcmp(collio_last_error(), want) == 0, "'%s', want '%s'",
                     collio_last_error(), want);
            same_text(t);
        }
    }
}

/* Writes and reads d through plugin with `pieces` (0: the default): the
 * file against the reference, the read against the pattern, the stat
 * against want_calls. */
static void roundtrip(tu_ctx *t, const tu_layout_desc *d, int pieces)
{
    tu_case(t, "%s: plugin, plugin.pieces = %d%s", d->name, pieces ? pieces : 4,
            pieces ? "" : " (default)");
    if (!tu_case_enabled(t))
        return;
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    char list[64] = "";
    if (pieces)
        snprintf(list, sizeof list, "plugin.pieces=%d", pieces);
    collio_plan *p = NULL;
    int rc = plan_with(t, l, "plugin", list, NULL, &p);
    collio_layout_free(&l);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "plan"))
        return;
    TU_CHECK(t, strcmp(collio_plan_strategy(p), "plugin") == 0, "the plan's strategy");
    const int64_t want = want_calls(t, d, pieces ? pieces : 4);
    double calls = -1;
    TU_RC(t, collio_plan_stat(p, "plugin.calls", &calls), COLLIO_OK, "before any call");
    TU_CHECK(t, calls == 0, "plugin.calls %g before any call", calls);
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1), *back = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "plugin", path, sizeof path);
    for (int call = 0; call < 2; call++) {
        uint64_t seed = 40 + (uint64_t)pieces * 2 + (uint64_t)call;
        tu_fill(buf, idx, n, d->esize, seed);
        if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
            break;
        calls = TU_STAT(t, p, "plugin.calls");
        TU_CHECK(t, calls == want, "write %d: plugin.calls %g, want %lld", call, calls,
                 (long long)want);
        collio_stats st;
        collio_plan_stats(p, &st);
        TU_CHECK(t, st.file_requests == want && st.file_bytes == (int64_t)bytes,
                 "write %d: %lld requests, %lld bytes", call, (long long)st.file_requests,
                 (long long)st.file_bytes);
        TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1) == 0,
                 "write %d: the file differs from the reference", call);
        memset(back, 0, bytes + 1);
        if (!tu_plan_io(t, p, path, NULL, 0, back, bytes))
            break;
        int64_t first;
        TU_CHECK(t, tu_compare(back, idx, n, d->esize, seed, &first) == 0,
                 "read %d differs (element %lld)", call, (long long)first);
        calls = TU_STAT(t, p, "plugin.calls"); /* per call: the read's alone */
        TU_CHECK(t, calls == want, "read %d: plugin.calls %g, want %lld", call, calls,
                 (long long)want);
    }
    tu_remove(t, path);
    free(buf);
    free(back);
    free(idx);
    collio_plan_free(&p);
}

static void others(tu_ctx *t, const tu_layout_desc *d)
{
    tu_case(t, "another strategy's plan reads plugin.calls 0; subgroup runs plugin");
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    int64_t *idx = NULL, n = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &n);
    size_t bytes = (size_t)n * d->esize;
    unsigned char *buf = malloc(bytes + 1);
    tu_fill(buf, idx, n, d->esize, 61);
    char path[1024];
    tu_temp_path(t, "others", path, sizeof path);
    collio_plan *p = NULL;
    if (TU_RC_ALL(t, plan_with(t, l, "serial", "plugin.pieces=2", NULL, &p), COLLIO_OK,
                  "serial plan")
        && tu_plan_io(t, p, path, NULL, 1, buf, bytes))
        TU_CHECK(t, TU_STAT(t, p, "plugin.calls") == 0, "serial: plugin.calls 0");
    collio_plan_free(&p);
    /* groups of 2: the masters run plugin over their group's elements */
    if (TU_RC_ALL(t,
                  plan_with(t, l, "subgroup", "subgroup.group=2,subgroup.inner=plugin",
                            NULL, &p),
                  COLLIO_OK, "subgroup plan")
        && tu_plan_io(t, p, path, NULL, 1, buf, bytes)) {
        TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, 61, 0, 0, 1) == 0,
                 "subgroup(plugin): the file differs from the reference");
        int64_t group = n;
        if (t->rank % 2 == 1)
            MPI_Send(&n, 1, MPI_INT64_T, t->rank - 1, 0, t->comm);
        else if (t->rank + 1 < t->nranks) {
            int64_t mate = 0;
            MPI_Recv(&mate, 1, MPI_INT64_T, t->rank + 1, 0, t->comm, MPI_STATUS_IGNORE);
            group += mate;
        }
        double calls = TU_STAT(t, p, "plugin.calls");
        if (t->rank % 2 == 1)
            TU_CHECK(t, calls == 0, "a member: plugin.calls %g", calls);
        else /* at least one request per run, at most 4 per element */
            TU_CHECK(t, (group == 0) == (calls == 0) && calls <= 4 * (double)group,
                     "a master of %lld elements: plugin.calls %g", (long long)group,
                     calls);
    }
    collio_plan_free(&p);
    tu_remove(t, path);
    free(buf);
    free(idx);
    collio_layout_free(&l);
}

/* Collective: the plugin's candidate joins auto by its table alone --
 * the last of hint auto.only's values (tier 1, the last
 * strategy registered), a value of hint auto.only, a stat
 * auto.predicted_plugin_x4_s; priced by its own formula (above list I/O's
 * prediction: four requests per piece where list I/O makes one, the same
 * floor), and run by auto.only=plugin_x4 with its hint: a byte-exact
 * file, plugin.calls as plugin.pieces=4 makes them. */
static void candidate(tu_ctx *t, const tu_layout_desc *d)
{
    tu_case(t, "plugin as a candidate of auto: listed, priced, run");
    int n = 0, mine = -1, indep = -1;
    while (tu_candidate_name(n) != NULL) {
        if (strcmp(tu_candidate_name(n), "plugin_x4") == 0)
            mine = n;
        if (strcmp(tu_candidate_name(n), "independent") == 0)
            indep = n;
        n++;
    }
    TU_CHECK(t, mine == n - 1 && n == 14, "plugin_x4 is candidate %d of %d", mine, n);
    int listed = 0;
    for (int i = 0; i < collio_stat_count(); i++) {
        collio_stat_info info;
        if (collio_stat_describe(i, &info) == COLLIO_OK
            && strcmp(info.key, "auto.predicted_plugin_x4_s") == 0)
            listed = 1;
    }
    TU_CHECK(t, listed, "no stat auto.predicted_plugin_x4_s in the catalogue");
    collio_layout *l = NULL;
    if (!TU_RC_ALL(t, tu_desc_make(d, t->comm, &l), COLLIO_OK, "layout"))
        return;
    int64_t *idx = NULL, nl = 0;
    tu_enumerate(d, t->rank, t->nranks, &idx, &nl);
    size_t bytes = (size_t)nl * d->esize;
    unsigned char *buf = malloc(bytes + 1);
    tu_fill(buf, idx, nl, d->esize, 67);
    char path[1024];
    tu_temp_path(t, "candidate", path, sizeof path);
    collio_plan *p = NULL;
    setenv("COLLIO_AUTO_CALIBRATE", "0", 1); /* (the built-in costs: no file) */
    if (TU_RC_ALL(t,
                  plan_with(t, l, "auto", "auto.use_calibration=0,auto.only=plugin_x4",
                            NULL, &p),
                  COLLIO_OK, "auto plan, auto.only=plugin_x4")
        && tu_plan_io(t, p, path, NULL, 1, buf, bytes)) {
        TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, 67, 0, 0, 1) == 0,
                 "auto(plugin_x4): the file differs from the reference");
        TU_CHECK(t, TU_STAT(t, p, "auto.write_choice") == mine, "auto ran %g, not %d",
                 TU_STAT(t, p, "auto.write_choice"), mine);
        double calls = TU_STAT(t, p, "plugin.calls");
        TU_CHECK(t, calls == (double)want_calls(t, d, PIECES),
                 "plugin.calls %g under auto, want %lld", calls,
                 (long long)want_calls(t, d, PIECES));
        double own = TU_STAT(t, p, "auto.predicted_plugin_x4_s");
        char key[64];
        snprintf(key, sizeof key, "auto.predicted_%s_s", tu_candidate_name(indep));
        double list = TU_STAT(t, p, key);
        TU_CHECK(t, isfinite(own) && own > list && list > 0,
                 "predicted plugin_x4 %g s, independent %g s", own, list);
    }
    unsetenv("COLLIO_AUTO_CALIBRATE");
    collio_plan_free(&p);
    tu_remove(t, path);
    free(buf);
    free(idx);
    collio_layout_free(&l);
}

static void bench_help(tu_ctx *t)
{
    tu_case(t, "the bench's help lists --plugin.pieces");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (TU_CHECK(t, m != NULL, "open_memstream")) {
        (void)collio_bench_usage(m);
        fclose(m);
        TU_CHECK(t, text && strstr(text, "--plugin.pieces") != NULL,
                 "collio_bench_usage does not list --plugin.pieces");
        TU_CHECK(t, text && strstr(text, "--multiphase.exchange") != NULL,
                 "collio_bench_usage does not list --multiphase.exchange");
    }
    free(text);
}

/* collio_calibrate (the full budget: no time limit on the strategies'
 * terms) times plugin.call and runs the hook once: plugin.piece set, both
 * positive, the same on every rank. */
static void calibration_terms(tu_ctx *t)
{
    tu_case(t, "calibration: plugin.call timed, plugin.piece by its own hook");
    char dir[1024];
    tu_temp_path(t, "plugin-cal", dir, sizeof dir);
    collio_calibration cal;
    collio_fs_costs fs;
    collio_calibration_defaults(&cal);
    memset(&fs, 0, sizeof fs);
    const collio_calibrate_opts o = {COLLIO_CALIBRATE_FULL, 1, 256};
    int rc = collio_calibrate(t->comm, dir, &o, &cal, &fs, NULL);
    if (t->rank == 0)
        rmdir(dir);
    if (!TU_RC_ALL(t, rc, COLLIO_OK, "collio_calibrate"))
        return;
    const collio_cost_term *call = collio_fs_costs_term(&fs, "plugin.call"),
                           *piece = collio_fs_costs_term(&fs, "plugin.piece");
    TU_CHECK(t, measured == 1, "the measure hook ran %d times, want once", measured);
    TU_CHECK(t, call != NULL && call->write_s > 0 && call->read_s > 0,
             "plugin.call not timed");
    TU_CHECK(t, piece != NULL && piece->write_s > 0 && piece->read_s > 0,
             "plugin.piece not set by the hook");
    double mine[2] = {piece != NULL ? piece->write_s : -1,
                      piece != NULL ? piece->read_s : -1},
           most[2];
    MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, t->comm);
    TU_CHECK(t, mine[0] == most[0] && mine[1] == most[1],
             "plugin.piece differs between ranks");
}

int main(int argc, char **argv)
{
    /* first thing: nothing has touched the catalogue yet */
    int reg = collio__strategy_register(&collio_strategy_plugin);
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_plugin");
    registry(&t, reg);
    catalogue(&t);
    tu_layout_desc bc, runs, il, da;
    tu_desc_block_cyclic(&bc, 10007, 3, 4);
    tu_desc_block_cyclic(&runs, 10007, 100, 2); /* runs longer than most pieces */
    tu_desc_index_list(&il, t.rank, t.nranks, 3001, TU_IL_SHUFFLED, 5, 8);
    const int64_t g[2] = {37, 23};
    const collio_distrib dist[2] = {COLLIO_DIST_CYCLIC, COLLIO_DIST_BLOCK};
    tu_desc_darray(&da, t.nranks, 2, g, dist, NULL, NULL, COLLIO_ORDER_FORTRAN, 12);
    collio_layout *l = NULL;
    if (TU_RC_ALL(&t, tu_desc_make(&bc, t.comm, &l), COLLIO_OK, "layout"))
        hints(&t, l);
    collio_layout_free(&l);
    static const int pieces[] = {0, 1, 2, 8, 64};
    for (int k = 0; k < 5; k++) {
        roundtrip(&t, &bc, pieces[k]);
        roundtrip(&t, &runs, pieces[k]);
        roundtrip(&t, &il, pieces[k]);
        roundtrip(&t, &da, pieces[k]);
    }
    others(&t, &bc);
    candidate(&t, &bc);
    bench_help(&t);
    calibration_terms(&t);
    tu_desc_free(&bc);
    tu_desc_free(&runs);
    tu_desc_free(&il);
    tu_desc_free(&da);
    return tu_finish(&t);
}
