/*
 * error.c -- error texts, cross-rank agreement and checked arithmetic.
 *
 * Every collective function of collio ends with collio__agree so that a
 * failure on one rank becomes the same failure on every rank (no rank is
 * left waiting in a collective the others skipped, no MPI_Abort). The
 * codes are ordered so that MAX over ranks picks a real error over
 * COLLIO_OK; when ranks fail differently, the numerically largest code
 * wins, deterministically on every rank.
 *
 * Error detail (collio_last_error). Where a failure is found, the code
 * records a one-line message (collio__error_set: what, which index or
 * argument, the errno text). collio__agree then picks the lowest rank
 * among those with the winning code (MPI_MAXLOC), and that rank's message
 * -- prefixed "rank R: ", or the code's text where it recorded none -- is
 * broadcast, so every rank that returns the code holds the same text. The
 * broadcast happens only on failure.
 */
#include "base/base.h"

#include <limits.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MSG_LEN 512

/* This thread's last error: its code, its text, and whether the text was
 * agreed already (then it carries its rank prefix). */
static _Thread_local struct {
    int code;
    int agreed; /* text was agreed (carries its "rank R: " prefix) */
    int stale;  /* text is from an earlier public call: not this one's */
    char text[MSG_LEN];
} last;

void collio__error_begin(void)
{
    last.stale = 1;
}

void collio__error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last.text, sizeof last.text, fmt, ap);
    va_end(ap);
    last.code = code;
    last.agreed = 0;
    last.stale = 0;
}

const char *collio_last_error(void)
{
    return last.code != COLLIO_OK ? last.text : "";
}

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

/* After a failure was agreed (every rank is here): every rank's text
 * becomes root's -- an agreed one of this call as it is, else its fresh
 * message for this code, else the code's own text, prefixed "rank R: ". */
static int agree_text(MPI_Comm comm, int rank, int rc, int code, int root)
{
    int current = !last.stale && last.code == rc;
    if (rank == root && !(current && last.agreed)) {
        char own[MSG_LEN];
        snprintf(own, sizeof own, "%s", current ? last.text : collio_strerror(rc));
        snprintf(last.text, sizeof last.text, "rank %d: %.480s", rank, own);
    }
    if (MPI_Bcast(last.text, MSG_LEN, MPI_CHAR, root, comm) != MPI_SUCCESS)
        snprintf(last.text, sizeof last.text, "%s", collio_strerror(code));
    last.text[MSG_LEN - 1] = '\0';
    last.code = code;
    last.agreed = 1;
    last.stale = 0;
    return code;
}

static int agree_failed_mpi(int rank)
{
    collio__error_set(COLLIO_ERR_MPI,
                      "rank %d: an MPI call failed in the agreement on a result", rank);
    last.agreed = 1;
    return COLLIO_ERR_MPI;
}

int collio__agree(MPI_Comm comm, int rc)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    /* MAXLOC picks the largest code and, among ranks with that code, the
     * lowest index: the lowest such rank */
    struct {
        int code, rank;
    } in = {rc, rank}, out;
    if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
        return agree_failed_mpi(rank);
    if (out.code == COLLIO_OK)
        return COLLIO_OK;
    return agree_text(comm, rank, rc, out.code, out.rank);
}

static int first_differing(MPI_Comm comm, const int64_t *v, int n);
static int mismatch(int first, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

int collio__agree_same(MPI_Comm comm, int rc, int64_t value, const char *what,
                       int64_t *also_max)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    /* one Allreduce(MAX): the code in the high half of a key whose low
     * half prefers the lowest rank, then {value, ~value} (max and min),
     * then the caller's value to take the maximum of */
    int64_t in[4] = {((int64_t)rc << 32) | (INT32_MAX - rank), value, ~value,
                     also_max != NULL ? *also_max : 0},
            out[4];
    if (MPI_Allreduce(in, out, 4, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return agree_failed_mpi(rank);
    if (also_max != NULL)
        *also_max = out[3];
    int code = (int)(out[0] >> 32);
    if (code != COLLIO_OK)
        return agree_text(comm, rank, rc, code, INT32_MAX - (int)(out[0] & 0xffffffff));
    if (out[1] == ~out[2])
        return COLLIO_OK;
    int first = first_differing(comm, &value, 1);
    return mismatch(first < 0 ? 0 : first, "%s differs between rank 0 and rank %d", what,
                    first);
}

/* One Allreduce(MAX) of a failure flag and {v, ~v} per value: max(~v) ==
 * ~min(v), so the pair gives the maximum and minimum over ranks; they are
 * equal iff v is the same everywhere. ~v (== -v - 1) cannot overflow,
 * unlike -v at INT64_MIN. *same: no rank failed and v[0..n) (n <= 8) is
 * the same everywhere. Returns MPI's code. */
static int reduce_same(MPI_Comm comm, int failed, const int64_t *v, int n, int *same)
{
    int64_t in[1 + 2 * 8], out[1 + 2 * 8];
    in[0] = failed != 0;
    for (int i = 0; i < n; i++) {
        in[1 + 2 * i] = v[i];
        in[2 + 2 * i] = ~v[i];
    }
    int mrc = MPI_Allreduce(in, out, 1 + 2 * n, MPI_INT64_T, MPI_MAX, comm);
    *same = mrc == MPI_SUCCESS && out[0] == 0;
    for (int i = 0; i < n; i++)
        *same = *same && out[1 + 2 * i] == ~out[2 + 2 * i];
    return mrc;
}

static int check_same_n(MPI_Comm comm, const int64_t *v, int n)
{
    int same = 0;
    if (reduce_same(comm, 0, v, n, &same) != MPI_SUCCESS)
        return COLLIO_ERR_MPI;
    return same ? COLLIO_OK : COLLIO_ERR_MISMATCH;
}

/* Only after a mismatch was found (every rank is here): the lowest rank
 * whose v[0..n) differs from rank 0's, or -1 if an MPI call failed. */
static int first_differing(MPI_Comm comm, const int64_t *v, int n)
{
    int rank = 0, first = -1;
    int64_t v0[2] = {0, 0};
    MPI_Comm_rank(comm, &rank);
    memcpy(v0, v, (size_t)n * sizeof *v);
    if (MPI_Bcast(v0, n, MPI_INT64_T, 0, comm) != MPI_SUCCESS)
        return -1;
    int me = memcmp(v0, v, (size_t)n * sizeof *v) != 0 ? rank : INT_MAX;
    if (MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return -1;
    return first == INT_MAX ? -1 : first;
}

/* The mismatch text, the same on every rank (built from broadcast
 * values), recorded as agreed: "rank F: WHAT differs ...". */
static int mismatch(int first, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int mismatch(int first, const char *fmt, ...)
{
    char own[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(own, sizeof own, fmt, ap);
    va_end(ap);
    snprintf(last.text, sizeof last.text, "rank %d: %.480s", first, own);
    last.code = COLLIO_ERR_MISMATCH;
    last.agreed = 1;
    last.stale = 0;
    return COLLIO_ERR_MISMATCH;
}

int collio__check_same_i64(MPI_Comm comm, int64_t value, const char *what)
{
    int rc = check_same_n(comm, &value, 1);
    if (rc != COLLIO_ERR_MISMATCH)
        return rc;
    int first = first_differing(comm, &value, 1);
    int64_t pair[2] = {value, value}; /* rank 0's, the first differing one's */
    if (first < 0 || MPI_Bcast(&pair[0], 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS
        || MPI_Bcast(&pair[1], 1, MPI_INT64_T, first, comm) != MPI_SUCCESS)
        return mismatch(0, "%s differs across ranks", what);
    return mismatch(first, "%s differs across ranks: %lld on rank 0, %lld on rank %d",
                    what, (long long)pair[0], (long long)pair[1], first);
}

uint64_t collio__hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

int collio__check_same_digest(MPI_Comm comm, uint64_t digest, const char *what)
{
    int64_t v;
    memcpy(&v, &digest, sizeof v);
    int rc = check_same_n(comm, &v, 1);
    if (rc != COLLIO_ERR_MISMATCH)
        return rc;
    int first = first_differing(comm, &v, 1);
    if (first < 0)
        return mismatch(0, "%s differ across ranks", what);
    return mismatch(first, "%s differ between rank 0 and rank %d", what, first);
}

/* FNV-1a, 64 bit: a mismatch escapes only by a hash collision at equal
 * length. A NULL string counts as length -1 (differs from ""). */
void collio__str_key(const char *s, int64_t key[2])
{
    key[0] = -1;
    key[1] = 0;
    if (s) {
        uint64_t h = 1469598103934665603ULL; /* FNV-1a */
        size_t len = strlen(s);
        for (size_t i = 0; i < len; i++) {
            h ^= (unsigned char)s[i];
            h *= 1099511628211ULL;
        }
        key[0] = (int64_t)len;
        memcpy(&key[1], &h, sizeof h);
    }
}

int collio__all_ok_and_same(MPI_Comm comm, int rc, const int64_t *v, int n)
{
    int same = 0;
    if (n < 0 || n > 8)
        return 0;
    reduce_same(comm, rc != COLLIO_OK, v, n, &same);
    return same;
}

int collio__check_same_str(MPI_Comm comm, const char *s, const char *what)
{
    int64_t v[2];
    collio__str_key(s, v);
    int rc = check_same_n(comm, v, 2);
    if (rc != COLLIO_ERR_MISMATCH)
        return rc;
    /* name both strings (shortened), as rank 0 and the first other have them */
    int first = first_differing(comm, v, 2);
    char a[96] = "", b[96] = "";
    snprintf(a, sizeof a, "%s", s ? s : "(null)");
    memcpy(b, a, sizeof b);
    if (first < 0 || MPI_Bcast(a, sizeof a, MPI_CHAR, 0, comm) != MPI_SUCCESS
        || MPI_Bcast(b, sizeof b, MPI_CHAR, first, comm) != MPI_SUCCESS)
        return mismatch(0, "%s differs across ranks", what);
    a[sizeof a - 1] = b[sizeof b - 1] = '\0';
    return mismatch(first, "%s differs across ranks: '%s' on rank 0, '%s' on rank %d",
                    what, a, b, first);
}

int collio__mpi_usable(const char *fn)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        return COLLIO_OK;
    collio__error_set(COLLIO_ERR_STATE, "%s called %s", fn,
                      fin ? "after MPI_Finalize" : "before MPI_Init");
    last.agreed = 1; /* local, no rank to add: the same on every rank */
    return COLLIO_ERR_STATE;
}

int collio__mpi_alive(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
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

int collio__displs(const int *count, int *displ, int n, int64_t *total)
{
    int64_t t = 0;
    for (int q = 0; q < n; q++) {
        if (t > INT_MAX - count[q])
            return COLLIO_ERR_OVERFLOW;
        displ[q] = (int)t;
        t += count[q];
    }
    *total = t;
    return COLLIO_OK;
}

double collio__now(void)
{
    return MPI_Wtime();
}
