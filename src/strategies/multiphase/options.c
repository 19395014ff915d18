/*
 * options.c -- the multiphase strategy's section of the
 * catalogue: its options (hints "multiphase.NAME") and its statistics
 * (collio_plan_stat "multiphase.NAME"); the values of multiphase.exchange
 * are the transports' table's (transports.c), added once it is sealed.
 * The ranges are the tables'; what depends on the rank count (an exchange
 * that needs all phases, with fewer asked for) is rejected by the chooser
 * (choose.c), whose thresholds docs/multiphase.md describes.
 */
#include "options/options.h"
#include "multiphase.h"

#include <string.h>

static const collio__option options[MP_NOPTIONS] = {
    [MP_OPT_PHASES] = {"phases", COLLIO__OPT_INT, 0, 0, MP_MAX_PHASES, NULL, NULL,
                       "exchange phases: 0 = all (ceil(log2 P)), k = stop after k "
                       "(the hypercube)"},
    [MP_OPT_WRITE_ROUNDS] = {"write_rounds", COLLIO__OPT_INT, 0, -1, 62, NULL, NULL,
                             "writes that keep the buffer move the data in r + 1 rounds "
                             "inside the final buffer: 0 = automatic, -1 = one pass"},
    [MP_OPT_EXCHANGE] = {"exchange", COLLIO__OPT_NAME, MP_EXCHANGE_AUTO, 0, 0,
                         NULL /* (the transports': collio__mp_section) */, NULL,
                         "the transport: auto chooses by the layout and the link "
                         "(docs/multiphase.md)"},
    [MP_OPT_SHARED_MEMORY] = {"shared_memory", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                              "on one node the direct exchange copies through an MPI-3 "
                              "shared-memory window"},
};

static const collio__stat stats[MP_NSTATS] = {
    [MP_STAT_EXCHANGE] = {"exchange", 0, 0,
                          "the exchange the plan uses (what auto chose; its name: "
                          "collio_option_value_name of multiphase.exchange)"},
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
    [MP_STAT_NPHASES] = {"nphases", 1, 0, "exchange phases of the last execution"},
    [MP_STAT_NROUNDS] = {"nrounds", 1, 0,
                         "rounds of the last execution (hint write_rounds), 0: one pass"},
    [MP_STAT_PHASE_S] = {"phase_s", 1, 0, "seconds per exchange phase", MP_MAX_PHASES,
                         "nphases"},
    [MP_STAT_PHASE_BYTES] = {"phase_bytes", 1, 0, "bytes this rank sent per phase",
                             MP_MAX_PHASES, "nphases"},
    [MP_STAT_PHASE_TUPLES] = {"phase_tuples", 1, 0, "descriptor tuples per phase",
                              MP_MAX_PHASES, "nphases"},
    [MP_STAT_PHASE_MESSAGES] = {"phase_messages", 1, 0, "messages posted per phase",
                                MP_MAX_PHASES, "nphases"},
};

void collio__mp_phase_add(collio_plan *p, int i, double seconds, double bytes,
                          double messages, double tuples)
{
    if (i < 0 || i >= MP_MAX_PHASES)
        return;
    collio__stat_values(p, MP_STAT_PHASE_S)[i] += seconds;
    collio__stat_values(p, MP_STAT_PHASE_BYTES)[i] += bytes;
    collio__stat_values(p, MP_STAT_PHASE_MESSAGES)[i] += messages;
    collio__stat_values(p, MP_STAT_PHASE_TUPLES)[i] += tuples;
}

const collio__section *collio__mp_section(void)
{
    static collio__section made;
    static collio__option opts[MP_NOPTIONS];
    if (made.name != NULL)
        return &made;
    memcpy(opts, options, sizeof options);
    opts[MP_OPT_EXCHANGE].names = collio__mp_exchange_names(); /* (seals the table) */
    opts[MP_OPT_EXCHANGE].max = collio__mp_nexchanges() - 1;
    made = (collio__section){"multiphase", opts, MP_NOPTIONS, stats, MP_NSTATS};
    return &made;
}
