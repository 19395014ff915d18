/*
 * multiphase_options.c -- the multiphase strategy's own plan options
 * (collio_plan_options.multiphase): their documented ranges, checked at
 * plan creation (collio__strategy.check) when multiphase runs, as the
 * plan's strategy or as subgroup's inner one. What depends on the rank
 * count (exchange DIRECT with fewer than all phases) or is not built yet
 * (the node-aware exchanges) is rejected by mp_plan (multiphase.c).
 */
#include "multiphase.h"

/* Records a bad value of field `name` and returns COLLIO_ERR_ARG. */
static int bad(const char *name, int value, const char *want)
{
    collio__error_set(COLLIO_ERR_ARG, "plan option multiphase.%s is %d, %s", name, value,
                      want);
    return COLLIO_ERR_ARG;
}

int collio__mp_check_options(collio_plan_options *o)
{
    const collio_multiphase_options *m = &o->multiphase;
    if (m->phases < 0 || m->phases > COLLIO_MAX_PHASES)
        return bad("phases", m->phases, "not in [0, COLLIO_MAX_PHASES]");
    if (m->keep_buffers != 0 && m->keep_buffers != 1)
        return bad("keep_buffers", m->keep_buffers, "not 0 or 1");
    if (m->write_rounds < -1 || m->write_rounds > 62)
        return bad("write_rounds", m->write_rounds, "not in [-1, 62]");
    if (m->exchange < COLLIO_EXCHANGE_AUTO || m->exchange >= COLLIO_EXCHANGE__COUNT)
        return bad("exchange", m->exchange, "not a collio_exchange");
    if (m->shared_memory != 0 && m->shared_memory != 1)
        return bad("shared_memory", m->shared_memory, "not 0 or 1");
    return COLLIO_OK;
}
