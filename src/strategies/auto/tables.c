/*
 * strategies/auto/tables.c -- strategy auto's options and statistics
 * (the catalogue's "auto" section; docs/auto.md explains each).
 */
#include "options/options.h"
#include "tables.h"

#include <stdio.h>
#include <string.h>

static const collio__option options[AUTO_NOPTIONS] = {
    [OPT_USE_CALIBRATION] =
        {"use_calibration", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
         "read the calibration file (COLLIO_CALIBRATION, docs/auto.md); "
         "0: the built-in constants"},
    [OPT_DIR] = {"dir", COLLIO__OPT_PATH, 0, 0, 0, NULL, NULL,
                 "where the files will be (a directory or a file): the choice for "
                 "its file system is made at plan creation, not at the first call"},
    [OPT_ONLY] = {"only", COLLIO__OPT_NAME, 0, 0, 0, NULL /* (the candidates': below) */,
                  NULL,
                  "any: choose; a candidate (multiphase_k2, subgroup_g4_list, ...): run "
                  "that one, predicted all the same (ARG where it cannot run)"},
    [OPT_CALIBRATE] = {"calibrate", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                       "measure a file system no calibration covers at the first call "
                       "there (collio_calibrate's quick level) and keep it in the "
                       "calibration file; 0: its built-in costs (so does "
                       "COLLIO_AUTO_CALIBRATE=0)"},
    [OPT_LEARN] = {"learn", COLLIO__OPT_BOOL, 1, 0, 1, NULL, NULL,
                   "correct the model from the plan's own calls and try a close "
                   "runner-up once (docs/auto.md); 0: the first choice stays"},
};

static const collio__stat fixed_stats[AUTO_NSTATS_FIXED] = {
    [ST_WRITE_CHOICE] = {"write_choice", 0, 0,
                         "the candidate the last write ran, a value - 1 of hint "
                         "auto.only (-1: none yet)"},
    [ST_READ_CHOICE] = {"read_choice", 0, 0,
                        "the candidate the last read ran (-1: none yet)"},
    [ST_CALIBRATED] = {"calibrated", 0, 0,
                       "1: the last call's file system has costs from the calibration "
                       "file; 0: the built-in ones (auto.networked says which)"},
    [ST_NETWORKED] = {"networked", 0, 0,
                      "1: the last call's file system is a networked one "
                      "(collio_fs_is_networked: NFS, Lustre, GPFS, GlusterFS, ...), "
                      "priced, where it has no calibration entry, with the networked "
                      "built-in costs; 0: a local one"},
    [ST_CALIBRATION_ERROR] =
        {"calibration_error", 0, 0,
         "0: the calibration file was read; else why not (a "
         "collio_error code: IO missing, ARG corrupt); -1: not asked"},
    [ST_LINK_BPS] = {"link_Bps", 0, 0,
                     "the link between nodes the model prices, bytes/s: the "
                     "calibration file's, or without one measured at plan creation "
                     "(a 1 MiB ping-pong, once per process); 0: the plan's ranks share "
                     "one node"},
    [ST_CHOOSE_S] = {"choose_s", 1, 0,
                     "last call: looking up the file system's choice, and making it "
                     "where no call or the plan's creation made it before"},
    [ST_MADE_S] = {"made_s", 0, 0,
                   "choices made at calls (the first per file system and operation "
                   "not made at plan creation): wall time, this plan's total -- with "
                   "collio_plan_create's, what creating an auto plan cost"},
    [ST_PRICED_BY] = {"priced_by", 0, 0,
                      "the file costs the last call was priced with: 1 a calibration "
                      "file's entry, 2 one this process measured (auto.calibrate), 0 "
                      "the built-in ones"},
    [ST_CALIBRATE_S] = {"calibrate_s", 0, 0,
                        "time this plan spent measuring file systems no calibration "
                        "covered (auto.calibrate; 0: none)"},
    [ST_CALIBRATE_ERROR] = {"calibrate_error", 0, 0,
                            "0, or the code of the last measurement that failed (the "
                            "built-in costs then priced that file system)"},
    [ST_SWITCHES] = {"switches", 0, 0,
                     "choices changed by what the plan learned from its own calls "
                     "(auto.learn), every file system and operation"},
    [ST_SWITCH_FROM] = {"switch_from", 0, 0,
                        "the last switch: the candidate it left (-1: none yet)"},
    [ST_SWITCH_TO] = {"switch_to", 0, 0, "the last switch: the candidate it took"},
    [ST_SWITCH_WHY] = {"switch_why", 0, 0,
                       "the last switch: 1 the corrected model ranked another first, "
                       "2 a runner-up within the margin tried, 3 another ranked faster "
                       "than the one that ran measured"},
    [ST_SWITCH_MEASURED_S] = {"switch_measured_s", 0, 0,
                              "the last switch: the median time the candidate it left "
                              "was measured at"},
    [ST_SWITCH_PREDICTED_S] = {"switch_predicted_s", 0, 0,
                               "the last switch: ... and what the model had predicted "
                               "for it"},
};

/* The section: the tables above, auto.only's values and a stat per
 * candidate (predicted_<label>_s) added. Made once (the catalogue's
 * build, under its once). */
static struct {
    collio__section section;
    collio__option options[AUTO_NOPTIONS];
    collio__stat stats[AUTO_NSTATS_FIXED + AUTO_MAX_CAND];
    char names[AUTO_MAX_CAND][64], docs[AUTO_MAX_CAND][96];
} made;

const collio__section *collio__auto_section(void)
{
    if (made.section.name != NULL)
        return &made.section;
    const int n = collio__auto_ncand();
    memcpy(made.options, options, sizeof options);
    made.options[OPT_ONLY].max = n;
    made.options[OPT_ONLY].names = collio__auto_only_names();
    memcpy(made.stats, fixed_stats, sizeof fixed_stats);
    for (int i = 0; i < n; i++) {
        const collio__candidate *c = collio__auto_cand(i);
        snprintf(made.names[i], sizeof made.names[i], "predicted_%s_s", c->label);
        snprintf(made.docs[i], sizeof made.docs[i], "last call: %s's predicted time",
                 c->what != NULL ? c->what : c->label);
        made.stats[ST_PREDICTED + i] =
            (collio__stat){made.names[i], 0, 0, made.docs[i], 1, NULL};
    }
    made.section = (collio__section){"auto", made.options, AUTO_NOPTIONS, made.stats,
                                     AUTO_NSTATS_FIXED + n};
    return &made.section;
}
