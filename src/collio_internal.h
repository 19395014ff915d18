/*
 * collio_internal.h -- types and building blocks shared inside libcollio.
 * Not installed. Internal names carry the collio__ prefix.
 *
 * Bounds are half-open everywhere: [start, end). Positions and lengths of
 * layouts, segments and extents are in ELEMENTS unless a name ends in
 * _bytes or the comment says bytes.
 */
#ifndef COLLIO_INTERNAL_H
#define COLLIO_INTERNAL_H

#include "collio.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* The parts, in dependency order (each declares what its files define). */
#include "internal/segs.h"
#include "internal/layout.h"
#include "internal/errors.h"
#include "internal/files.h"
#include "internal/catalogue.h"
#include "internal/strategy.h"
#include "internal/machine.h"

#endif /* COLLIO_INTERNAL_H */
