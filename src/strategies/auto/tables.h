/*
 * strategies/auto/tables.h -- strategy auto's options and statistics, as
 * its table registers them (tables.c): their indices.
 */
#ifndef COLLIO_AUTO_TABLES_H
#define COLLIO_AUTO_TABLES_H

#include "options/options.h"
#include "model.h"

enum { OPT_USE_CALIBRATION, OPT_DIR, OPT_ONLY, OPT_CALIBRATE, OPT_LEARN, AUTO_NOPTIONS };

enum {
    ST_WRITE_CHOICE,
    ST_READ_CHOICE,
    ST_CALIBRATED,
    ST_NETWORKED,
    ST_CALIBRATION_ERROR,
    ST_LINK_BPS,
    ST_CHOOSE_S,
    ST_MADE_S,
    ST_PRICED_BY,
    ST_CALIBRATE_S,
    ST_CALIBRATE_ERROR,
    ST_SWITCHES,
    ST_SWITCH_FROM,
    ST_SWITCH_TO,
    ST_SWITCH_WHY,
    ST_SWITCH_MEASURED_S,
    ST_SWITCH_PREDICTED_S,
    ST_PREDICTED, /* then one per candidate, in the model's order (the last) */
    AUTO_NSTATS_FIXED = ST_PREDICTED
};

/* auto's section of the catalogue, made once the registry is sealed: the
 * values of auto.only and a predicted_<label>_s stat per candidate come
 * from the strategies' tables (the strategy's hook sealed_section). */
const collio__section *collio__auto_section(void);

#endif /* COLLIO_AUTO_TABLES_H */
