/*
 * hints.c -- the public set of hints (collio_hints: key/value text,
 * local), each pair checked against the catalogue (catalogue.c) and its
 * option's type and range (options/value.c) when it is set.
 *
 * A set keeps each key once, in the order keys were first set, with its
 * value in canonical text (a size in bytes, a boolean as 0/1, a name as
 * the name), checked when set: a set never holds an unknown key or a bad
 * value.
 */
#include "base/base.h"
#include "options/options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int bad_value(const char *key, const char *text, const char *want)
{
    collio__error_set(COLLIO_ERR_ARG, "hint %s = '%.64s': %s", key, text, want);
    return COLLIO_ERR_ARG;
}

struct collio_hints {
    int n, cap;
    char **key, **val;
};

/* -------------------------------------------------------------- the set */

int collio_hints_create(collio_hints **out)
{
    collio__error_begin();
    if (out == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_create: out is NULL");
        return COLLIO_ERR_ARG;
    }
    *out = calloc(1, sizeof **out);
    if (*out == NULL) {
        collio__error_set(COLLIO_ERR_NOMEM, "collio_hints_create: no memory");
        return COLLIO_ERR_NOMEM;
    }
    return COLLIO_OK;
}

void collio_hints_free(collio_hints **hints)
{
    if (hints == NULL || *hints == NULL)
        return;
    collio_hints *h = *hints;
    for (int i = 0; i < h->n; i++) {
        free(h->key[i]);
        free(h->val[i]);
    }
    free(h->key);
    free(h->val);
    free(h);
    *hints = NULL;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* Stores key = canonical text (replacing an earlier value). */
static int store(collio_hints *h, const char *key, const char *text)
{
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->key[i], key) == 0) {
            char *v = dup_str(text);
            if (v == NULL)
                return COLLIO_ERR_NOMEM;
            free(h->val[i]);
            h->val[i] = v;
            return COLLIO_OK;
        }
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 8;
        char **k = realloc(h->key, (size_t)cap * sizeof *k);
        if (k != NULL)
            h->key = k;
        char **v = k ? realloc(h->val, (size_t)cap * sizeof *v) : NULL;
        if (v == NULL)
            return COLLIO_ERR_NOMEM;
        h->val = v;
        h->cap = cap;
    }
    h->key[h->n] = dup_str(key);
    h->val[h->n] = dup_str(text);
    if (h->key[h->n] == NULL || h->val[h->n] == NULL) {
        free(h->key[h->n]);
        free(h->val[h->n]);
        return COLLIO_ERR_NOMEM;
    }
    h->n++;
    return COLLIO_OK;
}

/* Checks and stores one pair; errors recorded. */
static int set_one(collio_hints *h, const char *key, const char *text)
{
    int index;
    const collio__option *o = collio__option_find(key, &index);
    if (o == NULL) {
        collio__error_set(COLLIO_ERR_ARG,
                          "unknown hint '%.96s' (collio_option_describe, docs/options.md "
                          "list them)",
                          key);
        return COLLIO_ERR_ARG;
    }
    int64_t v;
    const char *str;
    int rc = collio__option_parse(o, key, text, &v, &str);
    if (rc != COLLIO_OK)
        return rc;
    char canon[COLLIO__PATH_MAX]; /* (a path is its own canonical text) */
    collio__option_format(o, v, str, canon, sizeof canon);
    rc = store(h, key, canon);
    if (rc != COLLIO_OK)
        collio__error_set(rc, "hint %s: no memory", key);
    return rc;
}

int collio_hints_set(collio_hints *hints, const char *key, const char *value)
{
    collio__error_begin();
    if (hints == NULL || key == NULL || value == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_set: %s is NULL",
                          !hints ? "hints"
                          : !key ? "key"
                                 : "value");
        return COLLIO_ERR_ARG;
    }
    return set_one(hints, key, value);
}

int collio_hints_set_int(collio_hints *hints, const char *key, int64_t value)
{
    collio__error_begin();
    if (hints == NULL || key == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_set_int: %s is NULL",
                          !hints ? "hints" : "key");
        return COLLIO_ERR_ARG;
    }
    int index;
    const collio__option *o = collio__option_find(key, &index);
    char text[64];
    if (o != NULL && o->type == COLLIO__OPT_NAME) {
        if (value < 0 || value > o->max) {
            snprintf(text, sizeof text, "%" PRId64, value);
            return bad_value(key, text, "is not the index of one of its names");
        }
        snprintf(text, sizeof text, "%s", o->names[value]);
    } else if (o != NULL
               && (o->type == COLLIO__OPT_STRATEGY || o->type == COLLIO__OPT_PATH)) {
        collio__error_set(COLLIO_ERR_ARG, "hint %s takes a %s, not a number", key,
                          o->type == COLLIO__OPT_PATH ? "path" : "strategy's name");
        return COLLIO_ERR_ARG;
    } else if (o != NULL && o->type == COLLIO__OPT_U64) {
        uint64_t u;
        memcpy(&u, &value, sizeof u);
        snprintf(text, sizeof text, "%" PRIu64, u);
    } else {
        snprintf(text, sizeof text, "%" PRId64, value);
    }
    return set_one(hints, key, text);
}

/* Trims spaces of [*s, *e) in place. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

int collio__hints_parse_list(collio_hints *h, const char *list, const char *what)
{
    const char *p = list;
    while (*p != '\0') {
        const char *end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *ks = p, *ke = eq ? eq : end;
        trim(&ks, &ke);
        if (ks == ke && eq == NULL) { /* an empty item: ",," or a trailing "," */
            p = *end ? end + 1 : end;
            continue;
        }
        if (eq == NULL) {
            collio__error_set(COLLIO_ERR_ARG, "%s: '%.*s' is not KEY=VALUE", what,
                              (int)(end - p), p);
            return COLLIO_ERR_ARG;
        }
        const char *vs = eq + 1, *ve = end;
        trim(&vs, &ve);
        char key[128], val[256];
        if ((size_t)(ke - ks) >= sizeof key || (size_t)(ve - vs) >= sizeof val) {
            collio__error_set(COLLIO_ERR_ARG, "%s: '%.*s' is too long", what,
                              (int)(end - p), p);
            return COLLIO_ERR_ARG;
        }
        snprintf(key, sizeof key, "%.*s", (int)(ke - ks), ks);
        snprintf(val, sizeof val, "%.*s", (int)(ve - vs), vs);
        int rc = set_one(h, key, val);
        if (rc != COLLIO_OK) { /* say where the pair came from */
            char msg[400];
            snprintf(msg, sizeof msg, "%s", collio_last_error());
            collio__error_set(rc, "%s: %s", what, msg);
            return rc;
        }
        p = *end ? end + 1 : end;
    }
    return COLLIO_OK;
}

int collio_hints_parse(collio_hints *hints, const char *list)
{
    collio__error_begin();
    if (hints == NULL || list == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_parse: %s is NULL",
                          !hints ? "hints" : "list");
        return COLLIO_ERR_ARG;
    }
    return collio__hints_parse_list(hints, list, "collio_hints_parse");
}

int collio_hints_set_info(collio_hints *hints, MPI_Info info)
{
    collio__error_begin();
    int rc = collio__mpi_usable("collio_hints_set_info");
    if (rc != COLLIO_OK)
        return rc;
    if (hints == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_set_info: hints is NULL");
        return COLLIO_ERR_ARG;
    }
    if (info == MPI_INFO_NULL)
        return COLLIO_OK;
    int nkeys = 0;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) {
        collio__error_set(COLLIO_ERR_MPI,
                          "collio_hints_set_info: MPI_Info_get_nkeys failed");
        return COLLIO_ERR_MPI;
    }
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        int vlen = 0, flag = 0;
        if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS
            || MPI_Info_get_valuelen(info, key, &vlen, &flag) != MPI_SUCCESS || !flag) {
            collio__error_set(COLLIO_ERR_MPI, "collio_hints_set_info: reading key %d", i);
            return COLLIO_ERR_MPI;
        }
        const char *dot = strchr(key, '.');
        if (dot == NULL || collio__section_find(key, (size_t)(dot - key)) == NULL)
            continue; /* not ours: MPI-IO's */
        char *val = malloc((size_t)vlen + 1);
        if (val == NULL) {
            collio__error_set(COLLIO_ERR_NOMEM, "collio_hints_set_info: no memory");
            return COLLIO_ERR_NOMEM;
        }
        if (MPI_Info_get(info, key, vlen, val, &flag) != MPI_SUCCESS)
            rc = COLLIO_ERR_MPI;
        else
            rc = set_one(hints, key, val);
        free(val);
        if (rc != COLLIO_OK)
            return rc;
    }
    return COLLIO_OK;
}

int collio_hints_get(const collio_hints *hints, const char *key, char *value, size_t len,
                     int *flag)
{
    collio__error_begin();
    if (hints == NULL || key == NULL || value == NULL || flag == NULL) {
        collio__error_set(COLLIO_ERR_ARG, "collio_hints_get: an argument is NULL");
        return COLLIO_ERR_ARG;
    }
    *flag = 0;
    for (int i = 0; i < hints->n; i++)
        if (strcmp(hints->key[i], key) == 0) {
            if (strlen(hints->val[i]) >= len) {
                collio__error_set(COLLIO_ERR_ARG,
                                  "collio_hints_get: the value of %s needs %zu bytes",
                                  key, strlen(hints->val[i]) + 1);
                return COLLIO_ERR_ARG;
            }
            memcpy(value, hints->val[i], strlen(hints->val[i]) + 1);
            *flag = 1;
        }
    return COLLIO_OK;
}

int collio_hints_count(const collio_hints *hints)
{
    return hints != NULL ? hints->n : 0;
}

const char *collio_hints_key(const collio_hints *hints, int i)
{
    return hints != NULL && i >= 0 && i < hints->n ? hints->key[i] : NULL;
}

const char *collio__hints_value(const collio_hints *hints, int i)
{
    return hints->val[i];
}
