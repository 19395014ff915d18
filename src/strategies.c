/*
 * strategies.c -- the one registry of strategies. Adding a strategy is one
 * new file in src/strategies/ (defining a collio__strategy with designated
 * initializers: its functions, its options' and stats' tables) plus one
 * line in the table below (and its extern). Its options and stats join
 * the catalogue (options.c) by that line alone.
 *
 * The order of the table is the order collio_strategy_name() lists them in
 * (and so the order the benchmark and the tests walk them).
 */
#include "collio_internal.h"

#include <stdatomic.h>
#include <string.h>

extern const collio__strategy collio__strategy_serial;
extern const collio__strategy collio__strategy_independent;
extern const collio__strategy collio__strategy_two_phase;
extern const collio__strategy collio__strategy_multiphase;
extern const collio__strategy collio__strategy_subgroup;
extern const collio__strategy collio__strategy_auto;
extern const collio__strategy collio__strategy_block;

enum { MAX_STRATEGIES = 24 };

/* The table; a registration (collio__strategy_register) appends. */
static const collio__strategy *registry[MAX_STRATEGIES] = {
    &collio__strategy_serial,    &collio__strategy_independent,
    &collio__strategy_two_phase, &collio__strategy_multiphase,
    &collio__strategy_subgroup,  &collio__strategy_auto,
    &collio__strategy_block,
};
static int nregistry = 7;
static atomic_int sealed; /* the catalogue was built: no more entries */

#define NREGISTRY nregistry

int collio__strategy_register(const collio__strategy *s)
{
    if (atomic_load(&sealed) || nregistry >= MAX_STRATEGIES || s == NULL
        || collio__strategy_find(s->section.name) != NULL)
        return COLLIO_ERR_STATE;
    registry[nregistry++] = s;
    return COLLIO_OK;
}

void collio__strategies_seal(void)
{
    atomic_store(&sealed, 1);
}

const collio__strategy *collio__strategy_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NREGISTRY; i++)
        if (strcmp(registry[i]->section.name, name) == 0)
            return registry[i];
    return NULL;
}

const collio__strategy *collio__strategy_at(int i)
{
    return i >= 0 && i < NREGISTRY ? registry[i] : NULL;
}

int collio_strategy_count(void)
{
    return NREGISTRY;
}

const char *collio_strategy_name(int i)
{
    return i >= 0 && i < NREGISTRY ? registry[i]->section.name : NULL;
}

const char *collio_strategy_summary(const char *name)
{
    const collio__strategy *s = collio__strategy_find(name);
    return s != NULL ? s->summary : NULL;
}

int collio_strategy_is_mpi_collective(const char *name)
{
    const collio__strategy *s = collio__strategy_find(name);
    return s != NULL ? (s->mpi_collective != 0) : -1;
}

int collio_strategy_is_canonical(const char *name)
{
    const collio__strategy *s = collio__strategy_find(name);
    return s != NULL ? (s->canonical != 0) : -1;
}
