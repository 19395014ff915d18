/*
 * options.c -- the multiphase strategy's section of the
 * catalogue: its options (hints "multiphase.NAME") and its statistics
 * (collio_plan_stat "multiphase.NAME"), and the names of its exchanges
 * (from MP_TRANSPORTS, multiphase.h).
 * The ranges are the tables'; what depends on the rank count (an exchange
 * that needs all phases, with fewer asked for) is rejected by the chooser
 * (choose.c), whose thresholds docs/multiphase.md describes.
 */
#include "options/options.h"
#include "multiphase.h"

#include <string.h>

#define MP_EXCHANGE_NAME(name, entry) name,
const char *const collio__mp_exchange_names[MP_NEXCHANGES] = {
    "auto", MP_TRANSPORTS(MP_EXCHANGE_NAME)};
_Static_assert((int)MP_NEXCHANGES >= (int)COLLIO_EXCHANGE__COUNT,
               "every built-in collio_exchange has its transport");

const char *collio_exchange_name(int x)
{
    return x >= 0 && x < MP_NEXCHANGES ? collio__mp_exchange_names[x] : NULL;
}

int collio_exchange_from_name(const char *name)
{
    for (int x = 0; name != NULL && x < MP_NEXCHANGES; x++)
        if (strcmp(collio__mp_exchange_names[x], name) == 0)
            return x;
    return -1;
}

const collio__option collio__mp_options[MP_NOPTIONS] = {
    [MP_OPT_PHASES] = {"phases", COLLIO__OPT_INT, 0, 0, COLLIO_MAX_PHASES, NULL, NULL,
                       "exchange phases: 0 = all (ceil(log2 P)), k = stop after k "
                       "(the hypercube)"},
    [MP_OPT_WRITE_ROUNDS] = {"write_rounds", COLLIO__OPT_INT, 0, -1, 62, NULL, NULL,
                             "writes that keep the buffer move the data in r + 1 rounds "
                             "inside the final buffer: 0 = automatic, -1 = one pass"},
    [MP_OPT_EXCHANGE] = {"exchange", COLLIO__OPT_NAME, COLLIO_EXCHANGE_AUTO, 0,
                         MP_NEXCHANGES - 1, collio__mp_exchange_names, NULL,
                         "the transport: auto chooses by the layout and the link "
                         "(docs/multiphase.md)"},
    [MP_OPT_SHARED_MEMORY] = {"shared_memory", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                              "on one node the direct exchange copies through an MPI-3 "
                              "shared-memory window"},
};

const collio__stat collio__mp_stats[MP_NSTATS] = {
    [MP_STAT_EXCHANGE] = {"exchange", 0, 0,
                          "the collio_exchange the plan uses (what auto chose)"},
    [MP_STAT_SHARED_MEMORY] = {"shared_memory", 0, 0,
                               "1 if the direct exchange copies through a shared-memory "
                               "window"},
    [MP_STAT_SHM_FALLBACK] =
        {"shm_fallback", 0, 0,
         "1 if /dev/shm (or the file size limit) had no room for the "
         "window: messages instead"},
    [MP_STAT_NET_BW] =
        {"net_bw", 0, 0,
         "across nodes: the measured link rate, bytes/s, the choice compared"},
    [MP_STAT_MEM_BW] = {"mem_bw", 0, 0,
                        "across nodes: the measured memory copy rate, bytes/s"},
    [MP_STAT_PULL_ROUNDS] = {"pull_rounds", 0, 0,
                             "the shared-memory exchange's pull rounds (small blocks; "
                             "two barriers each), 0: pushed only"},
};
