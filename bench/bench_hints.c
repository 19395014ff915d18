/*
 * bench_hints.c -- plan options (hints) in collio-bench, all from the
 * library's catalogue (collio_option_describe), none written by hand: one
 * flag --KEY V1,V2,... per option (a sweep: one variant per value), each
 * value checked by collio_hints_set; the convenience flags of the common
 * ones (--phases, --exchange, ...) as aliases of their keys; --hints; the
 * generated part of --help; and the tables of docs/options.md.
 * Local (every rank parses the same argv and reads the same catalogue);
 * no MPI calls here.
 */
#include "bench_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The short flags of common options: aliases of their --KEY. */
static const struct alias {
    const char *flag, *key;
} aliases[] = {
    {"--phases", "multiphase.phases"},
    {"--write-rounds", "multiphase.write_rounds"},
    {"--exchange", "multiphase.exchange"},
    {"--shared-memory", "multiphase.shared_memory"},
    {"--group", "subgroup.group"},
    {"--inner", "subgroup.inner"},
    {"--replicas", "replicas.policy"},
};
enum { NALIASES = (int)(sizeof aliases / sizeof aliases[0]) };

int bench_option_find(const char *key, collio_option_info *out)
{
    for (int i = 0; i < collio_option_count(); i++) {
        collio_option_info o;
        if (collio_option_describe(i, &o) == COLLIO_OK && strcmp(o.key, key) == 0) {
            if (out)
                *out = o;
            return i;
        }
    }
    return -1;
}

/* Checks one value of KEY through collio_hints_set and puts its canonical
 * text (a size in bytes, a boolean as 0/1) into canon. A strategy option
 * (subgroup.inner) must name a canonical strategy: the bench verifies the
 * files. 0, or 2 with a message naming the key in err. */
static int check_value(const char *key, const char *value, char *canon, size_t len,
                       char *err, size_t errlen)
{
    collio_hints *h = NULL;
    int flag = 0, rc = collio_hints_create(&h);
    if (rc == COLLIO_OK)
        rc = collio_hints_set(h, key, value);
    if (rc == COLLIO_OK)
        rc = collio_hints_get(h, key, canon, len, &flag);
    if (rc != COLLIO_OK)
        snprintf(err, errlen, "bad value '%s' for option %s: %s", value, key,
                 collio_last_error());
    collio_hints_free(&h);
    if (rc != COLLIO_OK)
        return 2;
    collio_option_info o;
    if (bench_option_find(key, &o) >= 0 && strcmp(o.type, "strategy") == 0
        && collio_strategy_is_canonical(canon) != 1) {
        snprintf(err, errlen,
                 "bad value '%s' for option %s: not a canonical strategy (the bench "
                 "verifies the files)",
                 value, key);
        return 2;
    }
    return 0;
}

/* The values of a comma list for KEY, checked, canonical, into out[]. */
static int parse_values(const char *key, const char *list, bench_sweep *out, char *err,
                        size_t errlen)
{
    snprintf(out->key, sizeof out->key, "%s", key);
    out->nvalues = 0;
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        char item[BENCH_VALUE_LEN * 2];
        if (n == 0 || n >= sizeof item) {
            snprintf(err, errlen, "bad value list for option %s: '%s' (%s)", key, list,
                     n == 0 ? "an empty value" : "a value too long");
            return 2;
        }
        if (out->nvalues >= COLLIO_BENCH_MAX_LIST) {
            snprintf(err, errlen, "option %s: more than %d values", key,
                     COLLIO_BENCH_MAX_LIST);
            return 2;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        if (check_value(key, item, out->values[out->nvalues], BENCH_VALUE_LEN, err,
                        errlen))
            return 2;
        out->nvalues++;
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
}

int bench_parse_option_flag(const char *flag, const char *arg, collio_bench_config *cfg,
                            char *err, size_t errlen)
{
    const char *key = NULL;
    for (int i = 0; i < NALIASES && key == NULL; i++)
        if (strcmp(flag, aliases[i].flag) == 0)
            key = aliases[i].key;
    if (key == NULL && strncmp(flag, "--", 2) == 0
        && bench_option_find(flag + 2, NULL) >= 0)
        key = flag + 2;
    if (key == NULL)
        return 1;
    bench_sweep s;
    if (parse_values(key, arg, &s, err, errlen))
        return 2;
    int at = 0;
    while (at < cfg->nsweeps && strcmp(cfg->sweeps[at].key, key) != 0)
        at++;
    if (at == COLLIO_BENCH_MAX_SWEEPS) {
        snprintf(err, errlen, "option %s: more than %d options swept", key,
                 COLLIO_BENCH_MAX_SWEEPS);
        return 2;
    }
    collio_bench_sweep *cs = &cfg->sweeps[at];
    snprintf(cs->key, sizeof cs->key, "%s", key);
    size_t n = 0;
    for (int i = 0; i < s.nvalues; i++)
        n += (size_t)snprintf(cs->values + n,
                              n < sizeof cs->values ? sizeof cs->values - n : 0, "%s%s",
                              i ? "," : "", s.values[i]);
    if (n >= sizeof cs->values) {
        snprintf(err, errlen, "option %s: value list too long", key);
        return 2;
    }
    if (at == cfg->nsweeps)
        cfg->nsweeps++;
    return 0;
}

int bench_parse_hints(const char *arg, collio_bench_config *cfg, char *err, size_t errlen)
{
    collio_hints *h = NULL;
    int rc = collio_hints_create(&h);
    if (rc == COLLIO_OK)
        rc = collio_hints_parse(h, arg);
    collio_hints_free(&h);
    if (rc != COLLIO_OK) {
        snprintf(err, errlen, "bad --hints '%s': %s", arg, collio_last_error());
        return 2;
    }
    size_t n = strlen(cfg->hints);
    if (n + 1 + strlen(arg) >= sizeof cfg->hints) {
        snprintf(err, errlen, "--hints: more than %zu characters in all",
                 sizeof cfg->hints - 1);
        return 2;
    }
    snprintf(cfg->hints + n, sizeof cfg->hints - n, "%s%s", n ? "," : "", arg);
    return 0;
}

/* Puts sweep s in out[0..*n): replaces one of the same key, else appends. */
static int add_sweep(const bench_sweep *s, bench_sweep *out, int *n, char *err,
                     size_t errlen)
{
    int at = 0;
    while (at < *n && strcmp(out[at].key, s->key) != 0)
        at++;
    if (at == BENCH_MAX_SWEEPS) {
        snprintf(err, errlen, "more than %d options swept", BENCH_MAX_SWEEPS);
        return COLLIO_ERR_ARG;
    }
    out[at] = *s;
    if (at == *n)
        (*n)++;
    return COLLIO_OK;
}

/* The rank of KEY among the aliases' keys (their table's order), NALIASES
 * for any other key. */
static int alias_rank(const char *key)
{
    int k = 0;
    while (k < NALIASES && strcmp(aliases[k].key, key) != 0)
        k++;
    return k;
}

int bench_sweeps_of(const collio_bench_config *cfg, bench_sweep *out, int *n, char *err,
                    size_t errlen)
{
    *n = 0;
    bench_sweep s;
    /* the aliased keys first, in their table's order, then the others as
     * given: a variant's label lists its values in this order (k=, r=,
     * x=, ... as the bench has always written them) */
    for (int rank = 0; rank <= NALIASES; rank++)
        for (int k = 0; k < cfg->nsweeps && k < COLLIO_BENCH_MAX_SWEEPS; k++) {
            const collio_bench_sweep *cs = &cfg->sweeps[k];
            if (alias_rank(cs->key) != rank)
                continue;
            if (bench_option_find(cs->key, NULL) < 0) {
                snprintf(err, errlen,
                         "unknown option '%s' (collio-bench --help lists them)", cs->key);
                return COLLIO_ERR_ARG;
            }
            if (parse_values(cs->key, cs->values, &s, err, errlen)
                || add_sweep(&s, out, n, err, errlen))
                return COLLIO_ERR_ARG;
        }
    return COLLIO_OK;
}

/* ------------------------------------------------------------ usage */

/* Writes text from column `indent` on, wrapped before column 79. */
static void wrap(FILE *out, const char *text, int indent)
{
    int col = indent;
    fprintf(out, "%*s", indent, "");
    for (const char *p = text; *p;) {
        size_t w = strcspn(p, " ");
        if (col > indent && col + 1 + (int)w > 79) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)w, p);
        col += (int)w;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

int bench_usage_options(FILE *out)
{
    fprintf(out,
            "plan options (hints; docs/options.md): one flag per option of the\n"
            "catalogue, each a sweep -- one variant per value, crossed with the other\n"
            "sweeps -- of the strategies it applies to (its own section's; \"plan\":\n"
            "every strategy; \"replicas\": every canonical one; another strategy's:\n"
            "the strategies that run it, e.g. subgroup with that inner). Values are\n"
            "hint text (sizes may end in K, M, G), checked before any run.\n"
            "  --hints K=V[,K=V...]   hints of every variant (a sweep of the same key\n"
            "                         wins; COLLIO_HINTS in the environment wins over\n"
            "                         both)\n"
            "  --destroy-input        = --hints plan.destroy_input=1 (the bench\n"
            "                         refills the buffer before every write)\n");
    int n = collio_option_count();
    for (int i = 0; i < n; i++) {
        collio_option_info o;
        int rc = collio_option_describe(i, &o);
        if (rc != COLLIO_OK)
            return rc;
        const char *alias = NULL;
        for (int k = 0; k < NALIASES && alias == NULL; k++)
            if (strcmp(aliases[k].key, o.key) == 0)
                alias = aliases[k].flag;
        fprintf(out, "  --%s V[,V...]%s%s%s\n", o.key, alias ? "  (or " : "",
                alias ? alias : "", alias ? ")" : "");
        char line[1024];
        snprintf(line, sizeof line, "%s, default %s, takes %s: %s", o.type,
                 o.deflt[0] ? o.deflt : "(none)", o.range, o.doc);
        wrap(out, line, 6);
    }
    return COLLIO_OK;
}

/* ------------------------------------------------------- docs/options.md */

/* A table cell: '|' escaped (also inside code spans), no line breaks. */
static void cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s == '\n' ? ' ' : *s, out);
    }
}

/* A cell in a code span (empty text: an empty cell). */
static void code_cell(FILE *out, const char *s)
{
    if (*s == '\0')
        return;
    fputc('`', out);
    cell(out, s);
    fputc('`', out);
}

/* The section of a key "SECTION.NAME" ("plan" for a key without a dot, a
 * field of collio_stats) into sec. */
static void section_of(const char *key, char *sec, size_t len)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL)
        snprintf(sec, len, "plan");
    else
        snprintf(sec, len, "%.*s", (int)(dot - key), key);
}

/* A section's one line: the strategy's summary, or what the section is. */
static const char *section_doc(const char *sec)
{
    if (strcmp(sec, "plan") == 0)
        return "every plan, whatever its strategy";
    if (strcmp(sec, "replicas") == 0)
        return "replicated layouts (docs/replicas.md): which holder writes an element";
    const char *s = collio_strategy_summary(sec);
    return s != NULL ? s : "";
}

static void section_head(FILE *out, const char *sec, const char *what)
{
    const char *doc = section_doc(sec);
    fprintf(out, "\n### %s `%s`\n\n", what, sec);
    if (*doc) {
        cell(out, doc);
        fputs("\n\n", out);
    }
}

int collio_bench_options_markdown(FILE *out)
{
    char sec[COLLIO_BENCH_KEY_LEN], prev[COLLIO_BENCH_KEY_LEN] = "";
    fprintf(out, "## Options\n");
    int n = collio_option_count();
    for (int i = 0; i < n; i++) {
        collio_option_info o;
        int rc = collio_option_describe(i, &o);
        if (rc != COLLIO_OK)
            return rc;
        section_of(o.key, sec, sizeof sec);
        if (strcmp(sec, prev) != 0) {
            section_head(out, sec, "Section");
            fprintf(out,
                    "| key | type | default | range | doc |\n|---|---|---|---|---|\n");
            snprintf(prev, sizeof prev, "%s", sec);
        }
        fputs("| ", out);
        code_cell(out, o.key);
        fprintf(out, " | %s | ", o.type);
        code_cell(out, o.deflt);
        fputs(" | ", out);
        if (strcmp(o.type, "strategy") == 0 || strcmp(o.type, "path") == 0) /* prose */
            cell(out, o.range);
        else
            code_cell(out, o.range);
        fputs(" | ", out);
        cell(out, o.doc);
        fputs(" |\n", out);
    }
    /* the strategies without a section of options */
    int none = 0;
    for (int s = 0; s < collio_strategy_count(); s++) {
        const char *name = collio_strategy_name(s);
        int has = 0;
        for (int i = 0; i < n && !has; i++) {
            collio_option_info o;
            if (collio_option_describe(i, &o) == COLLIO_OK) {
                section_of(o.key, sec, sizeof sec);
                has = strcmp(sec, name) == 0;
            }
        }
        if (!has)
            fprintf(out, "%s`%s`", none++ ? ", " : "\nNo options of their own: ", name);
    }
    if (none)
        fprintf(out, ".\n");
    fprintf(out, "\n## Statistics\n\n"
                 "Read with `collio_plan_stat(plan, KEY, &value)` after a call (the\n"
                 "section `plan`: the fields of `collio_stats`, keys without a\n"
                 "section); one of many values (one per exchange phase, ...) with\n"
                 "`collio_plan_stat_values`. *call*: describes the last\n"
                 "`collio_write` / `collio_read` (reset in each); *plan*: the plan,\n"
                 "kept from one call to the next. A section whose strategy does not\n"
                 "run reads 0.\n");
    prev[0] = '\0';
    for (int i = 0; i < collio_stat_count(); i++) {
        collio_stat_info s;
        int rc = collio_stat_describe(i, &s);
        if (rc != COLLIO_OK)
            return rc;
        section_of(s.key, sec, sizeof sec);
        if (strcmp(sec, prev) != 0) {
            section_head(out, sec, "Statistics of");
            fprintf(out, "| key | of | doc |\n|---|---|---|\n");
            snprintf(prev, sizeof prev, "%s", sec);
        }
        fputs("| ", out);
        code_cell(out, s.key);
        fprintf(out, " | %s | ", s.per_call ? "call" : "plan");
        cell(out, s.doc);
        if (s.count > 1)
            fprintf(out, " (up to %d values: `%s` of them)", s.count, s.length);
        fputs(" |\n", out);
    }
    return COLLIO_OK;
}
