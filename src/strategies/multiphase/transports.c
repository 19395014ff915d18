/*
 * strategies/multiphase/transports.c -- the table of multiphase's
 * transports: the built-in ones (MP_TRANSPORTS, multiphase.h: one line
 * each), then those a program registers before the catalogue is in use,
 * as the registry of strategies does (core/registry.c). An exchange's
 * number is its place here; 0 is "auto", which the chooser resolves
 * (choose.c).
 */
#include "multiphase.h"

#include <stdatomic.h>
#include <string.h>

#define MP_TRANSPORT_ENTRY(entry) &entry,
static const collio__mp_transport *const builtin[] = {MP_TRANSPORTS(MP_TRANSPORT_ENTRY)};
enum { NBUILTIN = (int)(sizeof builtin / sizeof builtin[0]), MAX_REGISTERED = 8 };
_Static_assert(1 + NBUILTIN == (int)MP_NBUILTIN_EXCHANGES,
               "every built-in exchange has its transport");

static const collio__mp_transport *registered[MAX_REGISTERED];
static int nregistered;
static atomic_int sealed;
/* "auto", the names, NULL: filled at the seal */
static const char *names[1 + NBUILTIN + MAX_REGISTERED + 1];

int collio__mp_nexchanges(void)
{
    return 1 + NBUILTIN + nregistered;
}

const collio__mp_transport *collio__mp_transport_of(int x)
{
    if (x <= 0 || x >= collio__mp_nexchanges())
        return NULL;
    return x <= NBUILTIN ? builtin[x - 1] : registered[x - 1 - NBUILTIN];
}

int collio__mp_transport_register(const collio__mp_transport *t)
{
    if (atomic_load(&sealed) || nregistered >= MAX_REGISTERED || t == NULL
        || t->name == NULL || collio__mp_exchange_of(t->name) >= 0 || t->build == NULL
        || t->write == NULL || t->read == NULL || t->free == NULL)
        return COLLIO_ERR_STATE;
    registered[nregistered++] = t;
    return COLLIO_OK;
}

void collio__mp_transports_seal(void)
{
    if (atomic_exchange(&sealed, 1))
        return;
    names[0] = "auto";
    for (int x = 1; x < collio__mp_nexchanges(); x++)
        names[x] = collio__mp_transport_of(x)->name;
    names[collio__mp_nexchanges()] = NULL;
}

const char *const *collio__mp_exchange_names(void)
{
    collio__mp_transports_seal();
    return names;
}

const char *collio__mp_exchange_name(int x)
{
    if (x == MP_EXCHANGE_AUTO)
        return "auto";
    const collio__mp_transport *t = collio__mp_transport_of(x);
    return t != NULL ? t->name : NULL;
}

int collio__mp_exchange_of(const char *name)
{
    for (int x = 0; name != NULL && x < collio__mp_nexchanges(); x++)
        if (strcmp(collio__mp_exchange_name(x), name) == 0)
            return x;
    return -1;
}
