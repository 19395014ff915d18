/*
 * options/value.c -- one option's hint text to its value and back, by the
 * option's declared type and range (collio__option): integers and sizes
 * (K, M, G suffixes) in [min, max], booleans, names, strategy names,
 * unsigned 64-bit integers. A bad text is COLLIO_ERR_ARG (a strategy that
 * does not exist: COLLIO_ERR_STRATEGY) with a detail that names the key
 * and says what it takes.
 */
#include "base/base.h"
#include "options/options.h"
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------- text <-> value */

static int bad_value(const char *key, const char *text, const char *want)
{
    collio__error_set(COLLIO_ERR_ARG, "hint %s = '%.64s': %s", key, text, want);
    return COLLIO_ERR_ARG;
}

/* A whole decimal integer with an optional size suffix (K, M, G, T; KB,
 * KiB, ... all binary). */
static int parse_i64(const char *text, int sizes, int64_t *out)
{
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE)
        return -1;
    while (*end == ' ')
        end++;
    int64_t mul = 1;
    if (sizes && *end != '\0') {
        const char *u = "KMGT";
        const char *k = strchr(u, toupper((unsigned char)*end));
        if (k == NULL)
            return -1;
        for (const char *q = u; q <= k; q++)
            mul *= 1024;
        end++;
        if (strcasecmp(end, "b") == 0 || strcasecmp(end, "ib") == 0
            || strcmp(end, "i") == 0)
            end += strlen(end);
    }
    if (*end != '\0' || __builtin_mul_overflow((int64_t)v, mul, out))
        return -1;
    return 0;
}

static int parse_bool(const char *t, int64_t *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on", "enable"};
    static const char *const no[] = {"0", "false", "no", "off", "disable"};
    for (int i = 0; i < 5; i++) {
        if (strcasecmp(t, yes[i]) == 0)
            return *v = 1, 0;
        if (strcasecmp(t, no[i]) == 0)
            return *v = 0, 0;
    }
    return -1;
}

int collio__option_parse(const collio__option *o, const char *key, const char *text,
                         int64_t *value, const char **str)
{
    char want[320];
    *str = NULL;
    if (text == NULL)
        return bad_value(key, "(null)", "no value");
    switch (o->type) {
    case COLLIO__OPT_INT:
    case COLLIO__OPT_SIZE:
        if (parse_i64(text, o->type == COLLIO__OPT_SIZE, value) != 0 || *value < o->min
            || *value > o->max) {
            snprintf(want, sizeof want, "takes %s from %" PRId64 " to %" PRId64,
                     o->type == COLLIO__OPT_SIZE ? "a size in bytes (K, M, G)"
                                                 : "an integer",
                     o->min, o->max);
            return bad_value(key, text, want);
        }
        return COLLIO_OK;
    case COLLIO__OPT_BOOL:
        if (parse_bool(text, value) != 0)
            return bad_value(key, text,
                             "takes a boolean: 1/0, true/false, yes/no, on/off");
        return COLLIO_OK;
    case COLLIO__OPT_NAME: {
        int n = 0;
        want[0] = '\0';
        for (int64_t i = 0; i <= o->max; i++) {
            if (strcmp(o->names[i], text) == 0)
                return *value = i, COLLIO_OK;
            n += snprintf(want + n, sizeof want - (size_t)n, "%s%s",
                          i ? ", " : "takes one of ", o->names[i]);
            if (n >= (int)sizeof want)
                n = (int)sizeof want - 1;
        }
        return bad_value(key, text, want);
    }
    case COLLIO__OPT_STRATEGY: {
        const collio__strategy *s = collio__strategy_find(text);
        if (s == NULL) {
            collio__error_set(COLLIO_ERR_STRATEGY, "hint %s = '%.64s': no such strategy",
                              key, text);
            return COLLIO_ERR_STRATEGY;
        }
        *value = 0;
        *str = s->section.name;
        return COLLIO_OK;
    }
    case COLLIO__OPT_PATH:
        if (text[0] == '\0' || strlen(text) >= COLLIO__PATH_MAX)
            return bad_value(key, text, "takes a path of 1 to 4095 bytes");
        *value = 0;
        *str = text; /* the caller's text: copied by whoever keeps it */
        return COLLIO_OK;
    case COLLIO__OPT_U64: {
        errno = 0;
        char *end;
        while (isspace((unsigned char)*text))
            text++;
        unsigned long long u = *text == '-' ? 0 : strtoull(text, &end, 10);
        if (*text == '-' || end == text || *end != '\0' || errno == ERANGE)
            return bad_value(key, text, "takes an unsigned 64-bit integer");
        memcpy(value, &u, sizeof *value);
        return COLLIO_OK;
    }
    }
    return bad_value(key, text, "has an unknown type");
}

void collio__option_format(const collio__option *o, int64_t value, const char *str,
                           char *out, size_t n)
{
    switch (o->type) {
    case COLLIO__OPT_NAME:
        snprintf(out, n, "%s", value >= 0 && value <= o->max ? o->names[value] : "?");
        return;
    case COLLIO__OPT_STRATEGY:
    case COLLIO__OPT_PATH:
        snprintf(out, n, "%s", str != NULL ? str : "");
        return;
    case COLLIO__OPT_U64: {
        uint64_t u;
        memcpy(&u, &value, sizeof u);
        snprintf(out, n, "%" PRIu64, u);
        return;
    }
    default:
        snprintf(out, n, "%" PRId64, value);
    }
}
