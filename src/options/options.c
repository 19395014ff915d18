/*
 * options.c -- a plan's option values (defaults, then the program's
 * hints, then COLLIO_HINTS), their digest compared across ranks, the
 * values as hints again (collio_plan_hints, an inner plan's hints), and
 * the descriptions of the catalogue (catalogue.c) that the bindings, the
 * bench and docs/options.md are made from.
 *
 * Every option of every section goes into the digest, so any option that
 * differs between ranks is COLLIO_ERR_MISMATCH on every rank before any
 * strategy sizes a collective by it (an option that differed could
 * otherwise hang -- keep_buffers: one rank frees a window the others keep
 * -- or abort the job).
 */
#include "base/base.h"
#include "options/options.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- plan values */

void collio__optvals_free(collio__optvals *ov)
{
    for (int i = 0; ov->str != NULL && i < collio__noptions_all(); i++) {
        const collio__section *s;
        if (collio__option_at(i, &s)->type == COLLIO__OPT_PATH)
            free((char *)ov->str[i]); /* the plan's own copy */
    }
    free(ov->v);
    free(ov->str);
    ov->v = NULL;
    ov->str = NULL;
}

/* Applies every pair of h to ov. */
static int apply(const collio_hints *h, collio__optvals *ov)
{
    for (int i = 0; i < collio_hints_count(h); i++) {
        const char *key = collio_hints_key(h, i);
        int index;
        const collio__option *o = collio__option_find(key, &index);
        if (o == NULL) { /* (a set holds only known keys) */
            collio__error_set(COLLIO_ERR_ARG, "unknown hint '%.96s'", key);
            return COLLIO_ERR_ARG;
        }
        const char *str = NULL;
        int rc =
            collio__option_parse(o, key, collio__hints_value(h, i), &ov->v[index], &str);
        if (rc != COLLIO_OK)
            return rc;
        if (o->type == COLLIO__OPT_PATH) { /* the hints may go: a copy */
            char *copy = malloc(strlen(str) + 1);
            if (copy == NULL) {
                collio__error_set(COLLIO_ERR_NOMEM, "hint %s: no memory", key);
                return COLLIO_ERR_NOMEM;
            }
            free((char *)ov->str[index]);
            ov->str[index] = strcpy(copy, str);
        } else {
            ov->str[index] = str;
        }
    }
    return COLLIO_OK;
}

int collio__optvals_resolve(const collio_hints *hints, int with_env, collio__optvals *ov)
{
    int n = collio__noptions_all();
    ov->v = calloc((size_t)(n > 0 ? n : 1), sizeof *ov->v);
    ov->str = calloc((size_t)(n > 0 ? n : 1), sizeof *ov->str);
    if (ov->v == NULL || ov->str == NULL) {
        collio__optvals_free(ov);
        collio__error_set(COLLIO_ERR_NOMEM, "no memory for the plan's options");
        return COLLIO_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const collio__section *s;
        const collio__option *o = collio__option_at(i, &s);
        ov->v[i] = o->def;
        ov->str[i] = o->type == COLLIO__OPT_STRATEGY ? o->def_name : NULL;
    }
    int rc = apply(hints, ov);
    const char *env = with_env ? getenv("COLLIO_HINTS") : NULL;
    if (rc == COLLIO_OK && env != NULL && *env != '\0') {
        collio_hints *eh = NULL;
        rc = collio_hints_create(&eh);
        if (rc == COLLIO_OK)
            rc = collio__hints_parse_list(eh, env, "COLLIO_HINTS");
        if (rc == COLLIO_OK)
            rc = apply(eh, ov);
        collio_hints_free(&eh);
    }
    return rc;
}

uint64_t collio__optvals_digest(const collio__optvals *ov)
{
    uint64_t h = 0x636f6c6c696f;
    for (int i = 0; i < collio__noptions_all(); i++) {
        h = collio__hash_mix(h, (uint64_t)ov->v[i]);
        const char *s = ov->str[i];
        h = collio__hash_mix(h, s != NULL ? strlen(s) : UINT64_MAX);
        for (; s != NULL && *s != '\0'; s++)
            h = collio__hash_mix(h, (unsigned char)*s);
    }
    return h;
}

int collio__optvals_to_hints(const collio__optvals *ov, collio_hints **out)
{
    collio_hints *h = NULL;
    int rc = collio_hints_create(&h);
    for (int i = 0; rc == COLLIO_OK && i < collio__noptions_all(); i++) {
        const collio__section *s;
        const collio__option *o = collio__option_at(i, &s);
        char key[160], val[COLLIO__PATH_MAX];
        snprintf(key, sizeof key, "%s.%s", s->name, o->name);
        collio__option_format(o, ov->v[i], ov->str[i], val, sizeof val);
        if ((o->type == COLLIO__OPT_STRATEGY || o->type == COLLIO__OPT_PATH)
            && ov->str[i] == NULL)
            continue; /* no strategy or path named: nothing to say */
        rc = collio_hints_set(h, key, val);
    }
    if (rc != COLLIO_OK)
        collio_hints_free(&h);
    *out = h;
    return rc;
}

/* ------------------------------------------------------- descriptions */

static const char *const type_names[] = {"int",      "size",   "bool", "name",
                                         "strategy", "uint64", "path"};

/* The texts of every option, made once. */
static struct {
    pthread_once_t once;
    char (*key)[160], (*def)[64], (*range)[320];
} text = {PTHREAD_ONCE_INIT};

static void build_text(void)
{
    int n = collio__noptions_all();
    text.key = calloc((size_t)(n > 0 ? n : 1), sizeof *text.key);
    text.def = calloc((size_t)(n > 0 ? n : 1), sizeof *text.def);
    text.range = calloc((size_t)(n > 0 ? n : 1), sizeof *text.range);
    if (text.key == NULL || text.def == NULL || text.range == NULL)
        return;
    for (int i = 0; i < n; i++) {
        const collio__section *s;
        const collio__option *o = collio__option_at(i, &s);
        snprintf(text.key[i], sizeof text.key[i], "%s.%s", s->name, o->name);
        collio__option_format(o, o->def, o->def_name, text.def[i], sizeof text.def[i]);
        char *r = text.range[i];
        size_t rn = sizeof text.range[i];
        switch (o->type) {
        case COLLIO__OPT_INT:
        case COLLIO__OPT_SIZE:
            snprintf(r, rn, "%" PRId64 "..%" PRId64, o->min, o->max);
            break;
        case COLLIO__OPT_BOOL:
            snprintf(r, rn, "0|1");
            break;
        case COLLIO__OPT_NAME: {
            size_t at = 0;
            for (int64_t k = 0; k <= o->max && at < rn; k++)
                at +=
                    (size_t)snprintf(r + at, rn - at, "%s%s", k ? "|" : "", o->names[k]);
            break;
        }
        case COLLIO__OPT_STRATEGY:
            snprintf(r, rn, "a strategy's name");
            break;
        case COLLIO__OPT_U64:
            snprintf(r, rn, "0..2^64-1");
            break;
        case COLLIO__OPT_PATH:
            snprintf(r, rn, "a path (none by default)");
            break;
        }
    }
}

int collio_option_count(void)
{
    return collio__noptions_all();
}

int collio_option_describe(int i, collio_option_info *out)
{
    collio__error_begin();
    if (out == NULL || i < 0 || i >= collio__noptions_all()) {
        collio__error_set(COLLIO_ERR_ARG, "collio_option_describe: no option %d", i);
        return COLLIO_ERR_ARG;
    }
    pthread_once(&text.once, build_text);
    if (text.key == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "collio_option_describe: no memory");
        return COLLIO_ERR_NOMEM;
    }
    const collio__section *s;
    const collio__option *o = collio__option_at(i, &s);
    out->key = text.key[i];
    out->type = type_names[o->type];
    out->deflt = text.def[i];
    out->range = text.range[i];
    out->doc = o->doc;
    return COLLIO_OK;
}
