/*
 * mpi_options.c -- plan options (hints), generated from the catalogue.
 *
 * Every case below is made from collio_option_count / collio_option_describe
 * (key, type, default, range), so an option added to any section's table
 * is tested here without an edit:
 *  (a) a different valid value on one rank (the rank rotates with the
 *      case), for every strategy, in that rank's hints or in its
 *      COLLIO_HINTS: COLLIO_ERR_MISMATCH on every rank with the same text,
 *      "rank R: plan options (hints) differ between rank 0 and rank R"
 *      (R the lowest rank that differs from rank 0); the default spelled
 *      out on one rank is no difference;
 *  (b) every way the text of a value can be bad for its type (below or
 *      above the range, not a number, junk after it, an unknown name, a
 *      strategy that does not exist, empty): collio_hints_set and
 *      collio_hints_parse return COLLIO_ERR_ARG (COLLIO_ERR_STRATEGY for a
 *      strategy) on this rank with collio_last_error naming the key and
 *      keep the set as it was; the same value in COLLIO_HINTS (set before
 *      collio_plan_create, unset after) fails the plan with that code on
 *      every rank, naming the key and COLLIO_HINTS -- also where the plan's
 *      strategy is not the option's section's; collio_hints_set_int out of
 *      range;
 *  (c) unknown keys, through collio_hints_set, collio_hints_parse and
 *      COLLIO_HINTS, and malformed lists;
 *  (d) collio_hints_parse: spaces around keys and values, empty items,
 *      repeated keys, sizes with suffixes, booleans by word, the pairs
 *      before a bad one kept; the set's own API (count, key, get);
 *  (e) collio_hints_set_info: collio's keys taken, MPI-IO's (cb_nodes,
 *      romio_cb_write, ...) and other sections' ignored, a bad value or an
 *      unknown key of a collio section rejected;
 *  (f) precedence, read back through collio_plan_hints: COLLIO_HINTS over
 *      the hints object over the default, for every option;
 *  (g) collio_plan_hints reports every key of the catalogue, in its
 *      order, defaults included (a strategy or a path without a default:
 *      only once set);
 *  (h) a non-default value reaches what it governs, checked where it can
 *      be seen, against the test's own expectation (testutil's
 *      independent file reference, the layout's definition): every
 *      option's other value round-trips byte-exact under every strategy;
 *      serial.chunk_bytes (rank 0's file requests = windows; work buffers
 *      within the window, kept or not),
 *      independent.max_iov (vectored requests), multiphase.phases /
 *      write_rounds / exchange / shared_memory (stats), subgroup.group /
 *      inner (stats, and the inner strategy's own stats),
 *      plan.destroy_input (the buffer may change, the file does not),
 *      plan.keep_buffers (the same work_bytes; the buffers stay mapped
 *      until collio_plan_free only when kept -- the strategy's, and on a
 *      replicated layout the executor's stream of written elements and
 *      the read's fill buffers, each call byte-exact), replicas.policy /
 *      replicas.seed on a replicated layout (stat replicas.policy, the
 *      writer of each element read back from the file);
 *  (i) COLLIO_COPY_ALIAS, the process's copy knob beside the hints: 0, 1
 *      and empty taken; any other value on one rank (the rank rotates)
 *      fails the plan with COLLIO_ERR_ARG on every rank, the same text
 *      naming the variable and the value.
 * At the end rank 0 prints how many cases the catalogue generated.
 *
 * Usage: mpi_options [FILTER]   (only cases whose description contains it)
 */
#include "testutil.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------- the catalogue */

enum { T_INT, T_SIZE, T_BOOL, T_NAME, T_STRATEGY, T_U64, T_PATH };

typedef struct opt {
    collio_option_info info;
    int type;
    int64_t min, max, def; /* INT, SIZE: range; BOOL: 0..1; NAME: index */
    char names[16][32];    /* NAME: the names, in index order */
    int nnames;
    char alt[64]; /* a valid value other than the default (canonical) */
} opt;

static opt *opts;
static int nopts;
static int64_t ncases; /* cases generated (the same on every rank) */

/* Starts a case; 0 if the filter leaves it out. */
static int begin(tu_ctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int begin(tu_ctx *t, const char *fmt, ...)
{
    char d[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d, sizeof d, fmt, ap);
    va_end(ap);
    tu_case(t, "%s", d);
    ncases++;
    return tu_case_enabled(t);
}

/* A registered strategy other than `not` that subgroup can run. */
static const char *other_strategy(const char * not )
{
    for (int i = 0; i < collio_strategy_count(); i++) {
        const char *s = collio_strategy_name(i);
        if (strcmp(s, not ) != 0 && strcmp(s, "subgroup") != 0
            && collio_strategy_is_canonical(s) == 1)
            return s;
    }
    return NULL;
}

static int read_catalogue(tu_ctx *t)
{
    tu_case(t, "the catalogue");
    nopts = collio_option_count();
    TU_CHECK(t, nopts > 0, "collio_option_count %d", nopts);
    opts = calloc((size_t)(nopts > 0 ? nopts : 1), sizeof *opts);
    collio_option_info none;
    TU_RC(t, collio_option_describe(nopts, &none), COLLIO_ERR_ARG,
          "describe past the end");
    TU_RC(t, collio_option_describe(-1, &none), COLLIO_ERR_ARG, "describe -1");
    TU_RC(t, collio_option_describe(0, NULL), COLLIO_ERR_ARG, "describe into NULL");
    int ok = 1;
    for (int i = 0; i < nopts; i++) {
        opt *o = &opts[i];
        if (!TU_RC(t, collio_option_describe(i, &o->info), COLLIO_OK, "describe")) {
            ok = 0;
            continue;
        }
        const collio_option_info *in = &o->info;
        TU_CHECK(t, strchr(in->key, '.') != NULL && in->doc && in->doc[0],
                 "%s: a SECTION.NAME key and a line of doc", in->key);
        for (int j = 0; j < i; j++)
            TU_CHECK(t, strcmp(opts[j].info.key, in->key) != 0, "%s listed twice",
                     in->key);
        static const char *const types[] = {"int",      "size",   "bool", "name",
                                            "strategy", "uint64", "path"};
        o->type = -1;
        for (int k = 0; k < 7; k++)
            if (strcmp(in->type, types[k]) == 0)
                o->type = k;
        if (!TU_CHECK(t, o->type >= 0, "%s: unknown type '%s'", in->key, in->type)) {
            ok = 0;
            continue;
        }
        switch (o->type) {
        case T_INT:
        case T_SIZE:
            ok &=
                TU_CHECK(t,
                         sscanf(in->range, "%" SCNd64 "..%" SCNd64, &o->min, &o->max) == 2
                             && o->min <= o->max,
                         "%s: range '%s'", in->key, in->range);
            o->def = strtoll(in->deflt, NULL, 10);
            TU_CHECK(t, o->def >= o->min && o->def <= o->max, "%s: default %s in %s",
                     in->key, in->deflt, in->range);
            /* another value: half the default, else the minimum, else one
             * more (a value the strategies run with at test sizes) */
            if (o->def / 2 > o->min && o->def / 2 != o->def)
                snprintf(o->alt, sizeof o->alt, "%" PRId64, o->def / 2);
            else if (o->def > o->min)
                snprintf(o->alt, sizeof o->alt, "%" PRId64, o->min);
            else
                snprintf(o->alt, sizeof o->alt, "%" PRId64, o->def + 1);
            break;
        case T_BOOL:
            o->min = 0, o->max = 1;
            o->def = strcmp(in->deflt, "1") == 0;
            TU_CHECK(t, strcmp(in->deflt, "0") == 0 || o->def, "%s: default '%s'",
                     in->key, in->deflt);
            snprintf(o->alt, sizeof o->alt, "%d", !o->def);
            break;
        case T_NAME: {
            char r[400];
            snprintf(r, sizeof r, "%s", in->range);
            o->def = -1;
            for (char *s = strtok(r, "|"); s && o->nnames < 16; s = strtok(NULL, "|")) {
                if (strcmp(s, in->deflt) == 0)
                    o->def = o->nnames;
                snprintf(o->names[o->nnames++], sizeof o->names[0], "%s", s);
            }
            ok &= TU_CHECK(t, o->nnames >= 2 && o->def >= 0,
                           "%s: names '%s', default '%s'", in->key, in->range, in->deflt);
            if (o->def >= 0)
                snprintf(o->alt, sizeof o->alt, "%s", o->names[(o->def + 1) % o->nnames]);
            break;
        }
        case T_STRATEGY: {
            TU_CHECK(t,
                     in->deflt[0] == '\0' || collio_strategy_is_canonical(in->deflt) >= 0,
                     "%s: default '%s' is a registered strategy", in->key, in->deflt);
            const char *s = other_strategy(in->deflt);
            snprintf(o->alt, sizeof o->alt, "%s", s ? s : "");
            break;
        }
        case T_U64:
            o->def = (int64_t)strtoull(in->deflt, NULL, 10);
            snprintf(o->alt, sizeof o->alt, "%" PRIu64, (uint64_t)o->def + 1);
            break;
        case T_PATH: /* any path: a directory that exists */
            snprintf(o->alt, sizeof o->alt, "%s",
                     getenv("COLLIO_TEST_TMPDIR") ? getenv("COLLIO_TEST_TMPDIR")
                                                  : "/tmp");
            break;
        }
        TU_CHECK(t, o->alt[0] != '\0' && strcmp(o->alt, in->deflt) != 0,
                 "%s: another valid value than '%s' found", in->key, in->deflt);
    }
    return tu_all(t, ok);
}

/* The option of KEY, or NULL. */
static const opt *find(const char *key)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i].info.key, key) == 0)
            return &opts[i];
    return NULL;
}

/* ------------------------------------------------------------- helpers */

/* Collective: a plan of l by `strategy`, with this rank's hints parsed
 * from `list` (NULL: no hints object) and `env` as this rank's
 * COLLIO_HINTS (NULL: unset). Returns the code; *p the plan (or NULL). */
static int plan_with(tu_ctx *t, const collio_layout *l, const char *strategy,
                     const char *list, const char *env, collio_plan **p)
{
    collio_hints *h = list != NULL ? TU_HINTS(t, "%s", list) : NULL;
    if (env != NULL)
        setenv("COLLIO_HINTS", env, 1);
    *p = (collio_plan *)(void *)&ncases; /* not NULL: a failure must clear it */
    int rc = collio_plan_create(t->comm, l, strategy, h, p);
    if (env != NULL)
        unsetenv("COLLIO_HINTS");
    collio_hints_free(&h);
    if (rc != COLLIO_OK) {
        TU_CHECK(t, *p == NULL, "no plan after a failed collio_plan_create");
        *p = NULL;
    }
    return rc;
}

/* Collective: collio_last_error() is the same on every rank (rank 0's). */
static void same_text(tu_ctx *t)
{
    char mine[512], root[512];
    snprintf(mine, sizeof mine, "%s", collio_last_error());
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, t->comm);
    TU_CHECK(t, strcmp(mine, root) == 0, "error text '%s' here, '%s' on rank 0", mine,
             root);
}

/* collio_last_error() contains a and, if given, b. */
static void names(tu_ctx *t, const char *a, const char *b)
{
    const char *e = collio_last_error();
    TU_CHECK(t, strstr(e, a) != NULL && (b == NULL || strstr(e, b) != NULL),
             "error text '%s' should name '%s'%s%s", e, a, b ? " and " : "", b ? b : "");
}

/* collio_option_value_name / collio_option_value: the names of options of
 * type "name" in the order docs/options.md lists them (the values the
 * tests use: testutil.h), their round trip, the end of each list and
 * the keys without names. */
static void value_names(tu_ctx *t)
{
    tu_case(t, "collio_option_value_name: the values of name options");
    static const char *const ex[] = {"auto", "hypercube", "direct", "node-direct",
                                     "node-hypercube"};
    static const char *const rp[] = {"auto", "owner", "idg", "random", "first", "domain"};
    _Static_assert(sizeof ex / sizeof ex[0] == TU_EXCHANGE__COUNT, "ex");
    _Static_assert(sizeof rp / sizeof rp[0] == TU_REPLICAS__COUNT, "rp");
    const struct {
        const char *key;
        const char *const *names;
        int n;
    } lists[] = {{"multiphase.exchange", ex, TU_EXCHANGE__COUNT},
                 {"replicas.policy", rp, TU_REPLICAS__COUNT}};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        const char *key = lists[k].key, *const *want = lists[k].names;
        for (int v = 0; v < lists[k].n; v++) {
            const char *n = collio_option_value_name(key, v);
            TU_CHECK(t, n != NULL && strcmp(n, want[v]) == 0, "%s %d: %s, want %s", key,
                     v, n ? n : "NULL", want[v]);
            TU_CHECK(t, collio_option_value(key, want[v]) == v, "%s %s", key, want[v]);
        }
        TU_CHECK(t, collio_option_value_name(key, lists[k].n) == NULL,
                 "%s: the names end after %s", key, want[lists[k].n - 1]);
    }
    TU_CHECK(t,
             strcmp(collio_option_value_name("auto.only", 0), "any") == 0
                 && strcmp(tu_candidate_name(0), "serial") == 0
                 && strcmp(tu_candidate_name(1), "independent") == 0,
             "auto.only: any, serial, independent, ...");
    TU_CHECK(t,
             collio_option_value_name("multiphase.exchange", -1) == NULL
                 && collio_option_value_name("multiphase.phases", 0) == NULL
                 && collio_option_value_name("no.such", 0) == NULL
                 && collio_option_value_name(NULL, 0) == NULL,
             "no names: a negative value, an int option, an unknown or NULL key");
    TU_CHECK(t,
             collio_option_value("multiphase.exchange", "nope") == -1
                 && collio_option_value("multiphase.phases", "0") == -1
                 && collio_option_value("multiphase.exchange", NULL) == -1,
             "no value: an unknown name, an int option, a NULL name");
}

/* The value of KEY the plan runs with (collio_plan_hints). */
static void want_hint(tu_ctx *t, const collio_plan *p, const char *key, const char *want,
                      const char *why)
{
    char got[128];
    TU_PLAN_HINT(t, p, key, got);
    TU_CHECK(t, strcmp(got, want) == 0, "%s: plan hint %s = '%s', want '%s'", why, key,
             got, want);
}

/* Packed buffer of this rank's elements of d (pattern `seed`). */
static unsigned char *filled(tu_ctx *t, const tu_layout_desc *d, uint64_t seed,
                             int64_t **idx, int64_t *n, size_t *bytes)
{
    tu_enumerate(d, t->rank, t->nranks, idx, n);
    *bytes = (size_t)*n * d->esize;
    unsigned char *buf = malloc(*bytes + 1);
    tu_fill(buf, *idx, *n, d->esize, seed);
    return buf;
}

/* Collective: writes with p (the file checked against testutil's
 * reference where the strategy is canonical), reads back (checked
 * against the pattern). 1 if every step passed. *st: the stats after the
 * write (NULL: not wanted). */
static int roundtrip(tu_ctx *t, collio_plan *p, const tu_layout_desc *d, uint64_t seed,
                     collio_stats *st)
{
    int64_t *idx = NULL, n = 0;
    size_t bytes = 0;
    unsigned char *buf = filled(t, d, seed, &idx, &n, &bytes);
    unsigned char *back = malloc(bytes + 1);
    char path[1024];
    tu_temp_path(t, "opt", path, sizeof path);
    int ok = tu_plan_io(t, p, path, NULL, 1, buf, bytes);
    if (ok && st != NULL)
        collio_plan_stats(p, st);
    if (ok && collio_strategy_is_canonical(collio_plan_strategy(p)) == 1)
        ok = TU_CHECK(t, tu_check_file(t, path, d->nglobal, d->esize, seed, 0, 0, 1) == 0,
                      "the file differs from the reference");
    memset(back, 0, bytes + 1);
    if (ok && tu_plan_io(t, p, path, NULL, 0, back, bytes)) {
        int64_t first;
        ok = TU_CHECK(t, tu_compare(back, idx, n, d->esize, seed, &first) == 0,
                      "read back differs (element %lld)", (long long)first);
    }
    tu_remove(t, path);
    free(buf);
    free(back);
    free(idx);
    return tu_all(t, ok);
}

/* ------------------------------------------- (a) one rank differs */

static void mismatches(tu_ctx *t, const collio_layout *l)
{
    if (t->nranks < 2) {
        tu_skip(t, "options that differ between ranks need 2 ranks");
        return;
    }
    for (int i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        char mine[160], def[160];
        snprintf(def, sizeof def, "%s=%s", o->info.key, o->info.deflt);
        /* a path without a default cannot spell it out: the others say nothing */
        const int nodef = o->type == T_PATH && o->info.deflt[0] == '\0';
        for (int s = 0; s <= collio_strategy_count(); s++) {
            /* every strategy through the hints object; once more through
             * COLLIO_HINTS */
            const int env = s == collio_strategy_count();
            const char *strategy = collio_strategy_name(env ? i % s : s);
            const int odd = (int)(ncases % t->nranks), me = t->rank == odd;
            const int first = odd != 0 ? odd : 1; /* lowest rank unlike rank 0 */
            snprintf(mine, sizeof mine, "%s=%s", o->info.key, o->alt);
            if (!begin(t, "(a) %s = %s on rank %d only (%s), strategy %s", o->info.key,
                       o->alt, odd, env ? "its COLLIO_HINTS" : "its hints", strategy))
                continue;
            /* the others: nothing, or the default spelled out */
            const char *others = (s % 2) && !nodef ? def : "";
            collio_plan *p = NULL;
            int rc = plan_with(t, l, strategy,
                               env  ? ""
                               : me ? mine
                                    : others,
                               env && me ? mine : NULL, &p);
            collio_plan_free(&p);
            if (TU_RC_ALL(t, rc, COLLIO_ERR_MISMATCH, "collio_plan_create")) {
                char want[160];
                snprintf(
                    want, sizeof want,
                    "rank %d: plan options (hints) differ between rank 0 and rank %d",
                    first, first);
                TU_CHECK(t, strcmp(collio_last_error(), want) == 0,
                         "error text '%s', want '%s'", collio_last_error(), want);
                same_text(t);
            }
        }
        /* control: the default spelled out on one rank is the default */
        const int odd = (int)(ncases % t->nranks);
        if (nodef)
            continue;
        if (!begin(t, "(a) %s = %s (the default) on rank %d only", o->info.key,
                   o->info.deflt, odd))
            continue;
        collio_plan *p = NULL;
        int rc = plan_with(t, l, collio_strategy_name(i % collio_strategy_count()),
                           t->rank == odd ? def : "", NULL, &p);
        TU_RC_ALL(t, rc, COLLIO_OK, "the default spelled out");
        collio_plan_free(&p);
    }
}

/* ----------------------------------------------------- (b) bad values */

typedef struct bad {
    char text[64];
    const char *why;
    int code;
} bad;

/* Every way the text of a value of o's type can be bad. */
static int bad_values(const opt *o, bad *b)
{
    int n = 0;
#define BAD(why_, code_, ...)                                                            \
    do {                                                                                 \
        snprintf(b[n].text, sizeof b[n].text, __VA_ARGS__);                              \
        b[n].why = why_;                                                                 \
        b[n++].code = code_;                                                             \
    } while (0)
    switch (o->type) {
    case T_INT:
    case T_SIZE:
        if (o->min > INT64_MIN)
            BAD("below the range", COLLIO_ERR_ARG, "%" PRId64, o->min - 1);
        if (o->max < INT64_MAX)
            BAD("above the range", COLLIO_ERR_ARG, "%" PRId64, o->max + 1);
        else
            BAD("above the range (beyond int64)", COLLIO_ERR_ARG, "9223372036854775808");
        BAD("far below the range (beyond int64)", COLLIO_ERR_ARG, "-9223372036854775809");
        BAD("not a number", COLLIO_ERR_ARG, "abc");
        BAD("junk after the number", COLLIO_ERR_ARG, "%" PRId64 "x", o->min);
        BAD("not an integer", COLLIO_ERR_ARG, "1.5");
        BAD("empty", COLLIO_ERR_ARG, "%s", "");
        if (o->type == T_INT)
            BAD("a size suffix on an integer", COLLIO_ERR_ARG, "1K");
        else {
            BAD("an unknown size suffix", COLLIO_ERR_ARG, "4Q");
            BAD("a size that overflows", COLLIO_ERR_ARG, "9223372036854775807K");
        }
        break;
    case T_BOOL:
        BAD("2 is not a boolean", COLLIO_ERR_ARG, "2");
        BAD("-1 is not a boolean", COLLIO_ERR_ARG, "-1");
        BAD("not a boolean word", COLLIO_ERR_ARG, "maybe");
        BAD("empty", COLLIO_ERR_ARG, "%s", "");
        break;
    case T_NAME:
        BAD("an unknown name", COLLIO_ERR_ARG, "no-such-%s", o->names[0]);
        BAD("names are case-sensitive", COLLIO_ERR_ARG, "%c%s",
            toupper((unsigned char)o->names[1][0]), o->names[1] + 1);
        BAD("an index is not a name", COLLIO_ERR_ARG, "1");
        BAD("the count is not a name", COLLIO_ERR_ARG, "%d", o->nnames);
        BAD("empty", COLLIO_ERR_ARG, "%s", "");
        break;
    case T_STRATEGY:
        BAD("a strategy that does not exist", COLLIO_ERR_STRATEGY, "no-such-strategy");
        BAD("empty", COLLIO_ERR_STRATEGY, "%s", "");
        break;
    case T_PATH:
        BAD("empty", COLLIO_ERR_ARG, "%s", "");
        break;
    case T_U64:
        BAD("negative", COLLIO_ERR_ARG, "-1");
        BAD("above 2^64-1", COLLIO_ERR_ARG, "18446744073709551616");
        BAD("not a number", COLLIO_ERR_ARG, "abc");
        BAD("junk after the number", COLLIO_ERR_ARG, "7x");
        BAD("empty", COLLIO_ERR_ARG, "%s", "");
        break;
    }
#undef BAD
    return n;
}

static void bad_text(tu_ctx *t, const collio_layout *l)
{
    int64_t nplan = 0;
    for (int i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        const char *key = o->info.key;
        bad b[16];
        int nb = bad_values(o, b);
        for (int k = 0; k < nb; k++) {
            if (!begin(t, "(b) %s = '%s' (%s): collio_hints_set, collio_hints_parse", key,
                       b[k].text, b[k].why))
                continue;
            collio_hints *h = TU_HINTS(t, "%s", "");
            TU_RC(t, collio_hints_set(h, key, o->alt), COLLIO_OK, "a good value first");
            TU_RC(t, collio_hints_set(h, key, b[k].text), b[k].code, "collio_hints_set");
            names(t, key, NULL);
            char got[128] = "";
            int flag = 0;
            collio_hints_get(h, key, got, sizeof got, &flag);
            TU_CHECK(t, flag && strcmp(got, o->alt) == 0 && collio_hints_count(h) == 1,
                     "the set keeps '%s' after a rejected value (got '%s')", o->alt, got);
            char list[1400];
            snprintf(list, sizeof list, "%s=%s", key, b[k].text);
            TU_RC(t, collio_hints_parse(h, list), b[k].code, "collio_hints_parse");
            names(t, key, "collio_hints_parse");
            collio_hints_free(&h);

            /* in COLLIO_HINTS on every rank: the plan fails everywhere,
             * whichever strategy it is for */
            const char *strategy =
                collio_strategy_name((int)(nplan++ % collio_strategy_count()));
            if (!begin(t, "(b) %s = '%s' (%s) in COLLIO_HINTS, strategy %s", key,
                       b[k].text, b[k].why, strategy))
                continue;
            collio_plan *p = NULL;
            int rc = plan_with(t, l, strategy, NULL, list, &p);
            collio_plan_free(&p);
            if (TU_RC_ALL(t, rc, b[k].code, "collio_plan_create")) {
                names(t, key, "COLLIO_HINTS");
                TU_CHECK(t, strncmp(collio_last_error(), "rank 0: ", 8) == 0,
                         "'%s': rank 0 (every rank) found it", collio_last_error());
                same_text(t);
            }
        }
        /* collio_hints_set_int: numbers out of the type's range */
        if (!begin(t, "(b) %s: collio_hints_set_int", key))
            continue;
        collio_hints *h = TU_HINTS(t, "%s", "");
        char got[128] = "";
        int flag = 0;
        switch (o->type) {
        case T_INT:
        case T_SIZE:
            if (o->min > INT64_MIN)
                TU_RC(t, collio_hints_set_int(h, key, o->min - 1), COLLIO_ERR_ARG,
                      "min - 1");
            if (o->max < INT64_MAX)
                TU_RC(t, collio_hints_set_int(h, key, o->max + 1), COLLIO_ERR_ARG,
                      "max + 1");
            TU_RC(t, collio_hints_set_int(h, key, o->max), COLLIO_OK, "max");
            collio_hints_get(h, key, got, sizeof got, &flag);
            TU_CHECK(t, flag && strtoll(got, NULL, 10) == o->max, "max reads '%s'", got);
            break;
        case T_BOOL:
            TU_RC(t, collio_hints_set_int(h, key, 2), COLLIO_ERR_ARG, "2");
            TU_RC(t, collio_hints_set_int(h, key, -1), COLLIO_ERR_ARG, "-1");
            TU_RC(t, collio_hints_set_int(h, key, !o->def), COLLIO_OK, "the other value");
            collio_hints_get(h, key, got, sizeof got, &flag);
            TU_CHECK(t, flag && strcmp(got, o->alt) == 0, "reads '%s'", got);
            break;
        case T_NAME:
            TU_RC(t, collio_hints_set_int(h, key, o->nnames), COLLIO_ERR_ARG,
                  "the count");
            TU_RC(t, collio_hints_set_int(h, key, -1), COLLIO_ERR_ARG, "-1");
            for (int k = 0; k < o->nnames; k++) {
                TU_RC(t, collio_hints_set_int(h, key, k), COLLIO_OK, "an index");
                collio_hints_get(h, key, got, sizeof got, &flag);
                TU_CHECK(t, flag && strcmp(got, o->names[k]) == 0,
                         "index %d reads '%s', want '%s'", k, got, o->names[k]);
            }
            break;
        case T_STRATEGY:
        case T_PATH:
            TU_RC(t, collio_hints_set_int(h, key, 0), COLLIO_ERR_ARG, "a number");
            break;
        case T_U64:
            TU_RC(t, collio_hints_set_int(h, key, -1), COLLIO_OK, "all bits");
            collio_hints_get(h, key, got, sizeof got, &flag);
            TU_CHECK(t, flag && strcmp(got, "18446744073709551615") == 0, "reads '%s'",
                     got);
            break;
        }
        if (o->type == T_STRATEGY || o->type == T_PATH)
            TU_CHECK(t, collio_hints_count(h) == 0, "nothing kept");
        collio_hints_free(&h);
    }
}

/* --------------------------------------------------- (c) unknown keys */

static void unknown_keys(tu_ctx *t, const collio_layout *l)
{
    /* section and name taken from the catalogue, so they exist apart */
    const char *k0 = opts[0].info.key, *klast = opts[nopts - 1].info.key;
    char sec[64], name[64], keys[10][160];
    snprintf(sec, sizeof sec, "%.*s", (int)(strchr(klast, '.') - klast), klast);
    snprintf(name, sizeof name, "%s", strchr(k0, '.') + 1);
    int n = 0;
    snprintf(keys[n++], sizeof keys[0], "%s.no_such_option", sec);
    snprintf(keys[n++], sizeof keys[0], "no_such_section.%s", name);
    snprintf(keys[n++], sizeof keys[0], "%s", name); /* no section */
    snprintf(keys[n++], sizeof keys[0], "%s.", sec);
    snprintf(keys[n++], sizeof keys[0], ".%s", name);
    snprintf(keys[n++], sizeof keys[0], "%s.x", k0);
    snprintf(keys[n++], sizeof keys[0], "%c%s", toupper((unsigned char)k0[0]), k0 + 1);
    snprintf(keys[n++], sizeof keys[0], "%s.%s", sec, name); /* another section's name */
    for (int i = 0; i < n; i++) {
        if (find(keys[i]) != NULL)
            continue; /* (a real key after all) */
        if (!begin(t, "(c) unknown key '%s'", keys[i]))
            continue;
        collio_hints *h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set(h, keys[i], "1"), COLLIO_ERR_ARG, "collio_hints_set");
        names(t, keys[i], "unknown");
        char list[2048];
        snprintf(list, sizeof list, "%s=%s,%s=1", k0, opts[0].alt, keys[i]);
        TU_RC(t, collio_hints_parse(h, list), COLLIO_ERR_ARG, "collio_hints_parse");
        names(t, keys[i], "unknown");
        TU_CHECK(t, collio_hints_count(h) == 1 && strcmp(collio_hints_key(h, 0), k0) == 0,
                 "the pair before the bad one is kept, only it");
        collio_hints_free(&h);
        collio_plan *p = NULL;
        int rc = plan_with(t, l, collio_strategy_name(i % collio_strategy_count()), NULL,
                           list, &p);
        collio_plan_free(&p);
        if (TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "COLLIO_HINTS with an unknown key")) {
            names(t, keys[i], "COLLIO_HINTS");
            same_text(t);
        }
    }
    /* the empty key, and a key with a space (only a list trims) */
    if (begin(t, "(c) the empty key, a key with a trailing space")) {
        collio_hints *h = TU_HINTS(t, "%s", "");
        char sp[128];
        snprintf(sp, sizeof sp, "%s ", k0);
        TU_RC(t, collio_hints_set(h, "", "1"), COLLIO_ERR_ARG, "empty key");
        TU_RC(t, collio_hints_set(h, sp, opts[0].alt), COLLIO_ERR_ARG, "trailing space");
        TU_RC(t, collio_hints_set(NULL, k0, opts[0].alt), COLLIO_ERR_ARG, "NULL set");
        TU_RC(t, collio_hints_set(h, NULL, "1"), COLLIO_ERR_ARG, "NULL key");
        TU_RC(t, collio_hints_set(h, k0, NULL), COLLIO_ERR_ARG, "NULL value");
        TU_CHECK(t, collio_hints_count(h) == 0, "nothing kept");
        collio_hints_free(&h);
    }
    /* malformed lists */
    static const char *const lists[] = {"=1", "%s", "%s=1=2", "%s==1"};
    for (int i = 0; i < 4; i++) {
        char list[160];
        snprintf(list, sizeof list, lists[i], k0);
        if (!begin(t, "(c) malformed list '%s'", list))
            continue;
        collio_hints *h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_parse(h, list), COLLIO_ERR_ARG, "collio_hints_parse");
        TU_CHECK(t, collio_hints_count(h) == 0, "nothing kept");
        collio_hints_free(&h);
        collio_plan *p = NULL;
        int rc = plan_with(t, l, collio_strategy_name(i % collio_strategy_count()), NULL,
                           list, &p);
        collio_plan_free(&p);
        if (TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "a malformed COLLIO_HINTS")) {
            names(t, "COLLIO_HINTS", NULL);
            same_text(t);
        }
    }
}

/* ------------------------------------------------------ (d) the parse */

typedef struct form {
    const char *text, *canon;
} form;

static void parse_forms(tu_ctx *t, const collio_layout *l)
{
    if (begin(t, "(d) spaces, empty items, repeated keys")) {
        /* two options of the catalogue, their other values */
        const opt *a = &opts[0], *b = &opts[nopts - 1];
        char list[400], got[128];
        int flag;
        snprintf(list, sizeof list, " , %s = %s,, \t%s=%s , %s=%s ,", a->info.key,
                 a->info.deflt, b->info.key, b->alt, a->info.key, a->alt);
        collio_hints *h = TU_HINTS(t, "%s", list);
        TU_CHECK(t, collio_hints_count(h) == 2, "%d keys, want 2", collio_hints_count(h));
        TU_CHECK(t,
                 collio_hints_key(h, 0)
                     && strcmp(collio_hints_key(h, 0), a->info.key) == 0
                     && collio_hints_key(h, 1)
                     && strcmp(collio_hints_key(h, 1), b->info.key) == 0
                     && collio_hints_key(h, 2) == NULL && collio_hints_key(h, -1) == NULL,
                 "keys in the order first set");
        collio_hints_get(h, a->info.key, got, sizeof got, &flag);
        TU_CHECK(t, flag && strcmp(got, a->alt) == 0, "repeated key: the last value '%s'",
                 got);
        collio_hints_get(h, b->info.key, got, sizeof got, &flag);
        TU_CHECK(t, flag && strcmp(got, b->alt) == 0, "'%s' = '%s'", b->info.key, got);
        strcpy(got, "untouched");
        collio_hints_get(h, opts[1].info.key, got, sizeof got, &flag);
        TU_CHECK(t, !flag && strcmp(got, "untouched") == 0, "a key not set: flag 0");
        char tiny[1];
        TU_RC(t, collio_hints_get(h, b->info.key, tiny, sizeof tiny, &flag),
              COLLIO_ERR_ARG, "a value that does not fit");
        /* the plan runs with them */
        collio_plan *p = NULL;
        if (TU_RC_ALL(t, plan_with(t, l, "two_phase", list, NULL, &p), COLLIO_OK,
                      "plan")) {
            want_hint(t, p, a->info.key, a->alt, "parsed list");
            want_hint(t, p, b->info.key, b->alt, "parsed list");
        }
        collio_plan_free(&p);
        collio_hints_free(&h);
        TU_CHECK(t, collio_hints_count(NULL) == 0 && collio_hints_key(NULL, 0) == NULL,
                 "a NULL set has no keys");
        h = TU_HINTS(t, "%s", ", ,,");
        TU_CHECK(t, h && collio_hints_count(h) == 0, "only empty items: no key");
        collio_hints_free(&h);
        collio_hints_free(&h); /* NULL-safe */
    }
    /* text forms of each type: canonical values */
    for (int i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        form forms[8];
        int n = 0;
        switch (o->type) {
        case T_SIZE:
            forms[n++] = (form){"64K", "65536"};
            forms[n++] = (form){" 3 M ", "3145728"};
            forms[n++] = (form){"2KiB", "2048"};
            forms[n++] = (form){"1kb", "1024"};
            forms[n++] = (form){"1G", "1073741824"};
            break;
        case T_BOOL:
            forms[n++] = (form){"true", "1"};
            forms[n++] = (form){"OFF", "0"};
            forms[n++] = (form){"yes", "1"};
            forms[n++] = (form){"disable", "0"};
            break;
        case T_INT:
            forms[n++] = (form){" +1", "1"};
            break;
        case T_U64:
            forms[n++] = (form){"18446744073709551615", "18446744073709551615"};
            forms[n++] = (form){" 42", "42"};
            break;
        default:
            break;
        }
        for (int k = 0; k < n; k++) {
            if (o->type == T_INT && (1 < o->min || 1 > o->max))
                continue;
            if (o->type == T_SIZE && strtoll(forms[k].canon, NULL, 10) > o->max)
                continue;
            if (!begin(t, "(d) %s = '%s' reads '%s'", o->info.key, forms[k].text,
                       forms[k].canon))
                continue;
            char list[160], got[128] = "";
            int flag = 0;
            snprintf(list, sizeof list, "%s=%s", o->info.key, forms[k].text);
            collio_hints *h = TU_HINTS(t, "%s", list);
            collio_hints_get(h, o->info.key, got, sizeof got, &flag);
            TU_CHECK(t, flag && strcmp(got, forms[k].canon) == 0, "reads '%s'", got);
            collio_hints_free(&h);
        }
    }
}

/* ------------------------------------------------------ (e) MPI_Info */

static void info_hints(tu_ctx *t, const collio_layout *l)
{
    if (!begin(t, "(e) collio_hints_set_info: collio's keys, MPI-IO's ignored"))
        return;
    MPI_Info info;
    MPI_Info_create(&info);
    static const char *const foreign[][2] = {
        {"cb_nodes", "2"},          {"romio_cb_write", "enable"},
        {"striping_factor", "4"},   {"cb_buffer_size", "16777216"},
        {"no_such_section.x", "1"},
    };
    for (int i = 0; i < 5; i++)
        MPI_Info_set(info, foreign[i][0], foreign[i][1]);
    for (int i = 0; i < nopts; i++)
        MPI_Info_set(info, opts[i].info.key, opts[i].alt);
    collio_hints *h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set_info(h, info), COLLIO_OK, "collio_hints_set_info");
    TU_CHECK(t, collio_hints_count(h) == nopts, "%d keys taken, want the %d of collio",
             collio_hints_count(h), nopts);
    for (int i = 0; i < 5; i++) {
        char got[64];
        int flag = 1;
        collio_hints_get(h, foreign[i][0], got, sizeof got, &flag);
        TU_CHECK(t, !flag, "foreign key %s not taken", foreign[i][0]);
    }
    for (int i = 0; i < nopts; i++) {
        char got[128] = "";
        int flag = 0;
        collio_hints_get(h, opts[i].info.key, got, sizeof got, &flag);
        TU_CHECK(t, flag && strcmp(got, opts[i].alt) == 0, "%s = '%s', want '%s'",
                 opts[i].info.key, got, opts[i].alt);
    }
    /* a plan made from them runs with them (strategy: one every option's
     * other value goes with) */
    collio_plan *p = NULL;
    int rc = collio_plan_create(t->comm, l, "independent", h, &p);
    if (TU_RC_ALL(t, rc, COLLIO_OK, "plan from MPI_Info hints"))
        for (int i = 0; i < nopts; i++)
            want_hint(t, p, opts[i].info.key, opts[i].alt, "from MPI_Info");
    collio_plan_free(&p);
    collio_hints_free(&h);
    TU_RC(t, collio_hints_set_info(NULL, info), COLLIO_ERR_ARG, "NULL set");
    h = TU_HINTS(t, "%s", "");
    TU_RC(t, collio_hints_set_info(h, MPI_INFO_NULL), COLLIO_OK, "MPI_INFO_NULL");
    TU_CHECK(t, collio_hints_count(h) == 0, "MPI_INFO_NULL sets nothing");
    collio_hints_free(&h);
    MPI_Info_free(&info);

    /* a bad value, an unknown key of a collio section: rejected */
    for (int i = 0; i < nopts; i++) {
        bad b[16];
        /* (MPI_Info takes no empty value: a path's only bad text) */
        if (bad_values(&opts[i], b) == 0 || b[0].text[0] == '\0')
            continue;
        if (!begin(t, "(e) collio_hints_set_info: %s = '%s' (%s)", opts[i].info.key,
                   b[0].text, b[0].why))
            continue;
        MPI_Info_create(&info);
        MPI_Info_set(info, "cb_nodes", "1");
        MPI_Info_set(info, opts[i].info.key, b[0].text);
        h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set_info(h, info), b[0].code, "collio_hints_set_info");
        names(t, opts[i].info.key, NULL);
        collio_hints_free(&h);
        MPI_Info_free(&info);
    }
    if (begin(t, "(e) collio_hints_set_info: an unknown key of a collio section")) {
        char key[96];
        snprintf(key, sizeof key, "%.*s.no_such_option",
                 (int)(strchr(opts[0].info.key, '.') - opts[0].info.key),
                 opts[0].info.key);
        MPI_Info_create(&info);
        MPI_Info_set(info, key, "1");
        h = TU_HINTS(t, "%s", "");
        TU_RC(t, collio_hints_set_info(h, info), COLLIO_ERR_ARG, "collio_hints_set_info");
        names(t, key, NULL);
        collio_hints_free(&h);
        MPI_Info_free(&info);
    }
}

/* ----------------------------------------- (f) precedence, (g) report */

static void precedence(tu_ctx *t, const collio_layout *l)
{
    for (int i = 0; i < nopts; i++) {
        const opt *o = &opts[i];
        const char *key = o->info.key;
        const char *strategy = collio_strategy_name(i % collio_strategy_count());
        if (!begin(t, "(f) %s: COLLIO_HINTS over the hints over the default (%s)", key,
                   strategy))
            continue;
        char alt[160], def[160];
        snprintf(alt, sizeof alt, "%s=%s", key, o->alt);
        snprintf(def, sizeof def, "%s=%s", key, o->info.deflt);
        static const char *const why[] = {"nothing set: the default", "the hints",
                                          "COLLIO_HINTS", "COLLIO_HINTS over the hints",
                                          "an empty COLLIO_HINTS"};
        const char *lists[] = {NULL, alt, "", alt, alt};
        const char *envs[] = {NULL, NULL, alt, def, ""};
        const char *want[] = {o->info.deflt, o->alt, o->alt, o->info.deflt, o->alt};
        /* a path without a default: nothing to read back, nor to spell out */
        int nodef = o->type == T_PATH && o->info.deflt[0] == '\0';
        for (int c = 0; c < 5; c++) {
            if (nodef && (c == 0 || c == 3))
                continue;
            collio_plan *p = NULL;
            int rc = plan_with(t, l, strategy, lists[c], envs[c], &p);
            if (TU_RC_ALL(t, rc, COLLIO_OK, why[c]))
                want_hint(t, p, key, want[c], why[c]);
            collio_plan_free(&p);
        }
        TU_CHECK(t, getenv("COLLIO_HINTS") == NULL, "COLLIO_HINTS unset again");
    }
}

static void report(tu_ctx *t, const collio_layout *l)
{
    int want = 0;
    for (int i = 0; i < nopts; i++)
        want += !((opts[i].type == T_STRATEGY || opts[i].type == T_PATH)
                  && opts[i].info.deflt[0] == '\0');
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *strategy = collio_strategy_name(s);
        if (!begin(t, "(g) collio_plan_hints: every key, defaults included (%s)",
                   strategy))
            continue;
        /* one key set, so that a report of only what was set would fail */
        char list[160];
        snprintf(list, sizeof list, "%s=%s", opts[s % nopts].info.key,
                 opts[s % nopts].alt);
        collio_plan *p = NULL;
        int rc = plan_with(t, l, strategy, list, NULL, &p);
        collio_hints *h = NULL;
        if (TU_RC_ALL(t, rc, COLLIO_OK, "plan")
            && TU_RC(t, collio_plan_hints(p, &h), COLLIO_OK, "collio_plan_hints")) {
            const opt *set = &opts[s % nopts];
            int extra = (set->type == T_STRATEGY || set->type == T_PATH)
                        && set->info.deflt[0] == '\0'; /* reported once set */
            TU_CHECK(t, collio_hints_count(h) == want + extra,
                     "%d keys reported, want %d", collio_hints_count(h), want + extra);
            int j = 0;
            for (int i = 0; i < nopts; i++) {
                const opt *o = &opts[i];
                if ((o->type == T_STRATEGY || o->type == T_PATH)
                    && o->info.deflt[0] == '\0' && i != s % nopts)
                    continue;
                const char *k = collio_hints_key(h, j++);
                TU_CHECK(t, k && strcmp(k, o->info.key) == 0,
                         "key %d is '%s', want '%s' (the catalogue's order)", j - 1,
                         k ? k : "(none)", o->info.key);
                want_hint(t, p, o->info.key, i == s % nopts ? o->alt : o->info.deflt,
                          "reported");
            }
        }
        TU_RC(t, collio_plan_hints(NULL, &h), COLLIO_ERR_ARG, "NULL plan");
        TU_RC(t, collio_plan_hints(p, NULL), COLLIO_ERR_ARG, "NULL out");
        collio_hints_free(&h);
        collio_plan_free(&p);
    }
}

/* ---------------------------------------------------- (h) the effects */

/* Every option's other value on every rank, every strategy: the plan
 * works and round-trips byte-exact. */
static void every_value_runs(tu_ctx *t, const tu_layout_desc *d, const collio_layout *l)
{
    for (int i = 0; i < nopts; i++)
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *strategy = collio_strategy_name(s);
            if (!begin(t, "(h) %s = %s on every rank: %s round-trips", opts[i].info.key,
                       opts[i].alt, strategy))
                continue;
            char list[160];
            snprintf(list, sizeof list, "%s=%s", opts[i].info.key, opts[i].alt);
            collio_plan *p = NULL;
            int rc = plan_with(t, l, strategy, list, NULL, &p);
            if (TU_RC_ALL(t, rc, COLLIO_OK, "plan"))
                roundtrip(t, p, d, 1000 + (uint64_t)(i * 16 + s), NULL);
            collio_plan_free(&p);
        }
}

static int all_phases(int P)
{
    int n = 0;
    while ((1 << n) < P)
        n++;
    return n;
}

static void effect_serial(tu_ctx *t, const tu_layout_desc *d, const collio_layout *l)
{
    /* windows of W = chunk / esize elements: rank 0 writes each with one
     * request (nglobal = 10007, esize 4) */
    static const int64_t chunks[] = {100, 4096, (int64_t)64 << 20, 4096};
    for (int c = 0; c < 4; c++) {
        if (!begin(t, "(h) serial.chunk_bytes = %lld: one request per window",
                   (long long)chunks[c]))
            continue;
        char list[64];
        /* the last: buffers made afresh in every call */
        snprintf(list, sizeof list, "serial.chunk_bytes=%lld%s", (long long)chunks[c],
                 c == 3 ? ",plan.keep_buffers=0" : "");
        collio_plan *p = NULL;
        collio_stats st;
        if (TU_RC_ALL(t, plan_with(t, l, "serial", list, NULL, &p), COLLIO_OK, "plan")
            && roundtrip(t, p, d, 77 + (uint64_t)c, &st)) {
            int64_t w = chunks[c] / (int64_t)d->esize;
            int64_t want = t->rank == 0 ? (d->nglobal + w - 1) / w : 0;
            TU_CHECK(t, st.file_requests == want, "%lld file requests, want %lld",
                     (long long)st.file_requests, (long long)want);
            /* the work buffers, bounded by the window: rank 0's window and
             * the others' part of it, each other rank's part */
            int64_t win = (w < d->nglobal ? w : d->nglobal) * (int64_t)d->esize;
            int64_t lo = t->rank == 0 ? win : 1, hi = t->rank == 0 ? 2 * win : win;
            TU_CHECK(t, st.work_bytes >= lo && st.work_bytes <= hi,
                     "work_bytes %lld, want %lld..%lld", (long long)st.work_bytes,
                     (long long)lo, (long long)hi);
        }
        collio_plan_free(&p);
    }
}

static void effect_independent(tu_ctx *t)
{
    /* each rank holds [lo, hi) in decreasing buffer order: every element
     * is its own piece of one file-contiguous run, so one vectored request
     * takes max_iov of them */
    const int64_t N = 3001, P = t->nranks;
    const int64_t lo = N * t->rank / P, hi = N * (t->rank + 1) / P, n = hi - lo;
    int64_t *idx = malloc((size_t)(n + 1) * sizeof *idx);
    for (int64_t k = 0; k < n; k++)
        idx[k] = hi - 1 - k;
    tu_layout_desc d;
    memset(&d, 0, sizeof d);
    d.kind = TU_INDEX_LIST;
    d.esize = 4;
    d.nglobal = N;
    d.nlocal = n;
    d.idx = idx;
    snprintf(d.name, sizeof d.name, "reversed runs of %lld", (long long)N);
    collio_layout *l = NULL;
    TU_RC_ALL(t, tu_desc_make(&d, t->comm, &l), COLLIO_OK, "layout");
    static const int64_t iovs[] = {1, 3, 1024};
    for (int c = 0; l && c < 3; c++) {
        if (!begin(t, "(h) independent.max_iov = %lld: requests of that many pieces",
                   (long long)iovs[c]))
            continue;
        char list[64];
        snprintf(list, sizeof list, "independent.max_iov=%lld", (long long)iovs[c]);
        collio_plan *p = NULL;
        collio_stats st;
        if (TU_RC_ALL(t, plan_with(t, l, "independent", list, NULL, &p), COLLIO_OK,
                      "plan")
            && roundtrip(t, p, &d, 88 + (uint64_t)c, &st)) {
            int64_t want = (n + iovs[c] - 1) / iovs[c];
            TU_CHECK(t, st.file_requests == want, "%lld file requests, want %lld",
                     (long long)st.file_requests, (long long)want);
        }
        collio_plan_free(&p);
    }
    collio_layout_free(&l);
    tu_desc_free(&d);
}

static void effect_multiphase(tu_ctx *t, const tu_layout_desc *d, const collio_layout *l)
{
    const int all = all_phases(t->nranks);
    const opt *x = find("multiphase.exchange");
    /* every exchange by name: the plan runs it (auto: what it chose is
     * one of the others) */
    for (int k = 0; x != NULL && k < x->nnames; k++) {
        if (!begin(t, "(h) multiphase.exchange = %s: stat multiphase.exchange",
                   x->names[k]))
            continue;
        char list[96];
        snprintf(list, sizeof list, "multiphase.exchange=%s", x->names[k]);
        collio_plan *p = NULL;
        if (TU_RC_ALL(t, plan_with(t, l, "multiphase", list, NULL, &p), COLLIO_OK, "plan")
            && roundtrip(t, p, d, 300 + (uint64_t)k, NULL)) {
            double got = TU_STAT(t, p, "multiphase.exchange");
            int want = collio_option_value("multiphase.exchange", x->names[k]);
            if (want == TU_EXCHANGE_AUTO)
                TU_CHECK(t, got > TU_EXCHANGE_AUTO && got < TU_EXCHANGE__COUNT,
                         "auto ran %g, an exchange", got);
            else
                TU_CHECK(t, got == want, "stat %g (%s), hint %s", got,
                         tu_exchange_name((int)got), x->names[k]);
        }
        collio_plan_free(&p);
    }
    /* phases: the hypercube stops after k */
    for (int k = 1; k <= all; k++) {
        if (!begin(t, "(h) multiphase.phases = %d: %d exchange phases", k, k))
            continue;
        char list[96];
        snprintf(list, sizeof list, "multiphase.phases=%d,multiphase.exchange=hypercube",
                 k);
        collio_plan *p = NULL;
        collio_stats st;
        if (TU_RC_ALL(t, plan_with(t, l, "multiphase", list, NULL, &p), COLLIO_OK, "plan")
            && roundtrip(t, p, d, 310 + (uint64_t)k, &st))
            TU_CHECK(t, TU_STAT(t, p, "multiphase.nphases") == k, "nphases %g, want %d",
                     TU_STAT(t, p, "multiphase.nphases"), k);
        collio_plan_free(&p);
    }
    /* write_rounds (hypercube, all phases, the buffer kept): r halvings
     * while the smallest domain (nglobal / P elements) has one to give;
     * fewer than 2 rounds: none; -1: one pass */
    static const int rounds[] = {-1, 1, 2, 3};
    for (int c = 0; c < 4; c++) {
        if (!begin(t, "(h) multiphase.write_rounds = %d: rounds of a write", rounds[c]))
            continue;
        char list[128];
        snprintf(list, sizeof list,
                 "multiphase.write_rounds=%d,multiphase.exchange=hypercube,"
                 "plan.destroy_input=0",
                 rounds[c]);
        int64_t m = d->nglobal / t->nranks;
        int h = 0;
        while (all > 0 && h < rounds[c] && (m >> (h + 1)) >= 1)
            h++;
        const int want = h > 0 ? h + 1 : 0;
        collio_plan *p = NULL;
        collio_stats st;
        if (TU_RC_ALL(t, plan_with(t, l, "multiphase", list, NULL, &p), COLLIO_OK, "plan")
            && roundtrip(t, p, d, 320 + (uint64_t)c, &st))
            TU_CHECK(t, TU_STAT(t, p, "multiphase.nrounds") == want,
                     "nrounds %g, want %d", TU_STAT(t, p, "multiphase.nrounds"), want);
        collio_plan_free(&p);
    }
    /* shared_memory = 0: the direct exchange moves messages */
    if (begin(t, "(h) multiphase.shared_memory = 0: no window, messages")) {
        collio_plan *p = NULL;
        collio_stats st;
        if (TU_RC_ALL(t,
                      plan_with(t, l, "multiphase",
                                "multiphase.shared_memory=0,multiphase.exchange=direct",
                                NULL, &p),
                      COLLIO_OK, "plan")
            && roundtrip(t, p, d, 330, &st)) {
            TU_CHECK(t, TU_STAT(t, p, "multiphase.shared_memory") == 0,
                     "stat multiphase.shared_memory");
            TU_CHECK(t, t->nranks == 1 || st.messages > 0, "%lld messages",
                     (long long)st.messages);
        }
        collio_plan_free(&p);
    }
}

/* destroy_input: a multiphase write may use the user's buffer as its
 * second work buffer (one pass, less work memory); the file is the same.
 * keep_buffers: the same work_bytes either way, but only a plan that
 * keeps its buffers still holds them (mapped, resident) until
 * collio_plan_free. */
static long resident_bytes(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * sysconf(_SC_PAGESIZE);
}

static void effect_plan(tu_ctx *t)
{
    if (t->nranks < 2) {
        tu_skip(t, "work buffers need 2 ranks (no exchange phases at 1)");
        return;
    }
    /* 5 MiB per rank, bx = 1: every element moves; one pass, hypercube:
     * two work buffers of about the rank's data each (mapped: >= 4 MiB) */
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, (int64_t)t->nranks * 1310720, 1, 4);
    collio_layout *l = NULL;
    TU_RC_ALL(t, tu_desc_make(&d, t->comm, &l), COLLIO_OK, "layout");
    const int64_t b = (int64_t)1310720 * 4;
    int64_t work[2][2] = {{0, 0}, {0, 0}}; /* [destroy][keep] */
    for (int destroy = 0; l && destroy <= 1; destroy++)
        for (int keep = 0; keep <= 1; keep++) {
            if (!begin(t, "(h) plan.destroy_input = %d, plan.keep_buffers = %d", destroy,
                       keep))
                continue;
            char list[160];
            snprintf(list, sizeof list,
                     "plan.destroy_input=%d,plan.keep_buffers=%d,multiphase.exchange="
                     "hypercube,multiphase.write_rounds=-1",
                     destroy, keep);
            collio_plan *p = NULL;
            if (!TU_RC_ALL(t, plan_with(t, l, "multiphase", list, NULL, &p), COLLIO_OK,
                           "plan"))
                continue;
            want_hint(t, p, "plan.keep_buffers", keep ? "1" : "0", "set");
            want_hint(t, p, "plan.destroy_input", destroy ? "1" : "0", "set");
            int64_t *idx = NULL, n = 0;
            size_t bytes = 0;
            unsigned char *buf = filled(t, &d, 400, &idx, &n, &bytes);
            char path[1024];
            tu_temp_path(t, "keep", path, sizeof path);
            collio_stats st;
            memset(&st, 0, sizeof st);
            for (int call = 0; call < 2; call++) { /* the second reuses kept ones */
                tu_fill(buf, idx, n, d.esize, 400 + (uint64_t)call);
                if (!tu_plan_io(t, p, path, NULL, 1, buf, bytes))
                    break;
                collio_plan_stats(p, &st);
                TU_CHECK(t,
                         tu_check_file(t, path, d.nglobal, d.esize, 400 + (uint64_t)call,
                                       0, 0, 1)
                             == 0,
                         "call %d: the file differs from the reference", call);
                int64_t first = 0;
                int64_t diff =
                    tu_compare(buf, idx, n, d.esize, 400 + (uint64_t)call, &first);
                if (!destroy)
                    TU_CHECK(t, diff == 0,
                             "call %d: the buffer changed without destroy_input", call);
            }
            work[destroy][keep] = st.work_bytes;
            /* one buffer (destroy: the user's is the other), else two */
            TU_CHECK(t, st.work_bytes >= (destroy ? 1 : 2) * b - 4 * t->nranks,
                     "work_bytes %lld, want about %d x %lld", (long long)st.work_bytes,
                     destroy ? 1 : 2, (long long)b);
            long before = resident_bytes();
            collio_plan_free(&p);
            long freed = before - resident_bytes();
            if (keep)
                TU_CHECK(t, freed >= st.work_bytes / 2,
                         "kept buffers: collio_plan_free released %ld bytes, the plan "
                         "held %lld",
                         freed, (long long)st.work_bytes);
            else
                TU_CHECK(t, freed < st.work_bytes / 4,
                         "buffers not kept: collio_plan_free released %ld bytes (of "
                         "work_bytes %lld): they were held after the call",
                         freed, (long long)st.work_bytes);
            tu_remove(t, path);
            free(buf);
            free(idx);
        }
    if (l != NULL && begin(t, "(h) plan.keep_buffers: the same work_bytes either way"))
        for (int destroy = 0; destroy <= 1; destroy++)
            TU_CHECK(t, work[destroy][0] == work[destroy][1],
                     "destroy_input %d: work_bytes %lld (not kept), %lld (kept)", destroy,
                     (long long)work[destroy][0], (long long)work[destroy][1]);
    if (l != NULL && begin(t, "(h) plan.destroy_input = 1: less work memory")) {
        /* over all ranks (a rank that folds a non-power-of-two may need
         * its buffers either way) */
        int64_t mine[2] = {work[1][1], work[0][1]}, sum[2];
        MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, t->comm);
        TU_CHECK(t, work[1][1] <= work[0][1] && sum[0] < sum[1],
                 "work_bytes %lld with, %lld without (all ranks: %lld, %lld)",
                 (long long)work[1][1], (long long)work[0][1], (long long)sum[0],
                 (long long)sum[1]);
    }
    collio_layout_free(&l);
    tu_desc_free(&d);
}

static void effect_subgroup(tu_ctx *t, const tu_layout_desc *d, const collio_layout *l)
{
    const opt *inner = find("subgroup.inner");
    for (int g = 1; g <= 3; g++) {
        if (!begin(t, "(h) subgroup.group = %d: groups of %d consecutive ranks", g, g))
            continue;
        char list[96];
        snprintf(list, sizeof list, "subgroup.group=%d", g);
        collio_plan *p = NULL;
        if (TU_RC_ALL(t, plan_with(t, l, "subgroup", list, NULL, &p), COLLIO_OK, "plan")
            && roundtrip(t, p, d, 500 + (uint64_t)g, NULL)) {
            const int first = t->rank / g * g;
            const int size = first + g <= t->nranks ? g : t->nranks - first;
            double got = TU_STAT(t, p, "subgroup.group");
            TU_CHECK(t, got == size && got <= g, "stat subgroup.group %g, want %d", got,
                     size);
            TU_CHECK(t, TU_STAT(t, p, "subgroup.ngroups") == (t->nranks + g - 1) / g,
                     "ngroups");
            TU_CHECK(t, TU_STAT(t, p, "subgroup.master") == (t->rank == first), "master");
        }
        collio_plan_free(&p);
    }
    /* the inner strategy: its own stats are the subgroup plan's (on the
     * masters, which run it) */
    if (inner != NULL && begin(t, "(h) subgroup.inner = multiphase: its stats")) {
        collio_plan *p = NULL;
        if (TU_RC_ALL(t,
                      plan_with(t, l, "subgroup",
                                "subgroup.group=2,subgroup.inner=multiphase,"
                                "multiphase.exchange=hypercube",
                                NULL, &p),
                      COLLIO_OK, "plan")
            && roundtrip(t, p, d, 520, NULL)) {
            want_hint(t, p, "subgroup.inner", "multiphase", "set");
            if (t->rank % 2 == 0)
                TU_CHECK(t, TU_STAT(t, p, "multiphase.exchange") == TU_EXCHANGE_HYPERCUBE,
                         "a master reports its inner plan's exchange");
        }
        collio_plan_free(&p);
    }
}

/* A replicated layout: rank r owns [lo, hi) and holds HALO more on each
 * side. Writes words (element << 8 | writer rank); the writer of every
 * element as read back from the file (*w, malloc'd), or NULL. */
enum { RN = 2000, HALO = 60 };

static int *replicated_writers(tu_ctx *t, const char *strategy, const char *list,
                               double *policy)
{
    const int64_t P = t->nranks, lo = RN * t->rank / P, hi = RN * (t->rank + 1) / P;
    const int64_t a = lo - HALO < 0 ? 0 : lo - HALO, z = hi + HALO > RN ? RN : hi + HALO;
    int64_t n = z - a;
    int64_t *idx = malloc((size_t)n * sizeof *idx);
    unsigned char *own = malloc((size_t)n);
    uint64_t *buf = malloc((size_t)n * sizeof *buf);
    for (int64_t k = 0; k < n; k++) {
        idx[k] = z - 1 - k; /* any buffer order */
        own[k] = idx[k] >= lo && idx[k] < hi;
        buf[k] = (uint64_t)idx[k] << 8 | (uint64_t)t->rank;
    }
    collio_layout *l = NULL;
    collio_plan *p = NULL;
    int *w = NULL;
    int rc = collio_layout_index_list_replicated(t->comm, RN, n, idx, own, 8, &l);
    if (TU_RC_ALL(t, rc, COLLIO_OK, "replicated layout")
        && TU_RC_ALL(t, plan_with(t, l, strategy, list, NULL, &p), COLLIO_OK, "plan")) {
        char path[1024];
        tu_temp_path(t, "repl", path, sizeof path);
        if (tu_plan_io(t, p, path, NULL, 1, buf, (size_t)n * 8)) {
            *policy = TU_STAT(t, p, "replicas.policy");
            size_t got = 0;
            uint64_t *file = (uint64_t *)tu_posix_get(t, path, &got);
            int ok = file != NULL && got == (size_t)RN * 8;
            w = malloc(RN * sizeof *w);
            for (int64_t x = 0; ok && x < RN; x++) {
                w[x] = (int)(file[x] & 0xff);
                const int64_t wl = RN * w[x] / P, wh = RN * (w[x] + 1) / P;
                ok = file[x] >> 8 == (uint64_t)x && w[x] < P && x >= wl - HALO
                     && x < wh + HALO; /* a holder wrote it */
            }
            TU_CHECK(t, ok, "every element written once, by one of its holders");
            free(file);
            if (!ok) {
                free(w);
                w = NULL;
            }
        }
        tu_remove(t, path);
    }
    collio_plan_free(&p);
    collio_layout_free(&l);
    free(idx);
    free(own);
    free(buf);
    return w;
}

static void effect_replicas(tu_ctx *t)
{
    const opt *pol = find("replicas.policy");
    for (int k = 0; pol != NULL && k < pol->nnames; k++)
        for (int s = 0; s < collio_strategy_count(); s++) {
            const char *strategy = collio_strategy_name(s);
            if (collio_strategy_is_canonical(strategy) != 1)
                continue;
            if (!begin(t, "(h) replicas.policy = %s: stat replicas.policy (%s)",
                       pol->names[k], strategy))
                continue;
            char list[96];
            snprintf(list, sizeof list, "replicas.policy=%s", pol->names[k]);
            double got = -1;
            int *w = replicated_writers(t, strategy, list, &got);
            int want = collio_option_value("replicas.policy", pol->names[k]);
            if (want == TU_REPLICAS_AUTO) /* collio.h: multiphase DOMAIN, else IDG */
                want = strcmp(strategy, "multiphase") == 0 ? TU_REPLICAS_DOMAIN
                                                           : TU_REPLICAS_IDG;
            if (w != NULL)
                TU_CHECK(t, got == want, "stat %g, want %d (%s)", got, want,
                         tu_replicas_name(want));
            if (w != NULL && want == TU_REPLICAS_OWNER) { /* the owner writes */
                int64_t wrong = 0;
                for (int64_t x = 0; x < RN; x++)
                    wrong +=
                        !(x >= RN * w[x] / t->nranks && x < RN * (w[x] + 1) / t->nranks);
                TU_CHECK(t, wrong == 0, "owner: %lld elements not written by their owner",
                         (long long)wrong);
            }
            free(w);
        }
    /* the seed: random writers, the same for a seed, others for another */
    if (!begin(t, "(h) replicas.seed: the random policy's writers follow it"))
        return;
    if (t->nranks < 2) {
        tu_skip(t, "replicas need 2 ranks");
        return;
    }
    double got;
    int *w1 = replicated_writers(t, "independent",
                                 "replicas.policy=random,replicas.seed=1", &got);
    int *w1b = replicated_writers(t, "two_phase",
                                  "replicas.policy=random,replicas.seed=1", &got);
    int *w2 = replicated_writers(t, "independent",
                                 "replicas.policy=random,replicas.seed=2", &got);
    if (w1 && w1b && w2) {
        TU_CHECK(t, memcmp(w1, w1b, RN * sizeof *w1) == 0, "seed 1: the same writers");
        TU_CHECK(t, memcmp(w1, w2, RN * sizeof *w1) != 0,
                 "seeds 1 and 2: the same writers for all %d replicated elements",
                 2 * HALO * (t->nranks - 1));
    }
    free(w1);
    free(w1b);
    free(w2);
}

/* ------------------------------------------------------------------ */

/* (h) plan.keep_buffers on a replicated layout, under list I/O (no work
 * buffers of its own): rank r owns [lo, hi), RK elements of RW words,
 * and holds RH more on each side, in reverse order -- few large elements,
 * so that the plan's descriptors are small beside its streams. The
 * executor's stream of written elements (6 MiB where the replicas
 * policy leaves the rank fewer to write than it holds) and the read's
 * fill buffers (2 MiB each way per neighbour) stay mapped until
 * collio_plan_free only when kept: it releases at least 3/4 of their
 * bytes (by the plan's replicas stats) more than where they were not.
 * Every call byte-exact: each word of element x is
 * x << 8 | call, in the file and read back. */
static void keep_replicated(tu_ctx *t)
{
    if (t->nranks < 2) {
        tu_skip(t, "a halo needs 2 ranks (at 1 every held element is written)");
        return;
    }
    enum { RK = 1536, RH = 512, RW = 512 };
    const int64_t P = t->nranks, nglobal = (int64_t)RK * P, lo = (int64_t)RK * t->rank,
                  hi = lo + RK;
    const int64_t a = lo - RH < 0 ? 0 : lo - RH,
                  z = hi + RH > nglobal ? nglobal : hi + RH;
    const int64_t n = z - a;
    const size_t es = RW * sizeof(uint64_t);
    int64_t *idx = malloc((size_t)n * sizeof *idx);
    unsigned char *own = malloc((size_t)n);
    uint64_t *buf = malloc((size_t)n * es);
    for (int64_t k = 0; idx && own && k < n; k++) {
        idx[k] = z - 1 - k;
        own[k] = idx[k] >= lo && idx[k] < hi;
    }
    collio_layout *l = NULL;
    long freed[2] = {-1, -1}, kept = 0; /* by collio_plan_free: [keep] */
    int rc = idx && own && buf ? collio_layout_index_list_replicated(t->comm, nglobal, n,
                                                                     idx, own, es, &l)
                               : COLLIO_ERR_NOMEM;
    for (int keep = 0; TU_RC_ALL(t, rc, COLLIO_OK, "replicated layout") && keep <= 1;
         keep++) {
        if (!begin(t, "(h) plan.keep_buffers = %d, replicated layout: the streams", keep))
            continue;
        char list[64], path[1024];
        snprintf(list, sizeof list, "plan.keep_buffers=%d", keep);
        collio_plan *p = NULL;
        if (!TU_RC_ALL(t, plan_with(t, l, "independent", list, NULL, &p), COLLIO_OK,
                       "plan"))
            continue;
        tu_temp_path(t, "keepr", path, sizeof path);
        for (int call = 0; call < 2; call++) {
            for (int64_t k = 0; k < n * RW; k++)
                buf[k] = (uint64_t)idx[k / RW] << 8 | (uint64_t)call;
            if (!tu_plan_io(t, p, path, NULL, 1, buf, (size_t)n * es))
                break;
            size_t got = 0;
            uint64_t *file = (uint64_t *)tu_posix_get(t, path, &got);
            int64_t diff = file != NULL && got == (size_t)nglobal * es ? 0 : -1;
            for (int64_t w = 0; diff == 0 && w < nglobal * RW; w++)
                diff += file[w] != ((uint64_t)(w / RW) << 8 | (uint64_t)call);
            free(file);
            TU_CHECK(t, diff == 0, "write %d: %lld words differ from x << 8 | %d", call,
                     (long long)diff, call);
            memset(buf, 0, (size_t)n * es);
            if (!tu_plan_io(t, p, path, NULL, 0, buf, (size_t)n * es))
                break;
            int64_t wrong = 0;
            for (int64_t k = 0; k < n * RW; k++)
                wrong += buf[k] != ((uint64_t)idx[k / RW] << 8 | (uint64_t)call);
            TU_CHECK(t, wrong == 0, "read %d: %lld held words wrong (halo included)",
                     call, (long long)wrong);
        }
        /* kept: the stream of the written elements where the rank writes
         * less than it holds (the policy picks the writers), and the
         * fill's buffers: what it sends, and its held elements it does
         * not write */
        const double held = TU_STAT(t, p, "replicas.held"),
                     written = TU_STAT(t, p, "replicas.written"),
                     sent = TU_STAT(t, p, "replicas.fill_bytes");
        kept = (long)((written < held ? written : 0) * (double)es + sent
                      + (held - written) * (double)es);
        long before = resident_bytes();
        collio_plan_free(&p);
        freed[keep] = before - resident_bytes();
        tu_remove(t, path);
    }
    if (freed[0] >= 0 && freed[1] >= 0
        && begin(t, "(h) plan.keep_buffers, replicated layout: kept streams freed with "
                    "the plan"))
        TU_CHECK(t, freed[1] - freed[0] >= kept * 3 / 4,
                 "collio_plan_free released %ld bytes kept, %ld not kept: the kept "
                 "buffers are %ld",
                 freed[1], freed[0], kept);
    collio_layout_free(&l);
    free(idx);
    free(own);
    free(buf);
}

/* (i) */
static void copy_alias_env(tu_ctx *t, const collio_layout *l)
{
    static const char *const good[] = {"0", "1", ""};
    static const char *const refused[] = {"2", "yes", "01", " 1", "-1"};
    for (int i = 0; i < 3; i++) {
        if (!begin(t, "(i) COLLIO_COPY_ALIAS='%s' taken", good[i]))
            continue;
        setenv("COLLIO_COPY_ALIAS", good[i], 1);
        collio_plan *p = NULL;
        int rc = plan_with(t, l, collio_strategy_name(i % collio_strategy_count()), NULL,
                           NULL, &p);
        unsetenv("COLLIO_COPY_ALIAS");
        TU_RC_ALL(t, rc, COLLIO_OK, "collio_plan_create");
        collio_plan_free(&p);
    }
    for (int i = 0; i < 5; i++) {
        if (!begin(t, "(i) COLLIO_COPY_ALIAS='%s' on rank %d", refused[i], i % t->nranks))
            continue;
        if (t->rank == i % t->nranks)
            setenv("COLLIO_COPY_ALIAS", refused[i], 1);
        collio_plan *p = NULL;
        int rc = plan_with(t, l, collio_strategy_name(i % collio_strategy_count()), NULL,
                           NULL, &p);
        unsetenv("COLLIO_COPY_ALIAS");
        collio_plan_free(&p);
        if (TU_RC_ALL(t, rc, COLLIO_ERR_ARG, "collio_plan_create")) {
            char value[32];
            snprintf(value, sizeof value, "COLLIO_COPY_ALIAS=%s", refused[i]);
            names(t, value, NULL);
            same_text(t);
        }
    }
}

int main(int argc, char **argv)
{
    tu_ctx t;
    tu_init(&t, &argc, &argv, "mpi_options");
    tu_layout_desc d;
    tu_desc_block_cyclic(&d, 10007, 3, 4);
    collio_layout *l = NULL;
    int rc = tu_desc_make(&d, t.comm, &l);
    if (TU_RC_ALL(&t, rc, COLLIO_OK, "layout") && read_catalogue(&t)) {
        value_names(&t);
        mismatches(&t, l);
        bad_text(&t, l);
        unknown_keys(&t, l);
        parse_forms(&t, l);
        info_hints(&t, l);
        precedence(&t, l);
        report(&t, l);
        every_value_runs(&t, &d, l);
        effect_serial(&t, &d, l);
        effect_independent(&t);
        effect_multiphase(&t, &d, l);
        effect_plan(&t);
        effect_subgroup(&t, &d, l);
        effect_replicas(&t);
        keep_replicated(&t);
        copy_alias_env(&t, l);
    }
    if (t.rank == 0)
        printf("mpi_options: %d options in the catalogue, %lld cases generated\n", nopts,
               (long long)ncases);
    collio_layout_free(&l);
    tu_desc_free(&d);
    free(opts);
    return tu_finish(&t);
}
