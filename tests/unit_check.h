/*
 * unit_check.h -- the check counter and random numbers of the tests that run
 * without MPI (tests/unit_*.c). One translation unit per test executable,
 * so the counters are file-static.
 *
 * CHECK(cond, fmt, ...) counts a pass or a failure (the first 30 failures
 * are printed with file:line); unit_summary(name) prints "N passed, M
 * failed" and returns the exit code. Define UNIT_RNG_SEED before including
 * to get rnd() / rndr(n), a splitmix64 stream from that seed.
 */
#ifndef COLLIO_UNIT_CHECK_H
#define COLLIO_UNIT_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int64_t g_pass, g_fail;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (cond) {                                                                      \
            g_pass++;                                                                    \
        } else if (g_fail++ < 30) {                                                      \
            fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

/* Prints the summary line; returns the process exit code. */
static inline int unit_summary(const char *name)
{
    printf("%s: %lld passed, %lld failed\n", name, (long long)g_pass, (long long)g_fail);
    return g_fail ? 1 : 0;
}

/* splitmix64 step on a caller's state. */
static inline uint64_t unit_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#ifdef UNIT_RNG_SEED
static uint64_t unit_rng_state = UNIT_RNG_SEED;
static inline uint64_t rnd(void)
{
    return unit_splitmix(&unit_rng_state);
}
/* uniform in [0, n); 0 if n <= 0 */
static inline int64_t rndr(int64_t n)
{
    return n > 0 ? (int64_t)(rnd() % (uint64_t)n) : 0;
}
#endif

#endif /* COLLIO_UNIT_CHECK_H */
