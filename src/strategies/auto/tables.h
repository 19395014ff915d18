/*
 * strategies/auto/tables.h -- strategy auto's options and statistics, as
 * its table registers them (tables.c): their indices.
 */
#ifndef COLLIO_AUTO_TABLES_H
#define COLLIO_AUTO_TABLES_H

#include "options/options.h"
#include "model.h"

enum { OPT_USE_CALIBRATION, OPT_DIR, OPT_ONLY, OPT_CALIBRATE, OPT_LEARN, AUTO_NOPTIONS };
extern const collio__option collio__auto_options[AUTO_NOPTIONS];

enum {
    ST_WRITE_CHOICE,
    ST_READ_CHOICE,
    ST_CALIBRATED,
    ST_NETWORKED,
    ST_CALIBRATION_ERROR,
    ST_LINK_BPS,
    ST_CHOOSE_S,
    ST_MADE_S,
    ST_PREDICTED, /* then one per candidate, in the model's order */
    ST_PRICED_BY = ST_PREDICTED + AUTO_NCAND,
    ST_CALIBRATE_S,
    ST_CALIBRATE_ERROR,
    ST_SWITCHES,
    ST_SWITCH_FROM,
    ST_SWITCH_TO,
    ST_SWITCH_WHY,
    ST_SWITCH_MEASURED_S,
    ST_SWITCH_PREDICTED_S,
    AUTO_NSTATS
};
extern const collio__stat collio__auto_stats[AUTO_NSTATS];

#endif /* COLLIO_AUTO_TABLES_H */
