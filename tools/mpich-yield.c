/*
 * mpich-yield.c -- LD_PRELOAD shim that makes MPICH (ch4:ucx) give the CPU
 * away while it waits. Not part of libcollio: scripts/mpirun preloads it
 * into MPICH runs only.
 *
 * Why: Debian's MPICH 4.0.2 busy-polls in its progress loop and has no
 * yield-when-idle setting, so with more ranks than cores the waiting ranks
 * starve the working ones (35 ms barriers at 8 ranks on 2 cores). ch4:ucx
 * calls ucp_worker_progress once per iteration of that loop; this wrapper
 * calls the real one and, when it processed no event, sleeps or yields.
 *
 * Environment: YIELDSHIM_MODE=sleep (usleep(YIELDSHIM_US), default 1 us) or
 * yield (sched_yield, the default); YIELDSHIM_EVERY=N acts on every N-th
 * idle poll only (default 1).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *ucp_worker_h;

unsigned ucp_worker_progress(ucp_worker_h w);

static unsigned (*real_progress)(ucp_worker_h);
static int sleep_mode, every = 1, sleep_us = 1;
static unsigned long idle_polls;

static void init(void)
{
    real_progress = (unsigned (*)(ucp_worker_h))dlsym(RTLD_NEXT, "ucp_worker_progress");
    const char *m = getenv("YIELDSHIM_MODE");
    sleep_mode = m != NULL && strcmp(m, "sleep") == 0;
    const char *e = getenv("YIELDSHIM_EVERY");
    if (e != NULL && atoi(e) >= 1)
        every = atoi(e);
    const char *u = getenv("YIELDSHIM_US");
    if (u != NULL && atoi(u) >= 0)
        sleep_us = atoi(u);
}

unsigned ucp_worker_progress(ucp_worker_h w)
{
    if (real_progress == NULL)
        init();
    if (real_progress == NULL)
        return 0; /* not under UCX: nothing to wrap */
    unsigned n = real_progress(w);
    if (n == 0 && ++idle_polls % (unsigned long)every == 0) {
        if (sleep_mode)
            usleep((useconds_t)sleep_us);
        else
            sched_yield();
    }
    return n;
}
