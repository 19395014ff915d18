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
    F(inspect_s, T_DBL),     F(exchange_s, T_DBL),    F(copy_s, T_DBL),
    F(file_s, T_DBL),        F(total_s, T_DBL),       F(bytes_sent, T_I64),
    F(messages, T_I64),      F(file_requests, T_I64), F(file_bytes, T_I64),
    F(nphases, T_INT),       F(plan_bytes, T_I64),    F(work_bytes, T_I64),
    F(nrounds, T_INT),       F(nnodes, T_INT),        F(messages_offnode, T_I64),
    F(bytes_offnode, T_I64),
};
#undef F

/* per_call; sum: an outer plan adds the inner plan's value (else takes it) */
const collio__stat collio__plan_stats[] = {
    {"inspect_s", 0, 0, "plan creation, seconds (this rank)"},
    {"exchange_s", 1, 1,
     "data movement between ranks, pack and unpack included, seconds"},
    {"copy_s", 1, 1, "the part of exchange_s spent in local copies, seconds"},
    {"file_s", 1, 1, "file access, seconds"},
    {"total_s", 1, 0, "the whole collio_write / collio_read call, seconds"},
    {"bytes_sent", 1, 1, "bytes this rank sent to other ranks"},
    {"messages", 1, 1,
     "point-to-point messages (or collective calls) this rank took part in"},
    {"file_requests", 1, 1, "file system requests this rank issued"},
    {"file_bytes", 1, 1, "bytes this rank wrote or read in the file"},
    {"nphases", 1, 0, "exchange phases (multiphase)"},
    {"plan_bytes", 0, 0, "memory of the plan's descriptors on this rank"},
    {"work_bytes", 1, 1, "work buffers the last execution used beyond the user's buffer"},
    {"nrounds", 1, 0, "rounds of the last execution (0: one pass)"},
    {"nnodes", 0, 0, "nodes the plan's ranks run on"},
    {"messages_offnode", 1, 1, "of messages: those with ranks on other nodes"},
    {"bytes_offnode", 1, 1, "of bytes_sent: bytes sent to ranks on other nodes"},
};
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

void collio__stats_reset(collio_plan *p)
{
    for (int i = 0; i < collio__plan_nstats; i++)
        if (collio__plan_stats[i].per_call)
            put(&p->stats, i, 0);
    memset(p->stats.phase_s, 0, sizeof p->stats.phase_s);
    memset(p->stats.phase_bytes, 0, sizeof p->stats.phase_bytes);
    memset(p->stats.phase_tuples, 0, sizeof p->stats.phase_tuples);
    memset(p->stats.phase_messages, 0, sizeof p->stats.phase_messages);
    const collio__section *const *sec;
    const int *base;
    int n = collio__sections_all(&sec, &base);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < sec[k]->nstats; i++)
            if (sec[k]->stats[i].per_call)
                p->statv[base[k] + i] = 0;
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
        for (int i = 0; i < s->nstats; i++)
            outer->statv[base[k] + i] =
                s->stats[i].sum ? outer->statv[base[k] + i] + inner->statv[base[k] + i]
                                : inner->statv[base[k] + i];
    }
}

int collio_stat_count(void)
{
    return collio__nstats_all();
}

/* Keys "SECTION.NAME" of the sections' stats, made once. */
static char (*keys)[160];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void build_keys(void)
{
    int n = collio__nstats_all();
    keys = calloc((size_t)(n > 0 ? n : 1), sizeof *keys);
    for (int k = 0; keys != NULL && k < collio__nsections(); k++) {
        const collio__section *s = collio__section_at(k);
        int base = collio__stat_base(s);
        for (int i = 0; i < s->nstats; i++) {
            if (strcmp(s->name, "plan") == 0)
                snprintf(keys[base + i], sizeof keys[0], "%s", s->stats[i].name);
            else
                snprintf(keys[base + i], sizeof keys[0], "%s.%s", s->name,
                         s->stats[i].name);
        }
    }
}

/* The section and index of catalogue stat i. */
static const collio__stat *stat_at(int i)
{
    for (int k = collio__nsections() - 1; k >= 0; k--) {
        const collio__section *s = collio__section_at(k);
        int base = collio__stat_base(s);
        if (i >= base)
            return i - base < s->nstats ? &s->stats[i - base] : NULL;
    }
    return NULL;
}

int collio_stat_describe(int i, collio_stat_info *out)
{
    collio__error_begin();
    const collio__stat *st = out != NULL ? stat_at(i) : NULL;
    if (st == NULL || i < 0) {
        collio__error_set(COLLIO_ERR_ARG, "collio_stat_describe: no statistic %d", i);
        return COLLIO_ERR_ARG;
    }
    pthread_once(&keys_once, build_keys);
    if (keys == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "collio_stat_describe: no memory");
        return COLLIO_ERR_NOMEM;
    }
    out->key = keys[i];
    out->per_call = st->per_call;
    out->doc = st->doc;
    return COLLIO_OK;
}

int collio_plan_stat(const collio_plan *plan, const char *key, double *value)
{
    collio__error_begin();
    if (plan == NULL || key == NULL || value == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_plan_stat: an argument is NULL");
        return COLLIO_ERR_ARG;
    }
    const char *dot = strchr(key, '.');
    const collio__section *s = dot != NULL
                                   ? collio__section_find(key, (size_t)(dot - key))
                                   : collio__section_at(0);
    const char *name = dot != NULL ? dot + 1 : key;
    for (int i = 0; s != NULL && i < s->nstats; i++)
        if (strcmp(s->stats[i].name, name) == 0) {
            *value = s == collio__section_at(0) ? get(&plan->stats, i)
                                                : plan->statv[collio__stat_base(s) + i];
            return COLLIO_OK;
        }
    collio__error_set(
        COLLIO_ERR_ARG,
        "collio_plan_stat: no statistic '%.96s' (collio_stat_describe lists "
        "them)",
        key);
    return COLLIO_ERR_ARG;
}
