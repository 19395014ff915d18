/*
 * stats.c -- statistics: the generic fields of collio_stats as one table
 * (the stats of section "plan"), every section's own stats beside them
 * (declared in the sections' tables, kept in collio_plan.statv), and what
 * walks them: the per-call reset, the sum of an inner plan into an outer
 * one (subgroup), the lookup by key and the catalogue the bindings and the
 * bench read.
 */
#include "base/base.h"
#include "options/options.h"
#include "core/core.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const collio__section collio__replicas_section;

typedef enum { T_INT, T_I64, T_DBL } ftype;

/* A field of collio_stats: its stat entry, where it is, and its type. */
typedef struct field {
    size_t off;
    ftype type;
} field;

#define F(name, type)                                                                    \
    {                                                                                    \
        offsetof(collio_stats, name), type                                               \
    }
/* The same order in both tables. */
static const field fields[] = {
    F(inspect_s, T_DBL),        F(exchange_s, T_DBL),    F(copy_s, T_DBL),
    F(file_s, T_DBL),           F(total_s, T_DBL),       F(bytes_sent, T_I64),
    F(messages, T_I64),         F(file_requests, T_I64), F(file_bytes, T_I64),
    F(plan_bytes, T_I64),       F(work_bytes, T_I64),    F(nnodes, T_INT),
    F(messages_offnode, T_I64), F(bytes_offnode, T_I64),
};
#undef F

/* per_call; sum: an outer plan adds the inner plan's value (else takes it) */
#define S(name, per_call, sum, doc)                                                      \
    {                                                                                    \
        name, per_call, sum, doc, 1, NULL                                                \
    }
const collio__stat collio__plan_stats[] = {
    S("inspect_s", 0, 0, "plan creation, seconds (this rank)"),
    S("exchange_s", 1, 1,
      "data movement between ranks, pack and unpack included, seconds"),
    S("copy_s", 1, 1, "the part of exchange_s spent in local copies, seconds"),
    S("file_s", 1, 1, "file access, seconds"),
    S("total_s", 1, 0, "the whole collio_write / collio_read call, seconds"),
    S("bytes_sent", 1, 1, "bytes this rank sent to other ranks"),
    S("messages", 1, 1,
      "point-to-point messages (or collective calls) this rank took part in"),
    S("file_requests", 1, 1, "file system requests this rank issued"),
    S("file_bytes", 1, 1, "bytes this rank wrote or read in the file"),
    S("plan_bytes", 0, 0, "memory of the plan's descriptors on this rank"),
    S("work_bytes", 1, 1,
      "work buffers the last execution used beyond the user's buffer"),
    S("nnodes", 0, 0, "nodes the plan's ranks run on"),
    S("messages_offnode", 1, 1, "of messages: those with ranks on other nodes"),
    S("bytes_offnode", 1, 1, "of bytes_sent: bytes sent to ranks on other nodes"),
};
#undef S
const int collio__plan_nstats =
    (int)(sizeof collio__plan_stats / sizeof collio__plan_stats[0]);
_Static_assert(sizeof fields / sizeof fields[0]
                   == sizeof collio__plan_stats / sizeof collio__plan_stats[0],
               "one field per generic stat");

extern const collio__section collio__replicas_section;

static double get(const collio_stats *s, int i)
{
    const char *p = (const char *)s + fields[i].off;
    switch (fields[i].type) {
    case T_INT:
        return *(const int *)p;
    case T_I64:
        return (double)*(const int64_t *)p;
    default:
        return *(const double *)p;
    }
}

static void put(collio_stats *s, int i, double v)
{
    char *p = (char *)s + fields[i].off;
    switch (fields[i].type) {
    case T_INT:
        *(int *)p = (int)v;
        break;
    case T_I64:
        *(int64_t *)p = (int64_t)v;
        break;
    default:
        *(double *)p = v;
    }
}

/* Every value of section s's stats that `pick` takes (per_call ones, or
 * all): a and b point at the section's first value in two plans' statv;
 * b NULL: set to 0, else a = b (or a += b for a `sum` stat). */
static void section_values(const collio__section *s, double *a, const double *b,
                           int per_call_only)
{
    for (int i = 0, off = 0; i < s->nstats;
         off += collio__stat_nvalues(&s->stats[i]), i++) {
        const collio__stat *st = &s->stats[i];
        if (per_call_only && !st->per_call)
            continue;
        for (int k = 0; k < collio__stat_nvalues(st); k++)
            a[off + k] = b == NULL ? 0 : st->sum ? a[off + k] + b[off + k] : b[off + k];
    }
}

void collio__stats_reset(collio_plan *p)
{
    for (int i = 0; i < collio__plan_nstats; i++)
        if (collio__plan_stats[i].per_call)
            put(&p->stats, i, 0);
    const collio__section *const *sec;
    const int *base;
    int n = collio__sections_all(&sec, &base);
    for (int k = 1; k < n; k++)
        section_values(sec[k], &p->statv[base[k]], NULL, 1);
}

void collio__stats_add_inner(collio_plan *outer, const collio_plan *inner)
{
    for (int i = 0; i < collio__plan_nstats; i++) {
        const collio__stat *st = &collio__plan_stats[i];
        if (!st->per_call || fields[i].off == offsetof(collio_stats, total_s))
            continue; /* the outer plan's own call and plan */
        put(&outer->stats, i,
            st->sum ? get(&outer->stats, i) + get(&inner->stats, i)
                    : get(&inner->stats, i));
    }
    /* The strategies' sections only: "plan" (section 0) is the outer
     * plan's own call, and "replicas" the outer plan's too -- replicas are
     * resolved above the strategies, on the outer plan's layout, before
     * its strategy makes the inner plan (whose layout is never replicated:
     * taking its zeros would erase what the outer plan's replicas
     * inspector found). */
    const collio__section *const *sec;
    const int *base;
    int n = collio__sections_all(&sec, &base);
    for (int k = 1; k < n; k++) {
        const collio__section *s = sec[k];
        if (strcmp(s->name, outer->strategy->section.name) == 0
            || s == &collio__replicas_section)
            continue;
        section_values(s, &outer->statv[base[k]], &inner->statv[base[k]], 0);
    }
}

double *collio__stat_values(collio_plan *p, int i)
{
    return &p->statv[p->own_stat + collio__stat_offset(p->own_section, i)];
}

int collio_stat_count(void)
{
    return collio__nstat_entries();
}

/* Keys "SECTION.NAME" of the sections' stats, made once. */
static char (*keys)[160];
static const collio__stat **entries;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void build_keys(void)
{
    int n = collio__nstat_entries();
    keys = calloc((size_t)(n > 0 ? n : 1), sizeof *keys);
    entries = calloc((size_t)(n > 0 ? n : 1), sizeof *entries);
    if (keys == NULL || entries == NULL) {
        free(keys);
        free(entries);
        keys = NULL;
        return;
    }
    for (int k = 0, e = 0; k < collio__nsections(); k++) {
        const collio__section *s = collio__section_at(k);
        for (int i = 0; i < s->nstats; i++, e++) {
            entries[e] = &s->stats[i];
            if (k == 0)
                snprintf(keys[e], sizeof keys[0], "%s", s->stats[i].name);
            else
                snprintf(keys[e], sizeof keys[0], "%s.%s", s->name, s->stats[i].name);
        }
    }
}

int collio_stat_describe(int i, collio_stat_info *out)
{
    collio__error_begin();
    if (out == NULL || i < 0 || i >= collio__nstat_entries()) {
        collio__error_set(COLLIO_ERR_ARG, "collio_stat_describe: no statistic %d", i);
        return COLLIO_ERR_ARG;
    }
    pthread_once(&keys_once, build_keys);
    if (keys == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "collio_stat_describe: no memory");
        return COLLIO_ERR_NOMEM;
    }
    const collio__stat *st = entries[i];
    out->key = keys[i];
    out->per_call = st->per_call;
    out->doc = st->doc;
    out->count = collio__stat_nvalues(st);
    out->length = NULL;
    if (st->count > 1) /* the length's key: this key's section, its name */
        for (int k = i - 1; k >= 0 && out->length == NULL; k--)
            if (strcmp(entries[k]->name, st->length) == 0)
                out->length = keys[k];
    return COLLIO_OK;
}

/* The value at `slot` of plan's stats (collio__stat_find). */
static double value_at(const collio_plan *plan, const collio__section *s, int slot)
{
    return s == collio__section_at(0) ? get(&plan->stats, slot) : plan->statv[slot];
}

static const collio__stat *find(const char *fn, const collio_plan *plan, const char *key,
                                const void *out, const collio__section **s, int *slot)
{
    if (plan == NULL || key == NULL || out == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "%s: an argument is NULL", fn);
        return NULL;
    }
    const collio__stat *st = collio__stat_find(key, s, slot);
    if (st == NULL)
        collio__error_set(COLLIO_ERR_ARG,
                          "%s: no statistic '%.96s' (collio_stat_describe lists them)",
                          fn, key);
    return st;
}

int collio_plan_stat(const collio_plan *plan, const char *key, double *value)
{
    collio__error_begin();
    const collio__section *s;
    int slot;
    const collio__stat *st = find("collio_plan_stat", plan, key, value, &s, &slot);
    if (st == NULL)
        return COLLIO_ERR_ARG;
    if (st->count > 1) {
        collio__error_set(COLLIO_ERR_ARG,
                          "collio_plan_stat: '%.96s' holds %d values: "
                          "collio_plan_stat_values reads them",
                          key, st->count);
        return COLLIO_ERR_ARG;
    }
    *value = value_at(plan, s, slot);
    return COLLIO_OK;
}

int collio_plan_stat_values(const collio_plan *plan, const char *key, double *values,
                            int max, int *count)
{
    collio__error_begin();
    const collio__section *s;
    int slot;
    const collio__stat *st = find("collio_plan_stat_values", plan, key,
                                  count != NULL ? values : NULL, &s, &slot);
    if (st == NULL)
        return COLLIO_ERR_ARG;
    if (max < 0) {
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_stat_values: max < 0");
        return COLLIO_ERR_ARG;
    }
    int n = 1;
    if (st->count > 1) { /* the values in use, as the section's length stat says */
        n = 0;
        for (int k = 0; k < s->nstats; k++)
            if (strcmp(s->stats[k].name, st->length) == 0)
                n = (int)value_at(plan, s,
                                  collio__stat_base(s) + collio__stat_offset(s, k));
        n = n < 0 ? 0 : n > st->count ? st->count : n;
    }
    for (int k = 0; k < n && k < max; k++)
        values[k] = value_at(plan, s, slot + k);
    *count = n;
    return COLLIO_OK;
}
