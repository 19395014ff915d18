/*
 * strategies.c -- the one registry of strategies. Adding a strategy is one
 * new file in src/strategies/ (defining a collio__strategy with designated
 * initializers) plus one extern and one line in the table below.
 *
 * The order of the table is the order collio_strategy_name() lists them in
 * (and so the order the benchmark and the tests walk them).
 */
#include "collio_internal.h"

#include <string.h>

extern const collio__strategy collio__strategy_serial;
extern const collio__strategy collio__strategy_independent;
extern const collio__strategy collio__strategy_two_phase;
extern const collio__strategy collio__strategy_multiphase;
extern const collio__strategy collio__strategy_subgroup;
extern const collio__strategy collio__strategy_block;

static const collio__strategy *const registry[] = {
    &collio__strategy_serial,    &collio__strategy_independent,
    &collio__strategy_two_phase, &collio__strategy_multiphase,
    &collio__strategy_subgroup,  &collio__strategy_block,
};

#define NREGISTRY ((int)(sizeof registry / sizeof registry[0]))

const collio__strategy *collio__strategy_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NREGISTRY; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

int collio_strategy_count(void)
{
    return NREGISTRY;
}

const char *collio_strategy_name(int i)
{
    return i >= 0 && i < NREGISTRY ? registry[i]->name : NULL;
}

const char *collio_strategy_summary(const char *name)
{
    const collio__strategy *s = collio__strategy_find(name);
    return s != NULL ? s->summary : NULL;
}

int collio_strategy_is_canonical(const char *name)
{
    const collio__strategy *s = collio__strategy_find(name);
    return s != NULL ? (s->canonical != 0) : -1;
}
