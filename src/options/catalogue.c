/*
 * catalogue.c -- the catalogue of options (hints) and statistics: its
 * sections in order ("plan", "replicas", "request", then every registered strategy's,
 * each declared by its owner in a table of its own), the generic "plan"
 * section, and the lookups by key and index that the values (options.c),
 * the hints (hints.c), the stats (stats.c) and every binding use. The
 * catalogue is built once, at its first use, which seals the registry of
 * strategies.
 */
#include "options/options.h"
#include "core/core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- section "plan" */

static const collio__option plan_options[] = {
    [COLLIO__PLAN_DESTROY_INPUT] =
        {"destroy_input", COLLIO__OPT_BOOL, 0, 0, 1, NULL, NULL,
         "collio_write may use the buffer as scratch space (its "
         "contents are undefined after the call)"},
    [COLLIO__PLAN_KEEP_BUFFERS] = {"keep_buffers", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                                   "the plan keeps its work buffers between calls (freed "
                                   "with the plan)"},
};

/* The generic statistics are collio_stats' fields (stats.c). */
extern const collio__stat collio__plan_stats[];
extern const int collio__plan_nstats;
extern const collio__section collio__replicas_section;

/* ------------------------------------------------------- the catalogue */

enum { MAX_SECTIONS = 32 };

static struct {
    pthread_once_t once;
    const collio__section *sec[MAX_SECTIONS];
    int opt_base[MAX_SECTIONS], stat_base[MAX_SECTIONS];
    int n, nopt, nstat, nentry;
} cat = {PTHREAD_ONCE_INIT};

/* A section whose array stat comes before a scalar one, or names no
 * scalar of its own as its length: a bug of its table, found at the
 * first use of the library (every test meets it). */
static int has_scalar(const collio__section *s, const char *name)
{
    for (int k = 0; name != NULL && k < s->nstats; k++)
        if (s->stats[k].count <= 1 && strcmp(s->stats[k].name, name) == 0)
            return 1;
    return 0;
}

static void check_arrays(const collio__section *s)
{
    int seen_array = 0;
    for (int i = 0; i < s->nstats; i++) {
        const collio__stat *st = &s->stats[i];
        const char *bad = st->count > 1 && !has_scalar(s, st->length)
                              ? "names no scalar stat of its section as its length"
                          : st->count <= 1 && seen_array ? "is a scalar after an array"
                                                         : NULL;
        seen_array |= st->count > 1;
        if (bad != NULL) {
            fprintf(stderr, "collio: section '%s': stat '%s' %s (options/options.h)\n",
                    s->name, st->name, bad);
            abort();
        }
    }
}

static void build(void)
{
    collio__strategies_seal();
    static collio__section plan;
    plan = (collio__section){"plan", plan_options,
                             (int)(sizeof plan_options / sizeof plan_options[0]),
                             collio__plan_stats, collio__plan_nstats};
    cat.sec[cat.n++] = &plan;
    cat.sec[cat.n++] = &collio__replicas_section;
    cat.sec[cat.n++] = &collio__request_section;
    for (int i = 0; collio__strategy_at(i) != NULL && cat.n < MAX_SECTIONS; i++)
        cat.sec[cat.n++] = collio__strategy_at(i)->sealed_section != NULL
                               ? collio__strategy_at(i)->sealed_section()
                               : &collio__strategy_at(i)->section;
    for (int i = 0; i < cat.n; i++) {
        check_arrays(cat.sec[i]);
        cat.opt_base[i] = cat.nopt;
        cat.stat_base[i] = cat.nstat;
        cat.nopt += cat.sec[i]->noptions;
        cat.nstat += collio__stat_offset(cat.sec[i], cat.sec[i]->nstats);
        cat.nentry += cat.sec[i]->nstats;
    }
}

static void init(void)
{
    pthread_once(&cat.once, build);
}

int collio__nsections(void)
{
    init();
    return cat.n;
}

const collio__section *collio__section_at(int i)
{
    init();
    return i >= 0 && i < cat.n ? cat.sec[i] : NULL;
}

const collio__section *collio__section_find(const char *name, size_t len)
{
    init();
    for (int i = 0; i < cat.n; i++)
        if (strlen(cat.sec[i]->name) == len && strncmp(cat.sec[i]->name, name, len) == 0)
            return cat.sec[i];
    return NULL;
}

static int section_index(const collio__section *s)
{
    init();
    for (int i = 0; i < cat.n; i++)
        if (cat.sec[i] == s)
            return i;
    for (int i = 0; i < cat.n; i++) /* a strategy's table's, made at run time */
        if (strcmp(cat.sec[i]->name, s->name) == 0)
            return i;
    return -1;
}

int collio__option_base(const collio__section *s)
{
    int i = section_index(s);
    return i >= 0 ? cat.opt_base[i] : -1;
}

int collio__stat_base(const collio__section *s)
{
    int i = section_index(s);
    return i >= 0 ? cat.stat_base[i] : -1;
}

int collio__sections_all(const collio__section *const **sec, const int **stat_base)
{
    init();
    *sec = cat.sec;
    *stat_base = cat.stat_base;
    return cat.n;
}

int collio__noptions_all(void)
{
    init();
    return cat.nopt;
}

int collio__nstats_all(void)
{
    init();
    return cat.nstat;
}

int collio__nstat_entries(void)
{
    init();
    return cat.nentry;
}

const collio__stat *collio__stat_find(const char *key, const collio__section **sec,
                                      int *slot)
{
    const char *dot = key != NULL ? strchr(key, '.') : NULL;
    const collio__section *s = dot != NULL
                                   ? collio__section_find(key, (size_t)(dot - key))
                                   : collio__section_at(0);
    const char *name = dot != NULL ? dot + 1 : key;
    for (int i = 0; s != NULL && name != NULL && i < s->nstats; i++)
        if (strcmp(s->stats[i].name, name) == 0) {
            *sec = s;
            *slot = collio__stat_base(s) + collio__stat_offset(s, i);
            return &s->stats[i];
        }
    return NULL;
}

const collio__option *collio__option_find(const char *key, int *index)
{
    const char *dot = key != NULL ? strchr(key, '.') : NULL;
    if (dot == NULL)
        return NULL;
    const collio__section *s = collio__section_find(key, (size_t)(dot - key));
    if (s == NULL)
        return NULL;
    for (int i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].name, dot + 1) == 0) {
            *index = collio__option_base(s) + i;
            return &s->options[i];
        }
    return NULL;
}

const collio__option *collio__option_at(int i, const collio__section **sec)
{
    init();
    for (int k = cat.n - 1; k >= 0; k--)
        if (i >= cat.opt_base[k]) {
            *sec = cat.sec[k];
            return i - cat.opt_base[k] < cat.sec[k]->noptions
                       ? &cat.sec[k]->options[i - cat.opt_base[k]]
                       : NULL;
        }
    return NULL;
}

const char *collio_option_value_name(const char *key, int value)
{
    int index = 0;
    const collio__option *o = collio__option_find(key, &index);
    if (o == NULL || o->type != COLLIO__OPT_NAME || value < 0 || value > o->max)
        return NULL;
    return o->names[value];
}

int collio_option_value(const char *key, const char *name)
{
    for (int v = 0; name != NULL && collio_option_value_name(key, v) != NULL; v++)
        if (strcmp(collio_option_value_name(key, v), name) == 0)
            return v;
    return -1;
}
