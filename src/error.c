/*
 * error.c -- error texts, cross-rank agreement and checked arithmetic.
 *
 * Every collective function of collio ends with collio__agree so that a
 * failure on one rank becomes the same failure on every rank (no rank is
 * left waiting in a collective the others skipped, no MPI_Abort). The
 * codes are ordered so that MAX over ranks picks a real error over
 * COLLIO_OK; when ranks fail differently, the numerically largest code
 * wins, deterministically on every rank.
 */
#include "collio_internal.h"

#include <stdint.h>
#include <string.h>

const char *collio_strerror(int code)
{
    switch (code) {
    case COLLIO_OK:
        return "success";
    case COLLIO_ERR_ARG:
        return "invalid argument";
    case COLLIO_ERR_NOMEM:
        return "out of memory";
    case COLLIO_ERR_RANGE:
        return "a layout index is outside [0, nglobal)";
    case COLLIO_ERR_OVERLAP:
        return "an element is held by two ranks (or twice)";
    case COLLIO_ERR_COVERAGE:
        return "the layouts of all ranks leave elements unheld";
    case COLLIO_ERR_OVERFLOW:
        return "a size or offset overflows 64-bit bytes";
    case COLLIO_ERR_MISMATCH:
        return "collective arguments differ across ranks";
    case COLLIO_ERR_STRATEGY:
        return "unknown strategy name";
    case COLLIO_ERR_BUFSIZE:
        return "buffer size does not match the layout";
    case COLLIO_ERR_OPEN:
        return "the file could not be opened or created";
    case COLLIO_ERR_IO:
        return "a file read or write failed";
    case COLLIO_ERR_EOF:
        return "the file is shorter than the data to read";
    case COLLIO_ERR_MPI:
        return "an MPI call failed";
    case COLLIO_ERR_UNSUPPORTED:
        return "not supported by this strategy or backend";
    case COLLIO_ERR_STATE:
        return "object used in the wrong state";
    default:
        return "unknown collio error code";
    }
}

int collio__agree(MPI_Comm comm, int rc)
{
    int all = rc;
    if (MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    return all;
}

/* One Allreduce(MAX) of {v, ~v}: max(~v) == ~min(v), so the pair gives the
 * maximum and minimum over ranks; they are equal iff v is the same
 * everywhere. ~v (== -v - 1) cannot overflow, unlike -v at INT64_MIN. */
static int check_same_n(MPI_Comm comm, const int64_t *v, int n)
{
    int64_t in[4], out[4];
    for (int i = 0; i < n; i++) {
        in[2 * i] = v[i];
        in[2 * i + 1] = ~v[i];
    }
    if (MPI_Allreduce(in, out, 2 * n, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    for (int i = 0; i < n; i++)
        if (out[2 * i] != ~out[2 * i + 1])
            return COLLIO_ERR_MISMATCH;
    return COLLIO_OK;
}

int collio__check_same_i64(MPI_Comm comm, int64_t value)
{
    return check_same_n(comm, &value, 1);
}

/* FNV-1a, 64 bit: a mismatch escapes only by a hash collision at equal
 * length. A NULL string counts as length -1 (differs from ""). */
int collio__check_same_str(MPI_Comm comm, const char *s)
{
    int64_t v[2] = {-1, 0};
    if (s) {
        uint64_t h = 1469598103934665603ULL;
        size_t len = strlen(s);
        for (size_t i = 0; i < len; i++) {
            h ^= (unsigned char)s[i];
            h *= 1099511628211ULL;
        }
        v[0] = (int64_t)len;
        memcpy(&v[1], &h, sizeof h);
    }
    return check_same_n(comm, v, 2);
}

/* Signed 64-bit arithmetic; negative operands are allowed. Overflow means
 * the exact result lies outside [INT64_MIN, INT64_MAX]; *out is then left
 * unchanged. Callers check signs themselves where negatives are invalid. */
int collio__mul_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return COLLIO_ERR_OVERFLOW;
    *out = r;
    return COLLIO_OK;
}

int collio__add_i64(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return COLLIO_ERR_OVERFLOW;
    *out = r;
    return COLLIO_OK;
}

double collio__now(void)
{
    return MPI_Wtime();
}
