/*
 * core/registry.c -- the one registry of strategies. Adding a strategy is one
 * new file in src/strategies/ (defining a collio__strategy with designated
 * initializers: its functions, its options' and stats' tables) plus one
 * line in the table below (and its extern; the count follows from the
 * table). Its options and stats join
 * the catalogue (options.c) by that line alone.
 *
 * The order of the table is the order collio_strategy_name() lists them in
 * (and so the order the benchmark and the tests walk them).
 */
#include "core/core.h"

#include <stdatomic.h>
#include <string.h>

extern const collio__strategy collio__strategy_serial;
extern const collio__strategy collio__strategy_independent;
extern const collio__strategy collio__strategy_two_phase;
extern const collio__strategy collio__strategy_multiphase;
extern const collio__strategy collio__strategy_subgroup;
extern const collio__strategy collio__strategy_auto;
extern const collio__strategy collio__strategy_block;

/* The table: the built-in strategies, counted by the compiler. */
static const collio__strategy *const builtin[] = {
    &collio__strategy_serial,    &collio__strategy_independent,
    &collio__strategy_two_phase, &collio__strategy_multiphase,
    &collio__strategy_subgroup,  &collio__strategy_auto,
    &collio__strategy_block,
};
enum { NBUILTIN = (int)(sizeof builtin / sizeof builtin[0]), MAX_REGISTERED = 16 };

/* Strategies registered at run time (collio__strategy_register) follow. */
static const collio__strategy *registered[MAX_REGISTERED];
static int nregistered = 0;
static atomic_int sealed; /* the catalogue was built: no more entries */

#define NREGISTRY (NBUILTIN + nregistered)

int collio__strategy_register(const collio__strategy *s)
{
    if (atomic_load(&sealed) || nregistered >= MAX_REGISTERED || s == NULL
        || collio__strategy_find(s->section.name) != NULL)
        return COLLIO_ERR_STATE;
    registered[nregistered++] = s;
    return COLLIO_OK;
}

void collio__strategies_seal(void)
{
    atomic_store(&sealed, 1);
}

const collio__strategy *collio__strategy_at(int i)
{
    if (i < 0 || i >= NREGISTRY)
        return NULL;
    return i < NBUILTIN ? builtin[i] : registered[i - NBUILTIN];
}

const collio__strategy *collio__strategy_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NREGISTRY; i++)
        if (strcmp(collio__strategy_at(i)->section.name, name) == 0)
            return collio__strategy_at(i);
    return NULL;
}

int collio_strategy_count(void)
{
    return NREGISTRY;
}

const char *collio_strategy_name(int i)
{
    const collio__strategy *s = collio__strategy_at(i);
    return s != NULL ? s->section.name : NULL;
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
