/*
 * shm_word.c -- counters in memory shared between processes that a
 * process can sleep on: post adds one and wakes the sleepers, wait
 * sleeps until the counter reaches a value.
 *
 * Why not MPI messages or a barrier: a rank waiting in MPI polls (Open
 * MPI with mpi_yield_when_idle polls and yields), so on an oversubscribed
 * node every waiting rank keeps getting scheduled. Measured at 16 ranks
 * on 2 cores: a zero-byte message took 0.45 ms to be noticed, and the
 * pollers slowed the one rank doing real work. A rank asleep on a Linux
 * futex costs nothing until it is woken, and the wake goes to it
 * directly. Elsewhere wait falls back to polling with sched_yield, as MPI
 * does.
 *
 * Counters only grow (mod 2^32); a waiter knows how many posts to expect,
 * so no reset is needed between uses. Memory order: post releases every
 * store made before it, a wait that returns acquires them.
 */
#include "collio_internal.h"

#include <limits.h>
#include <sched.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

void collio__word_post(collio__word *w)
{
    atomic_fetch_add_explicit(w, 1u, memory_order_acq_rel);
#ifdef __linux__
    /* shared (not FUTEX_PRIVATE): the sleepers are other processes */
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
#endif
}

void collio__word_wait(collio__word *w, uint32_t target)
{
    for (;;) {
        uint32_t v = atomic_load_explicit(w, memory_order_acquire);
        if ((int32_t)(v - target) >= 0)
            return;
#ifdef __linux__
        /* sleeps only while *w is still v: no lost wake-up */
        syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, v, NULL, NULL, 0);
#else
        sched_yield();
#endif
    }
}
