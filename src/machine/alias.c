/*
 * machine/alias.c -- reads and copies around a penalty of the CPU's
 * copies. On some CPUs `rep movsb` -- which Linux copies to and from user
 * memory with where the CPU has fast short moves (FSRM), and glibc's
 * memcpy from 2112 bytes on -- slows down 5-10x when the destination
 * lies 1 to 31 bytes past the source modulo 4 KiB. Measured on the AMD
 * EPYC (Zen 3, family 25) VMs of docs/benchmarks.md under Linux 6.18: a
 * pread of 1 MiB from the page cache took 0.6 ms into a buffer 4-28 bytes
 * past the file's page alignment and 0.06 ms anywhere else. glibc's
 * malloc starts a large block 16 bytes into a page, so reading a file at
 * page-aligned offsets into a malloc'd array -- a program's usual read --
 * is in the window for every byte; writes (the copy runs the other way)
 * are not. A copy from a page-aligned buffer into such an array (a
 * strategy's unpacking for a read) is too: 4 MiB in 16 KiB pieces took
 * 2.2 ms with memcpy here, 0.15 ms aligned, 0.3-0.4 ms in 2 KiB pieces.
 *
 * Reads in the window go through a bounce buffer (files/posix.c) placed
 * ALIAS_WINDOW bytes past the file's alignment: the kernel copies into
 * it at distance ALIAS_WINDOW, and the copy out to the caller runs at
 * distance ALIAS_WINDOW less the caller's, 33..63 bytes before it, both
 * outside the window. That is one more copy, from a buffer that stays in
 * cache: `block`'s read of 16 MB at P = 2 took 1.8 ms here, 5.3 direct.
 *
 * Copies in the window (collio__copy, in the strategies' copy loops) go
 * in pieces of COLLIO__ALIAS_STEP bytes, under glibc's `rep movsb` threshold,
 * where its vector loop runs at full speed whatever the distance.
 *
 * Whether this process's CPU pays the penalty is measured once, at the
 * first read or copy that could: preads of 64 KiB from a memory file into
 * a destination in the window and one outside it, the best of 5 each;
 * the window's more than twice as slow turns the bounce and the stepped
 * copies on. COLLIO_COPY_ALIAS=1 turns them on without measuring, 0 off;
 * any other value fails collio_plan_create (COLLIO_ERR_ARG) on every rank
 * (docs/benchmarks.md, "Reading into malloc'd memory").
 */
#include "base/base.h"
#include "machine/machine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ALIAS_PROBE_BYTES 65536

/* The penalty of the probe's CPU, or -1 before the probe ran (atomic:
 * threads that race to it measure twice, alike). */
static _Atomic int alias_measured = -1;

/* Seconds on the monotonic clock (not MPI_Wtime: MPICH refuses it outside
 * MPI_Init .. MPI_Finalize, and a read may come in a test without MPI). */
static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Local: 1 if a pread into memory 16 bytes past the source's alignment
 * is more than twice as slow as one 64 bytes past it. No file system is
 * touched: the source is a memory file (memfd), read through the same
 * page cache copy as any file's. 0 where the probe cannot run. */
static int probe(void)
{
    int fd = memfd_create("collio-alias-probe", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned char *buf = NULL;
    int slow = 0;
    const size_t room = ALIAS_PROBE_BYTES + 2 * COLLIO__ALIAS_PAGE;
    if (posix_memalign((void **)&buf, COLLIO__ALIAS_PAGE, room) == 0) {
        memset(buf, 1, room);
        if (pwrite(fd, buf, ALIAS_PROBE_BYTES, 0) == ALIAS_PROBE_BYTES) {
            double best[2] = {1e9, 1e9};
            for (int rep = 0; rep < 5; rep++)
                for (int in = 0; in < 2; in++) {
                    double t0 = mono_s();
                    ssize_t got = pread(fd, buf + (in ? 16 : COLLIO__ALIAS_WINDOW),
                                        ALIAS_PROBE_BYTES, 0);
                    double t = mono_s() - t0;
                    if (got == ALIAS_PROBE_BYTES && t < best[in])
                        best[in] = t;
                }
            slow = best[1] > 2 * best[0];
        }
        free(buf);
    }
    close(fd);
    return slow;
}

/* COLLIO_COPY_ALIAS's setting: 0 or 1, -1 unset or empty (measure), -2
 * anything else. */
static int alias_env(const char **text)
{
    const char *env = getenv("COLLIO_COPY_ALIAS");
    *text = env;
    if (env == NULL || *env == '\0')
        return -1;
    if (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)
        return env[0] - '0';
    return -2;
}

int collio__alias_env_check(void)
{
    const char *text;
    if (alias_env(&text) != -2)
        return COLLIO_OK;
    collio__error_set(COLLIO_ERR_ARG,
                      "COLLIO_COPY_ALIAS=%.32s: 1 (copies step around the CPU's 4 KiB "
                      "aliasing window), 0 (they never do) or unset (measured)",
                      text);
    return COLLIO_ERR_ARG;
}

int collio__alias_avoid(void)
{
    const char *text;
    int env = alias_env(&text);
    if (env >= 0)
        return env; /* (-2, refused by every plan's creation: measured here) */
    int known = alias_measured;
    if (known < 0)
        alias_measured = known = probe();
    return known;
}

/* Local: 1 if a copy to `to` from `from` (addresses, or a file offset
 * standing for its page-cache source) runs in the window. */
static int in_window(uintptr_t to, uintptr_t from)
{
    uintptr_t d = (to - from) & (COLLIO__ALIAS_PAGE - 1);
    return d > 0 && d < COLLIO__ALIAS_WINDOW;
}

int collio__alias_hit(const void *dst, int64_t off, size_t n)
{
    return n >= COLLIO__ALIAS_MIN_BYTES && in_window((uintptr_t)dst, (uintptr_t)off)
           && collio__alias_avoid();
}

size_t collio__alias_place(int64_t off)
{
    return (size_t)(((uint64_t)off + COLLIO__ALIAS_WINDOW) & (COLLIO__ALIAS_PAGE - 1));
}

void collio__copy_large(void *dst, const void *src, size_t n)
{
    if (!in_window((uintptr_t)dst, (uintptr_t)src) || !collio__alias_avoid()) {
        memcpy(dst, src, n);
        return;
    }
    char *o = dst;
    const char *i = src;
    for (; n > COLLIO__ALIAS_STEP;
         n -= COLLIO__ALIAS_STEP, o += COLLIO__ALIAS_STEP, i += COLLIO__ALIAS_STEP)
        memcpy(o, i, COLLIO__ALIAS_STEP);
    memcpy(o, i, n);
}
