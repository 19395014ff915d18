/*
 * options/options.h -- options and statistics: hints, the catalogue of every section's
 * options and stats, their values (the files of src/options/).
 */
#ifndef COLLIO_OPTIONS_OPTIONS_H
#define COLLIO_OPTIONS_OPTIONS_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* ------------------------------------------------ options (hints), stats */

/*
 * Every option is declared once, in the table of the section that owns it
 * (a strategy's file for its own; options.c for "plan"; replicas/plan.c
 * for "replicas"): its name, type, default, range and one line of doc.
 * Everything else follows from the tables (options.c, hints.c): defaults,
 * parsing and range checks of hint text, the digest compared across ranks
 * (every option of every section, by construction), collio_plan_hints,
 * the catalogue (collio_option_describe) that the bench's flags, the
 * Python keywords, the Fortran interface and docs/options.md are made
 * from. Values live in the plan as one int64 per option of the catalogue
 * (a STRATEGY option: the registry's name string beside it; a PATH
 * option: the plan's own copy of its text), found by the option's index in
 * its section's table.
 */
typedef enum collio__opt_type {
    COLLIO__OPT_INT = 0,  /* integer in [min, max] */
    COLLIO__OPT_SIZE,     /* bytes in [min, max]; text may end in K, M, G */
    COLLIO__OPT_BOOL,     /* 0 or 1 */
    COLLIO__OPT_NAME,     /* index into names[0..max] (text: a name) */
    COLLIO__OPT_STRATEGY, /* a registered strategy's name (value: unused) */
    COLLIO__OPT_U64,      /* any unsigned 64-bit integer (bits in the int64) */
    COLLIO__OPT_PATH      /* a file system path, 1 .. COLLIO__PATH_MAX - 1 bytes
                             (value: unused; default: none) */
} collio__opt_type;
#define COLLIO__PATH_MAX 4096

typedef struct collio__option {
    const char *name; /* NAME of the key SECTION.NAME */
    collio__opt_type type;
    int64_t def;              /* INT, SIZE, BOOL, NAME (index), U64 */
    int64_t min, max;         /* INT, SIZE: the range; NAME: 0 .. count - 1 */
    const char *const *names; /* NAME: names[value] */
    const char *def_name;     /* STRATEGY: the default strategy */
    const char *doc;          /* one line */
} collio__option;

/* Statistics a section keeps beside the generic collio_stats: one double
 * per value of every stat of the catalogue in every plan. per_call ones
 * are reset at each execution; `sum`: an outer plan (subgroup) adds its
 * inner plan's value instead of taking it. An array stat (count > 1: a
 * value per phase, ...) holds `count` values, of which the stat `length`
 * of the same section says how many are in use; a section declares its
 * arrays after its scalars (so that scalar i is value i of the section:
 * collio__stat_set; the catalogue refuses another order when it is
 * built). */
typedef struct collio__stat {
    const char *name;
    int per_call;
    int sum;
    const char *doc;
    int count;          /* 0 or 1: a scalar; n > 1: an array of n values */
    const char *length; /* an array: the stat holding how many are in use */
} collio__stat;

/* A section of the catalogue: "plan", "replicas", or a strategy's. */
typedef struct collio__section {
    const char *name;
    const collio__option *options;
    int noptions;
    const collio__stat *stats;
    int nstats;
} collio__section;

/* The catalogue (catalogue.c): its sections in order -- "plan", "replicas",
 * "request", then every registered strategy's -- and the index of a section's first
 * option / stat in a plan's value arrays. */
int collio__nsections(void);
const collio__section *collio__section_at(int i);
const collio__section *collio__section_find(const char *name, size_t len);
int collio__option_base(const collio__section *s);
int collio__stat_base(const collio__section *s);
int collio__noptions_all(void);  /* options of all sections */
int collio__nstats_all(void);    /* values of all sections' stats (a plan's statv) */
int collio__nstat_entries(void); /* stats of all sections (the public catalogue) */
/* The values of a stat (1 for a scalar), and the index of stat i's first
 * value in its section's (the sum of the values of stats 0 .. i-1). */
static inline int collio__stat_nvalues(const collio__stat *st)
{
    return st->count > 1 ? st->count : 1;
}
static inline int collio__stat_offset(const collio__section *s, int i)
{
    int off = 0;
    for (int k = 0; k < i; k++)
        off += collio__stat_nvalues(&s->stats[k]);
    return off;
}
/* The catalogue's stat of KEY ("total_s", "SECTION.NAME"), its section and
 * the index of its first value in a plan's statv (for section "plan":
 * its index in collio_stats' fields); NULL if unknown. */
const collio__stat *collio__stat_find(const char *key, const collio__section **sec,
                                      int *slot);
/* All sections at once, in order, and the index of each one's first stat:
 * for the walks every call makes (stats.c), without a lookup per section.
 * Returns their number. */
int collio__sections_all(const collio__section *const **sec, const int **stat_base);

/* The option of KEY ("SECTION.NAME"); NULL if unknown. *index: its index
 * in the catalogue. */
const collio__option *collio__option_find(const char *key, int *index);
/* The option of catalogue index i (NULL if none) and its section. */
const collio__option *collio__option_at(int i, const collio__section **sec);

/* The tables the catalogue begins with: section "plan"'s stats (the
 * fields of collio_stats, stats.c) and section "replicas"
 * (replicas/plan.c). */
extern const collio__stat collio__plan_stats[];
extern const int collio__plan_nstats;
extern const collio__section collio__replicas_section;
extern const collio__section collio__request_section; /* (requests/request.c) */

/* Hint text -> value (options/value.c), checked against the option's type and
 * range: COLLIO_OK, or COLLIO_ERR_ARG / COLLIO_ERR_STRATEGY recorded with
 * a detail naming `key` and what it takes. *str: a STRATEGY option's
 * registry name. */
int collio__option_parse(const collio__option *o, const char *key, const char *text,
                         int64_t *value, const char **str);
/* value -> hint text (its canonical form), into out[0..n). */
void collio__option_format(const collio__option *o, int64_t value, const char *str,
                           char *out, size_t n);

/* A set's i-th value (0 <= i < collio_hints_count), and the parse of a
 * "KEY=VALUE,..." list into it (`what` names the source in errors). */
const char *collio__hints_value(const collio_hints *h, int i);
int collio__hints_parse_list(collio_hints *h, const char *list, const char *what);

/* A plan's option values: one per option of the catalogue. */
typedef struct collio__optvals {
    int64_t *v;
    const char **str;
} collio__optvals;

/* Local: the defaults, then `hints`, then (with_env) the environment's
 * COLLIO_HINTS, into *ov (allocated; collio__optvals_free). Errors
 * recorded (ARG, STRATEGY naming the key, NOMEM). An inner plan takes
 * with_env = 0: its hints are its outer plan's resolved options (the
 * environment already in them) and its candidate's own, which the
 * environment -- set on some ranks only, or naming the same option --
 * must not override. */
int collio__optvals_resolve(const collio_hints *hints, int with_env, collio__optvals *ov);
void collio__optvals_free(collio__optvals *ov);
/* A digest of every value (strings by content): equal on two ranks iff
 * their options are, but for hash collisions. */
uint64_t collio__optvals_digest(const collio__optvals *ov);
/* Every option with its value, as hints (to report them, or to hand them
 * to an inner plan). */
int collio__optvals_to_hints(const collio__optvals *ov, collio_hints **out);

/* The generic options (section "plan"): indices into its table. */
enum { COLLIO__PLAN_DESTROY_INPUT = 0, COLLIO__PLAN_KEEP_BUFFERS };

#endif /* COLLIO_OPTIONS_OPTIONS_H */
